// SPDX-License-Identifier: GPL-2.0
/*
 * Sending over TCP: each message is its 48-byte header and its payload,
 * written with sock_sendmsg() from the message's own memory, never
 * waiting: when the socket buffer is full we stop where we are (the core
 * keeps the position) and write_space kicks the sender when it drains.
 *
 * Acks come from TCP itself: a message is acked once the peer's TCP has
 * acked its last byte (snd_una beyond it), as in Linux's rds_tcp; there
 * are no RDS-level acks.
 */
#include <linux/bvec.h>
#include <linux/highmem.h>
#include <linux/uio.h>
#include <net/rds/compat.h>
#include <net/rds/compat_tcp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "rds_tcp.h"

/* Payloads up to this size are copied into TCP, larger ones spliced. */
#define RDS_TCP_COPY_MAX	(4 * PAGE_SIZE)

/* Pieces per sock_sendmsg(): the header and up to 16 payload pages. */
#define RDS_TCP_XMIT_VECS	18

struct rds_tcp_vecs {
	struct bio_vec	bv[RDS_TCP_XMIT_VECS];
	unsigned int	n;
	size_t		bytes;
};

/* Add @len bytes at @page + @off, if there is a slot. */
static bool rds_tcp_vecs_add(struct rds_tcp_vecs *v, struct page *page,
			     unsigned int off, unsigned int len)
{
	if (v->n == RDS_TCP_XMIT_VECS)
		return false;
	v->bv[v->n].bv_page = page;
	v->bv[v->n].bv_offset = off;
	v->bv[v->n].bv_len = len;
	v->n++;
	v->bytes += len;
	return true;
}

/* Add kernel memory (the header inside the message), page by page. */
static void rds_tcp_vecs_add_virt(struct rds_tcp_vecs *v, const void *p,
				  unsigned int len)
{
	unsigned int chunk;

	while (len) {
		chunk = min_t(unsigned int, len, PAGE_SIZE - offset_in_page(p));
		if (!rds_tcp_vecs_add(v, virt_to_page(p), offset_in_page(p),
				      chunk))
			return;
		p += chunk;
		len -= chunk;
	}
}

/* What is left of @rm from byte @pos of [header][payload]; only the
 * rest of the header if @hdr_alone.
 */
static void rds_tcp_vecs_fill(struct rds_tcp_vecs *v, struct rds_message *rm,
			      unsigned int pos, bool hdr_alone)
{
	unsigned int hlen = sizeof(rm->m_hdr), skip, i;

	v->n = 0;
	v->bytes = 0;
	if (pos < hlen) {
		rds_tcp_vecs_add_virt(v, (u8 *)&rm->m_hdr + pos, hlen - pos);
		if (hdr_alone)
			return;
		pos = hlen;
	}
	skip = pos - hlen;
	for (i = 0; i < rm->m_nents; i++) {
		struct scatterlist *sg = &rm->m_sg[i];

		if (skip >= sg->length) {
			skip -= sg->length;
			continue;
		}
		if (!rds_tcp_vecs_add(v, sg_page(sg), sg->offset + skip,
				      sg->length - skip))
			return;
		skip = 0;
	}
}

static bool rds_tcp_is_acked(struct rds_message *rm, u64 una)
{
	if (!test_bit(RDS_MSG_HAS_ACK_SEQ, &rm->m_flags))
		return false;
	smp_rmb();	/* pairs with rds_tcp_xmit()'s smp_mb__before_atomic() */
	return (s32)((u32)rm->m_ack_seq - (u32)una) < 0;
}

/* A batch of two or more messages goes out corked, in full segments. */
void rds_tcp_xmit_prepare(struct rds_connection *conn)
{
	struct rds_tcp_conn *tc = rds_tcp_conn(conn);
	struct list_head *q = &conn->c_send_queue;

	rds_conn_assert_xmit_held(conn);
	/* A hint only: an unlocked look at the queue. */
	tc->t_corked = tc->t_sock && !list_empty_careful(q) &&
		       READ_ONCE(q->next->next) != q;
	if (tc->t_corked)
		tcp_sock_set_cork(tc->t_sock->sk, true);
}

