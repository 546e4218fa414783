// SPDX-License-Identifier: GPL-2.0
/*
 * Connection management over the RDMA CM, as Linux's RDS does it: the
 * connect request and its private data (addresses, protocol version, TOS, the
 * sender's ack), version negotiation (3.1; a 4.x proposal is answered
 * with 4.x so Oracle UEK peers connect), fragment sizes, and the races. Whichever side
 * has traffic connects; a request that finds the connection up treats it
 * as stale (drops it) and one that finds it connecting is refused, and
 * the loser retries after the core's back-off, as with Linux.
 *
 * The listeners (rds_rdma_listen.c) serve every flavor: a request is
 * handed to the transport of its device's node type (InfiniBand/RoCE or
 * iWARP).
 *
 * Lock order: i_cm_mutex (held by every handler of a connection's id),
 * then i_rx_lock (the requester's first ack).
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>
#include <net/rds/compat.h>

#include "rds_rdma.h"
#include "rds_rdma_trace.h"

/* What a reject carries (a host-endian int, as Linux): 1 for races,
 * stale connections, versions and failures alike; 2 for a request on
 * an alternate route that will not be taken (only ours send those):
 * the requester tries elsewhere rather than the same route again.
 */
#define RDS_RDMA_REJ_RETRY	1
#define RDS_RDMA_REJ_ROUTE	2

/**
 * rds_rdma_sockaddr - a sockaddr for the RDMA CM
 * @ss: filled in
 * @addr: the address (v4-mapped for IPv4)
 * @port: host order
 * @scope: interface of a link-local IPv6 address
 */
void rds_rdma_sockaddr(struct sockaddr_storage *ss, const struct in6_addr *addr,
		       u16 port, int scope)
{
	memset(ss, 0, sizeof(*ss));
	if (ipv6_addr_v4mapped(addr)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = addr->s6_addr32[3];
		sin->sin_port = htons(port);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = *addr;
		sin6->sin6_port = htons(port);
		sin6->sin6_scope_id = scope;
	}
}

/* An address of a CM id as the core keeps them (v4-mapped for IPv4). */
static bool rds_rdma_cm_addr(const struct sockaddr *sa, struct in6_addr *a)
{
	if (sa->sa_family == AF_INET) {
		ipv6_addr_set_v4mapped(((const struct sockaddr_in *)sa)->sin_addr.s_addr,
				       a);
		return true;
	}
	if (sa->sa_family == AF_INET6) {
		*a = ((const struct sockaddr_in6 *)sa)->sin6_addr;
		return true;
	}
	return false;
}

/* The port of a CM id's address (0 for a family we do not use). */
static __be16 rds_rdma_cm_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_port;
	if (ss->ss_family == AF_INET6)
		return ((const struct sockaddr_in6 *)ss)->sin6_port;
	return 0;
}

/* The GIDs of the connection, for RDS_INFO readers. */
static void rds_rdma_cm_save_gids(struct rds_rdma_conn *ic,
				  struct rdma_cm_id *id)
{
	union ib_gid sgid, dgid;

	rdma_read_gids(id, &sgid, &dgid);
	spin_lock_bh(&ic->i_rx_lock);
	memcpy(ic->i_sgid, sgid.raw, sizeof(ic->i_sgid));
	memcpy(ic->i_dgid, dgid.raw, sizeof(ic->i_dgid));
	spin_unlock_bh(&ic->i_rx_lock);
}

/*
 * Fragment sizes. We offer net.rds.ib.max_frag_size (what the device's
 * SGE lists can hold) in a 4.1 request, as Oracle UEK does, and both
 * ends apply UEK's rule to the two offers. A Linux peer answers 4.1 with
 * no offer, and one that requests 3.1 makes none: 4 KiB, as Linux's
 * receive buffers need. Where receives must be posted before the request
 * goes out (no RNR retry: iWARP), the size must be known by then, so we
 * offer nothing bigger.
 */
static unsigned int rds_rdma_frag_offer(const struct rds_rdma_flavor *fl,
					struct ib_device *ibdev)
{
	unsigned int pages = READ_ONCE(rds_rdma_sysctl_max_frag_size) /
			     RDS_FRAG_SIZE;

