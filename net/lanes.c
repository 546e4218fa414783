// SPDX-License-Identifier: GPL-2.0
/*
 * Lanes: up to RDS_MPATH_WORKERS parallel connections to one peer, for
 * transports that offer them (TCP). Each lane is a struct rds_connection
 * of its own (sequences, queues, state machine), keyed by its index too;
 * lane 0 exists first and keeps what the two ends agreed on.
 *
 * The agreement is Linux's multipath probe: a ping from port 1 carrying
 * NPATHS, answered by a pong to port 1 carrying NPATHS; each end then
 * uses min(its own, the peer's) lanes. We add RDS_EXTHDR_LANES, last in
 * the header (Linux 6.1 stops parsing there, silently): a peer sending it
 * names each lane it connects, so the accepting end pairs every socket
 * with the right lane even when several reconnect at once. Linux names
 * none and fills the first free lane, which can swap two lanes'
 * sequences; so a peer without lane ids gets its own, smaller, lane
 * count (the transport's @max_lanes with @ids false).
 *
 * As in Linux: a socket's lane is a hash of its bound port over the
 * lanes; while the count is unknown a socket whose hash is not 0 sends
 * the probe and waits for the answer (bounded here, forever in Linux),
 * and the lower address connects lanes 1..n-1 once the count is known.
 * Unlike Linux, it does so only once the peer has answered a probe sent
 * on the current lane 0: a peer that learns the count after our lanes
 * reach it takes them for lane 0 and mixes their sequences (messages
 * were dropped as old: tcp_mpath). The answer shows the peer knows,
 * since a probe is learned from before it is answered.
 * Unlike Linux, a socket keeps the lane of its messages still queued to
 * that peer when the count changes, so its messages stay in order. Only
 * sockets sending to the peer whose count changed look at their queue:
 * a peer flipping its count as often as it likes costs others nothing.
 */
#include <linux/jhash.h>
#include <linux/random.h>

#include "rds_core.h"

/* How long a blocking send waits for the answer to its probe. */
#define RDS_LANES_PROBE_WAIT	HZ

/* Bumped whenever a peer's lane count may have changed; the peer's lane 0
 * keeps the value (c_lanes_gen). A socket remembers the value it saw at a
 * send with nothing queued (rs_lanes_gen): a peer whose count changed
 * before that, or never, is one its hash is good for. 0 in rs_lanes_gen
 * means "look first" (rds_lanes_unsettle()); 64-bit in practice, so it
 * does not wrap.
 */
static atomic_long_t rds_lanes_gen = ATOMIC_LONG_INIT(1);
static u32 rds_lanes_seed __read_mostly;

/* @conn0's peer changed its count (stored before this): sockets sending
 * to it look again.
 */
static void rds_lanes_changed(struct rds_connection *conn0)
{
	/* The increment is fully ordered: a sender that reads the new
	 * generation, or this peer's copy of it, sees the count.
	 */
	smp_store_release(&conn0->c_lanes_gen,
			  atomic_long_inc_return(&rds_lanes_gen));
}

/* Our lane limit toward @conn0's peer, by whether it has lane ids. */
static unsigned int rds_lanes_max(struct rds_connection *conn0, bool ids)
{
	const struct rds_transport *trans = conn0->c_trans;

	if (!trans->max_lanes || conn0->c_loopback)
		return 1;
	return clamp(trans->max_lanes(rds_conn_net(conn0), ids), 1U,
		     (unsigned int)RDS_MPATH_WORKERS);
}

/**
 * rds_conn_lanes - how many lanes the two ends use
 * @conn0: lane 0 of the peer
 * @ids: if not NULL, set to whether the peer names its lanes
 *
 * Context: any.
 * Return: 1..RDS_MPATH_WORKERS; 1 while the peer's count is unknown.
 */
