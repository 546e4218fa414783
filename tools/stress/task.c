// SPDX-License-Identifier: GPL-2.0
/*
 * rds-stress task: binds one RDS socket, keeps up to -d requests in flight
 * to the peer side's tasks (round robin), answers every request with an
 * ack, and counts everything in its slot of the shared statistics.
 * Sockets are used non-blocking; the task sleeps in poll() when it has
 * nothing to do.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/rds.h>
#include <linux/rds_uek.h>

#include "lib/sock.h"
#include "lib/util.h"
#include "stress/msg.h"
#include "stress/rdma.h"
#include "stress/task.h"

/* --async tokens have the top bit set; RDMA notifications carry a
 * sequence number (rdma.c), which never does.
 */
#define ASYNC_TOKEN	(1ull << 63)
/* After the run, how long a task waits for its last notifications. */
#define ASYNC_DRAIN_NS	(5ull * 1000000000ull)
/* --rerequest-ms: how often the requests in flight are looked at, and
 * how many requests given up each slot remembers (for late acks). */
#define REREQUEST_SCAN_NS	(100ull * 1000000ull)
#define GAVE_UP_KEPT		4

/* An ack we owe but could not send yet. */
struct pending {
	uint16_t	peer;		/* peer task index */
	uint16_t	req_task;
	uint8_t		rdma_op;
	uint32_t	slot, rdma_len;
	uint64_t	seq, ts, rdma_addr, cookie;
};

struct task {
	const struct stress_opts	*o;
	struct stress_shared		*sh;
	struct task_stats		*st;
	unsigned int			idx;
	int				fd;
	struct rds_ep			peer;
	uint16_t			peer_base;
	int				send_requests;
	uint64_t			seq;
	uint32_t			inflight, next_peer;
	uint8_t				*tx, *rx;
	size_t				rx_size;
	struct pending			*acks;		/* ring */
	uint32_t			ack_cap, ack_head, ack_count;
	uint32_t			*free_slots, nfree;
	/* -v: the next request and ack sequence number expected from each
	 * peer task (see check_seq). */
	uint64_t			*exp_req, *exp_ack;
	/* --rerequest-ms, per slot: the request in flight on it (0: none),
	 * when it went, and the last GAVE_UP_KEPT given up on it. */
	uint64_t			*slot_seq, *slot_sent_ns, *slot_gave_up;
	uint64_t			next_scan_ns;
	struct rdma_state		rdma;
};

static void __attribute__((noreturn, format(printf, 3, 4)))
task_fail(struct task *t, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->st->msg, sizeof(t->st->msg), fmt, ap);
	va_end(ap);
	if (err && n >= 0 && (size_t)n < sizeof(t->st->msg))
		snprintf(t->st->msg + n, sizeof(t->st->msg) - n, ": %s", strerror(err));
	t->st->err = err;
	__atomic_store_n(&t->st->state, TASK_FAILED, __ATOMIC_RELEASE);
	_exit(1);
}

static void *xcalloc(struct task *t, size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		task_fail(t, ENOMEM, "task %u: allocating %zu x %zu bytes", t->idx, n, size);
	return p;
}

/* Would-block conditions: retry later rather than fail. */
static int transient(int err)
{
	return err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS ||
	       err == EINTR || err == ENOMEM;
}

