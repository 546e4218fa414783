// SPDX-License-Identifier: GPL-2.0
/*
 * rds-wirecheck: prove exactly-once, in-order, intact delivery between
 * two RDS nodes while the wire misbehaves.
 *
 *   rds-wirecheck recv ADDR PORT SENDERS COUNT [TIMEOUT_S [STALL_S RCVBUF]]
 *   rds-wirecheck send LOCAL DEST PORT ID COUNT
 *
 * Each sender socket sends COUNT messages numbered 0..COUNT-1, sizes
 * cycling from 0-byte-payload headers up to 1 MiB, each carrying its
 * sender id, number, length and the SHA-256 of its body. The receiver
 * checks that every sender's numbers arrive exactly once and in order
 * and that every body matches its hash, and prints one summary line:
 *
 *   wirecheck: senders S received R expected E lost L dup D
 *              reordered O corrupt C
 *
 * Exit status 0 only if R == E and L, D, O and C are all 0.
 *
 * STALL_S and RCVBUF make a slow receiver: its SO_RCVBUF is set to RCVBUF
 * bytes (0 leaves the default) and it reads nothing for STALL_S seconds
 * after it is ready, so the senders fill it up and meet its congestion
 * map. Exactly once holds only while what was on the way when the map
 * went out stays within the receiver's hard limit (4 x SO_RCVBUF +
 * 1 MiB): past it the receiver drops (rds.rst, "Delivery").
 *
 * WC_EXIT=1 in a sender's environment makes it close its socket and exit
 * as soon as sendmsg() took its last message, as a short-lived client
 * does: what is still queued then belongs to a closed socket, which RDS
 * promises to deliver all the same.
 *
 * WC_LEAD_BIG=N in a sender's environment makes its first N messages
 * 1 MiB each: senders started together then pass the congestion check
 * with more than a slow receiver's hard limit before its map reaches
 * them, so passing that limit is certain rather than a matter of
 * timing (then the receiver drops, and the check reports the loss).
 *
 * WC_TOS=N in either's environment sets the socket's type of service
 * (SIOCRDSSETTOS): a connection of its own, new when the test starts.
 *
 * For streams across a failover (selftests/hosts/ha_route.sh): a
 * sender's WC_PACE_MS=N waits N ms after each message and WC_MAXLEN=N
 * caps its sizes at N bytes; a receiver's WC_PROGRESS=FILE keeps FILE
 * holding how many messages arrived so far (rewritten at most every
 * 50 ms and at the end) and adds a line for each of the first 32 times
 * of at least 0.2 s between two arrivals, and one for the longest:
 *
 *   wirecheck: gap G s before message M
 *   wirecheck: longest gap G s after message M
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <linux/rds.h>

#include "../lib/sha256.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif

#define MAX_SENDERS	256
#define MAX_MSG		(1 << 20)
#define BUF_BYTES	(8 << 20)

struct wc_hdr {
	uint32_t	magic;
	uint32_t	sender;
	uint32_t	seq;
	uint32_t	len;		/* whole message */
	uint8_t		sha[32];	/* of the bytes after this header */
};

#define WC_MAGIC	0x52445357	/* "RDSW" */

/* Sizes cycle through small, fragment-edge, page-crossing and huge. */
static const uint32_t wc_sizes[] = {
	sizeof(struct wc_hdr), 100, 1000, 4095, 4096, 4097, 8192, 9000,
	65536, 100000, 262144, MAX_MSG,
};

union wc_addr {
	struct sockaddr		sa;
	struct sockaddr_in	sin;
	struct sockaddr_in6	sin6;
};

static socklen_t wc_parse(const char *ip, int port, union wc_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, ip, &a->sin.sin_addr) == 1) {
		a->sin.sin_family = AF_INET;
		a->sin.sin_port = htons(port);
		return sizeof(a->sin);
	}
	if (inet_pton(AF_INET6, ip, &a->sin6.sin6_addr) == 1) {
		a->sin6.sin6_family = AF_INET6;
		a->sin6.sin6_port = htons(port);
		return sizeof(a->sin6);
	}
	fprintf(stderr, "rds-wirecheck: bad address %s\n", ip);
	exit(2);
}

