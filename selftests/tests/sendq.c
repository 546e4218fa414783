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
 * peer with no route at all: the test after.
 *
 * Then per-destination send accounting (ours; Linux shares one budget
 * between all destinations): more dead peers, 10.55.0.3 to .6, and a
 * live one, the namespace's own 10.55.0.1 (loopback acks at once).  Each
 * destination has its own half SO_SNDBUF; net.rds.sock_max_peers caps
 * the destinations with bytes queued, net.rds.sock_sndbuf_factor the
 * socket's total.  Each such test FAILS on main at f2a35c5, where the
 * dead peer's full budget refuses every live send (and the sysctls,
 * counters and object count do not exist).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/ioctl.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/rds_netns.h"
#include "../lib/rds_harden.h"

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
		    "for i in 2 3 4 5 6; do ip neigh replace 10.55.0.$i "
		    "lladdr 02:00:00:00:55:0$i dev rdsq0 nud permanent || "
		    "exit 1; done && "
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

/* ---- per-destination send accounting --------------------------------- */

#define LIVE	"10.55.0.1"	/* our own address: loopback, acked at once */
#define LPORT	4100
#define CHARGE	(MSZ + 256)	/* a 4 KiB message's charge */

static int write_sysctl(const char *name, int v)
{
	char path[128];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/rds/%s", name);
	f = fopen(path, "w");
	if (!f)
		RDS_FAIL("%s: %s", path, strerror(errno));
	if (fprintf(f, "%d\n", v) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		RDS_FAIL("writing %d to %s: %s", v, path, strerror(-ret));
	return ret;
}

static struct rds_addr dead(int i)
{
	char a[16];

	snprintf(a, sizeof(a), "10.55.0.%d", i);
	return rds_addr4(a, PPORT);
}

/* A reader of the live destination (10.55.0.1:LPORT). */
static int live_reader(struct rds_addr *ra)
{
	int r = rds_bound(LIVE, LPORT, ra);

	rds_set_int(r, SOL_SOCKET, SO_RCVBUFFORCE, 4 << 20);
	return r;
}

/* One message to the live destination, received: 1 if it was accepted. */
static int live_send(int fd, int r, const struct rds_addr *ra)
{
	static char buf[MSZ], in[MSZ];

	if (sendto(fd, buf, MSZ, MSG_DONTWAIT, &ra->sa, ra->len) != MSZ)
		return 0;
	if (rds_recv(r, in, sizeof(in), 0, NULL, NULL, 5000) != MSZ)
		RDS_FAIL("a live message was accepted but not received");
	return 1;
}

/*
 * The reproducer: a socket fills a dead peer's budget, then 100
 * sends to a live peer must all be accepted (main: 0 of 100, EAGAIN).
 * The dead peer still refuses: EAGAIN nonblocking, ETIMEDOUT after
 * SO_SNDTIMEO blocking, counted in send_dest_full.  POLLOUT follows the
 * last destination tried.
 */
RDS_TEST(dead_peer_does_not_stall_live_peer)
{
	struct rds_addr me, ra, to = dead(2);
	struct timeval tv = { 0, 300000 };
	uint64_t full0, dfull0;
	long long t0, ms;
	int fd, r, i, ok = 0;

	RDS_SKIP_IF_INTREE("one send budget per socket in Linux's RDS");
	dead_peer_netns();
	fd = stuck_sender(&me);
	r = live_reader(&ra);
	RDS_EXPECT(fill(fd, &to, MSZ) == SNDBUF / MSZ);
	RDS_EXPECT(!pollout(fd));
	for (i = 0; i < 100; i++)
		ok += live_send(fd, r, &ra);
	printf("# live peer: %d of 100 accepted after the dead one filled\n",
	       ok);
	RDS_EXPECT(ok == 100);
	/* Last tried: the live one, open. */
	RDS_EXPECT(pollout(fd));
	full0 = rds_counter("send_queue_full");
	dfull0 = rds_counter("send_dest_full");
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, MSG_DONTWAIT, &to.sa, to.len),
			 EAGAIN);
	RDS_EXPECT(rds_counter("send_queue_full") == full0 + 1);
	RDS_EXPECT(rds_counter("send_dest_full") == dfull0 + 1);
	RDS_EXPECT(rds_counter("send_sock_full") == 0);
	RDS_EXPECT(!pollout(fd));
	/* Blocking: waits for that peer only, up to SO_SNDTIMEO. */
	RDS_EXPECT_OK(setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv,
				 sizeof(tv)));
	t0 = rds_now_ms();
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, 0, &to.sa, to.len), ETIMEDOUT);
	ms = rds_now_ms() - t0;
	printf("# blocking send to the dead peer: ETIMEDOUT after %lld ms\n",
	       ms);
	RDS_EXPECT(ms >= 250 && ms < 5000);
	/* ... and a blocking send to the live one goes at once. */
	RDS_EXPECT(live_send(fd, r, &ra));
	RDS_EXPECT(queued(fd, &me, PPORT, MSZ) == SNDBUF / MSZ);
	close(fd);
	close(r);
}

