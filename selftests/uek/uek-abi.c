// SPDX-License-Identifier: GPL-2.0
/*
 * A program built against Oracle UEK's <rds.h> (rds-tools 2.3.4's
 * include/rds.h, extracted at build time; never a header of ours), run
 * against whichever RDS is loaded: UEK's socket option numbers must mean
 * what they mean on UEK. Prints TAP; tests/uek_abi.sh runs it.
 *
 *   uek-abi NS_A NS_B IP_A IP_B
 *
 * NS_A and NS_B are network namespaces (ip netns) joined so that IP_A in
 * NS_A reaches IP_B in NS_B: RDS/TCP between two hosts in one guest.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rds.h"	/* UEK's */

#ifndef AF_RDS
#define AF_RDS 21
#endif

#define MSGS	400
#define MSGLEN	1024

static int failed, count;

static void tap(int ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++count, what);
	failed |= !ok;
}

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

static void enter(const char *ns)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die(path);
	close(fd);
}

/* An RDS/TCP socket in @ns, chosen with UEK's SO_RDS_TRANSPORT (9). */
static int tcp_socket(const char *ns, const char *ip, struct sockaddr_in *sin)
{
	int self = open("/proc/self/ns/net", O_RDONLY), fd, t = RDS_TRANS_TCP;
	int big = 4 << 20;
	socklen_t l = sizeof(*sin);

	enter(ns);
	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (fd < 0 || setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &t, sizeof(t)))
		die("socket and UEK's SO_RDS_TRANSPORT");
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, ip, &sin->sin_addr);
	if (bind(fd, (struct sockaddr *)sin, sizeof(*sin)) ||
	    getsockname(fd, (struct sockaddr *)sin, &l))
		die("bind");
	if (setns(self, CLONE_NEWNET))
		die("setns back");
	close(self);
	return fd;
}

static void transport_option(void)
{
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0), v = -5, t = RDS_TRANS_TCP;
	socklen_t l = sizeof(v);

	tap(!getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, &l) &&
	    v == (int)RDS_TRANS_NONE, "UEK's SO_RDS_TRANSPORT (9): none yet");
	tap(!setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &t, sizeof(t)),
	    "UEK's SO_RDS_TRANSPORT (9): set TCP");
	l = sizeof(v);
	tap(!getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, &l) &&
	    v == RDS_TRANS_TCP, "UEK's SO_RDS_TRANSPORT (9): reads TCP back");
	close(fd);
}

static void reset_refusals(void)
{
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0), st;
	struct rds_reset r = { 0 };
	pid_t pid;

	tap(setsockopt(fd, SOL_RDS, RDS_CONN_RESET, &r, 6) < 0 &&
	    errno == EINVAL, "RDS_CONN_RESET: short: EINVAL");
	pid = fork();
	if (pid == 0) {
		/* Without CAP_NET_ADMIN. */
		if (setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(setsockopt(fd, SOL_RDS, RDS_CONN_RESET, &r,
				 sizeof(r)) < 0 && errno == EPERM ? 0 : 1);
	}
	tap(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    !WEXITSTATUS(st), "RDS_CONN_RESET: unprivileged: EPERM");
	close(fd);
}

/* sendmsg() of @len bytes to @to with an RDS_CMSG_ASYNC_SEND. */
static ssize_t async_send(int fd, const struct sockaddr_in *to, const void *buf,
			  size_t len, uint64_t token, uint64_t flags,
			  size_t arglen)
{
	union {
		char b[CMSG_SPACE(sizeof(struct rds_asend_args) + 8)];
		struct cmsghdr align;
	} cb;
	struct rds_asend_args a = { .user_token = token, .flags = flags };
	struct iovec iov = { (void *)buf, len };
	struct msghdr m = {
		.msg_name = (void *)to, .msg_namelen = sizeof(*to),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cb.b, .msg_controllen = CMSG_SPACE(arglen),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	memset(&cb, 0, sizeof(cb));
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = RDS_CMSG_ASYNC_SEND;
	c->cmsg_len = CMSG_LEN(arglen);
	memcpy(CMSG_DATA(c), &a, sizeof(a));
	return sendmsg(fd, &m, 0);
}

/* Collect RDS_CMSG_RDMA_SEND_STATUS notifications on @fd for up to @ms:
 * tokens into @tok and statuses into @st (at most @max); how many.
 */
static int statuses(int fd, uint64_t *tok, int *st, int max, int ms)
{
	int n = 0;

	while (n < max) {
		union {
			char b[CMSG_SPACE(sizeof(struct rds_rdma_send_notify)) * 8];
			struct cmsghdr align;
		} cb;
		char data[64];
		struct iovec iov = { data, sizeof(data) };
		struct msghdr m = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cb.b, .msg_controllen = sizeof(cb.b),
		};
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct cmsghdr *c;

		if (poll(&p, 1, ms) != 1)
			break;
		if (recvmsg(fd, &m, MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN)
				continue;
			break;
		}
		for (c = CMSG_FIRSTHDR(&m); c && n < max; c = CMSG_NXTHDR(&m, c)) {
			struct rds_rdma_send_notify x;

			if (c->cmsg_level != SOL_RDS ||
			    c->cmsg_type != RDS_CMSG_RDMA_SEND_STATUS)
				continue;
			memcpy(&x, CMSG_DATA(c), sizeof(x));
			tok[n] = x.user_token;
			st[n++] = x.status;
		}
	}
	return n;
}

