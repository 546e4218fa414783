// SPDX-License-Identifier: GPL-2.0
/*
 * recvmsg(): empty queues, timeouts, MSG_PEEK, truncation, MSG_ERRQUEUE,
 * the source address, and the receive-side cmsgs (SO_TIMESTAMP set at
 * SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY).
 */
#include "../lib/rds_test.h"
#include "../lib/rds_util.h"

#ifndef SO_TIMESTAMP_OLD
#define SO_TIMESTAMP_OLD 29
#endif
#ifndef SO_TIMESTAMP_NEW
#define SO_TIMESTAMP_NEW 63
#endif

/* A connected pair on @ip: r receives, s sends to it. */
struct pair {
	int r, s;
	struct rds_addr ra, sa;
};

static struct pair mkpair(const char *ip)
{
	struct pair p;

	p.r = rds_bound(ip, 0, &p.ra);
	p.s = rds_bound(ip, 0, &p.sa);
	return p;
}

RDS_TEST(empty_nonblocking_eagain)
{
	struct pair p = mkpair("127.0.0.1");
	char buf[8];

	RDS_EXPECT_ERRNO(recv(p.r, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	rds_set_nonblock(p.r);
	RDS_EXPECT_ERRNO(recv(p.r, buf, sizeof(buf), 0), EAGAIN);
	RDS_EXPECT_ERRNO(read(p.r, buf, sizeof(buf)), EAGAIN);
	/* An unbound socket too. */
	RDS_EXPECT_ERRNO(recv(rds_socket(), buf, sizeof(buf), MSG_DONTWAIT),
			 EAGAIN);
}

RDS_TEST(rcvtimeo_expires_etimedout)
{
	struct pair p = mkpair("127.0.0.1");
	struct timeval tv = { 0, 200000 };
	long long t0;
	char buf[8];

	RDS_EXPECT_OK(setsockopt(p.r, SOL_SOCKET, SO_RCVTIMEO, &tv,
				 sizeof(tv)));
	t0 = rds_now_ms();
	RDS_EXPECT_ERRNO(recv(p.r, buf, sizeof(buf), 0), ETIMEDOUT);
	RDS_EXPECT(rds_now_ms() - t0 >= 150);
}

RDS_TEST(blocking_recv_waits_for_a_message)
{
	struct pair p = mkpair("127.0.0.1");
	char buf[8];
	pid_t pid = fork();

	if (pid == 0) {
		rds_sleep_ms(300);
		rds_send(p.s, &p.ra, "late", 4, 0);
		_exit(0);
	}
	RDS_EXPECT(recv(p.r, buf, sizeof(buf), 0) == 4);
	RDS_EXPECT(!memcmp(buf, "late", 4));
	waitpid(pid, NULL, 0);
}

static void source_address(const char *ip, socklen_t want_len)
{
	struct pair p = mkpair(ip);
	struct rds_addr from;
	char buf[8];
	int fl;

	rds_send(p.s, &p.ra, "src", 3, 0);
	RDS_EXPECT(rds_recv(p.r, buf, sizeof(buf), 0, &from, &fl, 2000) == 3);
	RDS_EXPECT(from.len == want_len);
	if (!rds_addr_eq(&from, &p.sa))
		RDS_FAIL("source %s, expected %s", rds_addr_str(&from),
			 rds_addr_str(&p.sa));
	if (from.sa.sa_family == AF_INET6)
		RDS_EXPECT(from.in6.sin6_scope_id == 0 &&
			   from.in6.sin6_flowinfo == 0);
	RDS_EXPECT(fl == 0);
}

RDS_TEST(source_address_ipv4)
{
	source_address("127.0.0.1", sizeof(struct sockaddr_in));
}

RDS_TEST(source_address_ipv6)
{
	source_address("::1", sizeof(struct sockaddr_in6));
}

RDS_TEST(source_address_other_local_address)
{
	struct rds_addr ra, sa, from;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.2", 0, &sa);
	char buf[8];

	rds_send(s, &ra, "x", 1, 0);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, &from, NULL, 2000) == 1);
	RDS_EXPECT(rds_addr_eq(&from, &sa));
}

