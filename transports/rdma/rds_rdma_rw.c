// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA operations a message carries (RDS_CMSG_RDMA_ARGS, the atomics),
 * posted on the connection's queue pair ahead of the message's SENDs, so
 * the peer sees the message only after the operation (RC ordering).
 *
 * READ and WRITE go through the generic rdma_rw API, which maps the
 * local pages and knows each device's rules (an iWARP READ's sink is
 * registered with remote-write access). Atomics are one work request on
 * the local 8-byte word; the masked forms need the device's masked
 * atomics (the sendmsg check refuses them otherwise).
 *
 * An iWARP WRITE completes when the local device has sent it, before the
 * peer checked its key: a one-byte READ of the first byte written
 * follows it, and its completion (the peer answers only after placing
 * the WRITE, or terminates the stream if it refused it) is the
 * operation's. Not a zero-length READ: siw 6.1 answers those with a
 * stale length when its transmit side is idle, a protocol error.
 *
 * A completion only records the outcome: the pages are released from a
 * work item (unpinning may sleep) on rds_rdma_rw_wq, whose high
 * priority keeps the sender's notification from waiting behind busy
 * tasks. Shutdown waits for those. An operation may never see its
 * completion: its post failed part-way, or the device lost it (siw,
 * after the peer terminated the stream, does not flush READs waiting
 * for their answer). Once the queue pair is drained nothing more can
 * complete, so shutdown releases what is left itself, before the queue
 * pair goes, and frees those structures only after the completion
 * queues (a late completion finds them claimed).
 *
 * Lock order: i_rdma_lock is a leaf (the live list).
 */
#include <linux/slab.h>
#include <rdma/rw.h>
#include <net/rds/rdma.h>

#include "rds_rdma.h"
#include "rds_rdma_trace.h"

/**
 * struct rds_rdma_ctx - one RDMA operation in flight
 * @x_cqe: completion of its last work request
 * @x_rw: the READ or WRITE (rdma_rw)
 * @x_atomic: the atomic's work request
 * @x_sge: the atomic's local word, or the placement READ's sink
 * @x_placed: the one-byte READ behind an iWARP WRITE
 * @x_item: on i_rdma_live until released, then on shutdown's list if
 *	shutdown released it
 * @x_claimed: bit 0 set by whichever came first, the completion or
 *	shutdown
 * @x_conn: the connection (whose inflight count this is in)
 * @x_rm: the message (a reference)
 * @x_dir: DMA direction of the local pages
 * @x_nwr: work requests it posted (taken from i_rdma_wr_avail)
 * @x_status: RDS_RDMA_* outcome
 * @x_work: releases everything from process context
 */
struct rds_rdma_ctx {
	struct ib_cqe		x_cqe;
	struct rdma_rw_ctx	x_rw;
	struct ib_atomic_wr	x_atomic;
	struct ib_sge		x_sge;
	struct ib_rdma_wr	x_placed;
	struct list_head	x_item;
	unsigned long		x_claimed;
	struct rds_connection	*x_conn;
	struct rds_message	*x_rm;
	enum dma_data_direction	x_dir;
	int			x_nwr;
	int			x_status;
	struct work_struct	x_work;
};

static int rds_rdma_wc_status(const struct ib_wc *wc)
{
	switch (wc->status) {
	case IB_WC_SUCCESS:
		return RDS_RDMA_SUCCESS;
	case IB_WC_REM_ACCESS_ERR:
	case IB_WC_REM_INV_REQ_ERR:
	case IB_WC_REM_OP_ERR:
		return RDS_RDMA_REMOTE_ERROR;
	case IB_WC_WR_FLUSH_ERR:
		return RDS_RDMA_DROPPED;
	default:
		return RDS_RDMA_OTHER_ERROR;
	}
}

/*
 * Did @x take its connection down? Over IB the peer's refusal says so;
 * where each message waits for its RDMA (send_after_rdma: iWARP) @x was
 * the only operation in flight, and the peer's TERMINATE reports no
 * status of its own: any failure is @x's.
 */
static bool rds_rdma_ctx_culprit(const struct rds_rdma_ctx *x)
{
	if (x->x_status == RDS_RDMA_SUCCESS)
		return false;
	return x->x_status == RDS_RDMA_REMOTE_ERROR ||
	       rds_rdma_flavor_of(x->x_conn)->send_after_rdma;
}

