// SPDX-License-Identifier: GPL-2.0
/*
 * MSG_ZEROCOPY over RDS/TCP between two network namespaces joined by
 * veth (made here with ip(8), deleted by the last test): the payload
 * arrives intact from the sender's own pages, every cookie comes back
 * exactly once in RDS_CMSG_ZCOPY_COMPLETION (at most RDS_MAX_ZCOOKIES per
 * non-blocking recvmsg), also across TCP resets, a buffer unmapped or
 * changed right after sendmsg() crashes nothing, unread completions are
 * bounded by SO_SNDBUF and freed at close, RLIMIT_MEMLOCK gives ENOBUFS,
 * and malformed cookies EINVAL. (Loopback's EOPNOTSUPP: sendmsg.c.)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/rds_netns.h"
#include "../lib/sha256.h"

#define NS_A	"rds-zca"
#define NS_B	"rds-zcb"
#define IP_A	"10.99.3.1"
#define IP_B	"10.99.3.2"
#define BIGBUF	(8 << 20)

/* The namespace pair, made once for every test of this file. */
static void pair_up(void)
{
	rds_ns_pair_up(NS_A, NS_B, "rdszva", "rdszvb", IP_A, IP_B);
}

/* An RDS/TCP socket in namespace @ns bound to @ip, large buffers. */
static int ns_socket(const char *ns, const char *ip, struct rds_addr *out)
{
	return rds_ns_tcp_socket(ns, ip, BIGBUF, out);
}

/* Sender in A (SO_ZEROCOPY) and receiver in B. */
static void zc_pair(int *s, int *r, struct rds_addr *ra)
{
	struct rds_addr sa;

	pair_up();
	*s = ns_socket(NS_A, IP_A, &sa);
	*r = ns_socket(NS_B, IP_B, ra);
	rds_set_int(*s, SOL_SOCKET, SO_ZEROCOPY, 1);
}

