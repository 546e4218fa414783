/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RDS/TCP on the wire, from user space: frame builders and parsers and a
 * small session layer (one TCP connection to a peer's port 16385) for
 * rds-wire-peer. The layout equals include/net/rds/wire.h, which user
 * space cannot include; the static_asserts pin it.
 *
 * A stream is a sequence of frames, each [48-byte header][h_len bytes];
 * every header field is big endian. Over TCP h_ack, h_credit and h_csum
 * are 0 and the only flag a sender adds is RETRANSMITTED.
 */
#ifndef _RDS_WIRE_H
#define _RDS_WIRE_H

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RDS_WIRE_TCP_PORT	16385
#define RDS_WIRE_HDR_LEN	48
#define RDS_WIRE_EXT_SPACE	16
#define RDS_WIRE_CONG_BYTES	8192
#define RDS_WIRE_MAX_MSG	(1u << 20)

#define RDS_WIRE_F_CONG		0x01
#define RDS_WIRE_F_ACK_REQ	0x02
#define RDS_WIRE_F_RETRANS	0x04

#define RDS_WIRE_EXT_NONE	0
#define RDS_WIRE_EXT_VERSION	1
#define RDS_WIRE_EXT_RDMA	2
#define RDS_WIRE_EXT_RDMA_DEST	3
#define RDS_WIRE_EXT_RDMA_BYTES	4
#define RDS_WIRE_EXT_NPATHS	5
#define RDS_WIRE_EXT_GEN_NUM	6
#define RDS_WIRE_EXT_CAP_BITS	7
#define RDS_WIRE_EXT_SPORT_IDX	8
#define RDS_WIRE_EXT_CSUM	9
/* Ours only (lane count for peers that name their lanes); 6.1 stops at it. */
#define RDS_WIRE_EXT_LANES	0xd1

/* The multipath probe: a ping from this port carrying NPATHS. */
#define RDS_WIRE_PROBE_PORT	1

/* The header as it travels (all fields big endian). */
struct rds_wire_hdr {
	uint64_t h_sequence;
	uint64_t h_ack;
	uint32_t h_len;
	uint16_t h_sport;
	uint16_t h_dport;
	uint8_t h_flags;
	uint8_t h_credit;
	uint8_t h_padding[4];
	uint16_t h_csum;
	uint8_t h_exthdr[RDS_WIRE_EXT_SPACE];
} __attribute__((packed));

_Static_assert(sizeof(struct rds_wire_hdr) == RDS_WIRE_HDR_LEN,
	       "RDS header is 48 bytes");
_Static_assert(__builtin_offsetof(struct rds_wire_hdr, h_len) == 16, "h_len");
_Static_assert(__builtin_offsetof(struct rds_wire_hdr, h_sport) == 20, "sport");
_Static_assert(__builtin_offsetof(struct rds_wire_hdr, h_flags) == 24, "flags");
_Static_assert(__builtin_offsetof(struct rds_wire_hdr, h_csum) == 30, "csum");
_Static_assert(__builtin_offsetof(struct rds_wire_hdr, h_exthdr) == 32, "ext");

/* A decoded header, host byte order. */
struct rds_wire_msg {
	uint64_t seq;
	uint64_t ack;
	uint32_t len;
	uint16_t sport;
	uint16_t dport;
	uint8_t flags;
	uint8_t credit;
	uint16_t csum;
	uint8_t ext[RDS_WIRE_EXT_SPACE];
};

/* Body length of an extension type, -1 for a type of unknown length. */
static inline int rds_wire_ext_body_len(uint8_t type)
{
	switch (type) {
	case RDS_WIRE_EXT_NONE: return 0;
	case RDS_WIRE_EXT_VERSION: return 4;
	case RDS_WIRE_EXT_RDMA: return 4;
	case RDS_WIRE_EXT_RDMA_DEST: return 8;
	case RDS_WIRE_EXT_RDMA_BYTES: return 8;
	case RDS_WIRE_EXT_NPATHS: return 2;
	case RDS_WIRE_EXT_GEN_NUM: return 4;
	case RDS_WIRE_EXT_CAP_BITS: return 4;
	case RDS_WIRE_EXT_SPORT_IDX: return 1;
	case RDS_WIRE_EXT_CSUM: return 8;
	case RDS_WIRE_EXT_LANES: return 2;
	}
	return -1;
}

static inline void rds_wire_encode(const struct rds_wire_msg *m, void *out)
{
	struct rds_wire_hdr h;

	memset(&h, 0, sizeof(h));
	h.h_sequence = htobe64(m->seq);
	h.h_ack = htobe64(m->ack);
	h.h_len = htobe32(m->len);
	h.h_sport = htobe16(m->sport);
	h.h_dport = htobe16(m->dport);
	h.h_flags = m->flags;
	h.h_credit = m->credit;
	h.h_csum = htobe16(m->csum);
	memcpy(h.h_exthdr, m->ext, sizeof(h.h_exthdr));
	memcpy(out, &h, sizeof(h));
}

static inline void rds_wire_decode(const void *in, struct rds_wire_msg *m)
{
	struct rds_wire_hdr h;

	memcpy(&h, in, sizeof(h));
	m->seq = be64toh(h.h_sequence);
	m->ack = be64toh(h.h_ack);
	m->len = be32toh(h.h_len);
	m->sport = be16toh(h.h_sport);
	m->dport = be16toh(h.h_dport);
	m->flags = h.h_flags;
	m->credit = h.h_credit;
	m->csum = be16toh(h.h_csum);
	memcpy(m->ext, h.h_exthdr, sizeof(m->ext));
}

/*
 * Append one extension [type][body] at *@pos of @ext; the body is given
 * in host order for the known fixed-size types (value in @v, @v2 for the
 * RDMA_DEST offset) and copied raw (@raw, @rawlen) otherwise. Returns 0,
 * or -1 when it does not fit (the area is left as it was).
 */
static inline int rds_wire_ext_add(uint8_t *ext, size_t *pos, uint8_t type,
				   uint32_t v, uint32_t v2,
				   const void *raw, size_t rawlen)
{
	uint8_t body[16];
	int blen = rds_wire_ext_body_len(type);
	uint32_t b32;
	uint16_t b16;

	if (blen < 0 || raw) {
		blen = (int)rawlen;
		if (rawlen > sizeof(body))
			return -1;
		if (rawlen)
			memcpy(body, raw, rawlen);
	} else if (blen == 2) {
		b16 = htobe16((uint16_t)v);
		memcpy(body, &b16, 2);
	} else if (blen >= 4) {
		b32 = htobe32(v);
		memcpy(body, &b32, 4);
		if (blen == 8) {
			b32 = htobe32(v2);
			memcpy(body + 4, &b32, 4);
		}
	}
	if (*pos + 1 + (size_t)blen > RDS_WIRE_EXT_SPACE)
		return -1;
	ext[*pos] = type;
	memcpy(ext + *pos + 1, body, blen);
	*pos += 1 + blen;
	return 0;
}

/*
 * Walk the extension list: calls @fn for each well-formed entry until
 * type 0 or the end of the area. Returns the number of entries, or -1 if
 * the list holds an unknown type or an entry overruns the area (the
 * entries before it were still reported).
 */
static inline int rds_wire_ext_walk(const uint8_t *ext,
				    void (*fn)(uint8_t type, const uint8_t *body,
					       int len, void *arg),
				    void *arg)
{
	size_t pos = 0;
	int n = 0, blen;

	while (pos < RDS_WIRE_EXT_SPACE && ext[pos] != RDS_WIRE_EXT_NONE) {
		blen = rds_wire_ext_body_len(ext[pos]);
		if (blen < 0 || pos + 1 + blen > RDS_WIRE_EXT_SPACE)
			return -1;
		if (fn)
			fn(ext[pos], ext + pos + 1, blen, arg);
		pos += 1 + blen;
		n++;
	}
	return n;
}

/* Find extension @type; its body is copied into @body (up to 8 bytes). */
static inline int rds_wire_ext_find(const uint8_t *ext, uint8_t type,
				    uint8_t *body)
{
	size_t pos = 0;
	int blen;

	while (pos < RDS_WIRE_EXT_SPACE && ext[pos] != RDS_WIRE_EXT_NONE) {
		blen = rds_wire_ext_body_len(ext[pos]);
		if (blen < 0 || pos + 1 + blen > RDS_WIRE_EXT_SPACE)
			return -1;
		if (ext[pos] == type) {
			memcpy(body, ext + pos + 1, blen);
			return blen;
		}
		pos += 1 + blen;
	}
	return -1;
}

static inline const char *rds_wire_kind(const struct rds_wire_msg *m)
{
	if (m->flags == RDS_WIRE_F_CONG && !m->sport && !m->dport)
		return "cong-map";
	if (!m->dport && m->sport)
		return m->sport == RDS_WIRE_PROBE_PORT ? "probe" : "ping";
	if (!m->sport && m->dport)
		return "pong";
	if (!m->sport && !m->dport)
		return "null";
	return "data";
}

/* ---- sessions: one TCP connection speaking RDS ---- */

static inline long long rds_wire_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

struct rds_wire_sess {
	int fd;
	uint64_t tx_seq;	/* next sequence we send */
	uint32_t laddr, faddr;	/* network order */
	/* counts of what the peer sent us */
	unsigned long rx_frames, rx_cong, rx_pings, rx_pongs, rx_data;
	unsigned long tx_pongs;
	int answer_pings;	/* reply to the peer's pings */
	int verbose;
	/* receive buffer: one frame at a time */
	unsigned char hdr[RDS_WIRE_HDR_LEN];
	size_t hdr_have;
	unsigned char *body;
	size_t body_have, body_cap;
	struct rds_wire_msg cur;
};

static inline void rds_wire_sess_init(struct rds_wire_sess *s, int fd)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->tx_seq = 1;
	s->answer_pings = 1;
}

