// SPDX-License-Identifier: GPL-2.0
/*
 * Socket lifetime: closing sockets with messages queued or in flight,
 * killing blocked senders, and (when our core exports them) object
 * counts returning to their baseline.
 */
#include <sys/stat.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"

static int port_in_recv_list(int fd, uint16_t port)
{
	struct rds6_info_message *m;
	int nr, each, i, found = 0;

	m = rds_info(fd, RDS6_INFO_RECV_MESSAGES, &nr, &each);
	for (i = 0; i < nr; i++)
		found |= m[i].lport == htons(port);
	free(m);
	return found;
}

RDS_TEST(close_receiver_with_queued_messages)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, NULL), i;
	char buf[1000] = { 0 };
	uint64_t drops;

	for (i = 0; i < 50; i++)
		rds_send(s, &ra, buf, sizeof(buf), 0);
	for (i = 0; i < 200 && !port_in_recv_list(s, rds_addr_port(&ra)); i++)
		rds_sleep_ms(10);
	RDS_EXPECT(port_in_recv_list(s, rds_addr_port(&ra)));
	close(r);
	RDS_EXPECT(!port_in_recv_list(s, rds_addr_port(&ra)));
	/* The port is gone: further messages are dropped and counted. */
	drops = rds_counter("recv_drop_no_sock");
	rds_send(s, &ra, buf, 10, 0);
	for (i = 0; i < 200 && rds_counter("recv_drop_no_sock") == drops; i++)
		rds_sleep_ms(10);
	RDS_EXPECT(rds_counter("recv_drop_no_sock") == drops + 1);
	close(s);
}

RDS_TEST(close_both_ends_mid_stream)
{
	int round, i;
	static char buf[65536];

	for (round = 0; round < 40; round++) {
		struct rds_addr ra;
		const char *ip = round % 2 ? "::1" : "127.0.0.1";
		int r = rds_bound(ip, 0, &ra);
		int s = rds_bound(ip, 0, NULL);

		for (i = 0; i < 16; i++)
			sendto(s, buf, 1 + (size_t)i * 4096, MSG_DONTWAIT,
			       &ra.sa, ra.len);
		if (round % 3 == 0) {
			close(r);
			close(s);
		} else {
			close(s);
			close(r);
		}
	}
}

RDS_TEST(process_exit_with_sockets_open)
{
	int round, st;

	for (round = 0; round < 10; round++) {
		pid_t pid = fork();

		if (pid == 0) {
			struct rds_addr a[6];
			int fd[6], i, j;

			for (i = 0; i < 6; i++)
				fd[i] = rds_bound(i % 2 ? "::1" : "127.0.0.1",
						  0, &a[i]);
			for (j = 0; j < 30; j++)
				for (i = 0; i < 6; i++)
					sendto(fd[i], "x", 1 + j * 37,
					       MSG_DONTWAIT, &a[(i + 2) % 6].sa,
					       a[(i + 2) % 6].len);
			_exit(0);
		}
		RDS_EXPECT(waitpid(pid, &st, 0) == pid);
		RDS_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
}

/* A sender blocked on a congested port can be killed. */
RDS_TEST(kill_blocked_sender)
{
	struct rds_addr ra, a = rds_addr4("127.0.0.1", 0);
	int r = rds_socket(), s, st, i;
	static char buf[4096];
	pid_t pid;

	/* TCP-transport receiver: congestion is accounted upstream too. */
	rds_set_int(r, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP);
	rds_set_int(r, SOL_SOCKET, SO_RCVBUF, 16384);
	RDS_EXPECT_OK(bind(r, &a.sa, a.len));
	ra.len = sizeof(ra.ss);
	RDS_EXPECT_OK(getsockname(r, &ra.sa, &ra.len));
	s = rds_bound("127.0.0.1", 0, NULL);
	rds_send(s, &ra, "up", 2, 0);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 5000) == 2);
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < 1000; i++)
			rds_send(s, &ra, buf, sizeof(buf), 0);
		_exit(3);	/* never blocked: caught below */
	}
	rds_sleep_ms(1000);
	RDS_EXPECT(waitpid(pid, &st, WNOHANG) == 0);
	RDS_EXPECT_OK(kill(pid, SIGKILL));
	RDS_EXPECT(waitpid(pid, &st, 0) == pid);
	RDS_EXPECT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	close(s);
	close(r);
}

