// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues: where the peer retries a SEND that finds no
 * receive (IB's RNR retry), a device's queue pairs take their receives
 * from one queue per fragment size instead of a ring each, so receive
 * memory follows the device's traffic, not its connection count
 * (Documentation/transports.rst, "Receive memory").
 *
 * An SRQ keeps net.rds.ib.srq_min_wr slots posted and paces its goal,
 * up to srq_max_wr, as a connection paces its own ring
 * (rds_rdma_rx_pace()). A slot's fragment goes to the connection whose
 * queue pair took it (its receive CQ's context says which), and the
 * slot is posted again at once: a socket that does not read holds no
 * slot, as its messages hold pages, not slots. What one queue pair can
 * hold unhandled is bounded by its CQ (RDS_RDMA_SRQ_CQ): past that the
 * device fails it, and that connection alone starts again.
 *
 * Queue pairs leave without a drain of their receives: the core drains
 * only the send queue of a queue pair with an SRQ, and rxe and siw
 * (6.1) never report a last WQE reached. A slot a queue pair took and
 * never completed would stay "posted" for good, and enough of them would
 * starve the device. rxe and siw take slots in posting order, so each
 * slot carries its posting sequence: every slot posted before the
 * latest one completed has been taken, a queue pair only completes the
 * slots it took in that order, and a slot taken and below every live
 * queue pair's last completion was lost with one that left. Such slots
 * are freed (ib_srq_lost). A quiet queue pair (heartbeats are WRITEs:
 * no receive completes) would hold that proof back for good, so a slot
 * taken over RDS_RDMA_SRQ_AGE ago and not completed stops counting as
 * posted (ib_srq_abandoned): the queue posts another in its place. It
 * is not freed or reused, as a live queue pair might still hold it: a
 * SEND whose peer stalled longer than its transport retries allow
 * never completes, but a hostile peer may finish one late, into the
 * slot's pages. It is freed once the proof comes, or completes. A
 * device that completes out of posting order turns the search off
 * (ib_srq_unordered): there slots lost stay lost.
 *
 * Lock order: dev->srq_mutex (making one); i_rx_lock, then s_lock.
 */
#include <linux/slab.h>

#include "rds_rdma.h"
#include "rds_rdma_trace.h"

/* Slots the worker gives pages and posts in one go under the lock. */
#define RDS_RDMA_SRQ_GROW	32

/* How soon a failed refill is retried, and a failed post. */
#define RDS_RDMA_SRQ_RETRY	msecs_to_jiffies(10)
#define RDS_RDMA_SRQ_STUCK	HZ

/* How often lost slots are looked for while a queue pair's may be. */
#define RDS_RDMA_SRQ_LOOK	HZ

/* A SEND in progress this long has failed its peer's transport retries
 * (seconds: RDS_RDMA_RETRY_COUNT tries of the CM's ack timeout).
 */
#define RDS_RDMA_SRQ_AGE	(60 * HZ)

static struct ib_device *rds_rdma_srq_ibdev(struct rds_rdma_srq *srq)
{
	return srq->s_dev->ibdev;
}

/* Post free slots until the target are, new pages from @gfp. */
static void rds_rdma_srq_post_locked(struct rds_rdma_srq *srq, gfp_t gfp)
{
	struct ib_device *ibdev = rds_rdma_srq_ibdev(srq);

	lockdep_assert_held(&srq->s_lock);
	while (srq->s_posted < srq->s_goal.target && srq->s_nfree) {
		u32 i = srq->s_free[srq->s_nfree - 1];
		struct rds_rdma_srq_slot *s = &srq->s_slots[i];

		if (rds_rdma_recv_slot_ready(ibdev, &s->s_recv, srq->s_pages,
					     gfp)) {
			rds_rdma_stat_inc(RDS_RDMA_STAT_RX_ALLOC_LIMIT);
			queue_delayed_work(rds_rdma_wq, &srq->s_w,
					   RDS_RDMA_SRQ_RETRY);
			return;
		}
		s->s_seq = srq->s_next_seq;
		/* Only a device in error refuses: try again later. */
		if (ib_post_srq_recv(srq->s_ibsrq, &s->s_recv.r_wr, NULL)) {
			queue_delayed_work(rds_rdma_wq, &srq->s_w,
					   RDS_RDMA_SRQ_STUCK);
			return;
		}
		srq->s_next_seq++;
		s->s_state = RDS_RDMA_SLOT_POSTED;
		srq->s_nfree--;
		srq->s_posted++;
		rds_rdma_stat_inc(RDS_RDMA_STAT_SRQ_POSTED);
	}
}

/* A slot not on the device's queue goes back on the free stack. */
static void rds_rdma_srq_free_slot(struct rds_rdma_srq *srq,
				   struct rds_rdma_srq_slot *s, bool unpage)
{
	lockdep_assert_held(&srq->s_lock);
	if (unpage)
		rds_rdma_recv_unpage(rds_rdma_srq_ibdev(srq), &s->s_recv);
	srq->s_free[srq->s_nfree++] = s - srq->s_slots;
}

/* @s came back from the device through @q's queue pair. */
static void rds_rdma_srq_took(struct rds_rdma_srq *srq,
			      struct rds_rdma_rxq *q,
			      struct rds_rdma_srq_slot *s)
{
	lockdep_assert_held(&srq->s_lock);
	if (s->s_state == RDS_RDMA_SLOT_ABANDONED) {
		srq->s_abandoned--;
	} else {
		srq->s_posted--;
		rds_rdma_stat_dec(RDS_RDMA_STAT_SRQ_POSTED);
		if (!srq->s_posted)
			rds_rdma_stat_inc(RDS_RDMA_STAT_SRQ_EMPTY);
	}
	s->s_state = RDS_RDMA_SLOT_FREE;
	if (s->s_seq >= srq->s_done_seq)
		srq->s_done_seq = s->s_seq + 1;
	if (s->s_seq < q->q_low_seq && !srq->s_unordered) {
		srq->s_unordered = true;
		rds_rdma_stat_inc(RDS_RDMA_STAT_SRQ_UNORDERED);
	}
	q->q_low_seq = max(q->q_low_seq, s->s_seq + 1);
	rds_rdma_rx_pace(&srq->s_goal, &srq->s_w, RDS_RDMA_STAT_SRQ_SHRUNK);
}

static void rds_rdma_srq_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_rdma_srq_slot *s = container_of(wc->wr_cqe,
						   struct rds_rdma_srq_slot,
						   s_recv.r_cqe);
	struct rds_rdma_rxq *q = cq->cq_context;
	struct rds_rdma_conn *ic = q->q_ic;
	struct rds_connection *conn = rds_conn_from_tdata(ic);
	struct rds_rdma_srq *srq = s->s_srq;
	bool current_qp;

	trace_rds_rdma_recv_done(cq, wc, s - srq->s_slots);
	rds_rdma_stat_inc(RDS_RDMA_STAT_RX_CQ_EVENT);
	spin_lock(&ic->i_rx_lock);
	spin_lock(&srq->s_lock);
	rds_rdma_srq_took(srq, q, s);
	spin_unlock(&srq->s_lock);

	/* A queue pair on its way out (the connection has another by now)
	 * only gives the slot back; a dying one reports its error.
	 */
	current_qp = ic->i_rxq == q;
	if (current_qp && !rds_rdma_wc_failed(conn, wc, "receive from") &&
	    !test_bit(RDS_RDMA_RX_DYING, &ic->i_flags)) {
		rds_rdma_cm_heard(ic);
		rds_rdma_recv_taken(conn, &s->s_recv, wc->byte_len);
	}

	spin_lock(&srq->s_lock);
	rds_rdma_srq_free_slot(srq, s, srq->s_posted >= srq->s_goal.target);
	rds_rdma_stat_inc(RDS_RDMA_STAT_RX_REFILL_FROM_CQ);
	rds_rdma_srq_post_locked(srq, GFP_ATOMIC);
	spin_unlock(&srq->s_lock);
	if (current_qp)
		rds_rdma_send_ack(conn);
	spin_unlock(&ic->i_rx_lock);
}

/* Free the slots lost with queue pairs that left, and stop counting
 * those taken too long ago (see the top).
 */
static void rds_rdma_srq_find_lost(struct rds_rdma_srq *srq)
{
	u64 low = srq->s_done_seq;
	struct rds_rdma_rxq *q;
	u32 i;

	lockdep_assert_held(&srq->s_lock);
	if ((!srq->s_gone_seq && !srq->s_abandoned) || srq->s_unordered)
		return;
	if (time_after_eq(jiffies, srq->s_epoch_start + RDS_RDMA_SRQ_AGE)) {
		srq->s_aged_seq = srq->s_epoch_seq;
		srq->s_epoch_seq = srq->s_done_seq;
		srq->s_epoch_start = jiffies;
	}
	list_for_each_entry(q, &srq->s_users, q_node)
		low = min(low, q->q_low_seq);
	for (i = 0; i < srq->s_goal.max; i++) {
		struct rds_rdma_srq_slot *s = &srq->s_slots[i];

		if (s->s_state == RDS_RDMA_SLOT_FREE)
			continue;
		if (s->s_seq < low) {
			if (s->s_state == RDS_RDMA_SLOT_ABANDONED) {
				srq->s_abandoned--;
			} else {
				srq->s_posted--;
				rds_rdma_stat_dec(RDS_RDMA_STAT_SRQ_POSTED);
			}
			s->s_state = RDS_RDMA_SLOT_FREE;
			rds_rdma_stat_inc(RDS_RDMA_STAT_SRQ_LOST);
			rds_rdma_srq_free_slot(srq, s, true);
		} else if (s->s_state == RDS_RDMA_SLOT_POSTED &&
			   s->s_seq < srq->s_aged_seq) {
			s->s_state = RDS_RDMA_SLOT_ABANDONED;
			srq->s_abandoned++;
			srq->s_posted--;
			rds_rdma_stat_dec(RDS_RDMA_STAT_SRQ_POSTED);
			rds_rdma_stat_inc(RDS_RDMA_STAT_SRQ_ABANDONED);
		}
	}
	/* A quiet queue pair's last completion may be older than the
	 * loss: look again once it has moved on.
	 */
	if (low >= srq->s_gone_seq)
		srq->s_gone_seq = 0;
	if (srq->s_gone_seq || srq->s_abandoned)
		queue_delayed_work(rds_rdma_wq, &srq->s_w, RDS_RDMA_SRQ_LOOK);
}

/* Post towards the goal (pages that may not wait: the lock is held),
 * refill after a failed allocation, and free lost slots.
 */
static void rds_rdma_srq_worker(struct work_struct *work)
{
	struct rds_rdma_srq *srq = container_of(to_delayed_work(work),
						struct rds_rdma_srq, s_w);
	struct rds_rdma_rx_goal *g = &srq->s_goal;
	u32 before;

	spin_lock_bh(&srq->s_lock);
	rds_rdma_srq_find_lost(srq);
	before = srq->s_posted;
	rds_rdma_stat_inc(RDS_RDMA_STAT_RX_REFILL_FROM_THREAD);
	if (g->target < g->goal && srq->s_posted >= g->target)
		g->target = min_t(u32, g->target + RDS_RDMA_SRQ_GROW, g->goal);
	rds_rdma_srq_post_locked(srq, GFP_NOWAIT | __GFP_NOWARN);
	if (srq->s_posted > before)
		rds_rdma_stat_add(RDS_RDMA_STAT_SRQ_GROWN,
				  srq->s_posted - before);
	/* A page short (the retry is queued): the slots not posted leave
	 * the target, so the completion path does not give them their
	 * first pages from the atomic reserves.
	 */
	if (srq->s_posted < g->target)
		g->target = max(srq->s_posted, g->min);
	else if (g->target < g->goal)
		queue_delayed_work(rds_rdma_wq, &srq->s_w, 0);
	spin_unlock_bh(&srq->s_lock);
}

static void rds_rdma_srq_destroy(struct rds_rdma_srq *srq)
{
	struct ib_device *ibdev = rds_rdma_srq_ibdev(srq);
	u32 i;

	cancel_delayed_work_sync(&srq->s_w);
	if (srq->s_ibsrq)
		ib_destroy_srq(srq->s_ibsrq);
	if (srq->s_slots) {
		for (i = 0; i < srq->s_goal.max; i++) {
			if (srq->s_slots[i].s_state == RDS_RDMA_SLOT_POSTED)
				rds_rdma_stat_dec(RDS_RDMA_STAT_SRQ_POSTED);
			rds_rdma_recv_unpage(ibdev, &srq->s_slots[i].s_recv);
		}
	}
	if (srq->s_hdrs) {
		ib_dma_unmap_single(ibdev, srq->s_hdrs_dma,
				    srq->s_goal.max * sizeof(struct rds_header),
				    DMA_FROM_DEVICE);
		kvfree(srq->s_hdrs);
	}
	kvfree(srq->s_free);
	kvfree(srq->s_slots);
	kfree(srq);
}

/* A new SRQ for fragments of @pages pages, its first slots posted. */
static struct rds_rdma_srq *rds_rdma_srq_create(struct rds_rdma_dev *dev,
						unsigned int pages)
{
	struct ib_device *ibdev = dev->ibdev;
	struct ib_srq_init_attr attr = {};
	u32 lkey = dev->pd->local_dma_lkey;
	struct rds_rdma_srq *srq;
	u32 size, min, i;
	size_t hdrs;

	size = clamp_t(u32, READ_ONCE(rds_rdma_sysctl_srq_max_wr), 8,
		       ibdev->attrs.max_srq_wr - 1);
	min = clamp_t(u32, READ_ONCE(rds_rdma_sysctl_srq_min_wr), 8, size);
	hdrs = size * sizeof(struct rds_header);

	srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq)
		return NULL;
	srq->s_dev = dev;
	srq->s_pages = pages;
	spin_lock_init(&srq->s_lock);
	INIT_LIST_HEAD(&srq->s_users);
	INIT_DELAYED_WORK(&srq->s_w, rds_rdma_srq_worker);
	srq->s_next_seq = 1;
	srq->s_done_seq = 1;
	srq->s_epoch_seq = 1;
	srq->s_epoch_start = jiffies;
	rds_rdma_rx_goal_start(&srq->s_goal, min, size);
	srq->s_goal.max = 0;	/* what destroy walks, once there */

	srq->s_slots = kvcalloc(size, sizeof(*srq->s_slots), GFP_KERNEL);
	srq->s_free = kvcalloc(size, sizeof(*srq->s_free), GFP_KERNEL);
	srq->s_hdrs = kvzalloc(hdrs, GFP_KERNEL);
	if (!srq->s_slots || !srq->s_free || !srq->s_hdrs)
		goto err;
	srq->s_hdrs_dma = ib_dma_map_single(ibdev, srq->s_hdrs, hdrs,
					    DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, srq->s_hdrs_dma)) {
		kvfree(srq->s_hdrs);
		srq->s_hdrs = NULL;
		goto err;
	}
	srq->s_goal.max = size;
	for (i = 0; i < size; i++) {
		struct rds_rdma_srq_slot *s = &srq->s_slots[i];

		rds_rdma_recv_slot_init(&s->s_recv, &srq->s_hdrs[i],
					srq->s_hdrs_dma +
					i * sizeof(struct rds_header),
					lkey, rds_rdma_srq_recv_done);
		s->s_recv.r_wr.num_sge = 1 + pages;
		s->s_srq = srq;
		srq->s_free[i] = size - 1 - i;	/* slot 0 on top */
	}
	srq->s_nfree = size;
	/* The first slots' pages where we may sleep. */
	for (i = 0; i < min; i++) {
		struct rds_rdma_srq_slot *s = &srq->s_slots[i];

		if (rds_rdma_recv_slot_ready(ibdev, &s->s_recv, pages,
					     GFP_KERNEL))
			goto err;
	}

	attr.srq_context = srq;
	attr.srq_type = IB_SRQT_BASIC;
	attr.attr.max_wr = size;
	attr.attr.max_sge = 1 + pages;
	srq->s_ibsrq = ib_create_srq(dev->pd, &attr);
	if (IS_ERR(srq->s_ibsrq)) {
		srq->s_ibsrq = NULL;
		goto err;
	}
	spin_lock_bh(&srq->s_lock);
	rds_rdma_srq_post_locked(srq, GFP_ATOMIC);
	spin_unlock_bh(&srq->s_lock);
	rds_rdma_stat_inc(RDS_RDMA_STAT_SRQ_CREATED);
	return srq;
