// SPDX-License-Identifier: GPL-2.0
/*
 * connect(): a default destination only (no handshake, no filtering of
 * incoming messages); getpeername()/getsockname() reporting.
 */
#include "../lib/rds_test.h"
#include "../lib/rds_util.h"

static void connect_fails(struct rds_addr a, int err)
{
	int fd = rds_socket();

	errno = 0;
	if (connect(fd, &a.sa, a.len) != -1)
		RDS_FAIL("connect(%s) succeeded, expected %s",
			 rds_addr_str(&a), strerror(err));
	if (errno != err)
		RDS_FAIL("connect(%s): errno %d (%s), expected %d (%s)",
			 rds_addr_str(&a), errno, strerror(errno), err,
			 strerror(err));
	close(fd);
}

RDS_TEST(getpeername_enotconn_until_connect)
{
	struct rds_addr a;
	int fd = rds_socket(), fb = rds_bound("127.0.0.1", 0, NULL);

	a.len = sizeof(a.ss);
	RDS_EXPECT_ERRNO(getpeername(fd, &a.sa, &a.len), ENOTCONN);
	a.len = sizeof(a.ss);
	RDS_EXPECT_ERRNO(getpeername(fb, &a.sa, &a.len), ENOTCONN);
	close(fd);
	close(fb);
}

static void connect_reports(const char *ip, int family, socklen_t len,
			    const char *want_ip)
{
	struct rds_addr to = rds_addr(ip, 5001), want = rds_addr(want_ip, 5001);
	struct rds_addr got;
	int fd = rds_socket();

	RDS_EXPECT_OK(connect(fd, &to.sa, to.len));
	memset(&got, 0, sizeof(got));
	got.len = sizeof(got.ss);
	RDS_EXPECT_OK(getpeername(fd, &got.sa, &got.len));
	RDS_EXPECT(got.len == len);
	RDS_EXPECT(got.sa.sa_family == family);
	if (!rds_addr_eq(&got, &want))
		RDS_FAIL("getpeername %s, want %s", rds_addr_str(&got),
			 rds_addr_str(&want));
	close(fd);
}

RDS_TEST(getpeername_ipv4)
{
	connect_reports("127.0.0.2", AF_INET, sizeof(struct sockaddr_in),
			"127.0.0.2");
}

RDS_TEST(getpeername_ipv6)
{
	connect_reports("::1", AF_INET6, sizeof(struct sockaddr_in6), "::1");
}

RDS_TEST(getpeername_v4mapped_is_ipv4)
{
	connect_reports("::ffff:127.0.0.2", AF_INET,
			sizeof(struct sockaddr_in), "127.0.0.2");
}

/* Unbound: the family follows the connected address, all zero. */
RDS_TEST(getsockname_unbound)
{
	struct rds_addr got, to4 = rds_addr4("127.0.0.2", 5002);
	struct rds_addr to6 = rds_addr6("::1", 5002, 0);
	static const char zero[sizeof(struct sockaddr_in6)];
	int fd = rds_socket();

	memset(&got, 0xa5, sizeof(got));
	got.len = sizeof(got.ss);
	RDS_EXPECT_OK(getsockname(fd, &got.sa, &got.len));
	RDS_EXPECT(got.len == sizeof(struct sockaddr_in));
	RDS_EXPECT(got.sa.sa_family == AF_UNSPEC);
	RDS_EXPECT(!memcmp(&got.ss, zero, sizeof(struct sockaddr_in)));

	RDS_EXPECT_OK(connect(fd, &to4.sa, to4.len));
	memset(&got, 0xa5, sizeof(got));
	got.len = sizeof(got.ss);
	RDS_EXPECT_OK(getsockname(fd, &got.sa, &got.len));
	RDS_EXPECT(got.len == sizeof(struct sockaddr_in));
	RDS_EXPECT(got.sa.sa_family == AF_INET);
	RDS_EXPECT(got.in.sin_port == 0 && got.in.sin_addr.s_addr == 0);
	close(fd);

	fd = rds_socket();
	RDS_EXPECT_OK(connect(fd, &to6.sa, to6.len));
	memset(&got, 0xa5, sizeof(got));
	got.len = sizeof(got.ss);
	RDS_EXPECT_OK(getsockname(fd, &got.sa, &got.len));
	RDS_EXPECT(got.len == sizeof(struct sockaddr_in6));
	RDS_EXPECT(got.sa.sa_family == AF_INET6);
	RDS_EXPECT(!memcmp((char *)&got.ss + 2, zero + 2,
			   sizeof(struct sockaddr_in6) - 2));
	close(fd);
}

RDS_TEST(bad_destinations)
{
	connect_fails(rds_addr4("0.0.0.0", 5003), EDESTADDRREQ);
	connect_fails(rds_addr4("255.255.255.255", 5003), EINVAL);
	connect_fails(rds_addr4("224.0.0.1", 5003), EINVAL);
	connect_fails(rds_addr6("::", 5003, 0), EPROTOTYPE);
	connect_fails(rds_addr6("ff02::1", 5003, 0), EPROTOTYPE);
	connect_fails(rds_addr6("::ffff:0.0.0.0", 5003, 0), EPROTOTYPE);
	connect_fails(rds_addr6("::ffff:224.0.0.1", 5003, 0), EPROTOTYPE);
	connect_fails(rds_addr6("::ffff:255.255.255.255", 5003, 0),
		      EPROTOTYPE);
	connect_fails(rds_addr6("fe80::1", 5003, 0), EINVAL);
}