/* Give everything of @x back; the caller frees @x itself. */
static void rds_rdma_ctx_finish(struct rds_rdma_ctx *x)
{
	struct rds_connection *conn = x->x_conn;
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_op *op = x->x_rm->m_rdma;

	if (op->op_type == RDS_OP_RDMA)
		rdma_rw_ctx_destroy(&x->x_rw, ic->i_qp, ic->i_cm_port,
				    op->op_sg, op->op_nents, x->x_dir);
	else
		ib_dma_unmap_page(ic->i_dev->ibdev, x->x_sge.addr,
				  sizeof(u64), DMA_FROM_DEVICE);
	/* Before the sender hears of it: what it sends once it knows is
	 * not dropped with the rest.
	 */
	if (rds_rdma_ctx_culprit(x))
		rds_send_drop_rdma_of(conn, x->x_rm);
	rds_rdma_send_complete(x->x_rm, x->x_status);
	/* An ack that came first left the message (and those after it)
	 * for now: rds_send_seq_acked().
	 */
	rds_rdma_reapply_ack(conn);
	rds_message_put(x->x_rm);
	atomic_add(x->x_nwr, &ic->i_rdma_wr_avail);
	spin_lock_bh(&ic->i_rdma_lock);
	list_del_init(&x->x_item);
	spin_unlock_bh(&ic->i_rdma_lock);

	if (atomic_dec_and_test(&ic->i_rdma_ctxs))
		wake_up(&ic->i_rdma_wait);
	/* Pairs with the barrier in rds_rdma_rw_room(). */
	smp_mb__after_atomic();
	if (test_bit(RDS_RDMA_RDMA_STALLED, &ic->i_flags) &&
	    test_and_clear_bit(RDS_RDMA_RDMA_STALLED, &ic->i_flags)) {
		trace_rds_rdma_tx_resume(conn, RDS_RDMA_STALL_RDMA);
		rds_send_kick(conn);
	}
}

static void rds_rdma_ctx_release(struct work_struct *work)
{
	struct rds_rdma_ctx *x = container_of(work, struct rds_rdma_ctx,
					      x_work);

	rds_rdma_ctx_finish(x);
	kfree(x);
}

static void rds_rdma_ctx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_rdma_ctx *x = container_of(wc->wr_cqe, struct rds_rdma_ctx,
					      x_cqe);

	trace_rds_rdma_rw_done(cq, wc, -1);
	/* Shutdown gave up on it: it is only memory now. */
	if (test_and_set_bit(0, &x->x_claimed))
		return;
	x->x_status = rds_rdma_wc_status(wc);
	rds_rdma_wc_failed(x->x_conn, wc, "RDMA to");
	queue_work(rds_rdma_rw_wq, &x->x_work);
}

/* Room for @nwr more work requests of RDMA operations? If not, the
 * release that makes room kicks the transmit loop.
 */
static bool rds_rdma_rw_room(struct rds_rdma_conn *ic, int nwr)
{
	if (atomic_sub_return(nwr, &ic->i_rdma_wr_avail) >= 0)
		return true;
	atomic_add(nwr, &ic->i_rdma_wr_avail);
	set_bit(RDS_RDMA_RDMA_STALLED, &ic->i_flags);
	/* Set the bit before looking again; the release returns its work
	 * requests before it looks at the bit.
	 */
	smp_mb__after_atomic();
	if (atomic_sub_return(nwr, &ic->i_rdma_wr_avail) >= 0) {
		clear_bit(RDS_RDMA_RDMA_STALLED, &ic->i_flags);
		return true;
	}
	atomic_add(nwr, &ic->i_rdma_wr_avail);
	trace_rds_rdma_tx_stall(rds_conn_from_tdata(ic), RDS_RDMA_STALL_RDMA);
	return false;
}

/* Does @op need the device's masked atomics? */
static bool rds_rdma_op_masked(const struct rds_rdma_op *op)
{
	return (op->op_type == RDS_OP_ATOMIC_FADD && op->op_nocarry) ||
	       (op->op_type == RDS_OP_ATOMIC_CSWP &&
		(~op->op_compare_mask || ~op->op_swap_mask));
}

/**
 * rds_rdma_rw_check - the transport's rdma_check op
 * @conn: the connection the message goes on
 * @op: its operation
 *
 * Atomics need the flavor's and the local device's support; the device
 * is the one the connection's local address is on.
 *
 * Context: process context (sendmsg), may sleep.
 * Return: 0 or -EOPNOTSUPP.
 */
int rds_rdma_rw_check(struct rds_connection *conn,
		      const struct rds_rdma_op *op)
{
	const struct rds_rdma_flavor *fl = rds_rdma_flavor_of(conn);
	struct rds_rdma_dev *dev;
	bool ok;

	if (op->op_type == RDS_OP_RDMA)
		return 0;
	if (!fl->atomics)
		return -EOPNOTSUPP;
	dev = rds_rdma_dev_by_addr(rds_conn_net(conn), &conn->c_laddr,
				   fl->node_type);
	if (!dev)
		return -EOPNOTSUPP;
	if (rds_rdma_op_masked(op))
		ok = dev->ibdev->attrs.masked_atomic_cap != IB_ATOMIC_NONE;
	else
		ok = dev->ibdev->attrs.atomic_cap != IB_ATOMIC_NONE;
	rds_rdma_dev_struct_put(dev);
	return ok ? 0 : -EOPNOTSUPP;
}
EXPORT_SYMBOL_GPL(rds_rdma_rw_check);