err:
	rds_rdma_srq_destroy(srq);
	return NULL;
}

/**
 * rds_rdma_srq_get - the SRQ a new queue pair on @dev should use
 * @dev: the device
 * @pages: pages a fragment may have (1, 2 or 4)
 *
 * Made on first use and kept until the device goes; none where
 * net.rds.ib.srq is off, the device has none, or one cannot be made
 * (the queue pair posts its own ring then).
 *
 * Context: process context.
 * Return: the SRQ, or NULL.
 */
struct rds_rdma_srq *rds_rdma_srq_get(struct rds_rdma_dev *dev,
				      unsigned int pages)
{
	const struct ib_device_attr *attrs = &dev->ibdev->attrs;
	unsigned int order = ilog2(pages);
	struct rds_rdma_srq *srq;

	if (!READ_ONCE(rds_rdma_sysctl_srq) || attrs->max_srq <= 0 ||
	    attrs->max_srq_wr < 16 || attrs->max_srq_sge < 1 + (int)pages ||
	    order >= RDS_RDMA_FRAG_ORDERS)
		return NULL;
	mutex_lock(&dev->srq_mutex);
	srq = dev->srq[order];
	if (!srq && !dev->dead) {
		srq = rds_rdma_srq_create(dev, pages);
		dev->srq[order] = srq;
	}
	mutex_unlock(&dev->srq_mutex);
	return srq;
}

