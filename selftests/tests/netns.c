// SPDX-License-Identifier: GPL-2.0
/*
 * Network namespaces: RDS state is per namespace.  Sockets in a new
 * namespace work on their own loopback, see only their own sockets and
 * connections in RDS_INFO_*, bind addr:port pairs independently of other
 * namespaces (upstream's bind table is global: skipped on in-tree RDS),
 * and a namespace dies cleanly while sockets still hold data.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/rds_netns.h"

static void exchange(const char *ip)
{
	struct rds_addr ra, sa, from;
	int r = rds_bound(ip, 0, &ra);
	int s = rds_bound(ip, 0, &sa);
	char buf[16];

	rds_send(s, &ra, "netns", 5, 0);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, &from, NULL, 3000) == 5);
	RDS_EXPECT(!memcmp(buf, "netns", 5));
	RDS_EXPECT(rds_addr_eq(&from, &sa));
	close(r);
	close(s);
}

RDS_TEST(loopback_works_in_new_netns)
{
	rds_new_netns(NULL);
	exchange("127.0.0.1");
	exchange("127.0.0.2");
	exchange("::1");
}

static uint64_t inode_of(int fd)
{
	struct stat st;

	RDS_EXPECT_OK(fstat(fd, &st));
	return st.st_ino;
}

RDS_TEST(info_sockets_lists_only_own_netns)
{
	struct rds_info_socket *v;
	struct rds6_info_socket *v6;
	int outer, inner, nr, each, i;
	int seen = 0;

	RDS_SKIP_IF_INTREE_INFO_GLOBAL();
	outer = rds_bound("127.0.0.1", 0, NULL);
	rds_new_netns(NULL);
	inner = rds_bound("127.0.0.1", 0, NULL);
	v = rds_info(inner, RDS_INFO_SOCKETS, &nr, &each);
	RDS_EXPECT(nr == 1);
	RDS_EXPECT(v[0].inum == inode_of(inner));
	free(v);
	v6 = rds_info(inner, RDS6_INFO_SOCKETS, &nr, &each);
	RDS_EXPECT(nr == 1);
	RDS_EXPECT(v6[0].inum == inode_of(inner));
	free(v6);
	/* The outer socket still sees its own namespace, not this one. */
	v = rds_info(outer, RDS_INFO_SOCKETS, &nr, &each);
	for (i = 0; i < nr; i++) {
		RDS_EXPECT(v[i].inum != inode_of(inner));
		seen |= v[i].inum == inode_of(outer);
	}
	RDS_EXPECT(seen);
	free(v);
	close(inner);
	close(outer);
}

RDS_TEST(info_connections_only_own_netns)
{
	uint32_t a = inet_addr("127.0.0.77"), b = inet_addr("127.0.0.78");
	struct rds_info_connection *c;
	int outer, nr, each, i;
	struct rds_addr ra;
	int r, s, found = 0;
	char buf[8];

	RDS_SKIP_IF_INTREE_INFO_GLOBAL();
	outer = rds_socket();
	rds_new_netns(NULL);
	r = rds_bound("127.0.0.78", 0, &ra);
	s = rds_bound("127.0.0.77", 0, NULL);
	rds_send(s, &ra, "c", 1, 0);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 3000) == 1);
	c = rds_info(s, RDS_INFO_CONNECTIONS, &nr, &each);
	for (i = 0; i < nr; i++)
		found |= c[i].laddr == a && c[i].faddr == b;
	RDS_EXPECT(found);
	free(c);
	c = rds_info(outer, RDS_INFO_CONNECTIONS, &nr, &each);
	for (i = 0; i < nr; i++)
		RDS_EXPECT(!(c[i].laddr == a && c[i].faddr == b));
	free(c);
	close(r);
	close(s);
	close(outer);
}

/* A message sent in one namespace never reaches another's socket. */
RDS_TEST(no_delivery_across_netns)
{
	struct rds_addr ia;
	int inner, outer_s, p[2], st;
	char buf[8];
	pid_t pid;

	RDS_EXPECT_OK(pipe(p));
	pid = fork();
	if (pid == 0) {
		rds_new_netns(NULL);
		inner = rds_bound("127.0.0.1", 0, &ia);
		RDS_EXPECT(write(p[1], &ia, sizeof(ia)) == sizeof(ia));
		/* Nothing arrives from the outer namespace. */
		RDS_EXPECT(!rds_wait_readable(inner, 1500));
		_exit(0);
	}
	close(p[1]);	/* EOF, not a hang, if the child fails early */
	RDS_EXPECT(read(p[0], &ia, sizeof(ia)) == sizeof(ia));
	outer_s = rds_bound("127.0.0.1", 0, NULL);
	/* The port is unbound here: the message is dropped here. */
	RDS_EXPECT(sendto(outer_s, "leak", 4, 0, &ia.sa, ia.len) == 4);
	RDS_EXPECT(waitpid(pid, &st, 0) == pid);
	RDS_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	RDS_EXPECT_ERRNO(recv(outer_s, buf, sizeof(buf), MSG_DONTWAIT),
			 EAGAIN);
	close(outer_s);
}

