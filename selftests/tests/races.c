// SPDX-License-Identifier: GPL-2.0
/*
 * Races (issue 9, "Hardening the core"): threads and processes hammering
 * one socket, or the bind table, or a namespace, from several sides at
 * once.  Each race runs a fixed number of iterations and asserts that
 * every call either succeeded or failed with an errno from a small
 * allowed set, that messages arrive exactly once (and in order where RDS
 * promises it: one sender socket to one receiver), and that the core's
 * object counts (/sys/kernel/debug/rds/objects) come back afterwards.
 *
 *	RDS_RACE_SCALE	multiplies every iteration count (default 1; the
 *			defaults keep the program under ~90 s on the TCG
 *			guest; use 10-50 on the debug kernel for a long run)
 *
 * The first two tests are the reproducers from the issue:
 *   linklocal_connect_keeps_bind_table: a socket bound to 127.0.0.1 (or
 *	::1) and connect()ed to fe80::1%1 rewrote the scope id in its own
 *	hashed bind key; after close the entry stayed in the table and later
 *	binds walked freed memory.  On main at 7bf7dbb: re-binding the
 *	closed socket's port fails with EADDRINUSE (the stale entry is
 *	still hashed), and getsockname shows the changed scope id.
 *   bind_eaddrinuse_vs_sendto: a failing bind() briefly wrote the taken
 *	address into the socket before undoing it; a concurrent sendto()
 *	saw a bound address with no transport and dereferenced NULL in
 *	rds_conn_create().  On main at 7bf7dbb: oops (guest exit 99).
 * (CVE-2015-6937 and CVE-2015-7990 are the same pattern upstream; cve.c
 * has their own tests.)  netns_exit_many_conns_no_global_stall (last) is
 * a bug found while writing these: it also fails on main.
 */
#define _GNU_SOURCE
#include <net/if.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/ioctl.h>

#include "../lib/rds_test.h"
#include "../lib/rds_util.h"
#include "../lib/rds_netns.h"
#include "../lib/rds_harden.h"

/* An errno outside @allowed (0-terminated) fails the test from any thread. */
static void allowed(const char *what, int err, const int *ok)
{
	for (; *ok; ok++)
		if (err == *ok)
			return;
	RDS_FAIL("%s: unexpected errno %d (%s)", what, err, strerror(err));
}

static int iters(int n)
{
	return n * rds_scale();
}

/* ---- (a) link-local connect() on a bound socket ---------------------- */

static int ll_scope_changed;

static void ll_connect_close(const char *bind_ip, uint16_t port,
			     uint32_t scope)
{
	struct rds_addr ll = rds_addr6("fe80::1", 4000, scope), got;
	int fd = rds_bound(bind_ip, port, NULL);

	/* Either outcome is fine; the bind table must not change. */
	(void)connect(fd, &ll.sa, ll.len);
	got.len = sizeof(got.ss);
	RDS_EXPECT_OK(getsockname(fd, &got.sa, &got.len));
	/* The key stays; checked at the end, after the churn below. */
	if (got.sa.sa_family == AF_INET6 && got.in6.sin6_scope_id != 0)
		ll_scope_changed = 1;
	RDS_EXPECT(rds_addr_port(&got) == port);
	/* A send after it must not reach a half-updated socket either. */
	(void)sendto(fd, "x", 1, MSG_DONTWAIT, NULL, 0);
	close(fd);
}

RDS_TEST(linklocal_connect_keeps_bind_table)
{
	uint32_t lo = if_nametoindex("lo");
	long long t0;
	int i, n = iters(3000), fd;

	RDS_SKIP_IF_INTREE("our bind table (issue 9)");
	rds_new_netns(NULL);
	lo = if_nametoindex("lo");
	if (!lo)
		lo = 1;
	ll_connect_close("127.0.0.1", 4100, 1);
	ll_connect_close("127.0.0.1", 4101, lo);
	ll_connect_close("::1", 4102, 1);
	ll_connect_close("::1", 4103, 7);
	/* The same ports bind again: the old entries are gone. */
	for (i = 0; i < 4; i++) {
		fd = rds_bound(i < 2 ? "127.0.0.1" : "::1", 4100 + i, NULL);
		close(fd);
	}
	/* ... and the table still works under churn, quickly. */
	t0 = rds_now_ms();
	for (i = 0; i < n; i++) {
		fd = rds_bound(i & 1 ? "::1" : "127.0.0.1",
			       i % 3 ? 0 : 4100 + (i & 3), NULL);
		close(fd);
	}
	if (rds_now_ms() - t0 > 60000)
		RDS_FAIL("%d bind/close took %lld ms", n, rds_now_ms() - t0);
	if (ll_scope_changed)
		RDS_FAIL("connect() changed the bound scope id");
}

/* connect() to link-local before bind(), then bind elsewhere: same rule. */
RDS_TEST(linklocal_connect_before_bind)
{
	struct rds_addr ll = rds_addr6("fe80::1", 4000, 1);
	struct rds_addr a = rds_addr4("127.0.0.1", 4110);
	int i, fd;

	RDS_SKIP_IF_INTREE("our bind table (issue 9)");
	rds_new_netns(NULL);
	for (i = 0; i < iters(200); i++) {
		fd = rds_socket();
		(void)connect(fd, &ll.sa, ll.len);
		if (bind(fd, &a.sa, a.len))
			allowed("bind after ll connect", errno,
				(int[]){ EINVAL, EOPNOTSUPP, 0 });
		close(fd);
	}
	fd = rds_bound("127.0.0.1", 4110, NULL);
	close(fd);
}


static pthread_t go(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, arg))
		RDS_FAIL("pthread_create");
	return t;
}

/* ---- (b) bind() failing with EADDRINUSE while sendto() runs ---------- */

struct bs {
	int fd;
	struct rds_addr taken, dest;
	atomic_int stop, finished;
	atomic_long sends, sent_ok;
};

static void *bs_sender(void *p)
{
	struct bs *b = p;

	while (!b->stop) {
		if (sendto(b->fd, "z", 1, MSG_DONTWAIT, &b->dest.sa,
			   b->dest.len) == 1) {
			b->sent_ok++;
		} else {
			allowed("sendto", errno,
				(int[]){ ENOTCONN, EAGAIN, ENOBUFS, 0 });
		}
		b->sends++;
	}
	b->finished = 1;	/* not killed by an oops on the way */
	return NULL;
}

