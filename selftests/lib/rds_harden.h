/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the hardening tests (races.c, cve.c, bounds.c): object
 * counts from /sys/kernel/debug/rds/objects, RDMA wrappers, threads run
 * against a deadline, and the iteration scale (RDS_RACE_SCALE: 1 by
 * default, e.g. 20 for a long run on the debug kernel).
 *
 * Include after rds_test.h and rds_util.h; define _GNU_SOURCE first.
 */
#ifndef _RDS_HARDEN_H
#define _RDS_HARDEN_H

#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>

#define RDS_PG 4096

/* A kernel text address on x86_64: never user memory. */
#define RDS_KADDR ((uint64_t)0xffffffff81000000ULL)

static inline int rds_scale(void)
{
	const char *s = getenv("RDS_RACE_SCALE");
	int v = s ? atoi(s) : 1;

	return v > 0 ? v : 1;
}

/* @name's count in /sys/kernel/debug/rds/objects, or -1 without it. */
static inline long rds_obj(const char *name)
{
	FILE *f = fopen("/sys/kernel/debug/rds/objects", "r");
	char n[64];
	long v, ret = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", n, &v) == 2)
		if (!strcmp(n, name))
			ret = v;
	fclose(f);
	return ret;
}

/*
 * Wait (up to @ms) until sockets, messages, incoming and mrs are back to
 * at most the counts in @base; fail naming the first that is not.
 */
struct rds_objs {
	long sockets, messages, incoming, mrs, connections;
};

static inline struct rds_objs rds_objs_now(void)
{
	struct rds_objs o = {
		rds_obj("sockets"), rds_obj("messages"), rds_obj("incoming"),
		rds_obj("mrs"), rds_obj("connections"),
	};

	return o;
}

static inline void rds_objs_settle(const struct rds_objs *base, int ms)
{
	long long end = rds_now_ms() + ms;
	struct rds_objs o;

	if (base->sockets < 0)
		return;		/* no debugfs (in-tree RDS) */
	for (;;) {
		o = rds_objs_now();
		if (o.sockets <= base->sockets &&
		    o.messages <= base->messages &&
		    o.incoming <= base->incoming && o.mrs <= base->mrs)
			return;
		if (rds_now_ms() > end)
			RDS_FAIL("objects not back: sockets %ld/%ld messages "
				 "%ld/%ld incoming %ld/%ld mrs %ld/%ld",
				 o.sockets, base->sockets, o.messages,
				 base->messages, o.incoming, base->incoming,
				 o.mrs, base->mrs);
		rds_sleep_ms(20);
	}
}

