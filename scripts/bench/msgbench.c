// SPDX-License-Identifier: GPL-2.0
/*
 * msgbench: the bench's own client for what rds-stress does not measure
 * (scripts/bench/bench-guest.sh runs it): the same message pattern over
 * AF_RDS and over the sockets that bound it from above (an AF_UNIX
 * SOCK_SEQPACKET pair for loopback, a TCP connection for RDS/TCP), and
 * the cost curves.
 *
 *	msgbench stream|rr recv|send FAMILY [options]
 *	msgbench bind [options]
 *
 * stream: one-way, as fast as the receiver takes it; the receiver counts.
 * rr: one request of -s bytes answered by one of the same size; the
 * sender counts round trips. bind: socket()+bind()+close() of one more
 * AF_RDS socket while -n others stay bound.
 *
 * The counting side prints one line, "ok,OPS_PER_S,KBYTES_PER_S,USEC_PER_OP"
 * over the -T seconds after -W seconds of warm-up (guest time: under
 * -icount it counts instructions, so USEC_PER_OP is a CPU cost), or
 * "error,,,,WHY". FAMILY: rds, unix (-r is a socket path), tcp.
 *
 * -n N receiving sockets: on N ports from -p (--spread ports) or on N
 * addresses from -r, counted up in the last octet (--spread addrs: N
 * RDS connections); the sender goes round them. -P N senders (processes,
 * each with its own socket) share the work of one.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/rds.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif

#define MAX_SOCKS 4096
#define MAX_MSG (1 << 20)

enum family { FAM_RDS, FAM_UNIX, FAM_TCP };

static struct {
	enum family fam;
	const char *laddr, *raddr;
	unsigned int port;
	size_t size;
	double seconds, warmup;
	int nsocks, senders;
	bool spread_addrs;
	int transport;		/* SO_RDS_TRANSPORT, or -1 */
} opt = {
	.laddr = "127.0.0.1", .raddr = "127.0.0.1", .port = 4000, .size = 64,
	.seconds = 3, .warmup = 1, .nsocks = 1, .senders = 1, .transport = -1,
};

static volatile sig_atomic_t stop;
static char *buf;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	printf("error,,,,");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("%s%s\n", errno ? ": " : "", errno ? strerror(errno) : "");
	exit(1);
}

/* The i-th address of -n N spread over addresses: the last octet + i. */
static struct sockaddr_in inet_addr_n(const char *base, unsigned int port, int i)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };

	if (inet_pton(AF_INET, base, &sin.sin_addr) != 1) {
		errno = 0;
		fail("bad IPv4 address %s", base);
	}
	sin.sin_addr.s_addr = htonl(ntohl(sin.sin_addr.s_addr) + i);
	return sin;
}

/* Where receiving socket i listens. */
static struct sockaddr_in recv_addr(int i)
{
	if (opt.spread_addrs)
		return inet_addr_n(opt.raddr, opt.port, i);
	return inet_addr_n(opt.raddr, opt.port + i, 0);
}

static int rds_socket(const char *addr, unsigned int port, bool bufs)
{
	struct sockaddr_in sin = inet_addr_n(addr, port, 0);
	int bufsz = 8 << 20;
	int fd;

	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (fd < 0)
		fail("socket(AF_RDS)");
	/* Room for several of the biggest messages either way. */
	if (bufs) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	}
	/* Before the bind: a bound socket's transport is settled. */
	if (opt.transport >= 0 &&
	    setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &opt.transport,
		       sizeof(opt.transport)))
		fail("SO_RDS_TRANSPORT %d", opt.transport);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		fail("bind %s:%u", addr, port);
	return fd;
}

static void unix_path(struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "%s", opt.raddr);
}

