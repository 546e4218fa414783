/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of rds.ko: connection state changes, retransmissions,
 * drops and errors, each with the connection's addresses, so that
 * `trace-cmd record -e rds` or `perf trace -e 'rds:*'` can follow one
 * connection. Every field has a name; states, sites and reasons print
 * as words. net/trace.c instantiates them; Documentation/rds.rst lists
 * them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rds

#if !defined(_RDS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RDS_TRACE_H

#include <linux/tracepoint.h>
#include <net/rds/connection.h>
#include <net/rds/transport.h>

#include "stats.h"

#ifndef _RDS_TRACE_SITES
#define _RDS_TRACE_SITES
/* Where rds_conn_error saw the error. */
enum rds_trace_site {
	RDS_TRACE_SITE_XMIT,		/* the transport's xmit */
	RDS_TRACE_SITE_CONNECT,		/* the transport's conn_connect */
	RDS_TRACE_SITE_BAD_HEADER,	/* a frame rds_hdr_check() refused */
	RDS_TRACE_SITE_CONNECT_TIMEOUT,	/* connect_timeout_ms expired */
};
#endif

TRACE_DEFINE_ENUM(RDS_CONN_DOWN);
TRACE_DEFINE_ENUM(RDS_CONN_CONNECTING);
TRACE_DEFINE_ENUM(RDS_CONN_UP);
TRACE_DEFINE_ENUM(RDS_CONN_DISCONNECTING);
TRACE_DEFINE_ENUM(RDS_CONN_ERROR);

#define rds_show_state(s)						\
	__print_symbolic(s,						\
			 { RDS_CONN_DOWN, "DOWN" },			\
			 { RDS_CONN_CONNECTING, "CONNECTING" },		\
			 { RDS_CONN_UP, "UP" },				\
			 { RDS_CONN_DISCONNECTING, "DISCONNECTING" },	\
			 { RDS_CONN_ERROR, "ERROR" })

TRACE_DEFINE_ENUM(RDS_TRANS_TYPE_IB);
TRACE_DEFINE_ENUM(RDS_TRANS_TYPE_IWARP);
TRACE_DEFINE_ENUM(RDS_TRANS_TYPE_TCP);
TRACE_DEFINE_ENUM(RDS_TRANS_TYPE_LOOP);

#define rds_show_trans(t)						\
	__print_symbolic(t,						\
			 { RDS_TRANS_TYPE_IB, "ib" },			\
			 { RDS_TRANS_TYPE_IWARP, "iwarp" },		\
			 { RDS_TRANS_TYPE_TCP, "tcp" },			\
			 { RDS_TRANS_TYPE_LOOP, "loop" })

TRACE_DEFINE_ENUM(RDS_TRACE_SITE_XMIT);
TRACE_DEFINE_ENUM(RDS_TRACE_SITE_CONNECT);
TRACE_DEFINE_ENUM(RDS_TRACE_SITE_BAD_HEADER);
TRACE_DEFINE_ENUM(RDS_TRACE_SITE_CONNECT_TIMEOUT);

#define rds_show_site(s)						\
	__print_symbolic(s,						\
			 { RDS_TRACE_SITE_XMIT, "xmit" },		\
			 { RDS_TRACE_SITE_CONNECT, "connect" },		\
			 { RDS_TRACE_SITE_BAD_HEADER, "bad_header" },	\
			 { RDS_TRACE_SITE_CONNECT_TIMEOUT, "connect_timeout" })

/* The counters a drop or a give-up is charged to (stats.c's names). */
TRACE_DEFINE_ENUM(RDS_STAT_RECV_DROP_OLD_SEQ);
TRACE_DEFINE_ENUM(RDS_STAT_RECV_DROP_NO_SOCK);
TRACE_DEFINE_ENUM(RDS_STAT_RECV_DROP_DEAD_SOCK);
TRACE_DEFINE_ENUM(RDS_STAT_RECV_DROP_RCVBUF);
TRACE_DEFINE_ENUM(RDS_STAT_RECV_DROP_MEMCG);
TRACE_DEFINE_ENUM(RDS_STAT_SEND_DROP_ORPHAN);
TRACE_DEFINE_ENUM(RDS_STAT_SEND_DROP_CONN_KILLED);
TRACE_DEFINE_ENUM(RDS_STAT_SEND_DROP_RDMA);

