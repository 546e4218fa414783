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
 * A completion only records the outcome: the pages are released from a
 * work item (unpinning may sleep). Shutdown waits for those.
 */
#include <linux/slab.h>
#include <rdma/rw.h>
#include <net/rds/rdma.h>

#include "rds_rdma.h"

/**
 * struct rds_rdma_ctx - one RDMA operation in flight
 * @x_cqe: completion of its last work request
 * @x_rw: the READ or WRITE (rdma_rw)
 * @x_atomic: the atomic's work request
 * @x_sge: the atomic's local word
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

static void rds_rdma_ctx_release(struct work_struct *work)
{
	struct rds_rdma_ctx *x = container_of(work, struct rds_rdma_ctx,
					      x_work);
	struct rds_connection *conn = x->x_conn;
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_op *op = x->x_rm->m_rdma;

	if (op->op_type == RDS_OP_RDMA)
		rdma_rw_ctx_destroy(&x->x_rw, ic->i_qp, ic->i_cm_port,
				    op->op_sg, op->op_nents, x->x_dir);
	else
		ib_dma_unmap_page(ic->i_dev->ibdev, x->x_sge.addr,
				  sizeof(u64), DMA_FROM_DEVICE);
	rds_rdma_send_complete(x->x_rm, x->x_status);
	rds_message_put(x->x_rm);
	atomic_add(x->x_nwr, &ic->i_rdma_wr_avail);
	kfree(x);

	if (atomic_dec_and_test(&ic->i_rdma_ctxs))
		wake_up(&ic->i_rdma_wait);
	/* Pairs with the barrier in rds_rdma_rdma_room(). */
	smp_mb__after_atomic();
	if (test_bit(RDS_RDMA_RDMA_STALLED, &ic->i_flags) &&
	    test_and_clear_bit(RDS_RDMA_RDMA_STALLED, &ic->i_flags))
		rds_send_kick(conn);
}

static void rds_rdma_ctx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_rdma_ctx *x = container_of(wc->wr_cqe, struct rds_rdma_ctx,
					      x_cqe);

	x->x_status = rds_rdma_wc_status(wc);
	rds_rdma_wc_failed(x->x_conn, wc, "RDMA to");
	queue_work(rds_rdma_wq, &x->x_work);
}

/* Room for @nwr more work requests of RDMA operations? If not, the
 * release that makes room kicks the transmit loop.
 */
static bool rds_rdma_rdma_room(struct rds_rdma_conn *ic, int nwr)
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
 * rds_rdma_rdma_check - the transport's rdma_check op
 * @conn: the connection the message goes on
 * @op: its operation
 *
 * Atomics need the flavor's and the local device's support; the device
 * is the one the connection's local address is on.
 *
 * Context: process context (sendmsg), may sleep.
 * Return: 0 or -EOPNOTSUPP.
 */
int rds_rdma_rdma_check(struct rds_connection *conn,
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
EXPORT_SYMBOL_GPL(rds_rdma_rdma_check);

static int rds_rdma_post_atomic(struct rds_rdma_conn *ic,
				struct rds_rdma_ctx *x, struct rds_rdma_op *op)
{
	struct ib_device *ibdev = ic->i_dev->ibdev;
	struct scatterlist *sg = &op->op_sg[0];
	bool masked = rds_rdma_op_masked(op);
	int ret;

	x->x_nwr = 1;
	if (!rds_rdma_rdma_room(ic, 1))
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

static int rds_rdma_post_rw(struct rds_rdma_conn *ic, struct rds_rdma_ctx *x,
			    struct rds_rdma_op *op)
{
	int ret;

	x->x_dir = op->op_write ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	ret = rdma_rw_ctx_init(&x->x_rw, ic->i_qp, ic->i_cm_port, op->op_sg,
			       op->op_nents, 0, op->op_remote_addr,
			       op->op_rkey, x->x_dir);
	if (ret < 0)
		return ret;
	x->x_nwr = ret;
	if (x->x_nwr > RDS_RDMA_RW_WRS) {
		ret = -EMSGSIZE;
		goto destroy;
	}
	if (!rds_rdma_rdma_room(ic, x->x_nwr)) {
		ret = -EAGAIN;
		goto destroy;
	}
	ret = rdma_rw_ctx_post(&x->x_rw, ic->i_qp, ic->i_cm_port, &x->x_cqe,
			       NULL);
	if (!ret)
		return 0;
	atomic_add(x->x_nwr, &ic->i_rdma_wr_avail);
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
 * -ENOMEM, or another error that drops the connection.
 */
int rds_rdma_xmit_rdma(struct rds_connection *conn, struct rds_message *rm)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_op *op = rm->m_rdma;
	struct rds_rdma_ctx *x;
	int ret;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	x->x_cqe.done = rds_rdma_ctx_done;
	x->x_conn = conn;
	x->x_rm = rm;
	INIT_WORK(&x->x_work, rds_rdma_ctx_release);

	/* Taken before the post: the completion may come at once. */
	atomic_inc(&ic->i_rdma_ctxs);
	rds_message_get(rm);
	if (op->op_type == RDS_OP_RDMA)
		ret = rds_rdma_post_rw(ic, x, op);
	else
		ret = rds_rdma_post_atomic(ic, x, op);
	if (ret) {
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
 * rds_rdma_rdma_drain - wait until every operation of @conn is released
 * @conn: the connection, whose queue pair is drained
 *
 * Context: process context (shutdown).
 */
void rds_rdma_rdma_drain(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);

	wait_event(ic->i_rdma_wait, !atomic_read(&ic->i_rdma_ctxs));
	clear_bit(RDS_RDMA_RDMA_STALLED, &ic->i_flags);
}