/* sendmsg() of @iov with MSG_ZEROCOPY and @cookie; sendmsg's result. */
static ssize_t zc_sendv(int s, const struct rds_addr *to, struct iovec *iov,
			int n, uint32_t cookie, int flags)
{
	union {
		char b[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} cb;
	struct msghdr m = {
		.msg_name = (void *)&to->ss, .msg_namelen = to->len,
		.msg_iov = iov, .msg_iovlen = n,
		.msg_control = cb.b, .msg_controllen = sizeof(cb.b),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	memset(&cb, 0, sizeof(cb));
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = RDS_CMSG_ZCOPY_COOKIE;
	c->cmsg_len = CMSG_LEN(sizeof(cookie));
	memcpy(CMSG_DATA(c), &cookie, sizeof(cookie));
	return sendmsg(s, &m, MSG_ZEROCOPY | flags);
}

static ssize_t zc_send(int s, const struct rds_addr *to, const void *buf,
		       size_t len, uint32_t cookie, int flags)
{
	struct iovec iov = { (void *)buf, len };

	return zc_sendv(s, to, &iov, 1, cookie, flags);
}

/*
 * One non-blocking recvmsg() for completions: adds each cookie to
 * @seen (cookies are < @max), fails on a duplicate, returns how many
 * came (0: EAGAIN).
 */
static int zc_reap(int s, unsigned char *seen, uint32_t max)
{
	union {
		char b[CMSG_SPACE(sizeof(struct rds_zcopy_cookies))];
		struct cmsghdr align;
	} cb;
	struct msghdr m = { .msg_control = cb.b, .msg_controllen = sizeof(cb.b) };
	struct rds_zcopy_cookies ck;
	struct cmsghdr *c;
	uint32_t i;

	if (recvmsg(s, &m, MSG_DONTWAIT) < 0) {
		if (errno != EAGAIN)
			RDS_FAIL("recvmsg for completions: %s", strerror(errno));
		return 0;
	}
	c = rds_find_cmsg(&m, SOL_RDS, RDS_CMSG_ZCOPY_COMPLETION);
	if (!c)
		RDS_FAIL("recvmsg returned without RDS_CMSG_ZCOPY_COMPLETION");
	memcpy(&ck, CMSG_DATA(c), sizeof(ck));
	if (ck.num < 1 || ck.num > RDS_MAX_ZCOOKIES)
		RDS_FAIL("%u cookies in one completion", ck.num);
	for (i = 0; i < ck.num; i++) {
		if (ck.cookies[i] >= max)
			RDS_FAIL("cookie %u never sent", ck.cookies[i]);
		if (seen[ck.cookies[i]]++)
			RDS_FAIL("cookie %u completed twice", ck.cookies[i]);
	}
	return ck.num;
}

/* Reap until @want completions came, within @ms. */
static void zc_reap_all(int s, unsigned char *seen, uint32_t max, int want,
			int ms)
{
	long long end = rds_now_ms() + ms;
	int got = 0;

	while (got < want) {
		struct pollfd p = { .fd = s, .events = POLLIN };
		int n = zc_reap(s, seen, max);

		got += n;
		if (n)
			continue;
		if (rds_now_ms() > end)
			RDS_FAIL("%d of %d completions within %d ms", got, want, ms);
		poll(&p, 1, 100);
	}
	RDS_EXPECT(zc_reap(s, seen, max) == 0);
}

static int seen_count(const unsigned char *seen, int n)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += seen[i];
	return c;
}

static long obj(const char *name)
{
	FILE *f = fopen("/sys/kernel/debug/rds/objects", "r");
	char n[32];
	long v, ret = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%31s %ld", n, &v) == 2)
		if (!strcmp(n, name))
			ret = v;
	fclose(f);
	return ret;
}

/* Every size, unaligned, and a buffer in three pieces: SHA-256 equal. */
RDS_TEST(zerocopy_data_arrives_intact)
{
	static const size_t sizes[] = { 1, 100, 4095, 4096, 5000, 65536,
					300001, RDS_MAX_MSG };
	const int n = sizeof(sizes) / sizeof(sizes[0]);
	unsigned char *buf = malloc(RDS_MAX_MSG + 64), *in = malloc(RDS_MAX_MSG);
	unsigned char seen[16] = { 0 }, h1[32], h2[32];
	struct rds_addr ra;
	struct iovec iov[3];
	int s, r, i;

	zc_pair(&s, &r, &ra);
	for (i = 0; i < n; i++) {
		rds_fill(buf + 3, sizes[i], i);
		RDS_EXPECT(zc_send(s, &ra, buf + 3, sizes[i], i, 0) ==
			   (ssize_t)sizes[i]);
		RDS_EXPECT(rds_recv(r, in, RDS_MAX_MSG, 0, NULL, NULL, 20000) ==
			   (ssize_t)sizes[i]);
		sha256(buf + 3, sizes[i], h1);
		sha256(in, sizes[i], h2);
		RDS_EXPECT(!memcmp(h1, h2, 32));
	}
	rds_fill(buf, 70000, 99);
	iov[0] = (struct iovec){ buf + 1, 10 };
	iov[1] = (struct iovec){ buf + 11, 0 };
	iov[2] = (struct iovec){ buf + 11, 69989 };
	RDS_EXPECT(zc_sendv(s, &ra, iov, 3, n, 0) == 69999);
	RDS_EXPECT(rds_recv(r, in, RDS_MAX_MSG, 0, NULL, NULL, 20000) == 69999);
	RDS_EXPECT(!memcmp(in, buf + 1, 69999));
	zc_reap_all(s, seen, sizeof(seen), n + 1, 20000);
	close(s);
	close(r);
	free(buf);
	free(in);
}

/* Many sends, read as they come: each cookie once, batched. */
RDS_TEST(zerocopy_completions_exactly_once)
{
	enum { N = 400 };
	static unsigned char buf[N][1000];
	unsigned char seen[N] = { 0 }, in[1000];
	struct rds_addr ra;
	int s, r, i, got = 0;

	zc_pair(&s, &r, &ra);
	for (i = 0; i < N; i++) {
		rds_fill(buf[i], sizeof(buf[i]), i);
		RDS_EXPECT(zc_send(s, &ra, buf[i], sizeof(buf[i]), i, 0) == 1000);
		if (i % 50 == 49)
			got += zc_reap(s, seen, N);
	}
	for (i = 0; i < N; i++) {
		RDS_EXPECT(rds_recv(r, in, sizeof(in), 0, NULL, NULL, 20000) == 1000);
		RDS_EXPECT(!memcmp(in, buf[i], 1000));
	}
	zc_reap_all(s, seen, N, N - got, 20000);
	close(s);
	close(r);
}

static void *resetter(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 3; i++) {
		rds_sleep_ms(300);
		if (system("ip netns exec " NS_A " ss -K state established "
			   "'( sport = :16385 or dport = :16385 )' >/dev/null"))
			break;
	}
	return NULL;
}

/* Resets under traffic: messages retransmitted from the held pages
 * arrive once, in order, intact; every cookie completes once.
 */
