// SPDX-License-Identifier: GPL-2.0
/*
 * sendmsg(): the order of its checks and their errnos, message size
 * limits, accepted flags, control messages, zero-length messages, drops
 * to unbound ports, and blocking/nonblocking sends against a reader.
 */
#include "../lib/rds_test.h"
#include "../lib/rds_util.h"

RDS_TEST(unbound_enotconn)
{
	struct rds_addr to = rds_addr4("127.0.0.1", 6001);
	struct rds_addr to6 = rds_addr6("::1", 6001, 0);
	int fd = rds_socket();

	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, 0, &to.sa, to.len), ENOTCONN);
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, 0, &to6.sa, to6.len), ENOTCONN);
	RDS_EXPECT_ERRNO(send(fd, "x", 1, 0), ENOTCONN);
	close(fd);
}

RDS_TEST(bound_without_destination_enotconn)
{
	int fd = rds_bound("127.0.0.1", 0, NULL);

	RDS_EXPECT_ERRNO(send(fd, "x", 1, 0), ENOTCONN);
	/* write() adds MSG_EOR (SOCK_SEQPACKET): the flag check wins. */
	RDS_EXPECT_ERRNO(write(fd, "x", 1), EOPNOTSUPP);
	close(fd);
}

RDS_TEST(bad_flags_eopnotsupp)
{
	struct rds_addr to;
	int fd = rds_bound("127.0.0.1", 0, &to);
	int un = rds_socket();

	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, MSG_OOB, &to.sa, to.len),
			 EOPNOTSUPP);
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, MSG_MORE, &to.sa, to.len),
			 EOPNOTSUPP);
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, MSG_NOSIGNAL, &to.sa, to.len),
			 EOPNOTSUPP);
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, MSG_EOR, &to.sa, to.len),
			 EOPNOTSUPP);
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, MSG_CONFIRM, &to.sa, to.len),
			 EOPNOTSUPP);
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, MSG_DONTROUTE, &to.sa, to.len),
			 EOPNOTSUPP);
	/* The flags are checked before anything else. */
	RDS_EXPECT_ERRNO(sendto(un, "x", 1, MSG_OOB, &to.sa, to.len),
			 EOPNOTSUPP);
	RDS_EXPECT_ERRNO(sendto(un, "x", 1, MSG_OOB, &to.sa, 3), EOPNOTSUPP);
	/* MSG_DONTWAIT is fine. */
	RDS_EXPECT(sendto(fd, "x", 1, MSG_DONTWAIT, &to.sa, to.len) == 1);
	close(fd);
	close(un);
}

RDS_TEST(bad_destination_einval)
{
	struct rds_addr me, d;
	int fd = rds_bound("127.0.0.1", 0, &me);
	int f6 = rds_bound("::1", 0, NULL);

	/* Shorter than a sockaddr_in, even for AF_INET6. */
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, 0, &me.sa, 15), EINVAL);
	d = rds_addr6("::1", 6002, 0);
	RDS_EXPECT_ERRNO(sendto(f6, "x", 1, 0, &d.sa, 16), EINVAL);
	RDS_EXPECT_ERRNO(sendto(f6, "x", 1, 0, &d.sa, 27), EINVAL);
	d = me;
	d.sa.sa_family = AF_UNIX;
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, 0, &d.sa, d.len), EINVAL);
	d = rds_addr4("0.0.0.0", 6002);
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, 0, &d.sa, d.len), EINVAL);
	d = rds_addr4("255.255.255.255", 6002);
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, 0, &d.sa, d.len), EINVAL);
	d = rds_addr4("224.0.0.1", 6002);
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, 0, &d.sa, d.len), EINVAL);
	d = rds_addr6("::", 6002, 0);
	RDS_EXPECT_ERRNO(sendto(f6, "x", 1, 0, &d.sa, d.len), EINVAL);
	d = rds_addr6("ff02::1", 6002, 0);
	RDS_EXPECT_ERRNO(sendto(f6, "x", 1, 0, &d.sa, d.len), EINVAL);
	d = rds_addr6("::ffff:224.0.0.1", 6002, 0);
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, 0, &d.sa, d.len), EINVAL);
	d = rds_addr6("fe80::1", 6002, 0);
	RDS_EXPECT_ERRNO(sendto(f6, "x", 1, 0, &d.sa, d.len), EINVAL);
	/* Address checks come before the bound check. */
	close(fd);
	fd = rds_socket();
	d = rds_addr4("0.0.0.0", 6002);
	RDS_EXPECT_ERRNO(sendto(fd, "x", 1, 0, &d.sa, d.len), EINVAL);
	close(fd);
	close(f6);
}