	if (!fl->rnr_retry)
		return 1;
	pages = min3(pages, (unsigned int)RDS_RDMA_MAX_FRAG_PAGES,
		     (unsigned int)ibdev->attrs.max_recv_sge - 1);
	pages = min(pages, (unsigned int)ibdev->attrs.max_send_sge - 1);
	return pages ? rounddown_pow_of_two(pages) : 1;
}

/* UEK's rule, the same at both ends: the smaller offer if it is 8 or
 * 16 KiB, else 4 KiB; 4 KiB below protocol 4.1. In pages.
 */
static unsigned int rds_rdma_frag_agree(u16 version, unsigned int ours,
					unsigned int peers)
{
	unsigned int bytes = min(ours, peers);

	if (version < RDS_RDMA_VERSION_4_1)
		return 1;
	if (bytes == 2 * RDS_FRAG_SIZE || bytes == 4 * RDS_FRAG_SIZE)
		return bytes / RDS_FRAG_SIZE;
	return 1;
}

/* Fill our private data and the CM's connection parameters; @frag_pages
 * is our offer (request) or the agreed size (reply).
 */
static void rds_rdma_cm_param(struct rds_connection *conn,
			      struct rdma_conn_param *p,
			      union rds_rdma_cdata *cd, u16 version,
			      unsigned int frag_pages, bool request,
			      u8 responder_resources, u8 initiator_depth)
{
	struct rds_rdma_cdata_common *c;

	memset(p, 0, sizeof(*p));
	memset(cd, 0, sizeof(*cd));
	if (conn->c_isv6) {
		cd->v6.saddr = conn->c_laddr;
		cd->v6.daddr = conn->c_faddr;
		c = &cd->v6.c;
		p->private_data_len = sizeof(cd->v6);
	} else {
		cd->v4.saddr = conn->c_laddr.s6_addr32[3];
		cd->v4.daddr = conn->c_faddr.s6_addr32[3];
		c = &cd->v4.c;
		p->private_data_len = sizeof(cd->v4);
	}
	c->major = version >> 8;
	c->minor = version & 0xff;
	c->minor_mask = cpu_to_be16(RDS_RDMA_MINOR_MASK);
	c->tos = conn->c_tos;
	if (version >= RDS_RDMA_VERSION_4_1)
		c->frag_sz = cpu_to_be16(frag_pages * RDS_FRAG_SIZE);
	put_unaligned_be64(rds_rdma_ack_seq(conn), &c->ack_seq);
	/* Credits 0: flow control off, as with every Linux peer. Between
	 * two of ours, the tail says so (routes: rds_rdma_route.c).
	 */
	rds_rdma_route_fill_cdata(conn, c, request);
	p->private_data = cd;
	p->responder_resources = responder_resources;
	p->initiator_depth = initiator_depth;
	/* Six transport retries of the CM's ack timeout (~2 s on RoCE),
	 * then the queue pair fails and the core reconnects. Not 7: rxe
	 * takes 7 as "for ever" (the spec does so only for RNR), and a
	 * peer that lost its queue pair (its port went down) would hold
	 * our connection, and every message on it, up for good.
	 */
	p->retry_count = RDS_RDMA_RETRY_COUNT;
	p->rnr_retry_count = 7;	/* infinite: a full receiver holds us */
}

/* The common block of the private data in @ev, or NULL if too short. */
static const struct rds_rdma_cdata_common *
rds_rdma_cm_common(const struct rdma_cm_event *ev, bool v6)
{
	const union rds_rdma_cdata *cd = ev->param.conn.private_data;
	size_t need = v6 ? sizeof(cd->v6) : sizeof(cd->v4);

	if (!cd || ev->param.conn.private_data_len < need)
		return NULL;
	return v6 ? &cd->v6.c : &cd->v4.c;
}

/* The version a proposal gets, or 0 to refuse it (Linux's rules). */
static u16 rds_rdma_cm_version(const struct rds_rdma_cdata_common *c)
{
	u16 mask = be16_to_cpu(c->minor_mask);

	if (c->major == 3 && c->minor == 1)
		return 0x0301;
	if (c->major == 4 && (mask & RDS_RDMA_MINOR_MASK))
		return 0x0400 | __fls(mask & RDS_RDMA_MINOR_MASK);
	return 0;
}

