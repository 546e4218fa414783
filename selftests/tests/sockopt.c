// SPDX-License-Identifier: GPL-2.0
/*
 * SOL_RDS socket options and the TOS ioctls: accepted values, option
 * lengths, ordering rules (SO_RDS_TRANSPORT before bind), and errnos.
 */
#include <sys/ioctl.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"

#ifndef SO_TIMESTAMP_OLD
#define SO_TIMESTAMP_OLD 29
#endif

static int get_int(int fd, int level, int name, socklen_t *len)
{
	int v = 0x5a5a5a5a;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, level, name, &v, &l))
		RDS_FAIL("getsockopt(%d, %d): %s", level, name,
			 strerror(errno));
	if (len)
		*len = l;
	return v;
}

RDS_TEST(transport_none_when_unbound)
{
	int fd = rds_socket();
	socklen_t l;
	char small[3];

	RDS_EXPECT(get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, &l) ==
		   (int)RDS_TRANS_NONE);
	RDS_EXPECT(l == sizeof(int));
	l = sizeof(small);
	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, small, &l),
			 EINVAL);
	close(fd);
}

RDS_TEST(transport_after_bind_is_the_bound_one)
{
	int f4 = rds_bound("127.0.0.1", 0, NULL);
	int f6 = rds_bound("::1", 0, NULL);

	/* Loopback addresses are served by the loopback transport. */
	RDS_EXPECT(get_int(f4, SOL_RDS, SO_RDS_TRANSPORT, NULL) ==
		   RDS_TRANS_LOOP);
	RDS_EXPECT(get_int(f6, SOL_RDS, SO_RDS_TRANSPORT, NULL) ==
		   RDS_TRANS_LOOP);
	/* Too late to choose. */
	RDS_EXPECT_ERRNO(setsockopt(f4, SOL_RDS, SO_RDS_TRANSPORT,
				    &(int){ RDS_TRANS_TCP }, sizeof(int)),
			 EOPNOTSUPP);
	/* ... whatever the argument. */
	RDS_EXPECT_ERRNO(setsockopt(f4, SOL_RDS, SO_RDS_TRANSPORT,
				    &(int){ 77 }, 2), EOPNOTSUPP);
	close(f4);
	close(f6);
}

RDS_TEST(transport_set_once_before_bind)
{
	struct rds_addr a = rds_addr4("127.0.0.1", 0);
	int fd = rds_socket();

	rds_set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP);
	RDS_EXPECT(get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, NULL) ==
		   RDS_TRANS_TCP);
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT,
				    &(int){ RDS_TRANS_TCP }, sizeof(int)),
			 EOPNOTSUPP);
	/* The chosen transport serves 127.0.0.1 and stays chosen. */
	RDS_EXPECT_OK(bind(fd, &a.sa, a.len));
	RDS_EXPECT(get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, NULL) ==
		   RDS_TRANS_TCP);
	close(fd);
}

RDS_TEST(transport_bad_value_or_optlen_einval)
{
	int fd = rds_socket();
	int bad[] = { -1, -2, RDS_TRANS_COUNT, 3, 100, 0x7fffffff };
	unsigned int i;
	long long big = RDS_TRANS_TCP;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT,
					    &bad[i], sizeof(int)), EINVAL);
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &big, 2),
			 EINVAL);
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &big,
				    sizeof(big)), EINVAL);
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &big, 0),
			 EINVAL);
	/* Still unset. */
	RDS_EXPECT(get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, NULL) ==
		   (int)RDS_TRANS_NONE);
	close(fd);
}

RDS_TEST(transport_then_unserved_address_enoprotoopt)
{
	struct rds_addr a = rds_addr4("192.0.2.1", 0);
	int fd = rds_socket();

	rds_set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP);
	RDS_EXPECT_ERRNO(bind(fd, &a.sa, a.len), ENOPROTOOPT);
	close(fd);
}

/* Choosing TCP loads rds_tcp when it is not loaded yet. */
RDS_TEST(transport_autoloads_module)
{
	int fd;

	/* Linux 7.2 waits up to 5 s per lane of every RDS/TCP connection
	 * for the peer's FIN when rds_tcp unloads: with what the suite
	 * leaves, rmmod blocks for many minutes (upstream-behaviour.rst).
	 */
	if (rds_is_intree() && rds_kernel_major() >= 7)
		rds_test_skip("in-tree RDS of Linux 7.x: rmmod rds_tcp waits 5 s per lane");
	if (rds_module_loaded("rds_tcp") && system("rmmod rds_tcp 2>/dev/null"))
		rds_test_skip("rds_tcp is loaded and busy");
	if (rds_module_loaded("rds_tcp"))
		rds_test_skip("rds_tcp could not be unloaded");
	fd = rds_socket();
	rds_set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP);
	RDS_EXPECT(rds_module_loaded("rds_tcp"));
	RDS_EXPECT(get_int(fd, SOL_RDS, SO_RDS_TRANSPORT, NULL) ==
		   RDS_TRANS_TCP);
	close(fd);
}