static int bound_lo(struct sockaddr_in *sin)
{
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	socklen_t l = sizeof(*sin);

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)sin, sizeof(*sin)) ||
	    getsockname(fd, (struct sockaddr *)sin, &l))
		die("loopback socket");
	return fd;
}

/* Loopback: every async send with RDS_SEND_NOTIFY_ME reports SUCCESS
 * with its token, in order, once delivered; without the flag, nothing.
 */
static void async_loopback(void)
{
	struct sockaddr_in sa, ra;
	int s = bound_lo(&sa), r = bound_lo(&ra), i, n, st[40], ok = 1;
	uint64_t tok[40];
	char buf[256] = "x";

	for (i = 0; i < 16; i++)
		ok &= async_send(s, &ra, buf, sizeof(buf), 1000 + i,
				 RDS_SEND_NOTIFY_ME,
				 sizeof(struct rds_asend_args)) == sizeof(buf);
	tap(ok, "RDS_CMSG_ASYNC_SEND (10): 16 sends taken");
	for (i = 0; i < 16; i++)
		ok &= recv(r, buf, sizeof(buf), 0) == sizeof(buf);
	n = statuses(s, tok, st, 40, 2000);
	for (i = 0; i < n; i++)
		ok &= tok[i] == (uint64_t)(1000 + i) && st[i] == RDS_RDMA_SEND_SUCCESS;
	tap(ok && n == 16, "async sends: 16 SUCCESS notifications, tokens in order");
	for (i = 0; i < 4; i++)
		async_send(s, &ra, buf, sizeof(buf), 7, 0,
			   sizeof(struct rds_asend_args));
	for (i = 0; i < 4; i++)
		recv(r, buf, sizeof(buf), 0);
	n = statuses(s, tok, st, 40, 500);
	tap(n == 0, "async sends without RDS_SEND_NOTIFY_ME: no success notification");
	tap(async_send(s, &ra, buf, 8, 1, 0x1, sizeof(struct rds_asend_args)) < 0 &&
	    errno == EINVAL, "async send with an unknown flag: EINVAL");
	tap(async_send(s, &ra, buf, 8, 1, RDS_SEND_NOTIFY_ME, 8) < 0 &&
	    errno == EINVAL, "async send with a short argument: EINVAL");
	close(s);
	close(r);
}

/* Loopback RDMA write with RDS_RDMA_REMOTE_COMPLETE (UEK's 0x80): one
 * SUCCESS notification, after the message carrying it was delivered,
 * and the bytes are in place.
 */
