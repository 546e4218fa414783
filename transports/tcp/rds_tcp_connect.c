// SPDX-License-Identifier: GPL-2.0
/*
 * The TCP socket under an RDS connection: connecting, taking over a
 * socket the peer connected, the state callback, and shutdown.
 *
 * Who connects: as in Linux's rds_tcp, only the numerically lower address
 * initiates. The higher one, when it has something to send, makes a
 * connection attempt anyway: the lower side refuses it and connects back,
 * so the attempt only serves to wake the peer up.
 *
 * A socket the peer connected is not installed by the accepting worker
 * but handed to the connection (rds_tcp_conn_accepted()), which installs
 * it from its connect worker, after shutting down any older socket: only
 * the core's workers ever change t_sock, one at a time.
 *
 * Lanes: the connecting side names the lane in the low bits of its source
 * port (RDS_TCP_LANE_MASK), so that an accepting peer with lane ids pairs
 * the socket with the same lane, whatever order lanes come up in. Linux
 * 6.1 picks any port and fills the first free lane (rds_tcp_listen.c);
 * Linux 6.19 and later do as we do and say so with SPORT_IDX.
 *
 * Bytes TCP has acked are as good as delivered to the sender, which
 * retires the messages they carry. So no socket is let go with bytes in
 * its receive queue: shutdown reads them first, and sockets the peer
 * connected are installed one after the other, oldest first, each read
 * to its end before the next (a peer that connects again has given up
 * on the older socket, but what it sent there may still wait unread).
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/lcm.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "rds_tcp.h"
#include "rds_tcp_trace.h"

/* Linux's rds_tcp keepalive: a dead peer is noticed in about 30 s. */
#define RDS_TCP_KEEPIDLE	5
#define RDS_TCP_KEEPINTVL	5
#define RDS_TCP_KEEPCNT		5

/**
 * rds_tcp_tune - socket options of every RDS/TCP socket
 * @net: namespace, for the buffer sysctls
 * @sock: the socket
 */
void rds_tcp_tune(struct net *net, struct socket *sock)
{
	struct rds_tcp_net *top = rds_tcp_net(&init_net);
	struct rds_tcp_net *rtn = rds_tcp_net(net);
	struct sock *sk = sock->sk;
	int sndbuf, rcvbuf;

	sndbuf = rds_tcp_bound(net, READ_ONCE(rtn->sndbuf),
			       READ_ONCE(top->sndbuf));
	rcvbuf = rds_tcp_bound(net, READ_ONCE(rtn->rcvbuf),
			       READ_ONCE(top->rcvbuf));

	tcp_sock_set_nodelay(sk);
	/* Closed with a reset, never left behind as an orphan waiting for
	 * the peer's ack of our FIN: it would not hold the namespace (kernel
	 * sockets do not), so it could outlive it, and the reliable delivery
	 * above TCP resends whatever a reset discards.
	 */
	sock_no_linger(sk);
	sock_set_keepalive(sk);
	tcp_sock_set_keepidle(sk, RDS_TCP_KEEPIDLE);
	tcp_sock_set_keepintvl(sk, RDS_TCP_KEEPINTVL);
	tcp_sock_set_keepcnt(sk, RDS_TCP_KEEPCNT);
	lock_sock(sk);
	if (sndbuf > 0) {
		WRITE_ONCE(sk->sk_sndbuf, sndbuf);
		sk->sk_userlocks |= SOCK_SNDBUF_LOCK;
	}
	if (rcvbuf > 0) {
		WRITE_ONCE(sk->sk_rcvbuf, rcvbuf);
		sk->sk_userlocks |= SOCK_RCVBUF_LOCK;
	}
	release_sock(sk);
}

/* Why a TCP socket closed, for the lane's history: its error says.
 * TCP gave up retransmitting (ETIMEDOUT) on an up connection: the peer
 * is dead or unreachable, noticed by TCP's own liveness.
 */
static enum rds_drop_reason rds_tcp_drop_why(struct rds_connection *conn,
					     const struct sock *sk)
{
	if (rds_conn_state(conn) == RDS_CONN_CONNECTING)
		return RDS_DROP_CONNECT_FAIL;
	switch (READ_ONCE(sk->sk_err)) {
	case ECONNRESET:
	case EPIPE:
		return RDS_DROP_PEER_RESET;
	case ETIMEDOUT:
		return RDS_DROP_HB_TIMEOUT;
	default:
		return RDS_DROP_PEER_CLOSED;
	}
}