RDS_TEST(binds_do_not_clash_across_netns)
{
	struct rds_addr oa, ia, from;
	int outer, inner, s;
	char buf[8];

	RDS_SKIP_IF_INTREE("one bind table for all namespaces");
	outer = rds_bound("127.0.0.1", 0, &oa);
	rds_new_netns(NULL);
	inner = rds_socket();
	ia = oa;
	RDS_EXPECT_OK(bind(inner, &ia.sa, ia.len));
	s = rds_bound("127.0.0.1", 0, NULL);
	rds_send(s, &ia, "in", 2, 0);
	RDS_EXPECT(rds_recv(inner, buf, sizeof(buf), 0, &from, NULL, 3000) ==
		   2);
	RDS_EXPECT(!rds_wait_readable(outer, 300));
	/* And inside, the pair is taken as usual. */
	RDS_EXPECT_ERRNO(bind(rds_socket(), &ia.sa, ia.len), EADDRINUSE);
	close(inner);
	close(outer);
	close(s);
}

RDS_TEST(transport_choice_in_netns)
{
	int fd;

	rds_new_netns(NULL);
	fd = rds_socket();
	/* RDMA transports serve the initial namespace only. */
	RDS_EXPECT_ERRNO(setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT,
				    &(int){ RDS_TRANS_IB }, sizeof(int)),
			 EPROTOTYPE);
	rds_set_int(fd, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP);
	close(fd);
}

/* Fill a namespace with sockets holding data, then let it die. */
static void busy_netns_then_exit(int keep_fd_pipe)
{
	struct rds_addr a[8];
	int fds[8], i, j;
	char buf[2048] = { 1 };

	rds_new_netns(NULL);
	for (i = 0; i < 8; i++) {
		fds[i] = rds_socket();
		if (i == 0)
			rds_set_int(fds[i], SOL_RDS, SO_RDS_TRANSPORT,
				    RDS_TRANS_TCP);
		a[i] = rds_addr(i % 2 ? "::1" : "127.0.0.1", 0);
		RDS_EXPECT_OK(bind(fds[i], &a[i].sa, a[i].len));
		a[i].len = sizeof(a[i].ss);
		RDS_EXPECT_OK(getsockname(fds[i], &a[i].sa, &a[i].len));
	}
	for (j = 0; j < 20; j++)
		for (i = 0; i < 8; i++) {
			int to = (i + 2) % 8;	/* same family */

			sendto(fds[i], buf, 1 + j * 100, MSG_DONTWAIT,
			       &a[to].sa, a[to].len);
		}
	/* Pings and drops too. */
	for (i = 0; i < 8; i++) {
		struct rds_addr z = a[i];

		rds_addr_set_port(&z, 0);
		sendto(fds[i], "p", 1, MSG_DONTWAIT, &z.sa, z.len);
	}
	if (keep_fd_pipe >= 0) {
		/* Hand a socket to the parent: it outlives the process. */
		struct msghdr m = { 0 };
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec iov = { "f", 1 };
		struct cmsghdr *c;

		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fds[2], sizeof(int));
		RDS_EXPECT(sendmsg(keep_fd_pipe, &m, 0) == 1);
	}
	_exit(0);	/* no close(): the exit tears it all down */
}

RDS_TEST(netns_dies_with_live_sockets)
{
	int round, st;
	pid_t pid;

	for (round = 0; round < 5; round++) {
		pid = fork();
		if (pid == 0)
			busy_netns_then_exit(-1);
		RDS_EXPECT(waitpid(pid, &st, 0) == pid);
		RDS_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	rds_sleep_ms(1000);	/* namespace cleanup runs asynchronously */
	exchange("127.0.0.1");	/* and RDS still works here */
}

RDS_TEST(netns_socket_outlives_its_creator)
{
	int sv[2], st, fd;
	char cbuf[CMSG_SPACE(sizeof(int))], c;
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct rds_addr me;
	char buf[8];
	pid_t pid;

	RDS_EXPECT_OK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv));
	pid = fork();
	if (pid == 0)
		busy_netns_then_exit(sv[1]);
	close(sv[1]);	/* EOF, not a hang, if the child fails early */
	RDS_EXPECT(recvmsg(sv[0], &m, 0) == 1);
	RDS_EXPECT(waitpid(pid, &st, 0) == pid);
	RDS_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	/* The socket (in the otherwise dead namespace) still works. */
	me.len = sizeof(me.ss);
	RDS_EXPECT_OK(getsockname(fd, &me.sa, &me.len));
	rds_send(fd, &me, "alive", 5, 0);
	while (rds_recv(fd, buf, sizeof(buf), 0, NULL, NULL, 3000) != 5)
		;
	close(fd);	/* the namespace goes with it */
	rds_sleep_ms(1000);
	exchange("::1");
}

RDS_TEST_MAIN()
