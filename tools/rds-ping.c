// SPDX-License-Identifier: GPL-2.0
/*
 * rds-ping: measure the round trip to a peer's RDS stack.  A message sent
 * to port 0 of an address is answered by the peer's kernel with an empty
 * "pong" from port 0; we time each one.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/rds.h>

#include "lib/addr.h"
#include "lib/route.h"
#include "lib/sock.h"
#include "lib/util.h"

/*
 * -n: sockets the pings take turns on (rds-tools' range). One by
 * default, where rds-tools opens 8: pings from several ports spread over
 * RDS/TCP's lanes (the lane is a hash of the port), and the tests that
 * watch one lane ping with one socket.
 */
#define PING_SOCKETS_MAX	32

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [options] ADDRESS\n"
		"Send RDS pings to port 0 of ADDRESS and print each round trip.\n\n"
		"  -c COUNT      stop after COUNT pings (default: until interrupted)\n"
		"  -i SECONDS    wait between pings (default 1, fractions allowed)\n"
		"  -I ADDRESS    local (source) address to bind\n"
		"  -n SOCKETS    sockets the pings take turns on, 1-%d (default 1);\n"
		"                a socket sends its next ping only once its last\n"
		"                was answered or timed out\n"
		"  -Q TOS        type of service for the connection (0-255)\n"
		"  -W SECONDS    how long to wait for each reply (default: max(1, -i))\n"
		"  --transport tcp|ib|iwarp   force an RDS transport (SO_RDS_TRANSPORT)\n"
		"  -h, --help    this text\n"
		"Exit status: 0 if every ping was answered, 1 if some were not, 2 on a\n"
		"command-line error.\n", progname, PING_SOCKETS_MAX);
}

/* One socket of -n: its ping in flight, if any. */
struct ping_sock {
	int		fd;
	int		pending;
	uint64_t	seq, t0, deadline;
};

struct ping {
	struct rds_ep	dst, src;
	int		tos, trans;
	double		wait;
	uint64_t	got, min, max, sum;
};

static int ping_open(struct ping *p)
{
	char a[RDS_EP_STRLEN];
	int fd = rds_open(), rc;

	if (p->trans >= 0)
		rds_set_transport(fd, p->trans);
	rds_ep_set_port(&p->src, 0);
	rc = rds_bind(fd, &p->src);
	if (rc) {
		errno = -rc;
		die_errno("bind(%s)", rds_ep_addr_str(&p->src, a));
	}
	/* The type of service is a property of the bound socket's transport. */
	if (p->tos >= 0) {
		rds_tos_t t = p->tos;

		if (ioctl(fd, SIOCRDSSETTOS, &t)) {
			if (errno == ENOTTY || errno == EOPNOTSUPP)
				die("type of service -Q %d is not supported by the transport serving %s",
				    p->tos, rds_ep_addr_str(&p->src, a));
			die_errno("ioctl(SIOCRDSSETTOS, %d)", p->tos);
		}
	}
	return fd;
}

/* Read what arrived on @s; a pong (from port 0 of the address we pinged)
 * answers its ping. */
