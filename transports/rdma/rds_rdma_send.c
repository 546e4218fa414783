// SPDX-License-Identifier: GPL-2.0
/*
 * The send side: messages cut into fragments, each a SEND of [48-byte
 * header][data] from an SGE for the header and one per page of data.
 * Fragments are RDS_FRAG_SIZE with a Linux peer (its receive buffers are
 * a header slot and one page), up to 16 KiB as negotiated with ours. Every header
 * carries our receive ack; the last fragment of a message is solicited
 * (a Linux receiver arms its CQ for solicited events only) and signaled.
 *
 * The ring: slots are posted in order by the transmit loop (the core's
 * transmit lock) and completed in order (RC); a signaled completion
 * retires every slot up to its own. When the ring is full, xmit stops
 * part-way and the completion that makes room kicks the transmit loop.
 * No slot stays unretired once the loop goes idle (rds_rdma_xmit_complete).
 *
 * Acks: a peer asks for one with RDS_FLAG_ACK_REQUIRED; the explicit ack
 * is a header-only SEND from its own slot, one in flight at a time. What
 * arrived without asking is acked only if still unacked a delay later
 * (rds_rdma_ack_later()); until then acks ride on messages.
 */
#include <linux/slab.h>
#include <net/rds/rdma.h>

#include "rds_rdma.h"
#include "rds_rdma_trace.h"

/* How long an ack nobody asked for waits for a message to ride on. */
#define RDS_RDMA_ACK_DELAY	msecs_to_jiffies(20)

/**
 * rds_rdma_ack_seq - the sequence we acknowledge to the peer
 * @conn: the connection
 *
 * Everything up to the last message the core took from us: a message a
 * full receiver refused is not acked until it is delivered.
 */
u64 rds_rdma_ack_seq(struct rds_connection *conn)
{
	u64 next = READ_ONCE(conn->c_next_rx_seq);

	return next ? next - 1 : 0;
}

/**
 * rds_rdma_peer_acked - the peer acknowledged up to @ack
 * @conn: the connection
 * @ack: from a header or the connection's private data
 *
 * Context: any.
 */
void rds_rdma_peer_acked(struct rds_connection *conn, u64 ack)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);

	if (ack == READ_ONCE(ic->i_peer_acked))
		return;
	WRITE_ONCE(ic->i_peer_acked, ack);
	rds_send_drop_acked(conn, ack);
}

/**
 * rds_rdma_reapply_ack - retire what the peer's last ack covers, again
 * @conn: the connection
 *
 * For a message whose RDMA operation just completed: an ack that came
 * before its completion retired nothing from it on (the core waits for
 * the operation's own status).
 *
 * Context: any.
 */
void rds_rdma_reapply_ack(struct rds_connection *conn)
{
	u64 ack = READ_ONCE(rds_rdma_conn(conn)->i_peer_acked);

	if (ack)
		rds_send_drop_acked(conn, ack);
}

static struct ib_device *rds_rdma_ibdev(struct rds_rdma_conn *ic)
{
	return ic->i_dev->ibdev;
}

static void rds_rdma_send_release(struct rds_rdma_conn *ic,
				  struct rds_rdma_send *s)
{
	while (s->s_mapped) {
		ib_dma_unmap_page(rds_rdma_ibdev(ic), s->s_sge[s->s_mapped].addr,
				  s->s_sge[s->s_mapped].length, DMA_TO_DEVICE);
		s->s_mapped--;
	}
	if (s->s_rm) {
		rds_message_put(s->s_rm);
		s->s_rm = NULL;
	}
}

