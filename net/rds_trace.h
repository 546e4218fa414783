/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of rds.ko: connection state changes, retransmissions,
 * drops and errors, each with the connection's addresses, so that
 * `trace-cmd record -e rds` or `perf trace -e 'rds:*'` can follow one
 * connection. net/trace.c instantiates them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rds

#if !defined(_RDS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RDS_TRACE_H

#include <linux/tracepoint.h>
#include <net/rds/connection.h>
#include <net/rds/transport.h>

#define rds_show_state(s)					\
	__print_symbolic(s,					\
			 { RDS_CONN_DOWN, "DOWN" },		\
			 { RDS_CONN_CONNECTING, "CONNECTING" },	\
			 { RDS_CONN_UP, "UP" },			\
			 { RDS_CONN_DISCONNECTING, "DISCONNECTING" }, \
			 { RDS_CONN_ERROR, "ERROR" })

#define rds_show_trans(t)					\
	__print_symbolic(t,					\
			 { RDS_TRANS_TYPE_IB, "ib" },		\
			 { RDS_TRANS_TYPE_IWARP, "iwarp" },	\
			 { RDS_TRANS_TYPE_TCP, "tcp" },		\
			 { RDS_TRANS_TYPE_LOOP, "loop" })

/* What every event records about its connection, and two numbers. */
DECLARE_EVENT_CLASS(rds_conn_class,
		    TP_PROTO(const struct rds_connection *conn, int a, int b),
		    TP_ARGS(conn, a, b),
		    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct in6_addr))
				     __array(u8, faddr, sizeof(struct in6_addr))
				     __field(u8, trans)
				     __field(u8, tos)
				     __field(int, a)
				     __field(int, b)),
		    TP_fast_assign(memcpy(__entry->laddr, &conn->c_laddr,
					  sizeof(struct in6_addr));
				   memcpy(__entry->faddr, &conn->c_faddr,
					  sizeof(struct in6_addr));
				   __entry->trans = conn->c_trans->type;
				   __entry->tos = conn->c_tos;
				   __entry->a = a;
				   __entry->b = b;),
		    TP_printk("%pI6c -> %pI6c tos %u %s: %d %d", __entry->laddr,
			      __entry->faddr, __entry->tos,
			      rds_show_trans(__entry->trans), __entry->a,
			      __entry->b));

/* @a: old state, @b: new state */
DEFINE_EVENT_PRINT(rds_conn_class, rds_conn_state,
		   TP_PROTO(const struct rds_connection *conn, int a, int b),
		   TP_ARGS(conn, a, b),
		   TP_printk("%pI6c -> %pI6c tos %u %s: %s -> %s",
			     __entry->laddr, __entry->faddr, __entry->tos,
			     rds_show_trans(__entry->trans),
			     rds_show_state(__entry->a),
			     rds_show_state(__entry->b)));

/* @a: messages queued again, @b: 0 */
DEFINE_EVENT(rds_conn_class, rds_retransmit,
	     TP_PROTO(const struct rds_connection *conn, int a, int b),
	     TP_ARGS(conn, a, b));

/* @a: enum rds_stat of the drop, @b: destination port (host order) */
DEFINE_EVENT(rds_conn_class, rds_recv_drop,
	     TP_PROTO(const struct rds_connection *conn, int a, int b),
	     TP_ARGS(conn, a, b));

/* @a: enum rds_stat of the reason, @b: messages the sender gave up on
 * without the peer's ack
 */
DEFINE_EVENT(rds_conn_class, rds_send_giveup,
	     TP_PROTO(const struct rds_connection *conn, int a, int b),
	     TP_ARGS(conn, a, b));

/* @a: -errno, @b: where (0 transmit, 1 connect, 2 bad header) */
DEFINE_EVENT(rds_conn_class, rds_conn_error,
	     TP_PROTO(const struct rds_connection *conn, int a, int b),
	     TP_ARGS(conn, a, b));

#endif /* _RDS_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rds_trace
#include <trace/define_trace.h>
