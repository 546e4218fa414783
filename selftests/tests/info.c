// SPDX-License-Identifier: GPL-2.0
/*
 * RDS_INFO_* getsockopts: the length-probe protocol (ENOSPC plus the
 * needed length; success returns the record size and sets optlen to the
 * bytes written), record sizes, record contents, counter names.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/stat.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/rds_netns.h"

static const struct {
	int opt;
	int size;
} sizes[] = {
	{ RDS_INFO_COUNTERS, 40 },
	{ RDS_INFO_CONNECTIONS, 42 },
	{ RDS_INFO_SEND_MESSAGES, 26 },
	{ RDS_INFO_RETRANS_MESSAGES, 26 },
	{ RDS_INFO_RECV_MESSAGES, 26 },
	{ RDS_INFO_SOCKETS, 28 },
	{ RDS6_INFO_CONNECTIONS, 65 },
	{ RDS6_INFO_SEND_MESSAGES, 50 },
	{ RDS6_INFO_RETRANS_MESSAGES, 50 },
	{ RDS6_INFO_RECV_MESSAGES, 50 },
	{ RDS6_INFO_SOCKETS, 52 },
};

RDS_TEST(record_sizes)
{
	int fd = rds_bound("127.0.0.1", 0, NULL), nr, each;
	unsigned int i;

	RDS_EXPECT(sizeof(struct rds_info_counter) == 40);
	RDS_EXPECT(sizeof(struct rds_info_connection) == 42);
	RDS_EXPECT(sizeof(struct rds6_info_connection) == 65);
	RDS_EXPECT(sizeof(struct rds_info_message) == 26);
	RDS_EXPECT(sizeof(struct rds6_info_message) == 50);
	RDS_EXPECT(sizeof(struct rds_info_socket) == 28);
	RDS_EXPECT(sizeof(struct rds6_info_socket) == 52);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		free(rds_info(fd, sizes[i].opt, &nr, &each));
		if (each != sizes[i].size)
			RDS_FAIL("RDS_INFO %d: record size %d, expected %d",
				 sizes[i].opt, each, sizes[i].size);
	}
	close(fd);
}

RDS_TEST(probe_enospc_then_exact_fit)
{
	int fd = rds_bound("127.0.0.1", 0, NULL), r;
	socklen_t len = 0, need;
	char *buf;

	/* The counters are never empty. */
	errno = 0;
	RDS_EXPECT(getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, NULL, &len) ==
		   -1);
	RDS_EXPECT(errno == ENOSPC);
	RDS_EXPECT(len > 0 && len % 40 == 0);
	need = len;
	buf = malloc(need + 100);

	/* One byte short: ENOSPC and the same length. */
	len = need - 1;
	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len),
			 ENOSPC);
	RDS_EXPECT(len == need);
	/* Exact fit: returns the record size; optlen is the bytes. */
	len = need;
	r = getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len);
	RDS_EXPECT(r == 40);
	RDS_EXPECT(len == need);
	/* Larger buffer: optlen shrinks to what was written. */
	len = need + 100;
	r = getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len);
	RDS_EXPECT(r == 40);
	RDS_EXPECT(len == need);
	free(buf);
	close(fd);
}

RDS_TEST(bad_lengths)
{
	int fd = rds_socket();
	socklen_t len = (socklen_t)-1;
	char buf[64];

	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len),
			 EINVAL);
	/* An unmapped buffer: Linux up to 6.x fails to pin it and says
	 * EAGAIN, as ours does; 7.2's in-tree RDS says EFAULT (its pages
	 * come from an iov_iter now; upstream-behaviour.rst).
	 */
	len = 16;
	errno = 0;
	RDS_EXPECT(getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, NULL, &len) < 0);
	if (errno == EFAULT && rds_is_intree())
		printf("# in-tree RDS: EFAULT for an unmapped buffer (Linux 7.2)\n");
	else
		RDS_EXPECT(errno == EAGAIN);
	close(fd);
}