static void rds_rdma_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_rdma_send *s = container_of(wc->wr_cqe, struct rds_rdma_send,
					       s_cqe);
	struct rds_rdma_conn *ic = cq->cq_context;
	struct rds_connection *conn = rds_conn_from_tdata(ic);
	u32 idx = s - ic->i_sends, t, n = 0;

	trace_rds_rdma_send_done(cq, wc, idx);
	rds_rdma_stat_inc(RDS_RDMA_STAT_TX_CQ_EVENT);
	/* A device may flush a SEND posted after its queue pair went to
	 * error at once, ahead of older ones (siw 6.1), retiring them here;
	 * their own flushes come later and find them retired.
	 */
	if ((idx + ic->i_send_ring - ic->i_send_tail) % ic->i_send_ring >=
	    (u32)atomic_read(&ic->i_send_used)) {
		rds_rdma_wc_failed(conn, wc, "send to");
		return;
	}
	/* Completions come in posting order: this one retires every
	 * unsignaled slot before it.
	 */
	do {
		if (WARN_ON_ONCE(n >= (u32)atomic_read(&ic->i_send_used)))
			break;
		t = ic->i_send_tail;
		rds_rdma_send_release(ic, &ic->i_sends[t]);
		ic->i_send_tail = t + 1 == ic->i_send_ring ? 0 : t + 1;
		n++;
	} while (t != idx);
	atomic_sub(n, &ic->i_send_used);

	rds_rdma_wc_failed(conn, wc, "send to");
	/* Pairs with the barrier in rds_rdma_ring_full(). */
	smp_mb__after_atomic();
	if (test_bit(RDS_RDMA_SEND_STALLED, &ic->i_flags) &&
	    test_and_clear_bit(RDS_RDMA_SEND_STALLED, &ic->i_flags)) {
		trace_rds_rdma_tx_resume(conn, RDS_RDMA_STALL_SEND_RING);
		rds_send_kick(conn);
	}
}

static void rds_rdma_ack_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_rdma_conn *ic = cq->cq_context;
	struct rds_connection *conn = rds_conn_from_tdata(ic);

	trace_rds_rdma_ack_done(cq, wc, ic->i_send_ring);
	clear_bit(RDS_RDMA_ACK_IN_FLIGHT, &ic->i_flags);
	if (rds_rdma_wc_failed(conn, wc, "ack to"))
		return;
	/* An ack asked for while this one was in flight. */
	if (test_bit(RDS_RDMA_ACK_WANTED, &ic->i_flags)) {
		spin_lock(&ic->i_rx_lock);
		rds_rdma_send_ack(conn);
		spin_unlock(&ic->i_rx_lock);
	}
}

/* An ack-only header (no ports, no data: what a Linux peer takes for an
 * explicit ack) carrying our receive ack.
 */
static void rds_rdma_ack_hdr(struct rds_connection *conn,
			     struct rds_rdma_conn *ic, struct rds_header *hdr)
{
	u64 ack = rds_rdma_ack_seq(conn);

	memset(hdr, 0, sizeof(*hdr));
	hdr->h_ack = cpu_to_be64(ack);
	WRITE_ONCE(ic->i_ack_sent, ack);
	rds_hdr_csum_set(hdr);
}

/**
 * rds_rdma_send_ack - send an explicit ack if one is wanted
 * @conn: the connection
 *
 * Context: softirq or process context, under i_rx_lock (which orders
 * the post against shutdown draining the queue pair).
 */