/* The receiving side's sockets: RDS binds them, the others accept one. */
static int open_receivers(int *fds)
{
	int bufsz = 8 << 20, one = 1, lfd, i;

	if (opt.fam == FAM_RDS) {
		for (i = 0; i < opt.nsocks; i++) {
			struct sockaddr_in sin = recv_addr(i);
			char a[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &sin.sin_addr, a, sizeof(a));
			fds[i] = rds_socket(a, ntohs(sin.sin_port), true);
		}
		return opt.nsocks;
	}
	if (opt.fam == FAM_UNIX) {
		struct sockaddr_un sun;

		unix_path(&sun);
		unlink(sun.sun_path);
		lfd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&sun, sizeof(sun)))
			fail("bind %s", sun.sun_path);
	} else {
		struct sockaddr_in sin = inet_addr_n(opt.raddr, opt.port, 0);

		lfd = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)))
			fail("bind %s:%u", opt.raddr, opt.port);
	}
	if (listen(lfd, 16))
		fail("listen");
	fds[0] = accept(lfd, NULL, NULL);
	if (fds[0] < 0)
		fail("accept");
	setsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	close(lfd);
	return 1;
}

static int open_sender(int k)
{
	int bufsz = 8 << 20, one = 1, fd, tries;

	if (opt.fam == FAM_RDS)
		return rds_socket(opt.laddr, opt.port + MAX_SOCKS + k, true);
	fd = socket(opt.fam == FAM_UNIX ? AF_UNIX : AF_INET,
		    opt.fam == FAM_UNIX ? SOCK_SEQPACKET : SOCK_STREAM, 0);
	if (fd < 0)
		fail("socket");
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	if (opt.fam == FAM_TCP)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* The receiver may not listen yet. */
	for (tries = 0; tries < 100; tries++) {
		int rc;

		if (opt.fam == FAM_UNIX) {
			struct sockaddr_un sun;

			unix_path(&sun);
			rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
		} else {
			struct sockaddr_in sin = inet_addr_n(opt.raddr, opt.port, 0);

			rc = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
		}
		if (!rc)
			return fd;
		usleep(100000);
	}
	fail("connect %s", opt.raddr);
}

/* TCP has no message boundaries: read or write the whole -s bytes. */
static ssize_t xfer_all(int fd, bool out)
{
	size_t done = 0;

	while (done < opt.size) {
		ssize_t n = out ? write(fd, buf + done, opt.size - done) :
				  read(fd, buf + done, opt.size - done);
		if (n <= 0)
			return n;
		done += n;
	}
	return done;
}

static ssize_t recv_one(int fd, struct sockaddr_in *from)
{
	socklen_t alen = sizeof(*from);

	if (opt.fam == FAM_TCP)
		return opt.size ? xfer_all(fd, false) : 1;
	return recvfrom(fd, buf, MAX_MSG, 0, (struct sockaddr *)from,
			from ? &alen : NULL);
}

static ssize_t send_one(int fd, const struct sockaddr_in *to)
{
	if (opt.fam == FAM_TCP)
		return opt.size ? xfer_all(fd, true) : 1;
	if (opt.fam == FAM_RDS)
		return sendto(fd, buf, opt.size, 0, (const struct sockaddr *)to,
			      sizeof(*to));
	return send(fd, buf, opt.size, 0);
}

/* Counts operations inside the window [start + warmup, + seconds]. */
struct window {
	double start, open, close;
	unsigned long ops;
	bool started;
};

/* Returns false once the window has closed. */
static bool window_tick(struct window *w)
{
	double t = now();

	if (!w->started) {
		w->started = true;
		w->start = t;
		w->open = t + opt.warmup;
		w->close = w->open + opt.seconds;
	}
	if (t >= w->close)
		return false;
	if (t >= w->open)
		w->ops++;
	return true;
}

static void report(const struct window *w)
{
	double rate = w->ops / opt.seconds;

	if (!w->ops) {
		errno = 0;
		fail("nothing in the window");
	}
	printf("ok,%.1f,%.1f,%.3f,\n", rate, rate * opt.size / 1024, 1e6 / rate);
}

