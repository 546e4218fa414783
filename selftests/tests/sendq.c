// SPDX-License-Identifier: GPL-2.0
/*
 * The send queue: messages toward a peer whose connection never comes up
 * stay queued on the socket and count against its send buffer.
 *
 * Each test runs in its own network namespace whose only link is a veth
 * pair: 10.55.0.1/24 on one end, the other end without an address, and
 * 10.55.0.2 a permanent neighbour at a MAC nobody has.  The peer is
 * routed but every frame to it is dropped, so the RDS/TCP connection to
 * it stays connecting (SYNs nobody answers, no ICMP to cut them short)
 * and sends pile up deterministically.  This exercises core behaviour
 * (send buffer accounting, EAGAIN, POLLOUT, RDS_CANCEL_SENT_TO,
 * RDS_INFO_SEND_MESSAGES, drop on close) with upstream semantics.  A
 * peer with no route at all: last test.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/ioctl.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/rds_netns.h"

#define MSZ	4096
#define SNDBUF	16384		/* SO_SNDBUF: RDS allows this many bytes */
#define PEER	"10.55.0.2"
#define PPORT	4000

/* A fresh namespace where 10.55.0.2 is routed and never answers. */
static void dead_peer_netns(void)
{
	int rc;

	rds_new_netns(NULL);
	rc = system("ip link add rdsq0 type veth peer name rdsq1 && "
		    "ip addr add 10.55.0.1/24 dev rdsq0 && "
		    "ip neigh replace " PEER " lladdr 02:00:00:00:55:02 "
		    "dev rdsq0 nud permanent && "
		    "ip link set rdsq1 up && ip link set rdsq0 up");
	if (rc)
		RDS_FAIL("setting up the veth pair with ip(8): status %d", rc);
}

/* A TCP-transport socket on 10.55.0.1 with a SNDBUF-byte send buffer. */
static int stuck_sender(struct rds_addr *me)
{
	struct rds_addr a = rds_addr4("10.55.0.1", 0);
	int fd = rds_socket();

	rds_set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP);
	rds_set_int(fd, SOL_SOCKET, SO_SNDBUF, SNDBUF);
	RDS_EXPECT_OK(bind(fd, &a.sa, a.len));
	me->len = sizeof(me->ss);
	RDS_EXPECT_OK(getsockname(fd, &me->sa, &me->len));
	return fd;
}

/* Nonblocking sends until EAGAIN; returns how many were accepted. */
static int fill(int fd, const struct rds_addr *to, size_t len)
{
	static char buf[SNDBUF];
	int n = 0;

	for (;;) {
		ssize_t w = sendto(fd, buf, len, MSG_DONTWAIT, &to->sa,
				   to->len);

		if (w < 0 && errno == EAGAIN)
			return n;
		if (w != (ssize_t)len)
			RDS_FAIL("send %d: %zd (%s)", n, w, strerror(errno));
		if (++n > 100)
			RDS_FAIL("no EAGAIN after 100 sends");
	}
}

static short pollout(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	poll(&p, 1, 0);
	return p.revents & POLLOUT;
}

/* This socket's messages in RDS6_INFO_SEND_MESSAGES. */
static int queued(int fd, const struct rds_addr *me, uint16_t fport,
		  size_t len)
{
	struct rds6_info_message *m;
	struct in6_addr la, fa;
	int nr, each, i, n = 0;
	uint64_t last = 0;

	inet_pton(AF_INET6, "::ffff:10.55.0.1", &la);
	inet_pton(AF_INET6, "::ffff:" PEER, &fa);
	m = rds_info(fd, RDS6_INFO_SEND_MESSAGES, &nr, &each);
	for (i = 0; i < nr; i++) {
		if (m[i].lport != me->in.sin_port)
			continue;
		if (fport && m[i].fport != htons(fport))
			continue;
		RDS_EXPECT(m[i].len == len);
		RDS_EXPECT(!memcmp(&m[i].laddr, &la, 16));
		RDS_EXPECT(!memcmp(&m[i].faddr, &fa, 16));
		RDS_EXPECT(n == 0 || m[i].seq != last);
		last = m[i].seq;
		n++;
	}
	free(m);
	return n;
}

RDS_TEST(sndbuf_fills_then_eagain)
{
	struct rds_addr me, to = rds_addr4(PEER, PPORT);
	uint64_t full0;
	int fd;

	dead_peer_netns();
	fd = stuck_sender(&me);
	RDS_EXPECT(pollout(fd));
	full0 = rds_counter("send_queue_full");
	/* Room is checked before adding: 0, 4K, 8K, 12K < 16K. */
	RDS_EXPECT(fill(fd, &to, MSZ) == SNDBUF / MSZ);
	RDS_EXPECT(rds_counter("send_queue_full") > full0);
	RDS_EXPECT(!pollout(fd));
	RDS_EXPECT(queued(fd, &me, PPORT, MSZ) == SNDBUF / MSZ);
	/* Still full a little later: nothing was sent. */
	rds_sleep_ms(300);
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, MSG_DONTWAIT, &to.sa, to.len),
			 EAGAIN);
	close(fd);
}