#define rds_show_reason(r)						\
	__print_symbolic(r,						\
			 { RDS_STAT_RECV_DROP_OLD_SEQ, "recv_drop_old_seq" }, \
			 { RDS_STAT_RECV_DROP_NO_SOCK, "recv_drop_no_sock" }, \
			 { RDS_STAT_RECV_DROP_DEAD_SOCK, "recv_drop_dead_sock" }, \
			 { RDS_STAT_RECV_DROP_RCVBUF, "recv_drop_rcvbuf" }, \
			 { RDS_STAT_RECV_DROP_MEMCG, "recv_drop_memcg" }, \
			 { RDS_STAT_SEND_DROP_ORPHAN, "send_drop_orphan" }, \
			 { RDS_STAT_SEND_DROP_CONN_KILLED, "send_drop_conn_killed" }, \
			 { RDS_STAT_SEND_DROP_RDMA, "send_drop_rdma" })

#ifndef _RDS_TRACE_CONN
#define _RDS_TRACE_CONN
/* What every event records about its connection. */
static inline void rds_trace_conn(const struct rds_connection *conn,
				  u8 *laddr, u8 *faddr, u8 *trans, u8 *tos,
				  u8 *lane)
{
	memcpy(laddr, &conn->c_laddr, sizeof(struct in6_addr));
	memcpy(faddr, &conn->c_faddr, sizeof(struct in6_addr));
	*trans = conn->c_trans->type;
	*tos = conn->c_tos;
	*lane = conn->c_lane;
}
#endif

#define RDS_TP_CONN_ASSIGN(conn)					\
	rds_trace_conn(conn, __entry->laddr, __entry->faddr,		\
		       &__entry->trans, &__entry->tos, &__entry->lane)

/* A connection changed state (rds_conn_transition()). */
TRACE_EVENT(rds_conn_state,
	    TP_PROTO(const struct rds_connection *conn,
		     enum rds_conn_state old_state,
		     enum rds_conn_state new_state),
	    TP_ARGS(conn, old_state, new_state),
	    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct in6_addr))
			     __array(u8, faddr, sizeof(struct in6_addr))
			     __field(u8, trans)
			     __field(u8, tos)
			     __field(u8, lane)
			     __field(u8, old_state)
			     __field(u8, new_state)),
	    TP_fast_assign(RDS_TP_CONN_ASSIGN(conn);
			   __entry->old_state = old_state;
			   __entry->new_state = new_state;),
	    TP_printk("%pI6c -> %pI6c tos %u lane %u %s: %s -> %s",
		      __entry->laddr, __entry->faddr, __entry->tos,
		      __entry->lane, rds_show_trans(__entry->trans),
		      rds_show_state(__entry->old_state),
		      rds_show_state(__entry->new_state)));

/* A shutdown put @requeued unacked messages back on the send queue. */
TRACE_EVENT(rds_retransmit,
	    TP_PROTO(const struct rds_connection *conn, unsigned int requeued),
	    TP_ARGS(conn, requeued),
	    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct in6_addr))
			     __array(u8, faddr, sizeof(struct in6_addr))
			     __field(u8, trans)
			     __field(u8, tos)
			     __field(u8, lane)
			     __field(unsigned int, requeued)),
	    TP_fast_assign(RDS_TP_CONN_ASSIGN(conn);
			   __entry->requeued = requeued;),
	    TP_printk("%pI6c -> %pI6c tos %u lane %u %s: requeued=%u",
		      __entry->laddr, __entry->faddr, __entry->tos,
		      __entry->lane, rds_show_trans(__entry->trans),
		      __entry->requeued));