RDS_TEST(unregistered_queries_enoprotoopt)
{
	int fd = rds_socket();
	socklen_t len;
	char buf[256];

	len = sizeof(buf);
	/* The retired flows query. */
	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, 10002, buf, &len),
			 ENOPROTOOPT);
	len = sizeof(buf);
	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, RDS_INFO_LAST + 1, buf, &len),
			 ENOPROTOOPT);
	len = 0;
	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, 10002, NULL, &len),
			 ENOPROTOOPT);
	close(fd);
}

/* In a fresh network namespace the lists start empty. */
RDS_TEST(empty_list_probe_succeeds)
{
	socklen_t len = 0;
	int fd, r;

	RDS_SKIP_IF_INTREE_INFO_GLOBAL();
	if (unshare(CLONE_NEWNET))
		rds_test_skip("unshare(CLONE_NEWNET): %s", strerror(errno));
	fd = rds_socket();
	r = getsockopt(fd, SOL_RDS, RDS_INFO_CONNECTIONS, NULL, &len);
	RDS_EXPECT(r == 42 && len == 0);
	len = 0;
	r = getsockopt(fd, SOL_RDS, RDS_INFO_SOCKETS, NULL, &len);
	RDS_EXPECT(r == 28 && len == 0);
	len = 0;
	r = getsockopt(fd, SOL_RDS, RDS6_INFO_RECV_MESSAGES, NULL, &len);
	RDS_EXPECT(r == 50 && len == 0);
	/* The unbound socket itself is an RDS6_INFO_SOCKETS entry. */
	len = 0;
	RDS_EXPECT_ERRNO(getsockopt(fd, SOL_RDS, RDS6_INFO_SOCKETS, NULL,
				    &len), ENOSPC);
	RDS_EXPECT(len == 52);
	close(fd);
}

RDS_TEST(counter_names_as_upstream)
{
	static const char *const names[] = {
		"conn_reset", "recv_drop_bad_checksum", "recv_drop_old_seq",
		"recv_drop_no_sock", "recv_drop_dead_sock",
		"recv_deliver_raced", "recv_delivered", "recv_queued",
		"recv_immediate_retry", "recv_delayed_retry",
		"recv_ack_required", "recv_rdma_bytes", "recv_ping",
		"send_queue_empty", "send_queue_full", "send_lock_contention",
		"send_lock_queue_raced", "send_immediate_retry",
		"send_delayed_retry", "send_drop_acked", "send_ack_required",
		"send_queued", "send_rdma", "send_rdma_bytes", "send_pong",
		"page_remainder_hit", "page_remainder_miss", "copy_to_user",
		"copy_from_user", "cong_update_queued",
		"cong_update_received", "cong_send_error",
		"cong_send_blocked", "recv_bytes_added_to_sock",
		"recv_bytes_freed_fromsock", "send_stuck_rm",
	};
	int fd = rds_socket(), nr, each, i, j;
	struct rds_info_counter *c = rds_info(fd, RDS_INFO_COUNTERS, &nr,
					      &each);

	RDS_EXPECT(nr >= (int)(sizeof(names) / sizeof(names[0])));
	for (i = 0; i < nr; i++)
		if (memchr(c[i].name, 0, sizeof(c[i].name)) == NULL)
			RDS_FAIL("counter %d name not NUL-terminated", i);
	for (j = 0; j < (int)(sizeof(names) / sizeof(names[0])); j++) {
		for (i = 0; i < nr; i++)
			if (!strcmp((char *)c[i].name, names[j]))
				break;
		if (i == nr)
			RDS_FAIL("no counter %s", names[j]);
	}
	free(c);
	close(fd);
}

RDS_TEST(counters_move)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.1", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, NULL);
	uint64_t q0 = rds_counter("recv_queued");
	uint64_t d0 = rds_counter("recv_delivered");
	char buf[8];

	rds_send(s, &ra, "c", 1, 0);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 2000) == 1);
	RDS_EXPECT(rds_counter("recv_queued") - q0 == 1);
	RDS_EXPECT(rds_counter("recv_delivered") - d0 == 1);
	close(r);
	close(s);
}

