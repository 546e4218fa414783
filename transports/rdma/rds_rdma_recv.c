// SPDX-License-Identifier: GPL-2.0
/*
 * The receive side: receive slots, each a 48-byte header slot and one
 * page, so any RDS 3.1 sender's fragments fit (Linux's included).
 * Fragments are checked against their message's first header and their
 * pages handed to the message without a copy; the slot gets fresh pages.
 *
 * Every complete message goes to the core at once and is acked: the
 * core takes it (a receiver far over its budget drops it), so one socket
 * that does not read never holds the slots, or the connection, back.
 *
 * Receive memory follows the traffic where the peer retries a SEND that
 * finds no receive (IB's RNR retry, which we ask to be endless and
 * short): a connection keeps net.rds.ib.min_recv_wr slots posted (32,
 * 512 KiB with 16 KiB fragments) and doubles its goal, up to max_recv_wr
 * (1024), when the peer used half of the posted slots within
 * RDS_RDMA_RX_BUSY. The rate stands in for what cannot be seen here,
 * how far the device ran ahead of the completions: it grows more than
 * a burst needs, never less. A completion after quiet seconds halves
 * the goal once for each: slots past it are not posted again when they
 * complete, and give their pages back. Posting a whole ring per
 * connection pinned 16 MiB each, most of it on connections that carry a
 * ping a second. i_rx_w gives new slots their pages, RDS_RDMA_RX_GROW
 * at a time, where it may take its time. iWARP has no RNR retry: there
 * every slot is posted before the connection is, and stays posted.
 *
 * Slots are posted from a stack of free ones, the last freed first: a
 * small message is copied out and its slot goes back with its page.
 *
 * Where the device has shared receive queues, queue pairs whose peer
 * retries on RNR post none of their own: rds_rdma_srq.c keeps the
 * slots, paced the same way, and hands each completion here.
 */
#include <linux/highmem.h>
#include <linux/slab.h>

#include "rds_rdma.h"
#include "rds_rdma_trace.h"

/* How soon a failed refill is retried. */
#define RDS_RDMA_RX_RETRY	msecs_to_jiffies(10)

/* Slots the worker gives pages and posts in one go under the lock. */
#define RDS_RDMA_RX_GROW	32

/* Half the posted slots used within this: more are wanted. */
#define RDS_RDMA_RX_BUSY	msecs_to_jiffies(20)
/* Fewer than half used in each of these: half the slots will do. */
#define RDS_RDMA_RX_QUIET	HZ

/* Messages up to this size are copied out of the slot's page. */
#define RDS_RDMA_RX_COPY_MAX	1024

static struct ib_device *rds_rdma_ibdev(struct rds_rdma_conn *ic)
{
	return ic->i_dev->ibdev;
}

/* Give page @k of a slot a new mapped page (@gfp). */
static int rds_rdma_recv_page(struct ib_device *ibdev, struct rds_rdma_recv *r,
			      unsigned int k, gfp_t gfp)
{
	struct page *page = rds_rdma_page_get(gfp);
	u64 dma;

	if (!page)
		return -ENOMEM;
	dma = ib_dma_map_page(ibdev, page, 0, RDS_FRAG_SIZE, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, dma)) {
		rds_rdma_page_put(page);
		return -ENOMEM;
	}
	r->r_pages[k] = page;
	r->r_sge[1 + k].addr = dma;
	rds_rdma_stat_inc(RDS_RDMA_STAT_RX_PAGES_HELD);
	return 0;
}

/**
 * rds_rdma_recv_unpage - take the pages of a slot that is not posted back
 * @ibdev: the device its pages are mapped for
 * @r: the slot
 */
void rds_rdma_recv_unpage(struct ib_device *ibdev, struct rds_rdma_recv *r)
{
	unsigned int k;

	for (k = 0; k < RDS_RDMA_MAX_FRAG_PAGES; k++) {
		if (!r->r_pages[k])
			continue;
		ib_dma_unmap_page(ibdev, r->r_sge[1 + k].addr,
				  RDS_FRAG_SIZE, DMA_FROM_DEVICE);
		rds_rdma_page_put(r->r_pages[k]);
		r->r_pages[k] = NULL;
		rds_rdma_stat_dec(RDS_RDMA_STAT_RX_PAGES_HELD);
	}
}

/**
 * rds_rdma_recv_slot_ready - give a slot's pages back to the device
 * @ibdev: the device
 * @r: the slot
 * @pages: pages a fragment may have in it
 * @gfp: for the missing pages
 *
 * Missing pages are made; of the kept ones only the first was ever
 * synced for the CPU (a small message copied out of it), so only it is
 * synced back.
 *
 * Return: 0, or -ENOMEM with the slot as it was or fuller.
 */
