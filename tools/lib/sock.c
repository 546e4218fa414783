// SPDX-License-Identifier: GPL-2.0
/* Opening, configuring and binding RDS sockets. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <linux/rds.h>

#include "sock.h"
#include "util.h"

int rds_open(void)
{
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);

	if (fd < 0) {
		if (errno == EAFNOSUPPORT)
			die("socket(AF_RDS): address family not supported: is the rds module loaded?");
		die_errno("socket(AF_RDS)");
	}
	return fd;
}

static const struct {
	const char *name;
	int id;
} transports[] = {
	{ "ib", RDS_TRANS_IB },
	{ "rdma", RDS_TRANS_IB },
	{ "iwarp", RDS_TRANS_IWARP },
	{ "tcp", RDS_TRANS_TCP },
};

int rds_transport_parse(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		if (!strcasecmp(name, transports[i].name))
			return transports[i].id;
	return -1;
}

const char *rds_transport_name(int t)
{
	size_t i;

	for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		if (transports[i].id == t)
			return transports[i].name;
	return "default";
}

void rds_set_transport(int fd, int trans)
{
	if (setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &trans, sizeof(trans)))
		die_errno("setsockopt(SO_RDS_TRANSPORT, %s): transport not available",
			  rds_transport_name(trans));
}

void rds_set_bufs(int fd, int bytes)
{
	int cur;
	socklen_t len = sizeof(cur);

	/* SO_*BUFFORCE passes the rmem/wmem_max caps but needs CAP_NET_ADMIN. */
	if (!getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cur, &len) && cur / 2 < bytes &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof(bytes)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
	len = sizeof(cur);
	if (!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &cur, &len) && cur / 2 < bytes &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

int rds_bind(int fd, const struct rds_ep *ep)
{
	if (bind(fd, (const struct sockaddr *)&ep->ss, ep->len))
		return -errno;
	return 0;
}

int rds_bind_unsupported(int err)
{
	if (err < 0)
		err = -err;
	return err == EOPNOTSUPP || err == ENOSYS || err == ENOPROTOOPT;
}
