/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the core selftests: sockets bound to an address,
 * send/recv wrappers with exact-length checks, RDS_INFO_* snapshots and
 * counter lookup, and the in-tree/out-of-tree distinction.
 *
 * Include after rds_test.h.  Every helper fails the current test (via
 * RDS_FAIL) on an unexpected error, so tests stay short.
 */
#ifndef _RDS_UTIL_H
#define _RDS_UTIL_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/time.h>
#include <time.h>
#include <linux/rds.h>

#include "rds_compat.h"
#include "rds_test.h"

#ifndef PF_RDS
#define PF_RDS AF_RDS
#endif
/* Not in rds.h: the loopback transport's type as getsockopt reports it. */
#ifndef RDS_TRANS_LOOP
#define RDS_TRANS_LOOP 3
#endif
/* Largest message RDS accepts (upstream RDS_MAX_MSG_SIZE). */
#define RDS_MAX_MSG (1u << 20)

/* An address of either family, with its length. */
struct rds_addr {
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
		struct sockaddr_storage ss;
	};
	socklen_t len;
};

static inline struct rds_addr rds_addr4(const char *ip, uint16_t port)
{
	struct rds_addr a;

	memset(&a, 0, sizeof(a));
	a.in.sin_family = AF_INET;
	a.in.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &a.in.sin_addr) != 1)
		RDS_FAIL("bad IPv4 literal %s", ip);
	a.len = sizeof(a.in);
	return a;
}

static inline struct rds_addr rds_addr6(const char *ip, uint16_t port,
					uint32_t scope_id)
{
	struct rds_addr a;

	memset(&a, 0, sizeof(a));
	a.in6.sin6_family = AF_INET6;
	a.in6.sin6_port = htons(port);
	a.in6.sin6_scope_id = scope_id;
	if (inet_pton(AF_INET6, ip, &a.in6.sin6_addr) != 1)
		RDS_FAIL("bad IPv6 literal %s", ip);
	a.len = sizeof(a.in6);
	return a;
}

/* "ip" or "ip6" by the literal's shape. */
static inline struct rds_addr rds_addr(const char *ip, uint16_t port)
{
	return strchr(ip, ':') ? rds_addr6(ip, port, 0) : rds_addr4(ip, port);
}

static inline uint16_t rds_addr_port(const struct rds_addr *a)
{
	return ntohs(a->sa.sa_family == AF_INET6 ? a->in6.sin6_port :
		     a->in.sin_port);
}

static inline void rds_addr_set_port(struct rds_addr *a, uint16_t port)
{
	if (a->sa.sa_family == AF_INET6)
		a->in6.sin6_port = htons(port);
	else
		a->in.sin_port = htons(port);
}

static inline const char *rds_addr_str(const struct rds_addr *a)
{
	static char buf[4][INET6_ADDRSTRLEN + 16];
	static int i;
	char ip[INET6_ADDRSTRLEN] = "?";
	char *b = buf[i++ & 3];

	if (a->sa.sa_family == AF_INET6)
		inet_ntop(AF_INET6, &a->in6.sin6_addr, ip, sizeof(ip));
	else if (a->sa.sa_family == AF_INET)
		inet_ntop(AF_INET, &a->in.sin_addr, ip, sizeof(ip));
	snprintf(b, sizeof(buf[0]), "%s%s%s:%u (family %d)",
		 a->sa.sa_family == AF_INET6 ? "[" : "", ip,
		 a->sa.sa_family == AF_INET6 ? "]" : "",
		 rds_addr_port(a), a->sa.sa_family);
	return b;
}

/* Same family, address and port (scope id not compared). */
static inline int rds_addr_eq(const struct rds_addr *a,
			      const struct rds_addr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return 0;
	if (a->sa.sa_family == AF_INET)
		return a->in.sin_addr.s_addr == b->in.sin_addr.s_addr &&
		       a->in.sin_port == b->in.sin_port;
	return !memcmp(&a->in6.sin6_addr, &b->in6.sin6_addr, 16) &&
	       a->in6.sin6_port == b->in6.sin6_port;
}

static inline int rds_socket(void)
{
	return RDS_EXPECT_OK(socket(AF_RDS, SOCK_SEQPACKET, 0));
}

/*
 * A socket bound to @ip:@port (port 0: ephemeral); *out, if given,
 * receives the address actually bound (as getsockname reports it).
 */
static inline int rds_bound(const char *ip, uint16_t port,
			    struct rds_addr *out)
{
	struct rds_addr a = rds_addr(ip, port), got;
	int fd = rds_socket();

	if (bind(fd, &a.sa, a.len))
		RDS_FAIL("bind(%s): %s", rds_addr_str(&a), strerror(errno));
	memset(&got, 0, sizeof(got));
	got.len = sizeof(got.ss);
	RDS_EXPECT_OK(getsockname(fd, &got.sa, &got.len));
	if (out)
		*out = got;
	return fd;
}