RDS_TEST(family_mix_eopnotsupp)
{
	struct rds_addr a4, a6, m;
	int f4 = rds_bound("127.0.0.1", 0, &a4);
	int f6 = rds_bound("::1", 0, &a6);

	RDS_EXPECT_ERRNO(sendto(f4, "x", 1, 0, &a6.sa, a6.len), EOPNOTSUPP);
	RDS_EXPECT_ERRNO(sendto(f6, "x", 1, 0, &a4.sa, a4.len), EOPNOTSUPP);
	m = rds_addr6("::ffff:127.0.0.1", rds_addr_port(&a4), 0);
	RDS_EXPECT_ERRNO(sendto(f6, "x", 1, 0, &m.sa, m.len), EOPNOTSUPP);
	close(f4);
	close(f6);
}

/* A v4-mapped destination from an IPv4 socket is plain IPv4. */
RDS_TEST(v4mapped_destination_from_ipv4)
{
	struct rds_addr ra, sa, from;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, &sa);
	struct rds_addr m = rds_addr6("::ffff:127.0.0.1", rds_addr_port(&ra), 0);
	char buf[8];

	RDS_EXPECT(sendto(s, "abc", 3, 0, &m.sa, m.len) == 3);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, &from, NULL, 2000) == 3);
	RDS_EXPECT(from.len == sizeof(struct sockaddr_in));
	RDS_EXPECT(rds_addr_eq(&from, &sa));
	close(r);
	close(s);
}

static void big_buffers(int fd)
{
	/* Raise beyond net.core.wmem_max: root may force. */
	rds_set_int(fd, SOL_SOCKET, SO_SNDBUFFORCE, 4 << 20);
	rds_set_int(fd, SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20);
}

RDS_TEST(over_1mib_emsgsize)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, NULL);
	size_t max = RDS_MAX_MSG;
	char *buf = calloc(1, max + 4096);
	char *rb = malloc(max + 4096);

	big_buffers(s);
	big_buffers(r);
	RDS_EXPECT_ERRNO(sendto(s, buf, max + 1, 0, &ra.sa, ra.len), EMSGSIZE);
	RDS_EXPECT_ERRNO(sendto(s, buf, max + 4096, MSG_DONTWAIT, &ra.sa,
				ra.len), EMSGSIZE);
	/* Exactly 1 MiB is a valid message. */
	rds_fill(buf, max, 7);
	rds_send(s, &ra, buf, max, 0);
	RDS_EXPECT(rds_recv(r, rb, max + 4096, 0, NULL, NULL, 10000) ==
		   (ssize_t)max);
	RDS_EXPECT(!memcmp(buf, rb, max));
	free(buf);
	free(rb);
	close(r);
	close(s);
}

RDS_TEST(over_half_sndbuf_emsgsize)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, NULL);
	int sb;
	socklen_t l = sizeof(sb);
	char *buf, *rb;
	size_t half;

	rds_set_int(s, SOL_SOCKET, SO_SNDBUF, 16384);
	RDS_EXPECT_OK(getsockopt(s, SOL_SOCKET, SO_SNDBUF, &sb, &l));
	RDS_EXPECT(sb == 32768);	/* the kernel doubles it */
	half = sb / 2;
	buf = calloc(1, half + 1);
	rb = malloc(half + 1);
	RDS_EXPECT_ERRNO(sendto(s, buf, half + 1, 0, &ra.sa, ra.len),
			 EMSGSIZE);
	rds_send(s, &ra, buf, half, 0);
	RDS_EXPECT(rds_recv(r, rb, half + 1, 0, NULL, NULL, 5000) ==
		   (ssize_t)half);
	free(buf);
	free(rb);
	close(r);
	close(s);
}