/* Payload pages come from the kept ones once a message gave them back;
 * a payload small enough to sit in the message takes none.
 */
RDS_TEST(payload_pages_counted)
{
	uint64_t h0, m0, hits, misses;
	static char buf[8192];
	struct rds_addr ra;
	int r, s, i;

	RDS_SKIP_IF_INTREE("Linux counts its page remainder only for pieces "
			   "under a page");
	r = rds_bound("127.0.0.1", 0, &ra);
	s = rds_bound("127.0.0.1", 0, NULL);
	h0 = rds_counter("page_remainder_hit");
	m0 = rds_counter("page_remainder_miss");
	for (i = 0; i < 32; i++) {
		rds_send(s, &ra, buf, sizeof(buf), 0);
		RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 2000) ==
			   sizeof(buf));
	}
	hits = rds_counter("page_remainder_hit") - h0;
	misses = rds_counter("page_remainder_miss") - m0;
	/* Two pages a message; a message read frees its pages on this CPU
	 * for the next one (a migration between CPUs may miss a few).
	 */
	if (hits + misses != 64 || hits < 32)
		RDS_FAIL("8 KiB x 32: %llu kept, %llu new pages",
			 (unsigned long long)hits, (unsigned long long)misses);
	h0 += hits;
	m0 += misses;
	rds_send(s, &ra, "x", 1, 0);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 2000) == 1);
	RDS_EXPECT(rds_counter("page_remainder_hit") == h0);
	RDS_EXPECT(rds_counter("page_remainder_miss") == m0);
	close(r);
	close(s);
}

/* A kept page nobody takes goes back to the allocator within 10 to
 * 12 s (RDS_MSG_PAGES_IDLE, checked every 2 s): after 14 s idle the
 * next message's pages are new ones.
 */
RDS_TEST(payload_pages_given_back_when_idle)
{
	uint64_t h0, m0;
	static char buf[8192];
	struct rds_addr ra;
	int r, s, i;

	RDS_SKIP_IF_INTREE("Linux keeps no payload pages");
	r = rds_bound("127.0.0.1", 0, &ra);
	s = rds_bound("127.0.0.1", 0, NULL);
	for (i = 0; i < 32; i++) {
		rds_send(s, &ra, buf, sizeof(buf), 0);
		RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 2000) ==
			   sizeof(buf));
	}
	sleep(14);
	h0 = rds_counter("page_remainder_hit");
	m0 = rds_counter("page_remainder_miss");
	rds_send(s, &ra, buf, sizeof(buf), 0);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 2000) ==
		   sizeof(buf));
	if (rds_counter("page_remainder_hit") != h0 ||
	    rds_counter("page_remainder_miss") != m0 + 2)
		RDS_FAIL("after 14 s idle: %llu kept, %llu new pages",
			 (unsigned long long)(rds_counter("page_remainder_hit") - h0),
			 (unsigned long long)(rds_counter("page_remainder_miss") - m0));
	close(r);
	close(s);
}

static struct rds_info_socket *find_sock(struct rds_info_socket *v, int nr,
					 uint64_t inum)
{
	int i;

	for (i = 0; i < nr; i++)
		if (v[i].inum == inum)
			return &v[i];
	return NULL;
}

static struct rds6_info_socket *find_sock6(struct rds6_info_socket *v,
					   int nr, uint64_t inum)
{
	int i;

	for (i = 0; i < nr; i++)
		if (v[i].inum == inum)
			return &v[i];
	return NULL;
}

static uint64_t inode_of(int fd)
{
	struct stat st;

	RDS_EXPECT_OK(fstat(fd, &st));
	return st.st_ino;
}

