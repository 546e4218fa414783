// SPDX-License-Identifier: GPL-2.0
/*
 * rds-fuzz: a structure-aware fuzzer for AF_RDS.
 *
 * Several processes, each with several threads, share a pool of RDS
 * sockets (and, across processes, a pool of RDMA cookies) and call
 * bind/connect/sendmsg/recvmsg/poll/close/setsockopt/getsockopt/ioctl on
 * them with valid and nearly valid arguments: real local, loopback,
 * v4-mapped, link-local and unreachable addresses, cmsg chains carrying
 * RDMA, atomics, memory registration and zero-copy arguments whose
 * pointers and lengths come from a small set of interesting values
 * (valid, unmapped, read-only, kernel, unaligned, overlapping, huge).
 * Sends go mostly to ports other pool sockets are bound to, and cookies
 * come from real registrations, so calls get past argument checks.
 *
 *	rds-fuzz [--seed S] [--seconds T] [--procs P] [--threads N]
 *		 [--ops N] [--avoid-known] [--verbose]
 *
 * Every thread's choices follow from the seed (printed first), so
 * `--seed S --procs 1 --threads 1 --ops N --verbose` replays one thread's
 * sequence exactly; results still depend on kernel state. Prints
 * "rds-fuzz: seed S, N syscalls, M processes, T seconds" and per-operation
 * counts; exits 1 if a worker died of a signal it did not ask for, 2 if a
 * worker could not be killed (a task stuck in the kernel).
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/errqueue.h>
#include <linux/rds.h>
#include <linux/sockios.h>

#include "../lib/rds_compat.h"

#ifndef SO_TIMESTAMP_NEW
#define SO_TIMESTAMP_NEW 63
#endif

#define PG		4096UL
#define MAX_PROCS	16
#define MAX_THREADS	16
#define NFDS		32	/* socket pool per process */
#define NCOOKIES	64	/* cookie pool, shared by all processes */
#define SCRATCH_PAGES	264	/* > 1 MiB: room for the largest message */
#define CHURN_PAGES	16	/* unmapped and remapped under the calls */
#define HOT_PORT	4000	/* ports most binds and sends use */
#define HOT_PORTS	6
#define MAX_IOV		1100	/* > UIO_MAXIOV */

/* What all processes see: counters, cookies, the stop flag. */
struct shared {
	uint64_t calls[MAX_PROCS * MAX_THREADS + 64];
	uint64_t op_calls[64];
	uint64_t op_ok[64];
	uint64_t cookies[NCOOKIES];
	uint64_t procs;		/* processes that ran fuzz loops */
	int stop;
};

static struct shared *sh;
static int verbose, avoid_known;

/* Per process: the socket pool and the memory calls point into. */
static int pool[NFDS];
static char *scratch, *ro_page, *none_page, *hole, *churn;

/* Per thread. */
struct fz {
	uint64_t rng;
	uint64_t *calls;
	int id;			/* for messages: process * 100 + thread */
	int child;		/* a forked child: no more forks */
	uint64_t n;		/* operations done */
};

/* Buffers the calls are built in, one set per thread. */
static __thread struct rds_iovec iovs[MAX_IOV];
static __thread char cbuf[4096];
static __thread char tbuf[8192];

/* ---- randomness ---- */

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t rnd(struct fz *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return f->rng;
}

static uint64_t below(struct fz *f, uint64_t n)
{
	return n ? rnd(f) % n : 0;
}

/* True with probability pct percent. */
static int chance(struct fz *f, int pct)
{
	return (int)below(f, 100) < pct;
}

#define PICK(f, arr) ((arr)[below(f, sizeof(arr) / sizeof((arr)[0]))])

/* ---- bookkeeping ---- */

enum op_id {
	OP_SOCKET, OP_BIND, OP_CONNECT, OP_SENDMSG, OP_RECVMSG, OP_POLL,
	OP_CLOSE, OP_SETSOCKOPT, OP_GETSOCKOPT, OP_INFO, OP_GET_MR, OP_FREE_MR,
	OP_IOCTL, OP_NAME, OP_DUP, OP_FORK, OP_NETNS, OP_CHURN, OP_MMSG,
	OP_MISC, OP_RDMA, OP_ZCOPY, OP_SPRAY, OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
	"socket", "bind", "connect", "sendmsg", "recvmsg", "poll", "close",
	"setsockopt", "getsockopt", "rds_info", "get_mr", "free_mr", "ioctl",
	"getname", "dup", "fork", "netns", "churn", "mmsg", "misc", "rdma",
	"zcopy", "spray",
};

/* Count one syscall and its outcome for operation @op; returns @ret. */
static long done(struct fz *f, int op, long ret)
{
	__atomic_fetch_add(f->calls, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sh->op_calls[op], 1, __ATOMIC_RELAXED);
	if (ret >= 0)
		__atomic_fetch_add(&sh->op_ok[op], 1, __ATOMIC_RELAXED);
	if (verbose)
		fprintf(stderr, "[%d #%llu] %s = %ld%s%s\n", f->id,
			(unsigned long long)f->n, op_names[op], ret,
			ret < 0 ? " " : "", ret < 0 ? strerror(errno) : "");
	return ret;
}