RDS_TEST(bind_eaddrinuse_vs_sendto)
{
	struct rds_objs base = rds_objs_now();
	struct bs b;
	int holder, rcv, i, n = iters(20000);
	pthread_t t;

	memset(&b, 0, sizeof(b));
	holder = rds_bound("127.0.0.1", 0, &b.taken);
	rcv = rds_bound("127.0.0.1", 0, &b.dest);
	b.fd = rds_socket();
	t = go(bs_sender, &b);
	for (i = 0; i < n; i++) {
		if (!bind(b.fd, &b.taken.sa, b.taken.len))
			RDS_FAIL("bind to a taken address succeeded");
		allowed("bind", errno, (int[]){ EADDRINUSE, 0 });
	}
	b.stop = 1;
	pthread_join(t, NULL);
	RDS_EXPECT(b.finished);
	RDS_EXPECT(b.sends > 0);
	/* The socket never became bound: nothing went anywhere. */
	RDS_EXPECT(b.sent_ok == 0);
	RDS_EXPECT_ERRNO(recv(rcv, (char[4]){ 0 }, 4, MSG_DONTWAIT), EAGAIN);
	close(b.fd);
	close(holder);
	close(rcv);
	rds_objs_settle(&base, 3000);
}

/*
 * A bind() that succeeds while sends race it: each send fails ENOTCONN
 * (before) or is delivered exactly once (after).
 */
RDS_TEST(bind_success_vs_sendto)
{
	struct rds_addr src = rds_addr4("127.0.0.1", 0);
	struct rds_objs base = rds_objs_now();
	int rcv, i, round;
	pthread_t t;
	struct bs b;
	char buf[8];

	for (round = 0; round < iters(40); round++) {
		memset(&b, 0, sizeof(b));
		rcv = rds_bound("127.0.0.1", 0, &b.dest);
		b.fd = rds_socket();
		t = go(bs_sender, &b);
		rds_sleep_ms(round % 3);
		RDS_EXPECT_OK(bind(b.fd, &src.sa, src.len));
		rds_sleep_ms(3);
		b.stop = 1;
		pthread_join(t, NULL);
		for (i = 0; i < b.sent_ok; i++)
			RDS_EXPECT(rds_recv(rcv, buf, sizeof(buf), 0, NULL,
					    NULL, 3000) == 1);
		RDS_EXPECT_ERRNO(recv(rcv, buf, sizeof(buf), MSG_DONTWAIT),
				 EAGAIN);
		close(b.fd);
		close(rcv);
	}
	rds_objs_settle(&base, 3000);
}

/* ---- bind table -------------------------------------------------------- */

#define NB 8

struct sb {
	pthread_barrier_t bar;
	int fds[NB];
	struct rds_addr a;
	atomic_int wins;
	uint16_t ports[NB][64];
	int per;
};

static void *sb_bind_same(void *p)
{
	struct rds_thr_arg *ta = p;
	struct sb *s = ta->arg;

	pthread_barrier_wait(&s->bar);
	if (!bind(s->fds[ta->idx], &s->a.sa, s->a.len))
		s->wins++;
	else
		allowed("bind", errno, (int[]){ EADDRINUSE, 0 });
	return NULL;
}

RDS_TEST(concurrent_bind_same_port_one_wins)
{
	struct sb s;
	int round, i;

	/* Seen on Linux's 6.1 and 6.12 RDS (Documentation/upstream-behaviour.rst). */
	RDS_SKIP_IF_INTREE("two concurrent binds of one address:port sometimes both succeed in Linux's RDS");
	memset(&s, 0, sizeof(s));
	for (round = 0; round < iters(60); round++) {
		pthread_barrier_init(&s.bar, NULL, NB);
		s.wins = 0;
		s.a = rds_addr(round & 1 ? "::1" : "127.0.0.1",
			       (uint16_t)(4200 + round % 16));
		for (i = 0; i < NB; i++)
			s.fds[i] = rds_socket();
		rds_run_threads(NB, sb_bind_same, &s);
		if (s.wins != 1)
			RDS_FAIL("round %d: %d binds of %s succeeded", round,
				 (int)s.wins, rds_addr_str(&s.a));
		for (i = 0; i < NB; i++)
			close(s.fds[i]);
		pthread_barrier_destroy(&s.bar);
	}
}

static void *sb_bind_eph(void *p)
{
	struct rds_thr_arg *ta = p;
	struct sb *s = ta->arg;
	struct rds_addr got;
	int i;

	for (i = 0; i < s->per; i++) {
		int fd = rds_bound("127.0.0.1", 0, &got);

		s->ports[ta->idx][i] = rds_addr_port(&got);
		/* keep it: the ports must be distinct while held */
		(void)fd;
	}
	return NULL;
}

static int cmp_u16(const void *a, const void *b)
{
	return *(const uint16_t *)a - *(const uint16_t *)b;
}

RDS_TEST(concurrent_ephemeral_binds_distinct)
{
	struct sb *s = calloc(1, sizeof(*s));
	uint16_t all[NB * 64];
	int round, i, n;

	rds_new_netns(NULL);
	for (round = 0; round < iters(3); round++) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			s->per = 64;
			rds_run_threads(NB, sb_bind_eph, s);
			n = 0;
			for (i = 0; i < NB; i++) {
				memcpy(all + n, s->ports[i], 64 * 2);
				n += 64;
			}
			qsort(all, n, 2, cmp_u16);
			for (i = 0; i < n; i++) {
				if (all[i] < 2)
					RDS_FAIL("ephemeral port %u", all[i]);
				if (i && all[i] == all[i - 1])
					RDS_FAIL("port %u bound twice", all[i]);
			}
			_exit(0);
		}
		RDS_EXPECT(waitpid(pid, &st, 0) == pid);
		RDS_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	free(s);
}

/* SO_RDS_TRANSPORT racing bind(): the transport is the one chosen first. */
struct tb {
	int fd;
	pthread_barrier_t bar;
	int set_err, bind_err;
};

static void *tb_set(void *p)
{
	struct tb *t = p;
	int v = RDS_TRANS_TCP;

	pthread_barrier_wait(&t->bar);
	t->set_err = setsockopt(t->fd, SOL_RDS, SO_RDS_TRANSPORT, &v,
				sizeof(v)) ? errno : 0;
	return NULL;
}