RDS_TEST(sockets_record)
{
	struct rds_addr me, peer = rds_addr4("127.0.0.2", 7101);
	int fd = rds_socket(), un = rds_socket(), f6, nr, each;
	struct rds_info_socket *v, *e;
	struct rds6_info_socket *v6, *e6;
	struct rds_addr a6;
	struct in6_addr mapped;

	rds_set_int(fd, SOL_SOCKET, SO_SNDBUF, 32768);
	rds_set_int(fd, SOL_SOCKET, SO_RCVBUF, 49152);
	me = rds_addr4("127.0.0.1", 7100);
	RDS_EXPECT_OK(bind(fd, &me.sa, me.len));
	RDS_EXPECT_OK(connect(fd, &peer.sa, peer.len));
	f6 = rds_bound("::1", 0, &a6);

	v = rds_info(fd, RDS_INFO_SOCKETS, &nr, &each);
	e = find_sock(v, nr, inode_of(fd));
	if (!e)
		RDS_FAIL("socket not listed (%d records)", nr);
	/* Half of the kernel's (doubled) buffer sizes: what was set. */
	RDS_EXPECT(e->sndbuf == 32768);
	RDS_EXPECT(e->rcvbuf == 49152);
	RDS_EXPECT(e->bound_addr == me.in.sin_addr.s_addr);
	RDS_EXPECT(e->bound_port == htons(7100));
	RDS_EXPECT(e->connected_addr == peer.in.sin_addr.s_addr);
	RDS_EXPECT(e->connected_port == htons(7101));
	/* Unbound and IPv6 sockets are not in the IPv4 list. */
	RDS_EXPECT(!find_sock(v, nr, inode_of(un)));
	RDS_EXPECT(!find_sock(v, nr, inode_of(f6)));
	free(v);

	v6 = rds_info(fd, RDS6_INFO_SOCKETS, &nr, &each);
	e6 = find_sock6(v6, nr, inode_of(fd));
	if (!e6)
		RDS_FAIL("socket not in RDS6_INFO_SOCKETS");
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &mapped);
	RDS_EXPECT(!memcmp(&e6->bound_addr, &mapped, 16));
	inet_pton(AF_INET6, "::ffff:127.0.0.2", &mapped);
	RDS_EXPECT(!memcmp(&e6->connected_addr, &mapped, 16));
	RDS_EXPECT(e6->bound_port == htons(7100));
	RDS_EXPECT(e6->connected_port == htons(7101));
	RDS_EXPECT(e6->sndbuf == 32768 && e6->rcvbuf == 49152);
	e6 = find_sock6(v6, nr, inode_of(f6));
	if (!e6)
		RDS_FAIL("IPv6 socket not in RDS6_INFO_SOCKETS");
	RDS_EXPECT(!memcmp(&e6->bound_addr, &a6.in6.sin6_addr, 16));
	RDS_EXPECT(e6->bound_port == a6.in6.sin6_port);
	/* The unbound socket is listed, with the any address. */
	e6 = find_sock6(v6, nr, inode_of(un));
	if (!e6)
		RDS_FAIL("unbound socket not in RDS6_INFO_SOCKETS");
	{
		struct in6_addr b = e6->bound_addr;

		RDS_EXPECT(IN6_IS_ADDR_UNSPECIFIED(&b));
	}
	RDS_EXPECT(e6->bound_port == 0);
	free(v6);
	close(fd);
	close(un);
	close(f6);
}