/*
 * net.rds.sock_max_peers 3: three dead peers take a message each; a
 * fourth destination, dead or live, gets EAGAIN (send_dest_cap) and no
 * POLLOUT; canceling one peer's messages lets the fourth in.  The
 * destination states: one per peer with bytes queued, plus the last one
 * tried, the idle ones kept (here the live peer's) and one spare; none
 * after close.
 */
RDS_TEST(dest_cap_sock_max_peers)
{
	struct rds_addr me, ra, d2 = dead(2), d5 = dead(5);
	long base = rds_obj("send_dests"), n;
	uint64_t cap0;
	int fd, r, i;

	RDS_SKIP_IF_INTREE("no net.rds.sock_max_peers in Linux's RDS");
	dead_peer_netns();
	write_sysctl("sock_max_peers", 3);
	fd = stuck_sender(&me);
	r = live_reader(&ra);
	for (i = 2; i <= 4; i++) {
		struct rds_addr d = dead(i);

		RDS_EXPECT(sendto(fd, "m", 1, MSG_DONTWAIT, &d.sa, d.len) == 1);
	}
	cap0 = rds_counter("send_dest_cap");
	RDS_EXPECT_ERRNO(sendto(fd, "m", 1, MSG_DONTWAIT, &d5.sa, d5.len),
			 EAGAIN);
	RDS_EXPECT(!pollout(fd));
	RDS_EXPECT(!live_send(fd, r, &ra));
	RDS_EXPECT(errno == EAGAIN);
	RDS_EXPECT(rds_counter("send_dest_cap") == cap0 + 2);
	n = rds_obj("send_dests") - base;
	printf("# 3 destinations busy: %ld destination states\n", n);
	RDS_EXPECT(n >= 3 && n <= 6);
	/* One peer's messages canceled: a place for another. */
	RDS_EXPECT_OK(setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &d2.in,
				 sizeof(d2.in)));
	RDS_EXPECT(sendto(fd, "m", 1, MSG_DONTWAIT, &d5.sa, d5.len) == 1);
	RDS_EXPECT_ERRNO(sendto(fd, "m", 1, MSG_DONTWAIT, &d2.sa, d2.len),
			 EAGAIN);
	close(fd);
	close(r);
	for (i = 0; i < 100 && rds_obj("send_dests") != base; i++)
		rds_sleep_ms(20);
	RDS_EXPECT(rds_obj("send_dests") == base);
}

/*
 * net.rds.sock_sndbuf_factor 2: the total is two budgets (32768 with
 * SO_SNDBUF 16384).  Two dead peers fill their own budgets (4 messages,
 * 17408 bytes each: admitted while below); the total (34816) is then
 * over its cap, so a third dead peer and the live one get EAGAIN
 * (send_sock_full) and no POLLOUT.  Canceling one dead peer reopens it.
 */
