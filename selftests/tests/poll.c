// SPDX-License-Identifier: GPL-2.0
/*
 * poll(): POLLOUT while the send buffer has room, POLLIN for queued data
 * (zero-length messages included), and wakeups of a sleeping poller.
 * Congestion-driven wakeups are in cong.c.
 */
#include "../lib/rds_test.h"
#include "../lib/rds_util.h"

static short poll1(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r = poll(&p, 1, ms);

	if (r < 0)
		RDS_FAIL("poll: %s", strerror(errno));
	return r ? p.revents : 0;
}

/*
 * Upstream reports POLLIN|POLLWRBAND once to a socket that has not polled
 * since the last congestion map change anywhere; a second poll is quiet.
 */
static short settled(int fd)
{
	poll1(fd, POLLIN | POLLOUT | POLLWRBAND, 0);
	return poll1(fd, POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM |
		     POLLWRBAND | POLLPRI, 0);
}

RDS_TEST(fresh_socket_is_writable_not_readable)
{
	int fd = rds_bound("127.0.0.1", 0, NULL), un = rds_socket();
	short ev = settled(fd);

	RDS_EXPECT(ev == (POLLOUT | POLLWRNORM));
	RDS_EXPECT(settled(un) == (POLLOUT | POLLWRNORM));
	close(fd);
	close(un);
}

RDS_TEST(pollin_with_data_until_read)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, NULL);
	char buf[8];

	settled(r);
	rds_send(s, &ra, "p", 1, 0);
	RDS_EXPECT(poll1(r, POLLIN, 2000) & POLLIN);
	RDS_EXPECT((poll1(r, POLLIN | POLLRDNORM | POLLOUT, 0) &
		    (POLLIN | POLLRDNORM | POLLOUT)) ==
		   (POLLIN | POLLRDNORM | POLLOUT));
	/* MSG_PEEK leaves it readable. */
	RDS_EXPECT(recv(r, buf, sizeof(buf), MSG_PEEK) == 1);
	RDS_EXPECT(poll1(r, POLLIN, 0) & POLLIN);
	RDS_EXPECT(recv(r, buf, sizeof(buf), 0) == 1);
	RDS_EXPECT(!(settled(r) & POLLIN));
	close(r);
	close(s);
}

RDS_TEST(pollin_for_zero_length_message)
{
	struct rds_addr ra;
	int r = rds_bound("::1", 0, &ra);
	int s = rds_bound("::1", 0, NULL);
	char buf[8];

	settled(r);
	RDS_EXPECT(sendto(s, NULL, 0, 0, &ra.sa, ra.len) == 0);
	RDS_EXPECT(poll1(r, POLLIN, 2000) & POLLIN);
	RDS_EXPECT(recv(r, buf, sizeof(buf), 0) == 0);
	RDS_EXPECT(!(settled(r) & POLLIN));
	close(r);
	close(s);
}

RDS_TEST(sleeping_poller_wakes_on_arrival)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, NULL);
	long long t0;
	short ev;
	pid_t pid;

	settled(r);
	pid = fork();
	if (pid == 0) {
		rds_sleep_ms(300);
		rds_send(s, &ra, "wake", 4, 0);
		_exit(0);
	}
	t0 = rds_now_ms();
	for (;;) {
		ev = poll1(r, POLLIN, 10000);
		RDS_EXPECT(ev & POLLIN);
		/* A congestion-map change may wake us once with nothing. */
		if (recv(r, NULL, 0, MSG_PEEK | MSG_DONTWAIT) == 0)
			break;
		RDS_EXPECT(rds_now_ms() - t0 < 9000);
	}
	RDS_EXPECT(rds_now_ms() - t0 >= 200);
	RDS_EXPECT(rds_now_ms() - t0 < 9000);
	waitpid(pid, NULL, 0);
	close(r);
	close(s);
}

RDS_TEST(no_pollerr_or_pollhup)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	short ev;

	rds_send(r, &ra, "self", 4, 0);
	RDS_EXPECT(rds_wait_readable(r, 2000));
	ev = poll1(r, POLLIN | POLLOUT, 0);
	RDS_EXPECT(!(ev & (POLLERR | POLLHUP | POLLNVAL)));
	close(r);
}

RDS_TEST(pollout_after_bulk_sends)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, NULL);
	char buf[4096] = { 0 };
	int i;

	rds_set_int(r, SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20);
	for (i = 0; i < 256; i++)
		rds_send(s, &ra, buf, sizeof(buf), 0);
	/* The receiver holds the data; the sender's buffer drains. */
	RDS_EXPECT(poll1(s, POLLOUT, 5000) & POLLOUT);
	for (i = 0; i < 256; i++)
		RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL,
				    2000) == sizeof(buf));
	close(r);
	close(s);
}

RDS_TEST_MAIN()