/**
 * rds_rdma_srq_attach - a queue pair about to be made will use @srq
 * @ic: its connection
 * @srq: the SRQ
 *
 * Sets @ic's i_rxq: the context of the queue pair's receive CQ.
 *
 * Context: process context, i_cm_mutex held.
 * Return: 0 or -ENOMEM.
 */
int rds_rdma_srq_attach(struct rds_rdma_conn *ic, struct rds_rdma_srq *srq)
{
	struct rds_rdma_rxq *q = kzalloc(sizeof(*q), GFP_KERNEL);

	if (!q)
		return -ENOMEM;
	q->q_ic = ic;
	q->q_srq = srq;
	spin_lock_bh(&ic->i_rx_lock);
	spin_lock(&srq->s_lock);
	/* Every slot posted before this has been taken already. */
	q->q_low_seq = srq->s_done_seq;
	list_add_tail(&q->q_node, &srq->s_users);
	spin_unlock(&srq->s_lock);
	ic->i_rxq = q;
	spin_unlock_bh(&ic->i_rx_lock);
	return 0;
}

/**
 * rds_rdma_srq_detach - a queue pair left its SRQ
 * @q: its use of the SRQ; its receive CQ is freed, so nothing completes
 *	through it any more. Freed here.
 *
 * A slot it took and never completed is freed once no live queue pair
 * can hold it (rds_rdma_srq_find_lost()).
 */