int rds_rdma_recv_slot_ready(struct ib_device *ibdev, struct rds_rdma_recv *r,
			     unsigned int pages, gfp_t gfp)
{
	unsigned int k;

	for (k = 0; k < pages; k++) {
		if (!r->r_pages[k]) {
			if (rds_rdma_recv_page(ibdev, r, k, gfp))
				return -ENOMEM;
		} else if (!k) {
			ib_dma_sync_single_for_device(ibdev, r->r_sge[1].addr,
						      RDS_FRAG_SIZE,
						      DMA_FROM_DEVICE);
		}
	}
	ib_dma_sync_single_for_device(ibdev, r->r_sge[0].addr,
				      sizeof(struct rds_header),
				      DMA_FROM_DEVICE);
	return 0;
}

/**
 * rds_rdma_recv_slot_init - set up a slot's work request
 * @r: the slot, zeroed
 * @hdr: its header slot
 * @hdr_dma: @hdr's mapping
 * @lkey: the protection domain's local key
 * @done: its completion handler
 */
void rds_rdma_recv_slot_init(struct rds_rdma_recv *r, struct rds_header *hdr,
			     u64 hdr_dma, u32 lkey,
			     void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	unsigned int k;

	r->r_cqe.done = done;
	r->r_wr.wr_cqe = &r->r_cqe;
	r->r_wr.sg_list = r->r_sge;
	r->r_hdr = hdr;
	r->r_sge[0].addr = hdr_dma;
	r->r_sge[0].length = sizeof(struct rds_header);
	r->r_sge[0].lkey = lkey;
	for (k = 1; k <= RDS_RDMA_MAX_FRAG_PAGES; k++) {
		r->r_sge[k].length = RDS_FRAG_SIZE;
		r->r_sge[k].lkey = lkey;
	}
}

/* Post slots until the target are. Slots without a page get one
 * (@gfp), else the worker retries.
 */
static void rds_rdma_recv_post_locked(struct rds_connection *conn,
				      struct rds_rdma_conn *ic, gfp_t gfp)
{
	lockdep_assert_held(&ic->i_rx_lock);
	/* No fragment size yet: the reply to our request brings it. */
	if (test_bit(RDS_RDMA_RX_DYING, &ic->i_flags) || !ic->i_frag_pages)
		return;
	while (ic->i_recv_posted < ic->i_rx_goal.target && ic->i_recv_nfree) {
		u32 slot = ic->i_recv_free[ic->i_recv_nfree - 1];
		struct rds_rdma_recv *r = &ic->i_recvs[slot];
		u32 tail = ic->i_recv_head + ic->i_recv_posted;

		if (rds_rdma_recv_slot_ready(rds_rdma_ibdev(ic), r,
					     ic->i_frag_pages, gfp)) {
			rds_rdma_stat_inc(RDS_RDMA_STAT_RX_ALLOC_LIMIT);
			queue_delayed_work(rds_rdma_wq, &ic->i_rx_w,
					   RDS_RDMA_RX_RETRY);
			return;
		}
		if (ib_post_recv(ic->i_qp, &r->r_wr, NULL)) {
			rds_conn_drop_reason(conn, RDS_DROP_POST_RECV_FAIL);
			return;
		}
		ic->i_recv_nfree--;
		if (tail >= ic->i_recv_ring)
			tail -= ic->i_recv_ring;
		ic->i_recv_order[tail] = slot;
		ic->i_recv_posted++;
	}
}

/**
 * rds_rdma_recv_fill - post the first receives of a new queue pair
 * @conn: the connection; rds_rdma_recv_ring_pages() gave them pages
 *
 * Before the connection is accepted or requested where the fragment
 * size is known by then, so the peer's first SENDs find buffers; else
 * (our request offered bigger fragments) when the reply comes, and the
 * peer's first SENDs may RNR-retry, as they always do with Linux.
 */
void rds_rdma_recv_fill(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);

	spin_lock_bh(&ic->i_rx_lock);
	rds_rdma_recv_post_locked(conn, ic, GFP_ATOMIC);
	spin_unlock_bh(&ic->i_rx_lock);
}

/* The next batch of slots towards the goal: pages that may not wait
 * (the lock is held), and the worker runs again for the next.
 */
static void rds_rdma_recv_grow(struct rds_connection *conn,
			       struct rds_rdma_conn *ic)
{
	struct rds_rdma_rx_goal *g = &ic->i_rx_goal;
	u32 before = ic->i_recv_posted;