static inline void *rds_pages(size_t n)
{
	void *p = mmap(NULL, n * RDS_PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		RDS_FAIL("mmap: %s", strerror(errno));
	memset(p, 0, n * RDS_PG);
	return p;
}

static inline int rds_get_mr(int fd, const void *addr, uint64_t len,
			     uint64_t flags, uint64_t *cookie)
{
	struct rds_get_mr_args a = {
		.vec = { .addr = (uintptr_t)addr, .bytes = len },
		.cookie_addr = (uintptr_t)cookie,
		.flags = flags,
	};

	return setsockopt(fd, SOL_RDS, RDS_GET_MR, &a, sizeof(a));
}

static inline int rds_get_mr_for(int fd, const struct rds_addr *dest,
				 const void *addr, uint64_t len,
				 uint64_t *cookie)
{
	struct rds_get_mr_for_dest_args a;

	memset(&a, 0, sizeof(a));
	memcpy(&a.dest_addr, &dest->ss, dest->len);
	a.vec.addr = (uintptr_t)addr;
	a.vec.bytes = len;
	a.cookie_addr = (uintptr_t)cookie;
	return setsockopt(fd, SOL_RDS, RDS_GET_MR_FOR_DEST, &a, sizeof(a));
}

static inline int rds_free_mr(int fd, uint64_t cookie, uint64_t flags)
{
	struct rds_free_mr_args a = { .cookie = cookie, .flags = flags };

	return setsockopt(fd, SOL_RDS, RDS_FREE_MR, &a, sizeof(a));
}

/* An RDMA (write if @write) of the @nr local vectors at @iov. */
static inline ssize_t rds_rdma(int fd, const struct rds_addr *to,
			       uint64_t cookie, uint64_t raddr, uint64_t rbytes,
			       const struct rds_iovec *iov, uint64_t nr,
			       uint64_t flags, uint64_t token, int msgflags)
{
	struct rds_rdma_args a = {
		.cookie = cookie,
		.remote_vec = { .addr = raddr, .bytes = rbytes },
		.local_vec_addr = (uintptr_t)iov,
		.nr_local = nr,
		.flags = flags,
		.user_token = token,
	};

	return rds_send_cmsg(fd, to, "", 0, RDS_CMSG_RDMA_ARGS, &a,
			     sizeof(a), msgflags);
}

/*
 * Read one RDS_CMSG_RDMA_STATUS within @ms into *@n (raw bytes, so the
 * padding can be inspected); returns 0, or -1 if none came.
 */
static inline int rds_get_notify(int fd, struct rds_rdma_notify *n, int ms)
{
	char cbuf[CMSG_SPACE(sizeof(*n))];
	long long end = rds_now_ms() + ms;
	char buf[16];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr m;
	struct cmsghdr *c;

	for (;;) {
		memset(cbuf, 0xff, sizeof(cbuf));
		rds_msg_init(&m, &iov, cbuf, sizeof(cbuf));
		if (recvmsg(fd, &m, MSG_DONTWAIT) >= 0)
			break;
		if (errno != EAGAIN)
			RDS_FAIL("recvmsg: %s", strerror(errno));
		if (rds_now_ms() > end)
			return -1;
		rds_sleep_ms(5);
	}
	c = rds_find_cmsg(&m, SOL_RDS, RDS_CMSG_RDMA_STATUS);
	if (!c)
		RDS_FAIL("message without RDS_CMSG_RDMA_STATUS");
	if (c->cmsg_len != CMSG_LEN(sizeof(*n)))
		RDS_FAIL("RDMA status cmsg_len %zu", (size_t)c->cmsg_len);
	memcpy(n, CMSG_DATA(c), sizeof(*n));
	return 0;
}

/*
 * The status of the operation sent with @token (@what names it in a
 * failure): its RDS_CMSG_RDMA_STATUS must come within @ms and be that
 * operation's.
 */
static inline int rds_op_status(int fd, uint64_t token, int ms,
				const char *what)
{
	struct rds_rdma_notify n;

	if (rds_get_notify(fd, &n, ms))
		RDS_FAIL("%s %llu: no status", what, (unsigned long long)token);
	if (n.user_token != token)
		RDS_FAIL("%s: status for token %llu, expected %llu", what,
			 (unsigned long long)n.user_token,
			 (unsigned long long)token);
	return n.status;
}

/* Threads: run @n copies of @fn(@arg, index) and join them. */
struct rds_thr {
	void *(*fn)(void *);
	void *arg;
	int idx;
};

#define RDS_MAX_THREADS 16

struct rds_thr_arg {
	void *arg;
	int idx;
};

static inline void rds_run_threads(int n, void *(*fn)(void *), void *arg)
{
	pthread_t t[RDS_MAX_THREADS];
	struct rds_thr_arg a[RDS_MAX_THREADS];
	int i;

	if (n > RDS_MAX_THREADS)
		RDS_FAIL("too many threads");
	for (i = 0; i < n; i++) {
		a[i].arg = arg;
		a[i].idx = i;
		if (pthread_create(&t[i], NULL, fn, &a[i]))
			RDS_FAIL("pthread_create");
	}
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

/* Raise RLIMIT_NOFILE to @n (root). */
static inline void rds_nofile(rlim_t n)
{
	struct rlimit r = { n, n };

	if (setrlimit(RLIMIT_NOFILE, &r))
		rds_test_skip("RLIMIT_NOFILE %lu: %s", (unsigned long)n,
			      strerror(errno));
}

#endif /* _RDS_HARDEN_H */