RDS_TEST(transport_choice_vs_bind)
{
	struct rds_addr a = rds_addr4("127.0.0.1", 0), ra;
	int round, v, rcv;
	socklen_t l;
	struct tb t;
	pthread_t th;
	char buf[8];

	v = RDS_TRANS_TCP;
	t.fd = rds_socket();
	if (setsockopt(t.fd, SOL_RDS, SO_RDS_TRANSPORT, &v, sizeof(v)))
		rds_test_skip("no TCP transport: %s", strerror(errno));
	close(t.fd);
	rcv = rds_bound("127.0.0.1", 0, &ra);
	for (round = 0; round < iters(150); round++) {
		t.fd = rds_socket();
		pthread_barrier_init(&t.bar, NULL, 2);
		th = go(tb_set, &t);
		pthread_barrier_wait(&t.bar);
		t.bind_err = bind(t.fd, &a.sa, a.len) ? errno : 0;
		pthread_join(th, NULL);
		pthread_barrier_destroy(&t.bar);
		if (t.set_err)
			allowed("SO_RDS_TRANSPORT", t.set_err,
				(int[]){ EOPNOTSUPP, 0 });
		if (t.bind_err)
			RDS_FAIL("bind: %s", strerror(t.bind_err));
		l = sizeof(v);
		RDS_EXPECT_OK(getsockopt(t.fd, SOL_RDS, SO_RDS_TRANSPORT, &v,
					 &l));
		if (v != (t.set_err ? RDS_TRANS_LOOP : RDS_TRANS_TCP))
			RDS_FAIL("round %d: transport %d after set %s", round,
				 v, t.set_err ? "failed" : "succeeded");
		rds_send(t.fd, &ra, "t", 1, 0);
		RDS_EXPECT(rds_recv(rcv, buf, sizeof(buf), 0, NULL, NULL,
				    3000) == 1);
		close(t.fd);
	}
	close(rcv);
}

/* ---- traffic on shared sockets -------------------------------------- */

struct msg {
	uint32_t thr;
	uint32_t seq;
};

#define NT 4

struct tr {
	int s, r;
	struct rds_addr ra;
	int n;			/* messages per sending thread */
	atomic_int done_recv, stop;
	atomic_long total;
	uint32_t next[NT];	/* receiver side: next seq per thread */
	unsigned char *seen;
};

static void *tr_send(void *p)
{
	struct rds_thr_arg *ta = p;
	struct tr *t = ta->arg;
	struct msg m = { .thr = ta->idx };

	for (m.seq = 0; m.seq < (uint32_t)t->n; m.seq++)
		rds_send(t->s, &t->ra, &m, sizeof(m), 0);
	return NULL;
}

static void *tr_recv_ordered(void *p)
{
	struct tr *t = p;
	long want = (long)t->n * NT, got;
	struct msg m;

	for (got = 0; got < want; got++) {
		if (rds_recv(t->r, &m, sizeof(m), 0, NULL, NULL, 10000) !=
		    sizeof(m))
			RDS_FAIL("short message");
		if (m.thr >= NT)
			RDS_FAIL("bad sender %u", m.thr);
		if (m.seq != t->next[m.thr])
			RDS_FAIL("sender %u: seq %u, expected %u", m.thr,
				 m.seq, t->next[m.thr]);
		t->next[m.thr]++;
	}
	return NULL;
}

/* Four threads send on one socket; each thread's messages arrive once, in
 * its order (one socket, one connection: RDS keeps the order of calls).
 */
RDS_TEST(shared_sender_socket_exactly_once_in_order)
{
	struct rds_objs base = rds_objs_now();
	struct tr t;
	pthread_t rt;

	memset(&t, 0, sizeof(t));
	t.n = iters(300);
	t.r = rds_bound("127.0.0.1", 0, &t.ra);
	t.s = rds_bound("127.0.0.1", 0, NULL);
	rt = go(tr_recv_ordered, &t);
	rds_run_threads(NT, tr_send, &t);
	pthread_join(rt, NULL);
	RDS_EXPECT_ERRNO(recv(t.r, (char[8]){ 0 }, 8, MSG_DONTWAIT), EAGAIN);
	close(t.s);
	close(t.r);
	rds_objs_settle(&base, 3000);
}

static void *tr_recv_shared(void *p)
{
	struct rds_thr_arg *ta = p;
	struct tr *t = ta->arg;
	uint32_t last = 0;
	int first = 1;
	struct msg m;
	ssize_t r;

	while (t->total < t->n) {
		struct pollfd pf = { .fd = t->r, .events = POLLIN };

		r = recv(t->r, &m, sizeof(m), MSG_DONTWAIT);
		if (r < 0) {
			allowed("recv", errno, (int[]){ EAGAIN, 0 });
			poll(&pf, 1, 20);
			continue;
		}
		if (r != sizeof(m) || m.seq >= (uint32_t)t->n)
			RDS_FAIL("bad message (%zd bytes, seq %u)", r, m.seq);
		if (t->seen[m.seq]++)
			RDS_FAIL("seq %u received twice", m.seq);
		/* Each reader dequeues in queue order. */
		if (!first && m.seq <= last)
			RDS_FAIL("reader %d: seq %u after %u", ta->idx, m.seq,
				 last);
		first = 0;
		last = m.seq;
		t->total++;
	}
	return NULL;
}

static void *tr_send_seq(void *p)
{
	struct tr *t = p;
	struct msg m = { 0, 0 };

	for (m.seq = 0; m.seq < (uint32_t)t->n; m.seq++)
		rds_send(t->s, &t->ra, &m, sizeof(m), 0);
	return NULL;
}

/* Three threads receive from one socket: every message exactly once. */
RDS_TEST(shared_receiver_socket_exactly_once)
{
	struct rds_objs base = rds_objs_now();
	struct tr t;
	pthread_t st;
	int i;

	memset(&t, 0, sizeof(t));
	t.n = iters(1500);
	t.seen = calloc(t.n, 1);
	t.r = rds_bound("127.0.0.1", 0, &t.ra);
	t.s = rds_bound("127.0.0.1", 0, NULL);
	st = go(tr_send_seq, &t);
	rds_run_threads(3, tr_recv_shared, &t);
	pthread_join(st, NULL);
	for (i = 0; i < t.n; i++)
		if (t.seen[i] != 1)
			RDS_FAIL("seq %d seen %d times", i, t.seen[i]);
	close(t.s);
	close(t.r);
	free(t.seen);
	rds_objs_settle(&base, 3000);
}

