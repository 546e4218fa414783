/* SPDX-License-Identifier: GPL-2.0 */
/* Which local address the kernel would use to reach a peer. */
#ifndef RDS_TOOLS_ROUTE_H
#define RDS_TOOLS_ROUTE_H

#include "addr.h"

/* Fill @src with the source address for @dst (port 0); 0 or -errno. */
int rds_route_source(const struct rds_ep *dst, struct rds_ep *src);

#endif
