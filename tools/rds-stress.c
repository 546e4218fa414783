// SPDX-License-Identifier: GPL-2.0
/*
 * rds-stress: exchange requests and acks between two groups of tasks over
 * RDS sockets and report rates and latencies.  This file runs the session:
 * control connection, task processes, the per-second report.
 *
 * Exit status: 0 success; 1 failure (including verification errors);
 * 2 command-line error; 3 the kernel or transport lacks what the test
 * needs (e.g. bind() unsupported, no RDMA).
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/rds.h>
#include <linux/rds_uek.h>

#include "lib/route.h"
#include "lib/sock.h"
#include "lib/util.h"
#include "stress/control.h"
#include "stress/opts.h"
#include "stress/report.h"
#include "stress/task.h"

#define EXIT_UNSUPPORTED	3

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct session {
	struct stress_opts	o;
	const char		*role;
	int			ctl;
	struct rds_ep		local, peer;
	uint16_t		my_base, peer_base;
	struct stress_shared	*sh;
	pid_t			*pids;
};

static void __attribute__((noreturn))
session_fail(struct session *s, int code, const char *msg)
{
	if (s->o.json)
		json_print(&s->o, s->role, NULL, NULL,
			   code == EXIT_UNSUPPORTED ? "unsupported" : "error", msg);
	fprintf(stderr, "%s: %s\n", progname, msg);
	if (s->sh) {
		s->sh->stop = 1;
		s->sh->quit = 1;
	}
	if (s->pids) {
		unsigned int i;

		for (i = 0; i < s->o.tasks; i++)
			if (s->pids[i] > 0)
				kill(s->pids[i], SIGKILL);
		while (wait(NULL) > 0)
			;
	}
	exit(code);
}

static void connect_sides(struct session *s)
{
	struct stress_opts *o = &s->o;

	if (o->active) {
		s->ctl = ctl_connect(o);
		if (o->have_local)
			s->local = o->local;
		else
			ctl_local_addr(s->ctl, &s->local);
		s->peer = o->peer;
		s->peer_base = o->port + 1;
		/* Both sides on one address: ours follow the passive's ports. */
		s->my_base = rds_ep_same_addr(&s->local, &s->peer) ?
			     (uint16_t)(o->port + 1 + o->tasks) : (uint16_t)(o->port + 1);
		ctl_send_opts(s->ctl, o, &s->local, s->my_base);
	} else {
		s->ctl = ctl_accept(o);
		ctl_recv_opts(s->ctl, o, &s->peer, &s->peer_base);
		if (o->have_local)
			s->local = o->local;
		else
			ctl_local_addr(s->ctl, &s->local);
		s->my_base = o->port + 1;
		if (rds_ep_family(&s->local) != rds_ep_family(&s->peer))
			session_fail(s, 1, "the active side's RDS address is of another family than ours");
	}
}

static void start_tasks(struct session *s)
{
	size_t size = sizeof(*s->sh) + s->o.tasks * sizeof(struct task_stats);
	unsigned int i;

	s->sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->sh == MAP_FAILED)
		die_errno("mmap of %zu bytes for the statistics", size);
	s->pids = calloc(s->o.tasks, sizeof(pid_t));
	if (!s->pids)
		die("out of memory");
	fflush(stdout);
	for (i = 0; i < s->o.tasks; i++) {
		struct task_plan p = {
			.o = &s->o, .sh = s->sh, .idx = i, .local = s->local,
			.peer = s->peer, .peer_base = s->peer_base,
			.send_requests = s->o.active || !(s->o.flags & SF_ONE_WAY),
		};

		rds_ep_set_port(&p.local, s->my_base + i);
		s->pids[i] = fork();
		if (s->pids[i] < 0)
			session_fail(s, 1, "fork of a task failed");
		if (s->pids[i] == 0)
			task_main(&p);
	}
}

