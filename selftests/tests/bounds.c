// SPDX-License-Identifier: GPL-2.0
/*
 * Bounds and keys (issue 9, "Hardening the core"): what a local user can
 * make the kernel hold, and what an RDMA key lets a peer touch.
 *
 * Behaviour these tests assume (from the issue; the lead implements it):
 *  - every message is charged its payload plus a fixed overhead, which we
 *    assume is at least MIN_OVH bytes, so zero-byte messages count; a
 *    receiver that never reads holds at most its SO_RCVBUF (as getsockopt
 *    reports it) plus one message; nonblocking senders then get ENOBUFS
 *    (the congestion errno cong.c checks);
 *  - a send to an address no transport can serve from the bound address
 *    fails with ENETUNREACH and creates no connection;
 *  - net.rds.max_connections caps a namespace's connections (a send that
 *    needs one more fails with ENOBUFS); net.rds.conn_idle_ms reaps idle
 *    connections;
 *  - RDMA keys (low 32 bits of a cookie) are random; a re-registered
 *    region gets a new key; a region registered for a destination
 *    (RDS_GET_MR_FOR_DEST, RDS_CMSG_RDMA_MAP) accepts RDMA only from that
 *    peer address (others: RDS_RDMA_REMOTE_ERROR, memory untouched);
 *  - RDS_CMSG_RDMA_STATUS has zeroed padding; unread notifications are
 *    charged to the sender (sends stop with EAGAIN/ENOBUFS);
 *  - pages pinned for RDMA args and atomics count against RLIMIT_MEMLOCK
 *    without CAP_IPC_LOCK (ENOMEM);
 *  - an ephemeral bind on an address with every port taken fails with
 *    EADDRINUSE, quickly.
 * Status of each on main at 7bf7dbb: in each test's comment.  All skip on
 * Linux's in-tree RDS, which has none of this on loopback.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/ioctl.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/rds_netns.h"
#include "../lib/rds_harden.h"

#define MIN_OVH 32	/* assumed least per-message charge, bytes */

static int all_bytes(const void *p, size_t n, unsigned char v)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++ != v)
			return 0;
	return 1;
}

/* ---- memory bound ------------------------------------------------------ */

/* Unread messages queued on the socket bound to @ra and their bytes. */
static void held(int fd, const struct rds_addr *ra, long *nr_out,
		 long *bytes)
{
	struct rds_info_message *m;
	int nr, each, i;

	m = rds_info(fd, RDS_INFO_RECV_MESSAGES, &nr, &each);
	*nr_out = 0;
	*bytes = 0;
	for (i = 0; i < nr; i++)
		if (m[i].lport == ra->in.sin_port &&
		    m[i].laddr == ra->in.sin_addr.s_addr) {
			(*nr_out)++;
			*bytes += m[i].len;
		}
	free(m);
}

/*
 * A receiver that never reads, a nonblocking sender of @size-byte
 * messages: the sender must be stopped (ENOBUFS) and the receiver hold at
 * most SO_RCVBUF plus one message.
 */