static void task_setup(struct task *t, const struct task_plan *p)
{
	const struct stress_opts *o = p->o;
	char a[RDS_EP_STRLEN];
	size_t big = o->req_size > o->ack_size ? o->req_size : o->ack_size;
	int rc, bufsz;
	uint32_t i;

	t->fd = rds_open();
	if (o->transport >= 0 &&
	    setsockopt(t->fd, SOL_RDS, SO_RDS_TRANSPORT, &o->transport, sizeof(o->transport)))
		task_fail(t, errno, "setsockopt(SO_RDS_TRANSPORT, %s)",
			  rds_transport_name(o->transport));
	/* Room for everything that can be in flight to or from this socket. */
	bufsz = (int)((o->depth + (uint64_t)o->tasks * o->depth) * (big + 256) * 2);
	if (bufsz < 0 || bufsz > (64 << 20))
		bufsz = 64 << 20;
	rds_set_bufs(t->fd, bufsz);
	if (o->flags & SF_CONG_MON) {
		uint64_t mask = ~0ull;

		if (setsockopt(t->fd, SOL_RDS, RDS_CONG_MONITOR, &mask, sizeof(mask)))
			task_fail(t, errno, "setsockopt(RDS_CONG_MONITOR)");
	}
	rc = rds_bind(t->fd, &p->local);
	t->st->unsupported = rds_bind_unsupported(rc);
	if (rc)
		task_fail(t, -rc, "task %u: bind(%s)%s", t->idx, rds_ep_str(&p->local, a),
			  rds_bind_unsupported(rc) ? " (this RDS cannot carry data)" : "");

	/* The type of service belongs to the bound socket's transport. */
	if (o->tos) {
		rds_tos_t tos = o->tos;

		if (ioctl(t->fd, SIOCRDSSETTOS, &tos)) {
			t->st->unsupported = errno == ENOTTY || errno == EOPNOTSUPP;
			task_fail(t, errno, "task %u: type of service -Q %u%s: ioctl(SIOCRDSSETTOS)",
				  t->idx, o->tos, t->st->unsupported ?
				  " not supported by this transport" : "");
		}
	}

	t->tx = xcalloc(t, big, 1);
	t->rx_size = big + 64;
	t->rx = xcalloc(t, t->rx_size, 1);
	t->ack_cap = o->tasks * o->depth + 1;
	t->acks = xcalloc(t, t->ack_cap, sizeof(*t->acks));
	t->free_slots = xcalloc(t, o->depth, sizeof(uint32_t));
	for (i = 0; i < o->depth; i++)
		t->free_slots[t->nfree++] = o->depth - 1 - i;
	/* Task p numbers its requests 1, 2, 3... and sends request s to peer
	 * task (s - 1) % tasks (send_request), so task idx gets idx + 1,
	 * idx + 1 + tasks, ... from each peer, and the acks from peer p echo
	 * our requests to it: p + 1, p + 1 + tasks, ... RDS delivers each
	 * stream exactly once, in order. */
	t->exp_req = xcalloc(t, o->tasks, sizeof(uint64_t));
	t->exp_ack = xcalloc(t, o->tasks, sizeof(uint64_t));
	for (i = 0; i < o->tasks; i++) {
		t->exp_req[i] = t->idx + 1;
		t->exp_ack[i] = i + 1;
	}
	if (o->rerequest_ms) {
		t->slot_seq = xcalloc(t, o->depth, sizeof(uint64_t));
		t->slot_sent_ns = xcalloc(t, o->depth, sizeof(uint64_t));
		t->slot_gave_up = xcalloc(t, (size_t)o->depth * GAVE_UP_KEPT,
					  sizeof(uint64_t));
	}
	if (o->rdma_size) {
		char why[160];

		rc = rdma_setup(&t->rdma, t->fd, o, t->ack_cap, why, sizeof(why));
		t->st->unsupported = rc != -ENOMEM;
		if (rc)
			task_fail(t, 0, "task %u: %s", t->idx, why);
	}
}

/* -V: one line per message on stderr. */
static void trace_msg(struct task *t, const char *dir, const uint8_t *buf, size_t len,
		      unsigned int port)
{
	const struct stress_hdr *h = (const struct stress_hdr *)buf;

	if (len < sizeof(*h)) {
		fprintf(stderr, "task %u: %s %zu bytes, port %u\n", t->idx, dir, len, port);
		return;
	}
	fprintf(stderr, "task %u: %s %s seq %llu slot %u, %zu bytes, port %u\n", t->idx,
		dir, h->type == MSG_REQ ? "request" : h->type == MSG_ACK ? "ack" : "?",
		(unsigned long long)be64toh(h->seq), be32toh(h->slot), len, port);
}