	lockdep_assert_held(&ic->i_rx_lock);
	if (g->target >= g->goal || ic->i_recv_posted < g->target)
		return;
	g->target = min_t(u32, g->target + RDS_RDMA_RX_GROW, g->goal);
	rds_rdma_recv_post_locked(conn, ic, GFP_NOWAIT | __GFP_NOWARN);
	rds_rdma_stat_add(RDS_RDMA_STAT_RX_RING_GROWN,
			  ic->i_recv_posted - before);
	/* A page short: post_locked queued the retry already. The slots
	 * not posted leave the target, so that the completion path does
	 * not give them their first pages from the atomic reserves.
	 */
	if (ic->i_recv_posted < g->target)
		g->target = ic->i_recv_posted;
	else if (g->target < g->goal)
		queue_delayed_work(rds_rdma_wq, &ic->i_rx_w, 0);
}

/**
 * rds_rdma_rx_goal_start - pace a new queue of slots
 * @g: its goal
 * @min: slots it keeps posted when quiet (and posts first)
 * @max: the most it may post
 */
void rds_rdma_rx_goal_start(struct rds_rdma_rx_goal *g, u32 min, u32 max)
{
	g->max = max;
	g->min = min;
	g->goal = min;
	g->target = min;
	g->window = 0;
	g->window_start = jiffies;
}

/**
 * rds_rdma_rx_pace - set the goal by how fast the peers use the slots
 * @g: the goal, under the slots' lock; a receive just completed
 * @grow: the worker that posts towards a goal that grew (queued now,
 *	not sooner than a pending retry after a failed allocation)
 * @shrunk: the counter of slots the target fell by
 *
 * Double the goal when half of the posted slots went within
 * RDS_RDMA_RX_BUSY (a peer would soon find none and back off), halve it
 * for each RDS_RDMA_RX_QUIET in which fewer than half went.
 */
void rds_rdma_rx_pace(struct rds_rdma_rx_goal *g, struct delayed_work *grow,
		      enum rds_rdma_stat shrunk)
{
	unsigned long took = jiffies - g->window_start;
	u32 half = max_t(u32, g->target / 2, 1);
	unsigned int quiet;

	if (g->min >= g->max)
		return;
	if (++g->window >= half) {
		if (took < RDS_RDMA_RX_BUSY && g->goal < g->max) {
			g->goal = min_t(u32, g->goal * 2, g->max);
			queue_delayed_work(rds_rdma_wq, grow, 0);
		}
	} else if (took < RDS_RDMA_RX_QUIET) {
		return;
	} else if (g->goal > g->min) {
		quiet = min_t(unsigned long, took / RDS_RDMA_RX_QUIET, 16);
		g->goal = max_t(u32, g->goal >> quiet, g->min);
		if (g->target > g->goal) {
			rds_rdma_stat_add(shrunk, g->target - g->goal);
			g->target = g->goal;
		}
	}
	g->window = 0;
	g->window_start = jiffies;
}

static void rds_rdma_inc_release(struct rds_rdma_incoming *inc)
{
	unsigned int i;

	for (i = 0; i < inc->ii_got; i++)
		rds_rdma_page_put(inc->ii_pages[i]);
	kfree(inc);
}

/* Will the core drop @hdr's message as one it has (rds_recv_incoming())? */
static bool rds_rdma_recv_dup(struct rds_connection *conn,
			      const struct rds_header *hdr)
{
	return (hdr->h_flags & RDS_FLAG_RETRANSMITTED) &&
	       be64_to_cpu(hdr->h_sequence) < READ_ONCE(conn->c_next_rx_seq);
}

/* A complete message to the core, and to be acked; i_rx_lock held. */
static void rds_rdma_recv_deliver(struct rds_connection *conn,
				  struct rds_rdma_conn *ic,
				  struct rds_rdma_incoming *inc)
{
	rds_recv_incoming(conn, &inc->ii_inc);
	if (inc->ii_inc.i_hdr.h_flags & RDS_FLAG_ACK_REQUIRED)
		set_bit(RDS_RDMA_ACK_WANTED, &ic->i_flags);
	else
		rds_rdma_ack_later(conn, ic);
	rds_inc_put(&inc->ii_inc);
}

/* Held messages a connection may have behind use-once kills, besides at
 * most its ring's count: several ms of an adapter's traffic, while a
 * LOCAL_INV takes microseconds (and at most RDS_RDMA_REG_TIMEOUT).
 */
#define RDS_RDMA_HOLD_MAX_BYTES	(8U << 20)