static int rds_rdma_cm_reject(struct rdma_cm_id *id, enum rds_rdma_refusal r)
{
	int why = r == RDS_RDMA_REFUSE_ROUTE ? RDS_RDMA_REJ_ROUTE :
					       RDS_RDMA_REJ_RETRY;

	trace_rds_rdma_cm_refuse(id, r);
	rds_rdma_stat_inc(RDS_RDMA_STAT_CONNECT_REFUSED);
	rdma_reject(id, &why, sizeof(why), IB_CM_REJ_CONSUMER_DEFINED);
	return 1;	/* the CM destroys @id */
}

/*
 * Both ends connect at once (both have traffic): each finds the other's
 * request while connecting. Linux refuses it and lets random back-off
 * sort the two out, which in lockstep (two addresses of one host, or two
 * of ours) can go on for long. We break the tie: the lower address's
 * request wins, so the higher side gives up its own attempt and accepts.
 * A Linux peer still refuses ours, which then loses nothing.
 *
 * May @conn, CONNECTING, take the peer's request? Its own attempt, if
 * any, becomes stale (destroyed with the next shutdown). Where the flavor
 * cannot give its attempt up here (iWARP: cm_yield), the higher side
 * refuses too, both attempts fail, and it leaves the next one to the
 * peer (RDS_RDMA_PEER_FIRST), whose request then finds it waiting.
 */
static bool rds_rdma_cm_yield_locked(struct rds_connection *conn,
				     bool route_req)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);

	lockdep_assert_held(&ic->i_cm_mutex);
	if (rds_conn_state(conn) != RDS_CONN_CONNECTING)
		return false;
	/* The core's connect worker has not run yet: it will find this. */
	if (!ic->i_cm_id)
		return true;
	if (!ic->i_cm_active || ic->i_stale_id ||
	    !rds_rdma_route_wins(conn, route_req))
		return false;
	if (!rds_rdma_flavor_of(conn)->cm_yield) {
		set_bit(RDS_RDMA_PEER_FIRST, &ic->i_flags);
		return false;
	}
	rds_rdma_qp_teardown(conn, ic->i_cm_id);
	ic->i_stale_id = ic->i_cm_id;
	ic->i_cm_id = NULL;
	WRITE_ONCE(ic->i_req_port, 0);
	rds_rdma_stat_inc(RDS_RDMA_STAT_CONNECT_YIELDED);
	return true;
}

/*
 * A request between two of our own addresses is one of our connections
 * meeting itself (its mirror, @faddr to @laddr, sent it) or a local user
 * who opened an RDMA CM id to speak RDS as another address. Only the
 * first is taken: the mirror's request in flight left from @port.
 */
static bool rds_rdma_cm_own_request(const struct rds_rdma_flavor *fl,
				    const struct in6_addr *laddr,
				    const struct in6_addr *faddr, u8 tos,
				    __be16 port)
{
	struct rds_connection *mirror;
	bool own;

	mirror = rds_conn_find(&init_net, faddr, laddr, &fl->trans, tos, 0);
	if (!mirror)
		return false;
	own = port && READ_ONCE(rds_rdma_conn(mirror)->i_req_port) == port;
	rds_conn_put(mirror);
	return own;
}