void rds_rdma_send_ack(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_header *hdr = &ic->i_send_hdrs[ic->i_send_ring];
	int ret;

	lockdep_assert_held(&ic->i_rx_lock);
	if (test_bit(RDS_RDMA_RX_DYING, &ic->i_flags) ||
	    !test_bit(RDS_RDMA_ACK_WANTED, &ic->i_flags))
		return;
	if (test_and_set_bit(RDS_RDMA_ACK_IN_FLIGHT, &ic->i_flags)) {
		rds_rdma_stat_inc(RDS_RDMA_STAT_ACK_SEND_DELAYED);
		return;
	}
	clear_bit(RDS_RDMA_ACK_WANTED, &ic->i_flags);

	rds_rdma_ack_hdr(conn, ic, hdr);
	ib_dma_sync_single_for_device(rds_rdma_ibdev(ic), ic->i_ack_sge.addr,
				      sizeof(*hdr), DMA_TO_DEVICE);
	ret = ib_post_send(ic->i_qp, &ic->i_ack_wr, NULL);
	if (ret) {
		clear_bit(RDS_RDMA_ACK_IN_FLIGHT, &ic->i_flags);
		set_bit(RDS_RDMA_ACK_WANTED, &ic->i_flags);
		rds_rdma_stat_inc(RDS_RDMA_STAT_ACK_SEND_FAILURE);
		rds_conn_drop_reason(conn, RDS_DROP_POST_SEND_FAIL);
		return;
	}
	rds_rdma_stat_inc(RDS_RDMA_STAT_ACK_SENT);
}

/**
 * rds_rdma_ack_later - make sure what arrived is acked within the delay
 * @conn: the connection
 * @ic: its transport state; i_rx_lock held
 *
 * Arms the ack worker for everything delivered so far unless it is armed
 * already; the worker re-arms itself for what came meanwhile.
 */
void rds_rdma_ack_later(struct rds_connection *conn, struct rds_rdma_conn *ic)
{
	lockdep_assert_held(&ic->i_rx_lock);
	if (test_bit(RDS_RDMA_RX_DYING, &ic->i_flags) ||
	    delayed_work_pending(&ic->i_ack_w))
		return;
	ic->i_ack_due = rds_rdma_ack_seq(conn);
	queue_delayed_work(rds_rdma_wq, &ic->i_ack_w, RDS_RDMA_ACK_DELAY);
}

/**
 * rds_rdma_ack_worker - ack what arrived without a request for an ack
 * @work: the connection's i_ack_w
 *
 * A peer that asks only every few messages (Linux: 8) would otherwise
 * keep its last ones, and their senders' budget, until it sends more.
 * The worker acks only when what it was armed for is still unacked a
 * delay later: under steady two-way traffic acks ride on messages, and
 * an explicit one would cost both ends a send and a completion for
 * nothing. What arrived since is given the same delay.
 *
 * Context: process context.
 */
void rds_rdma_ack_worker(struct work_struct *work)
{
	struct rds_rdma_conn *ic = container_of(to_delayed_work(work),
						struct rds_rdma_conn, i_ack_w);
	struct rds_connection *conn = rds_conn_from_tdata(ic);
	u64 sent;

	spin_lock_bh(&ic->i_rx_lock);
	sent = READ_ONCE(ic->i_ack_sent);
	if (sent < ic->i_ack_due) {
		set_bit(RDS_RDMA_ACK_WANTED, &ic->i_flags);
		rds_rdma_send_ack(conn);
	} else if (rds_rdma_ack_seq(conn) != sent) {
		rds_rdma_ack_later(conn, ic);
	}
	spin_unlock_bh(&ic->i_rx_lock);
}

/* Should the message starting now ask the peer for an ack? At least every
 * net.rds.max_unacked_packets messages or _bytes bytes, as Linux.
 */
static bool rds_rdma_want_ack(struct rds_connection *conn,
			      struct rds_rdma_conn *ic, struct rds_message *rm)
{
	u8 flags = rm->m_hdr.h_flags;
	u32 packets, bytes;

	/* A congestion map is never acked: its flags are exactly 0x01. */
	if (flags & RDS_FLAG_CONG_BITMAP)
		return false;
	rds_conn_unacked_limits(conn, &packets, &bytes);
	ic->i_unacked_msgs++;
	ic->i_unacked_bytes += rm->m_len;
	if ((flags & (RDS_FLAG_ACK_REQUIRED | RDS_FLAG_RETRANSMITTED)) ||
	    ic->i_unacked_msgs >= packets || ic->i_unacked_bytes >= bytes ||
	    atomic_read(&ic->i_send_used) > ic->i_send_ring / 2) {
		ic->i_unacked_msgs = 0;
		ic->i_unacked_bytes = 0;
		rds_rdma_stat_inc(RDS_RDMA_STAT_TX_ACK_REQUIRED);
		return true;
	}
	return false;
}

