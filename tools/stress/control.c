// SPDX-License-Identifier: GPL-2.0
/* rds-stress control connection over TCP. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/util.h"
#include "stress/control.h"

#define CTL_TIMEOUT_MS	120000
#define STATUS_MAGIC	0x52445353	/* "RDSS" */

struct ctl_status {
	uint32_t	magic, ok, unsupported;
	char		msg[200];
};

static void write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die_errno("control connection: send");
		p += n;
		len -= n;
	}
}

static void read_full(int fd, void *buf, size_t len, const char *what)
{
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int rc = poll(&pfd, 1, CTL_TIMEOUT_MS);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc == 0)
			die("control connection: no %s from the peer within %d s",
			    what, CTL_TIMEOUT_MS / 1000);
		n = recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die_errno("control connection: receiving the %s", what);
		if (n == 0)
			die("control connection: the peer closed it before sending the %s", what);
		p += n;
		len -= n;
	}
}

int ctl_accept(const struct stress_opts *o)
{
	struct rds_ep ep;
	char a[RDS_EP_STRLEN];
	int lfd, fd, one = 1;

	if (o->have_local)
		ep = o->local;
	else
		rds_ep_any(&ep, AF_INET6);
	rds_ep_set_port(&ep, o->port);
	lfd = socket(rds_ep_family(&ep), SOCK_STREAM, 0);
	if (lfd < 0 && !o->have_local) {	/* no IPv6 in this kernel */
		rds_ep_any(&ep, AF_INET);
		rds_ep_set_port(&ep, o->port);
		lfd = socket(AF_INET, SOCK_STREAM, 0);
	}
	if (lfd < 0)
		die_errno("control socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&ep.ss, ep.len))
		die_errno("control connection: bind(%s)", rds_ep_str(&ep, a));
	if (listen(lfd, 1))
		die_errno("control connection: listen");
	do {
		fd = accept(lfd, NULL, NULL);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
		die_errno("control connection: accept");
	close(lfd);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Try the control connection again after @err, having retried @tries times? */
static int retry_connect(const struct stress_opts *o, int err, int tries)
{
	if (o->connect_retries < 0)
		return (err == ECONNREFUSED || err == EINTR) && tries < 100;
	if (err != ECONNREFUSED && err != EINTR && err != EHOSTUNREACH &&
	    err != ENETUNREACH)
		return 0;
	if (tries >= o->connect_retries)
		return 0;
	fprintf(stderr, "%s: control connection: %s, retrying (%d of %d)\n",
		progname, strerror(err), tries + 1, o->connect_retries);
	return 1;
}

int ctl_connect(const struct stress_opts *o)
{
	struct rds_ep ep = o->peer;
	char a[RDS_EP_STRLEN];
	int fd, one = 1, tries;

	rds_ep_set_port(&ep, o->port);
	/*
	 * The passive side may still be starting: by default keep trying
	 * for ~10 s while refused; --connect-retries N (rds-tools') retries
	 * N times, a second apart, while refused or unreachable.
	 */
	for (tries = 0;; tries++) {
		fd = socket(rds_ep_family(&ep), SOCK_STREAM, 0);
		if (fd < 0)
			die_errno("control socket");
		if (o->have_local) {
			struct rds_ep l = o->local;

			rds_ep_set_port(&l, 0);
			if (bind(fd, (struct sockaddr *)&l.ss, l.len))
				die_errno("control connection: bind(%s)", rds_ep_addr_str(&l, a));
		}
		if (!connect(fd, (struct sockaddr *)&ep.ss, ep.len))
			break;
		if (!retry_connect(o, errno, tries))
			die_errno("control connection to %s (is the passive rds-stress running?)",
				  rds_ep_str(&ep, a));
		close(fd);
		usleep(o->connect_retries < 0 ? 100000 : 1000000);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

void ctl_local_addr(int fd, struct rds_ep *ep)
{
	memset(ep, 0, sizeof(*ep));
	ep->len = sizeof(ep->ss);
	if (getsockname(fd, (struct sockaddr *)&ep->ss, &ep->len))
		die_errno("control connection: getsockname");
	/* A v4-mapped address (dual-stack listener) becomes plain IPv4. */
	if (ep->ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ep->ss;

		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			struct sockaddr_in s4 = { .sin_family = AF_INET };

			memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
			memset(&ep->ss, 0, sizeof(ep->ss));
			memcpy(&ep->ss, &s4, sizeof(s4));
			ep->len = sizeof(s4);
		}
	}
	rds_ep_set_port(ep, 0);
}

void ctl_send_opts(int fd, const struct stress_opts *o,
		   const struct rds_ep *addr, uint16_t port_base)
{
	struct stress_wire w = {
		.magic = htonl(STRESS_WIRE_MAGIC),
		.version = htonl(STRESS_WIRE_VERSION),
		.tasks = htonl(o->tasks), .depth = htonl(o->depth),
		.req_size = htonl(o->req_size), .ack_size = htonl(o->ack_size),
		.rdma_size = htonl(o->rdma_size), .iovecs = htonl(o->iovecs),
		.rdma_mode = htonl(o->rdma_mode), .seconds = htonl(o->seconds),
		.tos = htonl(o->tos), .flags = htonl(o->flags),
		.transport = (int32_t)htonl((uint32_t)o->transport),
		.family = htonl(rds_ep_family(addr)),
		.port_base = htonl(port_base),
		.rdma_align = htonl(o->rdma_align),
		.rerequest_ms = htonl(o->rerequest_ms),
	};

	if (rds_ep_family(addr) == AF_INET6)
		memcpy(w.addr, &((const struct sockaddr_in6 *)&addr->ss)->sin6_addr, 16);
	else
		memcpy(w.addr, &((const struct sockaddr_in *)&addr->ss)->sin_addr, 4);
	write_full(fd, &w, sizeof(w));
}

void ctl_recv_opts(int fd, struct stress_opts *o, struct rds_ep *peer,
		   uint16_t *peer_base)
{
	struct stress_wire w;
	const char *bad;
	uint32_t fam;

	read_full(fd, &w, sizeof(w), "options");
	if (ntohl(w.magic) != STRESS_WIRE_MAGIC)
		die("control connection: the peer is not rds-stress (bad magic)");
	if (ntohl(w.version) != STRESS_WIRE_VERSION)
		die("control connection: the peer speaks version %u, we speak %u",
		    ntohl(w.version), STRESS_WIRE_VERSION);
	o->tasks = ntohl(w.tasks);
	o->depth = ntohl(w.depth);
	o->req_size = ntohl(w.req_size);
	o->ack_size = ntohl(w.ack_size);
	o->rdma_size = ntohl(w.rdma_size);
	o->iovecs = ntohl(w.iovecs);
	o->rdma_mode = ntohl(w.rdma_mode);
	o->seconds = ntohl(w.seconds);
	o->tos = ntohl(w.tos);
	o->flags = ntohl(w.flags);
	o->transport = (int32_t)ntohl((uint32_t)w.transport);
	o->rdma_align = ntohl(w.rdma_align);
	o->rerequest_ms = ntohl(w.rerequest_ms);
	bad = stress_check(o);
	if (bad)
		die("options from the active side: %s", bad);
	fam = ntohl(w.family);
	if (fam != AF_INET && fam != AF_INET6)
		die("options from the active side: bad address family %u", fam);
	rds_ep_any(peer, fam);
	if (fam == AF_INET6)
		memcpy(&((struct sockaddr_in6 *)&peer->ss)->sin6_addr, w.addr, 16);
	else
		memcpy(&((struct sockaddr_in *)&peer->ss)->sin_addr, w.addr, 4);
	if (ntohl(w.port_base) == 0 || ntohl(w.port_base) + o->tasks > 65535)
		die("options from the active side: bad port base %u", ntohl(w.port_base));
	*peer_base = ntohl(w.port_base);
}

void ctl_send_status(int fd, int ok, int unsupported, const char *msg)
{
	struct ctl_status s = {
		.magic = htonl(STATUS_MAGIC), .ok = htonl(!!ok),
		.unsupported = htonl(!!unsupported),
	};

	snprintf(s.msg, sizeof(s.msg), "%s", msg ? msg : "");
	write_full(fd, &s, sizeof(s));
}

int ctl_recv_status(int fd, char *msg, size_t len, int *unsupported)
{
	struct ctl_status s;

	read_full(fd, &s, sizeof(s), "ready status");
	if (ntohl(s.magic) != STATUS_MAGIC)
		die("control connection: garbled status from the peer");
	s.msg[sizeof(s.msg) - 1] = 0;
	snprintf(msg, len, "%s", s.msg);
	*unsupported = !!ntohl(s.unsupported);
	return !!ntohl(s.ok);
}
