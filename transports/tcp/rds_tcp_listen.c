// SPDX-License-Identifier: GPL-2.0
/*
 * The listener: one TCP socket per network namespace on port 16385,
 * dual stack (IPv6 with v4-mapped IPv4; IPv4 only if IPv6 is missing),
 * and the worker that accepts from it.
 *
 * A connection from a higher address than ours is refused (Linux's rule:
 * only the lower address initiates) and answered by connecting to the
 * peer ourselves; one from a lower address is handed to its RDS
 * connection, created on demand as for a send.
 *
 * Which lane: a peer with lane ids names it in the low bits of its source
 * port; for one without (Linux), the socket fills the first lane that is
 * not up, as Linux does, which pairs the right streams only as long as
 * lanes do not reconnect several at a time (Documentation/transports.rst).
 * While our probe is unanswered on a lane 0 that is up, no socket from a
 * peer without lane ids is taken (it could be another of its lanes).
 */
#include <linux/in6.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "rds_tcp.h"
#include "rds_tcp_trace.h"

#define RDS_TCP_BACKLOG	64

/* Accepted sockets run this too until they get their own callbacks:
 * they inherit the listener's.
 */
static void rds_tcp_listen_data_ready(struct sock *sk)
{
	void (*ready)(struct sock *sk);
	struct rds_tcp_net *rtn;

	read_lock_bh(&sk->sk_callback_lock);
	rtn = sk->sk_user_data;
	/* TCP read the callback before taking our lock: an accepted socket
	 * may have got its connection's callbacks since, and sk_user_data
	 * is then that connection, not rtn. The new callback takes it.
	 */
	if (!rtn || sk->sk_data_ready != rds_tcp_listen_data_ready) {
		ready = sk->sk_data_ready;
		goto out;
	}
	ready = rtn->listen_orig.data_ready;
	if (sk->sk_state == TCP_LISTEN)
		queue_work(rds_tcp_wq, &rtn->accept_w);
out:
	read_unlock_bh(&sk->sk_callback_lock);
	ready(sk);
}

/* Close @sock at once with a reset: nothing of it is ours to flush. */
static void rds_tcp_refuse(struct socket *sock)
{
	trace_rds_tcp_reset(sock->sk, RDS_TCP_RESET_REFUSE);
	sock_no_linger(sock->sk);
	sock_release(sock);
}

/* Our address and the peer's, v4-mapped for IPv4. */
static int rds_tcp_sock_addrs(struct socket *sock, struct in6_addr *laddr,
			      struct in6_addr *faddr, int *dev_if)
{
	struct sock *sk = sock->sk;

	*dev_if = 0;
	if (sk->sk_family == AF_INET) {
		ipv6_addr_set_v4mapped(inet_sk(sk)->inet_rcv_saddr, laddr);
		ipv6_addr_set_v4mapped(inet_sk(sk)->inet_daddr, faddr);
		return 0;
	}
#if IS_ENABLED(CONFIG_IPV6)
	*laddr = sk->sk_v6_rcv_saddr;
	*faddr = sk->sk_v6_daddr;
	if (ipv6_addr_type(laddr) & IPV6_ADDR_LINKLOCAL)
		*dev_if = sk->sk_bound_dev_if;
	return 0;
#else
	return -EAFNOSUPPORT;
#endif
}

/* The lane an accepted socket from peer port @fport belongs to, with a
 * reference, or NULL if none may take it.
 */
static struct rds_connection *rds_tcp_accept_lane(struct rds_connection *conn0,
						  __be16 fport)
{
	struct rds_connection *lane;
	unsigned int n, k;
	bool ids;

	n = rds_conn_lanes(conn0, &ids);
	if (ids) {
		/* Any lane it names, even beyond the count: after the count
		 * went down, one end may still have messages on such a lane.
		 */
		k = ntohs(fport) & RDS_TCP_LANE_MASK;
		lane = rds_conn_accept_lane(conn0, k, GFP_KERNEL);
		return IS_ERR(lane) ? NULL : lane;
	}
	/* Our probe is out, unanswered, on a lane 0 that is up: the peer
	 * may have learned our count from it and be opening its other
	 * lanes before its answer reached us (Linux does). Taken for lane
	 * 0, such a socket would mix two lanes' sequences; refused, it is
	 * tried again, by when we know.
	 */
	if (n == 1 && !READ_ONCE(conn0->c_npaths) &&
	    test_bit(RDS_CONN_PROBE_SENT, &conn0->c_flags) &&
	    rds_conn_state(conn0) == RDS_CONN_UP)
		return NULL;
	/* One lane: the newest socket replaces an older one. */
	if (n == 1) {
		rds_conn_get(conn0);
		return conn0;
	}
	for (k = 0; k < n; k++) {
		lane = rds_conn_accept_lane(conn0, k, GFP_KERNEL);
		if (IS_ERR(lane))
			return NULL;
		switch (rds_conn_state(lane)) {
		case RDS_CONN_DOWN:
		case RDS_CONN_ERROR:
		case RDS_CONN_DISCONNECTING:
			if (!rds_tcp_conn_has_accepted(lane))
				return lane;
			break;
		default:
			break;
		}
		rds_conn_put(lane);
	}
	return NULL;
}

/* We have the lower address: the peer's attempt asks us to connect the
 * lane it names (lane 0 for a peer without lane ids).
 */