/* The ring is full: arrange to be kicked, unless room came meanwhile. */
static bool rds_rdma_ring_full(struct rds_rdma_conn *ic)
{
	if (atomic_read(&ic->i_send_used) < ic->i_send_ring)
		return false;
	set_bit(RDS_RDMA_SEND_STALLED, &ic->i_flags);
	/* Set the bit before looking again; the completion frees slots
	 * before looking at the bit.
	 */
	smp_mb__after_atomic();
	if (atomic_read(&ic->i_send_used) < ic->i_send_ring) {
		clear_bit(RDS_RDMA_SEND_STALLED, &ic->i_flags);
		return false;
	}
	rds_rdma_stat_inc(RDS_RDMA_STAT_TX_RING_FULL);
	trace_rds_rdma_tx_stall(rds_conn_from_tdata(ic),
				RDS_RDMA_STALL_SEND_RING);
	return true;
}

/* Map the data of fragment @frag of @rm into @s's SGEs: the message
 * has an entry per RDS_FRAG_SIZE page, or one inline entry (message.c),
 * and a fragment is i_frag_pages of them.
 */
static int rds_rdma_map_frag(struct rds_rdma_conn *ic, struct rds_rdma_send *s,
			     struct rds_message *rm, unsigned int frag)
{
	struct ib_device *ibdev = rds_rdma_ibdev(ic);
	unsigned int i = frag * ic->i_frag_pages;
	unsigned int end = min_t(unsigned int, i + ic->i_frag_pages,
				 rm->m_nents);

	s->s_wr.num_sge = 1;
	if (!rm->m_len)
		return 0;
	if (WARN_ON_ONCE(i >= end))
		return -EINVAL;
	for (; i < end; i++) {
		struct scatterlist *sg = &rm->m_sg[i];
		struct ib_sge *sge = &s->s_sge[s->s_mapped + 1];

		if (WARN_ON_ONCE(sg->length > RDS_FRAG_SIZE))
			goto err;
		sge->addr = ib_dma_map_page(ibdev, sg_page(sg), sg->offset,
					    sg->length, DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ibdev, sge->addr)) {
			rds_rdma_stat_inc(RDS_RDMA_STAT_TX_SG_MAPPING_FAILURE);
			goto err;
		}
		sge->length = sg->length;
		s->s_mapped++;
	}
	s->s_wr.num_sge = 1 + s->s_mapped;
	return 0;
err:
	rds_rdma_send_release(ic, s);
	return -ENOMEM;
}