RDS_TEST(sndbuf_overshoot_is_one_message)
{
	struct rds_addr me, to = rds_addr4(PEER, PPORT);
	int fd;

	dead_peer_netns();
	fd = stuck_sender(&me);
	/* 0, 5000, 10000, 15000 < 16384: four, 20000 bytes queued. */
	RDS_EXPECT(fill(fd, &to, 5000) == 4);
	close(fd);
}

/*
 * No blocking-send test here: upstream's TCP transport makes a blocking
 * sender wait (without SO_SNDTIMEO) for the multipath handshake of a
 * connection that is not up, so it would hang rather than time out.
 */

RDS_TEST(connection_listed_as_connecting)
{
	struct rds_addr me, to = rds_addr4(PEER, PPORT);
	struct rds_info_connection *c;
	int fd, nr, each, i, found = 0;

	dead_peer_netns();
	fd = stuck_sender(&me);
	fill(fd, &to, MSZ);
	c = rds_info(fd, RDS_INFO_CONNECTIONS, &nr, &each);
	for (i = 0; i < nr; i++) {
		if (c[i].laddr != inet_addr("10.55.0.1") ||
		    c[i].faddr != inet_addr(PEER))
			continue;
		found = 1;
		RDS_EXPECT(!strcmp((char *)c[i].transport, "tcp"));
		RDS_EXPECT(!(c[i].flags & RDS_INFO_CONNECTION_FLAG_CONNECTED));
	}
	RDS_EXPECT(found);
	free(c);
	close(fd);
}

RDS_TEST(cancel_sent_to_frees_the_buffer)
{
	struct rds_addr me, to = rds_addr4(PEER, PPORT);
	struct rds_addr other = rds_addr4(PEER, PPORT + 1);
	struct rds_addr wrong_port = rds_addr4(PEER, PPORT + 2);
	int fd;

	dead_peer_netns();
	fd = stuck_sender(&me);
	if (sendto(fd, "o", 1, MSG_DONTWAIT, &other.sa, other.len) != 1)
		RDS_FAIL("send to the other port: %s", strerror(errno));
	RDS_EXPECT(fill(fd, &to, MSZ) == 4);
	/* Another port of the same peer: nothing cancelled. */
	RDS_EXPECT_OK(setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO,
				 &wrong_port.in, sizeof(wrong_port.in)));
	RDS_EXPECT(queued(fd, &me, PPORT, MSZ) == 4);
	RDS_EXPECT(!pollout(fd));
	/* The right addr:port: those messages go, the other one stays. */
	RDS_EXPECT_OK(setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &to.in,
				 sizeof(to.in)));
	RDS_EXPECT(queued(fd, &me, PPORT, MSZ) == 0);
	RDS_EXPECT(queued(fd, &me, PPORT + 1, 1) == 1);
	RDS_EXPECT(pollout(fd));
	/* Room again (one byte of the buffer is still in use). */
	RDS_EXPECT(fill(fd, &to, MSZ) == 4);
	close(fd);
}

RDS_TEST(close_drops_queued_messages)
{
	struct rds_addr me, to = rds_addr4(PEER, PPORT);
	int fd, probe;

	dead_peer_netns();
	probe = rds_socket();
	fd = stuck_sender(&me);
	fill(fd, &to, MSZ);
	RDS_EXPECT(queued(probe, &me, PPORT, MSZ) == 4);
	close(fd);
	RDS_EXPECT(queued(probe, &me, PPORT, MSZ) == 0);
	close(probe);
}

/* Connections from 10.55.0.1 to the peer in RDS_INFO_CONNECTIONS. */
static int conns_to_peer(int fd)
{
	struct rds_info_connection *c;
	int nr, each, i, n = 0;

	c = rds_info(fd, RDS_INFO_CONNECTIONS, &nr, &each);
	for (i = 0; i < nr; i++)
		n += c[i].laddr == inet_addr("10.55.0.1") &&
		     c[i].faddr == inet_addr(PEER);
	free(c);
	return n;
}

/*
 * A peer with no route at all (10.55.0.1/32 on lo is the namespace's only
 * address).  Linux queues the message on a connection whose connect()
 * keeps failing; ours refuses it at once with ENETUNREACH and allocates
 * no connection (Documentation/rds.rst, "Unreachable peers fail at once").
 */
RDS_TEST(no_route_to_peer)
{
	struct rds_addr me, to = rds_addr4(PEER, PPORT);
	static char buf[MSZ];
	int fd;

	rds_new_netns("10.55.0.1");
	fd = stuck_sender(&me);
	if (rds_is_intree()) {
		RDS_EXPECT(sendto(fd, buf, MSZ, MSG_DONTWAIT, &to.sa, to.len) ==
			   MSZ);
		RDS_EXPECT(queued(fd, &me, PPORT, MSZ) == 1);
		RDS_EXPECT(conns_to_peer(fd) == 1);
	} else {
		RDS_EXPECT_ERRNO(sendto(fd, buf, MSZ, MSG_DONTWAIT, &to.sa,
					to.len), ENETUNREACH);
		RDS_EXPECT(queued(fd, &me, PPORT, 0) == 0);
		RDS_EXPECT(conns_to_peer(fd) == 0);
		RDS_EXPECT(pollout(fd));
	}
	close(fd);
}

RDS_TEST_MAIN()