/* A peer asks to connect: accept it on the connection it names. */
static int rds_rdma_cm_accept(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	const struct rds_rdma_cdata_common *c;
	const union rds_rdma_cdata *cd = ev->param.conn.private_data;
	struct in6_addr laddr, faddr, cm_laddr, cm_faddr;
	const struct rds_rdma_flavor *fl;
	struct rds_connection *conn;
	struct rdma_conn_param param;
	union rds_rdma_cdata reply;
	struct rds_rdma_conn *ic;
	struct ib_device *ibdev = id->device;
	bool v6, route;
	u16 version;
	int ret;

	if (!rds_rdma_cm_addr((struct sockaddr *)&id->route.addr.src_addr,
			      &cm_laddr) ||
	    !rds_rdma_cm_addr((struct sockaddr *)&id->route.addr.dst_addr,
			      &cm_faddr))
		return rds_rdma_cm_reject(id, RDS_RDMA_REFUSE_ADDR);
	v6 = !ipv6_addr_v4mapped(&cm_laddr);
	c = rds_rdma_cm_common(ev, v6);
	if (!c)
		return rds_rdma_cm_reject(id, RDS_RDMA_REFUSE_PDATA);
	version = rds_rdma_cm_version(c);
	if (!version)
		return rds_rdma_cm_reject(id, RDS_RDMA_REFUSE_VERSION);
	if (v6) {
		faddr = cd->v6.saddr;
		laddr = cd->v6.daddr;
	} else {
		ipv6_addr_set_v4mapped(cd->v4.saddr, &faddr);
		ipv6_addr_set_v4mapped(cd->v4.daddr, &laddr);
	}
	/* The peer may only speak for itself, to us; on another route
	 * than the connection's own, with the token we gave it.
	 */
	route = c->route == RDS_RDMA_ROUTE_MARK;
	if (!route && (!ipv6_addr_equal(&laddr, &cm_laddr) ||
		       !ipv6_addr_equal(&faddr, &cm_faddr)))
		return rds_rdma_cm_reject(id, RDS_RDMA_REFUSE_SPOOF);

	fl = rds_rdma_flavor_find(ibdev->node_type);
	if (!fl)
		return rds_rdma_cm_reject(id, RDS_RDMA_REFUSE_NO_FLAVOR);
	if (route) {
		conn = rds_rdma_route_request(fl, c, &laddr, &faddr, &cm_laddr,
					      &cm_faddr);
		module_put(fl->trans.owner);
		if (!conn)
			return rds_rdma_cm_reject(id, RDS_RDMA_REFUSE_ROUTE);
		goto found;
	}
	if (rds_addr_is_local(&init_net, &faddr, 0) &&
	    !rds_rdma_cm_own_request(fl, &laddr, &faddr, c->tos,
				     rds_rdma_cm_port(&id->route.addr.dst_addr))) {
		rds_rdma_stat_inc(RDS_RDMA_STAT_CONNECT_LOCAL);
		module_put(fl->trans.owner);
		return rds_rdma_cm_reject(id, RDS_RDMA_REFUSE_LOCAL);
	}
	conn = rds_conn_accept(&init_net, &laddr, &faddr, &fl->trans, c->tos,
			       0, GFP_KERNEL);
	module_put(fl->trans.owner);
	if (IS_ERR(conn))
		return rds_rdma_cm_reject(id, RDS_RDMA_REFUSE_NO_CONN);
found:
	ic = rds_rdma_conn(conn);

	mutex_lock(&ic->i_cm_mutex);
	if (!rds_conn_transition(conn, RDS_CONN_DOWN, RDS_CONN_CONNECTING) &&
	    !rds_rdma_cm_yield_locked(conn, route)) {
		if (rds_conn_state(conn) == RDS_CONN_UP) {
			/* The peer lost the connection we still have. */
			rds_rdma_stat_inc(RDS_RDMA_STAT_LISTEN_CLOSED_STALE);
			if (route)
				rds_rdma_route_stale(conn, &cm_laddr,
						     &cm_faddr);
			rds_conn_drop_reason(conn, RDS_DROP_REQ_WHILE_UP);
		} else {
			rds_rdma_stat_inc(RDS_RDMA_STAT_CONNECT_RACED);
		}
		goto reject;
	}
	ic->i_frag_pages = rds_rdma_frag_agree(version,
					       rds_rdma_frag_offer(fl, ibdev) *
					       RDS_FRAG_SIZE,
					       be16_to_cpu(c->frag_sz));
	ic->i_frag_offer = ic->i_frag_pages;
	ret = rds_rdma_qp_setup(conn, id);
	if (ret)
		goto drop;
	ic->i_version = version;
	rds_rdma_peer_acked(conn, get_unaligned_be64(&c->ack_seq));
	rds_rdma_route_peer_cdata(conn, c);
	rds_rdma_route_accepted(conn, &cm_laddr, &cm_faddr);
	rds_rdma_cm_param(conn, &param, &reply, version, ic->i_frag_pages,
			  false, min_t(u32, ibdev->attrs.max_qp_rd_atom,
				ev->param.conn.initiator_depth),
			  min_t(u32, ibdev->attrs.max_qp_init_rd_atom,
				ev->param.conn.responder_resources));
	/* Nothing of ours may go before the requester's first frame. */
	clear_bit(RDS_RDMA_EST_HELD, &ic->i_flags);
	if (fl->initiator_first)
		set_bit(RDS_RDMA_HEAR_FIRST, &ic->i_flags);
	else
		clear_bit(RDS_RDMA_HEAR_FIRST, &ic->i_flags);
	/* A SEND that finds no receive is retried after 0.32 ms, as on
	 * the queue pairs we request; the CM's default is 655 ms.
	 */
	ret = rdma_set_min_rnr_timer(id, IB_RNR_TIMER_000_32);
	if (ret) {
		rds_rdma_qp_teardown(conn, id);
		goto drop;
	}
	id->context = conn;
	ret = rdma_accept(id, &param);
	if (ret) {
		id->context = NULL;
		rds_rdma_qp_teardown(conn, id);
		goto drop;
	}
	ic->i_cm_id = id;
	ic->i_cm_active = false;
	WRITE_ONCE(ic->i_req_port, 0);
	rds_rdma_cm_save_gids(ic, id);
	mutex_unlock(&ic->i_cm_mutex);
	rds_conn_put(conn);
	return 0;

drop:
	mutex_unlock(&ic->i_cm_mutex);
	rds_conn_drop_reason(conn, RDS_DROP_ACCEPT_FAIL);
	rds_conn_put(conn);
	return rds_rdma_cm_reject(id, RDS_RDMA_REFUSE_SETUP);
reject:
	mutex_unlock(&ic->i_cm_mutex);
	rds_conn_put(conn);
	return rds_rdma_cm_reject(id, RDS_RDMA_REFUSE_RACE);
}