static void note(struct fz *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct fz *f, const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	fprintf(stderr, "[%d #%llu]   ", f->id, (unsigned long long)f->n);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- the socket pool ---- */

static int pool_get(struct fz *f)
{
	int i, fd;

	for (i = 0; i < 4; i++) {
		fd = __atomic_load_n(&pool[below(f, NFDS)], __ATOMIC_RELAXED);
		if (fd >= 0)
			return fd;
	}
	return chance(f, 50) ? -1 : 1000;	/* a bad fd now and then */
}

static void pool_put(struct fz *f, int fd)
{
	int slot = below(f, NFDS), old;

	old = __atomic_exchange_n(&pool[slot], fd, __ATOMIC_ACQ_REL);
	if (old >= 0)
		done(f, OP_CLOSE, close(old));
}

/* Take a socket out of the pool: only the taker may close it. */
static int pool_take(struct fz *f)
{
	return __atomic_exchange_n(&pool[below(f, NFDS)], -1,
				   __ATOMIC_ACQ_REL);
}

/* ---- interesting values ---- */

static uint64_t pick_len(struct fz *f)
{
	static const uint64_t lens[] = {
		0, 1, 7, 8, 9, 100, 4095, 4096, 4097, 8192, 65536,
		1 << 20, (1 << 20) + 1, (1 << 20) + 4096, 1ULL << 32,
		(1ULL << 32) + 1, ~0ULL, 0x7fffffffffffffffULL,
	};

	if (chance(f, 30))
		return 1 + below(f, 3 * PG);
	return PICK(f, lens);
}

/* A length valid memory of which exists at @p: mostly small. */
static uint64_t small_len(struct fz *f)
{
	static const uint64_t lens[] = { 0, 1, 8, 64, 4095, 4096, 4097, 8192 };

	return chance(f, 50) ? 1 + below(f, 512) : PICK(f, lens);
}

/* A user pointer for @len bytes: usually valid, sometimes not. */
static uint64_t pick_ptr(struct fz *f, uint64_t len)
{
	uint64_t room = SCRATCH_PAGES * PG, off;

	switch (below(f, 20)) {
	case 0: return 0;
	case 1: return (uintptr_t)ro_page + below(f, PG);
	case 2: return (uintptr_t)none_page;
	case 3: return (uintptr_t)hole + below(f, PG);
	case 4: return 0xffffffff81000000ULL;			/* kernel text */
	case 5: return 0xffff888000000000ULL + below(f, 1 << 20);	/* direct map */
	case 6: return 0x8000000000000000ULL;			/* non-canonical */
	case 7: return (uintptr_t)none_page - below(f, 64);	/* runs into a guard */
	case 8: case 9:
		return (uintptr_t)churn + below(f, CHURN_PAGES * PG);
	default:
		len = len < room ? len : room;
		off = below(f, room - len + 1);
		if (chance(f, 60))
			off &= ~7ULL;
		if (chance(f, 30))
			off &= ~(PG - 1);
		return (uintptr_t)scratch + off;
	}
}

static uint64_t pick_cookie(struct fz *f)
{
	uint64_t c = __atomic_load_n(&sh->cookies[below(f, NCOOKIES)],
				     __ATOMIC_RELAXED);

	switch (below(f, 12)) {
	case 0: return 0;
	case 1: return rnd(f);
	case 2: return ~0ULL;
	case 3: return c ^ (1ULL << below(f, 64));	/* near miss */
	case 4: return (c & 0xffffffffULL) | (below(f, 2 * PG) << 32);
	case 5: return c + 1;
	default: return c;
	}
}

static uint64_t pick_rdma_flags(struct fz *f)
{
	uint64_t fl = rnd(f) & 0x7f;

	if (chance(f, 10))
		fl |= 1ULL << below(f, 64);
	return fl;
}

/*
 * Addresses: mostly local ones on hot ports so binds collide and sends
 * arrive; also any, unreachable, multicast, link-local with and without
 * a scope, v4-mapped, odd families and lengths.
 */
static socklen_t pick_addr(struct fz *f, struct sockaddr_storage *ss,
			   int for_connect)
{
	static const char *const v4[] = {
		"127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.2",
		"10.99.0.1", "10.99.0.2", "10.98.0.1", "0.0.0.0",
		"192.0.2.1", "224.0.0.1", "255.255.255.255", "127.255.255.255",
	};
	static const char *const v6[] = {
		"::1", "::1", "::ffff:127.0.0.1", "::ffff:10.99.0.1", "fd99::1",
		"fd99::2", "fd98::1", "fe80::1", "fe80::1", "::", "ff02::1",
		"2001:db8::1", "::ffff:0.0.0.0", "::127.0.0.1",
	};
	static const socklen_t odd[] = { 0, 1, 2, 8, 15, 16, 24, 27, 28, 32,
					 128, sizeof(*ss) };
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	uint16_t port;
	socklen_t len;
	const char *a;

	memset(ss, 0, sizeof(*ss));
	switch (below(f, 10)) {
	case 0: port = 0; break;
	case 1: port = 1; break;		/* the reserved probe port */
	case 2: port = rnd(f); break;
	case 3: port = PICK(f, ((const uint16_t[]){ 16385, 65535, 18634 }));
		break;
	default: port = HOT_PORT + below(f, HOT_PORTS); break;
	}
	if (chance(f, 55)) {
		a = PICK(f, v4);
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		inet_pton(AF_INET, a, &in->sin_addr);
		len = sizeof(*in);
	} else {
		a = PICK(f, v6);
		if (avoid_known && for_connect && !strncmp(a, "fe80", 4))
			a = "::1";
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		inet_pton(AF_INET6, a, &in6->sin6_addr);
		if (!strncmp(a, "fe80", 4) || chance(f, 5))
			in6->sin6_scope_id = PICK(f, ((const uint32_t[]){
				0, 1, 1, 2, 3, 99, 0xffffffff }));
		if (chance(f, 5))
			in6->sin6_flowinfo = rnd(f);
		len = sizeof(*in6);
	}
	if (chance(f, 4))
		ss->ss_family = PICK(f, ((const int[]){ AF_UNSPEC, AF_RDS,
							AF_INET, AF_INET6,
							AF_UNIX }));
	if (chance(f, 6))
		len = PICK(f, odd);
	note(f, "addr %s%s port %u scope %u family %d len %u", a,
	     for_connect ? " (peer)" : "", port,
	     ss->ss_family == AF_INET6 ? in6->sin6_scope_id : 0,
	     ss->ss_family, len);
	return len;
}

/* A local address RDS can bind to, on a hot port: 127.0.0.1, ::1, ... */
static socklen_t pick_good_addr(struct fz *f, struct sockaddr_storage *ss)
{
	static const char *const good[] = { "127.0.0.1", "127.0.0.1", "::1",
		"::ffff:127.0.0.1", "10.99.0.1", "10.99.0.2", "fd99::1" };
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	const char *a = PICK(f, good);
	uint16_t port = HOT_PORT + below(f, HOT_PORTS);

	memset(ss, 0, sizeof(*ss));
	note(f, "addr %s port %u", a, port);
	if (!strchr(a, ':')) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		inet_pton(AF_INET, a, &in->sin_addr);
		return sizeof(*in);
	}
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(port);
	inet_pton(AF_INET6, a, &in6->sin6_addr);
	return sizeof(*in6);
}

/* @n rds_iovecs at iovs: valid, overlapping, unmapped, huge, empty. */
static void fill_iovs(struct fz *f, uint64_t n)
{
	uint64_t i, len;

	for (i = 0; i < n && i < MAX_IOV; i++) {
		if (i && chance(f, 10)) {		/* overlap the previous */
			iovs[i] = iovs[i - 1];
			continue;
		}
		len = chance(f, 85) ? small_len(f) : pick_len(f);
		iovs[i].addr = pick_ptr(f, len);
		iovs[i].bytes = len;
	}
}

/* local_vec_addr and nr_local for an RDMA: usually a sane array. */
static void pick_local_vec(struct fz *f, __u64 *addr, __u64 *nr)
{
	static const uint64_t nrs[] = { 0, 1, 1, 1, 2, 2, 3, 5, 16, 1024,
					1025, 0x100000001ULL, ~0ULL };

	*nr = PICK(f, nrs);
	fill_iovs(f, *nr);
	switch (below(f, 12)) {
	case 0: *addr = 0; break;
	case 1: *addr = pick_ptr(f, 16); break;
	case 2: *addr = (uintptr_t)iovs + 1 + below(f, 15);	/* unaligned */
		break;
	case 3:		/* the array runs into a PROT_NONE page */
		*addr = (uintptr_t)none_page - 16 * (*nr > 2 ? 2 : *nr);
		break;
	default: *addr = (uintptr_t)iovs; break;
	}
}

/* ---- cmsg chains ---- */

struct cmsg_builder {
	char *buf;
	size_t cap, len;
};

/* Append one cmsg; its length field is sometimes wrong. */
static void cmsg_add(struct fz *f, struct cmsg_builder *b, int level,
		     int type, const void *data, size_t dlen)
{
	struct cmsghdr *c;
	size_t space = CMSG_SPACE(dlen);

	if (b->len + space > b->cap)
		return;
	c = (struct cmsghdr *)(b->buf + b->len);
	memset(c, 0, space);
	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(dlen);
	memcpy(CMSG_DATA(c), data, dlen);
	if (chance(f, 5))
		c->cmsg_len = PICK(f, ((const size_t[]){
			0, 1, sizeof(*c) - 1, sizeof(*c), CMSG_LEN(dlen) - 1,
			CMSG_LEN(dlen) + 8, 4096, ~0UL }));
	note(f, "cmsg level %d type %d len %zu", level, type,
	     (size_t)c->cmsg_len);
	b->len += space;
}

static void cmsg_rdma_args(struct fz *f, struct cmsg_builder *b)
{
	struct rds_rdma_args a;

	memset(&a, 0, sizeof(a));
	a.cookie = pick_cookie(f);
	a.remote_vec.addr = chance(f, 60) ? 0 : pick_len(f);
	a.remote_vec.bytes = chance(f, 50) ? 1 << 20 : pick_len(f);
	pick_local_vec(f, &a.local_vec_addr, &a.nr_local);
	a.flags = pick_rdma_flags(f);
	a.user_token = rnd(f);
	note(f, "rdma cookie %#llx nr_local %llu flags %#llx",
	     (unsigned long long)a.cookie, (unsigned long long)a.nr_local,
	     (unsigned long long)a.flags);
	cmsg_add(f, b, SOL_RDS, RDS_CMSG_RDMA_ARGS, &a,
		 chance(f, 95) ? sizeof(a) : below(f, sizeof(a)));
}

static void fill_mr_args(struct fz *f, struct rds_get_mr_args *a)
{
	uint64_t len = chance(f, 80) ? small_len(f) : pick_len(f);

	memset(a, 0, sizeof(*a));
	a->vec.addr = pick_ptr(f, len);
	a->vec.bytes = len;
	a->cookie_addr = chance(f, 80) ?
		(uintptr_t)&sh->cookies[below(f, NCOOKIES)] : pick_ptr(f, 8);
	a->flags = pick_rdma_flags(f);
}