/* Queue @inc behind the held ones; i_rx_lock held. @mr, if not NULL, is
 * the use-once region it used, which dies before it is delivered.
 */
static void rds_rdma_recv_hold(struct rds_connection *conn,
			       struct rds_rdma_conn *ic,
			       struct rds_rdma_incoming *inc, struct rds_mr *mr)
{
	u32 len = be32_to_cpu(inc->ii_inc.i_hdr.h_len);

	if (mr)
		rds_rdma_stat_inc(RDS_RDMA_STAT_RX_HELD_USE_ONCE);
	if (ic->i_rx_held_count >= ic->i_recv_ring ||
	    ic->i_rx_held_bytes + len > RDS_RDMA_HOLD_MAX_BYTES) {
		/* The device is stuck on a kill: deliver nothing more on
		 * this connection (a gap would lose a message for good).
		 * What is held is dropped unacked and comes again after the
		 * reconnect; regions still die first.
		 */
		if (!test_and_set_bit(RDS_RDMA_RX_DYING, &ic->i_flags)) {
			rds_rdma_stat_inc(RDS_RDMA_STAT_RX_HOLD_OVERFLOW);
			net_warn_ratelimited("rds: %s: %u messages from %pI6c held behind a use-once region, dropping the connection\n",
					     conn->c_trans->name,
					     ic->i_rx_held_count, &conn->c_faddr);
			/* A bound on what one region may hold back. */
			rds_conn_drop_reason(conn, RDS_DROP_MEMORY);
		}
	}
	inc->ii_mr = mr;
	list_add_tail(&inc->ii_held, &ic->i_rx_held);
	ic->i_rx_held_count++;
	ic->i_rx_held_bytes += len;
	if (!test_and_set_bit(RDS_RDMA_RX_HOLDING, &ic->i_flags))
		queue_work(rds_rdma_wq, &ic->i_rx_hold_w);
}

/*
 * A complete message. One that used a use-once region of ours waits for
 * the region to be invalidated (rds_rdma_recv_hold_worker()), and every
 * later one waits behind it, in order: once the receiver can see the
 * message, no peer can reach the region (rdma.rst). The others go to
 * the core at once.
 */
static void rds_rdma_recv_complete(struct rds_connection *conn,
				   struct rds_rdma_conn *ic,
				   struct rds_rdma_incoming *inc)
{
	struct rds_mr *mr;

	rds_inc_init(&inc->ii_inc, conn, &conn->c_faddr, &conn->c_laddr);
	/* A copy of a message delivered before (the core drops it) names
	 * no key and used no region of ours afresh: a use-once region
	 * registered since with the same key must not die for it.
	 */
	if (rds_rdma_recv_dup(conn, &inc->ii_inc.i_hdr)) {
		mr = NULL;
	} else {
		rds_rdma_keys_recv(ic, &inc->ii_inc.i_hdr);
		mr = rds_rdma_recv_claim(conn, &inc->ii_inc.i_hdr,
					 &conn->c_laddr);
	}
	if (mr || test_bit(RDS_RDMA_RX_HOLDING, &ic->i_flags)) {
		rds_rdma_recv_hold(conn, ic, inc, mr);
		return;
	}
	rds_rdma_recv_deliver(conn, ic, inc);
}

/**
 * rds_rdma_recv_hold_worker - deliver the held messages
 * @work: the connection's i_rx_hold_w
 *
 * In order: each use-once region a message used is killed (the device
 * invalidates it; a bounded wait) before that message and those behind
 * it go to the core. Holding i_rx_lock while delivering keeps the
 * completion handler's deliveries out, which are held meanwhile anyway.
 * Shutdown (RDS_RDMA_RX_DYING) waits for this and has it drop, unacked,
 * what is not delivered: the regions still die.
 *
 * Context: process context.
 */
void rds_rdma_recv_hold_worker(struct work_struct *work)
{
	struct rds_rdma_conn *ic = container_of(work, struct rds_rdma_conn,
						i_rx_hold_w);
	struct rds_connection *conn = rds_conn_from_tdata(ic);
	struct rds_rdma_incoming *inc;
	struct rds_mr *mr;

	spin_lock_bh(&ic->i_rx_lock);
	while ((inc = list_first_entry_or_null(&ic->i_rx_held,
					       struct rds_rdma_incoming,
					       ii_held))) {
		mr = inc->ii_mr;
		if (mr) {
			/* @inc stays first: the handler only appends. */
			inc->ii_mr = NULL;
			spin_unlock_bh(&ic->i_rx_lock);
			rds_rdma_recv_kill(mr);
			spin_lock_bh(&ic->i_rx_lock);
		}
		list_del(&inc->ii_held);
		ic->i_rx_held_count--;
		ic->i_rx_held_bytes -= be32_to_cpu(inc->ii_inc.i_hdr.h_len);
		if (test_bit(RDS_RDMA_RX_DYING, &ic->i_flags))
			rds_inc_put(&inc->ii_inc);
		else
			rds_rdma_recv_deliver(conn, ic, inc);
	}
	clear_bit(RDS_RDMA_RX_HOLDING, &ic->i_flags);
	rds_rdma_send_ack(conn);
	spin_unlock_bh(&ic->i_rx_lock);
}