static void rds_tcp_state_change(struct sock *sk)
{
	void (*orig)(struct sock *sk);
	struct rds_connection *conn;
	struct rds_tcp_conn *tc;

	read_lock_bh(&sk->sk_callback_lock);
	tc = sk->sk_user_data;
	if (!tc) {
		orig = sk->sk_state_change;
		goto out;
	}
	orig = tc->t_orig.state_change;
	conn = rds_tcp_to_conn(tc);
	trace_rds_tcp_state_change(conn, sk);

	switch (sk->sk_state) {
	case TCP_ESTABLISHED:
		/* Our attempt toward a lower peer only woke it up. */
		if (rds_conn_peer_is_lower(conn))
			rds_conn_drop_reason(conn, RDS_DROP_CONNECT_RACE);
		else
			rds_connect_complete(conn);
		break;
	case TCP_CLOSE_WAIT:
	case TCP_LAST_ACK:
	case TCP_CLOSE:
		rds_conn_drop_reason(conn, rds_tcp_drop_why(conn, sk));
		break;
	default:
		break;
	}
out:
	read_unlock_bh(&sk->sk_callback_lock);
	orig(sk);
}

/* Make @sock the connection's socket: our callbacks in, t_sock set. */
static void rds_tcp_install(struct rds_tcp_conn *tc, struct socket *sock,
			    const struct rds_tcp_callbacks *orig)
{
	struct sock *sk = sock->sk;

	lockdep_assert_held(&tc->t_mutex);
	write_lock_bh(&sk->sk_callback_lock);
	tc->t_orig = *orig;
	sk->sk_user_data = tc;
	sk->sk_data_ready = rds_tcp_data_ready;
	sk->sk_write_space = rds_tcp_write_space;
	sk->sk_state_change = rds_tcp_state_change;
	write_unlock_bh(&sk->sk_callback_lock);

	spin_lock_bh(&tc->t_lock);
	tc->t_sock = sock;
	spin_unlock_bh(&tc->t_lock);
}

static void rds_tcp_callbacks_of(struct sock *sk, struct rds_tcp_callbacks *cb)
{
	cb->data_ready = sk->sk_data_ready;
	cb->write_space = sk->sk_write_space;
	cb->state_change = sk->sk_state_change;
}

static int rds_tcp_sockaddr(const struct rds_connection *conn,
			    const struct in6_addr *addr, __be16 port,
			    struct sockaddr_storage *ss)
{
	if (ipv6_addr_v4mapped(addr)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = addr->s6_addr32[3];
		sin->sin_port = port;
		return sizeof(*sin);
	}
	{
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		memset(sin6, 0, sizeof(*sin6));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = *addr;
		sin6->sin6_port = port;
		sin6->sin6_scope_id = conn->c_dev_if;
		return sizeof(*sin6);
	}
}

/* Source ports tried for a lane before the attempt counts as failed. */
#define RDS_TCP_BIND_TRIES	32

/* Bind @sock to our address and a free ephemeral port whose low bits are
 * @conn's lane: a random one of the range's candidates, then the next.
 * The port is also the lane modulo the lane count, which is how newer
 * Linux (SPORT_IDX) reads it: for a count that is not a power of two
 * the candidates are lcm(RDS_MPATH_WORKERS, count) apart.
 */
static int rds_tcp_bind_lane(struct rds_connection *conn, struct socket *sock)
{
	u32 n = rds_conn_lanes(conn->c_lane0 ?: conn, NULL);
	u32 step = lcm(RDS_MPATH_WORKERS, max(n, 1U));
	struct sockaddr_storage ss;
	int low, high, len, ret = -EADDRINUSE;
	u32 base, count, start, i;

	inet_get_local_port_range(rds_conn_net(conn), &low, &high);
	base = round_up((u32)low, step) + conn->c_lane;
	if (base > (u32)high) {
		/* A range too small for lanes: any port (lane 0 only). */
		if (conn->c_lane)
			return -EADDRINUSE;
		len = rds_tcp_sockaddr(conn, &conn->c_laddr, 0, &ss);
		return kernel_bind(sock, (rds_sockaddr_arg *)&ss, len);
	}
	count = ((u32)high - base) / step + 1;
	start = get_random_u32_below(count);
	for (i = 0; i < min_t(u32, count, RDS_TCP_BIND_TRIES); i++) {
		u32 port = base + ((start + i) % count) * step;

		len = rds_tcp_sockaddr(conn, &conn->c_laddr, htons(port), &ss);
		ret = kernel_bind(sock, (rds_sockaddr_arg *)&ss, len);
		if (ret != -EADDRINUSE)
			break;
	}
	return ret;
}

