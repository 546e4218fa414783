// SPDX-License-Identifier: GPL-2.0
/*
 * bind(): address families, the addresses RDS refuses, ports (explicit,
 * ephemeral, taken) and the address lengths it checks.  Errnos are those
 * of Linux's in-tree RDS.
 */
#include <ifaddrs.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"

/* bind() on a fresh socket must fail with @err. */
static void bind_fails(struct rds_addr a, int err)
{
	int fd = rds_socket();

	errno = 0;
	if (bind(fd, &a.sa, a.len) != -1)
		RDS_FAIL("bind(%s) succeeded, expected errno %d (%s)",
			 rds_addr_str(&a), err, strerror(err));
	if (errno != err)
		RDS_FAIL("bind(%s): errno %d (%s), expected %d (%s)",
			 rds_addr_str(&a), errno, strerror(errno), err,
			 strerror(err));
	close(fd);
}

static void check_bound(const char *ip, uint16_t port, int family,
			socklen_t len)
{
	struct rds_addr want = rds_addr(ip, port), got;
	int fd = rds_bound(ip, port, &got);

	RDS_EXPECT(got.len == len);
	RDS_EXPECT(got.sa.sa_family == family);
	if (!rds_addr_eq(&got, &want))
		RDS_FAIL("getsockname gave %s, bound %s", rds_addr_str(&got),
			 rds_addr_str(&want));
	close(fd);
}

RDS_TEST(ipv4_loopback)
{
	check_bound("127.0.0.1", 4001, AF_INET, sizeof(struct sockaddr_in));
}

RDS_TEST(ipv4_second_loopback_address)
{
	/* Any 127/8 address is served by the loopback transport. */
	check_bound("127.0.0.2", 4001, AF_INET, sizeof(struct sockaddr_in));
}

RDS_TEST(ipv6_loopback)
{
	check_bound("::1", 4001, AF_INET6, sizeof(struct sockaddr_in6));
}

RDS_TEST(ipv4_mapped_binds_as_ipv4)
{
	struct rds_addr a = rds_addr6("::ffff:127.0.0.1", 4002, 0), got;
	struct rds_addr want = rds_addr4("127.0.0.1", 4002);
	struct rds_addr v4 = rds_addr4("127.0.0.1", 4002);
	int fd = rds_socket(), fd2 = rds_socket();

	RDS_EXPECT_OK(bind(fd, &a.sa, a.len));
	got.len = sizeof(got.ss);
	RDS_EXPECT_OK(getsockname(fd, &got.sa, &got.len));
	/* A v4-mapped binding is reported as plain IPv4. */
	RDS_EXPECT(got.len == sizeof(struct sockaddr_in));
	RDS_EXPECT(rds_addr_eq(&got, &want));
	/* ... and it is the same endpoint as 127.0.0.1:4002. */
	RDS_EXPECT_ERRNO(bind(fd2, &v4.sa, v4.len), EADDRINUSE);
	close(fd);
	/* Released on close. */
	RDS_EXPECT_OK(bind(fd2, &v4.sa, v4.len));
	close(fd2);
}

RDS_TEST(port0_picks_an_ephemeral_port)
{
	struct rds_addr a, b, c;
	int fa = rds_bound("127.0.0.1", 0, &a);
	int fb = rds_bound("127.0.0.1", 0, &b);
	int fc = rds_bound("::1", 0, &c);

	/* Never 0, never 1 (reserved for the handshake probe). */
	RDS_EXPECT(rds_addr_port(&a) > 1);
	RDS_EXPECT(rds_addr_port(&b) > 1);
	RDS_EXPECT(rds_addr_port(&c) > 1);
	RDS_EXPECT(rds_addr_port(&a) != rds_addr_port(&b));
	close(fa);
	close(fb);
	close(fc);
}

RDS_TEST(port1_is_reserved_einval)
{
	bind_fails(rds_addr4("127.0.0.1", 1), EINVAL);
	bind_fails(rds_addr6("::1", 1, 0), EINVAL);
}

