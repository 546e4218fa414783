// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA over loopback: memory registration (RDS_GET_MR, RDS_GET_MR_FOR_DEST,
 * RDS_CMSG_RDMA_MAP), cookies, RDMA reads and writes with their data,
 * notifications, bad and freed keys, USE_ONCE, argument limits and the
 * release of everything on close. Linux's in-tree RDS has no RDMA on
 * loopback: those tests skip there.
 */
#define _GNU_SOURCE 1
#include <math.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/uio.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/rds_harden.h"

#define PG 4096

/* Wait for one RDS_CMSG_RDMA_STATUS; returns its status, checks token. */
static int wait_status(int fd, uint64_t token)
{
	struct rds_rdma_notify n;

	if (rds_get_notify(fd, &n, 3000))
		RDS_FAIL("no RDMA notification");
	if (n.user_token != token)
		RDS_FAIL("token %llu, expected %llu",
			 (unsigned long long)n.user_token,
			 (unsigned long long)token);
	return n.status;
}

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

/*
 * Where the regions live (T) and where the operations come from (S):
 * loopback by default; RDS_RDMA_T_ADDR and RDS_RDMA_S_ADDR run the same
 * tests between two addresses of an RDMA device (ib_wire.sh does).
 */
static const char *addr_t(void)
{
	const char *a = getenv("RDS_RDMA_T_ADDR");

	return a ? a : "127.0.0.1";
}

static const char *addr_s(void)
{
	const char *a = getenv("RDS_RDMA_S_ADDR");

	return a ? a : "127.0.0.1";
}

/* Over an adapter: what the device itself decides (see rdma.rst). */
static int on_adapter(void)
{
	return getenv("RDS_RDMA_T_ADDR") != NULL;
}

/*
 * A refused operation. An adapter's peer may also tear the connection
 * down (the bad request puts its queue pair in error) before the answer
 * arrives: the operation is then reported dropped.
 */
static int remote_error(int status)
{
	return status == RDS_RDMA_REMOTE_ERROR ||
	       (on_adapter() && status == RDS_RDMA_DROPPED);
}

/* Over iWARP (RDS_RDMA_IWARP set): see refused(). */
static int on_iwarp(void)
{
	return getenv("RDS_RDMA_IWARP") != NULL;
}

/*
 * The peer refused a READ or WRITE (key, range). An iWARP device ends
 * the stream (TERMINATE) and reports nothing per operation: the
 * operation is reported dropped there, never as a success (rdma.rst).
 * Over IB the peer's device may put its queue pair in error, and the
 * peer tear the connection down, before its NAK reaches us: then the
 * operation is flushed and reported dropped too (Linux 7.2's rxe, now
 * and then: remote_error()).
 */
static int refused(int status)
{
	if (status == (on_iwarp() ? RDS_RDMA_DROPPED : RDS_RDMA_REMOTE_ERROR) ||
	    remote_error(status))
		return 1;
	printf("# refused operation reported status %d\n", status);
	return 0;
}

/*
 * No message object is left. Over an adapter, messages of earlier tests
 * live until the peer acks them (a few ms), or until the connection a
 * refused operation took down comes back (a few reconnects, each ~0.4 s
 * over siw on the debug kernel): wait up to a second, five over an
 * adapter.
 */
static int no_messages_left(void)
{
	int i, n = on_adapter() ? 500 : 100;

	for (i = 0; i < n && rds_obj("messages") > 0; i++)
		rds_sleep_ms(10);
	if (rds_obj("messages") <= 0)
		return 1;
	/* Where the message is: what a rare leftover needs to be told
	 * from a leak (queues, connections and their rings, counters).
	 */
	fflush(stdout);
	if (system("t=${RDS_TOOLS:-../tools}; { cat /sys/kernel/debug/rds/objects; "
		   "$t/rds-info -s -t -n -I -W; $t/rds-info -c | "
		   "awk '$2 != 0'; } 2>&1 | sed 's/^/# /'"))
		printf("# (the leftover's diagnostics failed)\n");
	return 0;
}

/* A target socket @t (address *@ta) and an initiator @s. */
static void pair(int *t, struct rds_addr *ta, int *s)
{
	*t = rds_bound(addr_t(), 0, ta);
	*s = rds_bound(addr_s(), 0, NULL);
}

RDS_TEST(get_mr_unbound_enotconn)
{
	char *buf = rds_pages(1);
	uint64_t cookie = 0;
	int fd = rds_socket();

	/* Linux answers the same (with an apology in its source). */
	RDS_EXPECT_ERRNO(rds_get_mr(fd, buf, 100, 0, &cookie), ENOTCONN);
	close(fd);
}

RDS_TEST(get_mr_returns_cookie)
{
	char *buf = rds_pages(2);
	uint64_t cookie = 0, c2 = 0;
	int fd;

	RDS_SKIP_IF_INTREE("no RDS_GET_MR on loopback");
	fd = rds_bound(addr_t(), 0, NULL);
	RDS_EXPECT_OK(rds_get_mr(fd, buf + 100, 5000, 0, &cookie));
	RDS_EXPECT((uint32_t)cookie != 0);
	RDS_EXPECT((cookie >> 32) == 100);	/* offset in the first page */
	RDS_EXPECT_OK(rds_get_mr(fd, buf, PG, 0, &c2));
	RDS_EXPECT((uint32_t)c2 != (uint32_t)cookie);
	RDS_EXPECT((c2 >> 32) == 0);
	RDS_EXPECT(rds_obj("mrs") < 0 || rds_obj("mrs") >= 2);
	RDS_EXPECT_OK(rds_free_mr(fd, cookie, 0));
	RDS_EXPECT_ERRNO(rds_free_mr(fd, cookie, 0), EINVAL);
	RDS_EXPECT_OK(rds_free_mr(fd, c2, 0));
	/* A zero cookie is a flush: fine, even with nothing to flush. */
	RDS_EXPECT_OK(rds_free_mr(fd, 0, 0));
	close(fd);
}

RDS_TEST(get_mr_for_dest)
{
	struct rds_get_mr_for_dest_args a;
	struct rds_addr ta;
	char *buf = rds_pages(1);
	uint64_t cookie = 0;
	int t, s;

	RDS_SKIP_IF_INTREE("no RDS_GET_MR_FOR_DEST on loopback");
	pair(&t, &ta, &s);
	memset(&a, 0, sizeof(a));
	memcpy(&a.dest_addr, &ta.ss, ta.len);
	a.vec.addr = (uintptr_t)buf;
	a.vec.bytes = 64;
	a.cookie_addr = (uintptr_t)&cookie;
	RDS_EXPECT_OK(setsockopt(s, SOL_RDS, RDS_GET_MR_FOR_DEST, &a,
				 sizeof(a)));
	RDS_EXPECT(cookie != 0);
	RDS_EXPECT_ERRNO(setsockopt(s, SOL_RDS, RDS_GET_MR_FOR_DEST, &a,
				    sizeof(a) - 1), EINVAL);
	close(t);
	close(s);
}

RDS_TEST(get_mr_bad_args)
{
	char *buf = rds_pages(1);
	struct rds_get_mr_args a = { 0 };
	uint64_t cookie = 0;
	int fd;

	RDS_SKIP_IF_INTREE("no RDS_GET_MR on loopback");
	fd = rds_bound(addr_t(), 0, NULL);
	RDS_EXPECT_ERRNO(rds_get_mr(fd, buf, 0, 0, &cookie), EINVAL);
	RDS_EXPECT_ERRNO(rds_get_mr(fd, (void *)(uintptr_t)-4096, 8192, 0,
				    &cookie), EINVAL);
	RDS_EXPECT_ERRNO(rds_get_mr(fd, buf, (1u << 20) + 2 * PG, 0, &cookie),
			 EMSGSIZE);
	RDS_EXPECT_ERRNO(rds_get_mr(fd, buf, 100, 0, (uint64_t *)8), EFAULT);
	RDS_EXPECT_ERRNO(rds_get_mr(fd, (void *)8, 100, 0, &cookie), EFAULT);
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, RDS_GET_MR, &a,
				    sizeof(a) - 1), EINVAL);
	RDS_EXPECT(rds_obj("mrs") <= 0);
	close(fd);
}