static void cmsg_rdma_map(struct fz *f, struct cmsg_builder *b)
{
	struct rds_get_mr_args a;

	fill_mr_args(f, &a);
	cmsg_add(f, b, SOL_RDS, RDS_CMSG_RDMA_MAP, &a,
		 chance(f, 95) ? sizeof(a) : below(f, sizeof(a) + 8));
}

static void cmsg_rdma_dest(struct fz *f, struct cmsg_builder *b)
{
	uint64_t c = pick_cookie(f);

	cmsg_add(f, b, SOL_RDS, RDS_CMSG_RDMA_DEST, &c,
		 chance(f, 95) ? sizeof(c) : below(f, 16));
}

static void cmsg_atomic(struct fz *f, struct cmsg_builder *b)
{
	static const int types[] = {
		RDS_CMSG_ATOMIC_FADD, RDS_CMSG_ATOMIC_CSWP,
		RDS_CMSG_MASKED_ATOMIC_FADD, RDS_CMSG_MASKED_ATOMIC_CSWP,
	};
	struct rds_atomic_args a;

	memset(&a, 0, sizeof(a));
	a.cookie = pick_cookie(f);
	a.local_addr = pick_ptr(f, 8);
	if (chance(f, 15))
		a.local_addr |= 1 + below(f, 7);	/* unaligned */
	a.remote_addr = chance(f, 60) ? 8 * below(f, 16) : pick_len(f);
	a.m_cswp.compare = rnd(f);
	a.m_cswp.swap = rnd(f);
	a.m_cswp.compare_mask = chance(f, 50) ? ~0ULL : rnd(f);
	a.m_cswp.swap_mask = chance(f, 50) ? ~0ULL : rnd(f);
	a.flags = pick_rdma_flags(f);
	a.user_token = rnd(f);
	cmsg_add(f, b, SOL_RDS, PICK(f, types), &a,
		 chance(f, 95) ? sizeof(a) : below(f, sizeof(a) + 8));
}

static void cmsg_other(struct fz *f, struct cmsg_builder *b)
{
	uint64_t junk[6] = { rnd(f), rnd(f), rnd(f), rnd(f), rnd(f), rnd(f) };
	uint32_t zc = rnd(f);
	int fd = pool_get(f);

	switch (below(f, 6)) {
	case 0: case 1:
		cmsg_add(f, b, SOL_RDS, RDS_CMSG_ZCOPY_COOKIE, &zc,
			 chance(f, 90) ? sizeof(zc) : below(f, 9));
		break;
	case 2:		/* UEK's async send, or receive-side types */
		if (chance(f, 50)) {
			/* {user_token, flags}: RDS_SEND_NOTIFY_ME is 0x100 */
			junk[1] = chance(f, 80) ? PICK(f, ((const uint64_t[]){
				0, 0x100 })) : rnd(f);
			cmsg_add(f, b, SOL_RDS, 10, junk,
				 chance(f, 90) ? 16 : below(f, 24));
			break;
		}
		cmsg_add(f, b, SOL_RDS, PICK(f, ((const int[]){
			RDS_CMSG_RDMA_STATUS, RDS_CMSG_CONG_UPDATE,
			RDS_CMSG_RXPATH_LATENCY, RDS_CMSG_ZCOPY_COMPLETION,
			0, 14, 255, -1 })), junk, below(f, sizeof(junk)));
		break;
	case 3:		/* an fd in flight: RDS must not take it */
		cmsg_add(f, b, SOL_SOCKET, SCM_RIGHTS, &fd, sizeof(fd));
		break;
	case 4:
		cmsg_add(f, b, SOL_SOCKET, PICK(f, ((const int[]){
			SCM_CREDENTIALS, SO_TIMESTAMP, SO_MARK, SO_TXTIME,
			SO_PRIORITY })), junk, below(f, sizeof(junk)));
		break;
	default:
		cmsg_add(f, b, PICK(f, ((const int[]){ SOL_IP, SOL_IPV6, 0,
						       SOL_RDS + 1 })),
			 (int)below(f, 20), junk, below(f, sizeof(junk)));
		break;
	}
}

/* Zero to four cmsgs; returns the control length to pass. */
static size_t build_cmsgs(struct fz *f, char *buf, size_t cap)
{
	struct cmsg_builder b = { .buf = buf, .cap = cap, .len = 0 };
	int n = PICK(f, ((const int[]){ 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 4 }));

	while (n--) {
		switch (below(f, 10)) {
		case 0: case 1: case 2: cmsg_rdma_args(f, &b); break;
		case 3: case 4: cmsg_rdma_map(f, &b); break;
		case 5: cmsg_rdma_dest(f, &b); break;
		case 6: case 7: cmsg_atomic(f, &b); break;
		default: cmsg_other(f, &b); break;
		}
	}
	if (b.len && chance(f, 5))
		b.len -= 1 + below(f, b.len);		/* truncated chain */
	return b.len;
}

/* ---- operations ---- */

static void set_timeouts(struct fz *f, int fd)
{
	struct timeval tv = { 0, 20000 + below(f, 80000) };

	done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO,
					  &tv, sizeof(tv)));
	done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO,
					  &tv, sizeof(tv)));
}

static void op_socket(struct fz *f)
{
	int type = SOCK_SEQPACKET, proto = 0, fd;

	if (chance(f, 5))
		type = PICK(f, ((const int[]){ SOCK_DGRAM, SOCK_STREAM,
					       SOCK_RAW, 0, 99 }));
	if (chance(f, 5))
		proto = PICK(f, ((const int[]){ 1, 6, 17, 21, -1 }));
	if (chance(f, 20))
		type |= PICK(f, ((const int[]){ SOCK_NONBLOCK, SOCK_CLOEXEC }));
	fd = done(f, OP_SOCKET, socket(AF_RDS, type, proto));
	if (fd < 0)
		return;
	set_timeouts(f, fd);
	if (chance(f, 70)) {	/* most sockets get bound at once */
		struct sockaddr_storage ss;
		socklen_t len = chance(f, 70) ? pick_good_addr(f, &ss) :
			pick_addr(f, &ss, 0);

		done(f, OP_BIND, bind(fd, (struct sockaddr *)&ss, len));
	}
	pool_put(f, fd);
}

static void op_bind(struct fz *f)
{
	struct sockaddr_storage ss;
	socklen_t len = pick_addr(f, &ss, 0);

	done(f, OP_BIND, bind(pool_get(f), (struct sockaddr *)&ss, len));
}

static void op_connect(struct fz *f)
{
	struct sockaddr_storage ss;
	socklen_t len = pick_addr(f, &ss, 1);

	if (chance(f, 5)) {		/* disconnect */
		memset(&ss, 0, sizeof(ss));
		ss.ss_family = AF_UNSPEC;
	}
	done(f, OP_CONNECT, connect(pool_get(f), (struct sockaddr *)&ss, len));
}

/* The data part of a message: 1-3 iovecs, mostly valid. */
static int pick_data(struct fz *f, struct iovec *iov)
{
	int n = chance(f, 85) ? 1 : (int)below(f, 4), i;
	uint64_t len;

	for (i = 0; i < n; i++) {
		len = chance(f, 80) ? small_len(f) :
			PICK(f, ((const uint64_t[]){ 65536, 1 << 20,
						     (1 << 20) + 1, 1 << 19 }));
		iov[i].iov_len = len;
		iov[i].iov_base = (void *)(uintptr_t)(chance(f, 92) ?
			(uintptr_t)scratch + below(f, SCRATCH_PAGES * PG -
						  (len < (1 << 20) + 2 ?
						   len : 0) + 1) :
			pick_ptr(f, len));
	}
	return n;
}

static int pick_send_flags(struct fz *f)
{
	int fl = chance(f, 85) ? MSG_DONTWAIT : 0;

	if (chance(f, 8))
		fl |= MSG_ZEROCOPY;
	if (chance(f, 4))
		fl |= 1 << below(f, 31);
	return fl;
}

static void build_send(struct fz *f, struct msghdr *m, struct iovec *iov,
		       struct sockaddr_storage *ss, char *ctl, size_t cap)
{
	memset(m, 0, sizeof(*m));
	if (chance(f, 90)) {
		m->msg_name = ss;
		m->msg_namelen = chance(f, 50) ? pick_good_addr(f, ss) :
			pick_addr(f, ss, 1);
	}
	m->msg_iov = iov;
	m->msg_iovlen = pick_data(f, iov);
	m->msg_controllen = build_cmsgs(f, ctl, cap);
	if (m->msg_controllen)
		m->msg_control = ctl;
	if (chance(f, 2))
		m->msg_control = (void *)(uintptr_t)pick_ptr(f, 64);
}

