// SPDX-License-Identifier: GPL-2.0
/*
 * A closed socket's queued messages (orphans): kept for their peer while
 * it is unreachable, within the namespace's budget in bytes
 * (net.rds.orphan_max_kb) and time (net.rds.orphan_max_ms), and counted
 * as send_drop_orphan when given up; a connection attempt that does not
 * come up is dropped after net.rds.connect_timeout_ms (counted as
 * conn_connect_timeout) and made again.
 *
 * The unreachable peer: RDS/TCP in a namespace of its own, from an
 * address on a dummy device (whose packets go nowhere) to another address
 * of its subnet. Closing sockets that race their messages' acks over
 * loopback must leave the namespace's orphan accounting at zero: the
 * namespace's exit checks it (a WARNING, which fails the run).
 *
 * Ours only: Linux drops a closed socket's messages at close.
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/rds_netns.h"

#define SELF	"10.77.0.1"
#define PEER	"10.77.0.2"	/* on the dummy's subnet: nobody answers */

static void sysctl_set(const char *name, int val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/net/rds/%s", name);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", val) < 0 || fclose(f))
		RDS_FAIL("net.rds.%s = %d: %s", name, val, strerror(errno));
}

/* 0, or the errno writing @val to net.rds.@name failed with. */
static int sysctl_write_err(const char *name, const char *val)
{
	char path[128];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/rds/%s", name);
	fd = RDS_EXPECT_OK(open(path, O_WRONLY));
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* A namespace of our own where PEER is routed to a device that drops it. */
static void unreachable_peer_netns(void)
{
	if (rds_is_intree())
		rds_test_skip("ours only: Linux drops a closed socket's messages at close");
	if (!rds_module_loaded("rds_tcp"))
		rds_test_skip("rds_tcp is not loaded");
	rds_new_netns(NULL);
	if (system("ip link add rdsdummy0 type dummy 2>/dev/null && "
		   "ip addr add " SELF "/24 dev rdsdummy0 && "
		   "ip link set rdsdummy0 up"))
		rds_test_skip("no dummy network device");
}

/* Queue @n messages of @len bytes to PEER from a socket, then close it. */
static void send_and_close(int n, size_t len)
{
	struct rds_addr to = rds_addr4(PEER, 4000);
	static char buf[8192];
	int fd = rds_bound(SELF, 0, NULL), i;

	rds_set_int(fd, SOL_SOCKET, SO_SNDBUF, 1 << 20);
	for (i = 0; i < n; i++)
		RDS_EXPECT(sendto(fd, buf, len, 0, &to.sa, to.len) == (ssize_t)len);
	close(fd);
}

RDS_TEST(orphans_wait_for_peer_then_expire)
{
	uint64_t drops, timeouts;

	unreachable_peer_netns();
	sysctl_set("connect_timeout_ms", 200);
	sysctl_set("orphan_max_ms", 3000);
	drops = rds_counter("send_drop_orphan");
	timeouts = rds_counter("conn_connect_timeout");
	send_and_close(3, 1000);
	/* Attempts fail meanwhile (timed out, and by ARP): kept. */
	rds_sleep_ms(1500);
	RDS_EXPECT(rds_counter("conn_connect_timeout") > timeouts);
	RDS_EXPECT(rds_counter("send_drop_orphan") == drops);
	/* Given up once they waited orphan_max_ms, and counted. */
	rds_sleep_ms(3500);
	RDS_EXPECT(rds_counter("send_drop_orphan") == drops + 3);
}

RDS_TEST(orphans_over_budget_given_up_at_close)
{
	uint64_t drops;

	unreachable_peer_netns();
	/* One 0-byte message's charge (256 B of overhead) fits, 4 KiB not. */
	sysctl_set("orphan_max_kb", 1);
	drops = rds_counter("send_drop_orphan");
	send_and_close(1, 0);
	RDS_EXPECT(rds_counter("send_drop_orphan") == drops);
	send_and_close(2, 4000);
	RDS_EXPECT(rds_counter("send_drop_orphan") == drops + 2);
	/* No budget at all: every closed socket's message goes at close. */
	sysctl_set("orphan_max_kb", 0);
	send_and_close(1, 0);
	RDS_EXPECT(rds_counter("send_drop_orphan") == drops + 3);
}

RDS_TEST(orphan_sysctls_refuse_bad_values)
{
	if (rds_is_intree())
		rds_test_skip("ours only");
	rds_new_netns(NULL);
	RDS_EXPECT(sysctl_write_err("orphan_max_ms", "-1\n") == EINVAL);
	RDS_EXPECT(sysctl_write_err("orphan_max_kb", "-1\n") == EINVAL);
	RDS_EXPECT(sysctl_write_err("connect_timeout_ms", "99\n") == EINVAL);
	RDS_EXPECT(sysctl_write_err("connect_timeout_ms", "100\n") == 0);
}

/* Senders over loopback close as soon as sendmsg() returns, racing the
 * acks of what they queued; the receiver reads everything.
 */
enum { RACERS = 4, ROUNDS = 300 };

static struct rds_addr race_dst;

static void *race_sender(void *arg)
{
	char buf[512];
	int i, j, fd;

	for (i = 0; i < ROUNDS; i++) {
		fd = rds_bound("127.0.0.1", 0, NULL);
		for (j = 0; j < 4; j++)
			sendto(fd, buf, (i + j) % 2 ? sizeof(buf) : 0, 0,
			       &race_dst.sa, race_dst.len);
		close(fd);
	}
	return arg;
}

RDS_TEST(close_races_acks_without_leaking_orphan_charge)
{
	pthread_t t[RACERS];
	char buf[1024];
	int r, i, got = 0;

	if (rds_is_intree())
		rds_test_skip("ours only");
	rds_new_netns(NULL);
	r = rds_bound("127.0.0.1", 0, &race_dst);
	rds_set_int(r, SOL_SOCKET, SO_RCVBUF, 8 << 20);
	for (i = 0; i < RACERS; i++)
		RDS_EXPECT(!pthread_create(&t[i], NULL, race_sender, NULL));
	/* Read as they send: a congested port would block them. */
	while (got < RACERS * ROUNDS * 4 &&
	       rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 5000) >= 0)
		got++;
	for (i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	RDS_EXPECT(got == RACERS * ROUNDS * 4);
	RDS_EXPECT(rds_counter("send_drop_orphan") == 0);
	close(r);
	/* The namespace exits with this child: its orphan count must be 0. */
}

RDS_TEST_MAIN()