RDS_TEST(write_then_read_with_notify)
{
	unsigned char *tbuf = rds_pages(4), *lbuf = rds_pages(4);
	struct rds_iovec iov = { 0 };
	struct rds_addr ta;
	uint64_t cookie = 0;
	char msg[8];
	int t, s;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	pair(&t, &ta, &s);
	RDS_EXPECT_OK(rds_get_mr(t, tbuf, 4 * PG, 0, &cookie));

	/* Write 3 pages of pattern to the target, with a message behind. */
	rds_fill(lbuf, 3 * PG, 7);
	iov.addr = (uintptr_t)lbuf;
	iov.bytes = 3 * PG;
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 3 * PG, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 11, 0) == 0);
	RDS_EXPECT(wait_status(s, 11) == RDS_RDMA_SUCCESS);
	/* The message arrives after the data. */
	RDS_EXPECT(rds_recv(t, msg, sizeof(msg), 0, NULL, NULL, 2000) == 0);
	RDS_EXPECT(!memcmp(tbuf, lbuf, 3 * PG));
	RDS_EXPECT(all_bytes(tbuf + 3 * PG, PG, 0));

	/* Read it back into another region. */
	rds_fill(tbuf, 4 * PG, 9);
	memset(lbuf, 0, 4 * PG);
	iov.bytes = 4 * PG;
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 4 * PG, &iov, 1,
			    RDS_RDMA_NOTIFY_ME, 12, 0) == 0);
	RDS_EXPECT(wait_status(s, 12) == RDS_RDMA_SUCCESS);
	RDS_EXPECT(!memcmp(tbuf, lbuf, 4 * PG));
	RDS_EXPECT(rds_recv(t, msg, sizeof(msg), 0, NULL, NULL, 2000) == 0);

	/* The bytes are counted (RDS_INFO_COUNTERS). */
	RDS_EXPECT(rds_counter("send_rdma") >= 2);
	RDS_EXPECT(rds_counter("send_rdma_bytes") >= 7 * PG);

	/* No NOTIFY_ME, success: nothing to report. */
	iov.bytes = PG;
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, PG, &iov, 1, 0, 13, 0) == 0);
	RDS_EXPECT(rds_recv(t, msg, sizeof(msg), 0, NULL, NULL, 2000) == 0);
	RDS_EXPECT_ERRNO(recv(s, msg, sizeof(msg), MSG_DONTWAIT), EAGAIN);
	close(t);
	close(s);
}

RDS_TEST(offsets_and_vectors)
{
	unsigned char *tbuf = rds_pages(3), *lbuf = rds_pages(3), *want = rds_pages(3);
	struct rds_iovec iov[3];
	struct rds_addr ta;
	uint64_t cookie = 0;
	char msg[8];
	int t, s;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	pair(&t, &ta, &s);
	/* Region: 9000 bytes from offset 333 of the first page. */
	RDS_EXPECT_OK(rds_get_mr(t, tbuf + 333, 9000, 0, &cookie));
	rds_fill(lbuf, 3 * PG, 3);
	iov[0].addr = (uintptr_t)lbuf + 10;
	iov[0].bytes = 100;
	iov[1].addr = (uintptr_t)lbuf + PG - 50;
	iov[1].bytes = 4000;
	iov[2].addr = (uintptr_t)lbuf + 2 * PG + 1;
	iov[2].bytes = 7;
	/* remote_vec.addr is an offset into the region (cookie's included). */
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 1000, 4107, iov, 3,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 1, 0) == 0);
	RDS_EXPECT(wait_status(s, 1) == RDS_RDMA_SUCCESS);
	RDS_EXPECT(rds_recv(t, msg, sizeof(msg), 0, NULL, NULL, 2000) == 0);
	memcpy(want + 333 + 1000, lbuf + 10, 100);
	memcpy(want + 333 + 1100, lbuf + PG - 50, 4000);
	memcpy(want + 333 + 5100, lbuf + 2 * PG + 1, 7);
	RDS_EXPECT(!memcmp(tbuf, want, 3 * PG));

	/* The whole region exactly, then one byte past it. */
	iov[0].addr = (uintptr_t)lbuf;
	iov[0].bytes = 9000;
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 9000, iov, 1, RDS_RDMA_NOTIFY_ME,
			    2, 0) == 0);
	RDS_EXPECT(wait_status(s, 2) == RDS_RDMA_SUCCESS);
	RDS_EXPECT(!memcmp(lbuf, tbuf + 333, 9000));
	RDS_EXPECT(rds_recv(t, msg, sizeof(msg), 0, NULL, NULL, 2000) == 0);
	close(t);
	close(s);
}

RDS_TEST(range_beyond_mr_refused)
{
	unsigned char *tbuf = rds_pages(3), *lbuf = rds_pages(3);
	struct rds_iovec iov;
	struct rds_addr ta;
	uint64_t cookie = 0;
	char msg[8];
	int t, s;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	pair(&t, &ta, &s);
	RDS_EXPECT_OK(rds_get_mr(t, tbuf + 100, 2 * PG, 0, &cookie));
	memset(lbuf, 0xab, 3 * PG);
	iov.addr = (uintptr_t)lbuf;
	iov.bytes = 2 * PG;
	/* One byte too far. */
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 1, 2 * PG, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 5, 0) == 0);
	RDS_EXPECT(refused(wait_status(s, 5)));
	/* Far beyond, and a wrapping offset. */
	iov.bytes = 16;
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 1 << 20, 16, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 6, 0) == 0);
	RDS_EXPECT(refused(wait_status(s, 6)));
	RDS_EXPECT(rds_rdma(s, &ta, cookie, (uint64_t)-200, 16, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 7, 0) == 0);
	RDS_EXPECT(refused(wait_status(s, 7)));
	/* An iWARP device places a WRITE segment by segment as it arrives:
	 * the first WRITE's segments inside the region may land before the
	 * one that runs past its end is refused. Nothing lands outside.
	 */
	if (on_iwarp())
		RDS_EXPECT(all_bytes(tbuf, 100, 0) &&
			   all_bytes(tbuf + 100 + 2 * PG, PG - 100, 0));
	else
		RDS_EXPECT(all_bytes(tbuf, 3 * PG, 0));
	/* The message behind a failed RDMA is not delivered. */
	RDS_EXPECT_ERRNO(recv(t, msg, sizeof(msg), MSG_DONTWAIT), EAGAIN);
	close(t);
	close(s);
}