static inline void rds_wire_sess_close(struct rds_wire_sess *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	free(s->body);
	s->body = NULL;
	s->body_cap = 0;
}

/*
 * A TCP connection from @src (0: the route's choice) to @dst:16385
 * within @timeout_ms. Returns the fd or -1 with errno set.
 */
static inline int rds_wire_connect(uint32_t src, uint32_t dst, int timeout_ms)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct pollfd pfd;
	int fd, one = 1, err = 0;
	socklen_t el = sizeof(err);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (src) {
		sa.sin_addr.s_addr = src;
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			goto fail;
	}
	sa.sin_addr.s_addr = dst;
	sa.sin_port = htons(RDS_WIRE_TCP_PORT);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) && errno != EINPROGRESS)
		goto fail;
	pfd.fd = fd;
	pfd.events = POLLOUT;
	if (poll(&pfd, 1, timeout_ms) != 1) {
		errno = ETIMEDOUT;
		goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) || err) {
		errno = err ? err : EIO;
		goto fail;
	}
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

/* Write all of @buf (the socket is non-blocking: wait up to @timeout_ms). */
static inline int rds_wire_write(int fd, const void *buf, size_t len,
				 int timeout_ms)
{
	const unsigned char *p = buf;
	long long end = rds_wire_now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (rds_wire_now_ms() >= end) {
			errno = ETIMEDOUT;
			return -1;
		}
		poll(&pfd, 1, 50);
	}
	return 0;
}

