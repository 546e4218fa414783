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
			int rc;

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
	printf("1..%d\n", count);
	return failed;
}