/* Wait until every task is bound (or one failed); tell the peer; hear it. */
static void sync_ready(struct session *s)
{
	char msg[256] = "", peer_msg[200];
	int unsupported = 0, peer_unsupported, ok = 1;
	uint64_t deadline = now_ns() + 60ull * 1000000000ull;
	unsigned int i, ready;

	do {
		ready = 0;
		for (i = 0; i < s->o.tasks && ok; i++) {
			struct task_stats *t = &s->sh->task[i];
			int st = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);

			if (st == TASK_READY) {
				ready++;
			} else if (st == TASK_FAILED) {
				ok = 0;
				snprintf(msg, sizeof(msg), "%s", t->msg);
				unsupported = t->unsupported;
			}
		}
		if (ok && ready < s->o.tasks) {
			int status;
			pid_t pid = waitpid(-1, &status, WNOHANG);

			if (pid > 0 && ready < s->o.tasks) {
				/* A task died without saying why. */
				for (i = 0; i < s->o.tasks; i++)
					if (s->pids[i] == pid)
						s->pids[i] = 0;
				if (s->sh->task[0].state != TASK_FAILED) {
					usleep(1000);
					continue;
				}
			}
			if (now_ns() > deadline) {
				ok = 0;
				snprintf(msg, sizeof(msg), "tasks did not get ready within 60 s");
			}
			usleep(2000);
		}
	} while (ok && ready < s->o.tasks);

	ctl_send_status(s->ctl, ok, unsupported, msg);
	if (!ok)
		session_fail(s, unsupported ? EXIT_UNSUPPORTED : 1, msg);
	if (!ctl_recv_status(s->ctl, peer_msg, sizeof(peer_msg), &peer_unsupported)) {
		snprintf(msg, sizeof(msg), "the %s side failed: %s",
			 s->o.active ? "passive" : "active", peer_msg);
		session_fail(s, peer_unsupported ? EXIT_UNSUPPORTED : 1, msg);
	}
}

/* Sleep until @deadline; 1 if the peer closed the control connection. */
static int wait_tick(int ctl, uint64_t deadline)
{
	for (;;) {
		uint64_t now = now_ns();
		struct pollfd pfd = { .fd = ctl, .events = POLLIN };
		char c;

		if (now >= deadline || interrupted)
			return 0;
		if (poll(&pfd, 1, (int)((deadline - now) / 1000000) + 1) > 0) {
			if (recv(ctl, &c, 1, MSG_DONTWAIT) <= 0)
				return 1;
		}
	}
}

/* How long the parent waits for its tasks to wind down (theirs,
 * task_wind_down_ns(), plus TASKS_DRAIN_SLACK_NS), and then for the
 * peer to say it wound down too, unless the peer sends nothing for
 * PEER_QUIET_NS: it has no request left for us to answer, or it is gone.
 */
#define TASKS_DRAIN_SLACK_NS	(1ull * 1000000000ull)
#define PEER_DRAIN_NS	(5ull * 1000000000ull)
#define PEER_QUIET_NS	(300ull * 1000000ull)

static int tasks_drained(const struct session *s)
{
	unsigned int i;

	for (i = 0; i < s->o.tasks; i++) {
		const struct task_stats *t = &s->sh->task[i];

		if (!__atomic_load_n(&t->drained, __ATOMIC_ACQUIRE) &&
		    t->state != TASK_FAILED)
			return 0;
	}
	return 1;
}

/* Nothing came from the peer for PEER_QUIET_NS since @since. */
static int peer_quiet(const struct session *s, uint64_t since, uint64_t now)
{
	uint64_t last = since;
	unsigned int i;

	for (i = 0; i < s->o.tasks; i++)
		if (s->sh->task[i].last_rx_ns > last)
			last = s->sh->task[i].last_rx_ns;
	return now - last > PEER_QUIET_NS;
}

/*
 * End the run without leaving the peer's RDMA aimed at regions that go
 * with our tasks (on RDS/IB that fails the peer's work request and drops
 * the connection every other user shares): our tasks stop requesting
 * and wait for the acks of what they asked; then the half-closed control
 * connection tells the peer, and our tasks keep answering its requests
 * until it has wound down too (it closes or half-closes its end). An
 * older peer simply closes: the same signal.
 */