RDS_TEST(recv_messages_record)
{
	struct rds_addr ra, sa;
	int r = rds_bound("127.0.0.2", 0, &ra);
	int s = rds_bound("127.0.0.1", 0, &sa);
	struct rds_info_message *m, *hit[2];
	struct rds6_info_message *m6, *hit6[2];
	struct in6_addr la, fa;
	int nr, each, i, n = 0, tries;
	char buf[32];

	rds_send(s, &ra, "0123456789", 10, 0);
	rds_send(s, &ra, "01234567890123456789", 20, 0);
	for (tries = 0; tries < 200; tries++) {	/* delivery may be async */
		m = rds_info(s, RDS_INFO_RECV_MESSAGES, &nr, &each);
		for (n = 0, i = 0; i < nr && n < 2; i++)
			if (m[i].lport == ra.in.sin_port)
				hit[n++] = &m[i];
		if (n == 2)
			break;
		free(m);
		rds_sleep_ms(10);
	}
	if (n != 2)
		RDS_FAIL("found %d queued messages, expected 2", n);
	RDS_EXPECT(each == 26);
	for (i = 0; i < 2; i++) {
		RDS_EXPECT(hit[i]->len == (uint32_t)(10 + 10 * i));
		/* laddr/lport: the receiving socket; faddr/fport: sender */
		RDS_EXPECT(hit[i]->laddr == ra.in.sin_addr.s_addr);
		RDS_EXPECT(hit[i]->faddr == sa.in.sin_addr.s_addr);
		RDS_EXPECT(hit[i]->fport == sa.in.sin_port);
		RDS_EXPECT(hit[i]->flags == 0);
		RDS_EXPECT(hit[i]->tos == 0);
	}
	RDS_EXPECT(hit[1]->seq > hit[0]->seq);
	free(m);

	m6 = rds_info(s, RDS6_INFO_RECV_MESSAGES, &nr, &each);
	RDS_EXPECT(each == 50);
	for (n = 0, i = 0; i < nr && n < 2; i++)
		if (m6[i].lport == ra.in.sin_port)
			hit6[n++] = &m6[i];
	RDS_EXPECT(n == 2);
	inet_pton(AF_INET6, "::ffff:127.0.0.2", &la);
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &fa);
	for (i = 0; i < 2; i++) {
		RDS_EXPECT(hit6[i]->len == (uint32_t)(10 + 10 * i));
		RDS_EXPECT(!memcmp(&hit6[i]->laddr, &la, 16));
		RDS_EXPECT(!memcmp(&hit6[i]->faddr, &fa, 16));
		RDS_EXPECT(hit6[i]->fport == sa.in.sin_port);
	}
	free(m6);

	/* Received messages leave the list. */
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 2000) == 10);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 2000) == 20);
	m = rds_info(s, RDS_INFO_RECV_MESSAGES, &nr, &each);
	for (i = 0; i < nr; i++)
		RDS_EXPECT(m[i].lport != ra.in.sin_port);
	free(m);
	close(r);
	close(s);
}

RDS_TEST(recv_messages_ipv6_only_in_rds6)
{
	struct rds_addr ra, sa;
	int r = rds_bound("::1", 0, &ra);
	int s = rds_bound("::1", 0, &sa);
	struct rds6_info_message *m6;
	struct rds_info_message *m;
	int nr, each, i, found = 0, tries;

	rds_send(s, &ra, "abc", 3, 0);
	for (tries = 0; tries < 200 && !found; tries++) {
		m6 = rds_info(s, RDS6_INFO_RECV_MESSAGES, &nr, &each);
		for (i = 0; i < nr; i++) {
			if (m6[i].lport != ra.in6.sin6_port)
				continue;
			found = 1;
			RDS_EXPECT(m6[i].len == 3);
			RDS_EXPECT(!memcmp(&m6[i].laddr, &ra.in6.sin6_addr, 16));
			RDS_EXPECT(!memcmp(&m6[i].faddr, &sa.in6.sin6_addr, 16));
			RDS_EXPECT(m6[i].fport == sa.in6.sin6_port);
		}
		free(m6);
		if (!found)
			rds_sleep_ms(10);
	}
	RDS_EXPECT(found);
	m = rds_info(s, RDS_INFO_RECV_MESSAGES, &nr, &each);
	for (i = 0; i < nr; i++)
		RDS_EXPECT(m[i].lport != ra.in6.sin6_port);
	free(m);
	close(r);
	close(s);
}

