// SPDX-License-Identifier: GPL-2.0
/*
 * Liveness of a quiet connection (IB and RoCE). A reliable-connected
 * queue pair notices a dead peer only when it sends: its transport
 * retries run out (IB_WC_RETRY_EXC_ERR). A connection that only receives,
 * or carries nothing, would stay up on a peer that hung or rebooted, and
 * messages queued for it later would wait for the first send to time out.
 *
 * So while a connection is up, each heartbeat period in which it posted
 * no send, with nothing outstanding on its send queue, posts a
 * zero-length RDMA WRITE. The peer's device acknowledges it and nothing
 * reaches the peer's RDS: a Linux or UEK peer sees nothing at all (no
 * receive consumed, no RDS sequence number, no reply). A
 * peer that does not answer fails it after the transport's retries (about
 * RDS_RDMA_RETRY_COUNT + 1 times the CM's ack timeout), and the connection
 * drops for RDS_DROP_HB_TIMEOUT. A heartbeat not completed within
 * RDS_RDMA_LIVE_TICKS periods (a device that retries for longer) drops
 * it the same way. The heartbeat goes out at most two periods after the
 * last send, so with the default period (net.rds.ib.heartbeat_ms, 2 s)
 * a hung peer is noticed within five periods: 10 s.
 *
 * iWARP completes a WRITE once its TCP stream took it, so a heartbeat
 * proves nothing there: the flavor does without (TCP's own retransmission
 * timeout notices a dead peer).
 */
#include "rds_rdma.h"

/* Periods a heartbeat may stay in flight before the connection drops. */
#define RDS_RDMA_LIVE_TICKS	3

/* With heartbeats off, how often the worker looks at the sysctl again. */
#define RDS_RDMA_LIVE_IDLE_MS	10000

/* A shorter period would judge ordinary queueing as a dead peer. */
#define RDS_RDMA_LIVE_MIN_MS	100

/* The period in jiffies; 0 when heartbeats are off. */
static unsigned long rds_rdma_live_period(void)
{
	unsigned int ms = READ_ONCE(rds_rdma_sysctl_heartbeat_ms);

	return ms ? msecs_to_jiffies(max(ms, RDS_RDMA_LIVE_MIN_MS)) : 0;
}

/* Nothing of ours is outstanding on the send queue: a heartbeat would
 * not wait behind a SEND held by a receiver without buffers (RNR
 * retries are infinite, by design) nor behind RDMA, which the transport's
 * own retries already judge.
 */
static bool rds_rdma_live_sq_empty(struct rds_rdma_conn *ic)
{
	return !atomic_read(&ic->i_send_used) &&
	       atomic_read(&ic->i_rdma_wr_avail) == RDS_RDMA_RW_WRS &&
	       !test_bit(RDS_RDMA_ACK_IN_FLIGHT, &ic->i_flags) &&
	       !test_bit(RDS_RDMA_ADV_IN_FLIGHT, &ic->i_flags);
}

/* The peer stopped answering: drop, and try another route next. */
static void rds_rdma_live_lost(struct rds_connection *conn, const char *how)
{
	rds_rdma_stat_inc(RDS_RDMA_STAT_HEARTBEAT_TIMEOUT);
	net_warn_ratelimited("rds: %s: %pI6c stopped answering (%s), reconnecting\n",
			     conn->c_trans->name, &conn->c_faddr, how);
	rds_rdma_route_failed(conn);
	rds_conn_drop_reason(conn, RDS_DROP_HB_TIMEOUT);
}

static void rds_rdma_live_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_rdma_conn *ic = cq->cq_context;
	struct rds_connection *conn = rds_conn_from_tdata(ic);

	clear_bit(RDS_RDMA_LIVE_IN_FLIGHT, &ic->i_flags);
	if (wc->status == IB_WC_RETRY_EXC_ERR) {
		rds_rdma_live_lost(conn, "heartbeat retries exhausted");
		return;
	}
	/* A device that wants a key even for zero bytes: this peer gets no
	 * more heartbeats, rather than a reconnect every few seconds.
	 */
	if ((wc->status == IB_WC_REM_ACCESS_ERR ||
	     wc->status == IB_WC_REM_INV_REQ_ERR) &&
	    !READ_ONCE(ic->i_live_refused)) {
		WRITE_ONCE(ic->i_live_refused, true);
		net_warn_ratelimited("rds: %s: %pI6c refuses zero-length WRITEs: no heartbeats to it\n",
				     conn->c_trans->name, &conn->c_faddr);
	}
	rds_rdma_wc_failed(conn, wc, "heartbeat to");
}