static void ping_recv(struct ping *p, struct ping_sock *s)
{
	for (;;) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		struct rds_ep src;
		uint64_t rtt;
		char buf[64];

		if (recvfrom(s->fd, buf, sizeof(buf), MSG_DONTWAIT,
			     (struct sockaddr *)&from, &flen) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			die_errno("recvmsg");
		}
		memcpy(&src.ss, &from, sizeof(from));
		src.len = flen;
		if (rds_ep_port(&src) != 0 || !rds_ep_same_addr(&src, &p->dst)) {
			if (getenv("RDS_PING_DEBUG")) {
				char a[RDS_EP_STRLEN];

				fprintf(stderr, "ignored a message from %s\n",
					rds_ep_str(&src, a));
			}
			continue;
		}
		if (!s->pending)	/* the answer to one that timed out */
			continue;
		rtt = (now_ns() - s->t0) / 1000;
		s->pending = 0;
		p->got++;
		p->sum += rtt;
		p->min = rtt < p->min ? rtt : p->min;
		p->max = rtt > p->max ? rtt : p->max;
		printf("%4llu: %llu usec\n", (unsigned long long)s->seq,
		       (unsigned long long)rtt);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "transport", required_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 }
	};
	struct ping p = { .tos = -1, .trans = -1, .wait = -1, .min = UINT64_MAX };
	struct ping_sock socks[PING_SOCKETS_MAX];
	struct pollfd pfd[PING_SOCKETS_MAX];
	double interval = 1.0;
	uint64_t count = 0, sent = 0, next_send;
	unsigned int nsock = 1, next = 0, i, busy;
	int have_src = 0, opt, rc;
	char a[RDS_EP_STRLEN], b[RDS_EP_STRLEN];

	tool_init(argv[0]);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:i:I:n:Q:W:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c': count = parse_u64("-c", optarg, 1, UINT32_MAX); break;
		case 'i': interval = parse_seconds("-i", optarg, 0, 3600); break;
		case 'W': p.wait = parse_seconds("-W", optarg, 0.001, 3600); break;
		case 'I': rds_ep_parse_opt(&p.src, "-I", optarg); have_src = 1; break;
		case 'n': nsock = parse_u64("-n", optarg, 1, PING_SOCKETS_MAX); break;
		case 'Q': p.tos = parse_u64("-Q", optarg, 0, 255); break;
		case 'X':
			p.trans = rds_transport_parse(optarg);
			if (p.trans < 0)
				usage_error("--transport: unknown transport '%s' (tcp, ib, iwarp)", optarg);
			break;
		case 'h': usage(stdout); return 0;
		default: getopt_error(opt, argv);
		}
	}
	if (optind != argc - 1)
		usage_error(optind == argc ? "missing destination address"
					   : "only one destination address allowed");
	rds_ep_parse_opt(&p.dst, "destination", argv[optind]);
	if (p.wait < 0)
		p.wait = interval > 1 ? interval : 1;
	if (have_src && rds_ep_family(&p.src) != rds_ep_family(&p.dst))
		usage_error("-I %s and %s are of different address families",
			    rds_ep_addr_str(&p.src, a), rds_ep_addr_str(&p.dst, b));
	if (!have_src) {
		rc = rds_route_source(&p.dst, &p.src);
		if (rc) {
			errno = -rc;
			die_errno("no route to %s; give a source with -I",
				  rds_ep_addr_str(&p.dst, a));
		}
	}
	for (i = 0; i < nsock; i++) {
		socks[i] = (struct ping_sock){ .fd = ping_open(&p) };
		pfd[i] = (struct pollfd){ .fd = socks[i].fd, .events = POLLIN };
	}
	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);

	printf("RDS PING %s from %s\n", rds_ep_addr_str(&p.dst, a),
	       rds_ep_addr_str(&p.src, b));
	fflush(stdout);
	rds_ep_set_port(&p.dst, 0);
	next_send = now_ns();
	/*
	 * Every -i a ping goes out on the next socket in turn, unless that
	 * socket's last ping is still waiting for its answer (then it waits
	 * with it); a ping not answered within -W is reported lost.
	 */
	for (;;) {
		uint64_t now = now_ns(), wake = UINT64_MAX;
		int more = !count || sent < count;
		struct ping_sock *s = &socks[next];
		char payload = 0;

		if (interrupted)
			break;
		if (more && now >= next_send && !s->pending) {
			s->seq = ++sent;
			s->t0 = now;
			s->deadline = now + (uint64_t)(p.wait * 1e9);
			next = (next + 1) % nsock;
			next_send = now + (uint64_t)(interval * 1e9);
			if (sendto(s->fd, &payload, 0, 0, (struct sockaddr *)&p.dst.ss,
				   p.dst.len) < 0) {
				printf("%4llu: send failed: %s\n", (unsigned long long)s->seq,
				       strerror(errno));
				fflush(stdout);
			} else {
				s->pending = 1;
			}
			continue;
		}
		busy = 0;
		for (i = 0; i < nsock; i++) {
			if (!socks[i].pending)
				continue;
			if (now >= socks[i].deadline) {
				socks[i].pending = 0;
				printf("%4llu: no reply within %g s\n",
				       (unsigned long long)socks[i].seq, p.wait);
				fflush(stdout);
				continue;
			}
			busy = 1;
			wake = socks[i].deadline < wake ? socks[i].deadline : wake;
		}
		if (!more && !busy)
			break;
		if (more && !s->pending)
			wake = next_send < wake ? next_send : wake;
		rc = poll(pfd, nsock, wake == UINT64_MAX ? -1 :
			  wake <= now ? 0 : (int)((wake - now) / 1000000) + 1);
		if (rc < 0 && errno != EINTR)
			die_errno("poll");
		for (i = 0; rc > 0 && i < nsock; i++)
			if (pfd[i].revents & POLLIN)
				ping_recv(&p, &socks[i]);
	}
	printf("--- %s rds ping statistics ---\n", rds_ep_addr_str(&p.dst, a));
	printf("%llu sent, %llu received, %.0f%% lost",
	       (unsigned long long)sent, (unsigned long long)p.got,
	       sent ? 100.0 * (sent - p.got) / sent : 0.0);
	if (p.got)
		printf("; rtt min/avg/max %llu/%llu/%llu usec",
		       (unsigned long long)p.min, (unsigned long long)(p.sum / p.got),
		       (unsigned long long)p.max);
	printf("\n");
	for (i = 0; i < nsock; i++)
		close(socks[i].fd);
	return sent && p.got == sent ? 0 : 1;
}