/* A fragment that does not belong where it claims: the stream is lost. */
static void rds_rdma_recv_bad(struct rds_connection *conn, const char *why)
{
	rds_rdma_stat_inc(RDS_RDMA_STAT_RX_BAD_FRAGMENT);
	net_warn_ratelimited("rds: %s: %s from %pI6c, dropping the connection\n",
			     conn->c_trans->name, why, &conn->c_faddr);
	rds_conn_drop_reason(conn, RDS_DROP_PROTOCOL);
}

/*
 * Is @data_len the size of the next fragment, with @left bytes of the
 * message to come? The agreed size, or before the reply says it (an
 * SRQ's slots take the peer's SENDs at once), the one the peer's first
 * split message used, which the reply must then agree with
 * (rds_rdma_srq_frag_agreed()). i_rx_lock held.
 */
static bool rds_rdma_recv_frag_fits(struct rds_rdma_conn *ic, u32 data_len,
				    u32 left)
{
	u32 frag = READ_ONCE(ic->i_frag_pages) * RDS_FRAG_SIZE;

	if (frag)
		return data_len == min(left, frag);
	if (data_len > left || data_len > ic->i_frag_offer * RDS_FRAG_SIZE)
		return false;
	if (data_len == left)
		return true;
	if (!ic->i_rx_frag_seen) {
		if (data_len % RDS_FRAG_SIZE ||
		    !is_power_of_2(data_len / RDS_FRAG_SIZE))
			return false;
		ic->i_rx_frag_seen = data_len;
	}
	return data_len == ic->i_rx_frag_seen;
}

/**
 * rds_rdma_recv_taken - take in the fragment that landed in a slot
 * @conn: the connection whose queue pair took it
 * @r: the slot; its pages that hold data move to the message
 * @len: bytes in all, header included
 *
 * Context: i_rx_lock held, the connection not dying.
 */
