/* SPDX-License-Identifier: GPL-2.0 */
/* Opening, configuring and binding RDS sockets. */
#ifndef RDS_TOOLS_SOCK_H
#define RDS_TOOLS_SOCK_H

#include "addr.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef PF_RDS
#define PF_RDS AF_RDS
#endif

/* socket(AF_RDS, SOCK_SEQPACKET, 0), or die with an explanation. */
int rds_open(void);
/* "tcp", "ib", "iwarp" (or a number) to an RDS_TRANS_* value; -1 if unknown. */
int rds_transport_parse(const char *name);
const char *rds_transport_name(int t);
/* SO_RDS_TRANSPORT; dies with a clear message on failure. */
void rds_set_transport(int fd, int trans);
/* Size both socket buffers to at least @bytes (forced if allowed). */
void rds_set_bufs(int fd, int bytes);
/* bind(); returns 0 or -errno. */
int rds_bind(int fd, const struct rds_ep *ep);
/* Does this errno from bind() mean "this RDS cannot carry data"? */
int rds_bind_unsupported(int err);

#endif
