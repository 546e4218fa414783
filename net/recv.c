// SPDX-License-Identifier: GPL-2.0
/*
 * The receive path: delivery of incoming messages to sockets (sequence
 * check, pings, receive budget), and recvmsg() with its notifications and
 * control messages.
 */
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/page_counter.h>
#include <linux/sched/clock.h>
#include <linux/sizes.h>
#include <linux/time.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "rds_core.h"
#include "rds_trace.h"

/* A peer that honours congestion maps overshoots a receiver's budget
 * only by what was already queued or in flight when the map went out
 * (which can be much: every sending socket's whole SO_SNDBUF); one that
 * does not could fill the kernel. Beyond this limit a message from a
 * wire is dropped, counted in recv_drop_rcvbuf and the socket's sk_drops
 * (SO_RXQ_OVFL): its transport already took it from the peer, and
 * waiting for this one reader would stop the connection for every other
 * socket it serves. Loopback senders see the map synchronously.
 */
static bool rds_recv_over_hard_limit(struct rds_connection *conn,
				     struct rds_sock *rs, u32 len)
{
	size_t limit = 4 * (size_t)READ_ONCE(rs->rs_sk.sk_rcvbuf) +
		       RDS_MAX_MSG_SIZE;

	lockdep_assert_held(&rs->rs_lock);
	return (conn->c_trans->caps & RDS_TRANS_CAP_WIRE) &&
	       rs->rs_rcv_bytes + rds_msg_charge(len) > limit;
}

/* Is @sk's memory cgroup, or one above it, without room for @size more
 * bytes? The charge below cannot fail by itself: it runs with bottom
 * halves off, where the kernel forces socket charges past memory.max (as
 * for TCP and UDP in softirq), so the limit is checked here first. The
 * check reads the counters without their lock: receivers racing on one
 * cgroup can each pass it, overshooting by one message each.
 */
static bool rds_recv_memcg_full(struct sock *sk, size_t size)
{
#ifdef CONFIG_MEMCG
	unsigned long pages = DIV_ROUND_UP(size, PAGE_SIZE);
	struct page_counter *c;

	if (!mem_cgroup_sockets_enabled || !sk->sk_memcg)
		return false;
	for (c = &sk->sk_memcg->memory; c; c = c->parent)
		if (page_counter_read(c) + pages > READ_ONCE(c->max))
			return true;
#endif
	return false;
}

/* Charge a message queued on @rs to the socket's memory cgroup (its
 * creator's, cgroup v2: sk_memcg), through the socket's forward
 * allocation as TCP and UDP do; rds_recv_uncharge() gives it back. False:
 * the cgroup is at memory.max and a message from a wire is to be dropped.
 * Loopback is charged but never refused: its senders are local and held
 * back by the receiver's congestion bit.
 */
static bool rds_recv_charge(struct rds_connection *conn, struct rds_sock *rs,
			    size_t size)
{
	struct sock *sk = rds_rs_to_sk(rs);
	int delta = (int)size - sk->sk_forward_alloc;

	lockdep_assert_held(&rs->rs_lock);
	if (delta > 0) {
		if ((conn->c_trans->caps & RDS_TRANS_CAP_WIRE) &&
		    rds_recv_memcg_full(sk, delta))
			return false;
		/* Fails only past the protocol's limits, which are never
		 * reached (af_rds.c); the memory cgroup's charge is forced.
		 */
		if (!__sk_mem_schedule(sk, delta, SK_MEM_RECV))
			return false;
	}
	sk_mem_charge(sk, size);
	return true;
}

/* Give back @size bytes of rds_recv_charge(): in pieces, as the socket's
 * forward allocation is an int and a whole queue may be bigger.
 */
static void rds_recv_uncharge(struct rds_sock *rs, size_t size)
{
	lockdep_assert_held(&rs->rs_lock);
	while (size) {
		int n = min_t(size_t, size, SZ_1G);

		sk_mem_uncharge(rds_rs_to_sk(rs), n);
		size -= n;
	}
}

/* Count a dropped message and tell the tracepoint why. */
static void rds_recv_drop(struct rds_net *rn, struct rds_connection *conn,
			  enum rds_stat why, __be16 dport)
{
	rds_stats_inc(rn, why);
	trace_rds_recv_drop(conn, why, be16_to_cpu(dport));
}

/* Queue a data message on the socket bound to its destination, or drop
 * it (counted): no such socket, a dead one, or one over its hard limit.
 */
static void rds_recv_queue(struct rds_net *rn, struct rds_connection *conn,
			   struct rds_incoming *inc)
{
	struct rds_header *hdr = &inc->i_hdr;
	enum rds_cong_change cong;
	struct rds_sock *rs;
	struct sock *sk;
	u32 len;