void rds_rdma_recv_taken(struct rds_connection *conn, struct rds_rdma_recv *r,
			 u32 len)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_incoming *inc = ic->i_rx_inc;
	u32 data_len, msg_len, copy;
	struct rds_header hdr;
	unsigned int npages, k;
	int err;

	if (len < sizeof(hdr)) {
		rds_rdma_recv_bad(conn, "short frame");
		return;
	}
	data_len = len - sizeof(hdr);
	ib_dma_sync_single_for_cpu(rds_rdma_ibdev(ic), r->r_sge[0].addr,
				   sizeof(hdr), DMA_FROM_DEVICE);
	memcpy(&hdr, r->r_hdr, sizeof(hdr));
	if (!rds_hdr_csum_ok(&hdr)) {
		rds_recv_bad_header(conn, -EBADMSG);
		return;
	}
	rds_rdma_peer_acked(conn, be64_to_cpu(hdr.h_ack));

	/* Ports 0/0 and nothing else: an ack (or a heartbeat we ignore).
	 * It may come between two fragments of a message: explicit acks
	 * are posted from the receive path, whenever one is due.
	 */
	if (!hdr.h_sport && !hdr.h_dport && !data_len) {
		rds_rdma_stat_inc(RDS_RDMA_STAT_ACK_RECEIVED);
		return;
	}
	/* Ports 0/0 with a body: a route advert from one of ours. */
	if (rds_rdma_route_recv(conn, ic, &hdr, r->r_pages[0],
				r->r_sge[1].addr, data_len))
		return;

	if (!inc) {
		err = rds_hdr_check(&hdr);
		if (err) {
			rds_recv_bad_header(conn, err);
			return;
		}
		msg_len = be32_to_cpu(hdr.h_len);
		/* A small message is copied out and the page stays in the
		 * ring: no page to allocate, map and free per message.
		 */
		copy = msg_len <= RDS_RDMA_RX_COPY_MAX ? msg_len : 0;
		npages = copy ? 0 : DIV_ROUND_UP(msg_len, RDS_FRAG_SIZE);
		inc = kzalloc(struct_size(inc, ii_pages, npages) + copy,
			      GFP_ATOMIC);
		if (!inc) {
			/* Unacked: it comes again after the reconnect. */
			rds_rdma_stat_inc(RDS_RDMA_STAT_RX_ALLOC_LIMIT);
			rds_conn_drop_reason(conn, RDS_DROP_MEMORY);
			return;
		}
		if (copy)
			inc->ii_copy = (u8 *)&inc->ii_pages[0];
		inc->ii_inc.i_hdr = hdr;
		ic->i_rx_hdr = hdr;
		ic->i_rx_inc = inc;
	} else if (hdr.h_sequence != ic->i_rx_hdr.h_sequence ||
		   hdr.h_len != ic->i_rx_hdr.h_len ||
		   hdr.h_sport != ic->i_rx_hdr.h_sport ||
		   hdr.h_dport != ic->i_rx_hdr.h_dport) {
		rds_rdma_recv_bad(conn, "fragment of another message");
		return;
	}

	msg_len = be32_to_cpu(ic->i_rx_hdr.h_len);
	if (!rds_rdma_recv_frag_fits(ic, data_len, msg_len - inc->ii_bytes)) {
		rds_rdma_recv_bad(conn, "fragment of the wrong size");
		return;
	}
	if (data_len && inc->ii_copy) {
		ib_dma_sync_single_for_cpu(rds_rdma_ibdev(ic), r->r_sge[1].addr,
					   data_len, DMA_FROM_DEVICE);
		memcpy(inc->ii_copy, page_address(r->r_pages[0]), data_len);
	} else {
		/* The pages move to the message; the slot gets new ones. */
		for (k = 0; k * RDS_FRAG_SIZE < data_len; k++) {
			ib_dma_unmap_page(rds_rdma_ibdev(ic), r->r_sge[1 + k].addr,
					  RDS_FRAG_SIZE, DMA_FROM_DEVICE);
			inc->ii_pages[inc->ii_got++] = r->r_pages[k];
			r->r_pages[k] = NULL;
			rds_rdma_stat_dec(RDS_RDMA_STAT_RX_PAGES_HELD);
		}
	}
	inc->ii_bytes += data_len;
	if (inc->ii_bytes < msg_len)
		return;
	ic->i_rx_inc = NULL;
	rds_rdma_recv_complete(conn, ic, inc);
}

static void rds_rdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_rdma_recv *r = container_of(wc->wr_cqe, struct rds_rdma_recv,
					       r_cqe);
	struct rds_rdma_conn *ic = cq->cq_context;
	struct rds_connection *conn = rds_conn_from_tdata(ic);
	u32 slot = r - ic->i_recvs;
	bool empty;

	trace_rds_rdma_recv_done(cq, wc, slot);
	rds_rdma_stat_inc(RDS_RDMA_STAT_RX_CQ_EVENT);
	spin_lock(&ic->i_rx_lock);
	/* Receives complete in order, but a device may flush a receive
	 * posted after its queue pair went to error at once, ahead of the
	 * older ones (siw 6.1 flushes those only when the stream closes).
	 * The queue pair is going away then: leave the slots as they are
	 * (the slot stays off the free stack, so it is not posted twice)
	 * and let shutdown release them. A success out of order is the
	 * device's fault: the connection starts again.
	 */
	if (unlikely(!ic->i_recv_posted ||
		     ic->i_recv_order[ic->i_recv_head] != slot)) {
		if (!rds_rdma_wc_failed(conn, wc, "receive from")) {
			net_warn_ratelimited("rds: %s: receive from %pI6c completed out of order\n",
					     conn->c_trans->name, &conn->c_faddr);
			rds_conn_drop_reason(conn, RDS_DROP_RECV_COMP_ERR);
		}
		spin_unlock(&ic->i_rx_lock);
		return;
	}
	if (++ic->i_recv_head == ic->i_recv_ring)
		ic->i_recv_head = 0;
	ic->i_recv_posted--;
	ic->i_recv_free[ic->i_recv_nfree++] = slot;

	if (rds_rdma_wc_failed(conn, wc, "receive from")) {
		spin_unlock(&ic->i_rx_lock);
		return;
	}
	rds_rdma_cm_heard(ic);
	/* Dying: the worker was cancelled for good, and must stay so. */
	if (!test_bit(RDS_RDMA_RX_DYING, &ic->i_flags)) {
		rds_rdma_recv_taken(conn, r, wc->byte_len);
		/* Not while dying: the worker stays cancelled. */
		rds_rdma_rx_pace(&ic->i_rx_goal, &ic->i_rx_w,
				 RDS_RDMA_STAT_RX_RING_SHRUNK);
	}
	empty = !ic->i_recv_posted;
	if (empty) {
		rds_rdma_stat_inc(RDS_RDMA_STAT_RX_RING_EMPTY);
		trace_rds_rdma_rx_rnr_enter(conn, 0);
	}
	/* Past the target (it fell): the slot stays free, without pages. */
	if (ic->i_recv_posted >= ic->i_rx_goal.target)
		rds_rdma_recv_unpage(rds_rdma_ibdev(ic), r);
	rds_rdma_stat_inc(RDS_RDMA_STAT_RX_REFILL_FROM_CQ);
	rds_rdma_recv_post_locked(conn, ic, GFP_ATOMIC);
	if (empty && ic->i_recv_posted)
		trace_rds_rdma_rx_rnr_exit(conn, ic->i_recv_posted);
	rds_rdma_send_ack(conn);
	spin_unlock(&ic->i_rx_lock);
}