/* Post fragment @frag of @nfrags of @rm in the next slot. */
static int rds_rdma_post_frag(struct rds_connection *conn,
			      struct rds_rdma_conn *ic, struct rds_message *rm,
			      unsigned int frag, unsigned int nfrags)
{
	struct ib_device *ibdev = rds_rdma_ibdev(ic);
	u32 slot = ic->i_send_head;
	struct rds_rdma_send *s = &ic->i_sends[slot];
	struct rds_header *hdr = &ic->i_send_hdrs[slot];
	bool last = frag + 1 == nfrags;
	int flags = 0, ret;
	u64 ack;

	rds_conn_assert_xmit_held(conn);
	*hdr = rm->m_hdr;
	ack = rds_rdma_ack_seq(conn);
	hdr->h_ack = cpu_to_be64(ack);
	if (ack != READ_ONCE(ic->i_ack_sent)) {
		WRITE_ONCE(ic->i_ack_sent, ack);
		rds_rdma_stat_inc(RDS_RDMA_STAT_ACK_SEND_PIGGYBACKED);
	}
	hdr->h_credit = 0;
	if (ic->i_xmit_ackreq)
		hdr->h_flags |= RDS_FLAG_ACK_REQUIRED;
	if (ic->i_xmit_key_away)
		hdr->h_flags |= RDS_RDMA_FLAG_KEY_AWAY;
	rds_hdr_csum_set(hdr);
	ib_dma_sync_single_for_device(ibdev, s->s_sge[0].addr, sizeof(*hdr),
				      DMA_TO_DEVICE);

	ret = rds_rdma_map_frag(ic, s, rm, frag);
	if (ret)
		return ret;

	/* The last fragment wakes the peer (solicited). Completions are
	 * asked for every max_unsignaled_wr sends, as Linux does (each one
	 * retires the slots before it), whenever the ring fills (a stalled
	 * ring always has one coming), and at the end of a burst, so no
	 * message is held once the connection goes quiet.
	 */
	if (last)
		flags = IB_SEND_SOLICITED;
	if (++ic->i_send_unsignaled >= READ_ONCE(rds_rdma_sysctl_max_unsignaled_wr) ||
	    atomic_read(&ic->i_send_used) + 1 >= ic->i_send_ring ||
	    (last && list_empty_careful(&conn->c_send_queue)))
		flags |= IB_SEND_SIGNALED;
	if (flags & IB_SEND_SIGNALED)
		ic->i_send_unsignaled = 0;
	/* RDS_RDMA_FENCE: the message waits for its RDMA to finish (where
	 * every message does, rds_rdma_rw_pending() saw to it).
	 */
	if (!frag && rm->m_rdma && rm->m_rdma->op_fence &&
	    !rds_rdma_flavor_of(conn)->send_after_rdma)
		flags |= IB_SEND_FENCE;
	s->s_wr.send_flags = flags;
	s->s_wr.next = NULL;

	rds_message_get(rm);
	s->s_rm = rm;
	atomic_inc(&ic->i_send_used);
	WRITE_ONCE(ic->i_send_head, slot + 1 == ic->i_send_ring ? 0 : slot + 1);
	ret = ib_post_send(ic->i_qp, &s->s_wr, NULL);
	if (ret) {
		WRITE_ONCE(ic->i_send_head, slot);
		atomic_dec(&ic->i_send_used);
		rds_rdma_send_release(ic, s);
	}
	return ret;
}

/* Must @rm wait for its RDMA operation (send_after_rdma)? Then the
 * release of the operation kicks the transmit loop.
 */
static bool rds_rdma_rw_pending(struct rds_connection *conn,
				struct rds_rdma_conn *ic,
				const struct rds_message *rm)
{
	const struct rds_rdma_op *op = rm->m_rdma;

	if (!op || !rds_rdma_flavor_of(conn)->send_after_rdma ||
	    READ_ONCE(op->op_done))
		return false;
	set_bit(RDS_RDMA_RDMA_STALLED, &ic->i_flags);
	/* Set the bit before looking again; the release completes the
	 * operation before it looks at the bit.
	 */
	smp_mb__after_atomic();
	if (READ_ONCE(op->op_done))
		return false;
	trace_rds_rdma_tx_stall(conn, RDS_RDMA_STALL_RDMA);
	return true;
}

/**
 * rds_rdma_xmit - the transport's xmit op
 * @conn: the connection
 * @rm: the message
 * @pos: the next fragment to post
 *
 * Context: process context, the core's transmit lock held.
 * Return: 0 when every fragment is posted, -EAGAIN when the ring is full
 * or the message waits for its RDMA (the completion that makes room, or
 * the operation's release, kicks), -ENOMEM, or another error that drops
 * the connection.
 */