unsigned int rds_conn_lanes(struct rds_connection *conn0, bool *ids)
{
	/* Pairs with the release in rds_lanes_learn(). */
	unsigned int peer = smp_load_acquire(&conn0->c_npaths);
	bool pids = READ_ONCE(conn0->c_peer_ids);

	if (ids)
		*ids = peer && pids;
	if (!peer)
		return 1;
	return min(peer, rds_lanes_max(conn0, pids));
}
EXPORT_SYMBOL_GPL(rds_conn_lanes);

/**
 * rds_lanes_add_exts - what a probe or a pong says about our lanes
 * @conn0: lane 0 of the peer
 * @hdr: the header being built
 *
 * NPATHS for a peer without lane ids, then (lanes' transports) our
 * incarnation (GEN_NUM), SPORT_IDX and our LANES extension, last.
 */
void rds_lanes_add_exts(struct rds_connection *conn0, struct rds_header *hdr)
{
	struct rds_ext_header_npaths np = {
		.h_npaths = cpu_to_be16(rds_lanes_max(conn0,
						      READ_ONCE(conn0->c_peer_ids))),
	};
	struct rds_ext_header_gen_num gn = {
		.h_gen_num = cpu_to_be32(rds_conn_rn(conn0)->gen_num),
	};
	struct rds_ext_header_sport_idx si = {};
	struct rds_ext_header_lanes ln = {
		.h_lanes = rds_lanes_max(conn0, true),
	};

	rds_hdr_add_ext(hdr, RDS_EXTHDR_NPATHS, &np, sizeof(np));
	if (!conn0->c_trans->max_lanes)
		return;
	/* Linux (TCP only: over IB it WARNs and walks lanes it never
	 * allocated) reads it before SPORT_IDX, which 6.1 cannot step over.
	 */
	rds_hdr_add_ext(hdr, RDS_EXTHDR_GEN_NUM, &gn, sizeof(gn));
	rds_hdr_add_ext(hdr, RDS_EXTHDR_SPORT_IDX, &si, sizeof(si));
	rds_hdr_add_ext(hdr, RDS_EXTHDR_LANES, &ln, sizeof(ln));
}

/* The lower address brings lanes 1..n-1 up (from lane 0's work). */
void rds_lanes_kick(struct rds_connection *conn0)
{
	if (conn0->c_lane0 || rds_conn_peer_is_lower(conn0) ||
	    !test_bit(RDS_CONN_PEER_COUNTED, &conn0->c_flags) ||
	    rds_conn_lanes(conn0, NULL) < 2)
		return;
	rds_conn_queue_delayed(conn0, &conn0->c_lanes_w, 0);
}

/**
 * rds_lanes_may_connect - may this lane connect now?
 * @conn: the lane
 *
 * Lane 0 always may, and so may any lane of the higher address (it only
 * asks the lower one to connect). The lower address connects lanes 1..n-1
 * while lane 0 is up and the peer has answered a probe on it; a lane that
 * may not waits down for rds_lanes_kick().
 *
 * Context: any.
 */
bool rds_lanes_may_connect(struct rds_connection *conn)
{
	struct rds_connection *conn0 = conn->c_lane0;

	if (!conn0 || rds_conn_peer_is_lower(conn))
		return true;
	return rds_conn_state(conn0) == RDS_CONN_UP &&
	       test_bit(RDS_CONN_PEER_COUNTED, &conn0->c_flags);
}

void rds_lanes_worker(struct work_struct *work)
{
	struct rds_connection *conn0 = container_of(to_delayed_work(work),
						    struct rds_connection,
						    c_lanes_w);
	unsigned int k, n = rds_conn_lanes(conn0, NULL);
	struct rds_connection *lane;

	for (k = 1; k < n; k++) {
		lane = rds_conn_lane(conn0, k, GFP_KERNEL);
		if (IS_ERR(lane))
			return;	/* dying, or at the cap: the next kick retries */
		rds_conn_connect_if_down(lane);
		rds_conn_put(lane);
	}
}

/**
 * rds_lanes_connected - lane 0 of a wire transport came up
 * @conn0: lane 0
 *
 * Both ends ask for the count, whichever connected (Linux asks from the
 * accepting end), even if they knew it: a probe sent before may have
 * been lost with the connection that carried it, and the peer may be a
 * new one (its module reloaded) that knows nothing. Lanes the count
 * allows follow the answer (lower address).
 */