static inline void rds_set_int(int fd, int level, int name, int val)
{
	if (setsockopt(fd, level, name, &val, sizeof(val)))
		RDS_FAIL("setsockopt(%d, %d, %d): %s", level, name, val,
			 strerror(errno));
}

static inline void rds_set_nonblock(int fd)
{
	int fl = RDS_EXPECT_OK(fcntl(fd, F_GETFL));

	RDS_EXPECT_OK(fcntl(fd, F_SETFL, fl | O_NONBLOCK));
}

/* sendto that must send exactly @len bytes. */
static inline void rds_send(int fd, const struct rds_addr *to,
			    const void *buf, size_t len, int flags)
{
	ssize_t r = sendto(fd, buf, len, flags, to ? &to->sa : NULL,
			   to ? to->len : 0);

	if (r < 0)
		RDS_FAIL("sendto(%s, %zu bytes): %s",
			 to ? rds_addr_str(to) : "connected", len,
			 strerror(errno));
	if ((size_t)r != len)
		RDS_FAIL("sendto returned %zd, expected %zu", r, len);
}

/* One control message: @len bytes at @data, at (@level, @type). */
struct rds_cmsg {
	int level, type;
	const void *data;
	size_t len;
};

/* Room for the control messages of one rds_sendmsg_cmsgs(). */
#define RDS_CMSG_ROOM 512

/*
 * sendmsg of @len bytes at @buf to @to (NULL: no address) with the @n
 * control messages at @cm, packed in a zeroed buffer; returns sendmsg's
 * result (errno set), so tests can expect an error from it.
 */
static inline ssize_t rds_sendmsg_cmsgs(int fd, const struct rds_addr *to,
					const void *buf, size_t len,
					const struct rds_cmsg *cm, int n,
					int flags)
{
	union {
		char b[RDS_CMSG_ROOM];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = {
		.msg_name = to ? (void *)&to->ss : NULL,
		.msg_namelen = to ? to->len : 0,
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.b,
	};
	struct cmsghdr *c;
	size_t room = 0;
	int i;

	for (i = 0; i < n; i++)
		room += CMSG_SPACE(cm[i].len);
	if (room > sizeof(cbuf))
		RDS_FAIL("control messages of %zu bytes: more than %zu",
			 room, sizeof(cbuf));
	memset(&cbuf, 0, sizeof(cbuf));
	m.msg_controllen = room;
	for (i = 0, c = CMSG_FIRSTHDR(&m); i < n; i++, c = CMSG_NXTHDR(&m, c)) {
		c->cmsg_level = cm[i].level;
		c->cmsg_type = cm[i].type;
		c->cmsg_len = CMSG_LEN(cm[i].len);
		memcpy(CMSG_DATA(c), cm[i].data, cm[i].len);
	}
	return sendmsg(fd, &m, flags);
}

/* The same with one SOL_RDS control message (@type, @arg). */
static inline ssize_t rds_send_cmsg(int fd, const struct rds_addr *to,
				    const void *buf, size_t len, int type,
				    const void *arg, size_t alen, int flags)
{
	struct rds_cmsg cm = { SOL_RDS, type, arg, alen };

	return rds_sendmsg_cmsgs(fd, to, buf, len, &cm, 1, flags);
}

static inline long long rds_now_ms(void);

/*
 * Receive one message into @buf (@cap bytes), waiting at most @ms
 * milliseconds (ms < 0: just call recvmsg with @flags); returns
 * recvmsg's value and fills *from, *mflags.
 *
 * Waiting is poll + a nonblocking recvmsg, retried: upstream's poll may
 * report POLLIN once with nothing queued (after a congestion map change
 * anywhere), so POLLIN alone does not promise a message.
 */
static inline ssize_t rds_recv(int fd, void *buf, size_t cap, int flags,
			       struct rds_addr *from, int *mflags, int ms)
{
	struct rds_addr a;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr m;
	long long end = rds_now_ms() + (ms > 0 ? ms : 0);
	ssize_t r;

	for (;;) {
		memset(&a, 0, sizeof(a));
		memset(&m, 0, sizeof(m));
		m.msg_name = &a.ss;
		m.msg_namelen = sizeof(a.ss);
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		if (ms < 0) {
			r = recvmsg(fd, &m, flags);
			break;
		}
		r = recvmsg(fd, &m, flags | MSG_DONTWAIT);
		if (r >= 0 || errno != EAGAIN)
			break;
		if (rds_now_ms() >= end)
			RDS_FAIL("nothing to receive within %d ms", ms);
		{
			struct pollfd p = { .fd = fd, .events = POLLIN };
			long long left = end - rds_now_ms();

			if (poll(&p, 1, left > 0 ? (int)left : 0) < 0)
				RDS_FAIL("poll: %s", strerror(errno));
			if (!p.revents)
				continue;	/* timed out: one last try */
			/* spurious POLLIN: don't spin */
			if (recv(fd, NULL, 0, MSG_PEEK | MSG_DONTWAIT) < 0 &&
			    errno == EAGAIN) {
				struct timespec ts = { 0, 5000000 };

				nanosleep(&ts, NULL);
			}
		}
	}
	if (r < 0)
		RDS_FAIL("recvmsg: %s", strerror(errno));
	a.len = m.msg_namelen;
	if (from)
		*from = a;
	if (mflags)
		*mflags = m.msg_flags;
	return r;
}

/*
 * Wait until @fd has a message queued; false on timeout.  A zero-length
 * MSG_PEEK tells a real message from a spurious POLLIN.
 */
static inline int rds_wait_readable(int fd, int ms)
{
	long long end = rds_now_ms() + ms;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = end - rds_now_ms();

		if (recv(fd, NULL, 0, MSG_PEEK | MSG_DONTWAIT) >= 0)
			return 1;
		if (left <= 0)
			return 0;
		if (poll(&p, 1, (int)left) == 1 &&
		    recv(fd, NULL, 0, MSG_PEEK | MSG_DONTWAIT) < 0) {
			struct timespec ts = { 0, 5000000 };

			nanosleep(&ts, NULL);
		}
	}
}

