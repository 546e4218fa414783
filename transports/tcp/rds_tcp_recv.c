// SPDX-License-Identifier: GPL-2.0
/*
 * Receiving over TCP: the stream is cut back into [header][payload]
 * frames as it arrives (in softirq, from data_ready, like Linux's
 * rds_tcp), each header checked before anything is allocated for it, and
 * each complete message handed to the core.
 *
 * Memory follows the bytes actually received: a header that announces
 * 1 MiB costs nothing until the payload arrives, so a peer that stalls
 * half-way holds at most what it sent. A payload bigger than
 * RDS_TCP_INLINE_MAX is kept as the received buffers themselves (clones
 * of TCP's skbs, no copy, as Linux does), except where a piece is small
 * next to the buffer it would keep alive: such pieces are copied into
 * page-sized buffers of our own, and a buffer once opened takes every
 * piece that follows until it is full (else a peer alternating 1-byte and
 * small segments made each byte open a page of its own next to a clone:
 * about 11 times the bytes). So what a message holds, complete or not, is
 * at most RDS_TCP_SHARE_RATIO times the bytes received of it plus one
 * buffer, whatever segment sizes the peer chooses (tcp_hostile_peer's
 * partial_cost). When softirq cannot allocate, reading stops and the receive
 * worker carries on with GFP_KERNEL; the unread bytes wait in TCP (which
 * then closes its window). Nothing else stops reading: the core takes
 * every complete message (a receiver far over its budget drops it, so
 * one socket that does not read never stops the connection).
 */
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/tcp.h>

#include "rds_tcp.h"

/* Payloads up to this size live in the incoming's own allocation. */
#define RDS_TCP_INLINE_MAX	(PAGE_SIZE / 2)

/* A piece of a received skb is shared only if the skb's whole memory and
 * our clone of it are at most this many times the piece; else the piece
 * is copied.
 */
#define RDS_TCP_SHARE_RATIO	2

/* What a clone costs beyond the memory it shares. */
#define RDS_TCP_CLONE_COST	SKB_DATA_ALIGN(sizeof(struct sk_buff))

/* Our own buffers for copied pieces: one page each, head included. */
#define RDS_TCP_COPY_BUF	SKB_WITH_OVERHEAD(PAGE_SIZE - NET_SKB_PAD)

/**
 * struct rds_tcp_incoming - a message received over TCP
 * @ti_inc: what the core sees
 * @ti_len: payload bytes
 * @ti_data: the payload, if inline (@ti_len <= RDS_TCP_INLINE_MAX)
 * @ti_segs: else the payload in order, in skbs that describe their part
 *	in struct rds_tcp_seg
 */
struct rds_tcp_incoming {
	struct rds_incoming	ti_inc;
	u32			ti_len;
	u8			*ti_data;
	struct sk_buff_head	ti_segs;
};

/**
 * struct rds_tcp_seg - which bytes of a payload skb are ours (in skb->cb)
 * @off: where they start in the skb
 * @len: how many
 * @copy: the skb is our own buffer (more may be appended), not a clone
 */
struct rds_tcp_seg {
	u32	off;
	u32	len;
	bool	copy;
};

static struct rds_tcp_seg *rds_tcp_seg(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct rds_tcp_seg) > sizeof(skb->cb));
	return (struct rds_tcp_seg *)skb->cb;
}

static bool rds_tcp_inc_inline(const struct rds_tcp_incoming *tinc)
{
	return tinc->ti_len <= RDS_TCP_INLINE_MAX;
}

static struct rds_tcp_incoming *rds_tcp_inc_alloc(u32 len, gfp_t gfp)
{
	struct rds_tcp_incoming *tinc;
	size_t extra = len <= RDS_TCP_INLINE_MAX ? len : 0;