static void rdma_remote_complete(void)
{
	static char target[4096], source[4096];
	struct sockaddr_in sa, ra;
	int s = bound_lo(&sa), r = bound_lo(&ra), n, st[4];
	rds_rdma_cookie_t cookie = 0;
	struct rds_get_mr_args mr = {
		.vec = { (uintptr_t)target, sizeof(target) },
		.cookie_addr = (uintptr_t)&cookie,
	};
	struct rds_iovec local = { (uintptr_t)source, sizeof(source) };
	struct rds_rdma_args a = {
		.remote_vec = { 0, sizeof(source) },
		.local_vec_addr = (uintptr_t)&local, .nr_local = 1,
		.flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME |
			 RDS_RDMA_REMOTE_COMPLETE,
		.user_token = 0xfeed,
	};
	union {
		char b[CMSG_SPACE(sizeof(a))];
		struct cmsghdr align;
	} cb;
	char msg[16] = "rdma", in[16];
	struct iovec iov = { msg, sizeof(msg) };
	struct msghdr m = {
		.msg_name = &ra, .msg_namelen = sizeof(ra),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cb.b, .msg_controllen = sizeof(cb.b),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	uint64_t tok[4];

	memset(source, 0x5a, sizeof(source));
	if (setsockopt(r, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr))) {
		tap(0, "RDS_RDMA_REMOTE_COMPLETE: RDS_GET_MR on loopback");
		return;
	}
	a.cookie = cookie;
	memset(&cb, 0, sizeof(cb));
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = RDS_CMSG_RDMA_ARGS;
	c->cmsg_len = CMSG_LEN(sizeof(a));
	memcpy(CMSG_DATA(c), &a, sizeof(a));
	n = sendmsg(s, &m, 0) == sizeof(msg) &&
	    recv(r, in, sizeof(in), 0) == sizeof(msg);
	n = n ? statuses(s, tok, st, 4, 2000) : -1;
	tap(n == 1 && tok[0] == 0xfeed && st[0] == RDS_RDMA_SEND_SUCCESS &&
	    target[0] == 0x5a && target[4095] == 0x5a,
	    "RDS_RDMA_REMOTE_COMPLETE (0x80): one SUCCESS once delivered, bytes in place");
	close(s);
	close(r);
}

/* RDS/TCP to an address nobody answers: RDS_CANCEL_SENT_TO cancels the
 * queued async sends, each reported CANCELED whatever its flags.
 */
static void async_cancel(const char *na, const char *ia)
{
	struct sockaddr_in sa, dead = { .sin_family = AF_INET };
	int s = tcp_socket(na, ia, &sa), i, n, st[16], ok = 1;
	uint64_t tok[16];
	char buf[64] = "y";

	inet_pton(AF_INET, "10.99.2.77", &dead.sin_addr);
	dead.sin_port = htons(4000);
	for (i = 0; i < 4; i++)
		ok &= async_send(s, &dead, buf, sizeof(buf), 50 + i,
				 i & 1 ? RDS_SEND_NOTIFY_ME : 0,
				 sizeof(struct rds_asend_args)) == sizeof(buf);
	ok &= !setsockopt(s, SOL_RDS, RDS_CANCEL_SENT_TO, &dead, sizeof(dead));
	n = statuses(s, tok, st, 16, 2000);
	for (i = 0; i < n; i++)
		ok &= tok[i] == (uint64_t)(50 + i) && st[i] == RDS_RDMA_SEND_CANCELED;
	tap(ok && n == 4, "async sends to a dead peer: RDS_CANCEL_SENT_TO reports 4 CANCELED");
	close(s);
}

/* Read @want messages, numbered 0.. in their first 4 bytes. */
static int recv_in_order(int r, int want)
{
	char buf[MSGLEN];
	int got = 0;

	while (got < want) {
		struct pollfd p = { .fd = r, .events = POLLIN };
		uint32_t n;
		ssize_t len;

		if (poll(&p, 1, 20000) != 1)
			return got;
		len = recv(r, buf, sizeof(buf), MSG_DONTWAIT);
		if (len < 0 && errno == EAGAIN)
			continue;
		if (len != MSGLEN)
			return -1;
		memcpy(&n, buf, sizeof(n));
		if (n != (uint32_t)got)
			return -1;
		got++;
	}
	return got;
}

/* RDS_INFO_COUNTERS' conn_reset in @ns. */
static uint64_t resets_in(const char *ns)
{
	static struct rds_info_counter c[512];
	int self = open("/proc/self/ns/net", O_RDONLY), fd, each, i;
	socklen_t len = sizeof(c);
	uint64_t v = 0;

	enter(ns);
	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	each = getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, c, &len);
	for (i = 0; each == (int)sizeof(c[0]) && i < (int)(len / each); i++)
		if (!strncmp((char *)c[i].name, "conn_reset", sizeof(c[i].name)))
			v = c[i].value;
	close(fd);
	if (setns(self, CLONE_NEWNET))
		die("setns back");
	close(self);
	return v;
}