static int rds_rdma_post_atomic(struct rds_rdma_conn *ic,
				struct rds_rdma_ctx *x, struct rds_rdma_op *op)
{
	struct ib_device *ibdev = ic->i_dev->ibdev;
	struct scatterlist *sg = &op->op_sg[0];
	bool masked = rds_rdma_op_masked(op);
	int ret;

	x->x_nwr = 1;
	if (!rds_rdma_rw_room(ic, 1))
		return -EAGAIN;
	x->x_sge.addr = ib_dma_map_page(ibdev, sg_page(sg), sg->offset,
					sizeof(u64), DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, x->x_sge.addr)) {
		atomic_inc(&ic->i_rdma_wr_avail);
		return -ENOMEM;
	}
	x->x_sge.length = sizeof(u64);
	x->x_sge.lkey = ic->i_dev->pd->local_dma_lkey;

	x->x_atomic.wr.wr_cqe = &x->x_cqe;
	x->x_atomic.wr.sg_list = &x->x_sge;
	x->x_atomic.wr.num_sge = 1;
	x->x_atomic.wr.send_flags = IB_SEND_SIGNALED;
	x->x_atomic.remote_addr = op->op_remote_addr;
	x->x_atomic.rkey = op->op_rkey;
	if (op->op_type == RDS_OP_ATOMIC_FADD) {
		x->x_atomic.wr.opcode = masked ? IB_WR_MASKED_ATOMIC_FETCH_AND_ADD :
						 IB_WR_ATOMIC_FETCH_AND_ADD;
		x->x_atomic.compare_add = op->op_add;
		x->x_atomic.compare_add_mask = op->op_nocarry;
	} else {
		x->x_atomic.wr.opcode = masked ? IB_WR_MASKED_ATOMIC_CMP_AND_SWP :
						 IB_WR_ATOMIC_CMP_AND_SWP;
		x->x_atomic.compare_add = op->op_compare;
		x->x_atomic.compare_add_mask = op->op_compare_mask;
		x->x_atomic.swap = op->op_swap;
		x->x_atomic.swap_mask = op->op_swap_mask;
	}
	ret = ib_post_send(ic->i_qp, &x->x_atomic.wr, NULL);
	if (ret) {
		atomic_inc(&ic->i_rdma_wr_avail);
		ib_dma_unmap_page(ibdev, x->x_sge.addr, sizeof(u64),
				  DMA_FROM_DEVICE);
	}
	return ret;
}

/* The READ that carries an iWARP WRITE's completion: one byte of what
 * was written, into the connection's scratch word (rds_rdma_conn.c).
 */
static struct ib_send_wr *rds_rdma_placed_wr(struct rds_rdma_conn *ic,
					     struct rds_rdma_ctx *x,
					     const struct rds_rdma_op *op)
{
	x->x_sge.addr = ic->i_scratch_dma;
	x->x_sge.length = 1;
	x->x_sge.lkey = ic->i_dev->pd->local_dma_lkey;
	x->x_placed.wr.wr_cqe = &x->x_cqe;
	x->x_placed.wr.opcode = IB_WR_RDMA_READ;
	x->x_placed.wr.sg_list = &x->x_sge;
	x->x_placed.wr.num_sge = 1;
	x->x_placed.wr.send_flags = IB_SEND_SIGNALED;
	x->x_placed.remote_addr = op->op_remote_addr;
	x->x_placed.rkey = op->op_rkey;
	return &x->x_placed.wr;
}

/* On failure, @partial says whether part of the chain may be posted. */
static int rds_rdma_post_rw(struct rds_connection *conn,
			    struct rds_rdma_conn *ic, struct rds_rdma_ctx *x,
			    struct rds_rdma_op *op, bool *partial)
{
	struct ib_send_wr *placed = NULL;
	int ret;

