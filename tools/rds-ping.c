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
		"  -Q TOS        type of service for the connection (0-255)\n"
		"  -W SECONDS    how long to wait for each reply (default: max(1, -i))\n"
		"  --transport tcp|ib|iwarp   force an RDS transport (SO_RDS_TRANSPORT)\n"
		"  -h, --help    this text\n"
		"Exit status: 0 if every ping was answered, 1 if some were not, 2 on a\n"
		"command-line error.\n", progname);
}

/* Wait for the pong; returns 1 if one arrived, 0 on timeout. */
static int wait_pong(int fd, const struct rds_ep *dst, uint64_t deadline)
{
	for (;;) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns();
		struct rds_ep src;
		char buf[64];
		int rc;

		if (now >= deadline || interrupted)
			return 0;
		rc = poll(&pfd, 1, (int)((deadline - now) / 1000000) + 1);
		if (rc < 0 && errno != EINTR)
			die_errno("poll");
		if (rc <= 0)
			continue;
		if (recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
			     (struct sockaddr *)&from, &flen) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			die_errno("recvmsg");
		}
		memcpy(&src.ss, &from, sizeof(from));
		src.len = flen;
		/* A pong comes from port 0 of the address we pinged. */
		if (rds_ep_port(&src) == 0 && rds_ep_same_addr(&src, dst))
			return 1;
		if (getenv("RDS_PING_DEBUG")) {
			char a[RDS_EP_STRLEN];

			fprintf(stderr, "ignored a message from %s\n", rds_ep_str(&src, a));
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "transport", required_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 }
	};
	double interval = 1.0, wait = -1;
	uint64_t count = 0, sent = 0, got = 0, min = UINT64_MAX, max = 0, sum = 0;
	struct rds_ep dst, src;
	int have_src = 0, tos = -1, trans = -1, fd, opt, rc;
	char a[RDS_EP_STRLEN], b[RDS_EP_STRLEN];

	tool_init(argv[0]);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:i:I:Q:W:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c': count = parse_u64("-c", optarg, 1, UINT32_MAX); break;
		case 'i': interval = parse_seconds("-i", optarg, 0, 3600); break;
		case 'W': wait = parse_seconds("-W", optarg, 0.001, 3600); break;
		case 'I': rds_ep_parse_opt(&src, "-I", optarg); have_src = 1; break;
		case 'Q': tos = parse_u64("-Q", optarg, 0, 255); break;
		case 'X':
			trans = rds_transport_parse(optarg);
			if (trans < 0)
				usage_error("--transport: unknown transport '%s' (tcp, ib, iwarp)", optarg);
			break;
		case 'h': usage(stdout); return 0;
		default: getopt_error(opt, argv);
		}
	}
	if (optind != argc - 1)
		usage_error(optind == argc ? "missing destination address"
					   : "only one destination address allowed");
	rds_ep_parse_opt(&dst, "destination", argv[optind]);
	if (wait < 0)
		wait = interval > 1 ? interval : 1;
	if (have_src && rds_ep_family(&src) != rds_ep_family(&dst))
		usage_error("-I %s and %s are of different address families",
			    rds_ep_addr_str(&src, a), rds_ep_addr_str(&dst, b));
	if (!have_src) {
		rc = rds_route_source(&dst, &src);
		if (rc) {
			errno = -rc;
			die_errno("no route to %s; give a source with -I",
				  rds_ep_addr_str(&dst, a));
		}
	}

	fd = rds_open();
	if (trans >= 0)
		rds_set_transport(fd, trans);
	rds_ep_set_port(&src, 0);
	rc = rds_bind(fd, &src);
	if (rc) {
		errno = -rc;
		die_errno("bind(%s)", rds_ep_addr_str(&src, a));
	}
	/* The type of service is a property of the bound socket's transport. */
	if (tos >= 0) {
		rds_tos_t t = tos;

		if (ioctl(fd, SIOCRDSSETTOS, &t)) {
			if (errno == ENOTTY || errno == EOPNOTSUPP)
				die("type of service -Q %d is not supported by the transport serving %s",
				    tos, rds_ep_addr_str(&src, a));
			die_errno("ioctl(SIOCRDSSETTOS, %d)", tos);
		}
	}
	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);

	printf("RDS PING %s from %s\n", rds_ep_addr_str(&dst, a),
	       rds_ep_addr_str(&src, b));
	fflush(stdout);
	while (!interrupted && (!count || sent < count)) {
		uint64_t t0, rtt;
		char payload = 0;

		if (sent && interval > 0) {
			struct timespec ts = { (time_t)interval,
				(long)((interval - (time_t)interval) * 1e9) };
			nanosleep(&ts, NULL);
			if (interrupted)
				break;
		}
		rds_ep_set_port(&dst, 0);
		sent++;
		t0 = now_ns();
		if (sendto(fd, &payload, 0, 0, (struct sockaddr *)&dst.ss, dst.len) < 0) {
			printf("%4llu: send failed: %s\n", (unsigned long long)sent,
			       strerror(errno));
			fflush(stdout);
			continue;
		}
		if (!wait_pong(fd, &dst, t0 + (uint64_t)(wait * 1e9))) {
			if (!interrupted)
				printf("%4llu: no reply within %g s\n",
				       (unsigned long long)sent, wait);
			fflush(stdout);
			continue;
		}
		rtt = (now_ns() - t0) / 1000;
		got++;
		sum += rtt;
		min = rtt < min ? rtt : min;
		max = rtt > max ? rtt : max;
		printf("%4llu: %llu usec\n", (unsigned long long)sent,
		       (unsigned long long)rtt);
		fflush(stdout);
	}
	printf("--- %s rds ping statistics ---\n", rds_ep_addr_str(&dst, a));
	printf("%llu sent, %llu received, %.0f%% lost",
	       (unsigned long long)sent, (unsigned long long)got,
	       sent ? 100.0 * (sent - got) / sent : 0.0);
	if (got)
		printf("; rtt min/avg/max %llu/%llu/%llu usec",
		       (unsigned long long)min, (unsigned long long)(sum / got),
		       (unsigned long long)max);
	printf("\n");
	close(fd);
	return sent && got == sent ? 0 : 1;
}