static void wind_down(struct session *s, int peer_gone)
{
	uint64_t drain = task_wind_down_ns(&s->o) + TASKS_DRAIN_SLACK_NS;
	uint64_t deadline = now_ns() + drain, shut, now;
	/* With --rerequest-ms (the peer is ours) its requests may be slow
	 * rather than done: wait for its half-close, as long as its tasks
	 * may wait for our acks.
	 */
	bool quiet_ends = !s->o.rerequest_ms;

	s->sh->stop = 1;
	while (!tasks_drained(s) && now_ns() < deadline)
		usleep(1000);
	shutdown(s->ctl, SHUT_WR);
	shut = now_ns();
	deadline = shut + (drain > PEER_DRAIN_NS ? drain : PEER_DRAIN_NS);
	/* Interrupted, only our own requests' acks are waited for. */
	for (now = shut; !peer_gone && !interrupted && now < deadline &&
	     !(quiet_ends && peer_quiet(s, shut, now)); now = now_ns())
		peer_gone = wait_tick(s->ctl, now + 20000000ull);
	s->sh->quit = 1;
}

/* -1 if a task failed (its reason in @msg), -2 if because this RDS
 * lacks what the test needs (e.g. --async on Linux's), else 0.
 */
static int check_tasks(struct session *s, char *msg, size_t len)
{
	unsigned int i;

	for (i = 0; i < s->o.tasks; i++)
		if (s->sh->task[i].state == TASK_FAILED) {
			snprintf(msg, len, "%s", s->sh->task[i].msg);
			return s->sh->task[i].unsupported ? -2 : -1;
		}
	return 0;
}

/*
 * --reset: UEK's RDS_CONN_RESET (RDS6_CONN_RESET for IPv6) from -r (or
 * the route's source) to -s with TOS -Q: the kernel drops every lane of
 * those connections and they reconnect. Prints nothing, as rds-tools'.
 */
static int do_reset(const struct stress_opts *o)
{
	struct rds_ep src;
	char a[RDS_EP_STRLEN];
	int fd, rc, v6 = rds_ep_family(&o->peer) == AF_INET6;

	if (o->have_local) {
		src = o->local;
	} else {
		rc = rds_route_source(&o->peer, &src);
		if (rc) {
			errno = -rc;
			die_errno("--reset: no route to %s; give the source with -r",
				  rds_ep_addr_str(&o->peer, a));
		}
	}
	fd = rds_open();
	if (v6) {
		struct rds6_reset r = { .tos = o->tos };

		r.src = ((const struct sockaddr_in6 *)&src.ss)->sin6_addr;
		r.dst = ((const struct sockaddr_in6 *)&o->peer.ss)->sin6_addr;
		rc = setsockopt(fd, SOL_RDS, RDS6_CONN_RESET, &r, sizeof(r));
	} else {
		struct rds_reset r = { .tos = o->tos };

		r.src = ((const struct sockaddr_in *)&src.ss)->sin_addr;
		r.dst = ((const struct sockaddr_in *)&o->peer.ss)->sin_addr;
		rc = setsockopt(fd, SOL_RDS, RDS_CONN_RESET, &r, sizeof(r));
	}
	if (!rc) {
		close(fd);
		return 0;
	}
	if (errno == EPERM)
		die("--reset: RDS_CONN_RESET needs CAP_NET_ADMIN");
	/* Linux's RDS: option 8 is SO_RDS_TRANSPORT, 11 unknown. */
	if (errno == EINVAL || errno == ENOPROTOOPT) {
		fprintf(stderr, "%s: --reset: this RDS does not serve %s (%s)\n", progname,
			v6 ? "RDS6_CONN_RESET" : "RDS_CONN_RESET", strerror(errno));
		exit(EXIT_UNSUPPORTED);
	}
	die_errno("--reset: setsockopt(%s)", v6 ? "RDS6_CONN_RESET" : "RDS_CONN_RESET");
}

/* -R: the reporting process before the tasks, so the rows keep time. */
static void set_rtprio(void)
{
	struct sched_param sp = { .sched_priority = 1 };

	if (sched_setscheduler(0, SCHED_RR, &sp))
		die_errno("-R: sched_setscheduler(SCHED_RR)");
}

