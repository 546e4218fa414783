// SPDX-License-Identifier: GPL-2.0
/*
 * A connection's verbs resources: completion queues, the RC queue pair
 * and its rings, created when a connection is requested or accepted and
 * torn down by the core's shutdown. The CM id and queue pair are
 * installed only under i_cm_mutex; a CM handler whose id is no longer the
 * connection's does nothing. Shutdown takes the id away under that mutex
 * and then, without it, tears the queue pair down and destroys the id
 * (both wait for CM handlers, which take the mutex). Over IB the queue
 * pair, its CQs and the id are destroyed by a worker once drained (a
 * struct rds_rdma_corpse), so the connection need not wait for rxe.
 */
#include <linux/slab.h>

#include "rds_rdma.h"

int rds_rdma_conn_alloc(struct rds_connection *conn, gfp_t gfp)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);

	INIT_DELAYED_WORK(&ic->i_connect_w, rds_rdma_connect_worker);
	INIT_DELAYED_WORK(&ic->i_est_w, rds_rdma_est_worker);
	mutex_init(&ic->i_cm_mutex);
	spin_lock_init(&ic->i_rx_lock);
	INIT_DELAYED_WORK(&ic->i_rx_w, rds_rdma_recv_worker);
	INIT_LIST_HEAD(&ic->i_rx_held);
	INIT_WORK(&ic->i_rx_hold_w, rds_rdma_recv_hold_worker);
	INIT_DELAYED_WORK(&ic->i_ack_w, rds_rdma_ack_worker);
	init_waitqueue_head(&ic->i_rdma_wait);
	spin_lock_init(&ic->i_rdma_lock);
	INIT_LIST_HEAD(&ic->i_rdma_live);
	rds_rdma_route_conn_init(ic);
	rds_rdma_live_conn_init(ic);
	return 0;
}
EXPORT_SYMBOL_GPL(rds_rdma_conn_alloc);

void rds_rdma_conn_free(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);

	/* Shut down already: no CM id, no queue pair. */
	WARN_ON_ONCE(ic->i_cm_id || ic->i_stale_id || ic->i_qp);
	cancel_delayed_work_sync(&ic->i_connect_w);
	cancel_delayed_work_sync(&ic->i_est_w);
	cancel_delayed_work_sync(&ic->i_rx_w);
	cancel_delayed_work_sync(&ic->i_ack_w);
	rds_rdma_live_stop(ic);
	rds_rdma_route_conn_free(ic);
	flush_work(&ic->i_rx_hold_w);
	mutex_destroy(&ic->i_cm_mutex);
}
EXPORT_SYMBOL_GPL(rds_rdma_conn_free);

/**
 * rds_rdma_qp_event - asynchronous events of a connection's queue pair
 * @ev: the event
 * @ctx: the connection
 *
 * Context: any (the driver's).
 */
void rds_rdma_qp_event(struct ib_event *ev, void *ctx)
{
	struct rds_connection *conn = ctx;

	/* A queue pair shutdown left for a worker to destroy. */
	if (ev->element.qp != READ_ONCE(rds_rdma_conn(conn)->i_qp))
		return;
	switch (ev->event) {
	case IB_EVENT_COMM_EST:
	case IB_EVENT_SQ_DRAINED:
	case IB_EVENT_QP_LAST_WQE_REACHED:
	case IB_EVENT_PATH_MIG:
		break;
	default:
		net_warn_ratelimited("rds: %s: queue pair event %s to %pI6c\n",
				     conn->c_trans->name,
				     ib_event_msg(ev->event), &conn->c_faddr);
		rds_conn_drop_reason(conn, RDS_DROP_QP_ERROR);
		break;
	}
}

/**
 * rds_rdma_wc_failed - judge a completion's status
 * @conn: the connection
 * @wc: the completion
 * @what: what it completed, for the warning
 *
 * An error means the queue pair is in error: the connection starts
 * again. So does a flush that our own teardown did not cause (it sets
 * RDS_RDMA_RX_DYING before draining): the error that put the queue pair
 * in that state may have been reported on a request without a
 * completion of its own (rdma_rw's chained requests carry none, and the
 * CQ layer drops such errors), and then the flushes are all we see.
 * Ignoring them left a connection up on a dead queue pair for ever.
 * An error on a connection whose local address has left its port is
 * the move's (rds_rdma_addr.c), and named so.
 *
 * Context: a completion handler.
 * Return: true if @wc is not a success.
 */