/**
 * rds_rdma_recv_worker - post slots up to the goal, and refill after an
 * allocation failed
 * @work: the connection's i_rx_w
 *
 * Context: process context.
 */
void rds_rdma_recv_worker(struct work_struct *work)
{
	struct rds_rdma_conn *ic = container_of(to_delayed_work(work),
						struct rds_rdma_conn, i_rx_w);
	struct rds_connection *conn = rds_conn_from_tdata(ic);
	bool empty;

	spin_lock_bh(&ic->i_rx_lock);
	if (test_bit(RDS_RDMA_RX_DYING, &ic->i_flags) || !ic->i_recvs)
		goto out;
	empty = !ic->i_recv_posted;
	rds_rdma_stat_inc(RDS_RDMA_STAT_RX_REFILL_FROM_THREAD);
	rds_rdma_recv_post_locked(conn, ic, GFP_ATOMIC);
	rds_rdma_recv_grow(conn, ic);
	if (empty && ic->i_recv_posted)
		trace_rds_rdma_rx_rnr_exit(conn, ic->i_recv_posted);
	rds_rdma_send_ack(conn);
out:
	spin_unlock_bh(&ic->i_rx_lock);
}

int rds_rdma_inc_copy_to_user(struct rds_incoming *inc, struct iov_iter *to)
{
	struct rds_rdma_incoming *ii = container_of(inc, struct rds_rdma_incoming,
						    ii_inc);
	u32 left = be32_to_cpu(inc->i_hdr.h_len);
	unsigned int i;
	size_t copied = 0;

	if (ii->ii_copy) {
		size_t n = min_t(size_t, left, iov_iter_count(to));

		copied = n ? copy_to_iter(ii->ii_copy, n, to) : 0;
		return copied == n || copied ? copied : -EFAULT;
	}
	for (i = 0; i < ii->ii_got && left && iov_iter_count(to); i++) {
		size_t n = min_t(size_t, left, RDS_FRAG_SIZE);
		size_t got = copy_page_to_iter(ii->ii_pages[i], 0, n, to);

		copied += got;
		if (got != n)
			return copied ? copied : -EFAULT;
		left -= n;
	}
	return copied;
}
EXPORT_SYMBOL_GPL(rds_rdma_inc_copy_to_user);

void rds_rdma_inc_free(struct rds_incoming *inc)
{
	rds_rdma_inc_release(container_of(inc, struct rds_rdma_incoming,
					  ii_inc));
}
EXPORT_SYMBOL_GPL(rds_rdma_inc_free);

/**
 * rds_rdma_recv_ring_init - allocate the receive slots of a new queue pair
 * @ic: the connection; i_dev and i_recv_ring are set
 *
 * The slots get their pages from rds_rdma_recv_ring_pages(), once the
 * fragment size is known.
 */