static void memory_bound(size_t size, int rcvbuf)
{
	struct rds_objs base = rds_objs_now();
	long limit = size ? (4L * 2 * rcvbuf) / (long)size + 16 : 20000;
	long sent = 0, nr, bytes, inc0, eagain = 0, i;
	int r, s, got;
	socklen_t l = sizeof(got);
	struct rds_addr ra;
	char *buf;
	ssize_t w;

	RDS_SKIP_IF_INTREE("the loopback transport does not bound receive "
			   "queues");
	buf = calloc(1, size ? size : 1);
	r = rds_socket();
	rds_set_int(r, SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf);
	RDS_EXPECT_OK(getsockopt(r, SOL_SOCKET, SO_RCVBUF, &got, &l));
	ra = rds_addr4("127.0.0.1", 0);
	RDS_EXPECT_OK(bind(r, &ra.sa, ra.len));
	ra.len = sizeof(ra.ss);
	RDS_EXPECT_OK(getsockname(r, &ra.sa, &ra.len));
	s = rds_bound("127.0.0.1", 0, NULL);
	rds_set_int(s, SOL_SOCKET, SO_SNDBUFFORCE, 4 << 20);
	inc0 = rds_obj("incoming");
	for (i = 0; i < limit; i++) {
		w = sendto(s, buf, size, MSG_DONTWAIT, &ra.sa, ra.len);
		if (w == (ssize_t)size) {
			sent++;
			eagain = 0;
			continue;
		}
		if (w < 0 && errno == ENOBUFS)
			break;
		if (w < 0 && errno == EAGAIN && eagain++ < 50) {
			struct pollfd p = { .fd = s, .events = POLLOUT };

			poll(&p, 1, 100);
			continue;
		}
		RDS_FAIL("send %ld of %zu bytes: %zd %s", i, size, w,
			 strerror(errno));
	}
	rds_sleep_ms(100);
	held(r, &ra, &nr, &bytes);
	if (i == limit)
		RDS_FAIL("%ld sends of %zu bytes, never stopped (%ld held, "
			 "%ld bytes, SO_RCVBUF %d)", sent, size, nr, bytes,
			 got);
	if (bytes > got + (long)size)
		RDS_FAIL("%ld payload bytes held, SO_RCVBUF %d", bytes, got);
	if (nr > got / (long)(size + MIN_OVH) + 1)
		RDS_FAIL("%ld messages of %zu bytes held, SO_RCVBUF %d", nr,
			 size, got);
	/* The measured figures, for the record. */
	printf("# %zu-byte messages: %ld held (%ld payload bytes, %ld with "
	       "the %d-byte per-message charge), SO_RCVBUF %d\n", size, nr,
	       bytes, bytes + nr * 256, 256, got);
	if (inc0 >= 0 && rds_obj("incoming") - inc0 > nr + 1)
		RDS_FAIL("%ld incoming objects for %ld queued messages",
			 rds_obj("incoming") - inc0, nr);
	/* Drained, the sender gets through again. */
	while (recv(r, buf, size ? size : 1, MSG_DONTWAIT) >= 0)
		;
	rds_sleep_ms(100);
	rds_send(s, &ra, buf, size, 0);
	RDS_EXPECT(rds_recv(r, buf, size ? size : 1, MSG_TRUNC, NULL, NULL,
			    5000) == (ssize_t)size);
	close(r);
	close(s);
	free(buf);
	rds_objs_settle(&base, 5000);
}

/* FAILS on main at 7bf7dbb: zero-byte messages are not charged; 20000
 * are held (today only payload counts).
 */
RDS_TEST(memory_bound_0_byte_messages)
{
	memory_bound(0, 16384);
}

/* FAILS on main at 7bf7dbb if the per-message overhead is not charged
 * (16384 one-byte messages fit a 16 KiB rcvbuf today).
 */
RDS_TEST(memory_bound_1_byte_messages)
{
	memory_bound(1, 16384);
}

/* Passes on main (payload dominates). */
RDS_TEST(memory_bound_8k_messages)
{
	memory_bound(8192, 65536);
}

/* Passes on main (payload dominates). */
RDS_TEST(memory_bound_1m_messages)
{
	memory_bound(1 << 20, 2 << 20);
}

/* ---- unreachable destinations and connection caps ---------------------- */

static int conns_in_ns(void)
{
	int fd = rds_socket(), nr, each;

	free(rds_info(fd, RDS6_INFO_CONNECTIONS, &nr, &each));
	close(fd);
	return nr;
}

/*
 * FAILS on main at 7bf7dbb: the send succeeds and a connection to the
 * unreachable address is created through the loopback transport.
 */