bool rds_rdma_wc_failed(struct rds_connection *conn, const struct ib_wc *wc,
			const char *what)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);

	if (likely(wc->status == IB_WC_SUCCESS))
		return false;
	if (wc->status == IB_WC_WR_FLUSH_ERR &&
	    test_bit(RDS_RDMA_RX_DYING, &ic->i_flags))
		return true;
	/* The device cannot send from an address that has left its port:
	 * the error is the move's doing, and the move is what an operator
	 * needs to read in the lane's history.
	 */
	if (rds_rdma_addr_gone(conn)) {
		rds_rdma_addr_drop(conn);
		return true;
	}
	/* The transport's retries ran out: the path is gone. Not a flush
	 * (the peer may have closed) nor an access error (a peer's
	 * mistake): the next attempt would take another route for nothing.
	 */
	if (wc->status == IB_WC_RETRY_EXC_ERR ||
	    wc->status == IB_WC_RESP_TIMEOUT_ERR)
		rds_rdma_route_failed(conn);
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		net_warn_ratelimited("rds: %s: %s %pI6c failed: %s\n",
				     conn->c_trans->name, what, &conn->c_faddr,
				     ib_wc_status_msg(wc->status));
	/* Receives say "receive from"; sends, acks and RDMA the rest. */
	rds_conn_drop_reason(conn, !strncmp(what, "receive", 7) ?
			     RDS_DROP_RECV_COMP_ERR : RDS_DROP_SEND_COMP_ERR);
	return true;
}

/* The word the READs behind iWARP WRITEs land in (rds_rdma_rw.c). A
 * READ's sink must be writable by the peer's device on iWARP; siw asks
 * only for local write access, which the PD's DMA key gives.
 */
static int rds_rdma_scratch_init(struct rds_rdma_conn *ic,
				 const struct rds_rdma_flavor *fl)
{
	struct ib_device *ibdev = ic->i_dev->ibdev;

	if (fl->write_completes_remotely)
		return 0;
	ic->i_scratch = kzalloc(sizeof(*ic->i_scratch), GFP_KERNEL);
	if (!ic->i_scratch)
		return -ENOMEM;
	ic->i_scratch_dma = ib_dma_map_single(ibdev, ic->i_scratch,
					      sizeof(*ic->i_scratch),
					      DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, ic->i_scratch_dma)) {
		kfree(ic->i_scratch);
		ic->i_scratch = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void rds_rdma_scratch_free(struct rds_rdma_conn *ic)
{
	if (!ic->i_scratch)
		return;
	ib_dma_unmap_single(ic->i_dev->ibdev, ic->i_scratch_dma,
			    sizeof(*ic->i_scratch), DMA_FROM_DEVICE);
	kfree(ic->i_scratch);
	ic->i_scratch = NULL;
}

/* Nothing more is posted or delivered on the receive side. */
static void rds_rdma_rx_quiesce(struct rds_rdma_conn *ic)
{
	spin_lock_bh(&ic->i_rx_lock);
	set_bit(RDS_RDMA_RX_DYING, &ic->i_flags);
	spin_unlock_bh(&ic->i_rx_lock);
	cancel_delayed_work_sync(&ic->i_rx_w);
	cancel_delayed_work_sync(&ic->i_ack_w);
	/* Held messages are dropped unacked (the peer sends them again),
	 * but the regions they used die first: waited for, not cancelled.
	 */
	flush_work(&ic->i_rx_hold_w);
}

/* The rings and the buffers mapped on the device: nothing is posted. */
static void rds_rdma_rings_free(struct rds_rdma_conn *ic)
{
	rds_rdma_route_qp_free(ic);
	clear_bit(RDS_RDMA_LIVE_IN_FLIGHT, &ic->i_flags);
	rds_rdma_scratch_free(ic);
	rds_rdma_send_ring_free(ic);
	rds_rdma_recv_ring_free(ic);
}

/* The connection's state of its last queue pair, for the next one. */
static void rds_rdma_qp_forget(struct rds_rdma_conn *ic)
{
	ic->i_version = 0;
	WRITE_ONCE(ic->i_bound_if, 0);
	WRITE_ONCE(ic->i_frag_pages, 0);	/* rds-info reads it lockless */
	ic->i_frag_offer = 0;
	ic->i_peer_acked = 0;
	ic->i_ack_sent = 0;
	ic->i_ack_due = 0;
	ic->i_rx_frag_seen = 0;
	clear_bit(RDS_RDMA_RX_DYING, &ic->i_flags);
}

/* The connection's queue pair leaves its SRQ; its receive CQ is freed. */
static struct rds_rdma_rxq *rds_rdma_rxq_take(struct rds_rdma_conn *ic)
{
	struct rds_rdma_rxq *q;

	spin_lock_bh(&ic->i_rx_lock);
	q = ic->i_rxq;
	ic->i_rxq = NULL;
	spin_unlock_bh(&ic->i_rx_lock);
	return q;
}

/* Undo rds_rdma_qp_setup(); the queue pair, if any, is drained first. */
void rds_rdma_qp_teardown(struct rds_connection *conn, struct rdma_cm_id *id)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	LIST_HEAD(dead);

	rds_rdma_rx_quiesce(ic);
	if (ic->i_qp) {
		/* Every posted request completes (flushed) before this
		 * returns, or never will (siw can lose some after a
		 * TERMINATE): the rings are freed only after the CQs.
		 */
		ib_drain_qp(ic->i_qp);
		/* Their release uses the QP. */
		rds_rdma_rw_drain(conn, &dead);
		rdma_destroy_qp(id);
		WRITE_ONCE(ic->i_qp, NULL);
	}
	if (ic->i_send_cq)
		ib_free_cq(ic->i_send_cq);
	if (ic->i_recv_cq)
		ib_free_cq(ic->i_recv_cq);
	ic->i_send_cq = NULL;
	ic->i_recv_cq = NULL;
	if (ic->i_rxq)
		rds_rdma_srq_detach(rds_rdma_rxq_take(ic));
	rds_rdma_rw_bury(&dead);
	if (ic->i_dev) {
		struct rds_rdma_dev *dev = ic->i_dev;

		rds_rdma_rings_free(ic);
		/* Walkers read i_dev locklessly: gone before the put. */
		WRITE_ONCE(ic->i_dev, NULL);
		rds_rdma_dev_put(dev);
	}
	rds_rdma_qp_forget(ic);
}