RDS_TEST(any_broadcast_multicast_einval)
{
	bind_fails(rds_addr4("0.0.0.0", 4003), EINVAL);
	bind_fails(rds_addr4("255.255.255.255", 4003), EINVAL);
	bind_fails(rds_addr4("224.0.0.1", 4003), EINVAL);
	bind_fails(rds_addr4("239.1.2.3", 4003), EINVAL);
	bind_fails(rds_addr6("::", 4003, 0), EINVAL);
	bind_fails(rds_addr6("ff02::1", 4003, 0), EINVAL);
	bind_fails(rds_addr6("ff0e::1", 4003, 0), EINVAL);
	bind_fails(rds_addr6("::ffff:0.0.0.0", 4003, 0), EINVAL);
	bind_fails(rds_addr6("::ffff:255.255.255.255", 4003, 0), EINVAL);
	bind_fails(rds_addr6("::ffff:224.0.0.1", 4003, 0), EINVAL);
}

RDS_TEST(second_bind_einval)
{
	struct rds_addr other = rds_addr4("127.0.0.2", 4004);
	struct rds_addr same = rds_addr4("127.0.0.1", 4004);
	struct rds_addr v6 = rds_addr6("::1", 4004, 0);
	struct rds_addr got;
	int fd = rds_bound("127.0.0.1", 4004, NULL);

	RDS_EXPECT_ERRNO(bind(fd, &same.sa, same.len), EINVAL);
	RDS_EXPECT_ERRNO(bind(fd, &other.sa, other.len), EINVAL);
	RDS_EXPECT_ERRNO(bind(fd, &v6.sa, v6.len), EINVAL);
	/* Still bound where it was. */
	got.len = sizeof(got.ss);
	RDS_EXPECT_OK(getsockname(fd, &got.sa, &got.len));
	RDS_EXPECT(rds_addr_eq(&got, &same));
	close(fd);
}

RDS_TEST(address_no_transport_serves_eaddrnotavail)
{
	/* Documentation ranges: never local here. */
	bind_fails(rds_addr4("192.0.2.1", 4005), EADDRNOTAVAIL);
	bind_fails(rds_addr4("198.51.100.7", 0), EADDRNOTAVAIL);
	bind_fails(rds_addr6("2001:db8::1", 4005, 0), EADDRNOTAVAIL);
	bind_fails(rds_addr6("::ffff:192.0.2.1", 4005, 0), EADDRNOTAVAIL);
}

RDS_TEST(taken_addr_port_eaddrinuse)
{
	int a = rds_bound("127.0.0.1", 4006, NULL);
	int b = rds_bound("::1", 4006, NULL);
	/* Same port on another address is a different endpoint. */
	int c = rds_bound("127.0.0.2", 4006, NULL);
	int d = rds_socket();
	struct rds_addr v4 = rds_addr4("127.0.0.1", 4006);
	struct rds_addr v6 = rds_addr6("::1", 4006, 0);
	struct rds_addr ok = rds_addr4("127.0.0.1", 4007);

	RDS_EXPECT_ERRNO(bind(d, &v4.sa, v4.len), EADDRINUSE);
	RDS_EXPECT_ERRNO(bind(d, &v6.sa, v6.len), EADDRINUSE);
	/* A failed bind leaves the socket unbound: it may bind again. */
	RDS_EXPECT_OK(bind(d, &ok.sa, ok.len));
	close(a);
	close(b);
	close(c);
	close(d);
}

RDS_TEST(port_free_again_after_close)
{
	int i;

	for (i = 0; i < 20; i++)
		close(rds_bound("127.0.0.1", 4008, NULL));
}