RDS_TEST(unreachable_destination_enetunreach)
{
	static const char *const v4[] = { "10.1.2.3", "192.0.2.1",
					  "198.51.100.9" };
	struct rds_addr d;
	int s, s6, c0, i;
	long o0;

	RDS_SKIP_IF_INTREE("issue 9 behaviour");
	rds_new_netns(NULL);
	s = rds_bound("127.0.0.1", 0, NULL);
	s6 = rds_bound("::1", 0, NULL);
	c0 = conns_in_ns();
	o0 = rds_obj("connections");
	for (i = 0; i < 3; i++) {
		d = rds_addr4(v4[i], 4000);
		RDS_EXPECT_ERRNO(sendto(s, "u", 1, 0, &d.sa, d.len),
				 ENETUNREACH);
		RDS_EXPECT_ERRNO(sendto(s, "u", 1, MSG_DONTWAIT, &d.sa, d.len),
				 ENETUNREACH);
		RDS_EXPECT_OK(connect(s, &d.sa, d.len));
		RDS_EXPECT_ERRNO(send(s, "u", 1, 0), ENETUNREACH);
	}
	d = rds_addr6("2001:db8::1", 4000, 0);
	RDS_EXPECT_ERRNO(sendto(s6, "u", 1, 0, &d.sa, d.len), ENETUNREACH);
	RDS_EXPECT(conns_in_ns() == c0);
	RDS_EXPECT(rds_obj("connections") <= o0);
	close(s);
	close(s6);
}

/*
 * 10,000 sends to distinct unreachable destinations leave a bounded
 * number of connections.  FAILS on main at 7bf7dbb: one connection per
 * destination (stopped at 100).
 */
RDS_TEST(unreachable_10000_destinations_bounded)
{
	struct rds_addr d;
	long o0, o1;
	int s, i, c0, c1;

	RDS_SKIP_IF_INTREE("issue 9 behaviour");
	rds_new_netns(NULL);
	s = rds_bound("127.0.0.1", 0, NULL);
	c0 = conns_in_ns();
	o0 = rds_obj("connections");
	for (i = 0; i < 10000; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "10.%d.%d.%d", 100 + i / 65536,
			 (i / 256) % 256, i % 256);
		d = rds_addr4(ip, 4000 + i % 100);
		if (sendto(s, "u", 1, MSG_DONTWAIT, &d.sa, d.len) != 1 &&
		    errno != ENETUNREACH && errno != ENOBUFS &&
		    errno != EAGAIN)
			RDS_FAIL("send %d: %s", i, strerror(errno));
		/*
		 * Fail early: tearing down thousands of connections with the
		 * namespace stalls every connection setup on the node for
		 * minutes on main (see races.c,
		 * netns_exit_many_conns_no_global_stall).
		 */
		if (i % 100 == 99 && conns_in_ns() - c0 > 64)
			RDS_FAIL("%d new connections after %d unreachable "
				 "sends", conns_in_ns() - c0, i + 1);
	}
	c1 = conns_in_ns();
	o1 = rds_obj("connections");
	if (c1 - c0 > 64)
		RDS_FAIL("%d new connections after 10000 unreachable sends",
			 c1 - c0);
	if (o0 >= 0 && o1 - o0 > 64)
		RDS_FAIL("%ld new connection objects", o1 - o0);
	close(s);
}