/* sendmsg() with timing: 1 sent, 0 would block, -errno failed. With
 * --async, an RDS_CMSG_ASYNC_SEND follows the caller's control messages.
 */
static int task_send(struct task *t, uint16_t peer, size_t len,
		     void *ctl, size_t ctl_len)
{
	char buf[CMSG_SPACE(sizeof(struct rds_rdma_args)) +
		 CMSG_SPACE(sizeof(struct rds_asend_args))] __attribute__((aligned(8)));
	struct rds_ep to = t->peer;
	struct iovec iov = { t->tx, len };
	struct msghdr msg = {
		.msg_name = &to.ss, .msg_namelen = to.len,
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl_len ? ctl : NULL, .msg_controllen = ctl_len,
	};
	int async = !!(t->o->flags & SF_ASYNC);
	uint64_t t0;
	ssize_t rc;

	if (async) {
		struct rds_asend_args a = {
			.user_token = ASYNC_TOKEN | (t->st->async_sent + 1),
			.flags = RDS_SEND_NOTIFY_ME,
		};
		struct cmsghdr *c;

		if (ctl_len > sizeof(buf) - CMSG_SPACE(sizeof(a)))
			task_fail(t, 0, "task %u: control messages too long", t->idx);
		memcpy(buf, ctl, ctl_len);
		c = (struct cmsghdr *)(buf + ctl_len);
		c->cmsg_level = SOL_RDS;
		c->cmsg_type = RDS_CMSG_ASYNC_SEND;
		c->cmsg_len = CMSG_LEN(sizeof(a));
		memcpy(CMSG_DATA(c), &a, sizeof(a));
		msg.msg_control = buf;
		msg.msg_controllen = ctl_len + CMSG_SPACE(sizeof(a));
	}
	rds_ep_set_port(&to, t->peer_base + peer);
	t0 = now_ns();
	rc = sendmsg(t->fd, &msg, MSG_DONTWAIT);
	t->st->tx_ns += now_ns() - t0;
	t->st->tx_calls++;
	if (rc < 0) {
		/* Linux's RDS knows no RDS_CMSG_ASYNC_SEND. */
		if (async && errno == EINVAL && !t->st->async_sent) {
			t->st->unsupported = 1;
			task_fail(t, EINVAL, "task %u: --async: sendmsg with "
				  "RDS_CMSG_ASYNC_SEND (not served by this RDS?)", t->idx);
		}
		return transient(errno) ? 0 : -errno;
	}
	t->st->tx++;
	t->st->tx_bytes += len;
	t->st->async_sent += async;
	if (t->o->trace)
		trace_msg(t, "sent", t->tx, len, rds_ep_port(&to));
	return 1;
}

static void fill_hdr(struct task *t, uint8_t type, size_t len, uint64_t seq)
{
	struct stress_hdr *h = (struct stress_hdr *)t->tx;

	memset(h, 0, sizeof(*h));
	h->magic = htobe32(STRESS_MSG_MAGIC);
	h->type = type;
	h->task = htobe16(t->idx);
	h->len = htobe32(len);
	h->seq = htobe64(seq);
	if (t->o->flags & SF_VERIFY)
		stress_fill(t->tx, sizeof(*h), len, t->idx, seq);
}