/*
 * A drained queue pair on its way out, with its CM id, completion queues
 * and device reference. rxe holds a queue pair until the packets it
 * sent are freed: on a port without carrier rdma_destroy_qp() waited
 * 3 s (up to the 50 s rxe allows), a port failover's whole gap. Its
 * requests have all completed, so the connection goes on at once with a
 * new queue pair and a worker destroys the old one; the connection is
 * held until then (the CM id's events name it, and find the id stale).
 */
struct rds_rdma_corpse {
	struct work_struct	w;
	struct rdma_cm_id	*id;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct rds_rdma_rxq	*rxq;
	struct rds_rdma_dev	*dev;
	struct rds_connection	*conn;
};

static void rds_rdma_corpse_worker(struct work_struct *work)
{
	struct rds_rdma_corpse *c = container_of(work, struct rds_rdma_corpse,
						 w);

	rdma_destroy_qp(c->id);
	ib_free_cq(c->send_cq);
	ib_free_cq(c->recv_cq);
	if (c->rxq)
		rds_rdma_srq_detach(c->rxq);
	rdma_destroy_id(c->id);
	rds_rdma_dev_put(c->dev);
	atomic_dec(&rds_rdma_conn(c->conn)->i_corpses);
	rds_conn_put(c->conn);
	kfree(c);
}

/*
 * rds_rdma_qp_teardown() at shutdown, the queue pair, its CQs and @id
 * destroyed by a worker where the flavor's drain completes every request
 * (rds_rdma_flavor.drain_completes). Returns true if @id went with them;
 * false if all was torn down here, the caller destroying @id.
 *
 * In place instead when the connection has a queue pair on its way out
 * already (so a peer that makes us reconnect in a loop keeps one, not
 * dozens, of its queue pairs and CQs alive), and when the queue pair
 * cannot be put in error: then the drain would not wait for its
 * requests, and the rings must outlive the CQs.
 */