static int write_sysctl(const char *name, int v)
{
	char path[128];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/rds/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fprintf(f, "%d\n", v) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/*
 * net.rds.max_connections: in a namespace capped at 6, sends to fresh
 * local peers succeed until the cap, then fail with ENOBUFS; the
 * namespace never lists more than 6.  FAILS on main at 7bf7dbb: no such
 * sysctl.
 */
RDS_TEST(max_connections_cap_enobufs)
{
	int s, i, r, enobufs = 0, ok = 0, cap = 6;
	struct rds_addr d;
	char ip[32];

	RDS_SKIP_IF_INTREE("issue 9 behaviour");
	rds_new_netns(NULL);
	close(rds_socket());
	r = write_sysctl("max_connections", cap);
	if (r)
		RDS_FAIL("net.rds.max_connections: %s", strerror(-r));
	s = rds_bound("127.0.0.1", 0, NULL);
	for (i = 0; i < 40; i++) {
		snprintf(ip, sizeof(ip), "127.0.3.%d", i + 1);
		d = rds_addr4(ip, 4000);
		if (sendto(s, "m", 1, MSG_DONTWAIT, &d.sa, d.len) == 1) {
			ok++;
			continue;
		}
		if (errno != ENOBUFS)
			RDS_FAIL("send %d: %s", i, strerror(errno));
		enobufs++;
	}
	RDS_EXPECT(ok >= 1);
	RDS_EXPECT(enobufs >= 40 - cap);
	if (conns_in_ns() > cap)
		RDS_FAIL("%d connections, cap %d", conns_in_ns(), cap);
	/* Existing connections keep working at the cap. */
	d = rds_addr4("127.0.3.1", 4000);
	RDS_EXPECT(sendto(s, "m", 1, MSG_DONTWAIT, &d.sa, d.len) == 1);
	close(s);
}

/*
 * net.rds.conn_idle_ms: connections with nothing queued or unacked go
 * away after the idle time (set to 500 ms: the sysctl must accept it);
 * a later send makes a new one.  FAILS on main
 * at 7bf7dbb: no such sysctl (connections live until unload).
 */
RDS_TEST(idle_connections_reaped)
{
	int s, r, i, n;
	struct rds_addr ra;
	char ip[32], buf[4];
	long long end;

	RDS_SKIP_IF_INTREE("issue 9 behaviour");
	rds_new_netns(NULL);
	close(rds_socket());
	r = write_sysctl("conn_idle_ms", 500);
	if (r)
		RDS_FAIL("net.rds.conn_idle_ms: %s", strerror(-r));
	s = rds_bound("127.0.0.1", 0, NULL);
	for (i = 0; i < 5; i++) {
		struct rds_addr d;

		snprintf(ip, sizeof(ip), "127.0.4.%d", i + 1);
		d = rds_addr4(ip, 4000);
		RDS_EXPECT(sendto(s, "i", 1, 0, &d.sa, d.len) == 1);
	}
	RDS_EXPECT(conns_in_ns() >= 5);
	end = rds_now_ms() + 10000;
	while ((n = conns_in_ns()) > 0 && rds_now_ms() < end)
		rds_sleep_ms(200);
	if (n)
		RDS_FAIL("%d connections still there after 10 s idle", n);
	/* And traffic still flows. */
	r = rds_bound("127.0.4.1", 0, &ra);
	rds_send(s, &ra, "i", 1, 0);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 3000) == 1);
	close(r);
	close(s);
}

/* ---- RDMA keys --------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * 10,000 registrations (each freed at once): keys all distinct, no delta
 * between consecutive keys repeats much or is small, every bit set in
 * 40-60% of them.  FAILS on main at 7bf7dbb: keys come from a counter.
 */