	x->x_dir = op->op_write ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	ret = rdma_rw_ctx_init(&x->x_rw, ic->i_qp, ic->i_cm_port, op->op_sg,
			       op->op_nents, 0, op->op_remote_addr,
			       op->op_rkey, x->x_dir);
	if (ret < 0)
		return ret;
	x->x_nwr = ret;
	if (op->op_write && !rds_rdma_flavor_of(conn)->write_completes_remotely) {
		placed = rds_rdma_placed_wr(ic, x, op);
		x->x_nwr++;
	}
	if (x->x_nwr > RDS_RDMA_RW_WRS) {
		ret = -EMSGSIZE;
		goto destroy;
	}
	if (!rds_rdma_rw_room(ic, x->x_nwr)) {
		ret = -EAGAIN;
		goto destroy;
	}
	ret = rdma_rw_ctx_post(&x->x_rw, ic->i_qp, ic->i_cm_port, &x->x_cqe,
			       placed);
	if (ret) {
		x->x_status = RDS_RDMA_DROPPED;
		*partial = true;
	}
	return ret;
destroy:
	rdma_rw_ctx_destroy(&x->x_rw, ic->i_qp, ic->i_cm_port, op->op_sg,
			    op->op_nents, x->x_dir);
	return ret;
}

/**
 * rds_rdma_xmit_rdma - the transport's xmit_rdma op
 * @conn: the connection
 * @rm: the message; @rm->m_rdma is the operation
 *
 * Context: process context, the core's transmit lock held.
 * Return: 0 once posted (the outcome comes with the completion), -EAGAIN
 * when the connection has its maximum in flight (a release kicks),
 * -ENOMEM, -EKEYREJECTED for a key the peer named as valid elsewhere
 * (rds_rdma_keys.c), or another error that drops the connection.
 */
int rds_rdma_xmit_rdma(struct rds_connection *conn, struct rds_message *rm)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_op *op = rm->m_rdma;
	bool partial = false;
	struct rds_rdma_ctx *x;
	int ret;

	rds_conn_assert_xmit_held(conn);
	/* The peer's device would refuse the key, breaking the queue pair. */
	if (rds_rdma_keys_refused(ic, op->op_rkey))
		return -EKEYREJECTED;
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	x->x_cqe.done = rds_rdma_ctx_done;
	x->x_conn = conn;
	x->x_rm = rm;
	INIT_WORK(&x->x_work, rds_rdma_ctx_release);

	/* Taken before the post: the completion may come at once. */
	spin_lock_bh(&ic->i_rdma_lock);
	list_add_tail(&x->x_item, &ic->i_rdma_live);
	spin_unlock_bh(&ic->i_rdma_lock);
	atomic_inc(&ic->i_rdma_ctxs);
	rds_message_get(rm);
	if (op->op_type == RDS_OP_RDMA)
		ret = rds_rdma_post_rw(conn, ic, x, op, &partial);
	else
		ret = rds_rdma_post_atomic(ic, x, op);
	/* Part of it may be on the queue pair: it stays live, and the
	 * shutdown that the error starts releases it after the drain.
	 */
	if (ret && partial)
		return -EIO;
	if (ret) {
		spin_lock_bh(&ic->i_rdma_lock);
		list_del(&x->x_item);
		spin_unlock_bh(&ic->i_rdma_lock);
		rds_message_put(rm);
		if (atomic_dec_and_test(&ic->i_rdma_ctxs))
			wake_up(&ic->i_rdma_wait);
		kfree(x);
		/* Out of room or memory: called again. Anything else drops
		 * the connection, and with it the message (RDMA is never
		 * sent twice), reported to its sender.
		 */
		return ret;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(rds_rdma_xmit_rdma);

/**
 * rds_rdma_rw_drain - release every operation of @conn
 * @conn: the connection; its queue pair is drained (nothing more
 *	completes), not yet destroyed
 * @dead: gets the operations released here, to free once the completion
 *	queues are gone (rds_rdma_rw_bury())
 *
 * Context: process context (shutdown).
 */
void rds_rdma_rw_drain(struct rds_connection *conn, struct list_head *dead)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_ctx *x, *tmp;
	LIST_HEAD(lost);

	spin_lock_bh(&ic->i_rdma_lock);
	list_for_each_entry_safe(x, tmp, &ic->i_rdma_live, x_item)
		if (!test_and_set_bit(0, &x->x_claimed))
			list_move_tail(&x->x_item, &lost);
	spin_unlock_bh(&ic->i_rdma_lock);

	list_for_each_entry_safe(x, tmp, &lost, x_item) {
		if (x->x_status == RDS_RDMA_SUCCESS)
			x->x_status = RDS_RDMA_DROPPED;
		rds_rdma_ctx_finish(x);
		list_add_tail(&x->x_item, dead);
	}
	/* The others' release work items are queued or running. */
	wait_event(ic->i_rdma_wait, !atomic_read(&ic->i_rdma_ctxs));
	clear_bit(RDS_RDMA_RDMA_STALLED, &ic->i_flags);
}

/* Free what rds_rdma_rw_drain() released, the completion queues gone. */
void rds_rdma_rw_bury(struct list_head *dead)
{
	struct rds_rdma_ctx *x, *tmp;

	list_for_each_entry_safe(x, tmp, dead, x_item)
		kfree(x);
}