int rds_rdma_xmit(struct rds_connection *conn, struct rds_message *rm,
		  unsigned int *pos)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	unsigned int nfrags;
	int ret;

	rds_conn_assert_xmit_held(conn);
	/* Known before the connection is up, and nothing transmits before. */
	if (WARN_ON_ONCE(!ic->i_frag_pages))
		return -ENOTCONN;
	nfrags = max(1U, DIV_ROUND_UP(rm->m_len,
				      ic->i_frag_pages * RDS_FRAG_SIZE));

	if (*pos == 0) {
		/* Before the silent return: where messages wait for their
		 * RDMA, a silent one does too, or the next message's
		 * operation would be posted while its own is in flight.
		 */
		if (rds_rdma_rw_pending(conn, ic, rm))
			return -EAGAIN;
		/* No SEND wakes the peer; the message leaves its connection
		 * when its operation completes (rds_rdma_send_complete()).
		 */
		if (rds_message_silent(rm))
			return 0;
		ic->i_xmit_ackreq = rds_rdma_want_ack(conn, ic, rm);
		ic->i_xmit_key_away = rds_rdma_keys_away(conn, rm);
	}
	while (*pos < nfrags) {
		if (rds_rdma_ring_full(ic))
			return -EAGAIN;
		ret = rds_rdma_post_frag(conn, ic, rm, *pos, nfrags);
		if (ret)
			return ret;
		(*pos)++;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(rds_rdma_xmit);

/**
 * rds_rdma_xmit_complete - the transport's xmit_complete op
 * @conn: the connection
 *
 * The transmit loop goes idle. If the last SEND it posted was not
 * signaled (more was queued then, but that was canceled, or was a silent
 * RDMA, which posts no SEND), no completion would come to retire it and
 * the slots before it: their messages would stay pinned until the
 * connection sends again. A signaled ack-only SEND in the next slot
 * retires them.
 *
 * Context: process context, the core's transmit lock held.
 */
void rds_rdma_xmit_complete(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	u32 slot = ic->i_send_head;
	struct rds_rdma_send *s;

	rds_conn_assert_xmit_held(conn);
	/* A full ring's last slot was signaled (rds_rdma_post_frag()). */
	if (!ic->i_send_unsignaled || !ic->i_sends ||
	    atomic_read(&ic->i_send_used) >= ic->i_send_ring)
		return;
	s = &ic->i_sends[slot];
	rds_rdma_ack_hdr(conn, ic, &ic->i_send_hdrs[slot]);
	ib_dma_sync_single_for_device(rds_rdma_ibdev(ic), s->s_sge[0].addr,
				      sizeof(struct rds_header), DMA_TO_DEVICE);
	s->s_wr.num_sge = 1;
	/* Solicited: a Linux receiver wakes for nothing else, and the ack
	 * counts as sent (i_ack_sent), so the ack worker will not repeat it.
	 */
	s->s_wr.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED;
	s->s_wr.next = NULL;
	atomic_inc(&ic->i_send_used);
	WRITE_ONCE(ic->i_send_head, slot + 1 == ic->i_send_ring ? 0 : slot + 1);
	if (ib_post_send(ic->i_qp, &s->s_wr, NULL)) {
		WRITE_ONCE(ic->i_send_head, slot);
		atomic_dec(&ic->i_send_used);
		rds_rdma_stat_inc(RDS_RDMA_STAT_ACK_SEND_FAILURE);
		rds_conn_drop_reason(conn, RDS_DROP_POST_SEND_FAIL);
		return;
	}
	ic->i_send_unsignaled = 0;
	rds_rdma_stat_inc(RDS_RDMA_STAT_ACK_SENT);
}
EXPORT_SYMBOL_GPL(rds_rdma_xmit_complete);

/**
 * rds_rdma_send_ring_init - allocate the send ring of a new queue pair
 * @ic: the connection; i_dev and i_send_ring are set
 *
 * Context: process context.
 */
int rds_rdma_send_ring_init(struct rds_rdma_conn *ic)
{
	struct ib_device *ibdev = rds_rdma_ibdev(ic);
	u32 lkey = ic->i_dev->pd->local_dma_lkey;
	size_t hdrs = (ic->i_send_ring + 1) * sizeof(struct rds_header);
	unsigned int k;
	u32 i;

	ic->i_sends = kvcalloc(ic->i_send_ring, sizeof(*ic->i_sends),
			       GFP_KERNEL);
	if (!ic->i_sends)
		return -ENOMEM;
	ic->i_send_hdrs = kzalloc(hdrs, GFP_KERNEL);
	if (!ic->i_send_hdrs)
		goto err_sends;
	ic->i_send_hdrs_dma = ib_dma_map_single(ibdev, ic->i_send_hdrs, hdrs,
						DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, ic->i_send_hdrs_dma))
		goto err_hdrs;

	for (i = 0; i < ic->i_send_ring; i++) {
		struct rds_rdma_send *s = &ic->i_sends[i];

		s->s_cqe.done = rds_rdma_send_done;
		s->s_wr.wr_cqe = &s->s_cqe;
		s->s_wr.sg_list = s->s_sge;
		s->s_wr.opcode = IB_WR_SEND;
		s->s_sge[0].addr = ic->i_send_hdrs_dma +
				   i * sizeof(struct rds_header);
		s->s_sge[0].length = sizeof(struct rds_header);
		for (k = 0; k <= RDS_RDMA_MAX_FRAG_PAGES; k++)
			s->s_sge[k].lkey = lkey;
	}
	ic->i_ack_cqe.done = rds_rdma_ack_done;
	ic->i_ack_sge.addr = ic->i_send_hdrs_dma +
			     ic->i_send_ring * sizeof(struct rds_header);
	ic->i_ack_sge.length = sizeof(struct rds_header);
	ic->i_ack_sge.lkey = lkey;
	ic->i_ack_wr.wr_cqe = &ic->i_ack_cqe;
	ic->i_ack_wr.sg_list = &ic->i_ack_sge;
	ic->i_ack_wr.num_sge = 1;
	ic->i_ack_wr.opcode = IB_WR_SEND;
	ic->i_ack_wr.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED;

	WRITE_ONCE(ic->i_send_head, 0);
	ic->i_send_tail = 0;
	atomic_set(&ic->i_send_used, 0);
	ic->i_send_unsignaled = 0;
	ic->i_unacked_msgs = 0;
	ic->i_unacked_bytes = 0;
	return 0;

err_hdrs:
	kfree(ic->i_send_hdrs);
	ic->i_send_hdrs = NULL;
err_sends:
	kvfree(ic->i_sends);
	ic->i_sends = NULL;
	return -ENOMEM;
}