RDS_TEST(bad_and_freed_cookies_remote_error)
{
	unsigned char *tbuf = rds_pages(1), *lbuf = rds_pages(1);
	struct rds_iovec iov = { (uintptr_t)lbuf, 64 };
	struct rds_addr ta, oa;
	uint64_t cookie = 0, other = 0;
	char msg[8];
	int t, s, o;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	pair(&t, &ta, &s);
	o = rds_bound(addr_t(), 0, &oa);
	memset(lbuf, 0x5a, PG);
	RDS_EXPECT_OK(rds_get_mr(t, tbuf, PG, 0, &cookie));
	RDS_EXPECT_OK(rds_get_mr(o, tbuf, PG, 0, &other));

	/* A key nobody registered. */
	RDS_EXPECT(rds_rdma(s, &ta, cookie ^ 0x5555, 0, 64, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 1, 0) == 0);
	RDS_EXPECT(refused(wait_status(s, 1)));
	/* Another socket's key: it is not the target's. An adapter's keys
	 * are the device's, valid for every queue pair on it (rdma.rst).
	 */
	if (!on_adapter()) {
		RDS_EXPECT(rds_rdma(s, &ta, other, 0, 64, &iov, 1,
				    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME,
				    2, 0) == 0);
		RDS_EXPECT(refused(wait_status(s, 2)));
	}
	/* A freed key. */
	RDS_EXPECT_OK(rds_free_mr(t, cookie, 0));
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 64, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 3, 0) == 0);
	RDS_EXPECT(refused(wait_status(s, 3)));
	/* Errors are reported with RDS_RECVERR even without NOTIFY_ME. */
	rds_set_int(s, SOL_RDS, RDS_RECVERR, 1);
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 64, &iov, 1, RDS_RDMA_READWRITE,
			    4, 0) == 0);
	RDS_EXPECT(refused(wait_status(s, 4)));
	RDS_EXPECT(all_bytes(tbuf, PG, 0));
	RDS_EXPECT_ERRNO(recv(t, msg, sizeof(msg), MSG_DONTWAIT), EAGAIN);
	close(t);
	close(s);
	close(o);
}

/*
 * Guessing keys over loopback: each failed lookup counts against the
 * sending socket (rdma_key_refused); after 64 in a second its RDMA and
 * atomics are refused at sendmsg() with EKEYREJECTED, a right key
 * included, until the second is over (rdma_key_throttled), while other
 * sockets go on. Old main: every guess was tried, silently.
 */
RDS_TEST(key_guessing_throttled)
{
	unsigned char *tbuf = rds_pages(1), *lbuf = rds_pages(1);
	struct rds_iovec iov = { (uintptr_t)lbuf, 64 };
	uint64_t cookie = 0, refused0, throttled0;
	struct rds_atomic_args aa;
	struct rds_addr ta;
	char msg[8];
	int t, s, o, i;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	if (on_adapter())
		rds_test_skip("the adapter refuses a bad key itself (rdma.rst)");
	pair(&t, &ta, &s);
	o = rds_bound(addr_s(), 0, NULL);
	RDS_EXPECT_OK(rds_get_mr(t, tbuf, PG, 0, &cookie));
	refused0 = rds_counter("rdma_key_refused");
	throttled0 = rds_counter("rdma_key_throttled");
	for (i = 0; i < 64; i++) {
		/* Only @cookie is live in @t: any other key is wrong. */
		RDS_EXPECT(rds_rdma(s, &ta, cookie ^ ((uint64_t)(i + 1) << 4),
				    0, 64, &iov, 1,
				    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME,
				    i + 1, 0) == 0);
		RDS_EXPECT(refused(wait_status(s, i + 1)));
	}
	RDS_EXPECT(rds_counter("rdma_key_refused") - refused0 >= 64);
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie ^ 0x1000, 0, 64, &iov, 1,
				  RDS_RDMA_READWRITE, 100, 0), EKEYREJECTED);
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, 64, &iov, 1,
				  RDS_RDMA_READWRITE, 101, 0), EKEYREJECTED);
	memset(&aa, 0, sizeof(aa));
	aa.cookie = cookie;
	aa.local_addr = (uintptr_t)lbuf;
	RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ta, "", 0, RDS_CMSG_ATOMIC_FADD,
				       &aa, sizeof(aa), 0), EKEYREJECTED);
	RDS_EXPECT(rds_counter("rdma_key_throttled") - throttled0 >= 3);
	/* Another socket is not affected. */
	memset(lbuf, 7, PG);
	RDS_EXPECT(rds_rdma(o, &ta, cookie, 0, 64, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 200, 0) == 0);
	RDS_EXPECT(wait_status(o, 200) == RDS_RDMA_SUCCESS);
	RDS_EXPECT(all_bytes(tbuf, 64, 7));
	RDS_EXPECT(rds_recv(t, msg, sizeof(msg), 0, NULL, NULL, 2000) == 0);
	/* The window over, the socket may try again. */
	rds_sleep_ms(1100);
	memset(lbuf, 8, PG);
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 64, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 300, 0) == 0);
	RDS_EXPECT(wait_status(s, 300) == RDS_RDMA_SUCCESS);
	RDS_EXPECT(all_bytes(tbuf, 64, 8));
	close(t);
	close(s);
	close(o);
}

RDS_TEST(use_once_dies_after_one_use)
{
	unsigned char *tbuf = rds_pages(1), *lbuf = rds_pages(1);
	struct rds_iovec iov = { (uintptr_t)lbuf, 64 };
	struct rds_addr ta;
	uint64_t cookie = 0;
	char msg[8];
	int t, s;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	pair(&t, &ta, &s);
	RDS_EXPECT_OK(rds_get_mr(t, tbuf, PG, RDS_RDMA_USE_ONCE, &cookie));
	memset(lbuf, 1, PG);
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 64, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 1, 0) == 0);
	RDS_EXPECT(wait_status(s, 1) == RDS_RDMA_SUCCESS);
	RDS_EXPECT(rds_recv(t, msg, sizeof(msg), 0, NULL, NULL, 2000) == 0);
	RDS_EXPECT(all_bytes(tbuf, 64, 1) && all_bytes(tbuf + 64, PG - 64, 0));
	memset(lbuf, 2, PG);
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 64, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 2, 0) == 0);
	RDS_EXPECT(refused(wait_status(s, 2)));
	RDS_EXPECT(all_bytes(tbuf, 64, 1));
	/* Gone from the table: freeing it is an unknown cookie. */
	RDS_EXPECT_ERRNO(rds_free_mr(t, cookie, 0), EINVAL);
	close(t);
	close(s);
	RDS_EXPECT(rds_obj("mrs") <= 0);
}

/*
 * Use-once against a peer that keeps the cookie: the second RDMA is sent
 * the moment the message of the first is readable at the target (poll
 * and MSG_PEEK, before recvmsg()), by a real-time task on one CPU, so
 * nothing the delivery left to a work item can run in between. The region must be dead by then
 * on every transport (rdma.rst), so the second use never succeeds and
 * never reaches the memory. Repeated: 200 times on loopback, 16 over an
 * adapter (where each refused operation costs a reconnect). Old main:
 * over rxe the region died in a work item after delivery, and the
 * second use raced it.
 */