void rds_lanes_connected(struct rds_connection *conn0)
{
	clear_bit(RDS_CONN_PEER_COUNTED, &conn0->c_flags);
	if (max(rds_lanes_max(conn0, true), rds_lanes_max(conn0, false)) > 1) {
		clear_bit(RDS_CONN_PROBE_SENT, &conn0->c_flags);
		rds_conn_probe(conn0);
	}
}

/**
 * rds_lanes_probe_gone - a probe left its connection unanswered
 * @rm: a message taken off a connection without being acked
 *
 * Another probe may go out then.
 */
void rds_lanes_probe_gone(struct rds_message *rm)
{
	if (test_bit(RDS_MSG_PONG, &rm->m_flags) &&
	    rm->m_hdr.h_sport == cpu_to_be16(RDS_FLAG_PROBE_PORT) &&
	    !rm->m_hdr.h_dport)
		clear_bit(RDS_CONN_PROBE_SENT, &rm->m_conn->c_flags);
}

/**
 * rds_lanes_keep_up - should a lane that went down come back by itself?
 * @conn: the lane
 *
 * With more than one lane, the lower address reconnects every lane, as
 * Linux does: the higher one cannot bring lanes other than 0 back, and
 * congestion map updates travel on lane 0 only. One lane reconnects when
 * it has work, as before.
 */
bool rds_lanes_keep_up(struct rds_connection *conn)
{
	struct rds_connection *conn0 = rds_conn_lane0(conn);
	unsigned int n = rds_conn_lanes(conn0, NULL);

	return n > 1 && conn->c_lane < n && !rds_conn_peer_is_lower(conn) &&
	       !test_bit(RDS_CONN_DESTROYING, &conn0->c_flags);
}

/* A peer's incarnation (GEN_NUM, from Linux and ours): another value
 * than the one before means it restarted; 0 says nothing.
 */
static void rds_lanes_peer_gen(struct rds_connection *conn0, u32 gen)
{
	u32 old;

	if (!gen)
		return;
	old = xchg(&conn0->c_peer_gen, gen);
	if (!old || old == gen)
		return;
	rds_stats_inc(rds_conn_rn(conn0),
		      RDS_STAT_CONN_PEER_RESTARTED);
	rds_conn_peer_restarted(conn0);
}

/**
 * rds_lanes_learn - a probe or its answer arrived: the peer's lane count
 * @conn: the lane it arrived on
 * @hdr: its header (nothing in it is trusted)
 * @answer: it answers our probe (so the peer has our count)
 *
 * Context: the transport's receive path.
 */