RDS_TEST(rdma_keys_unpredictable)
{
	enum { N = 10000 };
	static uint32_t k[N], sorted[N];
	int fd, i, b, small = 0, same = 0;
	char *p;
	uint64_t c;

	RDS_SKIP_IF_INTREE("no RDS_GET_MR on loopback");
	p = rds_pages(1);
	fd = rds_bound("127.0.0.1", 0, NULL);
	for (i = 0; i < N; i++) {
		RDS_EXPECT_OK(rds_get_mr(fd, p, 64, 0, &c));
		k[i] = (uint32_t)c;
		RDS_EXPECT_OK(rds_free_mr(fd, c, 0));
	}
	close(fd);
	memcpy(sorted, k, sizeof(k));
	qsort(sorted, N, sizeof(sorted[0]), cmp_u32);
	for (i = 1; i < N; i++)
		if (sorted[i] == sorted[i - 1])
			RDS_FAIL("key 0x%x issued twice", sorted[i]);
	for (i = 2; i < N; i++) {
		uint32_t d = k[i] - k[i - 1];

		small += d < 65536 || d > 0u - 65536;
		same += d == k[i - 1] - k[i - 2];
	}
	if (small > N / 100 || same > N / 100)
		RDS_FAIL("keys follow a pattern: %d small deltas, %d repeated "
			 "deltas in %d (e.g. 0x%x 0x%x 0x%x)", small, same, N,
			 k[0], k[1], k[2]);
	for (b = 0; b < 32; b++) {
		int set = 0;

		for (i = 0; i < N; i++)
			set += (k[i] >> b) & 1;
		if (set < N * 4 / 10 || set > N * 6 / 10)
			RDS_FAIL("key bit %d set in %d of %d keys", b, set, N);
	}
}

/* Wait for one status from @fd and return it. */
static int status_of(int fd)
{
	struct rds_rdma_notify n;

	if (rds_get_notify(fd, &n, 3000))
		RDS_FAIL("no RDMA notification");
	return n.status;
}

/*
 * Free a region and register the same memory again: the old cookie gets
 * RDS_RDMA_REMOTE_ERROR and touches nothing; the new one works.  Passes
 * on main (keys are never reused before 2^32 registrations).
 */
RDS_TEST(freed_mr_old_cookie_rejected)
{
	unsigned char *buf, *lbuf;
	struct rds_iovec iov;
	struct rds_addr ta;
	uint64_t old, cur;
	int t, s, i;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	buf = rds_pages(1);
	lbuf = rds_pages(1);
	iov = (struct rds_iovec){ (uintptr_t)lbuf, 256 };
	memset(lbuf, 0x5c, 256);
	t = rds_bound("127.0.0.1", 0, &ta);
	RDS_EXPECT_OK(rds_get_mr(t, buf, 256, 0, &old));
	for (i = 0; i < 100; i++) {
		/* A fresh initiator each time: 64 dead keys in a second
		 * throttle a socket (EKEYREJECTED, rdma.rst).
		 */
		s = rds_bound("127.0.0.1", 0, NULL);
		RDS_EXPECT_OK(rds_free_mr(t, old, 0));
		RDS_EXPECT_OK(rds_get_mr(t, buf, 256, 0, &cur));
		RDS_EXPECT((uint32_t)cur != (uint32_t)old);
		RDS_EXPECT(rds_rdma(s, &ta, old, 0, 256, &iov, 1,
				    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME,
				    i, 0) == 0);
		RDS_EXPECT(status_of(s) == RDS_RDMA_REMOTE_ERROR);
		RDS_EXPECT(all_bytes(buf, 256, 0));
		old = cur;
		close(s);
	}
	s = rds_bound("127.0.0.1", 0, NULL);
	RDS_EXPECT(rds_rdma(s, &ta, cur, 0, 256, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 1, 0) == 0);
	RDS_EXPECT(status_of(s) == RDS_RDMA_SUCCESS);
	RDS_EXPECT(!memcmp(buf, lbuf, 256));
	close(t);
	close(s);
}

/*
 * A region registered for one peer address: RDMA from another local
 * address (or port on it) fails with RDS_RDMA_REMOTE_ERROR and leaves the
 * memory untouched; the named peer's works.  The same for a region passed
 * with RDS_CMSG_RDMA_MAP to one peer.  (Whether another port of the
 * peer's address may is not asserted.)  FAILS on main at 7bf7dbb: the
 * destination is accepted and ignored.
 */