RDS_TEST(use_once_dead_when_readable)
{
	unsigned char *tbuf = rds_pages(1), *lbuf = rds_pages(1);
	struct rds_iovec iov = { (uintptr_t)lbuf, 64 };
	int t, s, i, j, n = on_adapter() ? 16 : 200, second_ok = 0, wrote = 0;
	struct sched_param sp = { .sched_priority = 1 };
	struct rds_rdma_notify nt;
	struct rds_addr ta;
	int st1, st2;
	uint64_t cookie;
	cpu_set_t cpus;
	char msg[8];

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	/* Real-time on one CPU: woken by the message, the test runs before
	 * any work item queued on that CPU by the delivery could.
	 */
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp))
		printf("# not real-time on one CPU: %s\n", strerror(errno));
	pair(&t, &ta, &s);
	for (i = 0; i < n; i++) {
		/* On loopback each refused second use counts against the
		 * initiator (key_guessing_throttled): a fresh one a round.
		 */
		if (i && !on_adapter()) {
			close(s);
			s = rds_bound(addr_s(), 0, NULL);
		}
		memset(tbuf, 0, PG);
		cookie = 0;
		RDS_EXPECT_OK(rds_get_mr(t, tbuf, PG, RDS_RDMA_USE_ONCE,
					 &cookie));
		memset(lbuf, 1, PG);
		RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 64, &iov, 1,
				    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME,
				    2 * i + 1, 0) == 0);
		if (!rds_wait_readable(t, 3000))
			RDS_FAIL("round %d: the message never came", i);
		memset(lbuf, 2, PG);
		RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 64, &iov, 1,
				    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME,
				    2 * i + 2, 0) == 0);
		/* Two notifications, in either order. */
		st1 = st2 = -1;
		for (j = 0; j < 2; j++) {
			if (rds_get_notify(s, &nt, 3000))
				RDS_FAIL("round %d: no RDMA notification", i);
			if (nt.user_token == 2 * (uint64_t)i + 1)
				st1 = nt.status;
			else if (nt.user_token == 2 * (uint64_t)i + 2)
				st2 = nt.status;
			else
				RDS_FAIL("round %d: token %llu", i,
					 (unsigned long long)nt.user_token);
		}
		if (st1 != RDS_RDMA_SUCCESS)
			RDS_FAIL("round %d: the first use: status %d", i, st1);
		if (st2 == RDS_RDMA_SUCCESS)
			second_ok++;
		else
			RDS_EXPECT(refused(st2) || remote_error(st2));
		RDS_EXPECT(rds_recv(t, msg, sizeof(msg), 0, NULL, NULL,
				    2000) == 0);
		if (!all_bytes(tbuf, 64, 1))
			wrote++;
		/* A second use that got through has its message too. */
		while (recv(t, msg, sizeof(msg), MSG_DONTWAIT) >= 0)
			;
	}
	printf("# %d rounds: the second use succeeded %d times, wrote the region %d times\n",
	       n, second_ok, wrote);
	RDS_EXPECT(second_ok == 0);
	RDS_EXPECT(wrote == 0);
	close(t);
	close(s);
	RDS_EXPECT(rds_obj("mrs") <= 0);
}

/* The test modules of selftests/modules (rds_test_rxe_slow holds rxe
 * inside a peer's access): parameter @name of module @mod.
 */
static long test_mod_get(const char *mod, const char *name)
{
	char path[160];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", mod, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static void test_mod_set(const char *mod, const char *name, long v)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", mod, name);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%ld\n", v) < 0 || fclose(f))
		RDS_FAIL("%s: %s", path, strerror(errno));
}

/* Load @mod from the selftests' modules/ next to bin/; 0 if in. */
static int test_mod_load(const char *mod)
{
	char exe[512], cmd[1200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = 0;
	snprintf(cmd, sizeof(cmd), "rmmod %s 2>/dev/null; insmod %s/../modules/%s.ko 2>&1",
		 mod, exe, mod);
	return system(cmd) ? -1 : 0;
}

static void test_mod_unload(const char *mod)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rmmod %s", mod);
	if (system(cmd) != 0)
		printf("# rmmod %s failed\n", mod);
}

#define RXE_SLOW "rds_test_rxe_slow"

/*
 * RDS_FREE_MR's promise, once it returns the memory is never read or
 * written again (rdma.rst), against a peer's access already under way:
 * a test module holds rxe for 300 ms inside the copy of a peer's READ
 * of 512 bytes, after rxe checked the key, and the region is freed
 * then. Even rounds write a new pattern into the region the moment
 * RDS_FREE_MR returns: the READ must not bring it back. Odd rounds
 * unmap the buffer once registered, so the free releases the last
 * reference on its page: a late copy is a use-after-free (KASAN on the
 * debug kernel). Before the fix rxe's LOCAL_INV completed while the copy
 * was held, RDS_FREE_MR returned at once and the READ returned the
 * new pattern; now the free waits for the copy. rxe only (the kprobe
 * is on rxe_mr_copy()).
 */
RDS_TEST(free_mr_waits_for_peer_access)
{
	enum { LEN = 512, ROUNDS = 4, HOLD_MS = 300 };
	unsigned char *lbuf = rds_pages(1), *tbuf;
	struct rds_iovec iov = { (uintptr_t)lbuf, LEN };
	int t, s, i, st, late = 0;
	long long t0, waited;
	struct rds_addr ta;
	uint64_t cookie;
	long hits;

	if (!on_adapter() || on_iwarp())
		rds_test_skip("a kprobe on rxe_mr_copy() holds rxe: rxe only");
	if (test_mod_load(RXE_SLOW))
		rds_test_skip("modules/" RXE_SLOW ".ko does not load (make test-modules)");
	pair(&t, &ta, &s);
	for (i = 0; i < ROUNDS; i++) {
		tbuf = mmap(NULL, PG, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (tbuf == MAP_FAILED)
			RDS_FAIL("mmap: %s", strerror(errno));
		memset(tbuf, 0x11, PG);
		cookie = 0;
		RDS_EXPECT_OK(rds_get_mr(t, tbuf, PG, 0, &cookie));
		/* Unmapped now, not while the copy is held: the kprobe
		 * holds it with interrupts off, and munmap() would wait
		 * for that CPU's TLB flush.
		 */
		if (i & 1)
			munmap(tbuf, PG);
		memset(lbuf, 0, PG);
		hits = test_mod_get(RXE_SLOW, "hits");
		test_mod_set(RXE_SLOW, "delay_ms", HOLD_MS);
		RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, LEN, &iov, 1,
				    RDS_RDMA_NOTIFY_ME, i + 1, 0) == 0);
		t0 = rds_now_ms();
		while (test_mod_get(RXE_SLOW, "hits") == hits) {
			if (rds_now_ms() - t0 > 5000)
				RDS_FAIL("round %d: the READ never reached the region", i);
			usleep(200);
		}
		/* Held now; later copies are not. */
		test_mod_set(RXE_SLOW, "delay_ms", 0);
		t0 = rds_now_ms();
		RDS_EXPECT_OK(rds_free_mr(t, cookie, 0));
		waited = rds_now_ms() - t0;
		if (!(i & 1))
			memset(tbuf, 0xee, PG);
		st = wait_status(s, i + 1);
		RDS_EXPECT(st == RDS_RDMA_SUCCESS);
		if (!(i & 1)) {
			if (memchr(lbuf, 0xee, LEN))
				late++;
			munmap(tbuf, PG);
		}
		printf("# round %d: RDS_FREE_MR took %lld ms, the READ's status %d%s\n",
		       i, waited, st, i & 1 ? " (buffer unmapped)" :
		       memchr(lbuf, 0xee, LEN) ? ", it read what was written after the free" : "");
	}
	RDS_EXPECT(late == 0);
	close(t);
	close(s);
	test_mod_unload(RXE_SLOW);
	RDS_EXPECT(rds_obj("mrs") <= 0);
}

/*
 * On an adapter a cookie's key is the device's: its high 24 bits name a
 * region of the pool, its low byte changes on every reuse. Registering
 * and freeing 8 KiB 200 times in a row must not hand the same region
 * back each time (a peer holding the last cookie would then find the
 * next registration in at most 255 guesses): at least 8 regions take
 * turns, no more than 1 in 4 registrations reuses the region just freed
 * (1 in 16 expected), and a region never comes back with its last key.
 */