RDS_TEST(sock_total_cap_sndbuf_factor)
{
	struct rds_addr me, ra, d2 = dead(2), d3 = dead(3), d4 = dead(4);
	uint64_t sock0;
	int fd, r;

	RDS_SKIP_IF_INTREE("no net.rds.sock_sndbuf_factor in Linux's RDS");
	dead_peer_netns();
	write_sysctl("sock_sndbuf_factor", 2);
	fd = stuck_sender(&me);
	r = live_reader(&ra);
	RDS_EXPECT(fill(fd, &d2, MSZ) == 4);
	RDS_EXPECT(fill(fd, &d3, MSZ) == 4);
	sock0 = rds_counter("send_sock_full");
	RDS_EXPECT_ERRNO(sendto(fd, "m", 1, MSG_DONTWAIT, &d4.sa, d4.len),
			 EAGAIN);
	RDS_EXPECT(!pollout(fd));
	RDS_EXPECT(!live_send(fd, r, &ra));
	RDS_EXPECT(errno == EAGAIN);
	RDS_EXPECT(rds_counter("send_sock_full") == sock0 + 2);
	RDS_EXPECT_OK(setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &d2.in,
				 sizeof(d2.in)));
	RDS_EXPECT(pollout(fd));
	RDS_EXPECT(live_send(fd, r, &ra));
	RDS_EXPECT(sendto(fd, "m", 1, MSG_DONTWAIT, &d4.sa, d4.len) == 1);
	close(fd);
	close(r);
}

/*
 * A socket sending to many peers in turn: one dead (its message stays
 * queued), 200 local addresses nobody listens on (loopback drops and
 * acks at once) and the live reader between each.  The live reader gets
 * each message in order, the dead peer's stays queued, and the socket
 * keeps at most RDS_DEST_IDLE_MAX (64) idle destination states beside
 * the busy one, the last and the spare; none after close.
 */
RDS_TEST(idle_dests_kept_bounded)
{
	struct rds_addr me, ra, d2 = dead(2);
	long base = rds_obj("send_dests"), n;
	char buf[16], in[16];
	int fd, r, i, rc;

	RDS_SKIP_IF_INTREE("no per-destination send accounting upstream");
	dead_peer_netns();
	rc = system("ip route add local 10.55.1.0/24 dev lo");
	if (rc)
		RDS_FAIL("ip route add local 10.55.1.0/24: status %d", rc);
	fd = stuck_sender(&me);
	r = live_reader(&ra);
	RDS_EXPECT(sendto(fd, "d", 1, MSG_DONTWAIT, &d2.sa, d2.len) == 1);
	for (i = 0; i < 200; i++) {
		char ip[16];
		struct rds_addr nobody;

		snprintf(ip, sizeof(ip), "10.55.1.%d", i + 1);
		nobody = rds_addr4(ip, PPORT);
		if (sendto(fd, "n", 1, MSG_DONTWAIT, &nobody.sa,
			   nobody.len) != 1)
			RDS_FAIL("send to %s: %s", ip, strerror(errno));
		snprintf(buf, sizeof(buf), "%d", i);
		if (sendto(fd, buf, strlen(buf) + 1, MSG_DONTWAIT, &ra.sa,
			   ra.len) != (ssize_t)strlen(buf) + 1)
			RDS_FAIL("live send %d: %s", i, strerror(errno));
		/* Read as it goes: loopback's charge ends with the read. */
		if (rds_recv(r, in, sizeof(in), 0, NULL, NULL, 5000) !=
		    (ssize_t)strlen(buf) + 1 || strcmp(in, buf))
			RDS_FAIL("live message %d missing or out of order", i);
	}
	RDS_EXPECT(queued(fd, &me, PPORT, 1) == 1);
	/* Loopback's acks retire the rest at once, or nearly. */
	for (i = 0; i < 100; i++) {
		n = rds_obj("send_dests") - base;
		if (n <= 64 + 3)
			break;
		rds_sleep_ms(20);
	}
	printf("# %ld destination states for 202 peers\n", n);
	RDS_EXPECT(n >= 2 && n <= 64 + 3);
	close(fd);
	close(r);
	for (i = 0; i < 100 && rds_obj("send_dests") != base; i++)
		rds_sleep_ms(20);
	RDS_EXPECT(rds_obj("send_dests") == base);
}

RDS_TEST_MAIN()