/* The connection is up: the core may send, and our workers start. */
static void rds_rdma_cm_up(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);

	lockdep_assert_held(&ic->i_cm_mutex);
	rds_connect_complete(conn);
	if (rds_conn_state(conn) == RDS_CONN_UP) {
		rds_rdma_addr_bind(conn, ic->i_cm_id);
		rds_rdma_route_established(conn);
		rds_rdma_live_start(conn);
	}
}

/**
 * rds_rdma_cm_heard - a frame from the peer arrived
 * @ic: the connection
 *
 * On an accepted connection that must hear first (initiator_first), the
 * first one lets a held ESTABLISHED go on (i_est_w, which takes the CM
 * mutex this context cannot).
 *
 * Context: the receive completion, i_rx_lock held.
 */
void rds_rdma_cm_heard(struct rds_rdma_conn *ic)
{
	/* A plain read first: every receive passes here. */
	if (unlikely(test_bit(RDS_RDMA_HEAR_FIRST, &ic->i_flags)) &&
	    test_and_clear_bit(RDS_RDMA_HEAR_FIRST, &ic->i_flags))
		mod_delayed_work(rds_rdma_wq, &ic->i_est_w, 0);
}

/**
 * rds_rdma_est_worker - finish an ESTABLISHED held for the peer's first
 *	frame
 * @work: the connection's i_est_w
 *
 * Runs when the frame came, or at the deadline: a requester that has
 * nothing to send and does not ack first (not ours) is then sent to
 * anyway. A run for an earlier connection finds EST_HELD clear (shutdown
 * and accept clear it) or the new one's deadline ahead.
 *
 * Context: process context.
 */
void rds_rdma_est_worker(struct work_struct *work)
{
	struct rds_rdma_conn *ic = container_of(to_delayed_work(work),
						struct rds_rdma_conn, i_est_w);
	struct rds_connection *conn = rds_conn_from_tdata(ic);
	long left;

	mutex_lock(&ic->i_cm_mutex);
	if (!test_bit(RDS_RDMA_EST_HELD, &ic->i_flags))
		goto out;
	if (test_bit(RDS_RDMA_HEAR_FIRST, &ic->i_flags)) {
		left = (long)(ic->i_est_deadline - jiffies);
		if (left > 0) {
			queue_delayed_work(rds_rdma_wq, &ic->i_est_w, left);
			goto out;
		}
		clear_bit(RDS_RDMA_HEAR_FIRST, &ic->i_flags);
		rds_rdma_stat_inc(RDS_RDMA_STAT_EST_UNHEARD);
	}
	clear_bit(RDS_RDMA_EST_HELD, &ic->i_flags);
	if (ic->i_cm_id && rds_conn_state(conn) == RDS_CONN_CONNECTING)
		rds_rdma_cm_up(conn);
out:
	mutex_unlock(&ic->i_cm_mutex);
}