RDS_TEST(zerocopy_cookies_survive_reconnects)
{
	enum { N = 300, LEN = 30000 };
	unsigned char *buf = malloc((size_t)N * LEN), *in = malloc(LEN);
	unsigned char seen[N] = { 0 };
	struct rds_addr ra;
	pthread_t t;
	int s, r, i, sent = 0, rcvd = 0;

	zc_pair(&s, &r, &ra);
	for (i = 0; i < N; i++)
		rds_fill(buf + (size_t)i * LEN, LEN, i);
	RDS_EXPECT(!pthread_create(&t, NULL, resetter, NULL));
	while (rcvd < N) {
		if (sent < N && zc_send(s, &ra, buf + (size_t)sent * LEN, LEN,
					sent, MSG_DONTWAIT) == LEN)
			sent++;
		else if (sent < N && errno != EAGAIN && errno != ENOBUFS)
			RDS_FAIL("send %d: %s", sent, strerror(errno));
		if (recv(r, in, LEN, MSG_DONTWAIT) == LEN) {
			if (memcmp(in, buf + (size_t)rcvd * LEN, LEN))
				RDS_FAIL("message %d corrupt or out of order", rcvd);
			rcvd++;
		} else if (sent == N || errno == EAGAIN) {
			zc_reap(s, seen, N);
			rds_sleep_ms(1);
		}
	}
	pthread_join(t, NULL);
	zc_reap_all(s, seen, N, N - seen_count(seen, N), 20000);
	close(s);
	close(r);
	free(buf);
	free(in);
}

/* The buffer unmapped, or rewritten, right after sendmsg(): nothing
 * breaks; the lengths arrive (the contents of a rewritten buffer are
 * unspecified until its completion).
 */
RDS_TEST(zerocopy_buffer_unmapped_or_changed_after_send)
{
	enum { LEN = 256 << 10 };
	unsigned char seen[8] = { 0 }, *in = malloc(LEN), *p;
	struct rds_addr ra;
	int s, r, i;

	zc_pair(&s, &r, &ra);
	for (i = 0; i < 4; i++) {
		p = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		RDS_EXPECT(p != MAP_FAILED);
		rds_fill(p, LEN, i);
		RDS_EXPECT(zc_send(s, &ra, p, LEN, i, 0) == LEN);
		if (i & 1)
			memset(p, 0xee, LEN);
		RDS_EXPECT_OK(munmap(p, LEN));
	}
	for (i = 0; i < 4; i++)
		RDS_EXPECT(rds_recv(r, in, LEN, 0, NULL, NULL, 20000) == LEN);
	zc_reap_all(s, seen, sizeof(seen), 4, 20000);
	close(s);
	close(r);
	free(in);
}

/* A sender that never reads its completions fills its SO_SNDBUF with
 * them and stops; reading them lets it go on; closing frees the rest.
 */
RDS_TEST(zerocopy_unread_completions_bounded_and_freed)
{
	enum { N = 2000 };
	unsigned char seen[N] = { 0 }, buf[64] = { 1 }, in[64];
	struct rds_addr ra;
	long before = obj("zcopy");
	int s, r, i, sent = 0, idle = 0;

	RDS_SKIP_IF_INTREE("Linux's RDS queues completions without bound");
	zc_pair(&s, &r, &ra);
	rds_set_int(s, SOL_SOCKET, SO_SNDBUF, 32768);
	while (sent < N && idle < 200) {
		if (zc_send(s, &ra, buf, sizeof(buf), sent, MSG_DONTWAIT) > 0) {
			sent++;
			idle = 0;
			continue;
		}
		RDS_EXPECT(errno == EAGAIN);
		while (recv(r, in, sizeof(in), MSG_DONTWAIT) > 0)
			;
		idle++;
		rds_sleep_ms(10);
	}
	/* Everything sent was delivered and acked, yet sends stay blocked. */
	RDS_EXPECT(sent < N);
	rds_sleep_ms(500);
	while (recv(r, in, sizeof(in), MSG_DONTWAIT) > 0)
		;
	RDS_EXPECT(zc_send(s, &ra, buf, sizeof(buf), 0, MSG_DONTWAIT) < 0 &&
		   errno == EAGAIN);
	if (before >= 0)
		RDS_EXPECT(obj("zcopy") - before >= sent / 2);
	/* Reading some completions opens the budget again. */
	for (i = 0; i < 8; i++)
		zc_reap(s, seen, N);
	RDS_EXPECT(zc_send(s, &ra, buf, sizeof(buf), sent, MSG_DONTWAIT) > 0);
	close(s);
	close(r);
	if (before >= 0) {
		for (i = 0; i < 100 && obj("zcopy") != before; i++)
			rds_sleep_ms(50);
		RDS_EXPECT(obj("zcopy") == before);
	}
}