/* One heartbeat period of an up connection. */
static void rds_rdma_live_worker(struct work_struct *work)
{
	struct rds_rdma_conn *ic = container_of(to_delayed_work(work),
						struct rds_rdma_conn, i_live_w);
	struct rds_connection *conn = rds_conn_from_tdata(ic);
	unsigned long period = rds_rdma_live_period();
	bool lost = false;
	u32 head;

	if (rds_conn_state(conn) != RDS_CONN_UP)
		return;		/* started again when it is */
	spin_lock_bh(&ic->i_rx_lock);
	if (test_bit(RDS_RDMA_RX_DYING, &ic->i_flags) || !ic->i_qp) {
		spin_unlock_bh(&ic->i_rx_lock);
		return;
	}
	head = READ_ONCE(ic->i_send_head);
	if (test_bit(RDS_RDMA_LIVE_IN_FLIGHT, &ic->i_flags)) {
		/* Half a period early: the timer is not that exact. */
		lost = period && time_after_eq(jiffies, ic->i_live_sent +
					       RDS_RDMA_LIVE_TICKS * period -
					       period / 2);
	} else if (period && head == ic->i_live_head &&
		   !READ_ONCE(ic->i_live_refused) && rds_rdma_live_sq_empty(ic)) {
		/* Nothing sent for a period: nothing else would notice. */
		set_bit(RDS_RDMA_LIVE_IN_FLIGHT, &ic->i_flags);
		ic->i_live_sent = jiffies;
		if (ib_post_send(ic->i_qp, &ic->i_live_wr.wr, NULL))
			clear_bit(RDS_RDMA_LIVE_IN_FLIGHT, &ic->i_flags);
		else
			rds_rdma_stat_inc(RDS_RDMA_STAT_HEARTBEAT_SENT);
	}
	ic->i_live_head = head;
	spin_unlock_bh(&ic->i_rx_lock);

	if (lost) {
		rds_rdma_live_lost(conn, "heartbeat not completed");
		return;
	}
	queue_delayed_work(rds_rdma_wq, &ic->i_live_w,
			   period ?: msecs_to_jiffies(RDS_RDMA_LIVE_IDLE_MS));
}

/**
 * rds_rdma_live_conn_init - the heartbeat's work request and worker
 * @ic: a new connection's transport state
 */
void rds_rdma_live_conn_init(struct rds_rdma_conn *ic)
{
	INIT_DELAYED_WORK(&ic->i_live_w, rds_rdma_live_worker);
	ic->i_live_cqe.done = rds_rdma_live_done;
	/* No SGE, no remote address or key: a zero-length WRITE needs none
	 * (IBA C9-88), and the peer's memory is never touched.
	 */
	ic->i_live_wr.wr.wr_cqe = &ic->i_live_cqe;
	ic->i_live_wr.wr.opcode = IB_WR_RDMA_WRITE;
	ic->i_live_wr.wr.send_flags = IB_SEND_SIGNALED;
}

/**
 * rds_rdma_live_start - @conn came up: watch its peer
 * @conn: the connection; i_cm_mutex held
 *
 * Context: a CM handler, or i_est_w (rds_rdma_cm.c).
 */
void rds_rdma_live_start(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);

	if (!rds_rdma_flavor_of(conn)->write_completes_remotely)
		return;
	ic->i_live_head = READ_ONCE(ic->i_send_head);
	mod_delayed_work(rds_rdma_wq, &ic->i_live_w,
			 rds_rdma_live_period() ?:
			 msecs_to_jiffies(RDS_RDMA_LIVE_IDLE_MS));
}

/**
 * rds_rdma_live_stop - no heartbeat is posted after this returns
 * @ic: the connection's transport state
 *
 * Context: process context (the core's shutdown, or freeing).
 */
void rds_rdma_live_stop(struct rds_rdma_conn *ic)
{
	cancel_delayed_work_sync(&ic->i_live_w);
}

