// SPDX-License-Identifier: GPL-2.0
/*
 * The congestion map protocol: a local port's bit changed (recv.c), so
 * wake local senders and monitors and queue the new map to every peer on
 * a wire; a peer's map arrived, so store it (cong.c) and wake whoever
 * waits for its ports. The map store itself is cong.c; message.c builds
 * the update message.
 */
#include <linux/slab.h>
#include <linux/uio.h>

#include "rds_core.h"

static void rds_cong_queue_update(struct rds_connection *conn, void *map)
{
	/* Maps go on lane 0 only: in order (connection.c). */
	if (conn->c_lcong != map || conn->c_loopback || conn->c_lane ||
	    !(conn->c_trans->caps & RDS_TRANS_CAP_WIRE) ||
	    rds_conn_state(conn) != RDS_CONN_UP)
		return;
	set_bit(RDS_CONN_CONG_QUEUED, &conn->c_flags);
	rds_stats_inc(rds_conn_rn(conn), RDS_STAT_CONG_UPDATE_QUEUED);
	rds_send_kick(conn);
}

/**
 * __rds_cong_changed - act on a change of a port's congestion bit
 * @rs: the socket whose port changed
 * @change: RDS_CONG_SET or RDS_CONG_CLEARED (rds_cong_changed())
 *
 * Wakes local senders and monitors when the port uncongested, and sends
 * the new map to every peer connected over a wire (each takes the map as
 * it is when its transmit loop gets to it, so bursts of changes cost one
 * update per peer). A connection coming up sends the whole map anyway.
 *
 * Context: any; no RDS spinlock held.
 */
void __rds_cong_changed(struct rds_sock *rs, enum rds_cong_change change)
{
	struct rds_net *rn = rds_sock_rn(rs);

	if (change == RDS_CONG_CLEARED) {
		rds_cong_notify_monitors(rn, RDS_CONG_MONITOR_MASK(be16_to_cpu(rs->rs_bound.port)));
		wake_up_interruptible_all(&rn->cong_waitq);
	}
	rds_conn_for_each(rn, rds_cong_queue_update, rs->rs_cong_map);
}

/**
 * rds_cong_recv_map - a peer sent its congestion map
 * @conn: the connection it came on
 * @inc: the message; its header passed rds_hdr_check()
 *
 * Context: the transport's receive path (softirq for TCP).
 */
void rds_cong_recv_map(struct rds_connection *conn, struct rds_incoming *inc)
{
	struct rds_net *rn = rds_conn_rn(conn);
	struct kvec kv;
	struct iov_iter it;
	u64 freed;
	u8 *buf;
	int n;

	buf = kmalloc(RDS_CONG_MAP_BYTES, GFP_ATOMIC);
	if (!buf) {
		/* The peer sends the whole map again when we reconnect. */
		rds_conn_drop_reason(conn, RDS_DROP_MEMORY);
		return;
	}
	kv.iov_base = buf;
	kv.iov_len = RDS_CONG_MAP_BYTES;
	iov_iter_kvec(&it, READ, &kv, 1, RDS_CONG_MAP_BYTES);
	n = conn->c_trans->inc_copy_to_user(inc, &it);
	if (n != RDS_CONG_MAP_BYTES) {
		kfree(buf);
		rds_conn_drop_reason(conn, RDS_DROP_PROTOCOL);
		return;
	}
	freed = rds_cong_store(conn->c_fcong, buf);
	kfree(buf);
	rds_stats_inc(rn, RDS_STAT_CONG_UPDATE_RECEIVED);
	atomic_inc(&rn->cong_gen);
	if (freed) {
		rds_cong_notify_monitors(rn, freed);
		wake_up_interruptible_all(&rn->cong_waitq);
	}
}