static int wc_socket(const char *ip, int port)
{
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0), buf = BUF_BYTES;
	union wc_addr a;
	socklen_t len;

	if (fd < 0) {
		perror("rds-wirecheck: socket");
		exit(2);
	}
	/* Root may exceed net.core.[wr]mem_max: a 1 MiB message needs it. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	len = wc_parse(ip, port, &a);
	if (bind(fd, &a.sa, len)) {
		fprintf(stderr, "rds-wirecheck: bind %s:%d: %s\n", ip, port,
			strerror(errno));
		exit(2);
	}
	if (getenv("WC_TOS")) {
		rds_tos_t tos = atoi(getenv("WC_TOS"));

		if (ioctl(fd, SIOCRDSSETTOS, &tos)) {
			perror("rds-wirecheck: SIOCRDSSETTOS");
			exit(2);
		}
	}
	return fd;
}

static double wc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void wc_fill(uint8_t *msg, uint32_t sender, uint32_t seq, uint32_t len)
{
	struct wc_hdr *h = (struct wc_hdr *)msg;
	uint32_t i, x = sender * 2654435761u ^ seq * 40503u;

	for (i = sizeof(*h); i < len; i++) {
		x = x * 1103515245u + 12345u;
		msg[i] = x >> 16;
	}
	h->magic = WC_MAGIC;
	h->sender = sender;
	h->seq = seq;
	h->len = len;
	sha256(msg + sizeof(*h), len - sizeof(*h), h->sha);
}

static int wc_send(int argc, char **argv)
{
	uint32_t id, count, seq, len, lead_big = 0;
	const char *lead = getenv("WC_LEAD_BIG");
	const char *ex = getenv("WC_EXIT");
	const char *pace = getenv("WC_PACE_MS");
	const char *cap = getenv("WC_MAXLEN");
	int exit_early = ex && !strcmp(ex, "1");
	uint32_t maxlen = MAX_MSG, pace_ms = 0;
	union wc_addr dst;
	socklen_t dlen;
	uint8_t *msg;
	int fd, port;

	if (argc != 7)
		return 2;
	if (lead)
		lead_big = strtoul(lead, NULL, 0);
	if (pace)
		pace_ms = strtoul(pace, NULL, 0);
	if (cap)
		maxlen = strtoul(cap, NULL, 0);
	if (maxlen < sizeof(struct wc_hdr) || maxlen > MAX_MSG)
		return 2;
	port = atoi(argv[4]);
	id = strtoul(argv[5], NULL, 0);
	count = strtoul(argv[6], NULL, 0);
	fd = wc_socket(argv[2], port + 1 + id);
	dlen = wc_parse(argv[3], port, &dst);
	msg = malloc(MAX_MSG);
	if (!msg)
		return 2;
	for (seq = 0; seq < count; seq++) {
		len = wc_sizes[(seq + id) % (sizeof(wc_sizes) / sizeof(wc_sizes[0]))];
		if (seq < lead_big)
			len = MAX_MSG;
		if (len > maxlen)
			len = maxlen;
		wc_fill(msg, id, seq, len);
		while (sendto(fd, msg, len, 0, &dst.sa, dlen) != (ssize_t)len) {
			/* Congestion and a full send buffer are waits, not loss. */
			if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) {
				usleep(1000);
				continue;
			}
			fprintf(stderr, "rds-wirecheck: send %u: %s\n", seq,
				strerror(errno));
			return 1;
		}
		if (pace_ms)
			usleep(pace_ms * 1000);
	}
	printf("wirecheck: sender %u sent %u%s\n", id, count,
	       exit_early ? ", closing" : "");
	fflush(stdout);
	if (exit_early) {
		close(fd);
		return 0;
	}
	/* Stay until the receiver had its time (the caller kills us): the
	 * usual test does not depend on what a closed socket leaves behind.
	 */
	pause();
	return 0;
}

/* WC_PROGRESS: how many arrived, for a script watching the stream. */
static void wc_progress(const char *path, unsigned long n)
{
	char buf[32];
	int fd, len;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "%lu\n", n);
	if (write(fd, buf, len) != len)
		perror("rds-wirecheck: progress");
	close(fd);
}