static int send_request(struct task *t)
{
	const struct stress_opts *o = t->o;
	struct stress_hdr *h = (struct stress_hdr *)t->tx;
	uint16_t peer = t->next_peer % o->tasks;
	uint32_t slot = t->free_slots[t->nfree - 1];
	uint64_t seq = t->seq + 1;
	char ctl[CMSG_SPACE(sizeof(struct rds_get_mr_args))];
	size_t ctl_len = 0;
	int rc;

	fill_hdr(t, MSG_REQ, o->req_size, seq);
	h->slot = htobe32(slot);
	h->ts = htobe64(now_ns());
	if (o->rdma_size) {
		rc = rdma_prepare_request(&t->rdma, slot, t->idx, seq, h, ctl, &ctl_len);
		if (rc == -ENODEV)
			goto plain;
		if (rc)
			task_fail(t, -rc, "task %u: registering RDMA memory", t->idx);
	}
	rc = task_send(t, peer, o->req_size, ctl, ctl_len);
	if (rc == -ENODEV && ctl_len) {
		rdma_request_unsent(&t->rdma, slot);
		goto plain;
	}
	if (rc <= 0) {
		if (o->rdma_size)
			rdma_request_unsent(&t->rdma, slot);
		return rc;
	}
	goto sent;
plain:
	/* No device for our address yet: a plain request sets up the
	 * connection, later ones carry RDMA. */
	t->st->rdma_deferred++;
	h->rdma_op = RDMA_OP_NONE;
	h->rdma_cookie = 0;
	h->rdma_len = 0;
	rc = task_send(t, peer, o->req_size, NULL, 0);
	if (rc <= 0)
		return rc;
sent:
	if (t->slot_seq) {
		t->slot_seq[slot] = seq;
		t->slot_sent_ns[slot] = be64toh(h->ts);
	}
	t->seq = seq;
	t->nfree--;
	t->inflight++;
	t->next_peer++;
	return 1;
}

static int send_ack(struct task *t, const struct pending *pa)
{
	struct stress_hdr *h = (struct stress_hdr *)t->tx;
	char ctl[CMSG_SPACE(sizeof(struct rds_rdma_args))];
	size_t ctl_len = 0;
	int rc;

	fill_hdr(t, MSG_ACK, t->o->ack_size, pa->seq);
	h->slot = htobe32(pa->slot);
	h->ts = htobe64(pa->ts);
	h->rdma_op = pa->rdma_op;
	if (pa->rdma_op)
		rdma_prepare_ack(&t->rdma, t->ack_head, pa->rdma_op, pa->req_task,
				 pa->seq, pa->rdma_addr, pa->rdma_len, pa->cookie,
				 ctl, &ctl_len);
	rc = task_send(t, pa->peer, t->o->ack_size, ctl, ctl_len);
	if (rc > 0 && pa->rdma_op) {
		if (pa->rdma_op == RDMA_OP_WRITE)
			t->st->rdma_out += pa->rdma_len;
		else
			t->st->rdma_in += pa->rdma_len;
	}
	return rc;
}

static void got_request(struct task *t, const struct stress_hdr *h, uint16_t peer,
			uint64_t cookie)
{
	struct pending *pa;

	if (t->ack_count == t->ack_cap)	/* cannot happen: recv stops first */
		return;
	pa = &t->acks[(t->ack_head + t->ack_count) % t->ack_cap];
	pa->peer = peer;
	pa->req_task = be16toh(h->task);
	pa->slot = be32toh(h->slot);
	pa->seq = be64toh(h->seq);
	pa->ts = be64toh(h->ts);
	pa->rdma_op = t->o->rdma_size ? h->rdma_op : RDMA_OP_NONE;
	pa->rdma_addr = be64toh(h->rdma_addr);
	pa->rdma_len = be32toh(h->rdma_len);
	pa->cookie = h->rdma_cookie ? be64toh(h->rdma_cookie) : cookie;
	t->ack_count++;
}

/* One message of a peer's request or ack stream: exactly the next one
 * expected, or counted as a duplicate (seen before) or out of order (one
 * before it is missing; the count resynchronises after it). */
static void check_seq(struct task *t, uint64_t *expected, uint64_t seq)
{
	if (seq == *expected) {
		*expected += t->o->tasks;
		return;
	}
	t->st->verify_errors++;
	if (seq < *expected) {
		t->st->duplicates++;
	} else {
		t->st->out_of_order++;
		*expected = seq + t->o->tasks;
	}
}