RDS_TEST(zero_length_is_a_message)
{
	struct rds_addr ra, sa, from;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, &sa);
	char buf[16];
	int fl;

	RDS_EXPECT(sendto(s, NULL, 0, 0, &ra.sa, ra.len) == 0);
	RDS_EXPECT(sendto(s, "", 0, 0, &ra.sa, ra.len) == 0);
	rds_send(s, &ra, "z", 1, 0);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, &from, &fl, 2000) == 0);
	RDS_EXPECT(rds_addr_eq(&from, &sa));
	RDS_EXPECT(!(fl & MSG_TRUNC));
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, &from, &fl, 2000) == 0);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, &from, &fl, 2000) == 1);
	RDS_EXPECT(buf[0] == 'z');
	RDS_EXPECT_ERRNO(recv(r, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	close(r);
	close(s);
}

static void drop_to_unbound(const char *ip)
{
	struct rds_addr ra, nobody;
	int r = rds_bound(ip, 0, &ra);
	int s = rds_bound(ip, 0, NULL);
	uint64_t before, after;
	char buf[8];
	int i;

	/* A port just released is unbound. */
	nobody = ra;
	close(r);
	before = rds_counter("recv_drop_no_sock");
	for (i = 0; i < 3; i++)
		RDS_EXPECT(sendto(s, "lost", 4, 0, &nobody.sa, nobody.len) == 4);
	/* Delivery may be asynchronous: wait for the count. */
	for (i = 0; i < 200; i++) {
		after = rds_counter("recv_drop_no_sock");
		if (after - before >= 3)
			break;
		rds_sleep_ms(10);
	}
	if (after - before != 3)
		RDS_FAIL("recv_drop_no_sock went %llu -> %llu, expected +3",
			 (unsigned long long)before,
			 (unsigned long long)after);
	/* The sender hears nothing back. */
	RDS_EXPECT_ERRNO(recv(s, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	close(s);
}

RDS_TEST(unbound_port_dropped_and_counted_ipv4)
{
	drop_to_unbound("127.0.0.1");
}

RDS_TEST(unbound_port_dropped_and_counted_ipv6)
{
	drop_to_unbound("::1");
}

RDS_TEST(unknown_rds_cmsg_einval)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, NULL);
	uint64_t v = 0;
	char buf[8];

	RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ra, "x", 1, 100, &v,
				       sizeof(v), 0), EINVAL);
	RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ra, "x", 1, 10, &v,
				       sizeof(v), 0), EINVAL);
	/* A receive-only cmsg type is not valid on send. */
	RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ra, "x", 1,
				       RDS_CMSG_CONG_UPDATE, &v, sizeof(v), 0),
			 EINVAL);
	/* Nothing was queued by the failed sends. */
	RDS_EXPECT_ERRNO(recv(r, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	/* cmsgs at other levels are ignored. */
	RDS_EXPECT(rds_sendmsg_cmsgs(s, &ra, "y", 1,
				     &(struct rds_cmsg){ SOL_SOCKET, 12345, &v,
							 sizeof(v) },
				     1, 0) == 1);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 2000) == 1);
	RDS_EXPECT(buf[0] == 'y');
	close(r);
	close(s);
}