void rds_lanes_learn(struct rds_connection *conn, const struct rds_header *hdr,
		     bool answer)
{
	struct rds_connection *conn0 = rds_conn_lane0(conn);
	struct rds_ext_header_sport_idx si;
	struct rds_ext_header_gen_num gn;
	struct rds_ext_header_npaths np;
	struct rds_ext_header_lanes ln;
	bool ids = false, reprobe = false;
	unsigned int n = 1;

	if (rds_hdr_find_ext(hdr, RDS_EXTHDR_NPATHS, &np))
		n = clamp_t(unsigned int, be16_to_cpu(np.h_npaths), 1,
			    RDS_MPATH_WORKERS);
	if (!conn0->c_trans->max_lanes)
		goto learned;
	if (rds_hdr_find_ext(hdr, RDS_EXTHDR_GEN_NUM, &gn))
		rds_lanes_peer_gen(conn0, be32_to_cpu(gn.h_gen_num));
	if (rds_hdr_find_ext(hdr, RDS_EXTHDR_LANES, &ln)) {
		ids = true;
		n = clamp_t(unsigned int, ln.h_lanes, 1, RDS_MPATH_WORKERS);
	} else if (rds_hdr_find_ext(hdr, RDS_EXTHDR_SPORT_IDX, &si)) {
		/* Newer Linux names its lanes by source port too, but reads
		 * our count from NPATHS only, and our probe offered it the
		 * count for peers without ids: offer the full one in a new
		 * probe (it takes a larger count, never a smaller one), and
		 * open lanes on that one's answer.
		 */
		ids = true;
		reprobe = answer && !READ_ONCE(conn0->c_peer_ids) &&
			  rds_lanes_max(conn0, true) >
			  rds_lanes_max(conn0, false);
	}
learned:
	if (READ_ONCE(conn0->c_npaths) != n ||
	    READ_ONCE(conn0->c_peer_ids) != ids) {
		WRITE_ONCE(conn0->c_peer_ids, ids);
		/* Readers of the count see the ids (rds_conn_lanes()). */
		smp_store_release(&conn0->c_npaths, n);
		rds_lanes_changed(conn0);
	}
	clear_bit(RDS_CONN_PROBE_SENT, &conn0->c_flags);
	if (reprobe) {
		rds_stats_inc(rds_conn_rn(conn0),
			      RDS_STAT_LANES_REPROBE);
		rds_conn_probe(conn0);
	} else if (answer) {
		set_bit(RDS_CONN_PEER_COUNTED, &conn0->c_flags);
	}
	wake_up_all(&conn0->c_waitq);
	rds_lanes_kick(conn0);
}

/**
 * rds_lanes_send_probe - send Linux's multipath probe on lane 0
 * @conn0: lane 0 of the peer
 *
 * A ping from port RDS_FLAG_PROBE_PORT with our lane counts; the pong
 * brings the peer's.
 *
 * Context: any.
 */
static int rds_lanes_send_probe(struct rds_connection *conn0)
{
	struct rds_message *rm;
	int ret;

	rm = rds_message_alloc(rds_conn_rn(conn0), 0, GFP_ATOMIC);
	if (!rm)
		return -ENOMEM;
	rm->m_daddr = conn0->c_faddr;
	rm->m_hdr.h_sport = cpu_to_be16(RDS_FLAG_PROBE_PORT);
	rm->m_hdr.h_dport = 0;
	rds_lanes_add_exts(conn0, &rm->m_hdr);
	ret = rds_send_ctl(conn0, rm);
	if (!ret)
		rds_stats_inc(rds_conn_rn(conn0),
			      RDS_STAT_SEND_MPATH_PROBE);
	return ret;
}

/**
 * rds_conn_probe - send our multipath probe on lane 0, unless one is out
 * @conn0: lane 0 of the peer
 *
 * Context: any.
 */
void rds_conn_probe(struct rds_connection *conn0)
{
	if (conn0->c_lane0 || !conn0->c_trans->max_lanes ||
	    test_and_set_bit(RDS_CONN_PROBE_SENT, &conn0->c_flags))
		return;
	if (rds_lanes_send_probe(conn0))
		clear_bit(RDS_CONN_PROBE_SENT, &conn0->c_flags);
}

/**
 * rds_conn_lanes_retune - our lane limits changed (a transport's sysctl)
 * @conn0: lane 0 of a peer
 *
 * Our own count changes at once; the peer learns ours from a new probe,
 * and answers with its own.
 *
 * Context: any.
 */
void rds_conn_lanes_retune(struct rds_connection *conn0)
{
	if (conn0->c_lane0)
		return;
	rds_lanes_changed(conn0);
	clear_bit(RDS_CONN_PROBE_SENT, &conn0->c_flags);
	rds_conn_probe(conn0);
}
EXPORT_SYMBOL_GPL(rds_conn_lanes_retune);

/* Linux 6.1's choice: a hash of the bound port over the lanes (Linux
 * masks with n - 1; the modulo is the same for powers of two and spreads
 * over every lane otherwise).
 */
static unsigned int rds_lanes_hash(struct rds_sock *rs, unsigned int n)
{
	return jhash_1word(be16_to_cpu(rs->rs_bound.port), rds_lanes_seed) % n;
}