RDS_TEST(mr_reuse_unpredictable)
{
	enum { N = 200, MAXR = 256 };
	uint32_t seen[MAXR], last_key[MAXR];
	unsigned int count[MAXR] = { 0 };
	unsigned char *buf = rds_pages(2);
	uint32_t key, prev = 0;
	int nseen = 0, again = 0, i, j, fd;
	struct rds_addr a;
	uint64_t cookie;
	double bits = 0;

	if (!on_adapter())
		rds_test_skip("loopback keys are a keyed permutation (bind tests)");
	fd = rds_bound(addr_t(), 0, &a);
	for (i = 0; i < N; i++) {
		cookie = 0;
		RDS_EXPECT_OK(rds_get_mr(fd, buf, 2 * PG, 0, &cookie));
		key = (uint32_t)cookie;
		RDS_EXPECT_OK(rds_free_mr(fd, cookie, 0));
		for (j = 0; j < nseen && seen[j] != key >> 8; j++)
			;
		if (j == nseen) {
			RDS_EXPECT(nseen < MAXR);
			seen[nseen++] = key >> 8;
		} else {
			RDS_EXPECT(last_key[j] != key);
		}
		last_key[j] = key;
		count[j]++;
		if (i && key >> 8 == prev >> 8)
			again++;
		prev = key;
	}
	for (j = 0; j < nseen; j++)
		bits -= (double)count[j] / N * log2((double)count[j] / N);
	printf("# %d registrations: %d regions took turns, %d reused the one just freed, index entropy %.2f bits\n",
	       N, nseen, again, bits);
	RDS_EXPECT(nseen >= 8);
	RDS_EXPECT(again <= N / 4);
	close(fd);
}

RDS_TEST(rdma_map_delivers_rdma_dest)
{
	unsigned char *abuf = rds_pages(2), *lbuf = rds_pages(2);
	char cbuf[CMSG_SPACE(sizeof(uint64_t)) + 64];
	struct rds_iovec iov = { (uintptr_t)lbuf, 1000 };
	struct rds_addr aa, ba;
	struct rds_get_mr_args m = { 0 };
	uint64_t cookie = 0, got = 0;
	struct msghdr mh;
	struct cmsghdr *c;
	char buf[16];
	struct iovec io = { .iov_base = buf, .iov_len = sizeof(buf) };
	int a, b;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	a = rds_bound(addr_t(), 0, &aa);
	b = rds_bound(addr_s(), 0, &ba);
	m.vec.addr = (uintptr_t)abuf + 50;
	m.vec.bytes = 2000;
	m.cookie_addr = (uintptr_t)&cookie;
	RDS_EXPECT(rds_send_cmsg(a, &ba, "req", 3, RDS_CMSG_RDMA_MAP, &m,
				 sizeof(m), 0) == 3);
	RDS_EXPECT(cookie != 0 && (cookie >> 32) == 50);

	RDS_EXPECT(rds_wait_readable(b, 2000));
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &io;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	RDS_EXPECT(recvmsg(b, &mh, 0) == 3);
	c = rds_find_cmsg(&mh, SOL_RDS, RDS_CMSG_RDMA_DEST);
	RDS_EXPECT(c != NULL);
	if (c)
		memcpy(&got, CMSG_DATA(c), sizeof(got));
	RDS_EXPECT(got == cookie);

	/* B writes into A's region with the cookie it was given. */
	rds_fill(lbuf, 1000, 4);
	RDS_EXPECT(rds_rdma(b, &aa, got, 0, 1000, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 8, 0) == 0);
	RDS_EXPECT(wait_status(b, 8) == RDS_RDMA_SUCCESS);
	RDS_EXPECT(!memcmp(abuf + 50, lbuf, 1000));

	/* RDS_CMSG_RDMA_DEST names an existing region the same way. */
	RDS_EXPECT(rds_send_cmsg(a, &ba, "again", 5, RDS_CMSG_RDMA_DEST, &cookie,
				 sizeof(cookie), 0) == 5);
	RDS_EXPECT(rds_wait_readable(b, 2000));
	mh.msg_controllen = sizeof(cbuf);
	got = 0;
	RDS_EXPECT(recvmsg(b, &mh, 0) == 5);
	c = rds_find_cmsg(&mh, SOL_RDS, RDS_CMSG_RDMA_DEST);
	if (c)
		memcpy(&got, CMSG_DATA(c), sizeof(got));
	RDS_EXPECT(got == cookie);
	/* ... but only one of ours. */
	got = cookie ^ 0x77;
	RDS_EXPECT_ERRNO(rds_send_cmsg(a, &ba, "x", 1, RDS_CMSG_RDMA_DEST, &got,
				       sizeof(got), 0), EINVAL);
	close(a);
	close(b);
}

RDS_TEST(rdma_args_limits)
{
	unsigned char *lbuf = rds_pages(1);
	struct rds_iovec iov[2] = { { (uintptr_t)lbuf, 64 } };
	struct rds_addr ta;
	uint64_t cookie = 0;
	int t, s;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	pair(&t, &ta, &s);
	RDS_EXPECT_OK(rds_get_mr(t, lbuf, PG, 0, &cookie));
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, 64, iov, 0, 0, 0, 0), EINVAL);
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, 64, iov, 1025, 0, 0, 0),
			 EMSGSIZE);
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, 64, iov, 1ull << 62, 0, 0, 0),
			 EMSGSIZE);
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, 64, (void *)8, 1, 0, 0, 0),
			 EFAULT);
	/* An iovec that wraps, one that is empty. */
	iov[1].addr = (uint64_t)-100;
	iov[1].bytes = 200;
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, 1000, iov, 2, 0, 0, 0), EINVAL);
	iov[1].addr = (uintptr_t)lbuf;
	iov[1].bytes = 0;
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, 1000, iov, 2, 0, 0, 0), EINVAL);
	/* More than 1 MiB in total, more local bytes than remote. */
	iov[1].bytes = 1u << 20;
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, 2u << 20, iov, 2, 0, 0, 0),
			 EMSGSIZE);
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, 63, iov, 1, 0, 0, 0), EINVAL);
	/* Unmapped local memory. */
	iov[0].addr = 4096;
	RDS_EXPECT_ERRNO(rds_rdma(s, &ta, cookie, 0, 64, iov, 1, 0, 0, 0), EFAULT);
	/* An atomic's local word must be 8-byte aligned (EFAULT, as Linux);
	 * one operation per message.
	 */
	{
		struct rds_atomic_args at = {
			.cookie = cookie, .local_addr = (uintptr_t)lbuf + 4,
		};

		RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ta, "", 0, RDS_CMSG_ATOMIC_FADD,
					       &at, sizeof(at), 0), EFAULT);
		RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ta, "", 0, RDS_CMSG_ATOMIC_FADD,
					       &at, sizeof(at) - 8, 0), EINVAL);
	}
	close(t);
	close(s);
	RDS_EXPECT(no_messages_left());
}

RDS_TEST(close_frees_everything)
{
	unsigned char *buf = rds_pages(16), *lbuf = rds_pages(1);
	struct rds_iovec iov = { (uintptr_t)lbuf, 64 };
	struct rds_addr ta;
	uint64_t cookie[8];
	int t, s, i;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	if (rds_obj("mrs") < 0)
		rds_test_skip("no /sys/kernel/debug/rds/objects");
	pair(&t, &ta, &s);
	for (i = 0; i < 8; i++)
		RDS_EXPECT_OK(rds_get_mr(t, buf + i * 2 * PG, 2 * PG, 0,
					 &cookie[i]));
	RDS_EXPECT(rds_obj("mrs") >= 8);
	/* An undelivered notification is freed with its socket too. */
	RDS_EXPECT(rds_rdma(s, &ta, cookie[3], 0, 64, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 1, 0) == 0);
	close(t);
	close(s);
	RDS_EXPECT(rds_obj("mrs") == 0);
	/* Pages are unpinned: the memory can go away. */
	RDS_EXPECT_OK(munmap(buf, 16 * PG));
	/* Flush-all frees every region of a socket. */
	t = rds_bound(addr_t(), 0, NULL);
	buf = rds_pages(2);
	RDS_EXPECT_OK(rds_get_mr(t, buf, PG, 0, &cookie[0]));
	RDS_EXPECT_OK(rds_get_mr(t, buf + PG, PG, 0, &cookie[1]));
	RDS_EXPECT_OK(rds_free_mr(t, 0, RDS_RDMA_INVALIDATE));
	RDS_EXPECT(rds_obj("mrs") == 0);
	RDS_EXPECT_ERRNO(rds_free_mr(t, cookie[0], 0), EINVAL);
	close(t);
}