RDS_TEST(msg_zerocopy_rules)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, NULL);
	uint32_t cookie = 1;
	char buf[8];

	/* MSG_ZEROCOPY without a RDS_CMSG_ZCOPY_COOKIE. */
	RDS_EXPECT_ERRNO(sendto(s, "x", 1, MSG_ZEROCOPY, &ra.sa, ra.len),
			 EINVAL);
	/* A cookie without SO_ZEROCOPY. */
	RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ra, "x", 1,
				       RDS_CMSG_ZCOPY_COOKIE, &cookie,
				       sizeof(cookie), 0), EINVAL);
	/* SO_ZEROCOPY is accepted on RDS sockets ... */
	rds_set_int(s, SOL_SOCKET, SO_ZEROCOPY, 1);
	/* ... but zero copy is a TCP-transport feature. */
	RDS_EXPECT_ERRNO(rds_send_cmsg(s, &ra, "x", 1,
				       RDS_CMSG_ZCOPY_COOKIE, &cookie,
				       sizeof(cookie), MSG_ZEROCOPY), EOPNOTSUPP);
	RDS_EXPECT_ERRNO(recv(r, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	close(r);
	close(s);
}

/* Many sends against a draining reader: order and content survive. */
static void pump(int nonblock)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, NULL);
	const int n = 400;
	size_t msz;
	int sb, i, st;
	socklen_t l = sizeof(sb);
	char *buf, *rb;
	pid_t pid;

	rds_set_int(s, SOL_SOCKET, SO_SNDBUF, 65536);
	rds_set_int(r, SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20);
	RDS_EXPECT_OK(getsockopt(s, SOL_SOCKET, SO_SNDBUF, &sb, &l));
	msz = sb / 2 / 4;	/* four messages fill the send buffer */
	buf = malloc(msz);
	rb = malloc(msz + 1);
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < n; i++) {
			ssize_t got = rds_recv(r, rb, msz + 1, 0, NULL, NULL,
					       10000);

			rds_fill(buf, msz, i);
			if (got != (ssize_t)msz || memcmp(buf, rb, msz))
				RDS_FAIL("message %d: %zd bytes, bad content",
					 i, got);
		}
		_exit(0);
	}
	if (nonblock)
		rds_set_nonblock(s);
	for (i = 0; i < n; i++) {
		ssize_t w;

		rds_fill(buf, msz, i);
		while ((w = sendto(s, buf, msz, 0, &ra.sa, ra.len)) < 0) {
			struct pollfd p = { .fd = s, .events = POLLOUT };

			/* A full send queue is EAGAIN, never anything else. */
			if (!nonblock || errno != EAGAIN)
				RDS_FAIL("send %d: %s", i, strerror(errno));
			RDS_EXPECT(poll(&p, 1, 5000) == 1);
		}
		RDS_EXPECT(w == (ssize_t)msz);
	}
	RDS_EXPECT(waitpid(pid, &st, 0) == pid);
	RDS_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	free(buf);
	free(rb);
	close(r);
	close(s);
}

RDS_TEST(blocking_sends_in_order)
{
	pump(0);
}

RDS_TEST(nonblocking_sends_in_order)
{
	pump(1);
}

RDS_TEST(send_to_self)
{
	struct rds_addr me, from;
	int fd = rds_bound("::1", 0, &me);
	char buf[8];

	rds_send(fd, &me, "me", 2, 0);
	RDS_EXPECT(rds_recv(fd, buf, sizeof(buf), 0, &from, NULL, 2000) == 2);
	RDS_EXPECT(rds_addr_eq(&from, &me));
	close(fd);
}

RDS_TEST(writev_gathers_into_one_message)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, NULL);
	struct iovec iov[3] = { { "ab", 2 }, { "", 0 }, { "cde", 3 } };
	struct msghdr m = { .msg_name = &ra.ss, .msg_namelen = ra.len,
			    .msg_iov = iov, .msg_iovlen = 3 };
	char buf[16];

	RDS_EXPECT(sendmsg(s, &m, 0) == 5);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 2000) == 5);
	RDS_EXPECT(!memcmp(buf, "abcde", 5));
	close(r);
	close(s);
}

RDS_TEST_MAIN()