	tinc = kzalloc(sizeof(*tinc) + extra, gfp);
	if (!tinc)
		return NULL;
	tinc->ti_len = len;
	if (len <= RDS_TCP_INLINE_MAX)
		tinc->ti_data = (u8 *)(tinc + 1);
	else
		__skb_queue_head_init(&tinc->ti_segs);
	return tinc;
}

static void rds_tcp_tinc_free(struct rds_tcp_incoming *tinc)
{
	if (!rds_tcp_inc_inline(tinc))
		__skb_queue_purge(&tinc->ti_segs);
	kfree(tinc);
}

/* Share @n bytes at @off of @skb: a clone that remembers its part. */
static size_t rds_tcp_inc_share(struct rds_tcp_incoming *tinc,
				struct sk_buff *skb, unsigned int off, size_t n,
				gfp_t gfp)
{
	struct sk_buff *clone = skb_clone(skb, gfp);
	struct rds_tcp_seg *seg;

	if (!clone)
		return 0;
	seg = rds_tcp_seg(clone);
	seg->off = off;
	seg->len = n;
	seg->copy = false;
	__skb_queue_tail(&tinc->ti_segs, clone);
	return n;
}

/* Copy @n bytes at @off of @skb into our own buffers, @left bytes of the
 * payload being still to come (this piece included); return how many
 * were copied (fewer when a buffer could not be allocated).
 */
static size_t rds_tcp_inc_copy(struct rds_tcp_incoming *tinc,
			       const struct sk_buff *skb, unsigned int off,
			       size_t n, size_t left, gfp_t gfp)
{
	struct sk_buff *buf = skb_peek_tail(&tinc->ti_segs);
	size_t done = 0, chunk;

	while (done < n) {
		if (!buf || !rds_tcp_seg(buf)->copy || !skb_tailroom(buf)) {
			buf = alloc_skb(min_t(size_t, left - done,
					      RDS_TCP_COPY_BUF), gfp);
			if (!buf)
				break;
			rds_tcp_seg(buf)->off = 0;
			rds_tcp_seg(buf)->len = 0;
			rds_tcp_seg(buf)->copy = true;
			__skb_queue_tail(&tinc->ti_segs, buf);
		}
		chunk = min_t(size_t, n - done, skb_tailroom(buf));
		if (skb_copy_bits(skb, off + done, skb_put(buf, chunk), chunk))
			break;
		rds_tcp_seg(buf)->len += chunk;
		done += chunk;
	}
	return done;
}

/* Take @n bytes at @off of @skb as payload offset @at; return how many
 * were taken (fewer when memory ran out).
 */
static size_t rds_tcp_inc_fill(struct rds_tcp_incoming *tinc, u32 at,
			       struct sk_buff *skb, unsigned int off,
			       size_t n, gfp_t gfp)
{
	struct sk_buff *tail;
	size_t done = 0, room;

	if (rds_tcp_inc_inline(tinc)) {
		if (skb_copy_bits(skb, off, tinc->ti_data + at, n))
			return 0;
		return n;
	}
	tail = skb_peek_tail(&tinc->ti_segs);
	if (tail && rds_tcp_seg(tail)->copy && skb_tailroom(tail)) {
		/* Fill the open buffer first: a clone after it would close
		 * it half empty.
		 */
		room = min_t(size_t, n, skb_tailroom(tail));
		done = rds_tcp_inc_copy(tinc, skb, off, room, tinc->ti_len - at,
					gfp);
		if (done < room || done == n)
			return done;
	}
	if (skb->truesize + RDS_TCP_CLONE_COST <= RDS_TCP_SHARE_RATIO * (n - done))
		return done + rds_tcp_inc_share(tinc, skb, off + done, n - done,
						gfp);
	return done + rds_tcp_inc_copy(tinc, skb, off + done, n - done,
				       tinc->ti_len - at - done, gfp);
}

struct rds_tcp_read_ctx {
	struct rds_tcp_conn	*tc;
	gfp_t			gfp;
	int			err;
};