RDS_TEST(info_sockets_back_to_baseline)
{
	int probe = rds_socket(), nr0, nr1, each, i, fds[64];
	void *v;

	v = rds_info(probe, RDS6_INFO_SOCKETS, &nr0, &each);
	free(v);
	for (i = 0; i < 64; i++)
		fds[i] = rds_bound(i % 2 ? "::1" : "127.0.0.1", 0, NULL);
	v = rds_info(probe, RDS6_INFO_SOCKETS, &nr1, &each);
	free(v);
	RDS_EXPECT(nr1 == nr0 + 64);
	for (i = 0; i < 64; i++)
		close(fds[i]);
	v = rds_info(probe, RDS6_INFO_SOCKETS, &nr1, &each);
	free(v);
	RDS_EXPECT(nr1 == nr0);
	close(probe);
}

/*
 * Object counts: our core is to export them (suggested path below, one
 * "name value" pair per line).  Until it does, this test skips.
 */
static const char *const obj_paths[] = {
	"/sys/kernel/debug/rds/objects",
	"/proc/net/rds_objects",
};

static int read_objects(const char *path, char names[][64],
			unsigned long long *vals, int max)
{
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fscanf(f, "%63s %llu", names[n], &vals[n]) == 2)
		n++;
	fclose(f);
	return n;
}

RDS_TEST(object_counts_back_to_baseline)
{
	static char n0[64][64], n1[64][64];
	unsigned long long v0[64], v1[64];
	const char *path = NULL;
	int c0, c1, i, tries;
	unsigned int k;

	for (k = 0; k < sizeof(obj_paths) / sizeof(obj_paths[0]); k++)
		if (!access(obj_paths[k], R_OK))
			path = obj_paths[k];
	if (!path)
		rds_test_skip("no object counters exported (%s or %s)",
			      obj_paths[0], obj_paths[1]);
	/* Sockets are freed after an RCU grace period: let earlier tests'
	 * frees land before taking the baseline.
	 */
	for (tries = 0; tries < 100; tries++) {
		int same = 1;

		c0 = read_objects(path, n0, v0, 64);
		rds_sleep_ms(50);
		c1 = read_objects(path, n1, v1, 64);
		for (i = 0; i < c0 && i < c1; i++)
			same &= v0[i] == v1[i];
		if (same && c0 == c1)
			break;
	}
	RDS_EXPECT(c0 > 0);
	{
		struct rds_addr ra;
		int r = rds_bound("127.0.0.1", 0, &ra);
		int s = rds_bound("127.0.0.1", 0, NULL);
		char buf[100] = { 0 };

		for (i = 0; i < 20; i++)
			rds_send(s, &ra, buf, sizeof(buf), 0);
		close(r);
		close(s);
	}
	for (tries = 0; tries < 100; tries++) {
		int same = 1;

		c1 = read_objects(path, n1, v1, 64);
		RDS_EXPECT(c1 == c0);
		for (i = 0; i < c0; i++)
			same &= !strcmp(n0[i], n1[i]) && v0[i] == v1[i];
		if (same)
			return;
		rds_sleep_ms(20);
	}
	for (i = 0; i < c0; i++)
		if (v0[i] != v1[i])
			printf("# %s: %llu before, %llu after\n", n0[i], v0[i],
			       v1[i]);
	RDS_FAIL("object counts did not return to baseline");
}

RDS_TEST_MAIN()