/* stream, receiving side: whatever socket has a message. */
static void stream_recv(void)
{
	static int fds[MAX_SOCKS];
	struct epoll_event ev[64];
	struct window w = { 0 };
	int n, i, ep;

	n = open_receivers(fds);
	if (n == 1) {
		for (;;) {
			ssize_t got = recv_one(fds[0], NULL);

			/* 0 is the end of a connection, not RDS's 0-byte message. */
			if (got < 0 || (!got && opt.fam != FAM_RDS))
				fail("recv (%zd)", got);
			if (!window_tick(&w))
				break;
		}
		report(&w);
		return;
	}
	ep = epoll_create1(0);
	for (i = 0; i < n; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.fd = fds[i] };

		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e))
			fail("epoll_ctl");
	}
	for (;;) {
		int k, m = epoll_wait(ep, ev, 64, -1);

		for (k = 0; k < m; k++) {
			/* Drain what this socket holds, then the next. */
			while (recvfrom(ev[k].data.fd, buf, MAX_MSG, MSG_DONTWAIT,
					NULL, NULL) >= 0)
				if (!window_tick(&w)) {
					report(&w);
					return;
				}
			if (errno != EAGAIN)
				fail("recv");
		}
	}
}

/* One sender's loop: round the receiving sockets until the alarm. */
static void send_loop(int k, bool rr)
{
	static struct sockaddr_in to[MAX_SOCKS];
	int fd = open_sender(k), i = k % opt.nsocks;
	struct window w = { 0 };

	/* Worked out once: the loop is the measured cost. */
	for (i = 0; opt.fam == FAM_RDS && i < opt.nsocks; i++)
		to[i] = recv_addr(i);
	i = k % opt.nsocks;
	for (;;) {
		if (send_one(fd, &to[i]) < 0) {
			if (stop)
				break;
			/* A full receiver tells an RDS sender to wait. */
			if (errno == ENOBUFS || errno == EAGAIN) {
				usleep(1000);
				continue;
			}
			if (errno == EPIPE || errno == ECONNRESET)
				break;
			fail("send");
		}
		if (rr) {
			if (recv_one(fd, NULL) < (opt.fam == FAM_RDS ? 0 : 1)) {
				if (stop)
					break;
				fail("recv of the response");
			}
			if (!window_tick(&w))
				break;
		}
		if (stop)
			break;
		if (++i == opt.nsocks)
			i = 0;
	}
	if (rr)
		report(&w);
}

/* rr, answering side: each request straight back to where it came from. */
static void rr_recv(void)
{
	static int fds[MAX_SOCKS];
	struct sockaddr_in from;

	if (open_receivers(fds) != 1) {
		errno = 0;
		fail("rr serves one socket");
	}
	for (;;) {
		ssize_t n = recv_one(fds[0], &from);

		if (n < 0 || (!n && opt.fam != FAM_RDS))
			break;
		if (send_one(fds[0], &from) < 0)
			break;
	}
}