/* Senders keep sending to a port whose receiver is closed and re-bound. */
struct cr {
	struct rds_addr ra;
	atomic_int stop;
	atomic_long ok;
};

static void *cr_send(void *p)
{
	struct cr *c = ((struct rds_thr_arg *)p)->arg;
	int s = rds_bound("127.0.0.1", 0, NULL);
	char buf[256] = { 0 };

	while (!c->stop) {
		if (sendto(s, buf, sizeof(buf), MSG_DONTWAIT, &c->ra.sa,
			   c->ra.len) == sizeof(buf))
			c->ok++;
		else
			allowed("sendto", errno,
				(int[]){ EAGAIN, ENOBUFS, 0 });
	}
	close(s);
	return NULL;
}

static void *cr_closer(void *p)
{
	struct cr *c = ((struct rds_thr_arg *)p)->arg;
	int i, r;
	char buf[256];

	for (i = 0; i < iters(300); i++) {
		r = rds_socket();
		if (bind(r, &c->ra.sa, c->ra.len)) {
			allowed("rebind", errno, (int[]){ EADDRINUSE, 0 });
			close(r);
			continue;
		}
		if (i & 1)
			(void)recv(r, buf, sizeof(buf), MSG_DONTWAIT);
		close(r);
	}
	/* A loaded guest may not have run the senders yet: the 300 rounds
	 * can be over before their first send. Give them up to 5 s.
	 */
	for (i = 0; i < 500 && !c->ok; i++)
		usleep(10000);
	c->stop = 1;
	return NULL;
}

static void *cr_both(void *p)
{
	struct rds_thr_arg *ta = p;

	return ta->idx ? cr_send(p) : cr_closer(p);
}

RDS_TEST(receiver_closed_and_rebound_under_traffic)
{
	struct rds_objs base = rds_objs_now();
	struct cr c;

	memset(&c, 0, sizeof(c));
	c.ra = rds_addr4("127.0.0.1", 4300);
	rds_run_threads(4, cr_both, &c);
	RDS_EXPECT(c.ok > 0);
	rds_objs_settle(&base, 5000);
}

/* The receive path remembers the socket it delivered to last: each
 * message must still reach the socket bound to its port now. A port's
 * receiver is closed and bound again before each message (the new
 * socket may take the old one's memory), while every other message
 * goes to a second port, so that what is remembered changes both ways.
 */
RDS_TEST(rebound_receiver_gets_next_message)
{
	struct rds_addr ra = rds_addr4("127.0.0.1", 4302);
	struct rds_addr rb = rds_addr4("127.0.0.1", 4303);
	int s = rds_bound("127.0.0.1", 0, NULL);
	int q = rds_bound("127.0.0.1", 4303, NULL);
	char buf[64], got[64];
	int i, r;

	for (i = 0; i < iters(200); i++) {
		r = rds_bound("127.0.0.1", 4302, NULL);
		rds_fill(buf, sizeof(buf), i);
		rds_send(s, &ra, buf, sizeof(buf), 0);
		RDS_EXPECT(rds_wait_readable(r, 5000));
		RDS_EXPECT(recv(r, got, sizeof(got), MSG_DONTWAIT) ==
			   sizeof(got));
		RDS_EXPECT(!memcmp(buf, got, sizeof(buf)));
		close(r);
		if (i & 1) {
			rds_send(s, &rb, buf, sizeof(buf), 0);
			RDS_EXPECT(rds_wait_readable(q, 5000));
			RDS_EXPECT(recv(q, got, sizeof(got), MSG_DONTWAIT) ==
				   sizeof(got));
			RDS_EXPECT(!memcmp(buf, got, sizeof(buf)));
		}
	}
	close(q);
	close(s);
}

/* connect() switching the default destination under send(). */
struct cs {
	int s, r[2];
	struct rds_addr ra[2];
	atomic_int stop;
	atomic_long ok;
};

static void *cs_connect(void *p)
{
	struct cs *c = p;
	int i;

	for (i = 0; i < iters(3000); i++)
		RDS_EXPECT_OK(connect(c->s, &c->ra[i & 1].sa, c->ra[i & 1].len));
	c->stop = 1;
	return NULL;
}

RDS_TEST(connect_vs_send_each_message_once)
{
	struct rds_objs base = rds_objs_now();
	long got = 0;
	pthread_t t;
	struct cs c;
	char buf[8];
	int i;

	memset(&c, 0, sizeof(c));
	c.r[0] = rds_bound("127.0.0.1", 0, &c.ra[0]);
	c.r[1] = rds_bound("127.0.0.2", 0, &c.ra[1]);
	c.s = rds_bound("127.0.0.1", 0, NULL);
	RDS_EXPECT_OK(connect(c.s, &c.ra[0].sa, c.ra[0].len));
	t = go(cs_connect, &c);
	while (!c.stop) {
		if (send(c.s, "c", 1, MSG_DONTWAIT) == 1)
			c.ok++;
		else
			allowed("send", errno, (int[]){ EAGAIN, ENOBUFS, 0 });
		for (i = 0; i < 2; i++)
			while (recv(c.r[i], buf, sizeof(buf), MSG_DONTWAIT) == 1)
				got++;
	}
	pthread_join(t, NULL);
	for (i = 0; i < 2; i++)
		while (rds_wait_readable(c.r[i], 300) &&
		       recv(c.r[i], buf, sizeof(buf), MSG_DONTWAIT) == 1)
			got++;
	if (got != c.ok)
		RDS_FAIL("sent %ld, received %ld", (long)c.ok, got);
	close(c.s);
	close(c.r[0]);
	close(c.r[1]);
	rds_objs_settle(&base, 3000);
}

/* Socket options flipped while traffic runs: nothing lost or doubled. */
struct so {
	int s, r;
	struct rds_addr ra;
	atomic_int stop;
};