/* Hand the complete t_tinc to the core. */
static void rds_tcp_deliver(struct rds_tcp_conn *tc)
{
	struct rds_connection *conn = rds_tcp_to_conn(tc);
	struct rds_tcp_incoming *tinc = tc->t_tinc;

	rds_inc_init(&tinc->ti_inc, conn, &conn->c_faddr, &conn->c_laddr);
	tinc->ti_inc.i_hdr = tc->t_hdr;
	rds_recv_incoming(conn, &tinc->ti_inc);
	tc->t_tinc = NULL;
	tc->t_hdr_got = 0;
	rds_inc_put(&tinc->ti_inc);
}

/* tcp_read_sock() actor: consume what we can of @skb from @offset. */
static int rds_tcp_data_recv(read_descriptor_t *desc, struct sk_buff *skb,
			     unsigned int offset, size_t len)
{
	struct rds_tcp_read_ctx *ctx = desc->arg.data;
	struct rds_tcp_conn *tc = ctx->tc;
	size_t left = len, n;
	int err;

	while (left) {
		if (tc->t_broken)
			return len;	/* the connection is going: discard */
		if (!tc->t_tinc) {
			if (tc->t_hdr_got < sizeof(tc->t_hdr)) {
				n = min_t(size_t, left,
					  sizeof(tc->t_hdr) - tc->t_hdr_got);
				if (skb_copy_bits(skb, offset,
						  (u8 *)&tc->t_hdr + tc->t_hdr_got, n))
					goto stop;
				tc->t_hdr_got += n;
				offset += n;
				left -= n;
				if (tc->t_hdr_got < sizeof(tc->t_hdr))
					break;
				err = rds_hdr_check(&tc->t_hdr);
				if (err) {
					tc->t_broken = true;
					rds_recv_bad_header(rds_tcp_to_conn(tc), err);
					return len;
				}
			}
			tc->t_tinc = rds_tcp_inc_alloc(be32_to_cpu(tc->t_hdr.h_len),
						       ctx->gfp);
			if (!tc->t_tinc)
				goto stop;
			tc->t_data_got = 0;
			WRITE_ONCE(tc->t_data_len, tc->t_tinc->ti_len);
		}
		n = min_t(size_t, left, tc->t_tinc->ti_len - tc->t_data_got);
		if (n) {
			size_t got = rds_tcp_inc_fill(tc->t_tinc, tc->t_data_got,
						      skb, offset, n, ctx->gfp);

			tc->t_data_got += got;
			offset += got;
			left -= got;
			if (got < n)
				goto stop;
		}
		if (tc->t_data_got == tc->t_tinc->ti_len)
			rds_tcp_deliver(tc);
	}
	return len - left;
stop:
	/* Out of memory: the receive worker goes on where we stopped. */
	ctx->err = -ENOMEM;
	desc->count = 0;
	return len - left;
}

/* Read everything queued on @sk; the caller owns the socket. */
static int rds_tcp_read_sock(struct rds_tcp_conn *tc, struct sock *sk,
			     gfp_t gfp)
{
	struct rds_tcp_read_ctx ctx = { .tc = tc, .gfp = gfp };
	read_descriptor_t desc = {
		.arg.data = &ctx,
		.count = 1,	/* stays nonzero until the actor stops */
	};

	tcp_read_sock(sk, &desc, rds_tcp_data_recv);
	return ctx.err;
}

/* Softirq could not allocate: the worker reads on with GFP_KERNEL. */
static void rds_tcp_recv_again(struct rds_tcp_conn *tc, int err)
{
	if (err == -ENOMEM)
		queue_delayed_work(rds_tcp_wq, &tc->t_recv_w, 0);
}

/**
 * rds_tcp_data_ready - bytes arrived on a connection's socket
 * @sk: the socket
 *
 * Context: softirq with the socket locked, or its owner's release_sock().
 */