/**
 * rds_rdma_send_ring_free - release the send ring after the drain
 * @ic: the connection; its queue pair is drained or never posted to
 *
 * Slots whose completion never came (unsignaled ones before a flush that
 * was not reported) are released here.
 */
void rds_rdma_send_ring_free(struct rds_rdma_conn *ic)
{
	if (!ic->i_sends)
		return;
	while (atomic_read(&ic->i_send_used) > 0) {
		rds_rdma_send_release(ic, &ic->i_sends[ic->i_send_tail]);
		ic->i_send_tail = ic->i_send_tail + 1 == ic->i_send_ring ?
				  0 : ic->i_send_tail + 1;
		atomic_dec(&ic->i_send_used);
	}
	ib_dma_unmap_single(rds_rdma_ibdev(ic), ic->i_send_hdrs_dma,
			    (ic->i_send_ring + 1) * sizeof(struct rds_header),
			    DMA_TO_DEVICE);
	kfree(ic->i_send_hdrs);
	ic->i_send_hdrs = NULL;
	kvfree(ic->i_sends);
	ic->i_sends = NULL;
	clear_bit(RDS_RDMA_SEND_STALLED, &ic->i_flags);
	clear_bit(RDS_RDMA_ACK_IN_FLIGHT, &ic->i_flags);
	clear_bit(RDS_RDMA_ACK_WANTED, &ic->i_flags);
}