static void op_sendmsg(struct fz *f)
{
	struct sockaddr_storage ss;
	struct iovec iov[4];
	struct msghdr m;

	build_send(f, &m, iov, &ss, cbuf, sizeof(cbuf));
	done(f, OP_SENDMSG, sendmsg(pool_get(f), &m, pick_send_flags(f)));
}

static void op_sendto(struct fz *f)
{
	struct sockaddr_storage ss;
	socklen_t len = pick_addr(f, &ss, 1);
	size_t n = small_len(f);

	done(f, OP_SENDMSG, sendto(pool_get(f), scratch + below(f, PG), n,
				   pick_send_flags(f),
				   chance(f, 90) ? (struct sockaddr *)&ss : NULL,
				   len));
}

/* A pool socket that is bound (its address in *ss), or -1. */
static int pool_get_bound(struct fz *f, struct sockaddr_storage *ss,
			  socklen_t *len)
{
	int i, fd;

	for (i = 0; i < 6; i++) {
		fd = __atomic_load_n(&pool[below(f, NFDS)], __ATOMIC_RELAXED);
		if (fd < 0)
			continue;
		*len = sizeof(*ss);
		if (done(f, OP_NAME, getsockname(fd, (struct sockaddr *)ss,
						 len)) == 0 &&
		    ((struct sockaddr_in *)ss)->sin_port)
			return fd;
	}
	return -1;
}

/*
 * An RDMA or atomic that should get through the argument checks: a
 * fresh region on one bound socket, the operation from another socket
 * to that socket's address.
 */
static void op_rdma(struct fz *f)
{
	struct sockaddr_storage ss, src_ss;
	socklen_t alen, slen;
	int dst = pool_get_bound(f, &ss, &alen);
	int src = pool_get_bound(f, &src_ss, &slen);
	struct rds_get_mr_args mr;
	struct rds_rdma_args a;
	struct cmsg_builder b = { .buf = cbuf, .cap = sizeof(cbuf) };
	uint64_t *cookie = &sh->cookies[below(f, NCOOKIES)];
	struct iovec iov = { scratch + below(f, PG), below(f, 64) };
	struct msghdr m;

	if (dst < 0 || src < 0)
		return;
	memset(&mr, 0, sizeof(mr));
	mr.vec.addr = (uintptr_t)scratch + (below(f, SCRATCH_PAGES / 2) * PG) +
		      (chance(f, 50) ? 0 : below(f, PG));
	mr.vec.bytes = 1 + below(f, chance(f, 70) ? 2 * PG : 64 * PG);
	mr.cookie_addr = (uintptr_t)cookie;
	mr.flags = chance(f, 20) ? RDS_RDMA_USE_ONCE : 0;
	if (done(f, OP_GET_MR, setsockopt(dst, SOL_RDS, RDS_GET_MR, &mr,
					  sizeof(mr))) < 0)
		return;
	if (chance(f, 30)) {
		cmsg_atomic(f, &b);
		((struct rds_atomic_args *)CMSG_DATA((struct cmsghdr *)cbuf))
			->cookie = *cookie;
	} else {
		memset(&a, 0, sizeof(a));
		a.cookie = *cookie;
		a.remote_vec.addr = chance(f, 70) ? 0 : below(f, mr.vec.bytes);
		a.remote_vec.bytes = mr.vec.bytes;
		fill_iovs(f, 1 + below(f, 3));
		a.local_vec_addr = (uintptr_t)iovs;
		a.nr_local = 1 + below(f, 3);
		a.flags = (rnd(f) & (RDS_RDMA_READWRITE | RDS_RDMA_FENCE |
				     RDS_RDMA_NOTIFY_ME | RDS_RDMA_SILENT));
		a.user_token = rnd(f);
		cmsg_add(f, &b, SOL_RDS, RDS_CMSG_RDMA_ARGS, &a, sizeof(a));
	}
	memset(&m, 0, sizeof(m));
	m.msg_name = &ss;
	m.msg_namelen = alen;
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = b.len;
	done(f, OP_RDMA, sendmsg(src, &m, MSG_DONTWAIT));
	if (chance(f, 50)) {	/* free it while it may be in flight */
		struct rds_free_mr_args fr = { .cookie = *cookie };

		done(f, OP_FREE_MR, setsockopt(dst, SOL_RDS, RDS_FREE_MR,
					       &fr, sizeof(fr)));
	}
}

static void op_churn(struct fz *f);

/*
 * Per-destination send accounting: one pool socket sends a burst to
 * two to five destinations at once (local addresses and ports, which
 * loopback acks at once, a quarter of them among 1016 loopback
 * addresses so that the socket's idle destinations overflow; 10.99.4.2, a real RDS/TCP peer whose
 * connections fuzz-guest.sh drops every few seconds, so its messages
 * wait; unreachable ones), interleaved with RDS_CANCEL_SENT_TO for one
 * of them and poll(POLLOUT), sometimes with a small SO_SNDBUF so the
 * budgets fill, and blocking sends bounded by a short SO_SNDTIMEO. In a
 * namespace of its own the destination cap and the total are small too
 * (netns_short_limits()).
 */
static void op_spray(struct fz *f)
{
	static const char *const dests[] = {
		"127.0.0.1", "127.0.0.2", "127.0.0.3", "10.99.0.1",
		"10.99.4.2", "10.99.4.2", "192.0.2.1", "::1",
	};
	struct sockaddr_storage to[5];
	socklen_t len[5];
	int fd = pool_get(f), n = 2 + (int)below(f, 4), i, k;
	struct pollfd pf = { .fd = fd, .events = POLLOUT };

	if (chance(f, 40)) {
		int v = PICK(f, ((const int[]){ 1, 4608, 16384, 65536 }));

		done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_SOCKET, SO_SNDBUF,
						  &v, sizeof(v)));
	}
	for (i = 0; i < n; i++) {
		struct sockaddr_in *in = (struct sockaddr_in *)&to[i];
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&to[i];
		const char *a = PICK(f, dests);
		uint16_t port = HOT_PORT + below(f, HOT_PORTS);
		char any[24];

		/* One of 1016 loopback addresses: more destinations than a
		 * socket keeps idle (64), so the oldest are forgotten.
		 */
		if (chance(f, 25)) {
			snprintf(any, sizeof(any), "127.0.%u.%u",
				 (unsigned int)below(f, 4),
				 2 + (unsigned int)below(f, 254));
			a = any;
		}

		memset(&to[i], 0, sizeof(to[i]));
		if (strchr(a, ':')) {
			in6->sin6_family = AF_INET6;
			in6->sin6_port = htons(port);
			inet_pton(AF_INET6, a, &in6->sin6_addr);
			len[i] = sizeof(*in6);
		} else {
			in->sin_family = AF_INET;
			in->sin_port = htons(port);
			inet_pton(AF_INET, a, &in->sin_addr);
			len[i] = sizeof(*in);
		}
		note(f, "spray to %s port %u", a, port);
	}
	for (k = 4 + (int)below(f, 28); k > 0; k--) {
		i = (int)below(f, n);
		switch (below(f, 12)) {
		case 0:
			done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_RDS,
							  RDS_CANCEL_SENT_TO,
							  &to[i], len[i]));
			break;
		case 1:
			done(f, OP_POLL, poll(&pf, 1, 0));
			break;
		case 2: {	/* blocking, for at most 20 ms */
			struct timeval tv = { 0, 1000 + 1000 * below(f, 20) };

			done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_SOCKET,
							  SO_SNDTIMEO, &tv,
							  sizeof(tv)));
			done(f, OP_SPRAY, sendto(fd, scratch, small_len(f), 0,
						 (struct sockaddr *)&to[i],
						 len[i]));
			break;
		}
		default:
			done(f, OP_SPRAY, sendto(fd, scratch,
						 chance(f, 80) ? small_len(f) :
						 PG, MSG_DONTWAIT,
						 (struct sockaddr *)&to[i],
						 len[i]));
			break;
		}
	}
}

