// SPDX-License-Identifier: GPL-2.0
/* rds-stress RDMA: memory registration and the RDMA control messages. */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "stress/rdma.h"

/* Written data carries the requester's task with the top bit set, so it
 * can never be mistaken for the request payload. */
#define WRITE_TAG(task)	((uint16_t)((task) ^ 0x8000))

static int get_mr(struct rdma_state *r, void *buf, uint64_t *cookie)
{
	struct rds_get_mr_args a = {
		.vec = { (uintptr_t)buf, r->size },
		.cookie_addr = (uintptr_t)cookie,
		.flags = (r->o->flags & SF_RDMA_ONCE) ? RDS_RDMA_USE_ONCE : 0,
	};

	if (setsockopt(r->fd, SOL_RDS, RDS_GET_MR, &a, sizeof(a)))
		return -errno;
	return 0;
}

static void free_mr(struct rdma_state *r, uint64_t *cookie)
{
	struct rds_free_mr_args a = { .cookie = *cookie };

	if (*cookie)
		setsockopt(r->fd, SOL_RDS, RDS_FREE_MR, &a, sizeof(a));
	*cookie = 0;
}

/* Is @fd bound to 127.0.0.0/8 or ::1? (Linux's loopback has no RDMA.) */
static int bound_to_loopback(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	if (ss.ss_family == AF_INET)
		return (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
	if (ss.ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr);
	return 0;
}

/* @n bytes, zeroed, starting --rdma-alignment bytes past a page boundary
 * (unaligned RDMA, as rds-tools' option); the process's exit frees it.
 */
static void *alloc_bufs(const struct stress_opts *o, size_t n)
{
	uint8_t *p = mmap(NULL, n + STRESS_PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p + o->rdma_align;
}

int rdma_setup(struct rdma_state *r, int fd, const struct stress_opts *o,
	       uint32_t ack_cap, char *why, size_t whylen)
{
	uint64_t probe = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	r->o = o;
	r->fd = fd;
	r->size = o->rdma_size;
	r->ack_cap = ack_cap;
	r->req_bufs = alloc_bufs(o, (size_t)o->depth * r->size);
	r->cookies = calloc(o->depth, sizeof(uint64_t));
	r->ack_bufs = alloc_bufs(o, (size_t)ack_cap * r->size);
	r->iov = calloc(o->iovecs, sizeof(*r->iov));
	if (!r->req_bufs || !r->cookies || !r->ack_bufs || !r->iov) {
		snprintf(why, whylen, "RDMA buffers: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	rc = get_mr(r, r->req_bufs, &probe);
	/*
	 * ENODEV: the transport can register memory but does not know the
	 * device for our address until a connection exists (in-tree IB
	 * learns addresses on connect); requests go without RDMA until it
	 * does (see send_request()).
	 */
	if (rc == -ENODEV)
		return 0;
	/*
	 * EOPNOTSUPP: Linux's in-tree IB on FRWR devices registers only
	 * through RDS_CMSG_RDMA_MAP, which is what we use unless asked for
	 * RDS_GET_MR. Over loopback it means no RDMA at all (Linux's).
	 */
	if (rc == -EOPNOTSUPP && !bound_to_loopback(fd) &&
	    !(o->flags & (SF_RDMA_GET_MR | SF_RDMA_CACHE)))
		return 0;
	if (rc) {
		snprintf(why, whylen,
			 "RDMA (-D) is not supported by this kernel/transport: RDS_GET_MR: %s",
			 strerror(-rc));
		return rc;
	}
	free_mr(r, &probe);
	return 0;
}

static uint8_t pick_op(const struct stress_opts *o, uint64_t seq)
{
	if (o->rdma_mode == RDMA_MODE_READ)
		return RDMA_OP_READ;
	if (o->rdma_mode == RDMA_MODE_WRITE)
		return RDMA_OP_WRITE;
	return (seq & 1) ? RDMA_OP_WRITE : RDMA_OP_READ;
}

int rdma_prepare_request(struct rdma_state *r, uint32_t slot, uint16_t task,
			 uint64_t seq, struct stress_hdr *h, void *ctl,
			 size_t *ctl_len)
{
	uint8_t *buf = r->req_bufs + (size_t)slot * r->size;
	uint8_t op = pick_op(r->o, seq);
	int rc;

	/* Patterns only with -v, as for message payloads: filling 64 KiB
	 * byte by byte per request and per ack cost more than the RDMA
	 * itself under TCG (Documentation/measurements.rst).
	 */
	if (r->o->flags & SF_VERIFY) {
		if (op == RDMA_OP_READ)
			stress_fill(buf, 0, r->size, task, seq);
		else
			memset(buf, 0, r->size);
	}
	h->rdma_op = op;
	h->rdma_addr = htobe64((uintptr_t)buf);
	h->rdma_len = htobe32(r->size);
	*ctl_len = 0;
	if (r->o->flags & (SF_RDMA_GET_MR | SF_RDMA_CACHE)) {
		if (!r->cookies[slot]) {
			rc = get_mr(r, buf, &r->cookies[slot]);
			if (rc)
				return rc;
		}
		h->rdma_cookie = htobe64(r->cookies[slot]);
	} else {
		struct cmsghdr *c = ctl;
		struct rds_get_mr_args a = {
			.vec = { (uintptr_t)buf, r->size },
			.cookie_addr = (uintptr_t)&r->cookies[slot],
			.flags = (r->o->flags & SF_RDMA_ONCE) ? RDS_RDMA_USE_ONCE : 0,
		};

		r->cookies[slot] = 0;
		c->cmsg_level = SOL_RDS;
		c->cmsg_type = RDS_CMSG_RDMA_MAP;
		c->cmsg_len = CMSG_LEN(sizeof(a));
		memcpy(CMSG_DATA(c), &a, sizeof(a));
		*ctl_len = CMSG_SPACE(sizeof(a));
	}
	return 0;
}

void rdma_request_unsent(struct rdma_state *r, uint32_t slot)
{
	if (!(r->o->flags & SF_RDMA_CACHE))
		free_mr(r, &r->cookies[slot]);
}

void rdma_request_given_up(struct rdma_state *r, uint32_t slot)
{
	/* Even a cached region: the peer's RDMA for the request given up
	 * must not land in the slot's next request.
	 */
	free_mr(r, &r->cookies[slot]);
}

void rdma_prepare_ack(struct rdma_state *r, uint32_t ring_idx, uint8_t op,
		      uint16_t req_task, uint64_t seq, uint64_t addr,
		      uint32_t len, uint64_t cookie, void *ctl, size_t *ctl_len)
{
	uint8_t *buf = r->ack_bufs + (size_t)(ring_idx % r->ack_cap) * r->size;
	struct cmsghdr *c = ctl;
	struct rds_rdma_args a = { 0 };
	uint32_t i, n = r->o->iovecs, chunk;

	(void)addr;	/* informational: the cookie carries the offset */
	if (len > r->size)
		len = r->size;
	if (op == RDMA_OP_WRITE && (r->o->flags & SF_VERIFY))
		stress_fill(buf, 0, len, WRITE_TAG(req_task), seq);
	chunk = len / n;
	for (i = 0; i < n; i++) {
		r->iov[i].addr = (uintptr_t)(buf + (size_t)i * chunk);
		r->iov[i].bytes = i == n - 1 ? len - (size_t)i * chunk : chunk;
	}
	a.cookie = cookie;
	a.remote_vec.addr = 0;
	a.remote_vec.bytes = len;
	a.local_vec_addr = (uintptr_t)r->iov;
	a.nr_local = n;
	a.flags = (op == RDMA_OP_WRITE ? RDS_RDMA_READWRITE : 0) |
		  (r->o->flags & SF_RDMA_FENCE ? RDS_RDMA_FENCE : 0) |
		  (r->o->flags & SF_RDMA_NOTIFY ? RDS_RDMA_NOTIFY_ME : 0);
	a.user_token = seq;
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = RDS_CMSG_RDMA_ARGS;
	c->cmsg_len = CMSG_LEN(sizeof(a));
	memcpy(CMSG_DATA(c), &a, sizeof(a));
	*ctl_len = CMSG_SPACE(sizeof(a));
}

int rdma_complete_request(struct rdma_state *r, uint32_t slot, uint16_t task,
			  uint64_t seq, uint8_t op, int verify)
{
	uint8_t *buf = r->req_bufs + (size_t)slot * r->size;
	int bad = 0;

	if (verify && op == RDMA_OP_WRITE)
		bad = !!stress_check_fill(buf, 0, r->size, WRITE_TAG(task), seq);
	if (r->o->flags & SF_RDMA_ONCE)
		r->cookies[slot] = 0;	/* the kernel dropped it after use */
	else if (!(r->o->flags & SF_RDMA_CACHE))
		free_mr(r, &r->cookies[slot]);
	return bad;
}