/* Was request @seq given up on @slot (one of the last GAVE_UP_KEPT)? */
static int gave_up_on(const struct task *t, uint32_t slot, uint64_t seq)
{
	const uint64_t *g = &t->slot_gave_up[(size_t)slot * GAVE_UP_KEPT];
	int i;

	for (i = 0; seq && i < GAVE_UP_KEPT; i++)
		if (g[i] == seq)
			return 1;
	return 0;
}

static void got_ack(struct task *t, const struct stress_hdr *h)
{
	uint32_t slot = be32toh(h->slot);
	uint64_t rtt = now_ns() - be64toh(h->ts), us = rtt / 1000;
	int b = 0;

	if (slot < t->o->depth && t->slot_seq) {
		uint64_t seq = be64toh(h->seq);

		/* The ack of a request given up: not lost after all, only
		 * slower than --rerequest-ms. Anything else that does not
		 * match the slot's request is a duplicate or garbage.
		 */
		if (seq != t->slot_seq[slot]) {
			if (gave_up_on(t, slot, seq))
				t->st->late_acks++;
			else
				t->st->verify_errors++;
			return;
		}
		t->slot_seq[slot] = 0;
	}
	if (slot >= t->o->depth || !t->inflight) {
		t->st->verify_errors++;
		return;
	}
	t->st->rtt_ns += rtt;
	t->st->rtt_n++;
	if (us > t->o->outlier_us) {
		t->st->outliers++;
		/* rds-tools' form: the round trip in microseconds, in hex. */
		fprintf(stderr, "Found RTT = 0x%llx\n", (unsigned long long)us);
	}
	while (us > 1 && b < HIST_BUCKETS - 1) {
		us >>= 1;
		b++;
	}
	t->st->hist[b]++;
	if (t->o->rdma_size)
		t->st->verify_errors += rdma_complete_request(&t->rdma, slot, t->idx,
						be64toh(h->seq), h->rdma_op,
						t->o->flags & SF_VERIFY);
	t->free_slots[t->nfree++] = slot;
	t->inflight--;
}

/* An --async send's notification: count it by status. */
static void async_done(struct task *t, const struct rds_rdma_notify *nt)
{
	switch (nt->status) {
	case RDS_RDMA_SUCCESS: t->st->async_ok++; break;
	case RDS_RDMA_CANCELED: t->st->async_canceled++; break;
	case RDS_RDMA_DROPPED: t->st->async_dropped++; break;
	default: t->st->async_other++; break;
	}
	if (t->o->trace)
		fprintf(stderr, "task %u: async send %llu: status %d\n", t->idx,
			(unsigned long long)(nt->user_token & ~ASYNC_TOKEN), nt->status);
}

static uint64_t async_notified(const struct task_stats *st)
{
	return st->async_ok + st->async_canceled + st->async_dropped + st->async_other;
}