static void *so_flip(void *p)
{
	struct so *o = p;
	int i, v;

	for (i = 0; !o->stop; i++) {
		int fd = i & 1 ? o->s : o->r;

		v = i & 2 ? 4096 : 262144;
		RDS_EXPECT_OK(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v,
					 sizeof(v)));
		RDS_EXPECT_OK(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v,
					 sizeof(v)));
		v = i & 4;
		RDS_EXPECT_OK(setsockopt(fd, SOL_RDS, RDS_RECVERR, &v,
					 sizeof(v)));
		RDS_EXPECT_OK(setsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &v,
					 sizeof(v)));
		RDS_EXPECT_OK(setsockopt(fd, SOL_RDS, SO_TIMESTAMP, &v,
					 sizeof(v)));
		v = RDS_TRANS_TCP;
		if (!setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, sizeof(v)))
			RDS_FAIL("SO_RDS_TRANSPORT after bind succeeded");
		allowed("SO_RDS_TRANSPORT", errno, (int[]){ EOPNOTSUPP, 0 });
	}
	return NULL;
}

RDS_TEST(sockopts_vs_traffic)
{
	struct rds_objs base = rds_objs_now();
	long sent = 0, got = 0;
	struct so o;
	pthread_t t;
	char buf[64] = { 0 };
	int i;

	memset(&o, 0, sizeof(o));
	o.r = rds_bound("127.0.0.1", 0, &o.ra);
	o.s = rds_bound("127.0.0.1", 0, NULL);
	t = go(so_flip, &o);
	for (i = 0; i < iters(3000); i++) {
		if (sendto(o.s, buf, sizeof(buf), MSG_DONTWAIT, &o.ra.sa,
			   o.ra.len) == sizeof(buf))
			sent++;
		else
			allowed("sendto", errno, (int[]){ EAGAIN, ENOBUFS, 0 });
		while (recv(o.r, buf, sizeof(buf), MSG_DONTWAIT) ==
		       sizeof(buf))
			got++;
	}
	o.stop = 1;
	pthread_join(t, NULL);
	while (rds_wait_readable(o.r, 300) &&
	       recv(o.r, buf, sizeof(buf), MSG_DONTWAIT) == sizeof(buf))
		got++;
	if (got != sent)
		RDS_FAIL("sent %ld, received %ld", sent, got);
	close(o.s);
	close(o.r);
	rds_objs_settle(&base, 3000);
}

/* Pollers and readers on one socket, a sender feeding it. */
struct pr {
	int s, r;
	struct rds_addr ra;
	int n;
	atomic_long got;
};

static void *pr_reader(void *p)
{
	struct pr *x = ((struct rds_thr_arg *)p)->arg;
	long long end = rds_now_ms() + 30000;
	char buf[8];

	while (x->got < x->n) {
		struct pollfd pf = { .fd = x->r, .events = POLLIN };

		if (rds_now_ms() > end)
			RDS_FAIL("readers got %ld of %d", (long)x->got, x->n);
		RDS_EXPECT(poll(&pf, 1, 20) >= 0);
		if (recv(x->r, buf, sizeof(buf), MSG_DONTWAIT) == 2)
			x->got++;
		else if (errno != EAGAIN)
			RDS_FAIL("recv: %s", strerror(errno));
	}
	return NULL;
}

static void *pr_sender(void *p)
{
	struct pr *x = p;
	int i;

	for (i = 0; i < x->n; i++)
		rds_send(x->s, &x->ra, "pp", 2, 0);
	return NULL;
}

RDS_TEST(poll_and_recv_vs_send)
{
	struct rds_objs base = rds_objs_now();
	struct pr x;
	pthread_t t;

	memset(&x, 0, sizeof(x));
	x.n = iters(1500);
	x.r = rds_bound("::1", 0, &x.ra);
	x.s = rds_bound("::1", 0, NULL);
	t = go(pr_sender, &x);
	rds_run_threads(3, pr_reader, &x);
	pthread_join(t, NULL);
	RDS_EXPECT(x.got == x.n);
	RDS_EXPECT_ERRNO(recv(x.r, (char[8]){ 0 }, 8, MSG_DONTWAIT), EAGAIN);
	close(x.s);
	close(x.r);
	rds_objs_settle(&base, 3000);
}

/* ---- RDMA: registration and free racing RDMAs on one socket ----------- */

#define NMR 8

struct mr {
	int t, s;
	struct rds_addr ta;
	unsigned char *buf, *lbuf;
	_Atomic uint64_t cookie[NMR];
	atomic_int stop;
	atomic_long rdmas, statuses;
};

static void *mr_churn(void *p)
{
	struct mr *m = p;
	uint64_t c;
	int i;

	for (i = 0; i < iters(3000); i++) {
		int k = i % NMR;

		c = atomic_exchange(&m->cookie[k], 0);
		if (c && rds_free_mr(m->t, c, 0))
			RDS_FAIL("free_mr: %s", strerror(errno));
		if (rds_get_mr(m->t, m->buf + k * RDS_PG, RDS_PG, 0, &c))
			RDS_FAIL("get_mr: %s", strerror(errno));
		m->cookie[k] = c;
		/* a cookie nobody has: EINVAL */
		RDS_EXPECT_ERRNO(rds_free_mr(m->t, c ^ 0x5a5a0000u, 0),
				 EINVAL);
	}
	m->stop = 1;
	return NULL;
}

static void *mr_rdma(void *p)
{
	struct mr *m = p;
	struct rds_iovec iov = { (uintptr_t)m->lbuf, 64 };
	int i;

	for (i = 0; !m->stop; i++) {
		uint64_t c = m->cookie[i % NMR];

		if (!c)
			continue;
		if (rds_rdma(m->s, &m->ta, c, 0, 64, &iov, 1,
			     (i & 1 ? RDS_RDMA_READWRITE : 0) |
			     RDS_RDMA_NOTIFY_ME, i, MSG_DONTWAIT) == 0)
			m->rdmas++;
		else	/* EKEYREJECTED: 64 dead keys in a second (rdma.rst) */
			allowed("rdma", errno,
				(int[]){ EAGAIN, ENOBUFS, EKEYREJECTED, 0 });
	}
	return NULL;
}