/* Start a TCP connection from our address to the peer's port 16385. */
static int rds_tcp_connect_out(struct rds_connection *conn,
			       struct rds_tcp_conn *tc)
{
	struct net *net = rds_conn_net(conn);
	struct rds_tcp_callbacks orig;
	struct sockaddr_storage ss;
	struct socket *sock;
	int len, ret;

	ret = sock_create_kern(net, ipv6_addr_v4mapped(&conn->c_laddr) ?
			       AF_INET : AF_INET6, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (ret)
		return ret;
	rds_tcp_tune(net, sock);

	ret = rds_tcp_bind_lane(conn, sock);
	if (ret)
		goto err;

	rds_tcp_callbacks_of(sock->sk, &orig);
	rds_tcp_install(tc, sock, &orig);
	len = rds_tcp_sockaddr(conn, &conn->c_faddr, htons(RDS_TCP_PORT), &ss);
	ret = kernel_connect(sock, (rds_sockaddr_arg *)&ss, len, O_NONBLOCK);
	if (ret == -EINPROGRESS)
		ret = 0;
	/* On failure the installed socket goes with the shutdown that
	 * rds_conn_drop() starts.
	 */
	return ret;
err:
	sock_release(sock);
	return ret;
}

/**
 * rds_tcp_conn_connect - the core's connect worker wants us up
 * @conn: the connection, CONNECTING
 *
 * Context: core workqueue, may sleep.
 * Return: 0 (rds_connect_complete() follows) or -errno.
 */
int rds_tcp_conn_connect(struct rds_connection *conn)
{
	struct rds_tcp_conn *tc = rds_tcp_conn(conn);
	struct rds_tcp_callbacks orig;
	struct socket *sock;
	bool established;
	unsigned int n;
	int ret;

	mutex_lock(&tc->t_mutex);
	if (WARN_ON_ONCE(tc->t_sock)) {
		mutex_unlock(&tc->t_mutex);
		return -EISCONN;
	}
	n = tc->t_naccepted;
	if (n) {
		sock = tc->t_accepted[0];
		memmove(&tc->t_accepted[0], &tc->t_accepted[1],
			(n - 1) * sizeof(tc->t_accepted[0]));
		WRITE_ONCE(tc->t_naccepted, n - 1);
		/* An accepted socket inherited the listener's callbacks; give
		 * it the kernel's defaults back when we let it go.
		 */
		orig = rds_tcp_net(rds_conn_net(conn))->listen_orig;
		rds_tcp_install(tc, sock, &orig);
		/* The peer may have closed before our callbacks were in (no
		 * state change follows). Read under t_mutex: once it is
		 * dropped a shutdown may release the socket.
		 */
		established = READ_ONCE(sock->sk->sk_state) == TCP_ESTABLISHED;
		mutex_unlock(&tc->t_mutex);
		/* A newer socket waits: the peer gave this one up. It only
		 * gets read, by the shutdown, then the next one goes in.
		 */
		if (n == 1)
			rds_connect_complete(conn);
		/* Bytes may have come before our callbacks were in. */
		queue_delayed_work(rds_tcp_wq, &tc->t_recv_w, 0);
		if (!established || n > 1) {
			rds_conn_drop_reason(conn, n > 1 ? RDS_DROP_CONNECT_RACE :
						   RDS_DROP_PEER_CLOSED);
			if (n > 1)
				rds_conn_want_connect(conn);
		}
		return 0;
	}
	ret = rds_tcp_connect_out(conn, tc);
	mutex_unlock(&tc->t_mutex);
	return ret;
}

/**
 * rds_tcp_conn_accepted - the peer connected a lane of @conn
 * @conn: the connection (the caller holds a reference)
 * @sock: the accepted socket, already tuned; @conn owns it from now on
 *
 * The connection takes the newest socket: a peer that connects again has
 * given up on the old one (only the lower address connects, so the two
 * ends never race with each other here). Sockets still waiting to be
 * installed stay ahead of @sock, in order: each may hold bytes its TCP
 * acked, so each is read before the next is installed. Only a peer that
 * connects more than RDS_TCP_ACCEPTED_MAX times before one could be
 * installed gets @sock refused.
 *
 * Context: process context (the accept worker).
 * Return: true if @conn took @sock; else the caller refuses it.
 */
bool rds_tcp_conn_accepted(struct rds_connection *conn, struct socket *sock)
{
	struct rds_tcp_conn *tc = rds_tcp_conn(conn);
	unsigned int n;
	bool taken;

	mutex_lock(&tc->t_mutex);
	n = tc->t_naccepted;
	taken = n < RDS_TCP_ACCEPTED_MAX;
	if (taken) {
		tc->t_accepted[n] = sock;
		WRITE_ONCE(tc->t_naccepted, n + 1);
	}
	mutex_unlock(&tc->t_mutex);
	if (!taken) {
		rds_tcp_stat_inc(RDS_TCP_STAT_LISTEN_CLOSED_STALE);
		rds_conn_want_connect(conn);
		return false;
	}
	/* The first to wait replaces the socket in use; later ones follow
	 * it (rds_tcp_conn_connect()).
	 */
	if (!n) {
		switch (rds_conn_state(conn)) {
		case RDS_CONN_UP:
		case RDS_CONN_CONNECTING:
			rds_tcp_stat_inc(RDS_TCP_STAT_CONNECT_RACED);
			rds_conn_drop_reason(conn,
					     rds_conn_state(conn) == RDS_CONN_UP ?
					     RDS_DROP_REQ_WHILE_UP :
					     RDS_DROP_CONNECT_RACE);
			break;
		default:
			break;
		}
	}
	rds_conn_want_connect(conn);
	return true;
}

/**
 * rds_tcp_conn_has_accepted - does an accepted socket wait to be installed?
 * @conn: the connection
 *
 * A hint for picking a free lane: rds_tcp_conn_accepted() decides.
 */
bool rds_tcp_conn_has_accepted(struct rds_connection *conn)
{
	return READ_ONCE(rds_tcp_conn(conn)->t_naccepted);
}

/**
 * rds_tcp_conn_shutdown - let the connection's socket go
 * @conn: the connection, DISCONNECTING, with nothing transmitting
 *
 * Context: core workqueue, may sleep.
 */
void rds_tcp_conn_shutdown(struct rds_connection *conn)
{
	struct rds_tcp_conn *tc = rds_tcp_conn(conn);
	struct socket *sock;
	struct sock *sk;

	rds_conn_assert_xmit_quiet(conn);
	mutex_lock(&tc->t_mutex);
	sock = tc->t_sock;
	if (!sock) {
		mutex_unlock(&tc->t_mutex);
		return;
	}
	sk = sock->sk;
	/* Once the callbacks are out no softirq reads or acks for us. */
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = tc->t_orig.data_ready;
	sk->sk_write_space = tc->t_orig.write_space;
	sk->sk_state_change = tc->t_orig.state_change;
	write_unlock_bh(&sk->sk_callback_lock);

	spin_lock_bh(&tc->t_lock);
	tc->t_sock = NULL;
	spin_unlock_bh(&tc->t_lock);
	tc->t_xmit_blocked = false;
	mutex_unlock(&tc->t_mutex);

	/* A receive worker sees t_sock NULL from now on. */
	cancel_delayed_work_sync(&tc->t_recv_w);
	/* Both ways shut: TCP answers bytes that come from now on with a
	 * reset instead of acking them (RFC 1122 for data after a receive
	 * shutdown), so the peer resends them after the reconnect; the
	 * queue keeps what it acked before.
	 */
	kernel_sock_shutdown(sock, SHUT_RDWR);
	/* What TCP acked is the peer's promise kept: deliver it. */
	rds_tcp_recv_drain(tc, sk);
	rds_tcp_recv_reset(tc);
	trace_rds_tcp_reset(sk, RDS_TCP_RESET_SHUTDOWN);
	sock_release(sock);	/* a reset: rds_tcp_tune() */
}