/* Senders stop by alarm: the receiver's window plus slack for the last. */
static void senders(bool rr)
{
	pid_t pids[MAX_SOCKS];
	int k, status, rc = 0;

	signal(SIGPIPE, SIG_IGN);
	if (opt.senders == 1) {
		struct sigaction sa = { .sa_handler = on_alarm };

		sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART */
		alarm((unsigned int)(opt.warmup + opt.seconds) + 3);
		send_loop(0, rr);
		return;
	}
	for (k = 0; k < opt.senders; k++) {
		pids[k] = fork();
		if (pids[k] < 0)
			fail("fork");
		if (!pids[k]) {
			struct sigaction sa = { .sa_handler = on_alarm };

			/* Ends with the parent: a stale sender keeps its port. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				exit(0);

			sigaction(SIGALRM, &sa, NULL);
			alarm((unsigned int)(opt.warmup + opt.seconds) + 3);
			send_loop(k, false);
			exit(0);
		}
	}
	for (k = 0; k < opt.senders; k++)
		if (waitpid(pids[k], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			rc = 1;
	exit(rc);
}

/* bind: the cost of one more socket while -n stay bound. */
static void bind_cost(void)
{
	struct window w = { 0 };
	int i;

	/* Kept open until exit. */
	for (i = 0; i < opt.nsocks; i++)
		rds_socket(opt.laddr, 0, false);
	for (;;) {
		int fd = rds_socket(opt.laddr, 0, false);

		close(fd);
		if (!window_tick(&w))
			break;
	}
	report(&w);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: msgbench stream|rr recv|send rds|unix|tcp [options]\n"
		"       msgbench bind [options]\n"
		"  -l ADDR   local address (RDS sender, bind)\n"
		"  -r ADDR   receiver's address (unix: socket path)\n"
		"  -p PORT   receiver's first port (4000)\n"
		"  -s BYTES  message size (64, at most 1 MiB)\n"
		"  -T SECS   measured seconds (3), -W SECS warm-up (1)\n"
		"  -n N      receiving sockets (bind: sockets kept bound)\n"
		"  -P N      sending processes (stream)\n"
		"  --spread ports|addrs   how the -n sockets differ\n"
		"  --transport tcp|ib|iwarp  SO_RDS_TRANSPORT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "spread", required_argument, NULL, 'S' },
		{ "transport", required_argument, NULL, 't' },
		{ 0 }
	};
	const char *mode, *role = NULL, *fam = "rds";
	int c;

	if (argc < 2)
		usage();
	mode = argv[1];
	if (strcmp(mode, "bind")) {
		if (argc < 4)
			usage();
		role = argv[2];
		fam = argv[3];
		argv += 2;
		argc -= 2;
	}
	argv++;
	argc--;
	while ((c = getopt_long(argc, argv, "l:r:p:s:T:W:n:P:", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': opt.laddr = optarg; break;
		case 'r': opt.raddr = optarg; break;
		case 'p': opt.port = atoi(optarg); break;
		case 's': opt.size = strtoul(optarg, NULL, 0); break;
		case 'T': opt.seconds = atof(optarg); break;
		case 'W': opt.warmup = atof(optarg); break;
		case 'n': opt.nsocks = atoi(optarg); break;
		case 'P': opt.senders = atoi(optarg); break;
		case 'S': opt.spread_addrs = !strcmp(optarg, "addrs"); break;
		case 't':
			opt.transport = !strcmp(optarg, "tcp") ? RDS_TRANS_TCP :
					!strcmp(optarg, "ib") ? RDS_TRANS_IB :
					!strcmp(optarg, "iwarp") ? RDS_TRANS_IWARP : -1;
			break;
		default: usage();
		}
	}
	opt.fam = !strcmp(fam, "unix") ? FAM_UNIX : !strcmp(fam, "tcp") ? FAM_TCP :
		  !strcmp(fam, "rds") ? FAM_RDS : (usage(), FAM_RDS);
	if (opt.size > MAX_MSG || opt.nsocks < 1 || opt.nsocks > MAX_SOCKS ||
	    opt.senders < 1 || opt.senders > MAX_SOCKS || opt.seconds <= 0 ||
	    opt.port + 2 * MAX_SOCKS > 65535 || (opt.fam != FAM_RDS && !opt.size))
		usage();
	/* -n sockets and the few of our own: past the default 1024. */
	{
		struct rlimit rl = { .rlim_cur = MAX_SOCKS + 64, .rlim_max = MAX_SOCKS + 64 };

		if (setrlimit(RLIMIT_NOFILE, &rl) && opt.nsocks > 900)
			fail("RLIMIT_NOFILE %d", MAX_SOCKS + 64);
	}
	buf = calloc(1, MAX_MSG);
	if (!buf)
		fail("calloc");
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(mode, "bind"))
		bind_cost();
	else if (!strcmp(mode, "stream") && !strcmp(role, "recv"))
		stream_recv();
	else if (!strcmp(mode, "stream") && !strcmp(role, "send"))
		senders(false);
	else if (!strcmp(mode, "rr") && !strcmp(role, "recv"))
		rr_recv();
	else if (!strcmp(mode, "rr") && !strcmp(role, "send"))
		senders(true);
	else
		usage();
	return 0;
}