/*
 * MSG_ZEROCOPY that gets through the checks: a TCP-transport socket with
 * SO_ZEROCOPY (made here, or any pool socket), a cookie, data from the
 * scratch area or the churn area (unmapped and remapped under the sends:
 * op_churn, and here right after), to a pool socket's address (through
 * loopback) or to 10.99.4.2, a real RDS/TCP peer in another namespace
 * when fuzz-guest.sh made one (its connections are dropped every few
 * seconds: retransmission from held pages); then completions are reaped
 * into control buffers of every size.
 */
static void op_zcopy(struct fz *f)
{
	static const size_t ctl_lens[] = { 0, 8, 16, 40, 52, 55, 56, 64, 4096 };
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct cmsg_builder b = { .buf = cbuf, .cap = sizeof(cbuf) };
	struct iovec iov[3];
	struct msghdr m;
	socklen_t alen;
	uint32_t cookie = rnd(f);
	int fd, t = 2, one = 1, i, n;

	switch (below(f, 4)) {
	case 0:		/* a fresh zero-copy socket on TCP */
		fd = done(f, OP_SOCKET, socket(AF_RDS, SOCK_SEQPACKET, 0));
		if (fd < 0)
			return;
		done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT,
						  &t, sizeof(t)));
		done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY,
						  &one, sizeof(one)));
		if (chance(f, 30)) {
			int v = PICK(f, ((const int[]){ 1, 4608, 65536 }));

			done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_SOCKET,
							  SO_SNDBUF, &v,
							  sizeof(v)));
		}
		alen = pick_good_addr(f, &ss);
		done(f, OP_BIND, bind(fd, (struct sockaddr *)&ss, alen));
		pool_put(f, fd);
		return;
	case 1:		/* reap completions */
		memset(&m, 0, sizeof(m));
		m.msg_controllen = PICK(f, ctl_lens);
		m.msg_control = m.msg_controllen ? cbuf : NULL;
		done(f, OP_ZCOPY, recvmsg(pool_get(f), &m,
					  MSG_DONTWAIT | (chance(f, 10) ?
							  MSG_PEEK : 0)));
		return;
	default:
		break;
	}
	fd = pool_get(f);
	if (chance(f, 20))
		done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY,
						  &one, sizeof(one)));
	if (chance(f, 50) || pool_get_bound(f, &ss, &alen) < 0) {
		memset(&ss, 0, sizeof(ss));
		in->sin_family = AF_INET;
		in->sin_port = htons(HOT_PORT + below(f, HOT_PORTS));
		inet_pton(AF_INET, "10.99.4.2", &in->sin_addr);
		alen = sizeof(*in);
	}
	n = 1 + (int)below(f, 3);
	for (i = 0; i < n; i++) {
		uint64_t len = chance(f, 70) ? small_len(f) :
			PICK(f, ((const uint64_t[]){ PG, 3 * PG + 5, 65536,
						     1 << 19 }));
		int in_churn = chance(f, 40);
		char *base = in_churn ? churn : scratch;
		size_t room = (in_churn ? CHURN_PAGES : SCRATCH_PAGES) * PG;

		if (len > room)
			len = room;
		iov[i].iov_base = base + below(f, room - len + 1);
		iov[i].iov_len = len;
	}
	cmsg_add(f, &b, SOL_RDS, RDS_CMSG_ZCOPY_COOKIE, &cookie,
		 chance(f, 95) ? sizeof(cookie) : below(f, 9));
	if (chance(f, 10))
		cmsg_other(f, &b);
	memset(&m, 0, sizeof(m));
	m.msg_name = &ss;
	m.msg_namelen = alen;
	m.msg_iov = iov;
	m.msg_iovlen = n;
	m.msg_control = cbuf;
	m.msg_controllen = b.len;
	done(f, OP_ZCOPY, sendmsg(fd, &m, MSG_ZEROCOPY |
				  (chance(f, 90) ? MSG_DONTWAIT : 0)));
	if (chance(f, 20))
		op_churn(f);
}

static void op_recvmsg(struct fz *f)
{
	static const size_t ctl_lens[] = { 0, 1, 8, 16, 20, 24, 32, 40, 56,
					   64, 128, 256, 4096 };
	struct sockaddr_storage ss;
	struct iovec iov[3];
	struct msghdr m;
	int flags = chance(f, 90) ? MSG_DONTWAIT : 0, i;

	memset(&m, 0, sizeof(m));
	if (chance(f, 70)) {
		m.msg_name = chance(f, 95) ? (void *)&ss :
			(void *)(uintptr_t)pick_ptr(f, 28);
		m.msg_namelen = chance(f, 85) ? sizeof(ss) :
			PICK(f, ((const socklen_t[]){ 0, 1, 8, 16, 27, 28, -1 }));
	}
	m.msg_iovlen = chance(f, 90) ? 1 : below(f, 4);
	for (i = 0; i < (int)m.msg_iovlen; i++) {
		iov[i].iov_len = chance(f, 80) ? small_len(f) : 1 << 20;
		iov[i].iov_base = chance(f, 95) ? scratch :
			(void *)(uintptr_t)pick_ptr(f, iov[i].iov_len);
	}
	m.msg_iov = iov;
	m.msg_controllen = chance(f, 80) ? PICK(f, ctl_lens) : 0;
	m.msg_control = m.msg_controllen ? cbuf : NULL;
	if (chance(f, 3))
		m.msg_control = (void *)(uintptr_t)pick_ptr(f, 64);
	if (chance(f, 20))
		flags |= PICK(f, ((const int[]){ MSG_PEEK, MSG_TRUNC,
			MSG_ERRQUEUE, MSG_OOB, MSG_WAITALL, MSG_CMSG_CLOEXEC,
			MSG_PEEK | MSG_TRUNC }));
	if (chance(f, 3))
		flags |= 1 << below(f, 31);
	done(f, OP_RECVMSG, recvmsg(pool_get(f), &m, flags));
}

static void op_recvfrom(struct fz *f)
{
	struct sockaddr_storage ss;
	socklen_t len = chance(f, 80) ? sizeof(ss) : below(f, 30);

	done(f, OP_RECVMSG, recvfrom(pool_get(f), scratch, small_len(f),
				     MSG_DONTWAIT | (chance(f, 20) ?
						     MSG_PEEK : 0),
				     chance(f, 80) ? (void *)&ss : NULL,
				     &len));
}

static void op_mmsg(struct fz *f)
{
	struct sockaddr_storage ss[2];
	struct iovec iov[2][4];
	struct mmsghdr mm[2];
	int i, n = 1 + below(f, 2);

	memset(mm, 0, sizeof(mm));
	if (chance(f, 60)) {
		for (i = 0; i < n; i++)
			build_send(f, &mm[i].msg_hdr, iov[i], &ss[i],
				   cbuf + i * 2048, 2048);
		done(f, OP_MMSG, sendmmsg(pool_get(f), mm, n,
					  MSG_DONTWAIT));
		return;
	}
	for (i = 0; i < n; i++) {
		iov[i][0].iov_base = scratch + i * 8192;
		iov[i][0].iov_len = small_len(f);
		mm[i].msg_hdr.msg_iov = iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
		mm[i].msg_hdr.msg_control = cbuf + i * 2048;
		mm[i].msg_hdr.msg_controllen = below(f, 256);
	}
	done(f, OP_MMSG, recvmmsg(pool_get(f), mm, n, MSG_DONTWAIT, NULL));
}

static void op_poll(struct fz *f)
{
	struct pollfd p[4];
	int n = 1 + below(f, 4), i;

	for (i = 0; i < n; i++) {
		p[i].fd = pool_get(f);
		p[i].events = chance(f, 80) ? POLLIN | POLLOUT : rnd(f);
		p[i].revents = 0;
	}
	done(f, OP_POLL, poll(p, n, chance(f, 80) ? 0 : 10));
}

static void op_close(struct fz *f)
{
	int fd = pool_take(f);

	if (fd >= 0)
		done(f, chance(f, 10) ? OP_MISC : OP_CLOSE,
		     chance(f, 10) ? shutdown(fd, SHUT_RDWR) : close(fd));
	if (fd >= 0 && chance(f, 10))
		done(f, OP_CLOSE, close(fd));
}