void rds_tcp_data_ready(struct sock *sk)
{
	void (*ready)(struct sock *sk);
	struct rds_tcp_conn *tc;

	read_lock_bh(&sk->sk_callback_lock);
	tc = sk->sk_user_data;
	if (!tc) {
		ready = sk->sk_data_ready;
		goto out;
	}
	ready = tc->t_orig.data_ready;
	rds_tcp_stat_inc(RDS_TCP_STAT_DATA_READY_CALLS);
	rds_tcp_recv_again(tc, rds_tcp_read_sock(tc, sk, GFP_ATOMIC));
out:
	read_unlock_bh(&sk->sk_callback_lock);
	ready(sk);
}

/**
 * rds_tcp_recv_worker - read in process context
 * @work: rds_tcp_conn->t_recv_w
 *
 * After softirq ran out of memory, and for bytes that arrived before a
 * socket the peer connected got our callbacks.
 */
void rds_tcp_recv_worker(struct work_struct *work)
{
	struct rds_tcp_conn *tc = container_of(to_delayed_work(work),
					       struct rds_tcp_conn, t_recv_w);
	struct sock *sk;
	int ret = 0;

	mutex_lock(&tc->t_mutex);
	if (tc->t_sock) {
		sk = tc->t_sock->sk;
		lock_sock(sk);
		ret = rds_tcp_read_sock(tc, sk, GFP_KERNEL);
		release_sock(sk);
	}
	mutex_unlock(&tc->t_mutex);
	rds_tcp_recv_again(tc, ret);
}

/**
 * rds_tcp_recv_drain - read what is left in a socket being let go
 * @tc: the connection
 * @sk: its socket, whose callbacks are already gone
 *
 * Context: process context (shutdown).
 */
void rds_tcp_recv_drain(struct rds_tcp_conn *tc, struct sock *sk)
{
	int ret;

	/* The peer counts what TCP acked as delivered: it is read here,
	 * within every receiver's hard limit as any other.
	 */
	lock_sock(sk);
	ret = rds_tcp_read_sock(tc, sk, GFP_KERNEL);
	release_sock(sk);
	if (ret)
		net_warn_ratelimited("rds_tcp: %pI6c: out of memory reading a closing connection\n",
				     &rds_tcp_to_conn(tc)->c_faddr);
}

/**
 * rds_tcp_recv_reset - forget a half-received frame (shutdown)
 * @tc: the connection, whose socket's callbacks are already gone
 */
void rds_tcp_recv_reset(struct rds_tcp_conn *tc)
{
	if (tc->t_tinc)
		rds_tcp_tinc_free(tc->t_tinc);
	tc->t_tinc = NULL;
	tc->t_hdr_got = 0;
	tc->t_data_got = 0;
	tc->t_broken = false;
}

int rds_tcp_inc_copy_to_user(struct rds_incoming *inc, struct iov_iter *to)
{
	struct rds_tcp_incoming *tinc = container_of(inc, struct rds_tcp_incoming,
						     ti_inc);
	struct rds_tcp_seg *seg;
	struct sk_buff *skb;
	size_t want, done = 0;

	if (rds_tcp_inc_inline(tinc)) {
		want = min_t(size_t, tinc->ti_len, iov_iter_count(to));
		if (copy_to_iter(tinc->ti_data, want, to) != want)
			return -EFAULT;
		return want;
	}
	skb_queue_walk(&tinc->ti_segs, skb) {
		if (!iov_iter_count(to))
			break;
		seg = rds_tcp_seg(skb);
		want = min_t(size_t, seg->len, iov_iter_count(to));
		if (skb_copy_datagram_iter(skb, seg->off, to, want))
			return -EFAULT;
		done += want;
	}
	return done;
}

void rds_tcp_inc_free(struct rds_incoming *inc)
{
	rds_tcp_tinc_free(container_of(inc, struct rds_tcp_incoming, ti_inc));
}