static void *mr_reap(void *p)
{
	struct mr *m = p;
	struct rds_rdma_notify n;
	long long end = 0;

	for (;;) {
		if (m->stop && m->statuses >= m->rdmas)
			break;
		if (m->stop && !end)
			end = rds_now_ms() + 5000;
		if (rds_get_notify(m->s, &n, 50) < 0) {
			if (end && rds_now_ms() > end)
				RDS_FAIL("%ld notifications of %ld",
					 (long)m->statuses, (long)m->rdmas);
			continue;
		}
		if (n.status != RDS_RDMA_SUCCESS &&
		    n.status != RDS_RDMA_REMOTE_ERROR)
			RDS_FAIL("RDMA status %d", n.status);
		m->statuses++;
	}
	return NULL;
}

RDS_TEST(mr_get_free_vs_rdma)
{
	struct rds_objs base = rds_objs_now();
	pthread_t a, b, c;
	struct mr m;
	char buf[8];

	RDS_SKIP_IF_INTREE("no RDMA on loopback");
	memset(&m, 0, sizeof(m));
	m.buf = rds_pages(NMR);
	m.lbuf = rds_pages(1);
	m.t = rds_bound("127.0.0.1", 0, &m.ta);
	m.s = rds_bound("127.0.0.1", 0, NULL);
	a = go(mr_churn, &m);
	b = go(mr_rdma, &m);
	c = go(mr_reap, &m);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(c, NULL);
	if (m.statuses != m.rdmas)
		RDS_FAIL("%ld RDMAs sent, %ld notifications", (long)m.rdmas,
			 (long)m.statuses);
	/* RDMA-only messages with no payload: the target got none or empties. */
	while (recv(m.t, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		;
	close(m.s);
	close(m.t);
	rds_objs_settle(&base, 3000);
}

/* ---- RDS_INFO_* against churn ----------------------------------------- */

static const int info_opts[] = {
	RDS_INFO_COUNTERS, RDS_INFO_CONNECTIONS, RDS_INFO_SEND_MESSAGES,
	RDS_INFO_RETRANS_MESSAGES, RDS_INFO_RECV_MESSAGES, RDS_INFO_SOCKETS,
	RDS6_INFO_CONNECTIONS, RDS6_INFO_SEND_MESSAGES,
	RDS6_INFO_RETRANS_MESSAGES, RDS6_INFO_RECV_MESSAGES,
	RDS6_INFO_SOCKETS,
};
#define NINFO (int)(sizeof(info_opts) / sizeof(info_opts[0]))

struct ic {
	atomic_int stop;
	int each[NINFO];
};

static void *ic_query(void *p)
{
	struct ic *c = ((struct rds_thr_arg *)p)->arg;
	int fd = rds_socket(), i, r;
	static __thread char buf[65536];
	socklen_t len;

	for (i = 0; !c->stop; i++) {
		int k = i % NINFO;

		len = (i / NINFO) % 3 == 0 ? 0 :
		      (i / NINFO) % 3 == 1 ? (socklen_t)(i * 37 % 512) :
		      sizeof(buf);
		r = getsockopt(fd, SOL_RDS, info_opts[k], buf, &len);
		if (r < 0) {
			allowed("RDS_INFO", errno, (int[]){ ENOSPC, 0 });
			continue;
		}
		if (r == 0 || len % r)
			RDS_FAIL("RDS_INFO %d: %d, len %u", info_opts[k], r,
				 len);
		if (c->each[k] && c->each[k] != r)
			RDS_FAIL("RDS_INFO %d: record size %d then %d",
				 info_opts[k], c->each[k], r);
		c->each[k] = r;
	}
	close(fd);
	return NULL;
}

static void *ic_churn(void *p)
{
	struct ic *c = ((struct rds_thr_arg *)p)->arg;
	struct rds_addr ra;
	int i, r, s;

	for (i = 0; i < iters(400); i++) {
		r = rds_bound(i & 1 ? "::1" : "127.0.0.1", 0, &ra);
		s = rds_bound(i & 1 ? "::1" : (i & 2 ? "127.0.0.3" :
					       "127.0.0.1"), 0, NULL);
		rds_send(s, &ra, "info", 4, 0);
		if (i & 4)
			(void)recv(r, (char[8]){ 0 }, 8, MSG_DONTWAIT);
		close(s);
		close(r);
	}
	c->stop = 1;
	return NULL;
}

static void *ic_both(void *p)
{
	return ((struct rds_thr_arg *)p)->idx ? ic_query(p) : ic_churn(p);
}

RDS_TEST(info_vs_socket_churn)
{
	struct rds_objs base = rds_objs_now();
	struct ic c;

	memset(&c, 0, sizeof(c));
	rds_run_threads(3, ic_both, &c);
	rds_objs_settle(&base, 3000);
}

/* ---- namespaces -------------------------------------------------------- */

/*
 * Children enter new namespaces, leave sockets with unread and unsent
 * data, and hand one socket to the parent over a unix socket, which then
 * queries and uses it after the child is gone (the namespace lives on
 * through it) and closes it, tearing the namespace down from outside.
 * Meanwhile the parent's thread reads RDS_INFO in its own namespace.
 */
static int recv_fd(int us)
{
	char c, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(us, &m, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	return fd;
}

static void send_fd(int us, int fd)
{
	char c = 'f', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	RDS_EXPECT(sendmsg(us, &m, 0) == 1);
}

static void ns_child(int us, int k)
{
	struct rds_addr ra, rb;
	int r, s, hold, i;
	char buf[512] = { 0 };

	rds_new_netns(k & 1 ? "10.77.0.1" : NULL);
	r = rds_bound("127.0.0.1", 0, &ra);	/* never reads */
	hold = rds_bound("::1", 0, &rb);
	s = rds_bound("127.0.0.1", 0, NULL);
	for (i = 0; i < 20; i++)
		if (sendto(s, buf, sizeof(buf), MSG_DONTWAIT, &ra.sa, ra.len) < 0)
			allowed("sendto", errno, (int[]){ ENOBUFS, EAGAIN, 0 });
	rds_send(hold, &rb, "held", 4, 0);	/* to itself, unread */
	send_fd(us, hold);
	if (k & 2)
		close(r);	/* the rest die with the process */
	_exit(0);
}

static void *ns_info(void *p)
{
	struct ic *c = p;
	int fd = rds_socket(), nr, each;

	while (!c->stop) {
		free(rds_info(fd, RDS_INFO_CONNECTIONS, &nr, &each));
		free(rds_info(fd, RDS6_INFO_SOCKETS, &nr, &each));
	}
	close(fd);
	return NULL;
}

RDS_TEST(netns_teardown_vs_traffic)
{
	struct rds_objs base = rds_objs_now();
	struct ic c;
	pthread_t t;
	int k, us[2], fd, st, nr, each;
	pid_t pid;
	char buf[8];

	memset(&c, 0, sizeof(c));
	t = go(ns_info, &c);
	for (k = 0; k < iters(24); k++) {
		RDS_EXPECT_OK(socketpair(AF_UNIX, SOCK_DGRAM, 0, us));
		pid = fork();
		if (pid == 0)
			ns_child(us[1], k);
		fd = recv_fd(us[0]);
		RDS_EXPECT(fd >= 0);
		RDS_EXPECT(waitpid(pid, &st, 0) == pid);
		RDS_EXPECT(WIFEXITED(st) && !WEXITSTATUS(st));
		/* The child's namespace, seen through its socket. */
		free(rds_info(fd, RDS6_INFO_SOCKETS, &nr, &each));
		RDS_EXPECT(nr >= 1);
		if (k & 1)
			RDS_EXPECT(rds_recv(fd, buf, sizeof(buf), 0, NULL,
					    NULL, 3000) == 4);
		close(fd);
		close(us[0]);
		close(us[1]);
	}
	c.stop = 1;
	pthread_join(t, NULL);
	rds_objs_settle(&base, 10000);
}

/* ---- per-destination send accounting under concurrency -------------- */

/*
 * One socket, many destinations: two senders to random destinations
 * (eight dead peers, 10.56.0.2 to .9, whose link drops every frame, and
 * the live 10.56.0.1, our own, and 200 local addresses nobody listens
 * on, 10.57.0.1 to .200, more than the 64 idle destinations a socket
 * keeps, so that forgetting the oldest races with the rest), a thread
 * canceling random dead peers (RDS_CANCEL_SENT_TO), a poller, a reader
 * of the live peer; the
 * destination cap (4) and the total (2 budgets) small so that every
 * refusal path runs; then close with messages queued to dead peers.
 * Every send succeeds or gets EAGAIN; each live message arrives once;
 * the destination states and messages all go with the sockets.
 */
struct md {
	int s, r;
	struct rds_addr live, dead[8];
	atomic_int stop;
	atomic_long sent_live, got_live, eagain;
};

static void *md_thread(void *p)
{
	struct md *m = ((struct rds_thr_arg *)p)->arg;
	int idx = ((struct rds_thr_arg *)p)->idx;
	unsigned int seed = idx * 7919 + 1;
	char buf[2048] = { 0 };
	int i, k;

	for (i = 0; i < iters(400) && !m->stop; i++) {
		k = rand_r(&seed) % 12;
		switch (idx) {
		case 0:
		case 1:		/* senders */
			if (k >= 10) {
				char ip[16];
				struct rds_addr nobody;

				snprintf(ip, sizeof(ip), "10.57.0.%d",
					 1 + rand_r(&seed) % 200);
				nobody = rds_addr4(ip, 4000);
				if (sendto(m->s, buf, 64, MSG_DONTWAIT,
					   &nobody.sa, nobody.len) != 64)
					allowed("sendto nobody", errno,
						(int[]){ EAGAIN, 0 });
				break;
			}
			if (k >= 8) {
				if (sendto(m->s, buf, 512, MSG_DONTWAIT,
					   &m->live.sa, m->live.len) == 512)
					m->sent_live++;
				else
					allowed("sendto live", errno,
						(int[]){ EAGAIN, 0 });
				break;
			}
			if (sendto(m->s, buf, 1 + k * 200, MSG_DONTWAIT,
				   &m->dead[k].sa, m->dead[k].len) < 0) {
				allowed("sendto dead", errno,
					(int[]){ EAGAIN, 0 });
				m->eagain++;
			}
			break;
		case 2:		/* canceler */
			RDS_EXPECT_OK(setsockopt(m->s, SOL_RDS,
						 RDS_CANCEL_SENT_TO,
						 &m->dead[k % 8].in,
						 sizeof(m->dead[k % 8].in)));
			usleep(200);
			break;
		default: {	/* poller */
			struct pollfd pf = { .fd = m->s, .events = POLLOUT };

			RDS_EXPECT(poll(&pf, 1, 1) >= 0);
			break;
		}
		}
	}
	return NULL;
}

static void *md_reader(void *p)
{
	struct md *m = p;
	char buf[2048];

	for (;;) {
		int stopping = m->stop;

		if (!rds_wait_readable(m->r, stopping ? 300 : 20)) {
			if (stopping)
				return NULL;
			continue;
		}
		if (recv(m->r, buf, sizeof(buf), MSG_DONTWAIT) == 512)
			m->got_live++;
	}
}

RDS_TEST(many_destinations_send_cancel_close)
{
	struct rds_objs base;
	long dests0, eagain = 0;
	int round, i, rc;
	pthread_t t;
	struct md m;
	FILE *f;

	RDS_SKIP_IF_INTREE("no per-destination send accounting upstream");
	rds_new_netns(NULL);
	rc = system("ip link add rdsm0 type veth peer name rdsm1 && "
		    "ip addr add 10.56.0.1/24 dev rdsm0 && "
		    "for i in 2 3 4 5 6 7 8 9; do ip neigh replace 10.56.0.$i "
		    "lladdr 02:00:00:00:56:0$i dev rdsm0 nud permanent || "
		    "exit 1; done && "
		    "ip link set rdsm1 up && ip link set rdsm0 up && "
		    "ip route add local 10.57.0.0/24 dev lo");
	if (rc)
		RDS_FAIL("setting up the veth pair with ip(8): status %d", rc);
	f = fopen("/proc/sys/net/rds/sock_max_peers", "w");
	if (!f || fprintf(f, "4\n") < 0 || fclose(f))
		RDS_FAIL("net.rds.sock_max_peers: %s", strerror(errno));
	f = fopen("/proc/sys/net/rds/sock_sndbuf_factor", "w");
	if (!f || fprintf(f, "2\n") < 0 || fclose(f))
		RDS_FAIL("net.rds.sock_sndbuf_factor: %s", strerror(errno));
	/* Closed sockets' messages go with them (no orphans kept). */
	f = fopen("/proc/sys/net/rds/orphan_max_kb", "w");
	if (!f || fprintf(f, "0\n") < 0 || fclose(f))
		RDS_FAIL("net.rds.orphan_max_kb: %s", strerror(errno));
	base = rds_objs_now();
	dests0 = rds_obj("send_dests");
	for (round = 0; round < iters(6); round++) {
		memset(&m, 0, sizeof(m));
		for (i = 0; i < 8; i++) {
			char ip[16];

			snprintf(ip, sizeof(ip), "10.56.0.%d", i + 2);
			m.dead[i] = rds_addr4(ip, 4000 + i);
		}
		m.r = rds_bound("10.56.0.1", 0, &m.live);
		rds_set_int(m.r, SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20);
		m.s = rds_socket();
		rds_set_int(m.s, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP);
		rds_set_int(m.s, SOL_SOCKET, SO_SNDBUF, 8192);
		{
			struct rds_addr a = rds_addr4("10.56.0.1", 0);

			RDS_EXPECT_OK(bind(m.s, &a.sa, a.len));
		}
		t = go(md_reader, &m);
		rds_run_threads(4, md_thread, &m);
		m.stop = 1;
		pthread_join(t, NULL);
		if (m.got_live != m.sent_live)
			RDS_FAIL("round %d: %ld live messages sent, %ld "
				 "received", round, (long)m.sent_live,
				 (long)m.got_live);
		eagain += m.eagain;
		close(m.s);	/* messages to dead peers still queued */
		close(m.r);
	}
	printf("# %d rounds, %ld refusals to dead peers\n", round, eagain);
	RDS_EXPECT(eagain > 0);
	/* Sockets and their destination states go at close; messages are
	 * checked when the namespace has gone with this test (run.sh):
	 * the connections' own multipath probes to the dead peers wait for
	 * their attempts to fail.
	 */
	if (dests0 >= 0) {
		for (i = 0; i < 250 && (rds_obj("send_dests") != dests0 ||
					rds_obj("sockets") > base.sockets); i++)
			rds_sleep_ms(20);
		RDS_EXPECT(rds_obj("send_dests") == dests0);
		RDS_EXPECT(rds_obj("sockets") <= base.sockets);
	}
}

/*
 * A namespace that dies with many connections must not stall connection
 * setup elsewhere: a child namespace opens up to 1500 connections (to
 * distinct local addresses, or as many as net.rds.max_connections lets
 * it) and exits; meanwhile a new connection in our namespace must come
 * up within 5 s.  FAILS on main at 7bf7dbb: rds_conn_net_exit() destroys
 * them one by one under the global rds_conn_list_mutex, each with its own
 * synchronize_rcu(), so rds_conn_create() in every namespace waits for
 * the whole teardown (1500 connections: tens of seconds under TCG;
 * 10,000: a hung-task report after 120 s).
 */
RDS_TEST(netns_exit_many_conns_no_global_stall)
{
	struct rds_addr ra;
	long long t0, worst = 0;
	int r, s, i, st;
	pid_t pid;
	char buf[8];

	RDS_SKIP_IF_INTREE("upstream also destroys a namespace's "
			   "connections one synchronize_rcu() at a time");
	pid = fork();
	if (pid == 0) {
		struct rds_addr d;
		char ip[32];

		rds_new_netns(NULL);
		s = rds_bound("127.0.0.1", 0, NULL);
		for (i = 0; i < 1500; i++) {
			snprintf(ip, sizeof(ip), "127.9.%d.%d", i / 250,
				 i % 250 + 1);
			d = rds_addr4(ip, 4000);
			if (sendto(s, "n", 1, MSG_DONTWAIT, &d.sa, d.len) < 0 &&
			    errno == ENOBUFS)
				break;	/* the namespace's cap */
		}
		_exit(0);
	}
	RDS_EXPECT(waitpid(pid, &st, 0) == pid);
	RDS_EXPECT(WIFEXITED(st) && !WEXITSTATUS(st));
	/* The namespace is being torn down now, asynchronously. */
	for (i = 0; i < 10; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "127.8.0.%d", i + 1);
		r = rds_bound(ip, 0, &ra);
		s = rds_bound("127.0.0.1", 0, NULL);
		t0 = rds_now_ms();
		rds_send(s, &ra, "q", 1, 0);
		RDS_EXPECT(rds_recv(r, buf, sizeof(buf), 0, NULL, NULL,
				    120000) == 1);
		if (rds_now_ms() - t0 > worst)
			worst = rds_now_ms() - t0;
		close(r);
		close(s);
		rds_sleep_ms(300);
	}
	if (worst > 5000)
		RDS_FAIL("a new connection took %lld ms while a namespace "
			 "died", worst);
}

/* ---- kept payload pages given back while others are taken ----------- */

/* Each thread streams to its own reader: 8 KiB messages checked byte by
 * byte, and every 50th a 64 KiB one, whose 16 pages fill the CPU's kept
 * pages; most of those then sit unused until the drain frees them (10
 * to 12 s later) while the 8 KiB messages keep taking and giving back
 * others on the same CPUs, for 15 s.
 */
static void *kd_stream(void *p)
{
	struct rds_thr_arg *ta = p;
	static char out[2][65536], in[2][65536];
	long long end = rds_now_ms() + 15000;
	char *o = out[ta->idx], *b = in[ta->idx];
	struct rds_addr ra;
	unsigned int seq;
	int r, s;
	size_t len;

	r = rds_bound("127.0.0.1", 0, &ra);
	s = rds_bound("127.0.0.1", 0, NULL);
	for (seq = 0; rds_now_ms() < end; seq++) {
		len = seq % 50 ? 8192 : 65536;
		rds_fill(o, len, seq * 2 + ta->idx);
		rds_send(s, &ra, o, len, 0);
		if (rds_recv(r, b, 65536, 0, NULL, NULL, 10000) != (ssize_t)len)
			RDS_FAIL("thread %d: message %u short", ta->idx, seq);
		if (memcmp(o, b, len))
			RDS_FAIL("thread %d: message %u damaged", ta->idx, seq);
		if (seq % 8 == 0)
			rds_sleep_ms(20);	/* let pages grow stale */
	}
	close(r);
	close(s);
	return NULL;
}

RDS_TEST(kept_pages_drain_vs_traffic)
{
	struct rds_objs base = rds_objs_now();

	rds_run_threads(2, kd_stream, NULL);
	rds_objs_settle(&base, 3000);
}

RDS_TEST_MAIN()