void rds_rdma_srq_detach(struct rds_rdma_rxq *q)
{
	struct rds_rdma_srq *srq = q->q_srq;

	spin_lock_bh(&srq->s_lock);
	list_del(&q->q_node);
	srq->s_gone_seq = srq->s_next_seq;
	queue_delayed_work(rds_rdma_wq, &srq->s_w, 0);
	spin_unlock_bh(&srq->s_lock);
	kfree(q);
}

/**
 * rds_rdma_srq_frag_agreed - the reply says the fragment size
 * @ic: a connection on an SRQ, before its first fragment size was known
 * @pages: the agreed size, in pages
 *
 * Return: false if the peer already split a message otherwise.
 */
bool rds_rdma_srq_frag_agreed(struct rds_rdma_conn *ic, unsigned int pages)
{
	bool ok;

	spin_lock_bh(&ic->i_rx_lock);
	ok = !ic->i_rx_frag_seen ||
	     ic->i_rx_frag_seen == pages * RDS_FRAG_SIZE;
	/* rds-info reads it without the lock. */
	WRITE_ONCE(ic->i_frag_pages, pages);
	spin_unlock_bh(&ic->i_rx_lock);
	return ok;
}

/**
 * rds_rdma_srq_dev_remove - free a leaving device's SRQs
 * @dev: the device; no queue pair is left on it
 */
void rds_rdma_srq_dev_remove(struct rds_rdma_dev *dev)
{
	unsigned int i;

	mutex_lock(&dev->srq_mutex);
	for (i = 0; i < RDS_RDMA_FRAG_ORDERS; i++) {
		if (!dev->srq[i])
			continue;
		WARN_ON_ONCE(!list_empty(&dev->srq[i]->s_users));
		rds_rdma_srq_destroy(dev->srq[i]);
		dev->srq[i] = NULL;
	}
	mutex_unlock(&dev->srq_mutex);
}