RDS_TEST(short_addrlen_or_wrong_family_einval)
{
	struct rds_addr v4 = rds_addr4("127.0.0.1", 4009);
	struct rds_addr v6 = rds_addr6("::1", 4009, 0);
	struct rds_addr un = v4;
	int fd = rds_socket();

	RDS_EXPECT_ERRNO(bind(fd, &v4.sa, 0), EINVAL);
	RDS_EXPECT_ERRNO(bind(fd, &v4.sa, 1), EINVAL);
	RDS_EXPECT_ERRNO(bind(fd, &v4.sa, sizeof(struct sockaddr_in) - 1),
			 EINVAL);
	RDS_EXPECT_ERRNO(bind(fd, &v4.sa, 8), EINVAL);
	RDS_EXPECT_ERRNO(bind(fd, &v6.sa, sizeof(struct sockaddr_in)),
			 EINVAL);
	RDS_EXPECT_ERRNO(bind(fd, &v6.sa, sizeof(struct sockaddr_in6) - 1),
			 EINVAL);
	un.sa.sa_family = AF_UNIX;
	RDS_EXPECT_ERRNO(bind(fd, &un.sa, un.len), EINVAL);
	un.sa.sa_family = AF_UNSPEC;
	RDS_EXPECT_ERRNO(bind(fd, &un.sa, un.len), EINVAL);
	un.sa.sa_family = AF_RDS;
	RDS_EXPECT_ERRNO(bind(fd, &un.sa, un.len), EINVAL);
	/* Nothing stuck: a good bind still works. */
	RDS_EXPECT_OK(bind(fd, &v4.sa, v4.len));
	close(fd);
}

RDS_TEST(longer_addrlen_is_accepted)
{
	struct rds_addr v4 = rds_addr4("127.0.0.1", 4010);
	int fd = rds_socket();

	RDS_EXPECT_OK(bind(fd, &v4.sa, sizeof(struct sockaddr_storage)));
	close(fd);
}

RDS_TEST(link_local_needs_scope_id)
{
	bind_fails(rds_addr6("fe80::1", 4011, 0), EINVAL);
	/* A scope id that names no interface: nothing serves it. */
	bind_fails(rds_addr6("fe80::1", 4011, 99999), EADDRNOTAVAIL);
}

/* eth0's own link-local address (with its ifindex as scope) binds. */
RDS_TEST(link_local_with_scope_id_binds)
{
	struct ifaddrs *ifa, *it;
	struct rds_addr a, got;
	int fd, found = 0, i;
	unsigned int idx = if_nametoindex("eth0");

	if (!idx)
		rds_test_skip("no eth0 in this machine");
	RDS_EXPECT_OK(getifaddrs(&ifa));
	for (it = ifa; it; it = it->ifa_next) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)it->ifa_addr;

		if (!s || s->sin6_family != AF_INET6 ||
		    strcmp(it->ifa_name, "eth0") ||
		    !IN6_IS_ADDR_LINKLOCAL(&s->sin6_addr))
			continue;
		memset(&a, 0, sizeof(a));
		a.in6 = *s;
		a.in6.sin6_port = htons(4012);
		a.in6.sin6_scope_id = idx;
		a.len = sizeof(a.in6);
		found = 1;
	}
	freeifaddrs(ifa);
	if (!found)
		rds_test_skip("eth0 has no link-local address");
	fd = rds_socket();
	/* Early after boot the address may still be tentative (DAD). */
	for (i = 0; bind(fd, &a.sa, a.len); i++) {
		if (errno != EADDRNOTAVAIL || i == 50)
			RDS_FAIL("bind(%s): %s", rds_addr_str(&a),
				 strerror(errno));
		rds_sleep_ms(100);
	}
	got.len = sizeof(got.ss);
	RDS_EXPECT_OK(getsockname(fd, &got.sa, &got.len));
	RDS_EXPECT(got.len == sizeof(struct sockaddr_in6));
	RDS_EXPECT(rds_addr_eq(&got, &a));
	RDS_EXPECT(got.in6.sin6_scope_id == idx);
	close(fd);
}

RDS_TEST(bind_after_connect)
{
	struct rds_addr peer = rds_addr4("127.0.0.2", 4013);
	struct rds_addr me = rds_addr4("127.0.0.1", 4014), got;
	int fd = rds_socket();

	RDS_EXPECT_OK(connect(fd, &peer.sa, peer.len));
	RDS_EXPECT_OK(bind(fd, &me.sa, me.len));
	got.len = sizeof(got.ss);
	RDS_EXPECT_OK(getsockname(fd, &got.sa, &got.len));
	RDS_EXPECT(rds_addr_eq(&got, &me));
	close(fd);
}

RDS_TEST(many_binds_distinct_ports)
{
	int fds[200], i;

	for (i = 0; i < 200; i++)
		fds[i] = rds_bound("127.0.0.1", 0, NULL);
	for (i = 0; i < 200; i++)
		close(fds[i]);
}

RDS_TEST_MAIN()