RDS_TEST(bad_lengths_and_families)
{
	struct rds_addr v4 = rds_addr4("127.0.0.1", 5004);
	struct rds_addr v6 = rds_addr6("::1", 5004, 0);
	struct rds_addr un = v4;
	int fd = rds_socket();

	RDS_EXPECT_ERRNO(connect(fd, &v4.sa, 1), EINVAL);
	RDS_EXPECT_ERRNO(connect(fd, &v4.sa, sizeof(struct sockaddr_in) - 1),
			 EINVAL);
	RDS_EXPECT_ERRNO(connect(fd, &v6.sa, sizeof(struct sockaddr_in)),
			 EINVAL);
	un.sa.sa_family = AF_UNIX;
	RDS_EXPECT_ERRNO(connect(fd, &un.sa, un.len), EAFNOSUPPORT);
	un.sa.sa_family = AF_RDS;
	RDS_EXPECT_ERRNO(connect(fd, &un.sa, un.len), EAFNOSUPPORT);
	close(fd);
}

RDS_TEST(connect_sets_default_destination)
{
	struct rds_addr ra, sa, from;
	int r = rds_bound("127.0.0.2", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, &sa);
	char buf[64];
	int fl;

	RDS_EXPECT_OK(connect(s, &ra.sa, ra.len));
	RDS_EXPECT(send(s, "hello", 5, 0) == 5);
	/* write() on a SOCK_SEQPACKET socket adds MSG_EOR: refused. */
	RDS_EXPECT_ERRNO(write(s, "nope", 4), EOPNOTSUPP);
	RDS_EXPECT(send(s, "world!", 6, 0) == 6);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, &from, &fl, 2000) == 5);
	RDS_EXPECT(!memcmp(buf, "hello", 5));
	RDS_EXPECT(rds_addr_eq(&from, &sa));
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, &from, &fl, 2000) == 6);
	RDS_EXPECT(!memcmp(buf, "world!", 6));
	close(r);
	close(s);
}

RDS_TEST(reconnect_changes_destination)
{
	struct rds_addr a1, a2;
	int r1 = rds_bound("127.0.0.1", 0, &a1);
	int r2 = rds_bound("127.0.0.1", 0, &a2);
	int s = rds_bound("127.0.0.1", 0, NULL);
	char buf[8];

	RDS_EXPECT_OK(connect(s, &a1.sa, a1.len));
	RDS_EXPECT(send(s, "1", 1, 0) == 1);
	RDS_EXPECT_OK(connect(s, &a2.sa, a2.len));
	RDS_EXPECT(send(s, "2", 1, 0) == 1);
	RDS_EXPECT(rds_recv(r1, buf, sizeof(buf), 0, NULL, NULL, 2000) == 1);
	RDS_EXPECT(buf[0] == '1');
	RDS_EXPECT(rds_recv(r2, buf, sizeof(buf), 0, NULL, NULL, 2000) == 1);
	RDS_EXPECT(buf[0] == '2');
	close(r1);
	close(r2);
	close(s);
}

RDS_TEST(explicit_destination_overrides_connect)
{
	struct rds_addr a1, a2;
	int r1 = rds_bound("127.0.0.1", 0, &a1);
	int r2 = rds_bound("127.0.0.1", 0, &a2);
	int s = rds_bound("127.0.0.1", 0, NULL);
	char buf[8];

	RDS_EXPECT_OK(connect(s, &a1.sa, a1.len));
	rds_send(s, &a2, "x", 1, 0);
	RDS_EXPECT(rds_recv(r2, buf, sizeof(buf), 0, NULL, NULL, 2000) == 1);
	RDS_EXPECT_ERRNO(recv(r1, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	close(r1);
	close(r2);
	close(s);
}

/* connect() does not filter what a socket receives. */
RDS_TEST(connected_socket_receives_from_anyone)
{
	struct rds_addr ra, other, from;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int o = rds_bound("127.0.0.2", 0, &other);
	struct rds_addr elsewhere = rds_addr4("127.0.0.3", 5005);
	char buf[8];

	RDS_EXPECT_OK(connect(r, &elsewhere.sa, elsewhere.len));
	rds_send(o, &ra, "abc", 3, 0);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, &from, NULL, 2000) == 3);
	RDS_EXPECT(rds_addr_eq(&from, &other));
	close(r);
	close(o);
}

RDS_TEST(connected_but_unbound_send_enotconn)
{
	struct rds_addr to = rds_addr4("127.0.0.1", 5006);
	int fd = rds_socket();

	RDS_EXPECT_OK(connect(fd, &to.sa, to.len));
	RDS_EXPECT_ERRNO(send(fd, "x", 1, 0), ENOTCONN);
	close(fd);
}

RDS_TEST_MAIN()