	/* A transport being unloaded delivers nothing more: an unread
	 * message would hold its connection, and the unload, until read.
	 */
	if (!module_is_live(conn->c_trans->owner)) {
		rds_recv_drop(rn, conn, RDS_STAT_RECV_DROP_NO_SOCK, hdr->h_dport);
		return;
	}
	rs = rds_find_bound_rx(rn, conn, &inc->i_daddr, hdr->h_dport);
	if (!rs) {
		rds_recv_drop(rn, conn, RDS_STAT_RECV_DROP_NO_SOCK, hdr->h_dport);
		return;
	}
	sk = rds_rs_to_sk(rs);
	len = be32_to_cpu(hdr->h_len);
	/* The peer's RDMA into a use-once region of ours is done. */
	if (conn->c_trans->caps & RDS_TRANS_CAP_WIRE)
		rds_rdma_recv_used(rs, hdr);

	spin_lock_bh(&rs->rs_lock);
	if (sock_flag(sk, SOCK_DEAD)) {
		spin_unlock_bh(&rs->rs_lock);
		rds_recv_drop(rn, conn, RDS_STAT_RECV_DROP_DEAD_SOCK, hdr->h_dport);
		goto out;
	}
	if (rds_recv_over_hard_limit(conn, rs, len)) {
		/* The bit may still be clear (SO_RCVBUF shrank under
		 * held data): set it, or the sender is never told.
		 */
		cong = rds_cong_update_locked(rs);
		spin_unlock_bh(&rs->rs_lock);
		rds_cong_changed(rs, cong);
		atomic_inc(&sk->sk_drops);
		rds_recv_drop(rn, conn, RDS_STAT_RECV_DROP_RCVBUF, hdr->h_dport);
		goto out;
	}
	if (!rds_recv_charge(conn, rs, rds_msg_charge(len))) {
		spin_unlock_bh(&rs->rs_lock);
		atomic_inc(&sk->sk_drops);
		rds_recv_drop(rn, conn, RDS_STAT_RECV_DROP_MEMCG, hdr->h_dport);
		goto out;
	}
	if (sock_flag(sk, SOCK_RCVTSTAMP))
		inc->i_rx_tstamp = ktime_get_real();
	if (rs->rs_rx_traces)
		inc->i_rx_lat[RDS_MSG_RX_DGRAM_DELIVERED] = local_clock();
	rds_inc_get(inc);
	list_add_tail(&inc->i_item, &rs->rs_recv_queue);
	rs->rs_rcv_bytes += rds_msg_charge(len);
	cong = rds_cong_update_locked(rs);
	spin_unlock_bh(&rs->rs_lock);

	rds_cong_changed(rs, cong);	/* SO_RCVBUF may have grown meanwhile */
	rds_stats_inc(rn, RDS_STAT_RECV_QUEUED);
	rds_stats_add(rn, RDS_STAT_RECV_BYTES_ADDED_TO_SOCK, len);
	rds_wake_sk(rs);
out:
	sock_put(sk);
}

/**
 * rds_recv_incoming - a transport delivers a received message
 * @conn: connection it arrived on
 * @inc: the message, initialized with rds_inc_init(); the caller keeps
 *	its reference and drops it after this returns
 *
 * Drops duplicates of retransmitted messages, answers pings, and queues
 * the rest on the socket bound to the destination address and port. A
 * message for a socket over its hard limit (4 x SO_RCVBUF + 1 MiB, wire
 * transports only) is dropped and counted (recv_drop_rcvbuf, the
 * socket's SO_RXQ_OVFL count): the transport acks it as any other, and
 * never waits for a receiver, also when it lets a connection go: @inc
 * is always taken (queued, answered or dropped).
 *
 * Context: the transport's receive path; calls for one connection must be
 * serialized. No core locks held.
 */
