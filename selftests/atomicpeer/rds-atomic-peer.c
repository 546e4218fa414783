// SPDX-License-Identifier: GPL-2.0
/*
 * rds-atomic-peer: RDS atomics from one host into memory that another
 * host registered, for the two-host tests (selftests/hosts/twohost_ib.sh).
 *
 *   rds-atomic-peer target ADDR PORT [refused]
 *   rds-atomic-peer init LOCAL PEER PORT [refused]
 *
 * The target binds ADDR:PORT and says "target ready". The initiator binds
 * LOCAL:PORT+1 and asks; the target answers with a message that maps four
 * 64-bit words (the first 100, the rest 0) through RDS_CMSG_RDMA_MAP: the
 * one registration path Linux's rds_rdma supports, so either kernel can
 * be the target. The initiator takes the cookie from RDS_CMSG_RDMA_DEST
 * and runs, each with RDS_RDMA_NOTIFY_ME:
 *
 *   FADD 5 on word 0          old value 100
 *   CSWP 105 -> 7 on word 0   old value 105 (swapped)
 *   CSWP 99 -> 1 on word 0    old value 7 (compare fails: nothing swapped)
 *   FADD 0x1234 on word 3     old value 0
 *
 * checks every status and old value, and sends "done". The target then
 * checks its words: 7, 0, 0, 0x1234. Each side exits 0 only when all of
 * its checks held; both print what they saw.
 *
 * "refused": the target is Linux 6.1, whose registrations grant no remote
 * atomic access. One FADD must fail (RDS_RDMA_REMOTE_ERROR) without
 * touching either side's memory; the initiator then closes its socket and
 * exits, and the target checks its words (100, 0, 0, 0) once told so
 * with SIGUSR1. No verdict travels over RDS: Linux 6.1 keeps its side of
 * the failed queue pair from reconnecting for as long as ours retries
 * with messages queued (observed: over 150 s); the caller shows the
 * connection back afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/rds_harden.h"

#define AP_WAIT_MS	60000

/* One atomic on word @word of the target's region; its status. */
static int ap_atomic(int fd, const struct rds_addr *to, int type,
		     uint64_t cookie, unsigned int word, uint64_t *old,
		     uint64_t a, uint64_t b, uint64_t token)
{
	struct rds_atomic_args at = {
		.cookie = cookie,
		.local_addr = (uintptr_t)old,
		.remote_addr = word * sizeof(uint64_t),
		.flags = RDS_RDMA_NOTIFY_ME,
		.user_token = token,
	};

	if (type == RDS_CMSG_ATOMIC_FADD) {
		at.fadd.add = a;
	} else {
		at.cswp.compare = a;
		at.cswp.swap = b;
	}
	if (rds_send_cmsg(fd, to, "", 0, type, &at, sizeof(at), 0) != 0)
		RDS_FAIL("atomic %llu: sendmsg: %s",
			 (unsigned long long)token, strerror(errno));
	return rds_op_status(fd, token, AP_WAIT_MS, "atomic");
}

/* The offer: a message whose RDS_CMSG_RDMA_DEST is the region's cookie. */
static uint64_t ap_recv_cookie(int fd)
{
	char buf[64], cbuf[CMSG_SPACE(sizeof(uint64_t))];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr m;
	struct cmsghdr *c;
	uint64_t cookie;

	if (!rds_wait_readable(fd, AP_WAIT_MS))
		RDS_FAIL("no offer from the target");
	rds_msg_init(&m, &iov, cbuf, sizeof(cbuf));
	if (recvmsg(fd, &m, MSG_DONTWAIT) < 0)
		RDS_FAIL("recvmsg: %s", strerror(errno));
	c = rds_find_cmsg(&m, SOL_RDS, RDS_CMSG_RDMA_DEST);
	if (!c || c->cmsg_len != CMSG_LEN(sizeof(cookie)))
		RDS_FAIL("the offer has no RDS_CMSG_RDMA_DEST");
	memcpy(&cookie, CMSG_DATA(c), sizeof(cookie));
	return cookie;
}

/* Against a target that refuses atomics: it fails, nothing moves. */
static int ap_init_refused(int fd, const struct rds_addr *to, uint64_t cookie,
			   uint64_t *old)
{
	int st;

	old[0] = 0xdeadbeef;
	st = ap_atomic(fd, to, RDS_CMSG_ATOMIC_FADD, cookie, 0, old, 5, 0, 1);
	printf("rds-atomic-peer: FADD word 0: status %d, old %#llx (want %d, 0xdeadbeef)\n",
	       st, (unsigned long long)old[0], RDS_RDMA_REMOTE_ERROR);
	return st != RDS_RDMA_REMOTE_ERROR || old[0] != 0xdeadbeef;
}