/* The receiver dropped a message for port @dport, charged to @reason. */
TRACE_EVENT(rds_recv_drop,
	    TP_PROTO(const struct rds_connection *conn, enum rds_stat reason,
		     u16 dport),
	    TP_ARGS(conn, reason, dport),
	    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct in6_addr))
			     __array(u8, faddr, sizeof(struct in6_addr))
			     __field(u8, trans)
			     __field(u8, tos)
			     __field(u8, lane)
			     __field(u16, reason)
			     __field(u16, dport)),
	    TP_fast_assign(RDS_TP_CONN_ASSIGN(conn);
			   __entry->reason = reason;
			   __entry->dport = dport;),
	    TP_printk("%pI6c -> %pI6c tos %u lane %u %s: reason=%s dport=%u",
		      __entry->laddr, __entry->faddr, __entry->tos,
		      __entry->lane, rds_show_trans(__entry->trans),
		      rds_show_reason(__entry->reason), __entry->dport));

/* The sender retired @count messages without the peer's ack. */
TRACE_EVENT(rds_send_giveup,
	    TP_PROTO(const struct rds_connection *conn, enum rds_stat reason,
		     unsigned int count),
	    TP_ARGS(conn, reason, count),
	    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct in6_addr))
			     __array(u8, faddr, sizeof(struct in6_addr))
			     __field(u8, trans)
			     __field(u8, tos)
			     __field(u8, lane)
			     __field(u16, reason)
			     __field(unsigned int, count)),
	    TP_fast_assign(RDS_TP_CONN_ASSIGN(conn);
			   __entry->reason = reason;
			   __entry->count = count;),
	    TP_printk("%pI6c -> %pI6c tos %u lane %u %s: reason=%s count=%u",
		      __entry->laddr, __entry->faddr, __entry->tos,
		      __entry->lane, rds_show_trans(__entry->trans),
		      rds_show_reason(__entry->reason), __entry->count));

/* An error that drops the connection: @err (-errno) seen at @site. */
TRACE_EVENT(rds_conn_error,
	    TP_PROTO(const struct rds_connection *conn, int err,
		     enum rds_trace_site site),
	    TP_ARGS(conn, err, site),
	    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct in6_addr))
			     __array(u8, faddr, sizeof(struct in6_addr))
			     __field(u8, trans)
			     __field(u8, tos)
			     __field(u8, lane)
			     __field(int, err)
			     __field(u8, site)),
	    TP_fast_assign(RDS_TP_CONN_ASSIGN(conn);
			   __entry->err = err;
			   __entry->site = site;),
	    TP_printk("%pI6c -> %pI6c tos %u lane %u %s: err=%d site=%s",
		      __entry->laddr, __entry->faddr, __entry->tos,
		      __entry->lane, rds_show_trans(__entry->trans),
		      __entry->err, rds_show_site(__entry->site)));

/* A drop started a connection's shutdown, for @reason (enum
 * rds_drop_reason, <linux/rds_uek.h>; rds-info -p names them).
 */
TRACE_EVENT(rds_conn_drop,
	    TP_PROTO(const struct rds_connection *conn, unsigned int reason),
	    TP_ARGS(conn, reason),
	    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct in6_addr))
			     __array(u8, faddr, sizeof(struct in6_addr))
			     __field(u8, trans)
			     __field(u8, tos)
			     __field(u8, lane)
			     __field(unsigned int, reason)),
	    TP_fast_assign(RDS_TP_CONN_ASSIGN(conn);
			   __entry->reason = reason;),
	    TP_printk("%pI6c -> %pI6c tos %u lane %u %s: reason=%u",
		      __entry->laddr, __entry->faddr, __entry->tos,
		      __entry->lane, rds_show_trans(__entry->trans),
		      __entry->reason));

#endif /* _RDS_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rds_trace
#include <trace/define_trace.h>