static int atomic_op(int fd, const struct rds_addr *to, int type,
		     uint64_t cookie, uint64_t raddr, uint64_t *local,
		     uint64_t a, uint64_t b, uint64_t c, uint64_t d,
		     uint64_t token)
{
	struct rds_atomic_args at = {
		.cookie = cookie,
		.local_addr = (uintptr_t)local,
		.remote_addr = raddr,
		.flags = RDS_RDMA_NOTIFY_ME,
		.user_token = token,
	};
	int st;

	switch (type) {
	case RDS_CMSG_ATOMIC_FADD:
		at.fadd.add = a;
		break;
	case RDS_CMSG_MASKED_ATOMIC_FADD:
		at.m_fadd.add = a;
		at.m_fadd.nocarry_mask = b;
		break;
	case RDS_CMSG_ATOMIC_CSWP:
		at.cswp.compare = a;
		at.cswp.swap = b;
		break;
	default:
		at.m_cswp.compare = a;
		at.m_cswp.swap = b;
		at.m_cswp.compare_mask = c;
		at.m_cswp.swap_mask = d;
		break;
	}
	if (rds_send_cmsg(fd, to, "", 0, type, &at, sizeof(at), 0) != 0)
		RDS_FAIL("atomic sendmsg: %s", strerror(errno));
	st = wait_status(fd, token);
	if (st)
		printf("# atomic %d at %llu: status %d\n", type,
		       (unsigned long long)raddr, st);
	return st;
}

RDS_TEST(atomics)
{
	uint64_t *tw = rds_pages(1), *res = rds_pages(1);
	struct rds_addr ta;
	uint64_t cookie = 0;
	char msg[8];
	int t, s;

	RDS_SKIP_IF_INTREE("no atomics on loopback");
	pair(&t, &ta, &s);
	RDS_EXPECT_OK(rds_get_mr(t, tw, 64, 0, &cookie));
	if (on_iwarp()) {
		/* iWARP has no atomics: refused at sendmsg, nothing sent. */
		static const int types[] = {
			RDS_CMSG_ATOMIC_FADD, RDS_CMSG_ATOMIC_CSWP,
			RDS_CMSG_MASKED_ATOMIC_FADD, RDS_CMSG_MASKED_ATOMIC_CSWP,
		};
		struct rds_atomic_args at = {
			.cookie = cookie, .local_addr = (uintptr_t)&res[0],
			.remote_addr = 8,
		};
		unsigned int i;

		tw[1] = 100;
		for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ta, "", 0, types[i],
						       &at, sizeof(at), 0),
					 EOPNOTSUPP);
		RDS_EXPECT(tw[1] == 100);
		RDS_EXPECT_ERRNO(recv(t, msg, sizeof(msg), MSG_DONTWAIT),
				 EAGAIN);
		close(t);
		close(s);
		return;
	}
	tw[1] = 100;
	RDS_EXPECT(atomic_op(s, &ta, RDS_CMSG_ATOMIC_FADD, cookie, 8, &res[0],
			     5, 0, 0, 0, 1) == RDS_RDMA_SUCCESS);
	RDS_EXPECT(res[0] == 100 && tw[1] == 105);
	RDS_EXPECT(rds_recv(t, msg, sizeof(msg), 0, NULL, NULL, 2000) == 0);
	RDS_EXPECT(atomic_op(s, &ta, RDS_CMSG_ATOMIC_CSWP, cookie, 8, &res[1],
			     105, 7, 0, 0, 2) == RDS_RDMA_SUCCESS);
	RDS_EXPECT(res[1] == 105 && tw[1] == 7);
	/* A failed compare swaps nothing, and still returns the old value. */
	RDS_EXPECT(atomic_op(s, &ta, RDS_CMSG_ATOMIC_CSWP, cookie, 8, &res[2],
			     99, 1, 0, 0, 3) == RDS_RDMA_SUCCESS);
	RDS_EXPECT(res[2] == 7 && tw[1] == 7);
	if (getenv("RDS_RDMA_NO_MASKED_ATOMICS")) {
		/* The device has none (rxe): refused at sendmsg. */
		struct rds_atomic_args at = {
			.cookie = cookie, .local_addr = (uintptr_t)&res[3],
			.remote_addr = 16,
		};

		RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ta, "", 0,
					       RDS_CMSG_MASKED_ATOMIC_CSWP, &at,
					       sizeof(at), 0), EOPNOTSUPP);
		at.m_fadd.nocarry_mask = 0x80;
		RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ta, "", 0,
					       RDS_CMSG_MASKED_ATOMIC_FADD, &at,
					       sizeof(at), 0), EOPNOTSUPP);
		goto unmasked;
	}
	tw[2] = 0x1234;
	RDS_EXPECT(atomic_op(s, &ta, RDS_CMSG_MASKED_ATOMIC_CSWP, cookie, 16,
			     &res[3], 0x34, 0xab00, 0xff, 0xff00, 4) ==
		   RDS_RDMA_SUCCESS);
	RDS_EXPECT(res[3] == 0x1234 && tw[2] == 0xab34);
	/* Carries out of bits 7 and 23 are cut: two independent fields. */
	tw[3] = 0x00ff00ff;
	RDS_EXPECT(atomic_op(s, &ta, RDS_CMSG_MASKED_ATOMIC_FADD, cookie, 24,
			     &res[4], 0x00010001, 0x00800080, 0, 0, 5) ==
		   RDS_RDMA_SUCCESS);
	RDS_EXPECT(res[4] == 0x00ff00ff && tw[3] == 0);
unmasked:
	/* Unaligned or outside the region: refused, nothing touched. */
	res[5] = 42;
	RDS_EXPECT(remote_error(atomic_op(s, &ta, RDS_CMSG_ATOMIC_FADD, cookie,
					  4, &res[5], 1, 0, 0, 0, 6)));
	RDS_EXPECT(remote_error(atomic_op(s, &ta, RDS_CMSG_ATOMIC_FADD, cookie,
					  64, &res[5], 1, 0, 0, 0, 7)));
	RDS_EXPECT(res[5] == 42 && tw[0] == 0 && tw[1] == 7);
	close(t);
	close(s);
}

/* RDS_FREE_MR races RDMAs that use the key: once it returns, the memory
 * is never written again (the initiator keeps writing with the dead key).
 */
