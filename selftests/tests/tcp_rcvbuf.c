// SPDX-License-Identifier: GPL-2.0
/*
 * A receiver over its hard limit (4 x SO_RCVBUF + 1 MiB) on RDS/TCP,
 * between two network namespaces joined by veth (made here with ip(8),
 * deleted by the last test): its drops set the port's congestion bit, so
 * a sender is told (ENOBUFS) after a message or two rather than having
 * every message dropped at the receiver without a word; the drops are
 * the socket's SO_RXQ_OVFL; and once the reader drains its queue the
 * port is free again. Ours only: Linux's RDS has no hard limit.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/rds_netns.h"

#define NS_A	"rds-rba"
#define NS_B	"rds-rbb"
#define IP_A	"10.99.5.1"
#define IP_B	"10.99.5.2"
#define BIGBUF	(8 << 20)
#define HELD	32		/* 64 KiB messages queued before the shrink */
#define KNOCKS	40		/* 16 KiB sends after it, 25 ms apart */

#ifndef SO_RXQ_OVFL
#define SO_RXQ_OVFL 40
#endif

static void pair_up(void)
{
	rds_ns_pair_up(NS_A, NS_B, "rdsrba", "rdsrbb", IP_A, IP_B);
}

/* How many messages are queued on @fd's namespace's sockets. */
static int queued(int fd)
{
	int nr, each;

	free(rds_info(fd, RDS_INFO_RECV_MESSAGES, &nr, &each));
	return nr;
}

/* Read everything queued on @r: the number of @len-byte messages, and
 * the last SO_RXQ_OVFL value seen in *drops.
 */
static int drain(int r, size_t len, unsigned int *drops)
{
	char *buf = malloc(RDS_MAX_MSG);
	union {
		char b[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} cb;
	struct cmsghdr *c;
	struct msghdr m;
	struct iovec iov;
	int n = 0;

	if (!buf)
		RDS_FAIL("malloc");
	for (;;) {
		ssize_t got;

		iov.iov_base = buf;
		iov.iov_len = RDS_MAX_MSG;
		rds_msg_init(&m, &iov, cb.b, sizeof(cb.b));
		got = recvmsg(r, &m, MSG_DONTWAIT);
		if (got < 0 && errno == EAGAIN)
			break;
		RDS_EXPECT_OK(got);
		n += (size_t)got == len;
		c = rds_find_cmsg(&m, SOL_SOCKET, SO_RXQ_OVFL);
		if (c)
			memcpy(drops, CMSG_DATA(c), sizeof(*drops));
	}
	free(buf);
	return n;
}

RDS_TEST(hard_limit_drops_tell_the_sender)
{
	static char big[64 << 10], small[16 << 10];
	unsigned int drops = 0;
	int s, r, i, ok = 0, refused = 0;
	struct rds_addr sa, ra;
	long long end;

	RDS_SKIP_IF_INTREE("Linux's RDS has no receive hard limit");
	pair_up();
	s = rds_ns_tcp_socket(NS_A, IP_A, BIGBUF, &sa);
	r = rds_ns_tcp_socket(NS_B, IP_B, BIGBUF, &ra);
	rds_set_int(r, SOL_SOCKET, SO_RXQ_OVFL, 1);

	/* 2 MiB held: under SO_RCVBUF, so the port is not congested. */
	for (i = 0; i < HELD; i++)
		rds_send(s, &ra, big, sizeof(big), 0);
	end = rds_now_ms() + 20000;
	while (queued(r) < HELD && rds_now_ms() < end)
		rds_sleep_ms(20);
	RDS_EXPECT(queued(r) == HELD);

	/* Now far over the hard limit, the bit still clear. */
	rds_set_int(r, SOL_SOCKET, SO_RCVBUF, 4096);
	rds_set_nonblock(s);
	for (i = 0; i < KNOCKS; i++) {
		if (sendto(s, small, sizeof(small), 0, &ra.sa, ra.len) ==
		    sizeof(small))
			ok++;
		else if (errno == ENOBUFS)
			refused++;
		else
			RDS_FAIL("sendto: %s", strerror(errno));
		rds_sleep_ms(25);
	}
	printf("# after the shrink: %d sends taken, %d refused\n", ok,
	       refused);
	/* The first drop congests the port; its map needs one round trip. */
	RDS_EXPECT(ok >= 1 && ok <= 8);
	RDS_EXPECT(refused == KNOCKS - ok);

	/* What was taken is dropped and counted, none of it delivered. */
	end = rds_now_ms() + 10000;
	while (rds_now_ms() < end) {
		int self = rds_ns_enter(NS_B);
		uint64_t d = rds_counter("recv_drop_rcvbuf");

		rds_ns_leave(self);
		if (d >= (uint64_t)ok)
			break;
		rds_sleep_ms(20);
	}
	RDS_EXPECT(drain(r, sizeof(big), &drops) == HELD);
	RDS_EXPECT(drops == (unsigned int)ok);
	RDS_EXPECT(drain(r, sizeof(small), &drops) == 0);

	/* Drained: the port is free again, and a send gets through. */
	end = rds_now_ms() + 10000;
	while (sendto(s, small, sizeof(small), 0, &ra.sa, ra.len) < 0) {
		RDS_EXPECT(errno == ENOBUFS);
		RDS_EXPECT(rds_now_ms() < end);
		rds_sleep_ms(20);
	}
	RDS_EXPECT(rds_recv(r, big, sizeof(big), 0, NULL, NULL, 10000) ==
		   sizeof(small));
	close(s);
	close(r);
}

RDS_TEST(zz_namespaces_deleted)
{
	rds_ns_pair_down(NS_A, NS_B);
}

RDS_TEST_MAIN()