int rds_rdma_recv_ring_init(struct rds_rdma_conn *ic)
{
	struct ib_device *ibdev = rds_rdma_ibdev(ic);
	u32 lkey = ic->i_dev->pd->local_dma_lkey;
	size_t hdrs = ic->i_recv_ring * sizeof(struct rds_header);
	u32 i;

	ic->i_recvs = kvcalloc(ic->i_recv_ring, sizeof(*ic->i_recvs),
			       GFP_KERNEL);
	/* The posting order and the free stack, in one allocation. */
	ic->i_recv_order = kvcalloc(2 * ic->i_recv_ring,
				    sizeof(*ic->i_recv_order), GFP_KERNEL);
	if (!ic->i_recvs || !ic->i_recv_order)
		goto err;
	ic->i_recv_free = ic->i_recv_order + ic->i_recv_ring;
	ic->i_recv_hdrs = kzalloc(hdrs, GFP_KERNEL);
	if (!ic->i_recv_hdrs)
		goto err;
	ic->i_recv_hdrs_dma = ib_dma_map_single(ibdev, ic->i_recv_hdrs, hdrs,
						DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, ic->i_recv_hdrs_dma)) {
		kfree(ic->i_recv_hdrs);
		ic->i_recv_hdrs = NULL;
		goto err;
	}
	for (i = 0; i < ic->i_recv_ring; i++) {
		rds_rdma_recv_slot_init(&ic->i_recvs[i], &ic->i_recv_hdrs[i],
					ic->i_recv_hdrs_dma +
					i * sizeof(struct rds_header),
					lkey, rds_rdma_recv_done);
		/* Slot 0 on top. */
		ic->i_recv_free[i] = ic->i_recv_ring - 1 - i;
	}
	ic->i_recv_nfree = ic->i_recv_ring;
	ic->i_recv_head = 0;
	ic->i_recv_posted = 0;
	memset(&ic->i_rx_goal, 0, sizeof(ic->i_rx_goal));
	return 0;
err:
	kvfree(ic->i_recv_order);
	ic->i_recv_order = NULL;
	ic->i_recv_free = NULL;
	kvfree(ic->i_recvs);
	ic->i_recvs = NULL;
	return -ENOMEM;
}

/**
 * rds_rdma_recv_ring_pages - give the first slots their pages
 * @ic: the connection; i_frag_pages is set, nothing is posted yet
 *
 * Here, where we may sleep, rather than one by one in the completion
 * path: every slot where the peer does not retry on RNR (iWARP), else
 * net.rds.ib.min_recv_wr of them (the worker gives more theirs as the
 * traffic asks). On failure the pages stay for
 * rds_rdma_recv_ring_free().
 *
 * Context: process context.
 */
int rds_rdma_recv_ring_pages(struct rds_rdma_conn *ic)
{
	const struct rds_rdma_flavor *fl =
		rds_rdma_flavor_of(rds_conn_from_tdata(ic));
	u32 i, first;

	lockdep_assert_held(&ic->i_cm_mutex);

	first = ic->i_recv_ring;
	if (fl->rnr_retry)
		first = min_t(u32, READ_ONCE(rds_rdma_sysctl_min_recv_wr),
			      ic->i_recv_ring);
	for (i = 0; i < ic->i_recv_ring; i++)
		ic->i_recvs[i].r_wr.num_sge = 1 + ic->i_frag_pages;
	/* The top of the free stack: the slots posted first. */
	for (i = 0; i < first; i++) {
		u32 slot = ic->i_recv_free[ic->i_recv_nfree - 1 - i];

		if (rds_rdma_recv_slot_ready(rds_rdma_ibdev(ic),
					     &ic->i_recvs[slot],
					     ic->i_frag_pages,
					     GFP_KERNEL | __GFP_ACCOUNT))
			return -ENOMEM;
	}
	rds_rdma_rx_goal_start(&ic->i_rx_goal, first, ic->i_recv_ring);
	return 0;
}

/**
 * rds_rdma_recv_ring_free - release the receive side after the drain
 * @ic: the connection; nothing is posted any more
 *
 * A message half received was never acked: the peer sends it again
 * after the reconnect.
 */
void rds_rdma_recv_ring_free(struct rds_rdma_conn *ic)
{
	u32 i;

	if (ic->i_rx_inc) {
		rds_rdma_inc_release(ic->i_rx_inc);
		ic->i_rx_inc = NULL;
	}
	if (!ic->i_recvs)
		return;
	for (i = 0; i < ic->i_recv_ring; i++)
		rds_rdma_recv_unpage(rds_rdma_ibdev(ic), &ic->i_recvs[i]);
	if (ic->i_recv_hdrs) {
		ib_dma_unmap_single(rds_rdma_ibdev(ic), ic->i_recv_hdrs_dma,
				    ic->i_recv_ring * sizeof(struct rds_header),
				    DMA_FROM_DEVICE);
		kfree(ic->i_recv_hdrs);
		ic->i_recv_hdrs = NULL;
	}
	kvfree(ic->i_recv_order);
	ic->i_recv_order = NULL;
	ic->i_recv_free = NULL;
	kvfree(ic->i_recvs);
	ic->i_recvs = NULL;
	ic->i_recv_nfree = 0;
	ic->i_recv_posted = 0;
	memset(&ic->i_rx_goal, 0, sizeof(ic->i_rx_goal));
}