/* Receive one message: 1 done, 0 nothing there, -errno failed. */
static int recv_one(struct task *t)
{
	char ctl[512];
	struct sockaddr_storage from;
	struct iovec iov = { t->rx, t->rx_size };
	struct msghdr msg = {
		.msg_name = &from, .msg_namelen = sizeof(from),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	const struct stress_hdr *h = (const struct stress_hdr *)t->rx;
	struct rds_ep src;
	struct cmsghdr *c;
	uint64_t cookie = 0;
	int peer, ctl_only = 0;
	ssize_t n;

	n = recvmsg(t->fd, &msg, MSG_DONTWAIT);
	if (n < 0)
		return transient(errno) ? 0 : -errno;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_RDS)
			continue;
		switch (c->cmsg_type) {
		case RDS_CMSG_RDMA_DEST:
			if (c->cmsg_len < CMSG_LEN(sizeof(cookie)))
				break;
			memcpy(&cookie, CMSG_DATA(c), sizeof(cookie));
			break;
		case RDS_CMSG_CONG_UPDATE:
			t->st->cong_updates++;
			ctl_only = 1;
			break;
		case RDS_CMSG_RDMA_STATUS: {
			struct rds_rdma_notify nt;

			/* A cut-short one (MSG_CTRUNC) is not read past. */
			if (c->cmsg_len < CMSG_LEN(sizeof(nt)))
				break;
			memcpy(&nt, CMSG_DATA(c), sizeof(nt));
			if (nt.user_token & ASYNC_TOKEN) {
				async_done(t, &nt);
			} else if (nt.status) {
				t->st->rdma_errors++;
				t->st->rdma_dropped += nt.status == RDS_RDMA_DROPPED;
			}
			ctl_only = 1;
			break;
		}
		}
	}
	if (ctl_only && n == 0)
		return 1;
	t->st->rx++;
	t->st->rx_bytes += n;
	memcpy(&src.ss, &from, sizeof(from));
	src.len = msg.msg_namelen;
	if (t->o->trace)
		trace_msg(t, "received", t->rx, n, rds_ep_port(&src));
	peer = (int)rds_ep_port(&src) - t->peer_base;
	if ((size_t)n < sizeof(*h) || (msg.msg_flags & MSG_TRUNC) ||
	    be32toh(h->magic) != STRESS_MSG_MAGIC || be32toh(h->len) != (size_t)n ||
	    peer < 0 || peer >= (int)t->o->tasks || be16toh(h->task) != peer) {
		t->st->verify_errors++;
		return 1;
	}
	if (t->o->flags & SF_VERIFY) {
		t->st->verify_errors += !!stress_check_fill(t->rx, sizeof(*h), n, peer,
							    be64toh(h->seq));
		if (h->type == MSG_REQ)
			check_seq(t, &t->exp_req[peer], be64toh(h->seq));
		/* A request given up leaves a gap in its peer's acks:
		 * got_ack matches each ack to its slot's request instead.
		 */
		else if (h->type == MSG_ACK && !t->slot_seq)
			check_seq(t, &t->exp_ack[peer], be64toh(h->seq));
	}
	if (h->type == MSG_REQ)
		got_request(t, h, peer, cookie);
	else if (h->type == MSG_ACK)
		got_ack(t, h);
	else
		t->st->verify_errors++;
	return 1;
}

/* --rerequest-ms: give up the requests unanswered for that long and free
 * their slots, which send_request fills with new requests. RDS never
 * loses a message silently, but it drops a message whose RDMA was in
 * flight when its connection went down rather than do the RDMA twice,
 * and tells the sender (RDS_RDMA_DROPPED): such an ack never comes.
 */
static void rerequest_scan(struct task *t)
{
	uint64_t now = now_ns(), after = t->o->rerequest_ms * 1000000ull, *g;
	uint32_t slot;

	if (now < t->next_scan_ns)
		return;
	t->next_scan_ns = now + REREQUEST_SCAN_NS;
	for (slot = 0; slot < t->o->depth; slot++) {
		if (!t->slot_seq[slot] || now - t->slot_sent_ns[slot] < after)
			continue;
		if (t->o->trace)
			fprintf(stderr, "task %u: request %llu on slot %u unanswered for %u ms: "
				"given up\n", t->idx, (unsigned long long)t->slot_seq[slot],
				slot, t->o->rerequest_ms);
		/* Its region goes: an RDMA that still came would be refused. */
		if (t->o->rdma_size)
			rdma_request_given_up(&t->rdma, slot);
		g = &t->slot_gave_up[(size_t)slot * GAVE_UP_KEPT];
		memmove(g + 1, g, (GAVE_UP_KEPT - 1) * sizeof(*g));
		g[0] = t->slot_seq[slot];
		t->slot_seq[slot] = 0;
		t->free_slots[t->nfree++] = slot;
		t->inflight--;
		t->st->rerequests++;
	}
}