static void rdma_from(int s, const struct rds_addr *ta, uint64_t cookie,
		      unsigned char *target, int want)
{
	unsigned char src[128];
	struct rds_iovec iov = { (uintptr_t)src, sizeof(src) };

	memset(src, want == RDS_RDMA_SUCCESS ? 0x11 : 0xee, sizeof(src));
	RDS_EXPECT(rds_rdma(s, ta, cookie, 0, sizeof(src), &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 5, 0) == 0);
	RDS_EXPECT(status_of(s) == want);
	if (want != RDS_RDMA_SUCCESS)
		RDS_EXPECT(!memchr(target, 0xee, sizeof(src)));
	else
		RDS_EXPECT(all_bytes(target, sizeof(src), 0x11));
}

RDS_TEST(mr_for_dest_only_that_peer)
{
	unsigned char *buf;
	struct rds_addr ta, pa;
	uint64_t cookie;
	int t, peer, other;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	buf = rds_pages(2);
	t = rds_bound("127.0.0.1", 0, &ta);
	peer = rds_bound("127.0.0.2", 0, &pa);
	other = rds_bound("127.0.0.3", 0, NULL);
	RDS_EXPECT_OK(rds_get_mr_for(t, &pa, buf, 4096, &cookie));
	rdma_from(other, &ta, cookie, buf, RDS_RDMA_REMOTE_ERROR);
	rdma_from(t, &ta, cookie, buf, RDS_RDMA_REMOTE_ERROR);
	rdma_from(peer, &ta, cookie, buf, RDS_RDMA_SUCCESS);
	/* RDS_CMSG_RDMA_MAP to the peer: same rule. */
	{
		struct rds_get_mr_args ma = {
			.vec = { (uintptr_t)(buf + 4096), 4096 },
			.cookie_addr = (uintptr_t)&cookie,
		};
		char b[8];

		RDS_EXPECT(rds_send_cmsg(t, &pa, "map", 3, RDS_CMSG_RDMA_MAP,
					 &ma, sizeof(ma), 0) == 3);
		RDS_EXPECT(rds_recv(peer, b, sizeof(b), 0, NULL, NULL, 3000) ==
			   3);
		rdma_from(other, &ta, cookie, buf + 4096,
			  RDS_RDMA_REMOTE_ERROR);
		rdma_from(peer, &ta, cookie, buf + 4096, RDS_RDMA_SUCCESS);
	}
	close(t);
	close(peer);
	close(other);
}

/*
 * struct rds_rdma_notify has 4 bytes of padding after status: they must
 * reach user space as zeros (buffer prefilled with 0xff), for success and
 * failure alike.  Passes on main at 7bf7dbb with Debian's gcc 12 (the
 * struct is built by a designated initializer on the stack, which that
 * compiler happens to zero whole; C does not promise it).
 */
RDS_TEST(rdma_notify_padding_zero)
{
	unsigned char *buf = NULL, *lbuf;
	struct rds_rdma_notify n;
	struct rds_iovec iov;
	struct rds_addr ta;
	uint64_t cookie;
	int t, s, i;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	buf = rds_pages(1);
	lbuf = rds_pages(1);
	iov = (struct rds_iovec){ (uintptr_t)lbuf, 64 };
	t = rds_bound("127.0.0.1", 0, &ta);
	s = rds_bound("127.0.0.1", 0, NULL);
	RDS_EXPECT_OK(rds_get_mr(t, buf, 64, 0, &cookie));
	for (i = 0; i < 4; i++) {
		RDS_EXPECT(rds_rdma(s, &ta, i & 1 ? cookie ^ 0x77 : cookie, 0,
				    64, &iov, 1, RDS_RDMA_NOTIFY_ME, i, 0) == 0);
		RDS_EXPECT(!rds_get_notify(s, &n, 3000));
		RDS_EXPECT(n.user_token == (uint64_t)i);
		if (!all_bytes((char *)&n + 12, sizeof(n) - 12, 0))
			RDS_FAIL("notify padding %02x %02x %02x %02x",
				 ((unsigned char *)&n)[12],
				 ((unsigned char *)&n)[13],
				 ((unsigned char *)&n)[14],
				 ((unsigned char *)&n)[15]);
	}
	close(t);
	close(s);
}

