/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of rds_tcp.ko (trace system rds_tcp): the state changes
 * of a connection's TCP socket, and the resets with which we close
 * sockets. rds_tcp_trace.c instantiates them; Documentation/rds.rst
 * lists them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rds_tcp

#if !defined(_RDS_TCP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RDS_TCP_TRACE_H

#include <linux/tracepoint.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp_states.h>
#include <net/rds/connection.h>

#ifndef _RDS_TCP_TRACE_ENUMS
#define _RDS_TCP_TRACE_ENUMS
/* Why we closed a socket with a reset. */
enum rds_tcp_reset_why {
	RDS_TCP_RESET_SHUTDOWN,	/* the connection's shutdown */
	RDS_TCP_RESET_REFUSE,	/* an accepted socket we had no use for */
};
#endif

TRACE_DEFINE_ENUM(TCP_ESTABLISHED);
TRACE_DEFINE_ENUM(TCP_SYN_SENT);
TRACE_DEFINE_ENUM(TCP_SYN_RECV);
TRACE_DEFINE_ENUM(TCP_FIN_WAIT1);
TRACE_DEFINE_ENUM(TCP_FIN_WAIT2);
TRACE_DEFINE_ENUM(TCP_TIME_WAIT);
TRACE_DEFINE_ENUM(TCP_CLOSE);
TRACE_DEFINE_ENUM(TCP_CLOSE_WAIT);
TRACE_DEFINE_ENUM(TCP_LAST_ACK);
TRACE_DEFINE_ENUM(TCP_LISTEN);
TRACE_DEFINE_ENUM(TCP_CLOSING);

#define rds_tcp_show_state(s)						\
	__print_symbolic(s,						\
			 { TCP_ESTABLISHED, "ESTABLISHED" },		\
			 { TCP_SYN_SENT, "SYN_SENT" },			\
			 { TCP_SYN_RECV, "SYN_RECV" },			\
			 { TCP_FIN_WAIT1, "FIN_WAIT1" },		\
			 { TCP_FIN_WAIT2, "FIN_WAIT2" },		\
			 { TCP_TIME_WAIT, "TIME_WAIT" },		\
			 { TCP_CLOSE, "CLOSE" },			\
			 { TCP_CLOSE_WAIT, "CLOSE_WAIT" },		\
			 { TCP_LAST_ACK, "LAST_ACK" },			\
			 { TCP_LISTEN, "LISTEN" },			\
			 { TCP_CLOSING, "CLOSING" })

TRACE_DEFINE_ENUM(RDS_TCP_RESET_SHUTDOWN);
TRACE_DEFINE_ENUM(RDS_TCP_RESET_REFUSE);

#define rds_tcp_show_reset(s)						\
	__print_symbolic(s,						\
			 { RDS_TCP_RESET_SHUTDOWN, "shutdown" },	\
			 { RDS_TCP_RESET_REFUSE, "refuse" })

#ifndef _RDS_TCP_TRACE_HELPERS
#define _RDS_TCP_TRACE_HELPERS
/* A socket's two ends, IPv4 as v4-mapped IPv6, and its ports. */
static inline void rds_tcp_trace_sk(const struct sock *sk, u8 *laddr,
				    u8 *faddr, u16 *sport, u16 *dport)
{
	struct in6_addr l, f;

	if (sk->sk_family == AF_INET6) {
		l = sk->sk_v6_rcv_saddr;
		f = sk->sk_v6_daddr;
	} else {
		ipv6_addr_set_v4mapped(sk->sk_rcv_saddr, &l);
		ipv6_addr_set_v4mapped(sk->sk_daddr, &f);
	}
	memcpy(laddr, &l, sizeof(l));
	memcpy(faddr, &f, sizeof(f));
	*sport = sk->sk_num;
	*dport = ntohs(sk->sk_dport);
}
#endif

#define RDS_TCP_TP_SK_ASSIGN(sk)					\
	rds_tcp_trace_sk(sk, __entry->laddr, __entry->faddr,		\
			 &__entry->sport, &__entry->dport)

/*
 * The socket of a connection changed state; @sk_err is the socket's
 * error at the time (ECONNRESET: the peer reset it).
 */
TRACE_EVENT(rds_tcp_state_change,
	    TP_PROTO(const struct rds_connection *conn, const struct sock *sk),
	    TP_ARGS(conn, sk),
	    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct in6_addr))
			     __array(u8, faddr, sizeof(struct in6_addr))
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, lane)
			     __field(u8, state)
			     __field(int, sk_err)),
	    TP_fast_assign(RDS_TCP_TP_SK_ASSIGN(sk);
			   __entry->lane = conn->c_lane;
			   __entry->state = READ_ONCE(sk->sk_state);
			   __entry->sk_err = READ_ONCE(sk->sk_err);),
	    TP_printk("%pI6c:%u -> %pI6c:%u lane %u: state=%s sk_err=%d",
		      __entry->laddr, __entry->sport, __entry->faddr,
		      __entry->dport, __entry->lane,
		      rds_tcp_show_state(__entry->state),
		      __entry->sk_err));

/* We close @sk with a reset (no linger), for @why. */
TRACE_EVENT(rds_tcp_reset,
	    TP_PROTO(const struct sock *sk, enum rds_tcp_reset_why why),
	    TP_ARGS(sk, why),
	    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct in6_addr))
			     __array(u8, faddr, sizeof(struct in6_addr))
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, state)
			     __field(u8, why)),
	    TP_fast_assign(RDS_TCP_TP_SK_ASSIGN(sk);
			   __entry->state = READ_ONCE(sk->sk_state);
			   __entry->why = why;),
	    TP_printk("%pI6c:%u -> %pI6c:%u state=%s why=%s",
		      __entry->laddr, __entry->sport, __entry->faddr,
		      __entry->dport,
		      rds_tcp_show_state(__entry->state),
		      rds_tcp_show_reset(__entry->why)));

#endif /* _RDS_TCP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rds_tcp_trace
#include <trace/define_trace.h>