/* An option value: an int of an interesting size, or @len bytes. */
static socklen_t pick_optval(struct fz *f, void *buf, socklen_t want)
{
	static const int ints[] = { 0, 1, 2, 3, -1, 4, 64, 256, 4096,
				    1 << 20, 0x7fffffff, (int)0x80000000 };
	static const socklen_t lens[] = { 0, 1, 2, 3, 4, 7, 8, 16, 64, 4096 };
	int v = chance(f, 80) ? PICK(f, ints) : (int)rnd(f);

	memset(buf, 0, 4096);
	memcpy(buf, &v, sizeof(v));
	if (chance(f, 20))
		*(uint64_t *)buf = rnd(f);
	return chance(f, 85) ? want : PICK(f, lens);
}

static void op_setsockopt_rds(struct fz *f, int fd)
{
	static const int names[] = { RDS_CANCEL_SENT_TO, RDS_RECVERR,
		RDS_CONG_MONITOR, SO_RDS_TRANSPORT, SO_RDS_MSG_RXPATH_LATENCY,
		4, 9, 11, 0, -1, RDS_INFO_COUNTERS };
	int name = PICK(f, names), len;
	struct sockaddr_storage ss;

	if ((name == SO_RDS_TRANSPORT || name == 11) && chance(f, 30)) {
		/* UEK's resets: {tos, src, dst}, IPv4 at 8 (12 bytes) or
		 * IPv6 at 11 (36), aimed at the fuzzer's own peers.
		 */
		struct sockaddr_storage src, dst;
		unsigned char r[36] = { (unsigned char)below(f, 4) };
		int v6 = name == 11;

		pick_addr(f, &src, 1);
		pick_addr(f, &dst, 1);
		if (v6) {
			memcpy(r + 4, &((struct sockaddr_in6 *)&src)->sin6_addr, 16);
			if (chance(f, 70))
				memcpy(r + 20, &((struct sockaddr_in6 *)&dst)->sin6_addr, 16);
		} else {
			memcpy(r + 4, &((struct sockaddr_in *)&src)->sin_addr, 4);
			if (chance(f, 70))
				memcpy(r + 8, &((struct sockaddr_in *)&dst)->sin_addr, 4);
		}
		done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_RDS, name, r,
			chance(f, 90) ? (v6 ? 36 : 12) : below(f, 37)));
		return;
	}
	if (name == SO_RDS_TRANSPORT && chance(f, 70)) {
		int t = PICK(f, ((const int[]){ 0, 1, 2, 3, 3, 4, -1, 100 }));

		done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_RDS, name, &t,
			chance(f, 90) ? sizeof(t) : below(f, 9)));
		return;
	}
	if (name == RDS_CANCEL_SENT_TO) {
		len = pick_addr(f, &ss, 1);
		done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_RDS, name, &ss, len));
		return;
	}
	if (name == SO_RDS_MSG_RXPATH_LATENCY) {
		struct rds_rx_trace_so t = { .rx_traces = below(f, 6) };
		int i;

		for (i = 0; i < RDS_MSG_RX_DGRAM_TRACE_MAX; i++)
			t.rx_trace_pos[i] = below(f, 5);
		done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_RDS, name, &t,
			chance(f, 85) ? sizeof(t) : below(f, 10)));
		return;
	}
	len = pick_optval(f, tbuf, sizeof(int));
	done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_RDS, name, tbuf, len));
}

static void op_setsockopt_sol(struct fz *f, int fd)
{
	static const int names[] = { SO_RCVBUF, SO_SNDBUF, SO_RCVBUF,
		SO_SNDBUF, SO_TIMESTAMP, SO_TIMESTAMPNS, SO_TIMESTAMP_NEW,
		SO_TIMESTAMPING, SO_ZEROCOPY, SO_ZEROCOPY, SO_PRIORITY,
		SO_LINGER, SO_REUSEADDR, SO_KEEPALIVE, SO_RCVLOWAT,
		SO_SNDLOWAT, SO_BINDTODEVICE, SO_BUSY_POLL, SO_PASSCRED,
		SO_RCVBUFFORCE, SO_SNDBUFFORCE, SO_MARK, SO_BROADCAST,
		SO_DEBUG, SO_OOBINLINE, SO_RCVTIMEO, SO_TXTIME, SO_RXQ_OVFL,
		SO_RXQ_OVFL };
	int name = PICK(f, names);
	socklen_t len;

	if (name == SO_RCVTIMEO) {	/* only short timeouts: never 0 */
		set_timeouts(f, fd);
		return;
	}
	if (name == SO_BINDTODEVICE) {
		const char *dev = PICK(f, ((const char *const[]){
			"lo", "eth0", "eth1", "", "nosuch0" }));

		done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_SOCKET, name, dev,
						  strlen(dev)));
		return;
	}
	len = pick_optval(f, tbuf, sizeof(int));
	if (name == SO_LINGER && chance(f, 80))
		len = sizeof(struct linger);
	done(f, OP_SETSOCKOPT, setsockopt(fd, SOL_SOCKET, name, tbuf, len));
}

static void op_setsockopt(struct fz *f)
{
	int fd = pool_get(f);

	if (chance(f, 50))
		op_setsockopt_rds(f, fd);
	else
		op_setsockopt_sol(f, fd);
}

static socklen_t pick_getlen(struct fz *f)
{
	static const socklen_t lens[] = { 0, 1, 3, 4, 7, 8, 16, 40, 41, 47,
		48, 49, 63, 64, 72, 100, 4095, 4096, 65536, 1 << 20,
		(socklen_t)-1, 0x7fffffff, 0x80000000 };

	return PICK(f, lens);
}

static void op_getsockopt(struct fz *f)
{
	static const int rds_names[] = { SO_RDS_TRANSPORT, RDS_RECVERR,
		RDS_CONG_MONITOR, SO_RDS_MSG_RXPATH_LATENCY, RDS_GET_MR,
		RDS_FREE_MR, RDS_CANCEL_SENT_TO, 4, 9, 0 };
	static const int sol_names[] = { SO_RCVBUF, SO_SNDBUF, SO_TYPE,
		SO_PROTOCOL, SO_DOMAIN, SO_ERROR, SO_ZEROCOPY, SO_TIMESTAMP,
		SO_PEERNAME, SO_ACCEPTCONN, SO_COOKIE, SO_MEMINFO,
		SO_PEERCRED, SO_RCVTIMEO, SO_LINGER, SO_INCOMING_CPU,
		SO_NETNS_COOKIE, SO_RXQ_OVFL };
	int rds = chance(f, 50);
	socklen_t len = chance(f, 70) ? 4 : pick_getlen(f);
	uint64_t buf = chance(f, 90) ? (uintptr_t)scratch :
		pick_ptr(f, len);

	done(f, OP_GETSOCKOPT, getsockopt(pool_get(f),
		rds ? SOL_RDS : SOL_SOCKET,
		rds ? PICK(f, rds_names) : PICK(f, sol_names),
		(void *)(uintptr_t)buf, chance(f, 97) ? &len :
		(socklen_t *)(uintptr_t)pick_ptr(f, 4)));
}

static void op_info(struct fz *f)
{
	int name = RDS_INFO_FIRST + below(f, RDS_INFO_LAST - RDS_INFO_FIRST + 1);
	socklen_t len = pick_getlen(f);
	uint64_t buf = chance(f, 85) ? (uintptr_t)scratch : pick_ptr(f, len);

	if (chance(f, 5))
		name = PICK(f, ((const int[]){ 9999, 10002, 10018, 10100 }));
	/* UEK's lane history (<linux/rds_uek.h>), outside mainline's range. */
	else if (chance(f, 8))
		name = PICK(f, ((const int[]){ 10020, 10021 }));
	if (len > SCRATCH_PAGES * PG && buf == (uintptr_t)scratch &&
	    chance(f, 80))
		len = SCRATCH_PAGES * PG;
	note(f, "RDS_INFO %d len %u", name, len);
	done(f, OP_INFO, getsockopt(pool_get(f), SOL_RDS, name,
				    (void *)(uintptr_t)buf, &len));
}

