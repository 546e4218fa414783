/* SPDX-License-Identifier: GPL-2.0 */
/* Private to rds_loop.ko. */
#ifndef _RDS_LOOP_H
#define _RDS_LOOP_H

struct rds_connection;
struct rds_message;

int rds_loop_xmit_rdma(struct rds_connection *conn, struct rds_message *rm);

#endif /* _RDS_LOOP_H */
