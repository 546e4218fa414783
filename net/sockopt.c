// SPDX-License-Identifier: GPL-2.0
/* setsockopt() and getsockopt() at level SOL_RDS. */
#include <linux/net.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "rds_core.h"

static int rds_set_bool(bool *opt, sockptr_t optval, unsigned int optlen)
{
	int value;

	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&value, optval, sizeof(int)))
		return -EFAULT;
	*opt = !!value;
	return 0;
}

static int rds_cancel_sent_to(struct rds_sock *rs, sockptr_t optval,
			      unsigned int optlen)
{
	struct sockaddr_in6 sin6;
	struct sockaddr_in sin;

	if (!rds_sock_bound(rs))
		return -ENOTCONN;
	if (optlen < sizeof(sin))
		return -EINVAL;
	if (optlen < sizeof(sin6)) {
		/* Shorter than sockaddr_in6: an IPv4 destination. */
		if (copy_from_sockptr(&sin, optval, sizeof(sin)))
			return -EFAULT;
		ipv6_addr_set_v4mapped(sin.sin_addr.s_addr, &sin6.sin6_addr);
		sin6.sin6_port = sin.sin_port;
	} else if (copy_from_sockptr(&sin6, optval, sizeof(sin6))) {
		return -EFAULT;
	}
	rds_send_drop_to(rs, &sin6.sin6_addr, sin6.sin6_port);
	return 0;
}

static int rds_set_cong_monitor(struct rds_sock *rs, sockptr_t optval,
				unsigned int optlen)
{
	bool on;
	int ret;

	ret = rds_set_bool(&on, optval, optlen);
	if (ret)
		return ret;
	rds_cong_monitor_set(rs, on);
	return 0;
}

static int rds_set_transport(struct net *net, struct rds_sock *rs,
			     sockptr_t optval, unsigned int optlen)
{
	const struct rds_transport *trans;
	int type;

	if (rs->rs_transport)
		return -EOPNOTSUPP;	/* bound, or set before */
	if (optlen != sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&type, optval, sizeof(type)))
		return -EFAULT;
	if (type < 0 || type >= RDS_TRANS_COUNT)
		return -EINVAL;
	/* RDMA devices live in the initial namespace (as Linux's RDS). */
	if (type != RDS_TRANS_TCP && !net_eq(net, &init_net))
		return -EPROTOTYPE;
	trans = rds_trans_get(type);
	if (!trans)
		return -ENOPROTOOPT;
	WRITE_ONCE(rs->rs_transport, trans);
	return 0;
}

/* UEK's RDS_CONN_RESET (IPv4, @v6 false) and RDS6_CONN_RESET: an
 * administrator's reset of connections in the socket's namespace.
 */