void rds_recv_incoming(struct rds_connection *conn, struct rds_incoming *inc)
{
	struct rds_net *rn = rds_conn_rn(conn);
	struct rds_header *hdr = &inc->i_hdr;
	u64 seq = be64_to_cpu(hdr->h_sequence);
	bool probe_pong;

	/* Congestion maps are outside the sequence (their h_sequence is 0). */
	if (hdr->h_flags & RDS_FLAG_CONG_BITMAP) {
		/* A local peer's map is the one our own sockets keep: what
		 * a wire says about it is at best a stale copy.
		 */
		if (conn->c_loopback &&
		    (conn->c_trans->caps & RDS_TRANS_CAP_WIRE)) {
			rds_stats_inc(rn, RDS_STAT_RECV_DROP_CONG_LOCAL);
			return;
		}
		rds_cong_recv_map(conn, inc);
		return;
	}
	/* READ_ONCE: a peer's restart resets it from another lane. */
	if (seq < READ_ONCE(conn->c_next_rx_seq) &&
	    (hdr->h_flags & RDS_FLAG_RETRANSMITTED)) {
		rds_recv_drop(rn, conn, RDS_STAT_RECV_DROP_OLD_SEQ, hdr->h_dport);
		return;
	}
	/* The answer to a multipath probe is for the connection. */
	probe_pong = hdr->h_dport == cpu_to_be16(RDS_FLAG_PROBE_PORT) &&
		     !hdr->h_sport;
	if (hdr->h_dport && !probe_pong)
		rds_recv_queue(rn, conn, inc);
	WRITE_ONCE(conn->c_next_rx_seq, seq + 1);
	rds_conn_touch(conn);

	if (probe_pong) {
		if (conn->c_trans->caps & RDS_TRANS_CAP_WIRE)
			rds_lanes_learn(conn, hdr, true);
	} else if (!hdr->h_dport) {
		/* A ping (a multipath probe if from RDS_FLAG_PROBE_PORT);
		 * port 0 to port 0 (Oracle's heartbeats) is not answered.
		 * A probe is learned from before it is answered: the peer
		 * opens its lanes on our answer, and they must find us
		 * knowing its count.
		 */
		if (hdr->h_sport == cpu_to_be16(RDS_FLAG_PROBE_PORT) &&
		    (conn->c_trans->caps & RDS_TRANS_CAP_WIRE))
			rds_lanes_learn(conn, hdr, false);
		/* Probes are answered even with pings off: lanes need it. */
		if (hdr->h_sport &&
		    (READ_ONCE(rn->ping_enable) ||
		     hdr->h_sport == cpu_to_be16(RDS_FLAG_PROBE_PORT))) {
			rds_stats_inc(rn, RDS_STAT_RECV_PING);
			rds_send_pong(conn, &inc->i_daddr, &inc->i_saddr,
				      hdr->h_sport);
		}
	}
}
EXPORT_SYMBOL_GPL(rds_recv_incoming);

/**
 * rds_recv_bad_header - a peer sent a frame rds_hdr_check() refused
 * @conn: the connection it came on
 * @err: what rds_hdr_check() said
 *
 * Nothing after a bad header can be trusted, so the connection goes.
 *
 * Context: any.
 */
void rds_recv_bad_header(struct rds_connection *conn, int err)
{
	rds_stats_inc(rds_conn_rn(conn), RDS_STAT_RECV_DROP_BAD_HEADER);
	trace_rds_conn_error(conn, err, RDS_TRACE_SITE_BAD_HEADER);
	net_warn_ratelimited("rds: %s: bad header from %pI6c (%d), dropping the connection\n",
			     conn->c_trans->name, &conn->c_faddr, err);
	rds_conn_drop_reason(conn, RDS_DROP_PROTOCOL);
}
EXPORT_SYMBOL_GPL(rds_recv_bad_header);

/* The first queued message, with a reference, or NULL. */
static struct rds_incoming *rds_next_incoming(struct rds_sock *rs)
{
	struct rds_incoming *inc;

	spin_lock_bh(&rs->rs_lock);
	inc = list_first_entry_or_null(&rs->rs_recv_queue,
				       struct rds_incoming, i_item);
	if (inc)
		rds_inc_get(inc);
	spin_unlock_bh(&rs->rs_lock);
	return inc;
}

/* Is @inc still queued (another reader may have taken it)? If so and
 * @drop, dequeue it.
 */
static bool rds_still_queued(struct rds_sock *rs, struct rds_incoming *inc,
			     bool drop)
{
	struct rds_net *rn = rds_sock_rn(rs);
	u32 len = be32_to_cpu(inc->i_hdr.h_len);
	enum rds_cong_change cong = RDS_CONG_SAME;
	bool queued;

	spin_lock_bh(&rs->rs_lock);
	queued = !list_empty(&inc->i_item);
	if (queued && drop) {
		list_del_init(&inc->i_item);
		rs->rs_rcv_bytes -= rds_msg_charge(len);
		rds_recv_uncharge(rs, rds_msg_charge(len));
		cong = rds_cong_update_locked(rs);
	}
	spin_unlock_bh(&rs->rs_lock);

	rds_cong_changed(rs, cong);
	if (queued && drop) {
		rds_stats_add(rn, RDS_STAT_RECV_BYTES_FREED_FROMSOCK, len);
		rds_inc_put(inc);	/* the queue's */
	}
	return queued;
}