RDS_TEST(free_mr_races_rdma)
{
	volatile uint64_t *shared;
	unsigned char *tbuf = rds_pages(64);
	const char *failed = NULL;
	struct rds_addr ta;
	int t, s, round, st, err = 0, reaped;
	pid_t pid, parent = getpid();

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	shared = mmap(NULL, PG, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	RDS_EXPECT(shared != MAP_FAILED);
	shared[0] = 0;
	shared[1] = 0;
	pair(&t, &ta, &s);
	pid = RDS_EXPECT_OK(fork());
	if (pid == 0) {
		unsigned char *lbuf = rds_pages(64);
		struct rds_iovec iov = { (uintptr_t)lbuf, 64 * PG };
		char c[CMSG_SPACE(sizeof(struct rds_rdma_notify)) * 8];
		uint64_t last = 0;
		struct msghdr m;

		/*
		 * Never outlive the test: a child left behind holds sockets
		 * bound on loopback, and rds_loop cannot be unloaded.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(2);
		memset(lbuf, 0xff, 64 * PG);
		while (!shared[1]) {
			/* On loopback a fresh socket per region: the freed
			 * cookies it tries count against it
			 * (key_guessing_throttled). Not over an adapter,
			 * where the closed socket's queued operations
			 * would each cost a reconnect.
			 */
			if (!on_adapter() && shared[0] != last) {
				last = shared[0];
				close(s);
				s = rds_bound(addr_s(), 0, NULL);
			}
			if (shared[0])
				rds_rdma(s, &ta, shared[0], 0, 64 * PG, &iov, 1,
					 RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 1,
					 MSG_DONTWAIT);
			memset(&m, 0, sizeof(m));
			m.msg_control = c;
			m.msg_controllen = sizeof(c);
			if (recvmsg(s, &m, MSG_DONTWAIT) > 0)
				_exit(1);
			shared[2]++;
		}
		_exit(0);
	}
	/* Every way out of the loop stops and reaps the child first. */
	for (round = 0; round < 40; round++) {
		uint64_t cookie = 0;
		char msg[8];

		memset(tbuf, 0, 64 * PG);
		if (rds_get_mr(t, tbuf, 64 * PG, 0, &cookie)) {
			err = errno;
			failed = "RDS_GET_MR";
			break;
		}
		shared[0] = cookie;
		rds_sleep_ms(3);
		if (rds_free_mr(t, cookie, 0)) {
			err = errno;
			failed = "RDS_FREE_MR";
			break;
		}
		memset(tbuf, 0x11, 64 * PG);
		rds_sleep_ms(3);
		if (!all_bytes(tbuf, 64 * PG, 0x11)) {
			failed = "memory written after RDS_FREE_MR";
			break;
		}
		while (recv(t, msg, sizeof(msg), MSG_DONTWAIT) >= 0)
			;
	}
	shared[1] = 1;
	reaped = waitpid(pid, &st, 0) == pid;
	close(t);
	close(s);
	if (failed)
		RDS_FAIL("round %d: %s%s%s", round, failed, err ? ": " : "",
			 err ? strerror(err) : "");
	RDS_EXPECT(reaped && WIFEXITED(st) && !WEXITSTATUS(st));
	RDS_EXPECT(shared[2] > 0);
}

/* Without CAP_IPC_LOCK, registered pages count against RLIMIT_MEMLOCK. */
RDS_TEST(memlock_accounting)
{
	struct rlimit rl = { 2 * PG, 2 * PG };
	char *buf = rds_pages(4);
	uint64_t c1 = 0, c2 = 0;
	int fd;

	RDS_SKIP_IF_INTREE("no RDS_GET_MR on loopback");
	fd = rds_bound(addr_t(), 0, NULL);
	RDS_EXPECT_OK(setrlimit(RLIMIT_MEMLOCK, &rl));
	RDS_EXPECT_OK(setresuid(65534, 65534, 65534));	/* drops all caps */
	RDS_EXPECT_ERRNO(rds_get_mr(fd, buf, 3 * PG, 0, &c1), ENOMEM);
	RDS_EXPECT_OK(rds_get_mr(fd, buf, 2 * PG, 0, &c1));
	RDS_EXPECT_ERRNO(rds_get_mr(fd, buf + 2 * PG, PG, 0, &c2), ENOMEM);
	RDS_EXPECT_OK(rds_free_mr(fd, c1, 0));
	RDS_EXPECT_OK(rds_get_mr(fd, buf + 2 * PG, PG, 0, &c2));
	rl.rlim_cur = 0;
	RDS_EXPECT_OK(setrlimit(RLIMIT_MEMLOCK, &rl));
	RDS_EXPECT_ERRNO(rds_get_mr(fd, buf, PG, 0, &c1), EPERM);
	close(fd);
}

/* A region may be read and written by an RDMA from its own socket. */
/*
 * The next thing @fd reads within 3 s: 1 and *@n for an RDMA status, 0
 * for a message.
 */
static int next_status_or_msg(int fd, struct rds_rdma_notify *n)
{
	char buf[16], cbuf[CMSG_SPACE(sizeof(*n)) + 64];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	long long end = rds_now_ms() + 3000;
	struct cmsghdr *c;
	struct msghdr m;

	for (;;) {
		rds_msg_init(&m, &iov, cbuf, sizeof(cbuf));
		if (recvmsg(fd, &m, MSG_DONTWAIT) >= 0)
			break;
		if (errno != EAGAIN)
			RDS_FAIL("recvmsg: %s", strerror(errno));
		if (rds_now_ms() > end)
			RDS_FAIL("neither the status nor the message came");
		rds_sleep_ms(5);
	}
	c = rds_find_cmsg(&m, SOL_RDS, RDS_CMSG_RDMA_STATUS);
	if (!c)
		return 0;
	memcpy(n, CMSG_DATA(c), sizeof(*n));
	return 1;
}

/*
 * An operation on a region of the sending socket itself: the status and
 * the message both come to it. Over an adapter in either order: the
 * message's receive and the operation's completion are on two queues
 * (Linux 7.2's rxe delivers the message first).
 */
RDS_TEST(rdma_to_self)
{
	unsigned char *buf = rds_pages(2);
	struct rds_iovec iov = { (uintptr_t)buf + PG, 100 };
	struct rds_rdma_notify n = { 0 };
	int t, i, st = 0, msgs = 0;
	struct rds_addr ta;
	uint64_t cookie = 0;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	t = rds_bound(addr_t(), 0, &ta);
	RDS_EXPECT_OK(rds_get_mr(t, buf, PG, 0, &cookie));
	rds_fill(buf + PG, 100, 1);
	RDS_EXPECT(rds_rdma(t, &ta, cookie, 20, 100, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 3, 0) == 0);
	for (i = 0; i < 2; i++) {
		if (next_status_or_msg(t, &n))
			st++;
		else
			msgs++;
		/* On loopback the status comes first. */
		if (!on_adapter() && !i)
			RDS_EXPECT(st == 1);
	}
	RDS_EXPECT(st == 1 && msgs == 1);
	RDS_EXPECT(n.user_token == 3 && n.status == RDS_RDMA_SUCCESS);
	RDS_EXPECT(!memcmp(buf + 20, buf + PG, 100));
	close(t);
}

/* RDS_RDMA_SILENT with no payload: the RDMA happens, the peer is not
 * woken (nothing is delivered).
 */
RDS_TEST(silent_rdma_not_delivered)
{
	unsigned char *tbuf = rds_pages(1), *lbuf = rds_pages(1);
	struct rds_iovec iov = { (uintptr_t)lbuf, 64 };
	struct rds_addr ta;
	uint64_t cookie = 0;
	char msg[8];
	int t, s, st;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	pair(&t, &ta, &s);
	RDS_EXPECT_OK(rds_get_mr(t, tbuf, PG, 0, &cookie));
	memset(lbuf, 9, 64);
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 64, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_SILENT |
			    RDS_RDMA_NOTIFY_ME, 4, 0) == 0);
	st = wait_status(s, 4);
	/* The connection may still be coming back from the errors of
	 * earlier tests: an operation it dropped is not the point here.
	 */
	if (on_adapter() && st == RDS_RDMA_DROPPED) {
		RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 64, &iov, 1,
				    RDS_RDMA_READWRITE | RDS_RDMA_SILENT |
				    RDS_RDMA_NOTIFY_ME, 5, 0) == 0);
		st = wait_status(s, 5);
	}
	RDS_EXPECT(st == RDS_RDMA_SUCCESS);
	RDS_EXPECT(all_bytes(tbuf, 64, 9));
	RDS_EXPECT_ERRNO(recv(t, msg, sizeof(msg), MSG_DONTWAIT), EAGAIN);
	close(t);
	close(s);
}