/* Accepted, and the peer has not spoken yet: wait for it (i_est_w). */
static bool rds_rdma_cm_hold(struct rds_rdma_conn *ic)
{
	lockdep_assert_held(&ic->i_cm_mutex);
	if (!test_bit(RDS_RDMA_HEAR_FIRST, &ic->i_flags))
		return false;
	ic->i_est_deadline = jiffies + msecs_to_jiffies(RDS_RDMA_HEAR_FIRST_MS);
	set_bit(RDS_RDMA_EST_HELD, &ic->i_flags);
	/* Whichever comes second, this or the frame, finishes it. Not
	 * mod_delayed_work(): a frame that came meanwhile queued the worker
	 * to run now, and must not be pushed back to the deadline.
	 */
	smp_mb__after_atomic();
	if (test_bit(RDS_RDMA_HEAR_FIRST, &ic->i_flags)) {
		queue_delayed_work(rds_rdma_wq, &ic->i_est_w,
				   msecs_to_jiffies(RDS_RDMA_HEAR_FIRST_MS));
		return true;
	}
	clear_bit(RDS_RDMA_EST_HELD, &ic->i_flags);
	return false;
}

/* A requester that must speak first does, with an ack. */
static void rds_rdma_cm_speak_first(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);

	lockdep_assert_held(&ic->i_cm_mutex);
	spin_lock_bh(&ic->i_rx_lock);
	set_bit(RDS_RDMA_ACK_WANTED, &ic->i_flags);
	rds_rdma_send_ack(conn);
	spin_unlock_bh(&ic->i_rx_lock);
}

/* Our request was accepted, or the one we accepted is up: what did the
 * peer answer?
 */
static void rds_rdma_cm_established(struct rds_connection *conn,
				    struct rdma_cm_event *ev)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	const struct rds_rdma_cdata_common *c;
	unsigned int pages;

	/* Up after all: a later reconnect need not wait for the peer. */
	clear_bit(RDS_RDMA_PEER_FIRST, &ic->i_flags);
	if (!ic->i_cm_active && rds_rdma_cm_hold(ic))
		return;
	if (!ic->i_version) {
		/* Active side: the reply's version is the connection's. */
		c = rds_rdma_cm_common(ev, conn->c_isv6);
		if (!c || ((c->major << 8) | c->minor) < 0x0301) {
			rds_conn_drop_reason(conn, RDS_DROP_PROTOCOL);
			return;
		}
		ic->i_version = (c->major << 8) | c->minor;
		if (!ic->i_frag_pages) {
			/* We offered more than 4 KiB: post for what we got. */
			pages = rds_rdma_frag_agree(ic->i_version,
						    ic->i_frag_offer * RDS_FRAG_SIZE,
						    be16_to_cpu(c->frag_sz));
			if (ic->i_rxq) {
				/* The SRQ's slots may have taken some. */
				if (!rds_rdma_srq_frag_agreed(ic, pages)) {
					rds_conn_drop_reason(conn, RDS_DROP_PROTOCOL);
					return;
				}
			} else {
				/* rds-info reads it without the mutex. */
				WRITE_ONCE(ic->i_frag_pages, pages);
				if (rds_rdma_recv_ring_pages(ic)) {
					rds_conn_drop_reason(conn, RDS_DROP_POST_RECV_FAIL);
					return;
				}
				rds_rdma_recv_fill(conn);
			}
		}
		rds_rdma_peer_acked(conn, get_unaligned_be64(&c->ack_seq));
		rds_rdma_route_peer_cdata(conn, c);
		if (rds_rdma_flavor_of(conn)->initiator_first)
			rds_rdma_cm_speak_first(conn);
	}
	rds_rdma_cm_up(conn);
}