void rds_tcp_xmit_complete(struct rds_connection *conn)
{
	struct rds_tcp_conn *tc = rds_tcp_conn(conn);

	rds_conn_assert_xmit_held(conn);
	if (tc->t_corked && tc->t_sock)
		tcp_sock_set_cork(tc->t_sock->sk, false);
	tc->t_corked = false;
}

/* Write @v under the socket lock: copied into the socket, or, with
 * @splice, its pages handed to TCP (which takes page references)
 * without copying; @more: the rest of the message follows at once.
 */
static int rds_tcp_send_locked(struct sock *sk, struct rds_tcp_vecs *v,
			       bool splice, bool more)
{
	int flags = MSG_DONTWAIT | MSG_NOSIGNAL | (more ? MSG_MORE : 0);
	struct msghdr msg;

	if (splice)
		return rds_tcp_send_pages_locked(sk, v->bv, v->n, v->bytes,
						 flags);
	memset(&msg, 0, sizeof(msg));
	msg.msg_flags = flags;
	iov_iter_bvec(&msg.msg_iter, WRITE, v->bv, v->n, v->bytes);
	return tcp_sendmsg_locked(sk, &msg, v->bytes);
}

/*
 * The socket took less than we gave: from now on write_space kicks the
 * sender when room comes. We hold the socket lock, so acks that came
 * meanwhile wait in its backlog: process them (write_space runs, and
 * sees the flag if it frees room), then look once more. True: try
 * again now (once; the flag stays set, so a drain during that try
 * still kicks). Acks arriving later are processed by our
 * release_sock(), or by softirq after it: write_space sees the flag.
 *
 * Setting the flag only on a refusal, not before every write, matters:
 * a write on a fast path (veth, loopback) has its ack processed before
 * release_sock() returns, and write_space would kick the send worker
 * for nothing, a context switch per message.
 */
static bool rds_tcp_xmit_blocked(struct rds_tcp_conn *tc, struct sock *sk,
				 bool *retried)
{
	WRITE_ONCE(tc->t_xmit_blocked, true);
	/* Pairs with the one in tcp_check_space(): flag, then room. */
	smp_mb();
	if (*retried)
		return false;
	sk_flush_backlog(sk);
	if (!sk_stream_is_writeable(sk))
		return false;
	*retried = true;
	return true;
}

/* Write what is left of @rm from *@pos, the socket locked: 0 when all
 * of it is in the socket, -EAGAIN when it is full, or its error.
 */
static int rds_tcp_xmit_locked(struct rds_tcp_conn *tc, struct sock *sk,
			       struct rds_message *rm, unsigned int *pos)
{
	unsigned int total = sizeof(rm->m_hdr) + rm->m_len;
	bool by_ref = test_bit(RDS_MSG_ZCOPY, &rm->m_flags) ||
		      rm->m_len > RDS_TCP_COPY_MAX;
	struct socket *sock = sk->sk_socket;
	struct rds_tcp_vecs v;
	bool splice, retried = false;
	int ret;

