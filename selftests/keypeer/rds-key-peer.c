// SPDX-License-Identifier: GPL-2.0
/*
 * rds-key-peer: a key its owner can no longer honour must not break the
 * connection its peer uses it on (selftests/hosts/twohost_ib.sh, between
 * two of ours; Documentation/rdma.rst, "Keys a peer cannot honour").
 *
 *   rds-key-peer target ADDR PORT TOS
 *   rds-key-peer owner LOCAL PEER PORT TOS
 *
 * Both sockets use TOS, a connection nothing else uses, so the owner's
 * first message finds it down. The owner sends two messages, each naming
 * a region of its own through RDS_CMSG_RDMA_MAP:
 *
 *   "stale" from LOCAL:PORT+1, whose socket it closes at once: the region
 *           dies with it, before the connection is up and the message
 *           (kept for the peer as a closed socket's) goes;
 *   "live"  from LOCAL:PORT+2, which stays open, once the target said
 *           "next" to it: the dead region's status must be the first
 *           thing the target reads after its write, not this offer.
 *
 * The target takes each cookie from RDS_CMSG_RDMA_DEST and writes eight
 * bytes to it (RDS_RDMA_NOTIFY_ME): the write to the dead region must
 * be refused on the target's side (RDS_RDMA_DROPPED), the live one must
 * land (RDS_RDMA_SUCCESS), and the target counts the connection resets
 * meanwhile (none: the dead key never reached a device). It answers the
 * owner "done" or "fail"; the owner checks the eight bytes arrived.
 * Each side prints what it saw and exits 0 only when all of its checks
 * held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/rds_harden.h"

#define KP_WAIT_MS	60000
#define KP_PATTERN	0x5eedc0ffee15600dULL

static int kp_socket(const char *addr, int port, int tos)
{
	int fd = rds_bound(addr, port, NULL);
	rds_tos_t t = tos;

	if (ioctl(fd, SIOCRDSSETTOS, &t))
		RDS_FAIL("SIOCRDSSETTOS %d: %s", tos, strerror(errno));
	return fd;
}

/* Send @what from @fd to @to, naming a region of @len bytes at @buf. */
static void kp_offer(int fd, const struct rds_addr *to, const char *what,
		     void *buf, size_t len)
{
	uint64_t cookie = 0;
	struct rds_get_mr_args map = {
		.vec = { .addr = (uintptr_t)buf, .bytes = len },
		.cookie_addr = (uintptr_t)&cookie,
	};
	size_t n = strlen(what);

	if (rds_send_cmsg(fd, to, what, n, RDS_CMSG_RDMA_MAP, &map,
			  sizeof(map), 0) != (ssize_t)n)
		RDS_FAIL("%s: sendmsg: %s", what, strerror(errno));
	printf("rds-key-peer: offered %s, cookie %#llx\n", what,
	       (unsigned long long)cookie);
}

static int kp_owner(const char *local, const char *peer, int port, int tos)
{
	struct rds_addr to = rds_addr(peer, port);
	volatile uint64_t *live = rds_pages(1);
	void *stale = rds_pages(1);
	char buf[16];
	int fd, dead;
	ssize_t n;

	/* Bound before the target can say "next" to it. */
	fd = kp_socket(local, port + 2, tos);
	dead = kp_socket(local, port + 1, tos);
	kp_offer(dead, &to, "stale", stale, 4096);
	close(dead);
	n = rds_recv(fd, buf, sizeof(buf), 0, NULL, NULL, KP_WAIT_MS);
	if (n != 4 || memcmp(buf, "next", 4))
		RDS_FAIL("the target did not ask for the next offer");
	kp_offer(fd, &to, "live", (void *)live, 4096);
	do {	/* the write's own message is empty */
		n = rds_recv(fd, buf, sizeof(buf), 0, NULL, NULL, KP_WAIT_MS);
	} while (n == 0);
	printf("rds-key-peer: target says %.*s; the live region holds %#llx (want %#llx)\n",
	       (int)n, buf, (unsigned long long)live[0], KP_PATTERN);
	close(fd);
	return !(n == 4 && !memcmp(buf, "done", 4) && live[0] == KP_PATTERN);
}