/* Route found: create the queue pair and send the request. */
static int rds_rdma_cm_route_resolved(struct rds_connection *conn,
				      struct rdma_cm_id *id)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rdma_conn_param param;
	union rds_rdma_cdata cd;
	u16 version;
	int ret;

	/* Offering more than 4 KiB, we post receives once the reply says
	 * how big; else now.
	 */
	ic->i_frag_offer = rds_rdma_frag_offer(rds_rdma_flavor_of(conn),
					       id->device);
	ic->i_frag_pages = ic->i_frag_offer > 1 ? 0 : 1;
	ret = rds_rdma_qp_setup(conn, id);
	if (ret)
		return ret;
	ic->i_version = 0;
	version = ic->i_frag_offer > 1 ? RDS_RDMA_VERSION_4_1 :
					 RDS_PROTOCOL_VERSION;
	rds_rdma_cm_param(conn, &param, &cd, version, ic->i_frag_offer, true,
			  id->device->attrs.max_qp_rd_atom,
			  id->device->attrs.max_qp_init_rd_atom);
	/* Before the request leaves: its local mirror may see it at once. */
	WRITE_ONCE(ic->i_req_port, rds_rdma_cm_port(&id->route.addr.src_addr));
	ret = rdma_connect_locked(id, &param);
	rds_rdma_cm_save_gids(ic, id);
	return ret;
}

/* The drop reason of a CM event that ends a connection (or an
 * attempt: a failed step after ADDR_ or ROUTE_RESOLVED is the attempt's).
 */
static enum rds_drop_reason rds_rdma_cm_why(enum rdma_cm_event_type event)
{
	switch (event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		return RDS_DROP_CONNECT_FAIL;
	case RDMA_CM_EVENT_ADDR_ERROR:
		return RDS_DROP_CM_ADDR_ERROR;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return RDS_DROP_CM_ROUTE_ERROR;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		return RDS_DROP_CM_UNREACHABLE;
	case RDMA_CM_EVENT_REJECTED:
		return RDS_DROP_CM_REJECTED;
	case RDMA_CM_EVENT_DISCONNECTED:
		return RDS_DROP_CM_DISCONNECTED;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return RDS_DROP_CM_DEVICE_REMOVAL;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return RDS_DROP_CM_ADDR_CHANGE;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return RDS_DROP_CM_TIMEWAIT_EXIT;
	default:
		return RDS_DROP_UNSPEC;
	}
}

/* An event on a connection's CM id, under i_cm_mutex. */
static void rds_rdma_cm_event(struct rds_connection *conn,
			      struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	int ret = 0;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		rdma_set_service_type(id, conn->c_tos);
		ret = rdma_set_min_rnr_timer(id, IB_RNR_TIMER_000_32);
		if (!ret)
			ret = rdma_resolve_route(id, RDS_RDMA_RESOLVE_MS);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = rds_rdma_cm_route_resolved(conn, id);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		rds_rdma_cm_established(conn, ev);
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* The route is gone: the next attempt takes another. */
		rds_rdma_route_failed(conn);
		ret = -ENETDOWN;
		break;
	case RDMA_CM_EVENT_REJECTED:
		/* The peer answered: the route works, unless it said it
		 * will not take this one (then the next attempt goes
		 * elsewhere, not here again).
		 */
		if (READ_ONCE(rds_rdma_conn(conn)->i_route.alt) &&
		    rds_rdma_cm_rej_word(id, ev) == RDS_RDMA_REJ_ROUTE)
			rds_rdma_route_failed(conn);
		else
			rds_rdma_conn(conn)->i_route.answered = true;
		ret = -ECONNREFUSED;
		break;
	default:
		/* Rejected, unreachable, disconnected, the device or the
		 * address gone: start again (after the core's back-off).
		 */
		ret = -ECONNRESET;
		break;
	}
	if (ret)
		rds_conn_drop_reason(conn, rds_rdma_cm_why(ev->event));
}

/**
 * rds_rdma_cm_handler - every CM event of the engine's ids
 * @id: a listener's, a request's or a connection's id
 * @ev: the event
 *
 * Return: nonzero to have the CM destroy @id (a refused request).
 */