/* RLIMIT_MEMLOCK bounds the held pages (without CAP_IPC_LOCK). */
RDS_TEST(zerocopy_memlock_limit_enobufs)
{
	enum { BIG = 1 << 20 };
	unsigned char *buf = malloc(BIG), seen[4] = { 0 };
	struct rlimit rl = { 64 << 10, 64 << 10 };
	struct rds_addr ra;
	int s, r;

	RDS_SKIP_IF_INTREE("Linux's RDS says ENOMEM where TCP says ENOBUFS");
	zc_pair(&s, &r, &ra);
	RDS_EXPECT_OK(setrlimit(RLIMIT_MEMLOCK, &rl));
	/* nobody: no CAP_IPC_LOCK, and a user of its own for locked_vm. */
	RDS_EXPECT_OK(setgid(65534));
	RDS_EXPECT_OK(setuid(65534));
	rds_fill(buf, BIG, 5);
	RDS_EXPECT(zc_send(s, &ra, buf, BIG, 0, 0) < 0 && errno == ENOBUFS);
	RDS_EXPECT(zc_send(s, &ra, buf, 16384, 1, 0) == 16384);
	RDS_EXPECT(rds_recv(r, buf, BIG, 0, NULL, NULL, 20000) == 16384);
	zc_reap_all(s, seen, sizeof(seen), 1, 20000);
	RDS_EXPECT(seen[1] && !seen[0]);
	close(s);
	close(r);
	free(buf);
}

/* Cookie control messages: too short, missing, or without SO_ZEROCOPY. */
RDS_TEST(zerocopy_bad_cookies_einval)
{
	struct rds_addr ra;
	uint64_t big = 7;
	uint32_t c = 1;
	int s, r;
	char in[8];

	zc_pair(&s, &r, &ra);
	RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ra, "x", 1, RDS_CMSG_ZCOPY_COOKIE,
				       &c, 0, MSG_ZEROCOPY), EINVAL);
	RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ra, "x", 1, RDS_CMSG_ZCOPY_COOKIE,
				       &c, 2, MSG_ZEROCOPY), EINVAL);
	RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ra, "x", 1, RDS_CMSG_ZCOPY_COOKIE,
				       &c, 3, MSG_ZEROCOPY), EINVAL);
	RDS_EXPECT_ERRNO(sendto(s, "x", 1, MSG_ZEROCOPY, &ra.sa, ra.len),
			 EINVAL);
	/* Longer than a u32: accepted, as by Linux (its first 4 bytes). */
	RDS_EXPECT(rds_send_cmsg(s, &ra, "x", 1, RDS_CMSG_ZCOPY_COOKIE, &big,
				 sizeof(big), MSG_ZEROCOPY) == 1);
	RDS_EXPECT(rds_recv(r, in, sizeof(in), 0, NULL, NULL, 20000) == 1);
	rds_set_int(s, SOL_SOCKET, SO_ZEROCOPY, 0);
	RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ra, "x", 1, RDS_CMSG_ZCOPY_COOKIE,
				       &c, sizeof(c), MSG_ZEROCOPY), EINVAL);
	close(s);
	close(r);
}

/* A zero-length zero-copy send: ours completes it; Linux's RDS has no
 * pages to attach the cookie to and refuses the cookie (EINVAL).
 */
RDS_TEST(zerocopy_zero_length)
{
	unsigned char seen[8] = { 0 };
	struct rds_addr ra;
	char in[4];
	int s, r;

	zc_pair(&s, &r, &ra);
	if (rds_is_intree()) {
		RDS_EXPECT(zc_send(s, &ra, in, 0, 5, 0) < 0 && errno == EINVAL);
	} else {
		RDS_EXPECT(zc_send(s, &ra, in, 0, 5, 0) == 0);
		RDS_EXPECT(rds_recv(r, in, sizeof(in), 0, NULL, NULL, 20000) == 0);
		zc_reap_all(s, seen, sizeof(seen), 1, 20000);
		RDS_EXPECT(seen[5]);
	}
	close(s);
	close(r);
}

/* Completions come to a non-blocking recvmsg() with room for them, or
 * with a message; poll() says POLLIN; a blocking recvmsg() without data
 * waits for data, as Linux.
 */