static void op_get_mr(struct fz *f)
{
	struct rds_get_mr_for_dest_args d;
	struct rds_get_mr_args a;

	fill_mr_args(f, &a);
	if (chance(f, 75)) {
		done(f, OP_GET_MR, setsockopt(pool_get(f), SOL_RDS, RDS_GET_MR,
			&a, chance(f, 95) ? sizeof(a) : pick_getlen(f) & 0xff));
		return;
	}
	memset(&d, 0, sizeof(d));
	pick_addr(f, (struct sockaddr_storage *)&d.dest_addr, 1);
	d.vec = a.vec;
	d.cookie_addr = a.cookie_addr;
	d.flags = a.flags;
	done(f, OP_GET_MR, setsockopt(pool_get(f), SOL_RDS,
		RDS_GET_MR_FOR_DEST, &d,
		chance(f, 95) ? sizeof(d) : pick_getlen(f) & 0xff));
}

static void op_free_mr(struct fz *f)
{
	struct rds_free_mr_args a = {
		.cookie = pick_cookie(f),
		.flags = chance(f, 70) ? PICK(f, ((const uint64_t[]){
			0, RDS_RDMA_INVALIDATE, RDS_RDMA_USE_ONCE })) :
			pick_rdma_flags(f),
	};

	done(f, OP_FREE_MR, setsockopt(pool_get(f), SOL_RDS, RDS_FREE_MR, &a,
		chance(f, 95) ? sizeof(a) : below(f, 24)));
}

static void op_ioctl(struct fz *f)
{
	static const unsigned long cmds[] = { SIOCRDSSETTOS, SIOCRDSSETTOS,
		SIOCRDSGETTOS, SIOCRDSGETTOS, FIONREAD, SIOCOUTQ, SIOCGSTAMP,
		SIOCPROTOPRIVATE + 2, SIOCPROTOPRIVATE + 15, SIOCGIFADDR,
		FIONBIO, SIOCATMARK, 0 };
	unsigned long cmd = PICK(f, cmds);
	uint64_t arg = chance(f, 85) ? (uintptr_t)tbuf : pick_ptr(f, 8);

	memset(tbuf, 0, 64);
	tbuf[0] = PICK(f, ((const unsigned char[]){ 0, 1, 3, 7, 8, 15, 255 }));
	if (cmd == SIOCGIFADDR)
		strcpy(tbuf, "lo");
	if (cmd == FIONBIO)
		*(int *)tbuf = 0;	/* keep blocking calls blocking */
	done(f, OP_IOCTL, ioctl(pool_get(f), cmd, (void *)(uintptr_t)arg));
}

static void op_name(struct fz *f)
{
	struct sockaddr_storage ss;
	socklen_t len = chance(f, 80) ? sizeof(ss) :
		PICK(f, ((const socklen_t[]){ 0, 1, 16, 27, 28, -1 }));
	void *p = chance(f, 95) ? (void *)&ss :
		(void *)(uintptr_t)pick_ptr(f, 28);

	if (chance(f, 50))
		done(f, OP_NAME, getsockname(pool_get(f), p, &len));
	else
		done(f, OP_NAME, getpeername(pool_get(f), p, &len));
}

static void op_dup(struct fz *f)
{
	int fd = done(f, OP_DUP, dup(pool_get(f)));

	if (fd >= 0)
		pool_put(f, fd);
}

/* Unsupported calls RDS must refuse cleanly. */
static void op_misc(struct fz *f)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd = pool_get(f), sv[2];

	switch (below(f, 5)) {
	case 0: done(f, OP_MISC, listen(fd, 5)); break;
	case 1: done(f, OP_MISC, accept4(fd, (void *)&ss, &len,
					 SOCK_NONBLOCK)); break;
	case 2: done(f, OP_MISC, shutdown(fd, below(f, 4))); break;
	case 3:
		if (done(f, OP_MISC, socketpair(AF_RDS, SOCK_SEQPACKET, 0,
						sv)) == 0) {
			close(sv[0]);
			close(sv[1]);
		}
		break;
	default: done(f, OP_MISC, fcntl(fd, F_GETFL)); break;
	}
}

/* Unmap and remap the churn area under whatever points into it. */
static void op_churn(struct fz *f)
{
	size_t off = below(f, CHURN_PAGES) * PG;
	size_t len = (1 + below(f, 4)) * PG;
	void *p;

	if (off + len > CHURN_PAGES * PG)
		len = CHURN_PAGES * PG - off;
	done(f, OP_CHURN, munmap(churn + off, len));
	p = mmap(churn + off, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	done(f, OP_CHURN, p == MAP_FAILED ? -1 : 0);
}

static void run_ops(struct fz *f, uint64_t n);

/* A child sharing the pool's sockets runs a few calls and exits. */
static void op_fork(struct fz *f)
{
	pid_t pid;

	if (f->child)
		return;
	pid = done(f, OP_FORK, fork());
	if (pid == 0) {
		f->child = 1;
		f->id += 10000;
		f->rng = splitmix(f->rng);
		alarm(10);
		__atomic_fetch_add(&sh->procs, 1, __ATOMIC_RELAXED);
		run_ops(f, 20 + below(f, 60));
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* Bring lo up in a new network namespace (we own its user namespace). */
static void netns_lo_up(struct fz *f)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		done(f, OP_NETNS, ioctl(s, SIOCSIFFLAGS, &ifr));
	}
	close(s);
}

/* The namespace is ours: make closed sockets' messages and connection
 * attempts give up soon or at once (net.rds.orphan_max_*,
 * connect_timeout_ms), so closing races the orphan paths; and make a
 * socket's destination cap and send total small (net.rds.sock_*), so
 * op_spray's sends meet them.
 */
static void netns_short_limits(struct fz *f)
{
	static const char *const names[] = {
		"orphan_max_kb", "orphan_max_ms", "connect_timeout_ms",
		"sock_max_peers", "sock_sndbuf_factor",
	};
	static const int lo[] = { 0, 0, 100, 1, 1 };
	static const int span[] = { 64, 2000, 900, 8, 3 };
	char path[64], val[16];
	int fd, i, n;

	for (i = 0; i < 5; i++) {
		if (!chance(f, 50))
			continue;
		snprintf(path, sizeof(path), "/proc/sys/net/rds/%s", names[i]);
		n = snprintf(val, sizeof(val), "%d\n",
			     lo[i] + (int)below(f, span[i]));
		fd = open(path, O_WRONLY);
		if (fd < 0)
			continue;
		done(f, OP_NETNS, write(fd, val, n));
		close(fd);
	}
}

/*
 * A child in new user and network namespaces: its own sockets there,
 * the inherited ones from the old namespace, then the namespace dies
 * with RDS state in it.
 */
static void op_netns(struct fz *f)
{
	pid_t pid;
	int i;

	if (f->child)
		return;
	pid = done(f, OP_FORK, fork());
	if (pid == 0) {
		f->child = 1;
		f->id += 20000;
		f->rng = splitmix(f->rng + 1);
		alarm(15);
		__atomic_fetch_add(&sh->procs, 1, __ATOMIC_RELAXED);
		if (done(f, OP_NETNS, unshare(CLONE_NEWUSER | CLONE_NEWNET)) == 0
		    && chance(f, 80)) {
			netns_lo_up(f);
			netns_short_limits(f);
		}
		for (i = 0; i < NFDS / 2; i++)		/* new-netns sockets */
			if (chance(f, 50))
				op_socket(f);
		run_ops(f, 40 + below(f, 100));
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

struct op {
	void (*fn)(struct fz *f);
	int weight;
};

static const struct op ops[] = {
	{ op_socket, 8 }, { op_bind, 6 }, { op_connect, 4 },
	{ op_sendmsg, 20 }, { op_sendto, 6 }, { op_rdma, 8 },
	{ op_recvmsg, 16 }, { op_recvfrom, 4 }, { op_mmsg, 2 },
	{ op_poll, 5 }, { op_close, 5 }, { op_setsockopt, 8 },
	{ op_getsockopt, 4 }, { op_info, 3 }, { op_get_mr, 6 },
	{ op_free_mr, 5 }, { op_ioctl, 3 }, { op_name, 2 }, { op_dup, 1 },
	{ op_misc, 1 }, { op_churn, 1 }, { op_fork, 1 }, { op_netns, 1 },
	{ op_zcopy, 6 }, { op_spray, 4 },
};

static void run_one(struct fz *f)
{
	static int total;
	int i, w;

	if (!total)
		for (i = 0; i < (int)(sizeof(ops) / sizeof(ops[0])); i++)
			total += ops[i].weight;
	w = below(f, total);
	for (i = 0; w >= ops[i].weight; i++)
		w -= ops[i].weight;
	ops[i].fn(f);
}

static void run_ops(struct fz *f, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n && !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED);
	     i++) {
		f->n++;
		run_one(f);
	}
}

/* ---- processes and threads ---- */

struct worker_args {
	struct fz f;
	uint64_t ops;		/* 0: until told to stop */
};

static void on_tick(int sig)
{
	(void)sig;
}

/*
 * Interrupt this thread every 250 ms: a blocking call (a send waiting
 * for a congested port ignores SO_SNDTIMEO, as in Linux) returns EINTR
 * instead of parking the thread, and the signal paths get exercised.
 */
static void arm_tick(void)
{
	struct sigevent ev;
	struct itimerspec it = { { 0, 250000000 }, { 0, 250000000 } };
	timer_t t;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGUSR1;
	ev._sigev_un._tid = gettid();	/* sigev_notify_thread_id */
	if (timer_create(CLOCK_MONOTONIC, &ev, &t) == 0)
		timer_settime(t, 0, &it, NULL);
}

static void *thread_main(void *arg)
{
	struct worker_args *w = arg;

	arm_tick();

	run_ops(&w->f, w->ops ? w->ops : ~0ULL);
	return NULL;
}

static int map_memory(void)
{
	char *p = mmap(NULL, (SCRATCH_PAGES + 3 + CHURN_PAGES) * PG,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return -1;
	scratch = p;
	memset(scratch, 0x5a, SCRATCH_PAGES * PG);
	ro_page = p + SCRATCH_PAGES * PG;
	none_page = ro_page + PG;
	hole = none_page + PG;
	churn = hole + PG;
	if (mprotect(ro_page, PG, PROT_READ) ||
	    mprotect(none_page, PG, PROT_NONE) || munmap(hole, PG))
		return -1;
	return 0;
}

static void worker(uint64_t seed, int proc, int threads, uint64_t nops)
{
	struct worker_args w[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	int t;

	if (map_memory()) {
		perror("rds-fuzz: mmap");
		_exit(3);
	}
	for (t = 0; t < NFDS; t++)
		pool[t] = -1;
	__atomic_fetch_add(&sh->procs, 1, __ATOMIC_RELAXED);
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_tick;	/* no SA_RESTART */
		sigaction(SIGUSR1, &sa, NULL);
	}
	for (t = 0; t < threads; t++) {
		w[t].f.rng = splitmix(seed ^ ((uint64_t)proc << 32) ^ t) | 1;
		w[t].f.calls = &sh->calls[proc * MAX_THREADS + t];
		w[t].f.id = proc * 100 + t;
		w[t].f.child = 0;
		w[t].f.n = 0;
		w[t].ops = nops;
		if (t && pthread_create(&tid[t], NULL, thread_main, &w[t]))
			threads = t;
	}
	thread_main(&w[0]);
	for (t = 1; t < threads; t++)
		pthread_join(tid[t], NULL);
	_exit(0);
}

static uint64_t total_calls(void)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < sizeof(sh->calls) / sizeof(sh->calls[0]); i++)
		n += __atomic_load_n(&sh->calls[i], __ATOMIC_RELAXED);
	return n;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Wait for every worker until @deadline; returns how many are left. */
static int reap(pid_t *pids, int n, int *bad, long long deadline)
{
	int left, i, st;

	do {
		left = 0;
		for (i = 0; i < n; i++) {
			if (!pids[i])
				continue;
			if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				if (WIFSIGNALED(st) &&
				    WTERMSIG(st) != SIGKILL) {
					fprintf(stderr, "rds-fuzz: worker %d "
						"killed by signal %d\n", i,
						WTERMSIG(st));
					*bad = 1;
				} else if (WIFEXITED(st) && WEXITSTATUS(st)) {
					fprintf(stderr, "rds-fuzz: worker %d "
						"exited %d\n", i,
						WEXITSTATUS(st));
					*bad = 1;
				}
				pids[i] = 0;
				continue;
			}
			left++;
		}
		if (left)
			usleep(100000);
	} while (left && now_ms() < deadline);
	return left;
}

