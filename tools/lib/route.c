// SPDX-License-Identifier: GPL-2.0
/* Source address selection: ask the routing table through a UDP socket. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "route.h"

int rds_route_source(const struct rds_ep *dst, struct rds_ep *src)
{
	struct rds_ep to = *dst;
	int fd, rc = 0;

	/* connect() on UDP sends nothing; it only resolves the route. */
	rds_ep_set_port(&to, 9);
	fd = socket(rds_ep_family(dst), SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	memset(src, 0, sizeof(*src));
	src->len = sizeof(src->ss);
	if (connect(fd, (struct sockaddr *)&to.ss, to.len) ||
	    getsockname(fd, (struct sockaddr *)&src->ss, &src->len))
		rc = -errno;
	close(fd);
	if (!rc)
		rds_ep_set_port(src, 0);
	return rc;
}