bool rds_recv_pending(struct rds_sock *rs)
{
	return READ_ONCE(rs->rs_cong_notify) ||
	       !list_empty_careful(&rs->rs_notify_queue) ||
	       !list_empty_careful(&rs->rs_recv_queue);
}

/**
 * rds_clear_recv_queue - drop every unread message (socket release)
 * @rs: the socket
 */
void rds_clear_recv_queue(struct rds_sock *rs)
{
	struct rds_incoming *inc, *tmp;
	enum rds_cong_change cong;
	LIST_HEAD(list);

	spin_lock_bh(&rs->rs_lock);
	list_splice_init(&rs->rs_recv_queue, &list);
	rds_recv_uncharge(rs, rs->rs_rcv_bytes);	/* the sum of the charges */
	rs->rs_rcv_bytes = 0;
	cong = rds_cong_update_locked(rs);
	spin_unlock_bh(&rs->rs_lock);
	rds_cong_changed(rs, cong);

	list_for_each_entry_safe(inc, tmp, &list, i_item) {
		list_del_init(&inc->i_item);
		rds_inc_put(inc);
	}
}

/* Deliver pending RDS_CONG_MONITOR uncongestion bits as a cmsg. */
static int rds_recv_cong_notify(struct rds_sock *rs, struct msghdr *msg)
{
	u64 notify;
	int ret;

	spin_lock_bh(&rs->rs_lock);
	notify = rs->rs_cong_notify;
	spin_unlock_bh(&rs->rs_lock);

	ret = put_cmsg(msg, SOL_RDS, RDS_CMSG_CONG_UPDATE, sizeof(notify),
		       &notify);
	if (ret)
		return ret;

	spin_lock_bh(&rs->rs_lock);
	rs->rs_cong_notify &= ~notify;
	rs->rs_cong_mask &= ~notify;
	spin_unlock_bh(&rs->rs_lock);
	return 0;
}

static int rds_recv_cmsgs(struct rds_sock *rs, struct rds_incoming *inc,
			  struct msghdr *msg)
{
	struct sock *sk = rds_rs_to_sk(rs);
	u64 cookie;
	int ret, i;

	/* As UDP: the socket's drops so far (over its hard limit). */
	if (sock_flag(sk, SOCK_RXQ_OVFL)) {
		u32 drops = atomic_read(&sk->sk_drops);

		if (drops) {
			ret = put_cmsg(msg, SOL_SOCKET, SO_RXQ_OVFL,
				       sizeof(drops), &drops);
			if (ret)
				return ret;
		}
	}

	/* No extension header (most messages): no RDMA_DEST cookie. */
	cookie = inc->i_hdr.h_exthdr[0] != RDS_EXTHDR_NONE ?
		 rds_rdma_hdr_cookie(&inc->i_hdr) : 0;
	if (cookie) {
		ret = put_cmsg(msg, SOL_RDS, RDS_CMSG_RDMA_DEST, sizeof(cookie),
			       &cookie);
		if (ret)
			return ret;
	}

	if (inc->i_rx_tstamp && sock_flag(sk, SOCK_RCVTSTAMP)) {
		if (sock_flag(sk, SOCK_TSTAMP_NEW)) {
			struct __kernel_sock_timeval tv;
			struct timespec64 ts = ktime_to_timespec64(inc->i_rx_tstamp);

			tv.tv_sec = ts.tv_sec;
			tv.tv_usec = ts.tv_nsec / NSEC_PER_USEC;
			ret = put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMP_NEW,
				       sizeof(tv), &tv);
		} else {
			struct __kernel_old_timeval tv =
				ns_to_kernel_old_timeval(inc->i_rx_tstamp);

			ret = put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMP_OLD,
				       sizeof(tv), &tv);
		}
		if (ret)
			return ret;
	}

	if (rs->rs_rx_traces) {
		struct rds_cmsg_rx_trace t = {};

		/* Only the delivery point is measured on our paths. */
		t.rx_traces = rs->rs_rx_traces;
		for (i = 0; i < rs->rs_rx_traces; i++) {
			u8 pos = rs->rs_rx_trace[i];

			t.rx_trace_pos[i] = pos;
			t.rx_trace[i] = pos == RDS_MSG_RX_DGRAM_DELIVERED ?
					local_clock() - inc->i_rx_lat[pos] : 0;
		}
		ret = put_cmsg(msg, SOL_RDS, RDS_CMSG_RXPATH_LATENCY,
			       sizeof(t), &t);
		if (ret)
			return ret;
	}
	return 0;
}