/* The next offer: its text and cookie, and where it came from. */
static uint64_t kp_recv_offer(int fd, char *what, size_t cap,
			      struct rds_addr *from)
{
	char cbuf[CMSG_SPACE(sizeof(uint64_t))];
	struct iovec iov = { .iov_base = what, .iov_len = cap - 1 };
	struct msghdr m;
	struct cmsghdr *c;
	uint64_t cookie;
	ssize_t n;

	if (!rds_wait_readable(fd, KP_WAIT_MS))
		RDS_FAIL("no offer from the owner");
	rds_msg_init(&m, &iov, cbuf, sizeof(cbuf));
	m.msg_name = &from->ss;
	m.msg_namelen = sizeof(from->ss);
	n = recvmsg(fd, &m, MSG_DONTWAIT);
	if (n < 0)
		RDS_FAIL("recvmsg: %s", strerror(errno));
	from->len = m.msg_namelen;
	what[n] = 0;
	c = rds_find_cmsg(&m, SOL_RDS, RDS_CMSG_RDMA_DEST);
	if (!c || c->cmsg_len != CMSG_LEN(sizeof(cookie)))
		RDS_FAIL("offer %s has no RDS_CMSG_RDMA_DEST", what);
	memcpy(&cookie, CMSG_DATA(c), sizeof(cookie));
	return cookie;
}

/* Write the pattern to @cookie; the operation's status. */
static int kp_write(int fd, const struct rds_addr *to, uint64_t cookie,
		    uint64_t token)
{
	static uint64_t word = KP_PATTERN;
	struct rds_iovec iov = { .addr = (uintptr_t)&word, .bytes = 8 };

	if (rds_rdma(fd, to, cookie, 0, 8, &iov, 1,
		     RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, token, 0) != 0)
		RDS_FAIL("write %llu: sendmsg: %s", (unsigned long long)token,
			 strerror(errno));
	return rds_op_status(fd, token, KP_WAIT_MS, "write");
}

static int kp_target(const char *addr, int port, int tos)
{
	int fd = kp_socket(addr, port, tos);
	struct rds_addr stale_from, live_from, next;
	uint64_t resets, stale, live;
	char what[16];
	int st_stale, st_live;
	bool ok;

	resets = rds_counter("conn_reset");
	printf("rds-key-peer: target ready\n");
	stale = kp_recv_offer(fd, what, sizeof(what), &stale_from);
	if (strcmp(what, "stale"))
		RDS_FAIL("first offer is %s, not stale", what);
	/* Each step said as it happens: when both sides wait out their
	 * time, this is what tells where it stopped.
	 */
	printf("rds-key-peer: got stale, cookie %#llx; writing to it\n",
	       (unsigned long long)stale);
	st_stale = kp_write(fd, &stale_from, stale, 1);
	printf("rds-key-peer: the write to stale ended with status %d\n",
	       st_stale);
	next = stale_from;
	rds_addr_set_port(&next, rds_addr_port(&stale_from) + 1);
	rds_send(fd, &next, "next", 4, 0);
	live = kp_recv_offer(fd, what, sizeof(what), &live_from);
	if (strcmp(what, "live"))
		RDS_FAIL("second offer is %s, not live", what);
	st_live = kp_write(fd, &live_from, live, 2);
	resets = rds_counter("conn_reset") - resets;
	ok = st_stale == RDS_RDMA_DROPPED && st_live == RDS_RDMA_SUCCESS &&
	     !resets;
	printf("rds-key-peer: write to the closed socket's region: status %d (want %d); to the live one: status %d (want %d); connection resets meanwhile: %llu (want 0)\n",
	       st_stale, RDS_RDMA_DROPPED, st_live, RDS_RDMA_SUCCESS,
	       (unsigned long long)resets);
	rds_send(fd, &live_from, ok ? "done" : "fail", 4, 0);
	/* Closing drops what is unacked: stay until the owner has it. */
	sleep(2);
	close(fd);
	return !ok;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "target"))
		return kp_target(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "owner"))
		return kp_owner(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
	fprintf(stderr, "usage: rds-key-peer target ADDR PORT TOS\n"
		"       rds-key-peer owner LOCAL PEER PORT TOS\n");
	return 2;
}