/*
 * A sender that asks for notifications and never reads them: sends stop
 * (EAGAIN or ENOBUFS) long before 20,000, at the smallest SO_SNDBUF, and
 * a blocking send then times out with SO_SNDTIMEO.  FAILS on main at
 * 7bf7dbb: notifications queue without bound.
 */
RDS_TEST(rdma_notifications_bounded)
{
	unsigned char *buf, *lbuf;
	struct rds_iovec iov;
	struct rds_addr ta;
	struct rds_rdma_notify n;
	struct timeval tv = { 0, 200000 };
	uint64_t cookie;
	long ok = 0, reaped = 0, i;
	int t, s;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	buf = rds_pages(1);
	lbuf = rds_pages(1);
	iov = (struct rds_iovec){ (uintptr_t)lbuf, 8 };
	t = rds_bound("127.0.0.1", 0, &ta);
	s = rds_bound("127.0.0.1", 0, NULL);
	rds_set_int(s, SOL_SOCKET, SO_SNDBUF, 4096);
	RDS_EXPECT_OK(rds_get_mr(t, buf, 64, 0, &cookie));
	for (i = 0; i < 20000; i++) {
		if (rds_rdma(s, &ta, cookie, 0, 8, &iov, 1,
			     RDS_RDMA_NOTIFY_ME, i, MSG_DONTWAIT) == 0) {
			ok++;
			continue;
		}
		if (errno != EAGAIN && errno != ENOBUFS)
			RDS_FAIL("rdma %ld: %s", i, strerror(errno));
		break;
	}
	if (i == 20000)
		RDS_FAIL("20000 unread notifications queued");
	RDS_EXPECT_OK(setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	alarm(20);	/* a blocking send that never returns fails here */
	errno = 0;
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 8, &iov, 1, RDS_RDMA_NOTIFY_ME,
			    1, 0) < 0);
	RDS_EXPECT(errno == EAGAIN || errno == ETIMEDOUT || errno == ENOBUFS);
	alarm(0);
	while (!rds_get_notify(s, &n, 200))
		reaped++;
	RDS_EXPECT(reaped == ok);
	/* Read, the budget is back. */
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 8, &iov, 1, RDS_RDMA_NOTIFY_ME,
			    2, MSG_DONTWAIT) == 0);
	close(t);
	close(s);
}

/* ---- RLIMIT_MEMLOCK for pinned RDMA args and atomics ------------------- */

/* Become nobody with @kib KiB of memlock and no capabilities. */
static void drop_to_nobody(rlim_t kib)
{
	struct rlimit r = { kib << 10, kib << 10 };

	RDS_EXPECT_OK(setrlimit(RLIMIT_MEMLOCK, &r));
	RDS_EXPECT_OK(setgroups(0, NULL));
	RDS_EXPECT_OK(setresgid(65534, 65534, 65534));
	RDS_EXPECT_OK(setresuid(65534, 65534, 65534));
	RDS_EXPECT(geteuid() == 65534);
}

/*
 * As nobody with 64 KiB of memlock, a 64 KiB region uses it all: an RDMA
 * whose local pages would go over it fails with ENOMEM, as an atomic
 * does; within the limit they work, and each RDMA gives its charge back
 * (100 in a row work).  FAILS on main at 7bf7dbb: local pages are not
 * charged (the RDMA and atomic succeed).
 */