static int rds_conn_reset_opt(struct net *net, sockptr_t optval,
			      unsigned int optlen, bool v6)
{
	struct in6_addr laddr, faddr;
	struct rds6_reset r6;
	struct rds_reset r4;
	u8 tos;

	if (optlen < (v6 ? sizeof(r6) : sizeof(r4)))
		return -EINVAL;
	if (!ns_capable(net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (v6) {
		if (copy_from_sockptr(&r6, optval, sizeof(r6)))
			return -EFAULT;
		laddr = r6.src;
		faddr = r6.dst;
		tos = r6.tos;
	} else {
		if (copy_from_sockptr(&r4, optval, sizeof(r4)))
			return -EFAULT;
		ipv6_addr_set_v4mapped(r4.src.s_addr, &laddr);
		if (r4.dst.s_addr)
			ipv6_addr_set_v4mapped(r4.dst.s_addr, &faddr);
		else
			faddr = in6addr_any;
		tos = r4.tos;
	}
	rds_conn_reset(rds_net(net), &laddr, &faddr, tos);
	return 0;
}

static int rds_set_timestamp(struct sock *sk, sockptr_t optval,
			     unsigned int optlen, int optname)
{
	int value;

	if (optlen != sizeof(int))
		return -EFAULT;
	if (copy_from_sockptr(&value, optval, sizeof(int)))
		return -EFAULT;
	if (optname == SO_TIMESTAMP_NEW)
		sock_set_flag(sk, SOCK_TSTAMP_NEW);
	else
		sock_reset_flag(sk, SOCK_TSTAMP_NEW);
	if (value)
		sock_set_flag(sk, SOCK_RCVTSTAMP);
	else
		sock_reset_flag(sk, SOCK_RCVTSTAMP);
	return 0;
}

static int rds_set_rx_latency(struct rds_sock *rs, sockptr_t optval,
			      unsigned int optlen)
{
	struct rds_rx_trace_so trace;
	int i;

	/* Linux's RDS answers EFAULT to a malformed request; so do we. */
	if (optlen != sizeof(trace))
		return -EFAULT;
	if (copy_from_sockptr(&trace, optval, sizeof(trace)))
		return -EFAULT;
	if (trace.rx_traces > RDS_MSG_RX_DGRAM_TRACE_MAX)
		return -EFAULT;
	for (i = 0; i < trace.rx_traces; i++)
		if (trace.rx_trace_pos[i] >= RDS_MSG_RX_DGRAM_TRACE_MAX)
			return -EFAULT;
	for (i = 0; i < trace.rx_traces; i++)
		rs->rs_rx_trace[i] = trace.rx_trace_pos[i];
	rs->rs_rx_traces = trace.rx_traces;
	return 0;
}

int rds_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs = rds_sk_to_rs(sk);
	int ret;

	if (level != SOL_RDS)
		return -ENOPROTOOPT;

	switch (optname) {
	case RDS_CANCEL_SENT_TO:
		return rds_cancel_sent_to(rs, optval, optlen);
	case RDS_GET_MR:
		return rds_get_mr(rs, optval, optlen);
	case RDS_GET_MR_FOR_DEST:
		return rds_get_mr_for_dest(rs, optval, optlen);
	case RDS_FREE_MR:
		return rds_free_mr(rs, optval, optlen);
	case RDS_RECVERR:
		return rds_set_bool(&rs->rs_recverr, optval, optlen);
	case RDS_CONG_MONITOR:
		return rds_set_cong_monitor(rs, optval, optlen);
	case SO_RDS_TRANSPORT:
		/* UEK's RDS_CONN_RESET shares the number; not its length. */
		if (optlen >= sizeof(struct rds_reset))
			return rds_conn_reset_opt(sock_net(sk), optval, optlen,
						  false);
		fallthrough;
	case RDS_UEK_SO_RDS_TRANSPORT:
		lock_sock(sk);
		ret = rds_set_transport(sock_net(sk), rs, optval, optlen);
		release_sock(sk);
		return ret;
	case RDS6_CONN_RESET:
		return rds_conn_reset_opt(sock_net(sk), optval, optlen, true);
	case SO_TIMESTAMP_OLD:
	case SO_TIMESTAMP_NEW:
		lock_sock(sk);
		ret = rds_set_timestamp(sk, optval, optlen, optname);
		release_sock(sk);
		return ret;
	case SO_RDS_MSG_RXPATH_LATENCY:
		lock_sock(sk);
		ret = rds_set_rx_latency(rs, optval, optlen);
		release_sock(sk);
		return ret;
	default:
		return -ENOPROTOOPT;
	}
}

static int rds_put_int(int value, char __user *optval, int __user *optlen,
		       int len)
{
	if (len < (int)sizeof(int))
		return -EINVAL;
	if (put_user(value, (int __user *)optval) ||
	    put_user(sizeof(int), optlen))
		return -EFAULT;
	return 0;
}

int rds_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen)
{
	struct rds_sock *rs = rds_sk_to_rs(sock->sk);
	const struct rds_transport *trans;
	int len;

	if (level != SOL_RDS)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;

	switch (optname) {
	case RDS_INFO_FIRST ... RDS_INFO_LAST:
	case RDS_INFO_CONN_PATHS:	/* UEK's (<linux/rds_uek.h>) */
	case RDS6_INFO_CONN_PATHS:
		return rds_info_getsockopt(sock, optname, optval, optlen);
	case RDS_RECVERR:
		return rds_put_int(rs->rs_recverr, optval, optlen, len);
	case SO_RDS_TRANSPORT:
	case RDS_UEK_SO_RDS_TRANSPORT:
		trans = READ_ONCE(rs->rs_transport);
		return rds_put_int(trans ? (int)trans->type : RDS_TRANS_NONE,
				   optval, optlen, len);
	default:
		return -ENOPROTOOPT;
	}
}