/* The generations, read before the count: a count newer than they are
 * makes the next send look again (pairs with rds_lanes_changed()).
 */
struct rds_lanes_gens {
	unsigned long	gen;	/* rds_lanes_gen */
	unsigned long	peer;	/* the peer's c_lanes_gen */
};

static void rds_lanes_read_gens(struct rds_connection *conn0,
				struct rds_lanes_gens *g)
{
	/* Acquire: pairs with rds_lanes_changed()'s release. */
	g->peer = smp_load_acquire(&conn0->c_lanes_gen);
	g->gen = atomic_long_read_acquire(&rds_lanes_gen);
}

/* While @rs has messages queued to @conn0's peer that went out before
 * its lane count last changed, new ones follow them on their lane.
 */
static unsigned int rds_lanes_keep_order(struct rds_sock *rs,
					 struct rds_connection *conn0,
					 unsigned int lane,
					 const struct rds_lanes_gens *g)
{
	unsigned long seen = READ_ONCE(rs->rs_lanes_gen);
	struct rds_message *rm;

	/* The peer's count last changed before a send of ours that found
	 * nothing queued: what we queued since went by the count we use.
	 */
	if (seen && g->peer <= seen)
		return lane;
	rds_stats_inc(rds_conn_rn(conn0), RDS_STAT_SEND_LANES_WALKS);
	spin_lock_bh(&rs->rs_lock);
	if (list_empty(&rs->rs_send_queue)) {
		WRITE_ONCE(rs->rs_lanes_gen, g->gen);
	} else {
		list_for_each_entry_reverse(rm, &rs->rs_send_queue,
					    m_sock_item) {
			if (rds_conn_lane0(rm->m_conn) == conn0) {
				lane = rm->m_conn->c_lane;
				break;
			}
		}
	}
	spin_unlock_bh(&rs->rs_lock);
	return lane;
}

/**
 * rds_lanes_unsettle - @rs sent off its hash's lane
 * @rs: the socket
 *
 * Its next sends look at what it has queued first, as after a change of
 * the lane count (rds_lanes_keep_order()).
 */
void rds_lanes_unsettle(struct rds_sock *rs)
{
	WRITE_ONCE(rs->rs_lanes_gen, 0);
}

/**
 * rds_lanes_pick - the lane a message of @rs to @conn0's peer goes on
 * @rs: the sending socket
 * @conn0: lane 0 of the peer
 * @nonblock: the send must not wait for the probe's answer
 * @timeo: the socket's send timeout, bounding that wait
 *
 * Context: process context, may sleep (a blocking send whose hash is not
 * lane 0 waits up to RDS_LANES_PROBE_WAIT for the peer's count).
 */
unsigned int rds_lanes_pick(struct rds_sock *rs, struct rds_connection *conn0,
			    bool nonblock, long timeo)
{
	struct rds_lanes_gens g;
	unsigned int n;

	if (max(rds_lanes_max(conn0, true), rds_lanes_max(conn0, false)) < 2)
		return 0;
	rds_lanes_read_gens(conn0, &g);	/* before the count */
	if (!READ_ONCE(conn0->c_npaths)) {
		if (!rds_lanes_hash(rs, RDS_MPATH_WORKERS))
			return rds_lanes_keep_order(rs, conn0, 0, &g);
		rds_conn_probe(conn0);
		if (!nonblock && timeo > 0)
			wait_event_interruptible_timeout(conn0->c_waitq,
							 READ_ONCE(conn0->c_npaths),
							 min_t(long, timeo,
							       RDS_LANES_PROBE_WAIT));
		rds_lanes_read_gens(conn0, &g);	/* as above */
		if (!READ_ONCE(conn0->c_npaths))
			return rds_lanes_keep_order(rs, conn0, 0, &g);
	}
	n = rds_conn_lanes(conn0, NULL);
	return rds_lanes_keep_order(rs, conn0,
				    n > 1 ? rds_lanes_hash(rs, n) : 0, &g);
}

void rds_lanes_init(void)
{
	rds_lanes_seed = get_random_u32();
}