RDS_TEST(connections_record)
{
	struct rds_addr ra;
	int r = rds_bound("127.0.0.3", 0, &ra);
	int s = rds_bound("127.0.0.4", 0, NULL);
	int r6 = rds_bound("::1", 0, NULL), nr, each, i, tries;
	struct rds_info_connection *c, *hit = NULL;
	struct rds6_info_connection *c6;
	struct in6_addr l6, f6;
	uint32_t la = inet_addr("127.0.0.4"), fa = inet_addr("127.0.0.3");
	char buf[8];
	struct rds_addr me6;
	int found = 0;

	rds_send(s, &ra, "c", 1, 0);
	RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL, 2000) == 1);
	for (tries = 0; tries < 300; tries++) {
		c = rds_info(s, RDS_INFO_CONNECTIONS, &nr, &each);
		for (i = 0; i < nr; i++)
			if (c[i].laddr == la && c[i].faddr == fa)
				hit = &c[i];
		if (hit && (hit->flags & RDS_INFO_CONNECTION_FLAG_CONNECTED))
			break;
		free(c);
		hit = NULL;
		rds_sleep_ms(10);
	}
	if (!hit)
		RDS_FAIL("no connected 127.0.0.4 -> 127.0.0.3 connection");
	RDS_EXPECT(!strcmp((char *)hit->transport, "loopback"));
	RDS_EXPECT(hit->tos == 0);
	RDS_EXPECT(hit->next_tx_seq >= 2);
	free(c);

	/* RDS6_INFO_CONNECTIONS lists IPv4 connections too, mapped. */
	c6 = rds_info(s, RDS6_INFO_CONNECTIONS, &nr, &each);
	inet_pton(AF_INET6, "::ffff:127.0.0.4", &l6);
	inet_pton(AF_INET6, "::ffff:127.0.0.3", &f6);
	for (i = 0; i < nr; i++)
		if (!memcmp(&c6[i].laddr, &l6, 16) &&
		    !memcmp(&c6[i].faddr, &f6, 16))
			found = 1;
	RDS_EXPECT(found);
	free(c6);

	/* An IPv6 connection is only in the RDS6 list. */
	me6 = rds_addr6("::1", 0, 0);
	me6.len = sizeof(me6.ss);
	RDS_EXPECT_OK(getsockname(r6, &me6.sa, &me6.len));
	rds_send(r6, &me6, "6", 1, 0);
	RDS_EXPECT(rds_recv(r6, buf, sizeof(buf), 0, NULL, NULL, 2000) == 1);
	c6 = rds_info(s, RDS6_INFO_CONNECTIONS, &nr, &each);
	found = 0;
	for (i = 0; i < nr; i++) {
		struct in6_addr l = c6[i].laddr, f = c6[i].faddr;

		if (IN6_IS_ADDR_LOOPBACK(&l) && IN6_IS_ADDR_LOOPBACK(&f)) {
			found = 1;
			RDS_EXPECT(!strcmp((char *)c6[i].transport,
					   "loopback"));
		}
	}
	RDS_EXPECT(found);
	free(c6);
	c = rds_info(s, RDS_INFO_CONNECTIONS, &nr, &each);
	for (i = 0; i < nr; i++)
		RDS_EXPECT(c[i].laddr != 0 || c[i].faddr != 0);
	free(c);
	close(r);
	close(s);
	close(r6);
}

RDS_TEST(send_and_retrans_lists_readable)
{
	int fd = rds_bound("127.0.0.1", 0, NULL), nr, each;

	free(rds_info(fd, RDS_INFO_SEND_MESSAGES, &nr, &each));
	RDS_EXPECT(each == 26);
	free(rds_info(fd, RDS_INFO_RETRANS_MESSAGES, &nr, &each));
	RDS_EXPECT(each == 26);
	free(rds_info(fd, RDS6_INFO_SEND_MESSAGES, &nr, &each));
	RDS_EXPECT(each == 50);
	free(rds_info(fd, RDS6_INFO_RETRANS_MESSAGES, &nr, &each));
	RDS_EXPECT(each == 50);
	close(fd);
}

RDS_TEST_MAIN()