int main(int argc, char **argv)
{
	struct session s = { .ctl = -1 };
	struct totals start, prev, cur, fin;
	struct row row, avg;
	char err[256] = "";
	uint64_t tick;
	unsigned int secs = 0, i;
	int peer_gone = 0, failed = 0, rc;

	tool_init(argv[0]);
	stress_parse(&s.o, argc, argv);
	if (s.o.reset)
		return do_reset(&s.o);
	s.role = s.o.active ? "active" : "passive";
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);

	if (s.o.show_params && s.o.active && !s.o.json)
		report_params(&s.o);
	connect_sides(&s);
	if (s.o.rtprio)
		set_rtprio();
	start_tasks(&s);
	sync_ready(&s);

	if (!s.o.summary_only && !s.o.json)
		report_header();
	totals_snap(&start, s.sh, s.o.tasks, s.o.cpu);
	prev = start;
	s.sh->go = 1;
	tick = start.when_ns;
	while (!interrupted && !peer_gone && (!s.o.seconds || secs < s.o.seconds)) {
		tick += 1000000000ull;
		peer_gone = wait_tick(s.ctl, tick);
		totals_snap(&cur, s.sh, s.o.tasks, s.o.cpu);
		row_between(&row, &prev, &cur, s.o.cpu);
		prev = cur;
		secs++;
		if (s.o.json)
			json_add_row(&row);
		else if (!s.o.summary_only)
			report_row(&row);
		rc = check_tasks(&s, err, sizeof(err));
		if (rc) {
			failed = rc == -2 ? 2 : 1;
			break;
		}
	}
	totals_snap(&cur, s.sh, s.o.tasks, s.o.cpu);
	row_between(&avg, &start, &cur, s.o.cpu);
	avg.tasks = s.o.tasks;
	wind_down(&s, peer_gone);
	shutdown(s.ctl, SHUT_RDWR);
	close(s.ctl);
	for (i = 0; i < s.o.tasks; i++) {
		int st;

		if (s.pids[i] > 0 && waitpid(s.pids[i], &st, 0) > 0 &&
		    !failed && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			rc = check_tasks(&s, err, sizeof(err));
			if (rc)
				failed = rc == -2 ? 2 : 1;
		}
	}
	/* Counts the tasks finished after the last row (--async's drain). */
	totals_snap(&fin, s.sh, s.o.tasks, 0);
	cur.tx = fin.tx;
	cur.rx = fin.rx;
	cur.async_sent = fin.async_sent;
	cur.async_ok = fin.async_ok;
	cur.async_canceled = fin.async_canceled;
	cur.async_dropped = fin.async_dropped;
	cur.async_other = fin.async_other;
	cur.outliers = fin.outliers;
	cur.rerequests = fin.rerequests;
	cur.late_acks = fin.late_acks;
	cur.unanswered = fin.unanswered;
	cur.rdma_dropped = fin.rdma_dropped;
	cur.rdma_in = fin.rdma_in;
	cur.rdma_out = fin.rdma_out;
	if (!failed && (s.o.flags & SF_ASYNC) &&
	    fin.async_ok + fin.async_canceled + fin.async_dropped + fin.async_other !=
	    fin.async_sent) {
		failed = 1;
		snprintf(err, sizeof(err), "--async: %llu sends, %llu notifications",
			 (unsigned long long)fin.async_sent,
			 (unsigned long long)(fin.async_ok + fin.async_canceled +
					      fin.async_dropped + fin.async_other));
	}
	/* Requests went out but none came back, not even while the tasks
	 * wound down: a stalled transport, not a result (e.g. in-tree RDMA
	 * on a device it cannot drive). A slow guest's first acks may come
	 * only after a short run's last row.
	 */
	if (!failed && secs >= 2 && !fin.rtt_n &&
	    (s.o.active || !(s.o.flags & SF_ONE_WAY))) {
		failed = 1;
		snprintf(err, sizeof(err), "no request was acknowledged in %u s "
			 "and the wind-down after: the transport or the peer stalled",
			 secs);
	}
	if (!failed && cur.verify_errors) {
		failed = 1;
		snprintf(err, sizeof(err), "%llu verification errors",
			 (unsigned long long)cur.verify_errors);
	}

	if (s.o.json) {
		json_print(&s.o, s.role, &avg, &cur, failed == 2 ? "unsupported" :
			   failed ? "error" : "ok", failed ? err : NULL);
	} else {
		report_average(&avg);
		if (s.o.histogram)
			report_histogram(&cur);
		if (s.o.perfdata)
			report_perfdata(&avg, &cur);
		if (s.o.flags & SF_ASYNC)
			report_async(&cur);
		if (s.o.rerequest_ms)
			report_rerequests(&cur);
	}
	if (failed)
		fprintf(stderr, "%s: %s\n", progname, err);
	return failed == 2 ? EXIT_UNSUPPORTED : failed ? 1 : 0;
}