RDS_TEST(recverr_bool)
{
	int fd = rds_socket();
	socklen_t l;
	short s = 1;

	RDS_EXPECT(get_int(fd, SOL_RDS, RDS_RECVERR, &l) == 0);
	RDS_EXPECT(l == sizeof(int));
	rds_set_int(fd, SOL_RDS, RDS_RECVERR, 1);
	RDS_EXPECT(get_int(fd, SOL_RDS, RDS_RECVERR, NULL) == 1);
	rds_set_int(fd, SOL_RDS, RDS_RECVERR, 42);
	RDS_EXPECT(get_int(fd, SOL_RDS, RDS_RECVERR, NULL) == 1);
	rds_set_int(fd, SOL_RDS, RDS_RECVERR, 0);
	RDS_EXPECT(get_int(fd, SOL_RDS, RDS_RECVERR, NULL) == 0);
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, RDS_RECVERR, &s, sizeof(s)),
			 EINVAL);
	l = 2;
	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, RDS_RECVERR, &s, &l), EINVAL);
	close(fd);
}

RDS_TEST(cong_monitor_set_only)
{
	int fd = rds_socket(), v;
	socklen_t l = sizeof(v);
	short s = 1;

	rds_set_int(fd, SOL_RDS, RDS_CONG_MONITOR, 1);
	rds_set_int(fd, SOL_RDS, RDS_CONG_MONITOR, 0);
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &s,
				    sizeof(s)), EINVAL);
	/* Not readable back. */
	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &v, &l),
			 ENOPROTOOPT);
	close(fd);
}

RDS_TEST(cancel_sent_to)
{
	struct rds_addr a4 = rds_addr4("127.0.0.2", 7001);
	struct rds_addr a6 = rds_addr6("::1", 7001, 0);
	int un = rds_socket();
	int f4 = rds_bound("127.0.0.1", 0, NULL);
	int f6 = rds_bound("::1", 0, NULL);

	RDS_EXPECT_ERRNO(setsockopt(un, SOL_RDS, RDS_CANCEL_SENT_TO, &a4.in,
				    sizeof(a4.in)), ENOTCONN);
	RDS_EXPECT_ERRNO(setsockopt(f4, SOL_RDS, RDS_CANCEL_SENT_TO, &a4.in,
				    sizeof(a4.in) - 1), EINVAL);
	RDS_EXPECT_ERRNO(setsockopt(f4, SOL_RDS, RDS_CANCEL_SENT_TO, &a4.in,
				    0), EINVAL);
	RDS_EXPECT_OK(setsockopt(f4, SOL_RDS, RDS_CANCEL_SENT_TO, &a4.in,
				 sizeof(a4.in)));
	RDS_EXPECT_OK(setsockopt(f6, SOL_RDS, RDS_CANCEL_SENT_TO, &a6.in6,
				 sizeof(a6.in6)));
	/* Cancelling toward a peer with nothing queued changes nothing. */
	rds_send(f4, &a4, "x", 1, 0);
	RDS_EXPECT_OK(setsockopt(f4, SOL_RDS, RDS_CANCEL_SENT_TO, &a4.in,
				 sizeof(a4.in)));
	close(un);
	close(f4);
	close(f6);
}

RDS_TEST(so_timestamp_at_sol_rds_optlen)
{
	int fd = rds_socket(), v = 1;
	long long big = 1;
	socklen_t l = sizeof(v);

	RDS_EXPECT_OK(setsockopt(fd, SOL_RDS, SO_TIMESTAMP_OLD, &v,
				 sizeof(v)));
	/* Upstream insists on an int and says EFAULT otherwise. */
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, SO_TIMESTAMP_OLD, &big,
				    sizeof(big)), EFAULT);
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, SO_TIMESTAMP_OLD, &v, 2),
			 EFAULT);
	/* The flag is the socket's: SOL_SOCKET reads it back. */
	RDS_EXPECT(get_int(fd, SOL_SOCKET, SO_TIMESTAMP_OLD, NULL) == 1);
	/* Not readable at SOL_RDS. */
	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, SO_TIMESTAMP_OLD, &v, &l),
			 ENOPROTOOPT);
	close(fd);
}

RDS_TEST(rxpath_latency_validation)
{
	int fd = rds_socket();
	struct rds_rx_trace_so so = { .rx_traces = 3,
				      .rx_trace_pos = { 0, 1, 2 } };
	char big[8] = { 0 };

	RDS_EXPECT(sizeof(so) == 4);
	RDS_EXPECT_OK(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &so,
				 sizeof(so)));
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY,
				    &so, sizeof(so) - 1), EFAULT);
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY,
				    big, sizeof(big)), EFAULT);
	so.rx_traces = RDS_MSG_RX_DGRAM_TRACE_MAX + 1;
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY,
				    &so, sizeof(so)), EFAULT);
	so.rx_traces = 2;
	so.rx_trace_pos[1] = RDS_MSG_RX_DGRAM_TRACE_MAX;
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY,
				    &so, sizeof(so)), EFAULT);
	so.rx_traces = 0;
	RDS_EXPECT_OK(setsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &so,
				 sizeof(so)));
	close(fd);
}