RDS_TEST(no_name_buffer_is_fine)
{
	struct pair p = mkpair("127.0.0.1");
	char buf[8];

	rds_send(p.s, &p.ra, "n", 1, 0);
	RDS_EXPECT(rds_wait_readable(p.r, 2000));
	RDS_EXPECT(recv(p.r, buf, sizeof(buf), 0) == 1);
}

RDS_TEST(msg_peek_leaves_the_message)
{
	struct pair p = mkpair("127.0.0.1");
	struct rds_addr from;
	char buf[16];

	rds_send(p.s, &p.ra, "first", 5, 0);
	rds_send(p.s, &p.ra, "second", 6, 0);
	RDS_EXPECT(rds_recv(p.r, buf, sizeof(buf), MSG_PEEK, &from, NULL,
			    2000) == 5);
	RDS_EXPECT(!memcmp(buf, "first", 5));
	RDS_EXPECT(rds_addr_eq(&from, &p.sa));
	memset(buf, 0, sizeof(buf));
	RDS_EXPECT(recv(p.r, buf, sizeof(buf), MSG_PEEK) == 5);
	RDS_EXPECT(!memcmp(buf, "first", 5));
	RDS_EXPECT(recv(p.r, buf, sizeof(buf), 0) == 5);
	RDS_EXPECT(!memcmp(buf, "first", 5));
	RDS_EXPECT(rds_recv(p.r, buf, sizeof(buf), 0, NULL, NULL, 2000) == 6);
	RDS_EXPECT(!memcmp(buf, "second", 6));
	RDS_EXPECT_ERRNO(recv(p.r, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
}

RDS_TEST(truncation_sets_msg_trunc_and_drops_the_rest)
{
	struct pair p = mkpair("127.0.0.1");
	char msg[100], buf[100];
	int fl;

	rds_fill(msg, sizeof(msg), 3);
	rds_send(p.s, &p.ra, msg, 100, 0);
	rds_send(p.s, &p.ra, "next", 4, 0);
	RDS_EXPECT(rds_recv(p.r, buf, 10, 0, NULL, &fl, 2000) == 10);
	RDS_EXPECT(fl & MSG_TRUNC);
	RDS_EXPECT(!memcmp(buf, msg, 10));
	/* The rest of the truncated message is gone. */
	RDS_EXPECT(rds_recv(p.r, buf, sizeof(buf), 0, NULL, &fl, 2000) == 4);
	RDS_EXPECT(!(fl & MSG_TRUNC));
	RDS_EXPECT(!memcmp(buf, "next", 4));
}

RDS_TEST(msg_trunc_flag_returns_full_length)
{
	struct pair p = mkpair("127.0.0.1");
	char msg[300], buf[300];
	int fl;

	rds_fill(msg, sizeof(msg), 4);
	rds_send(p.s, &p.ra, msg, 300, 0);
	memset(buf, 0, sizeof(buf));
	RDS_EXPECT(rds_recv(p.r, buf, 20, MSG_TRUNC, NULL, &fl, 2000) == 300);
	RDS_EXPECT(fl & MSG_TRUNC);
	RDS_EXPECT(!memcmp(buf, msg, 20));
	RDS_EXPECT(buf[20] == 0);	/* only 20 bytes were copied */
	/* Untruncated with MSG_TRUNC: the length, no flag. */
	rds_send(p.s, &p.ra, msg, 30, 0);
	RDS_EXPECT(rds_recv(p.r, buf, 100, MSG_TRUNC, NULL, &fl, 2000) == 30);
	RDS_EXPECT(!(fl & MSG_TRUNC));
}

RDS_TEST(peek_truncated_keeps_whole_message)
{
	struct pair p = mkpair("127.0.0.1");
	char msg[64], buf[64];
	int fl;

	rds_fill(msg, sizeof(msg), 5);
	rds_send(p.s, &p.ra, msg, 64, 0);
	RDS_EXPECT(rds_recv(p.r, buf, 8, MSG_PEEK, NULL, &fl, 2000) == 8);
	RDS_EXPECT(fl & MSG_TRUNC);
	RDS_EXPECT(rds_recv(p.r, buf, 64, 0, NULL, &fl, 2000) == 64);
	RDS_EXPECT(!(fl & MSG_TRUNC));
	RDS_EXPECT(!memcmp(buf, msg, 64));
}

RDS_TEST(zero_length_buffer)
{
	struct pair p = mkpair("127.0.0.1");
	char buf[8];
	int fl;

	rds_send(p.s, &p.ra, "abc", 3, 0);
	RDS_EXPECT(rds_recv(p.r, buf, 0, 0, NULL, &fl, 2000) == 0);
	RDS_EXPECT(fl & MSG_TRUNC);
	RDS_EXPECT_ERRNO(recv(p.r, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
}

RDS_TEST(msg_errqueue_empty_eagain)
{
	struct pair p = mkpair("127.0.0.1");
	char buf[8];

	rds_send(p.s, &p.ra, "data", 4, 0);
	RDS_EXPECT(rds_wait_readable(p.r, 2000));
	/* The error queue is separate from the data queue. */
	RDS_EXPECT_ERRNO(recv(p.r, buf, sizeof(buf), MSG_ERRQUEUE), EAGAIN);
	RDS_EXPECT_ERRNO(recv(p.s, buf, sizeof(buf),
			      MSG_ERRQUEUE | MSG_DONTWAIT), EAGAIN);
	RDS_EXPECT(recv(p.r, buf, sizeof(buf), 0) == 4);
}

/* MSG_OOB: upstream returns 0 at once without touching the queue. */
RDS_TEST(msg_oob_returns_zero)
{
	struct pair p = mkpair("127.0.0.1");
	char buf[8];

	rds_send(p.s, &p.ra, "data", 4, 0);
	RDS_EXPECT(rds_wait_readable(p.r, 2000));
	RDS_EXPECT(recv(p.r, buf, sizeof(buf), MSG_OOB) == 0);
	RDS_EXPECT(recv(p.r, buf, sizeof(buf), 0) == 4);
}

RDS_TEST(order_preserved_one_sender)
{
	struct pair p = mkpair("::1");
	char buf[16];
	int i;

	for (i = 0; i < 200; i++) {
		snprintf(buf, sizeof(buf), "%d", i);
		rds_send(p.s, &p.ra, buf, strlen(buf) + 1, 0);
	}
	for (i = 0; i < 200; i++) {
		char want[16];

		snprintf(want, sizeof(want), "%d", i);
		RDS_EXPECT(rds_recv(p.r, buf, sizeof(buf), 0, NULL, NULL,
				    2000) == (ssize_t)strlen(want) + 1);
		if (strcmp(buf, want))
			RDS_FAIL("message %d arrived as %s", i, buf);
	}
}

static ssize_t recv_ctl(int fd, void *buf, size_t len, char *cbuf,
			size_t clen, struct msghdr *m, struct iovec *iov)
{
	memset(m, 0, sizeof(*m));
	iov->iov_base = buf;
	iov->iov_len = len;
	m->msg_iov = iov;
	m->msg_iovlen = 1;
	m->msg_control = cbuf;
	m->msg_controllen = clen;
	RDS_EXPECT(rds_wait_readable(fd, 2000));
	return recvmsg(fd, m, 0);
}

static void timestamp(int optname)
{
	struct pair p = mkpair("127.0.0.1");
	char cbuf[256], buf[8];
	struct msghdr m;
	struct iovec iov;
	struct cmsghdr *c;
	struct timeval now;
	long long sec;

	rds_set_int(p.r, SOL_RDS, optname, 1);
	rds_send(p.s, &p.ra, "ts", 2, 0);
	RDS_EXPECT(recv_ctl(p.r, buf, sizeof(buf), cbuf, sizeof(cbuf), &m,
			    &iov) == 2);
	gettimeofday(&now, NULL);
	/* Delivered at SOL_SOCKET, as for any other socket. */
	c = rds_find_cmsg(&m, SOL_SOCKET, optname);
	if (!c)
		RDS_FAIL("no SO_TIMESTAMP cmsg (controllen %zu)",
			 (size_t)m.msg_controllen);
	RDS_EXPECT(c->cmsg_len == CMSG_LEN(16));
	if (optname == SO_TIMESTAMP_OLD) {
		struct timeval tv;

		memcpy(&tv, CMSG_DATA(c), sizeof(tv));
		sec = tv.tv_sec;
		RDS_EXPECT(tv.tv_usec >= 0 && tv.tv_usec < 1000000);
	} else {
		long long v[2];

		memcpy(v, CMSG_DATA(c), sizeof(v));
		sec = v[0];
		RDS_EXPECT(v[1] >= 0 && v[1] < 1000000);
	}
	RDS_EXPECT(sec <= now.tv_sec && sec >= now.tv_sec - 5);

	/* Turned off: no more timestamps. */
	rds_set_int(p.r, SOL_RDS, optname, 0);
	rds_send(p.s, &p.ra, "no", 2, 0);
	RDS_EXPECT(recv_ctl(p.r, buf, sizeof(buf), cbuf, sizeof(cbuf), &m,
			    &iov) == 2);
	RDS_EXPECT(m.msg_controllen == 0);
}

RDS_TEST(so_timestamp_at_sol_rds)
{
	timestamp(SO_TIMESTAMP_OLD);
}

RDS_TEST(so_timestamp_new_at_sol_rds)
{
	timestamp(SO_TIMESTAMP_NEW);
}

RDS_TEST(no_cmsgs_by_default)
{
	struct pair p = mkpair("127.0.0.1");
	char cbuf[256], buf[8];
	struct msghdr m;
	struct iovec iov;

	rds_send(p.s, &p.ra, "x", 1, 0);
	RDS_EXPECT(recv_ctl(p.r, buf, sizeof(buf), cbuf, sizeof(cbuf), &m,
			    &iov) == 1);
	RDS_EXPECT(m.msg_controllen == 0);
	RDS_EXPECT(m.msg_flags == 0);
}

RDS_TEST(rxpath_latency_cmsg)
{
	struct pair p = mkpair("127.0.0.1");
	struct rds_rx_trace_so so = { .rx_traces = 2,
				      .rx_trace_pos = { 1, 0 } };
	struct rds_cmsg_rx_trace t;
	char cbuf[256], buf[8];
	struct msghdr m;
	struct iovec iov;
	struct cmsghdr *c;

	RDS_EXPECT_OK(setsockopt(p.r, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY,
				 &so, sizeof(so)));
	rds_send(p.s, &p.ra, "lat", 3, 0);
	RDS_EXPECT(recv_ctl(p.r, buf, sizeof(buf), cbuf, sizeof(cbuf), &m,
			    &iov) == 3);
	c = rds_find_cmsg(&m, SOL_RDS, RDS_CMSG_RXPATH_LATENCY);
	if (!c)
		RDS_FAIL("no RDS_CMSG_RXPATH_LATENCY cmsg");
	RDS_EXPECT(c->cmsg_len == CMSG_LEN(sizeof(t)));
	RDS_EXPECT(sizeof(t) == 32);
	memcpy(&t, CMSG_DATA(c), sizeof(t));
	RDS_EXPECT(t.rx_traces == 2);
	RDS_EXPECT(t.rx_trace_pos[0] == 1 && t.rx_trace_pos[1] == 0);
	/* Unselected slots are zero. */
	RDS_EXPECT(t.rx_trace_pos[2] == 0 && t.rx_trace[2] == 0);
}

RDS_TEST(ctrunc_when_control_buffer_too_small)
{
	struct pair p = mkpair("127.0.0.1");
	char cbuf[CMSG_SPACE(4)], buf[8];
	struct msghdr m;
	struct iovec iov;

	rds_set_int(p.r, SOL_RDS, SO_TIMESTAMP_OLD, 1);
	rds_send(p.s, &p.ra, "c", 1, 0);
	RDS_EXPECT(recv_ctl(p.r, buf, sizeof(buf), cbuf, sizeof(cbuf), &m,
			    &iov) == 1);
	RDS_EXPECT(m.msg_flags & MSG_CTRUNC);
}

RDS_TEST_MAIN()