/* Mark the task wound down once the parent said stop and no request of
 * ours is in flight: each ack comes after the peer's RDMA on the region
 * the request named, so none is aimed at our regions any more when we
 * exit and they go. Until the parent says quit, the task keeps answering
 * the peer's requests, whose regions the peer frees the same way.
 */
static void wind_down(struct task *t, uint64_t *by)
{
	if (!t->sh->stop || t->st->drained)
		return;
	if (!*by)
		*by = now_ns() + task_wind_down_ns(t->o);
	if (!t->inflight || now_ns() > *by)
		__atomic_store_n(&t->st->drained, 1, __ATOMIC_RELEASE);
}

static void task_loop(struct task *t)
{
	uint64_t drain_by = 0;

	while (!t->sh->quit) {
		int progress = 0, blocked = 0, rc, budget;
		struct pollfd pfd = { .fd = t->fd, .events = POLLIN };

		wind_down(t, &drain_by);
		if (t->slot_seq && !t->sh->stop)
			rerequest_scan(t);

		while (t->ack_count) {
			rc = send_ack(t, &t->acks[t->ack_head]);
			if (rc < 0)
				task_fail(t, -rc, "task %u: sending an ack", t->idx);
			if (!rc) {
				blocked = 1;
				break;
			}
			t->ack_head = (t->ack_head + 1) % t->ack_cap;
			t->ack_count--;
			progress++;
		}
		while (t->send_requests && !t->sh->stop && !blocked &&
		       t->inflight < t->o->depth) {
			rc = send_request(t);
			if (rc < 0)
				task_fail(t, -rc, "task %u: sending a request", t->idx);
			if (!rc)
				blocked = 1;
			else
				progress++;
		}
		for (budget = 64; budget && t->ack_count < t->ack_cap; budget--) {
			rc = recv_one(t);
			if (rc < 0)
				task_fail(t, -rc, "task %u: receiving", t->idx);
			if (!rc)
				break;
			if (t->sh->stop)
				t->st->last_rx_ns = now_ns();
			progress++;
		}
		/* Winding down, the parent's stop and quit come without a
		 * packet: look for them often, or every run ends 100 ms later.
		 */
		if (!progress && poll(&pfd, 1, blocked ? 1 : t->sh->stop ? 2 : 50) < 0 &&
		    errno != EINTR)
			task_fail(t, errno, "task %u: poll", t->idx);
	}
}

/* --async: every message sent reports how it ended; wait (a while) for
 * the last notifications, so the counts can be compared. The peer keeps
 * its socket open while it drains its own, so our last messages still
 * reach a socket and are acked.
 */
static void async_drain(struct task *t)
{
	uint64_t deadline = now_ns() + ASYNC_DRAIN_NS;

	while (async_notified(t->st) < t->st->async_sent && now_ns() < deadline) {
		struct pollfd pfd = { .fd = t->fd, .events = POLLIN };
		int rc = recv_one(t);

		if (rc < 0)
			task_fail(t, -rc, "task %u: receiving notifications", t->idx);
		if (!rc && poll(&pfd, 1, 10) < 0 && errno != EINTR)
			task_fail(t, errno, "task %u: poll", t->idx);
	}
}

void task_main(const struct task_plan *p)
{
	struct task t = {
		.o = p->o, .sh = p->sh, .st = &p->sh->task[p->idx], .idx = p->idx,
		.peer = p->peer, .peer_base = p->peer_base,
		.send_requests = p->send_requests,
	};

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	task_setup(&t, p);
	__atomic_store_n(&t.st->state, TASK_READY, __ATOMIC_RELEASE);
	while (!t.sh->go && !t.sh->stop)
		usleep(1000);
	task_loop(&t);
	if (t.o->flags & SF_ASYNC)
		async_drain(&t);
	t.st->unanswered = t.slot_seq ? t.inflight : 0;
	/* Registrations and the socket go with the process. */
	__atomic_store_n(&t.st->state, TASK_DONE, __ATOMIC_RELEASE);
	_exit(0);
}
