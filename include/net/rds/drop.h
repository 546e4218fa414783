/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a connection (a lane) went down: every rds_conn_drop_reason()
 * caller names one, the lane keeps the last, and RDS_INFO_CONN_PATHS
 * shows it with the lane's history. The reasons and their numbers are
 * ABI (<linux/rds_uek.h>).
 */
#ifndef _NET_RDS_DROP_H
#define _NET_RDS_DROP_H

#include <linux/rds_uek.h>

struct rds_connection;

bool rds_conn_drop_reason(struct rds_connection *conn,
			  enum rds_drop_reason reason);

/* For code that has no reason to give yet: prefer the call above. */
static inline void rds_conn_drop(struct rds_connection *conn)
{
	rds_conn_drop_reason(conn, RDS_DROP_UNSPEC);
}

#endif /* _NET_RDS_DROP_H */