/*
 * Send a frame exactly as given: header @m (its len field goes out as
 * is, whatever @plen is, so a caller can lie) then @plen payload bytes.
 * The session's sequence is not touched. Returns 0 or -1.
 */
static inline int rds_wire_send_raw(struct rds_wire_sess *s,
				    const struct rds_wire_msg *m,
				    const void *payload, size_t plen)
{
	unsigned char h[RDS_WIRE_HDR_LEN];

	rds_wire_encode(m, h);
	if (rds_wire_write(s->fd, h, sizeof(h), 5000))
		return -1;
	if (plen && rds_wire_write(s->fd, payload, plen, 10000))
		return -1;
	return 0;
}

/* A well-formed message from @sport to @dport with the next sequence. */
static inline int rds_wire_send_msg(struct rds_wire_sess *s, uint16_t sport,
				    uint16_t dport, const void *payload,
				    uint32_t len)
{
	struct rds_wire_msg m = { .seq = s->tx_seq++, .len = len,
				  .sport = sport, .dport = dport };

	return rds_wire_send_raw(s, &m, payload, len);
}

static inline int rds_wire_send_ping(struct rds_wire_sess *s, uint16_t sport)
{
	return rds_wire_send_msg(s, sport, 0, NULL, 0);
}

/*
 * Receive progress: read what is available (waiting up to @timeout_ms
 * for something) and complete at most one frame. Returns 1 with the frame
 * in s->cur / s->body, 0 on timeout, -1 on EOF (errno EPIPE) or error.
 * The peer's pings are answered with pongs when s->answer_pings is set.
 */