static void rds_tcp_connect_back(struct rds_connection *conn0, __be16 fport)
{
	struct rds_connection *lane;
	unsigned int k = 0;
	bool ids;

	/* The peer only tries when it has messages on that lane. */
	rds_conn_lanes(conn0, &ids);
	if (ids)
		k = ntohs(fport) & RDS_TCP_LANE_MASK;
	lane = rds_conn_accept_lane(conn0, k, GFP_KERNEL);
	if (IS_ERR(lane))
		return;
	rds_conn_want_connect(lane);
	rds_conn_put(lane);
}

static void rds_tcp_accept_one(struct net *net, struct socket *sock)
{
	__be16 fport = inet_sk(sock->sk)->inet_dport;
	struct rds_connection *conn, *lane;
	struct in6_addr laddr, faddr;
	int dev_if;

	if (rds_tcp_sock_addrs(sock, &laddr, &faddr, &dev_if))
		goto refuse;
	/* A mapped address on an IPv6 socket must be a real IPv4 peer. */
	if (ipv6_addr_v4mapped(&laddr) != ipv6_addr_v4mapped(&faddr))
		goto refuse;
	/* Local peers are rds_loop's (prefer_loopback), so no RDS/TCP of
	 * ours connects from one of our own addresses: such a socket is a
	 * local user speaking RDS as someone else (any source port, and the
	 * congestion map every local socket of that address shares).
	 */
	if (rds_addr_is_local(net, &faddr, dev_if)) {
		rds_tcp_stat_inc(RDS_TCP_STAT_ACCEPT_LOCAL);
		goto refuse;
	}
	conn = rds_conn_accept(net, &laddr, &faddr, &rds_tcp_transport, 0,
			       dev_if, GFP_KERNEL);
	if (IS_ERR(conn))
		goto refuse;
	if (!rds_conn_peer_is_lower(conn)) {
		/* The peer should not have initiated; we do it for it. */
		rds_tcp_connect_back(conn, fport);
		rds_conn_put(conn);
		goto refuse;
	}
	lane = rds_tcp_accept_lane(conn, fport);
	if (!lane) {
		rds_conn_put(conn);
		goto refuse;
	}
	rds_tcp_tune(net, sock);
	if (!rds_tcp_conn_accepted(lane, sock)) {
		rds_conn_put(lane);
		rds_conn_put(conn);
		goto refuse;
	}
	rds_conn_put(lane);
	rds_conn_put(conn);
	return;
refuse:
	rds_tcp_stat_inc(RDS_TCP_STAT_ACCEPT_REFUSED);
	rds_tcp_refuse(sock);
}

static void rds_tcp_accept_worker(struct work_struct *work)
{
	struct rds_tcp_net *rtn = container_of(work, struct rds_tcp_net,
					       accept_w);
	struct socket *listen = READ_ONCE(rtn->listen_sock);
	struct socket *sock;

	if (!listen)
		return;
	while (!kernel_accept(listen, &sock, O_NONBLOCK)) {
		rds_tcp_accept_one(sock_net(listen->sk), sock);
		cond_resched();
	}
}

/**
 * rds_tcp_listen_start - open a namespace's listener
 * @net: the namespace
 *
 * Return: 0 or -errno.
 */
int rds_tcp_listen_start(struct net *net)
{
	struct rds_tcp_net *rtn = rds_tcp_net(net);
	struct sockaddr_storage ss = {};
	struct socket *sock;
	struct sock *sk;
	int len, ret;

	INIT_WORK(&rtn->accept_w, rds_tcp_accept_worker);
	ret = sock_create_kern(net, AF_INET6, SOCK_STREAM, IPPROTO_TCP, &sock);
	if (!ret) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		/* Dual stack whatever net.ipv6.bindv6only says: IPv4 peers
		 * arrive v4-mapped.
		 */
		lock_sock(sock->sk);
		sock->sk->sk_ipv6only = false;
		release_sock(sock->sk);
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_any;
		sin6->sin6_port = htons(RDS_TCP_PORT);
		len = sizeof(*sin6);
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		ret = sock_create_kern(net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
				       &sock);
		if (ret)
			return ret;
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_ANY);
		sin->sin_port = htons(RDS_TCP_PORT);
		len = sizeof(*sin);
	}
	sk = sock->sk;
	sock_set_reuseaddr(sk);

	write_lock_bh(&sk->sk_callback_lock);
	rtn->listen_orig.data_ready = sk->sk_data_ready;
	rtn->listen_orig.write_space = sk->sk_write_space;
	rtn->listen_orig.state_change = sk->sk_state_change;
	sk->sk_user_data = rtn;
	sk->sk_data_ready = rds_tcp_listen_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);

	ret = kernel_bind(sock, (rds_sockaddr_arg *)&ss, len);
	if (ret)
		goto err;
	ret = kernel_listen(sock, RDS_TCP_BACKLOG);
	if (ret)
		goto err;
	WRITE_ONCE(rtn->listen_sock, sock);
	return 0;
err:
	pr_warn("rds_tcp: cannot listen on port %d: %d\n", RDS_TCP_PORT, ret);
	sock_release(sock);
	return ret;
}

/**
 * rds_tcp_listen_stop - close a namespace's listener
 * @net: the namespace
 *
 * Afterwards no connection of @net is created from the network.
 */
void rds_tcp_listen_stop(struct net *net)
{
	struct rds_tcp_net *rtn = rds_tcp_net(net);
	struct socket *sock = rtn->listen_sock;
	struct sock *sk;

	if (!sock)
		return;
	sk = sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = rtn->listen_orig.data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	WRITE_ONCE(rtn->listen_sock, NULL);
	/* The worker looked at listen_sock before we cleared it, perhaps. */
	cancel_work_sync(&rtn->accept_w);
	sock_release(sock);
}