/* Lane history of the connection from @self to @peer, UEK's record. */
static int paths_of(int fd, const struct in_addr *self,
		    const struct in_addr *peer, struct rds_path_info *out)
{
	static char buf[1 << 16];
	socklen_t len = sizeof(buf);
	int each, i;

	/* The call returns the size of one record. */
	each = getsockopt(fd, SOL_RDS, RDS6_INFO_CONN_PATHS, buf, &len);
	for (i = 0; each > 0 && (i + 1) * each <= (int)len; i++) {
		struct rds_info_connection_paths *p =
			(void *)(buf + (size_t)i * each);

		if (!memcmp(&p->local_addr.s6_addr[12], self, 4) &&
		    !memcmp(&p->peer_addr.s6_addr[12], peer, 4) &&
		    p->npaths >= 1) {
			memcpy(out, &p->paths[0], sizeof(*out));
			return 1;
		}
	}
	return 0;
}

static void reset_mid_stream(const char *na, const char *nb, const char *ia,
			     const char *ib, int v6)
{
	struct sockaddr_in sa, ra;
	char buf[MSGLEN] = { 0 }, what[160];
	struct rds_path_info pi;
	int s, r, i, got;
	uint64_t before;

	s = tcp_socket(na, ia, &sa);
	r = tcp_socket(nb, ib, &ra);
	for (i = 0; i < MSGS; i++) {
		uint32_t n = i;

		memcpy(buf, &n, sizeof(n));
		if (sendto(s, buf, sizeof(buf), 0, (struct sockaddr *)&ra,
			   sizeof(ra)) != sizeof(buf))
			die("sendto");
		if (i == MSGS / 2) {
			struct pollfd p = { .fd = r, .events = POLLIN };
			int rc;

			/* A message arrived: lane 0 is up, so the reset
			 * takes down a working lane and stamps its time
			 * (one still connecting has no reset time).
			 */
			if (poll(&p, 1, 20000) != 1)
				die("nothing arrived before the reset");
			before = resets_in(na);
			if (v6) {
				struct rds6_reset x = { .tos = 0 };

				/* IPv4 as v4-mapped; :: is every peer. */
				x.src.s6_addr[10] = 0xff;
				x.src.s6_addr[11] = 0xff;
				memcpy(&x.src.s6_addr[12], &sa.sin_addr, 4);
				rc = setsockopt(s, SOL_RDS, RDS6_CONN_RESET,
						&x, sizeof(x));
			} else {
				struct rds_reset x = {
					.tos = 0, .src = sa.sin_addr,
					.dst = ra.sin_addr,
				};

				rc = setsockopt(s, SOL_RDS, RDS_CONN_RESET,
						&x, sizeof(x));
			}
			snprintf(what, sizeof(what), "%s mid-stream: accepted, conn_reset counts it",
				 v6 ? "RDS6_CONN_RESET (every peer)" :
				 "RDS_CONN_RESET");
			tap(!rc && resets_in(na) > before, what);
		}
	}
	got = recv_in_order(r, MSGS);
	snprintf(what, sizeof(what),
		 "after the reset all %d messages arrive once, in order (got %d)",
		 MSGS, got);
	tap(got == MSGS, what);
	{
		int self = open("/proc/self/ns/net", O_RDONLY);
		int fd, found;

		enter(na);
		fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
		found = paths_of(fd, &sa.sin_addr, &ra.sin_addr, &pi);
		close(fd);
		if (setns(self, CLONE_NEWNET))
			die("setns back");
		close(self);
		snprintf(what, sizeof(what),
			 "RDS6_INFO_CONN_PATHS: lane 0 went down for \"%s\" (%u), reset time set",
			 found && pi.disconnect_reason < MAC_DISCON_REASON ?
			 conn_drop_reasons[pi.disconnect_reason] : "?",
			 found ? pi.disconnect_reason : 0);
		tap(found && pi.disconnect_reason == 1 && pi.reset_time > 0,
		    what);
	}
	close(s);
	close(r);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s NS_A NS_B IP_A IP_B\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	transport_option();
	reset_refusals();
	reset_mid_stream(argv[1], argv[2], argv[3], argv[4], 0);
	reset_mid_stream(argv[1], argv[2], argv[3], argv[4], 1);
	async_loopback();
	async_cancel(argv[1], argv[3]);
	rdma_remote_complete();
	printf("1..%d\n", count);
	return failed;
}