static int ap_init(const char *local, const char *peer, int port,
		   bool refused)
{
	struct rds_addr to = rds_addr(peer, port);
	int fd = rds_bound(local, port + 1, NULL);
	uint64_t *old = rds_pages(1);
	uint64_t cookie;
	int bad = 0;
	struct {
		int type;
		unsigned int word;
		uint64_t a, b, want;
	} op[] = {
		{ RDS_CMSG_ATOMIC_FADD, 0, 5, 0, 100 },
		{ RDS_CMSG_ATOMIC_CSWP, 0, 105, 7, 105 },
		{ RDS_CMSG_ATOMIC_CSWP, 0, 99, 1, 7 },
		{ RDS_CMSG_ATOMIC_FADD, 3, 0x1234, 0, 0 },
	};
	unsigned int i;
	int st;

	rds_send(fd, &to, "ask", 3, 0);
	cookie = ap_recv_cookie(fd);
	printf("rds-atomic-peer: cookie %#llx from %s\n",
	       (unsigned long long)cookie, peer);
	if (refused) {
		bad = ap_init_refused(fd, &to, cookie, old);
		close(fd);
		return bad;
	}
	for (i = 0; i < sizeof(op) / sizeof(op[0]); i++) {
		old[i] = 0xdeadbeef;
		st = ap_atomic(fd, &to, op[i].type, cookie, op[i].word, &old[i],
			       op[i].a, op[i].b, i + 1);
		printf("rds-atomic-peer: %s word %u: status %d, old %#llx (want %#llx)\n",
		       op[i].type == RDS_CMSG_ATOMIC_FADD ? "FADD" : "CSWP",
		       op[i].word, st, (unsigned long long)old[i],
		       (unsigned long long)op[i].want);
		if (st != RDS_RDMA_SUCCESS || old[i] != op[i].want)
			bad = 1;
	}
	rds_send(fd, &to, bad ? "fail" : "done", 4, 0);
	/* Closing drops what is unacked: stay until the target has it. */
	sleep(2);
	close(fd);
	return bad;
}

static volatile sig_atomic_t ap_released;

static void ap_release(int sig)
{
	(void)sig;
	ap_released = 1;
}

static int ap_target(const char *addr, int port, bool refused)
{
	int fd = rds_bound(addr, port, NULL);
	volatile uint64_t *word = rds_pages(1);
	uint64_t cookie = 0;
	struct rds_get_mr_args map = {
		.vec = { .addr = (uintptr_t)word, .bytes = 4 * sizeof(*word) },
		.cookie_addr = (uintptr_t)&cookie,
	};
	struct rds_addr from;
	char buf[16];
	ssize_t n = 0;
	sigset_t usr1, old;

	/* Blocked until pause time: a release never slips in between. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	signal(SIGUSR1, ap_release);
	printf("rds-atomic-peer: target ready\n");
	word[0] = 100;
	if (rds_recv(fd, buf, sizeof(buf), 0, &from, NULL, AP_WAIT_MS) != 3)
		RDS_FAIL("no request");
	if (rds_send_cmsg(fd, &from, "offer", 5, RDS_CMSG_RDMA_MAP, &map,
			  sizeof(map), 0) != 5)
		RDS_FAIL("offer: sendmsg: %s", strerror(errno));
	if (refused) {
		while (!ap_released)
			sigsuspend(&old);
	} else {
		/* The atomics arrive as empty messages; the verdict has 4
		 * bytes.
		 */
		do {
			n = rds_recv(fd, buf, sizeof(buf), 0, NULL, NULL,
				     AP_WAIT_MS);
		} while (n == 0);
	}
	printf("rds-atomic-peer: initiator says %.*s; words %#llx %#llx %#llx %#llx\n",
	       refused ? 8 : (int)n, refused ? "released" : buf,
	       (unsigned long long)word[0], (unsigned long long)word[1],
	       (unsigned long long)word[2], (unsigned long long)word[3]);
	close(fd);
	if (refused)
		return !(word[0] == 100 && !word[1] && !word[2] && !word[3]);
	if (n != 4 || memcmp(buf, "done", 4))
		return 1;
	return !(word[0] == 7 && !word[1] && !word[2] && word[3] == 0x1234);
}

static bool ap_refused(int argc, char **argv, int at)
{
	return argc == at + 1 && !strcmp(argv[at], "refused");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((argc == 4 || ap_refused(argc, argv, 4)) &&
	    !strcmp(argv[1], "target"))
		return ap_target(argv[2], atoi(argv[3]), argc == 5);
	if ((argc == 5 || ap_refused(argc, argv, 5)) &&
	    !strcmp(argv[1], "init"))
		return ap_init(argv[2], argv[3], atoi(argv[4]), argc == 6);
	fprintf(stderr, "usage: rds-atomic-peer target ADDR PORT [refused]\n"
		"       rds-atomic-peer init LOCAL PEER PORT [refused]\n");
	return 2;
}