RDS_TEST(unknown_options_enoprotoopt)
{
	int fd = rds_socket(), v = 1;
	/* 9 and 11 are UEK's (uek_abi.sh), served by ours only. */
	int names[] = { 0, 4, 99, 1000, 9999, RDS_INFO_FIRST, 12, 20 };
	socklen_t l;
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, names[i], &v,
					    sizeof(v)), ENOPROTOOPT);
	for (i = 0; i < 5; i++) {
		l = sizeof(v);
		RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, names[i], &v, &l),
				 ENOPROTOOPT);
	}
	l = sizeof(v);
	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &v, &l),
			 ENOPROTOOPT);
	l = sizeof(v);
	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY,
				    &v, &l), ENOPROTOOPT);
	/* Levels other than SOL_RDS and SOL_SOCKET. */
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_IP, IP_TOS, &v, sizeof(v)),
			 ENOPROTOOPT);
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_IPV6, RDS_RECVERR, &v, sizeof(v)),
			 ENOPROTOOPT);
	l = sizeof(v);
	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_IP, IP_TOS, &v, &l), ENOPROTOOPT);
	l = sizeof(v);
	RDS_EXPECT_ERRNO(getsockopt(fd, 6 /* SOL_TCP */, RDS_RECVERR, &v, &l),
			 ENOPROTOOPT);
	close(fd);
}

RDS_TEST(sol_socket_options_work)
{
	int fd = rds_socket();

	rds_set_int(fd, SOL_SOCKET, SO_RCVBUF, 65536);
	RDS_EXPECT(get_int(fd, SOL_SOCKET, SO_RCVBUF, NULL) == 131072);
	rds_set_int(fd, SOL_SOCKET, SO_SNDBUF, 65536);
	RDS_EXPECT(get_int(fd, SOL_SOCKET, SO_SNDBUF, NULL) == 131072);
	RDS_EXPECT(get_int(fd, SOL_SOCKET, SO_TYPE, NULL) == SOCK_SEQPACKET);
	RDS_EXPECT(get_int(fd, SOL_SOCKET, SO_DOMAIN, NULL) == AF_RDS);
	RDS_EXPECT(get_int(fd, SOL_SOCKET, SO_PROTOCOL, NULL) == 0);
	close(fd);
}

/* The TOS ioctls: an unbound socket has no transport to map the TOS. */
RDS_TEST(tos_unbound)
{
	int fd = rds_socket();
	rds_tos_t tos = 0xff;
	char pad[64] = { 5 };

	RDS_EXPECT_OK(ioctl(fd, SIOCRDSGETTOS, &tos));
	RDS_EXPECT(tos == 0);
	RDS_EXPECT_ERRNO(ioctl(fd, SIOCRDSSETTOS, pad), ENOTTY);
	close(fd);
}

RDS_TEST(unknown_ioctl_enotty)
{
	int fd = rds_socket();
	char pad[64] = { 0 };

	RDS_EXPECT_ERRNO(ioctl(fd, SIOCPROTOPRIVATE + 2, pad), ENOTTY);
	RDS_EXPECT_ERRNO(ioctl(fd, 0x12345678, pad), ENOTTY);
	close(fd);
}

/* Better than upstream: the TOS ioctls work on loopback sockets. */
RDS_TEST(tos_on_loopback)
{
	int fd = rds_bound("127.0.0.1", 0, NULL), fd2;
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	rds_tos_t tos = 5, got = 0;
	char pad[64] = { 0 };

	if (rds_is_intree()) {
		/* Upstream's loop transport has no TOS map. */
		pad[0] = 5;
		RDS_EXPECT_ERRNO(ioctl(fd, SIOCRDSSETTOS, pad), ENOTTY);
		rds_test_skip("in-tree RDS lacks this: upstream behaviour "
			      "differs (SIOCRDSSETTOS on loopback is ENOTTY)");
	}
	RDS_EXPECT_OK(ioctl(fd, SIOCRDSSETTOS, &tos));
	RDS_EXPECT_OK(ioctl(fd, SIOCRDSGETTOS, &got));
	RDS_EXPECT(got == 5);
	/* Set once. */
	tos = 6;
	RDS_EXPECT_ERRNO(ioctl(fd, SIOCRDSSETTOS, &tos), EINVAL);
	/* Messages still flow, and the connection carries the TOS. */
	rds_send(fd, &ra, "t", 1, 0);
	RDS_EXPECT(rds_recv(r, pad, sizeof(pad), 0, NULL, NULL, 2000) == 1);
	/* Once a socket has sent, its TOS is fixed. */
	fd2 = rds_bound("127.0.0.1", 0, NULL);
	rds_send(fd2, &ra, "u", 1, 0);
	tos = 3;
	RDS_EXPECT_ERRNO(ioctl(fd2, SIOCRDSSETTOS, &tos), EINVAL);
	got = 9;
	RDS_EXPECT_OK(ioctl(fd2, SIOCRDSGETTOS, &got));
	RDS_EXPECT(got == 0);
	close(fd);
	close(fd2);
	close(r);
}

RDS_TEST_MAIN()