static inline int rds_wire_recv_frame(struct rds_wire_sess *s, int timeout_ms)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	long long end = rds_wire_now_ms() + timeout_ms;
	ssize_t n;
	size_t want;

	for (;;) {
		if (s->hdr_have < RDS_WIRE_HDR_LEN) {
			n = recv(s->fd, s->hdr + s->hdr_have,
				 RDS_WIRE_HDR_LEN - s->hdr_have, MSG_DONTWAIT);
		} else {
			want = s->cur.len - s->body_have;
			if (want > 65536)
				want = 65536;
			if (s->body_have + want > s->body_cap) {
				size_t cap = s->body_have + want;
				unsigned char *nb = realloc(s->body, cap);

				if (!nb)
					return -1;
				s->body = nb;
				s->body_cap = cap;
			}
			n = want ? recv(s->fd, s->body + s->body_have, want,
					MSG_DONTWAIT) : 0;
			if (!want)
				goto complete;
		}
		if (n == 0) {
			errno = EPIPE;
			return -1;
		}
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return -1;
			int left = (int)(end - rds_wire_now_ms());

			if (left <= 0)
				return 0;
			if (poll(&pfd, 1, left) == 0)
				return 0;
			continue;
		}
		if (s->hdr_have < RDS_WIRE_HDR_LEN) {
			s->hdr_have += n;
			if (s->hdr_have == RDS_WIRE_HDR_LEN) {
				rds_wire_decode(s->hdr, &s->cur);
				s->body_have = 0;
				/* a hostile peer's length: refuse absurd ones */
				if (s->cur.len > 16 * RDS_WIRE_MAX_MSG) {
					errno = EMSGSIZE;
					return -1;
				}
				if (!s->cur.len)
					goto complete;
			}
			continue;
		}
		s->body_have += n;
		if (s->body_have < s->cur.len)
			continue;
complete:
		s->hdr_have = 0;
		s->rx_frames++;
		if (s->cur.flags == RDS_WIRE_F_CONG && !s->cur.sport &&
		    !s->cur.dport)
			s->rx_cong++;
		else if (!s->cur.dport && s->cur.sport)
			s->rx_pings++;
		else if (!s->cur.sport && s->cur.dport)
			s->rx_pongs++;
		else
			s->rx_data++;
		if (s->verbose)
			fprintf(stderr, "rx %s seq %llu len %u %u->%u flags %#x\n",
				rds_wire_kind(&s->cur),
				(unsigned long long)s->cur.seq, s->cur.len,
				s->cur.sport, s->cur.dport, s->cur.flags);
		if (s->answer_pings && !s->cur.dport && s->cur.sport &&
		    s->cur.flags != RDS_WIRE_F_CONG) {
			/* a pong: sport 0, dport = their sport */
			rds_wire_send_msg(s, 0, s->cur.sport, NULL, 0);
			s->tx_pongs++;
		}
		return 1;
	}
}

/*
 * Read frames until one matches @sport/@dport (-1: any) or @timeout_ms
 * passes. 1: found (in s->cur/s->body), 0: timeout, -1: EOF/error.
 */
static inline int rds_wire_wait(struct rds_wire_sess *s, int sport, int dport,
				int timeout_ms)
{
	long long end = rds_wire_now_ms() + timeout_ms;
	int r, left;

	for (;;) {
		left = (int)(end - rds_wire_now_ms());
		if (left < 0)
			left = 0;
		r = rds_wire_recv_frame(s, left);
		if (r <= 0)
			return r;
		if (s->cur.flags == RDS_WIRE_F_CONG && !s->cur.sport &&
		    !s->cur.dport)
			continue;
		if ((sport < 0 || s->cur.sport == sport) &&
		    (dport < 0 || s->cur.dport == dport))
			return 1;
	}
}

/* Ping from @sport and wait for the pong. 1 answered, 0 not, -1 error. */
static inline int rds_wire_ping(struct rds_wire_sess *s, uint16_t sport,
				int timeout_ms)
{
	if (rds_wire_send_ping(s, sport))
		return -1;
	return rds_wire_wait(s, 0, sport, timeout_ms);
}

#endif /* _RDS_WIRE_H */