static int wc_recv(int argc, char **argv)
{
	uint32_t senders, count, next[MAX_SENDERS] = { 0 };
	unsigned long received = 0, lost = 0, dup = 0, reord = 0, bad = 0;
	unsigned long expected;
	double deadline, stall;
	struct pollfd pfd;
	int rcvbuf;
	const char *progress = getenv("WC_PROGRESS");
	double last = 0, written = 0, gap = 0, now;
	unsigned long gap_after = 0;
	int ngaps = 0;
	uint8_t sha[32];
	uint8_t *msg;
	ssize_t n;
	int fd;

	if (argc < 6)
		return 2;
	senders = strtoul(argv[4], NULL, 0);
	count = strtoul(argv[5], NULL, 0);
	deadline = wc_now() + (argc > 6 ? atof(argv[6]) : 120);
	stall = argc > 7 ? atof(argv[7]) : 0;
	rcvbuf = argc > 8 ? atoi(argv[8]) : 0;
	if (!senders || senders > MAX_SENDERS || stall < 0 || rcvbuf < 0)
		return 2;
	expected = (unsigned long)senders * count;
	fd = wc_socket(argv[2], atoi(argv[3]));
	if (rcvbuf &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) {
		perror("rds-wirecheck: SO_RCVBUF");
		return 2;
	}
	msg = malloc(MAX_MSG);
	if (!msg)
		return 2;
	printf("wirecheck: receiver ready\n");
	fflush(stdout);
	if (stall > 0) {
		usleep((useconds_t)(stall * 1e6));
		printf("wirecheck: reading after a stall of %.1f s\n", stall);
		fflush(stdout);
	}

	pfd.fd = fd;
	pfd.events = POLLIN;
	while (received < expected && wc_now() < deadline) {
		struct wc_hdr *h = (struct wc_hdr *)msg;

		if (poll(&pfd, 1, 500) <= 0)
			continue;
		n = recv(fd, msg, MAX_MSG, MSG_DONTWAIT);
		if (n < 0)
			continue;
		now = wc_now();
		if (received && now - last > gap) {
			gap = now - last;
			gap_after = received;
		}
		if (progress && received && now - last >= 0.2 && ngaps < 32) {
			ngaps++;
			printf("wirecheck: gap %.3f s before message %lu\n",
			       now - last, received + 1);
		}
		last = now;
		received++;
		if (now - written >= 0.05) {
			wc_progress(progress, received);
			written = now;
		}
		if ((size_t)n < sizeof(*h) || h->magic != WC_MAGIC ||
		    h->len != (uint32_t)n || h->sender >= senders) {
			bad++;
			continue;
		}
		sha256(msg + sizeof(*h), n - sizeof(*h), sha);
		if (memcmp(sha, h->sha, sizeof(sha)))
			bad++;
		if (h->seq < next[h->sender]) {
			dup++;
		} else {
			if (h->seq > next[h->sender]) {
				lost += h->seq - next[h->sender];
				reord++;
			}
			next[h->sender] = h->seq + 1;
		}
	}
	for (uint32_t s = 0; s < senders; s++)
		if (next[s] < count)
			lost += count - next[s];
	if (progress) {
		wc_progress(progress, received);
		printf("wirecheck: longest gap %.3f s after message %lu\n",
		       gap, gap_after);
	}
	printf("wirecheck: senders %u received %lu expected %lu lost %lu dup %lu reordered %lu corrupt %lu\n",
	       senders, received, expected, lost, dup, reord, bad);
	return received == expected && !lost && !dup && !reord && !bad ? 0 : 1;
}

int main(int argc, char **argv)
{
	int ret = 2;

	if (argc > 1 && !strcmp(argv[1], "recv"))
		ret = wc_recv(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "send"))
		ret = wc_send(argc, argv);
	if (ret == 2)
		fprintf(stderr, "usage: rds-wirecheck recv ADDR PORT SENDERS COUNT [TIMEOUT_S [STALL_S RCVBUF]]\n"
				"       rds-wirecheck send LOCAL DEST PORT ID COUNT\n");
	return ret;
}
