// SPDX-License-Identifier: GPL-2.0
/*
 * rds-ping semantics: a message to port 0 of an RDS address is answered
 * by the node itself with an empty message from port 0 to the sender.
 */
#include "../lib/rds_test.h"
#include "../lib/rds_util.h"

static void ping(const char *from_ip, const char *to_ip, size_t len)
{
	struct rds_addr me, to = rds_addr(to_ip, 0), src;
	int fd = rds_bound(from_ip, 0, &me);
	uint64_t pings = rds_counter("recv_ping");
	uint64_t pongs = rds_counter("send_pong");
	char buf[64] = "ping payload";
	int fl;

	rds_send(fd, &to, buf, len, 0);
	RDS_EXPECT(rds_recv(fd, buf, sizeof(buf), 0, &src, &fl, 5000) == 0);
	RDS_EXPECT(fl == 0);
	/* From the pinged address, port 0. */
	if (!rds_addr_eq(&src, &to))
		RDS_FAIL("pong from %s, expected %s", rds_addr_str(&src),
			 rds_addr_str(&to));
	RDS_EXPECT(rds_counter("recv_ping") - pings == 1);
	RDS_EXPECT(rds_counter("send_pong") - pongs == 1);
	/* Exactly one pong. */
	RDS_EXPECT(!rds_wait_readable(fd, 200));
	close(fd);
}

RDS_TEST(ping_self_ipv4)
{
	ping("127.0.0.1", "127.0.0.1", 12);
}

RDS_TEST(ping_empty_ipv4)
{
	ping("127.0.0.2", "127.0.0.2", 0);
}

/*
 * Better than upstream: across two local addresses, upstream's loopback
 * sends the pong to the pinged address (with the pinger's port).
 */
RDS_TEST(ping_other_address_ipv4)
{
	RDS_SKIP_IF_INTREE("its loopback pong goes to the pinged address, "
			   "not back to the pinger");
	ping("127.0.0.1", "127.0.0.2", 12);
}

RDS_TEST(ping_other_address_back)
{
	RDS_SKIP_IF_INTREE("its loopback pong goes to the pinged address, "
			   "not back to the pinger");
	ping("127.0.0.2", "127.0.0.1", 0);
}

RDS_TEST(ping_ipv6)
{
	ping("::1", "::1", 8);
}

RDS_TEST(pings_answered_in_order)
{
	struct rds_addr me, to = rds_addr4("127.0.0.1", 0);
	int fd = rds_bound("127.0.0.1", 0, &me), i;
	char buf[8];

	for (i = 0; i < 20; i++)
		rds_send(fd, &to, "p", 1, 0);
	for (i = 0; i < 20; i++)
		RDS_EXPECT(rds_recv(fd, buf, sizeof(buf), 0, NULL, NULL,
				    5000) == 0);
	close(fd);
}

RDS_TEST_MAIN()