/*
 * A message ahead of a silent RDMA (which posts no SEND), both queued on
 * a connection still coming up (a new TOS), go out in one pass of the
 * transmit loop: the message's SEND is not signaled (more was queued).
 * Both must still be released: the message once the peer acks it, the
 * silent one (the peer never sees it) when its operation completes.
 */
RDS_TEST(message_before_silent_rdma_released)
{
	unsigned char *tbuf = rds_pages(1), *lbuf = rds_pages(1);
	struct rds_iovec iov = { (uintptr_t)lbuf, 64 };
	rds_tos_t tos = 64 + getpid() % 128;
	struct rds_addr ta;
	uint64_t cookie = 0;
	char msg[8];
	int t, s;

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	if (rds_obj("messages") < 0)
		rds_test_skip("no object counters (debugfs)");
	pair(&t, &ta, &s);
	RDS_EXPECT_OK(ioctl(s, SIOCRDSSETTOS, &tos));
	RDS_EXPECT_OK(rds_get_mr(t, tbuf, PG, 0, &cookie));
	RDS_EXPECT(no_messages_left());
	rds_send(s, &ta, "first", 5, 0);
	RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 64, &iov, 1,
			    RDS_RDMA_READWRITE | RDS_RDMA_SILENT |
			    RDS_RDMA_NOTIFY_ME, 6, 0) == 0);
	RDS_EXPECT(wait_status(s, 6) == RDS_RDMA_SUCCESS);
	RDS_EXPECT(rds_recv(t, msg, sizeof(msg), 0, NULL, NULL, 3000) == 5);
	RDS_EXPECT(no_messages_left());
	close(t);
	close(s);
}

/*
 * pair(), another initiator @o, both initiators on a TOS of their own
 * (@tos: a new connection), and the cookie of a page of @t's (@tbuf)
 * registered and freed: an RDMA to it is refused.
 */
static uint64_t pair_with_freed_cookie(int *t, struct rds_addr *ta, int *s,
				       int *o, rds_tos_t tos,
				       unsigned char *tbuf)
{
	uint64_t cookie = 0;

	pair(t, ta, s);
	*o = rds_bound(addr_s(), 0, NULL);
	RDS_EXPECT_OK(ioctl(*s, SIOCRDSSETTOS, &tos));
	RDS_EXPECT_OK(ioctl(*o, SIOCRDSSETTOS, &tos));
	RDS_EXPECT_OK(rds_get_mr(*t, tbuf, PG, 0, &cookie));
	RDS_EXPECT_OK(rds_free_mr(*t, cookie, 0));
	return cookie;
}

/*
 * One sender queues a burst of RDMA to a freed region on a connection
 * still coming up (a new TOS); another sender's message follows. The
 * first refusal takes the shared connection down, and the rest of the
 * burst (the same sender) is dropped with it rather than taking the
 * connection down once each: the other message arrives after a reconnect
 * or two. Over loopback nothing is taken down.
 */
RDS_TEST(refused_burst_costs_one_reconnect)
{
	unsigned char *tbuf = rds_pages(1), *lbuf = rds_pages(1);
	struct rds_iovec iov = { (uintptr_t)lbuf, 64 };
	rds_tos_t tos = 64 + (getpid() + 64) % 128;
	struct rds_rdma_notify n;
	struct rds_addr ta;
	uint64_t cookie, resets;
	int t, s, o, i, bad = 0;
	char msg[8];

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	cookie = pair_with_freed_cookie(&t, &ta, &s, &o, tos, tbuf);
	resets = rds_counter("conn_reset");
	for (i = 0; i < 32; i++)
		RDS_EXPECT(rds_rdma(s, &ta, cookie, 0, 64, &iov, 1,
				    RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME,
				    100 + i, 0) == 0);
	rds_send(o, &ta, "other", 5, 0);
	RDS_EXPECT(rds_recv(t, msg, sizeof(msg), 0, NULL, NULL, 5000) == 5);
	for (i = 0; i < 32; i++) {
		if (rds_get_notify(s, &n, 3000))
			RDS_FAIL("%d of 32 notifications", i);
		if (n.status != RDS_RDMA_DROPPED && !refused(n.status))
			bad++;
	}
	RDS_EXPECT(bad == 0);
	/* Both ends of the connection count theirs. */
	RDS_EXPECT(rds_counter("conn_reset") - resets <= 6);
	RDS_EXPECT(all_bytes(tbuf, PG, 0));
	close(t);
	close(s);
	close(o);
}

/*
 * What a reconnect's handshake acks is retired, not sent again. A burst
 * of 64 messages queues on a connection coming up (a new TOS), with a
 * refused RDMA operation from another socket behind it: the refusal
 * takes the connection down while the peer has received messages it
 * has not acked yet. Those go back on the send queue; the peer's next
 * expected sequence in the new connection's private data covers them.
 * Checked: all 64 arrive once, in order; the peer drops none as an old
 * sequence (a resent copy of one it had); no message is left over.
 * Over loopback nothing is taken down (skipped).
 */
RDS_TEST(reconnect_ack_retires_requeued)
{
	unsigned char *tbuf = rds_pages(1), *lbuf = rds_pages(1);
	struct rds_iovec iov = { (uintptr_t)lbuf, 64 };
	rds_tos_t tos = 64 + (getpid() + 32) % 128;
	struct rds_addr ta;
	uint64_t cookie, old_seq, resets;
	char msg[16], want[16];
	int t, s, o, i;

	if (!on_adapter())
		rds_test_skip("loopback connections are never taken down");
	if (rds_obj("messages") < 0)
		rds_test_skip("no object counters (debugfs)");
	cookie = pair_with_freed_cookie(&t, &ta, &s, &o, tos, tbuf);
	RDS_EXPECT(no_messages_left());
	old_seq = rds_counter("recv_drop_old_seq");
	resets = rds_counter("conn_reset");
	for (i = 0; i < 64; i++) {
		snprintf(msg, sizeof(msg), "m%03d", i);
		rds_send(s, &ta, msg, 4, MSG_DONTWAIT);
	}
	RDS_EXPECT(rds_rdma(o, &ta, cookie, 0, 64, &iov, 1,
			    RDS_RDMA_READWRITE, 0, 0) == 0);
	for (i = 0; i < 64; i++) {
		snprintf(want, sizeof(want), "m%03d", i);
		if (rds_recv(t, msg, sizeof(msg), 0, NULL, NULL, 10000) != 4 ||
		    memcmp(msg, want, 4))
			RDS_FAIL("message %d of 64 missing or out of order", i);
	}
	RDS_EXPECT(no_messages_left());
	RDS_EXPECT_ERRNO(recv(t, msg, sizeof(msg), MSG_DONTWAIT), EAGAIN);
	if (rds_counter("conn_reset") == resets)
		RDS_FAIL("the refused operation took nothing down");
	RDS_EXPECT(rds_counter("recv_drop_old_seq") == old_seq);
	close(t);
	close(s);
	close(o);
}

RDS_TEST_MAIN()