static inline long long rds_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static inline void rds_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * RDS_INFO_* snapshot: a malloc'ed buffer of *nr records of *each bytes.
 * Follows the upstream protocol: probe with len 0 (ENOSPC and the needed
 * length, or success when empty), then fetch, retrying if it grew.
 */
static inline void *rds_info(int fd, int optname, int *nr, int *each)
{
	socklen_t len = 0;
	void *buf = NULL;
	int r, tries;

	for (tries = 0; tries < 8; tries++) {
		r = getsockopt(fd, SOL_RDS, optname, buf, &len);
		if (r >= 0) {
			if (r == 0 || len % r)
				RDS_FAIL("RDS_INFO %d: returned %d, len %u",
					 optname, r, len);
			*each = r;
			*nr = len / r;
			return buf ? buf : calloc(1, 1);
		}
		if (errno != ENOSPC)
			RDS_FAIL("getsockopt(SOL_RDS, %d): %s", optname,
				 strerror(errno));
		len += 4096;	/* room for growth between the calls */
		free(buf);
		buf = calloc(1, len);
		if (!buf)
			RDS_FAIL("out of memory");
	}
	RDS_FAIL("RDS_INFO %d keeps growing", optname);
}

/* The value of the RDS_INFO_COUNTERS counter @name; fails if absent. */
static inline uint64_t rds_counter(const char *name)
{
	int fd = rds_socket(), nr, each, i;
	struct rds_info_counter *c = rds_info(fd, RDS_INFO_COUNTERS, &nr,
					      &each);
	uint64_t v = 0;
	int found = 0;

	if (each != sizeof(*c))
		RDS_FAIL("counter record size %d", each);
	for (i = 0; i < nr; i++) {
		if (!strncmp((char *)c[i].name, name, sizeof(c[i].name))) {
			v = c[i].value;
			found = 1;
			break;
		}
	}
	free(c);
	close(fd);
	if (!found)
		RDS_FAIL("no counter named %s", name);
	return v;
}

/*
 * True when the loaded rds.ko is Linux's in-tree module: ours is out of
 * tree, so its taint flags carry 'O'.
 */
static inline int rds_is_intree(void)
{
	char t[64] = "";
	FILE *f;

	close(rds_socket());	/* make sure the core is loaded */
	f = fopen("/sys/module/rds/taint", "r");
	if (!f)
		return 0;
	if (!fgets(t, sizeof(t), f))
		t[0] = 0;
	fclose(f);
	return !strchr(t, 'O');
}

/* The running kernel's major version (7 for 7.2), 0 if unknown. */
static inline int rds_kernel_major(void)
{
	struct utsname u;

	return uname(&u) ? 0 : atoi(u.release);
}

#define RDS_SKIP_IF_INTREE(what)					\
	do {								\
		if (rds_is_intree())					\
			rds_test_skip("in-tree RDS lacks this: upstream "	\
				      "behaviour differs (%s)", what);	\
	} while (0)

/* Fill @buf with a pattern derived from @seed. */
static inline void rds_fill(void *buf, size_t len, unsigned int seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

/* A msghdr for recvmsg into @iov with room for control data at @cbuf. */
static inline void rds_msg_init(struct msghdr *m, struct iovec *iov,
				void *cbuf, size_t clen)
{
	memset(m, 0, sizeof(*m));
	m->msg_iov = iov;
	m->msg_iovlen = 1;
	m->msg_control = cbuf;
	m->msg_controllen = clen;
}

/* The first cmsg at @level/@type, or NULL. */
static inline struct cmsghdr *rds_find_cmsg(struct msghdr *m, int level,
					    int type)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c))
		if (c->cmsg_level == level && c->cmsg_type == type)
			return c;
	return NULL;
}

static inline int rds_module_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return access(path, F_OK) == 0;
}

#endif /* _RDS_UTIL_H */