static bool rds_rdma_qp_teardown_later(struct rds_connection *conn,
				       struct rdma_cm_id *id)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct rds_rdma_corpse *c;
	LIST_HEAD(dead);

	if (!ic->i_qp || !rds_rdma_flavor_of(conn)->drain_completes ||
	    atomic_read(&ic->i_corpses))
		goto now;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		goto now;
	if (ib_modify_qp(ic->i_qp, &attr, IB_QP_STATE)) {
		kfree(c);
		goto now;
	}
	rds_rdma_rx_quiesce(ic);
	ib_drain_qp(ic->i_qp);
	rds_rdma_rw_drain(conn, &dead);
	/* Nothing posted is left: no completion can name these. */
	rds_rdma_rw_bury(&dead);
	rds_rdma_rings_free(ic);
	c->id = id;
	c->send_cq = ic->i_send_cq;
	c->recv_cq = ic->i_recv_cq;
	/* Completions still coming through it only give slots back. */
	c->rxq = rds_rdma_rxq_take(ic);
	c->dev = ic->i_dev;	/* its reference goes with it */
	c->conn = conn;
	rds_conn_get(conn);
	atomic_inc(&ic->i_corpses);
	WRITE_ONCE(ic->i_qp, NULL);
	ic->i_send_cq = NULL;
	ic->i_recv_cq = NULL;
	WRITE_ONCE(ic->i_dev, NULL);
	rds_rdma_qp_forget(ic);
	INIT_WORK(&c->w, rds_rdma_corpse_worker);
	queue_work(rds_rdma_corpse_wq, &c->w);
	return true;
now:
	rds_rdma_qp_teardown(conn, id);
	return false;
}

/**
 * rds_rdma_qp_setup - create the queue pair of @conn on @id's device
 * @conn: the connection; i_cm_mutex held
 * @id: a CM id with a resolved route or a connect request
 *
 * The caller set the fragment size (i_frag_offer, and i_frag_pages if it
 * is known): the receive ring is posted now if it is, before the
 * connection is requested or accepted. On failure nothing is left behind.
 *
 * Context: a CM handler, may sleep.
 */
int rds_rdma_qp_setup(struct rds_connection *conn, struct rdma_cm_id *id)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct ib_qp_init_attr attr = {};
	struct ib_device *ibdev = id->device;
	struct rds_rdma_srq *srq = NULL;
	int max_wr, ret;

	lockdep_assert_held(&ic->i_cm_mutex);
	ic->i_dev = rds_rdma_dev_get(ibdev);
	if (!ic->i_dev)
		return -ENODEV;

	/* One send slot more for the explicit ack; rxe and Linux keep
	 * one below the device's maximum.
	 */
	max_wr = ibdev->attrs.max_qp_wr - 2;
	ic->i_send_ring = clamp_t(int, READ_ONCE(rds_rdma_sysctl_max_send_wr),
				  8, max_wr);
	ic->i_recv_ring = clamp_t(int, READ_ONCE(rds_rdma_sysctl_max_recv_wr),
				  8, max_wr);

	ret = rds_rdma_send_ring_init(ic);
	if (ret)
		goto err;
	ret = rds_rdma_scratch_init(ic, rds_rdma_flavor_of(conn));
	if (ret)
		goto err;
	ret = rds_rdma_route_qp_init(ic);
	if (ret)
		goto err;
	/* Where the peer retries on RNR, the device's SRQ for fragments as
	 * big as we offer (a smaller agreed size fits in its slots).
	 */
	if (rds_rdma_flavor_of(conn)->rnr_retry)
		srq = rds_rdma_srq_get(ic->i_dev, ic->i_frag_offer);
	if (srq)
		ret = rds_rdma_srq_attach(ic, srq);
	else
		ret = rds_rdma_recv_ring_init(ic);
	if (ret)
		goto err;

	/* The ring, rdma_rw's requests, the ack, the route advert, the
	 * heartbeat and the drain's marker.
	 */
	ic->i_send_cq = ib_alloc_cq_any(ibdev, ic,
					ic->i_send_ring + 4 + RDS_RDMA_RW_WRS,
					IB_POLL_SOFTIRQ);
	if (IS_ERR(ic->i_send_cq)) {
		ret = PTR_ERR(ic->i_send_cq);
		ic->i_send_cq = NULL;
		goto err;
	}
	if (srq)
		ic->i_recv_cq = ib_alloc_cq_any(ibdev, ic->i_rxq,
						RDS_RDMA_SRQ_CQ,
						IB_POLL_SOFTIRQ);
	else
		ic->i_recv_cq = ib_alloc_cq_any(ibdev, ic, ic->i_recv_ring + 1,
						IB_POLL_SOFTIRQ);
	if (IS_ERR(ic->i_recv_cq)) {
		ret = PTR_ERR(ic->i_recv_cq);
		ic->i_recv_cq = NULL;
		goto err;
	}

	attr.event_handler = rds_rdma_qp_event;
	attr.qp_context = conn;
	attr.send_cq = ic->i_send_cq;
	attr.recv_cq = ic->i_recv_cq;
	/* One more of each for the drain ib_drain_qp() posts at shutdown
	 * (a full ring would leave it no room), one send for the route
	 * advert (rds_rdma_route.c) and one for the heartbeat
	 * (rds_rdma_live.c).
	 */
	attr.cap.max_send_wr = ic->i_send_ring + 1 + RDS_RDMA_RW_WRS + 1 + 1 +
			       1;
	if (srq)
		attr.srq = srq->s_ibsrq;
	else
		attr.cap.max_recv_wr = ic->i_recv_ring + 1;
	/* More than our SENDs need: rdma_rw puts that many pages in one
	 * READ or WRITE.
	 */
	attr.cap.max_send_sge = clamp_t(int, ibdev->attrs.max_send_sge, 2, 16);
	attr.cap.max_rdma_ctxs = RDS_RDMA_MAX_CTXS;
	attr.port_num = id->port_num;
	if (!srq)
		attr.cap.max_recv_sge = 1 + ic->i_frag_offer;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(id, ic->i_dev->pd, &attr);
	if (ret)
		goto err;
	WRITE_ONCE(ic->i_qp, id->qp);
	ic->i_cm_port = id->port_num;
	atomic_set(&ic->i_rdma_wr_avail, RDS_RDMA_RW_WRS);

	if (ic->i_frag_pages && !srq) {
		ret = rds_rdma_recv_ring_pages(ic);
		if (ret)
			goto err;
		rds_rdma_recv_fill(conn);
	}
	return 0;