int rds_rdma_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rds_connection *conn = id->context;
	struct rds_rdma_conn *ic;

	trace_rds_rdma_cm_event(id, ev);
	rds_rdma_stat_inc(RDS_RDMA_STAT_EVT_HANDLER_CALL);
	if (!conn) {
		/* The listeners' ids, and requests before we took them. */
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			return rds_rdma_cm_accept(id, ev);
		/* The device's removal waits until its listeners are gone. */
		if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			rds_rdma_listen6_rescan();
		return 0;
	}
	ic = rds_rdma_conn(conn);
	mutex_lock(&ic->i_cm_mutex);
	/* An id shutdown took away, or an attempt that gave way to the
	 * peer's: what happens to it no longer matters.
	 */
	if (ic->i_cm_id == id)
		rds_rdma_cm_event(conn, id, ev);
	mutex_unlock(&ic->i_cm_mutex);
	return 0;
}

/**
 * rds_rdma_conn_connect - the transport's conn_connect op
 * @conn: the connection
 *
 * Starts address resolution; the CM handler goes on from there.
 *
 * Context: the core's workqueue, may sleep.
 */
int rds_rdma_conn_connect(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct sockaddr_storage src, dst;
	struct in6_addr laddr, faddr;
	struct rdma_cm_id *id;
	bool alt;
	int ret;

	/* We lost a race we could not yield: the peer connects next. */
	if (test_and_clear_bit(RDS_RDMA_PEER_FIRST, &ic->i_flags)) {
		queue_delayed_work(rds_rdma_wq, &ic->i_connect_w,
				   msecs_to_jiffies(RDS_RDMA_PEER_FIRST_MS));
		return 0;
	}
	id = rdma_create_id(rds_conn_net(conn), rds_rdma_cm_handler, conn,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	/* The connection's own addresses, or another route to the peer. */
	alt = rds_rdma_route_pick(conn, &laddr, &faddr);
	rds_rdma_sockaddr(&src, &laddr, 0, alt ? 0 : conn->c_dev_if);
	rds_rdma_sockaddr(&dst, &faddr, rds_rdma_port(conn),
			  alt ? 0 : conn->c_dev_if);

	mutex_lock(&ic->i_cm_mutex);
	/* A request from the peer was accepted since this attempt was
	 * scheduled: that connection is the one.
	 */
	if (ic->i_cm_id) {
		mutex_unlock(&ic->i_cm_mutex);
		rdma_destroy_id(id);
		return 0;
	}
	ic->i_cm_id = id;
	ic->i_cm_active = true;
	WRITE_ONCE(ic->i_route.alt, alt);
	ic->i_route.laddr = laddr;
	ic->i_route.faddr = faddr;
	WRITE_ONCE(ic->i_route.faddr_id, rds_rdma_keys_route_id(&faddr));
	ic->i_route.was_up = false;
	ic->i_route.answered = false;
	ret = rdma_resolve_addr(id, (struct sockaddr *)&src,
				(struct sockaddr *)&dst, RDS_RDMA_RESOLVE_MS);
	if (ret)
		ic->i_cm_id = NULL;
	mutex_unlock(&ic->i_cm_mutex);
	if (ret)
		rdma_destroy_id(id);
	return ret;
}
EXPORT_SYMBOL_GPL(rds_rdma_conn_connect);

/* The peer's request did not come after a race (RDS_RDMA_PEER_FIRST):
 * connect ourselves. rds_rdma_conn_connect() sees, under i_cm_mutex,
 * whether a request was taken meanwhile. This runs outside the core's
 * connect lock, but shutdown cancels it (synchronously) before it tears
 * anything down, and takes over any id it installed.
 */
void rds_rdma_connect_worker(struct work_struct *work)
{
	struct rds_rdma_conn *ic = container_of(to_delayed_work(work),
						struct rds_rdma_conn,
						i_connect_w);
	struct rds_connection *conn = rds_conn_from_tdata(ic);

	if (rds_conn_state(conn) != RDS_CONN_CONNECTING)
		return;
	if (rds_rdma_conn_connect(conn))
		rds_conn_drop_reason(conn, RDS_DROP_CONNECT_FAIL);
}