RDS_TEST(memlock_charges_rdma_args_and_atomics)
{
	unsigned char *mr, *loc;
	struct rds_atomic_args at;
	struct rds_iovec iov;
	struct rds_addr ta;
	uint64_t cookie, c2;
	int t, s, i;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	mr = rds_pages(16);
	loc = rds_pages(16);
	drop_to_nobody(64);
	t = rds_bound("127.0.0.1", 0, &ta);
	s = rds_bound("127.0.0.1", 0, NULL);
	RDS_EXPECT_OK(rds_get_mr(t, mr, 16 * RDS_PG, 0, &cookie));
	/* The limit is reached: one more page is too many. */
	RDS_EXPECT_ERRNO(rds_get_mr(t, loc, RDS_PG, 0, &c2), ENOMEM);
	iov = (struct rds_iovec){ (uintptr_t)loc, RDS_PG };
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, RDS_PG, &iov, 1,
				  RDS_RDMA_READWRITE, 0, 0), ENOMEM);
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, RDS_PG, &iov, 1, 0, 0, 0),
			 ENOMEM);
	memset(&at, 0, sizeof(at));
	at.cookie = cookie;
	at.local_addr = (uintptr_t)loc;
	at.fadd.add = 1;
	RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ta, "", 0, RDS_CMSG_ATOMIC_FADD,
				       &at, sizeof(at), 0), ENOMEM);
	RDS_EXPECT(all_bytes(mr, 16 * RDS_PG, 0));
	/* Half the limit for the region, a quarter per RDMA: fine. */
	RDS_EXPECT_OK(rds_free_mr(t, cookie, 0));
	RDS_EXPECT_OK(rds_get_mr(t, mr, 8 * RDS_PG, 0, &cookie));
	iov.bytes = 4 * RDS_PG;
	for (i = 0; i < 100; i++)
		RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 4 * RDS_PG, &iov, 1,
				    RDS_RDMA_READWRITE, 0, 0) == 0);
	RDS_EXPECT(rds_send_cmsg(s, &ta, "", 0, RDS_CMSG_ATOMIC_FADD, &at,
				 sizeof(at), 0) == 0);
	/* 8 + 12 pages is over. */
	iov.bytes = 12 * RDS_PG;
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, 12 * RDS_PG, &iov, 1,
				  RDS_RDMA_READWRITE, 0, 0), ENOMEM);
	close(t);
	close(s);
}

/* ---- ephemeral ports --------------------------------------------------- */

/*
 * Every port of 127.0.0.1 taken (2..65535; 1 is reserved): bind to port
 * 0 fails with EADDRINUSE within a second, repeatedly; ::1 still has
 * ports.  On main at 7bf7dbb: passes, but the search loop does not end
 * when it starts at port 2 (rover - 1 == 1 is never reached): a 3 in
 * 65536 chance per call of spinning forever under lock_sock.
 */
RDS_TEST(ephemeral_bind_exhaustion_eaddrinuse)
{
	struct rds_objs base = rds_objs_now();
	struct rds_addr a = rds_addr4("127.0.0.1", 0);
	int *fds, i, n = 0, fd;
	long long t0;

	RDS_SKIP_IF_INTREE("per-namespace bind table needed to stay apart");
	rds_nofile(70000);
	rds_new_netns(NULL);
	fds = calloc(65536, sizeof(int));
	for (i = 2; i <= 65535; i++) {
		fds[n] = rds_socket();
		rds_addr_set_port(&a, i);
		if (bind(fds[n], &a.sa, a.len))
			RDS_FAIL("bind port %d: %s", i, strerror(errno));
		n++;
	}
	rds_addr_set_port(&a, 0);
	for (i = 0; i < 10; i++) {
		fd = rds_socket();
		t0 = rds_now_ms();
		RDS_EXPECT_ERRNO(bind(fd, &a.sa, a.len), EADDRINUSE);
		if (rds_now_ms() - t0 > 1000)
			RDS_FAIL("ephemeral bind took %lld ms",
				 rds_now_ms() - t0);
		close(fd);
	}
	fd = rds_bound("::1", 0, NULL);
	close(fd);
	/* One freed port is found. */
	close(fds[1000]);
	fds[1000] = rds_bound("127.0.0.1", 0, &a);
	RDS_EXPECT(rds_addr_port(&a) == 1002);
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	rds_objs_settle(&base, 20000);
}

RDS_TEST_MAIN()