RDS_TEST(zerocopy_completion_delivery_rules)
{
	unsigned char seen[4] = { 0 };
	char in[8], small[CMSG_SPACE(4)];
	struct msghdr m = { .msg_control = small,
			    .msg_controllen = sizeof(small) };
	struct timeval tv = { 0, 300000 };
	struct rds_zcopy_cookies ck;
	struct pollfd p;
	struct rds_addr ra;
	int s, r;

	zc_pair(&s, &r, &ra);
	RDS_EXPECT(zc_send(s, &ra, "abc", 3, 2, 0) == 3);
	RDS_EXPECT(rds_recv(r, in, sizeof(in), 0, NULL, NULL, 20000) == 3);
	p = (struct pollfd){ .fd = s, .events = POLLIN };
	RDS_EXPECT(poll(&p, 1, 5000) == 1 && (p.revents & POLLIN));
	RDS_EXPECT_ERRNO(recv(s, in, sizeof(in), MSG_DONTWAIT), EAGAIN);
	RDS_EXPECT_ERRNO(recvmsg(s, &m, MSG_DONTWAIT), EAGAIN);
	RDS_EXPECT_OK(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	RDS_EXPECT_ERRNO(recvmsg(s, &m, 0), ETIMEDOUT);
	/* Completions ride along with a message (room permitting). */
	{
		struct rds_addr sa;
		struct iovec iov = { in, sizeof(in) };
		union {
			char b[CMSG_SPACE(sizeof(struct rds_zcopy_cookies))];
			struct cmsghdr align;
		} cb;
		struct msghdr dm = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cb.b,
				     .msg_controllen = sizeof(cb.b) };

		sa.len = sizeof(sa.ss);
		RDS_EXPECT_OK(getsockname(s, &sa.sa, &sa.len));
		rds_send(r, &sa, "data", 4, 0);
		RDS_EXPECT(rds_wait_readable(s, 20000));
		RDS_EXPECT(recvmsg(s, &dm, 0) == 4);
		RDS_EXPECT(rds_find_cmsg(&dm, SOL_RDS,
					 RDS_CMSG_ZCOPY_COMPLETION));
		memcpy(&ck, CMSG_DATA(rds_find_cmsg(&dm, SOL_RDS,
						    RDS_CMSG_ZCOPY_COMPLETION)),
		       sizeof(ck));
		RDS_EXPECT(ck.num == 1 && ck.cookies[0] == 2);
	}
	RDS_EXPECT(zc_reap(s, seen, sizeof(seen)) == 0);
	/* Alone, they come to a non-blocking call with room only. */
	RDS_EXPECT(zc_send(s, &ra, "abc", 3, 3, 0) == 3);
	RDS_EXPECT(rds_recv(r, in, sizeof(in), 0, NULL, NULL, 20000) == 3);
	p = (struct pollfd){ .fd = s, .events = POLLIN };
	RDS_EXPECT(poll(&p, 1, 5000) == 1 && (p.revents & POLLIN));
	RDS_EXPECT_ERRNO(recvmsg(s, &m, MSG_DONTWAIT), EAGAIN);
	zc_reap_all(s, seen, sizeof(seen), 1, 5000);
	RDS_EXPECT(seen[3] && !seen[2]);
	close(s);
	close(r);
}

/* A TCP socket's local peer goes through loopback: zero-copy works
 * there too, the completion after the receiver took the message.
 */
RDS_TEST(zerocopy_to_a_local_peer)
{
	unsigned char *buf = malloc(100000), *in = malloc(100000);
	unsigned char seen[4] = { 0 };
	struct rds_addr ra;
	int s, r;

	pair_up();
	s = ns_socket(NS_A, IP_A, &ra);
	r = ns_socket(NS_A, IP_A, &ra);
	rds_set_int(s, SOL_SOCKET, SO_ZEROCOPY, 1);
	rds_fill(buf, 100000, 3);
	RDS_EXPECT(zc_send(s, &ra, buf, 100000, 3, 0) == 100000);
	RDS_EXPECT(rds_recv(r, in, 100000, 0, NULL, NULL, 20000) == 100000);
	RDS_EXPECT(!memcmp(in, buf, 100000));
	zc_reap_all(s, seen, sizeof(seen), 1, 20000);
	close(s);
	close(r);
	free(buf);
	free(in);
}

RDS_TEST(zz_namespaces_deleted)
{
	rds_ns_pair_down(NS_A, NS_B);
}

RDS_TEST_MAIN()