	while (*pos < total) {
		splice = by_ref && *pos >= sizeof(rm->m_hdr);
		rds_tcp_vecs_fill(&v, rm, *pos, by_ref);
		/* write_space runs only with this set: it is how acks reach us. */
		set_bit(SOCK_NOSPACE, &sock->flags);
		ret = rds_tcp_send_locked(sk, &v, splice,
					  *pos + v.bytes < total);
		if (ret > 0)
			*pos += ret;
		if (ret == -EAGAIN || (ret >= 0 && ret < v.bytes)) {
			if (rds_tcp_xmit_blocked(tc, sk, &retried))
				continue;
			rds_tcp_stat_inc(RDS_TCP_STAT_SNDBUF_FULL);
			return -EAGAIN;
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

/**
 * rds_tcp_xmit - write a message, or as much of it as fits
 * @conn: the connection (UP; the core's transmit lock is held)
 * @rm: the message
 * @pos: bytes of [header][payload] already written
 *
 * A payload of up to RDS_TCP_COPY_MAX is copied with the header into
 * the socket's own page fragments, as TCP copies its own senders' data:
 * a spliced page stays TCP's until the peer acks it, so it could not go
 * back to the kept payload pages (net/msg_pages.c), and each message
 * would take fresh pages, zeroed on allocation (init_on_alloc), which
 * costs as much as the copy and an allocation and free besides. A larger
 * one, of which a few in flight outnumber the kept pages anyway, and a
 * zero-copy sender's pinned pages are spliced into TCP, the header
 * copied ahead of them.
 *
 * The socket is locked once for the message (not once for each piece,
 * and for each page before 6.5), and written with tcp_sendmsg_locked():
 * one lock, and no security hook per piece, for a socket only we use.
 *
 * Return: 0 when all of it is in the socket, -EAGAIN when the socket is
 * full (write_space kicks the sender), or the socket's error.
 */
int rds_tcp_xmit(struct rds_connection *conn, struct rds_message *rm,
		 unsigned int *pos)
{
	struct rds_tcp_conn *tc = rds_tcp_conn(conn);
	unsigned int total = sizeof(rm->m_hdr) + rm->m_len;
	struct socket *sock = tc->t_sock;
	u32 una;
	int ret;

	rds_conn_assert_xmit_held(conn);
	if (!sock)
		return -ENOTCONN;
	lock_sock(sock->sk);
	if (!*pos)
		rm->m_ack_seq = (u32)(tcp_sk(sock->sk)->write_seq + total - 1);
	ret = rds_tcp_xmit_locked(tc, sock->sk, rm, pos);
	release_sock(sock->sk);
	if (ret)
		return ret;
	WRITE_ONCE(tc->t_xmit_blocked, false);
	tc->t_last_sent_nxt = READ_ONCE(tcp_sk(sock->sk)->write_seq);
	tc->t_last_expected_una = (u32)rm->m_ack_seq + 1;
	/* rds_tcp_is_acked() reads m_ack_seq only after seeing the bit. */
	smp_mb__before_atomic();
	set_bit(RDS_MSG_HAS_ACK_SEQ, &rm->m_flags);
	/* An ack processed while we wrote (the peer's TCP answers at once
	 * on a fast link; release_sock() ran write_space) found the bit
	 * clear: without this look the message would wait for the next
	 * ack, on an idle connection the keepalive probe's.
	 */
	smp_mb__after_atomic();
	una = READ_ONCE(tcp_sk(sock->sk)->snd_una);
	if (rds_tcp_is_acked(rm, una))
		rds_send_drop_acked_fn(conn, rds_tcp_is_acked, una);
	return 0;
}

/**
 * rds_tcp_write_space - TCP freed send buffer: acks arrived
 * @sk: the connection's socket
 *
 * Retires the messages the peer's TCP acked and restarts a sender that
 * ran out of room.
 *
 * Context: softirq or the socket owner's release_sock().
 */
void rds_tcp_write_space(struct sock *sk)
{
	void (*orig)(struct sock *sk);
	struct rds_connection *conn;
	struct rds_tcp_conn *tc;
	u32 una;

	read_lock_bh(&sk->sk_callback_lock);
	tc = sk->sk_user_data;
	if (!tc) {
		orig = sk->sk_write_space;
		goto out;
	}
	orig = tc->t_orig.write_space;
	conn = rds_tcp_to_conn(tc);
	rds_tcp_stat_inc(RDS_TCP_STAT_WRITE_SPACE_CALLS);

	una = READ_ONCE(tcp_sk(sk)->snd_una);
	WRITE_ONCE(tc->t_last_seen_una, una);
	rds_send_drop_acked_fn(conn, rds_tcp_is_acked, una);
	if (READ_ONCE(tc->t_xmit_blocked) && sk_stream_is_writeable(sk))
		rds_send_kick(conn);
out:
	read_unlock_bh(&sk->sk_callback_lock);
	orig(sk);
	/* The kernel's write_space may clear it; we want every ack. */
	if (sk->sk_socket)
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
}