/* What each thread of a worker that will not stop is doing. */
static void report_stuck(pid_t pid)
{
	char path[320], buf[256];
	struct dirent *d;
	DIR *dir;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		printf("rds-fuzz: stuck worker %d task %s:", pid, d->d_name);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/wchan", pid,
			 d->d_name);
		fp = fopen(path, "r");
		if (fp && fgets(buf, sizeof(buf), fp))
			printf(" wchan %s", buf);
		if (fp)
			fclose(fp);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/syscall", pid,
			 d->d_name);
		fp = fopen(path, "r");
		if (fp && fgets(buf, sizeof(buf), fp))
			printf(" syscall %s", buf);
		else
			printf("\n");
		if (fp)
			fclose(fp);
	}
	closedir(dir);
}

static void print_summary(uint64_t seed, long long ms)
{
	int i;

	printf("rds-fuzz: seed %llu, %llu syscalls, %llu processes, "
	       "%lld seconds\n", (unsigned long long)seed,
	       (unsigned long long)total_calls(),
	       (unsigned long long)sh->procs, ms / 1000);
	printf("rds-fuzz: per call (succeeded/made):");
	for (i = 0; i < OP_COUNT; i++)
		if (sh->op_calls[i])
			printf(" %s %llu/%llu", op_names[i],
			       (unsigned long long)sh->op_ok[i],
			       (unsigned long long)sh->op_calls[i]);
	printf("\n");
}

static void usage(void)
{
	fprintf(stderr, "usage: rds-fuzz [--seed S] [--seconds T] "
		"[--procs P] [--threads N] [--ops N] [--avoid-known] "
		"[--verbose]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 'j' },
		{ "ops", required_argument, NULL, 'n' },
		{ "avoid-known", no_argument, NULL, 'a' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t seed = splitmix(now_ms() ^ ((uint64_t)getpid() << 20)) &
			0xffffffffULL, nops = 0;
	int seconds = 60, procs = 2, threads = 3, c, i, bad = 0, left;
	pid_t pids[MAX_PROCS];
	long long start, end;

	while ((c = getopt_long(argc, argv, "s:t:p:j:n:av", lopts,
				NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 't': seconds = atoi(optarg); break;
		case 'p': procs = atoi(optarg); break;
		case 'j': threads = atoi(optarg); break;
		case 'n': nops = strtoull(optarg, NULL, 0); break;
		case 'a': avoid_known = 1; break;
		case 'v': verbose = 1; break;
		default: usage();
		}
	}
	if (procs < 1 || procs > MAX_PROCS || threads < 1 ||
	    threads > MAX_THREADS || seconds < 1)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("rds-fuzz: seed %llu (replay: --seed %llu), %d processes x "
	       "%d threads, %d s%s\n", (unsigned long long)seed,
	       (unsigned long long)seed, procs, threads, seconds,
	       avoid_known ? ", avoiding known crashes" : "");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("rds-fuzz: mmap");
		return 3;
	}
	memset(sh, 0, sizeof(*sh));
	signal(SIGPIPE, SIG_IGN);
	start = now_ms();
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker(seed, i, threads, nops);
		if (pids[i] < 0) {
			perror("rds-fuzz: fork");
			procs = i;
		}
	}
	end = start + seconds * 1000LL;
	left = reap(pids, procs, &bad, end);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	if (left)
		left = reap(pids, procs, &bad, now_ms() + 20000);
	for (i = 0; left && i < procs; i++)
		if (pids[i])
			report_stuck(pids[i]);
	for (i = 0; left && i < procs; i++)
		if (pids[i])
			kill(pids[i], SIGKILL);
	if (left)
		left = reap(pids, procs, &bad, now_ms() + 60000);
	print_summary(seed, now_ms() - start);
	if (left) {
		printf("rds-fuzz: %d worker(s) cannot be killed: a task is "
		       "stuck in the kernel; pids:", left);
		for (i = 0; i < procs; i++)
			if (pids[i])
				printf(" %d", pids[i]);
		printf("\n");
		return 2;
	}
	return bad;
}