static void rds_recv_name(struct rds_sock *rs, struct rds_incoming *inc,
			  struct msghdr *msg)
{
	DECLARE_SOCKADDR(struct sockaddr_in6 *, sin6, msg->msg_name);
	DECLARE_SOCKADDR(struct sockaddr_in *, sin, msg->msg_name);

	if (!msg->msg_name)
		return;
	if (ipv6_addr_v4mapped(&inc->i_saddr)) {
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = inc->i_hdr.h_sport;
		sin->sin_addr.s_addr = inc->i_saddr.s6_addr32[3];
		msg->msg_namelen = sizeof(*sin);
	} else {
		memset(sin6, 0, sizeof(*sin6));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = inc->i_hdr.h_sport;
		sin6->sin6_addr = inc->i_saddr;
		sin6->sin6_scope_id = inc->i_conn->c_dev_if;
		msg->msg_namelen = sizeof(*sin6);
	}
}

/* Sleep until something may be readable, @timeo at most; the caller
 * looks again. One prepare_to_wait() a sleep: wait_event*() would queue
 * itself again after the wakeup only to test the condition.
 * Return: the time left (positive also when it ran out with something
 * pending, as wait_event*()), 0 when it ran out, or -ERESTARTSYS.
 */
static long rds_recv_wait(struct rds_sock *rs, long timeo)
{
	struct sock *sk = rds_rs_to_sk(rs);
	DEFINE_WAIT(wait);

	/* Queued before the test: rds_wake_sk() sees us or we see it. */
	prepare_to_wait(sk_sleep(sk), &wait, TASK_INTERRUPTIBLE);
	if (!rds_recv_pending(rs))
		timeo = schedule_timeout(timeo);
	finish_wait(sk_sleep(sk), &wait);
	if (rds_recv_pending(rs))
		return timeo ? timeo : 1;
	if (signal_pending(current))
		return -ERESTARTSYS;
	return timeo;
}

int rds_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
		int msg_flags)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs = rds_sk_to_rs(sk);
	struct rds_net *rn = rds_sock_rn(rs);
	bool nonblock = msg_flags & MSG_DONTWAIT;
	struct rds_incoming *inc;
	long timeo;
	int ret;

	if (msg_flags & MSG_OOB)
		return 0;
	if (msg_flags & MSG_ERRQUEUE)
		return sock_recv_errqueue(sk, msg, size, SOL_IP, IP_RECVERR);

	timeo = sock_rcvtimeo(sk, nonblock);
	for (;;) {
		/* Notifications come first, alone: RDMA, then congestion. */
		if (!list_empty_careful(&rs->rs_notify_queue))
			return rds_rdma_notify_recv(rs, msg);
		if (READ_ONCE(rs->rs_cong_notify))
			return rds_recv_cong_notify(rs, msg);

		inc = rds_next_incoming(rs);
		if (!inc) {
			/* As Linux: without data, completions come only to a
			 * non-blocking call.
			 */
			if (nonblock)
				return rds_zcopy_recv(rs, msg);
			timeo = rds_recv_wait(rs, timeo);
			if (timeo > 0 || timeo == MAX_SCHEDULE_TIMEOUT)
				continue;
			return timeo ? timeo : -ETIMEDOUT;
		}

		ret = inc->i_conn->c_trans->inc_copy_to_user(inc,
							     &msg->msg_iter);
		if (ret < 0)
			break;
		if (!rds_still_queued(rs, inc, !(msg_flags & MSG_PEEK))) {
			/* Another reader took it: try the next one. */
			iov_iter_revert(&msg->msg_iter, ret);
			rds_inc_put(inc);
			rds_stats_inc(rn, RDS_STAT_RECV_DELIVER_RACED);
			continue;
		}
		rds_stats_add(rn, RDS_STAT_COPY_TO_USER, ret);
		if (ret < be32_to_cpu(inc->i_hdr.h_len)) {
			if (msg_flags & MSG_TRUNC)
				ret = be32_to_cpu(inc->i_hdr.h_len);
			msg->msg_flags |= MSG_TRUNC;
		}
		if (rds_recv_cmsgs(rs, inc, msg)) {
			ret = -EFAULT;
			break;
		}
		/* As Linux: zero-copy completions ride along if they fit. */
		if (sock_flag(sk, SOCK_ZEROCOPY))
			rds_zcopy_recv(rs, msg);
		rds_stats_inc(rn, RDS_STAT_RECV_DELIVERED);
		rds_recv_name(rs, inc, msg);
		break;
	}
	rds_inc_put(inc);
	return ret;
}
