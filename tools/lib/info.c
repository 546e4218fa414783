// SPDX-License-Identifier: GPL-2.0
/* The RDS_INFO_* getsockopt protocol: probe the size, then fetch. */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <linux/rds.h>

#include "info.h"

int rds_info_get(int fd, int optname, void **buf, size_t *nr, size_t *each)
{
	char probe;
	socklen_t len = 0;
	void *p = NULL;
	int rc, tries;

	*buf = NULL;
	*nr = *each = 0;
	/* The table can grow between the probe and the fetch: retry a few times. */
	for (tries = 0; tries < 8; tries++) {
		void *q;

		rc = getsockopt(fd, SOL_RDS, optname, p ? p : &probe, &len);
		if (rc >= 0)
			break;
		if (errno != ENOSPC) {
			rc = -errno;
			free(p);
			return rc;
		}
		/* Leave room for growth so the retry usually succeeds. */
		len += len / 4 + 1024;
		q = realloc(p, len);
		if (!q) {
			free(p);
			return -ENOMEM;
		}
		p = q;
	}
	if (rc < 0) {
		free(p);
		return -EAGAIN;
	}
	*each = rc;
	*nr = rc > 0 ? len / rc : 0;
	*buf = p;
	return 0;
}