err:
	rds_rdma_qp_teardown(conn, id);
	return ret;
}

/**
 * rds_rdma_conn_shutdown - the transport's conn_shutdown op
 * @conn: the connection
 *
 * Disconnects, waits for every posted request to complete, and frees the
 * queue pair and the CM id. Messages half received are dropped unacked
 * (the peer sends them again); the core requeues our unacked ones.
 *
 * Context: the core's workqueue, may sleep; nothing transmits.
 */
void rds_rdma_conn_shutdown(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rdma_cm_id *id, *stale;

	rds_conn_assert_xmit_quiet(conn);
	/* It connects only while CONNECTING: not after this. */
	cancel_delayed_work_sync(&ic->i_connect_w);
	/* No heartbeat verdict after this: it would mark the route failed
	 * after rds_rdma_route_shutdown() consumed that mark.
	 */
	rds_rdma_live_stop(ic);
	/* Where the next attempt goes; the route's worker stops. */
	rds_rdma_route_shutdown(conn);
	mutex_lock(&ic->i_cm_mutex);
	id = ic->i_cm_id;
	ic->i_cm_id = NULL;
	/* A held ESTABLISHED dies with its id (i_est_w finds it clear). */
	clear_bit(RDS_RDMA_EST_HELD, &ic->i_flags);
	clear_bit(RDS_RDMA_HEAR_FIRST, &ic->i_flags);
	WRITE_ONCE(ic->i_req_port, 0);
	stale = ic->i_stale_id;
	ic->i_stale_id = NULL;
	mutex_unlock(&ic->i_cm_mutex);
	/* Not under the mutex: the iWARP CM waits in both for events it
	 * delivers to our handlers, which take it (and find their id stale).
	 * Nothing installs a new id meanwhile: the connection is
	 * DISCONNECTING, so requests are refused and none of ours start.
	 */
	if (id) {
		rdma_disconnect(id);
		if (rds_rdma_qp_teardown_later(conn, id))
			id = NULL;
	}
	/* Each waits for a handler of its id still running: it finds
	 * itself stale and does nothing.
	 */
	if (id)
		rdma_destroy_id(id);
	if (stale)
		rdma_destroy_id(stale);
	/* A completion drained above may have marked the route failed
	 * after rds_rdma_route_shutdown() judged it: that mark would send
	 * the next connection's first reconnect elsewhere for nothing.
	 */
	clear_bit(RDS_RDMA_ROUTE_FAILED, &ic->i_flags);
}
EXPORT_SYMBOL_GPL(rds_rdma_conn_shutdown);
