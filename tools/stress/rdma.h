/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rds-stress RDMA (-D): the requester registers a buffer per request slot
 * and sends its cookie (RDS_GET_MR: in the header; RDS_CMSG_RDMA_MAP: the
 * kernel passes it on as RDS_CMSG_RDMA_DEST); the responder carries out
 * an RDMA read or write of that buffer with RDS_CMSG_RDMA_ARGS on its ack,
 * so the ack arrives after the data.
 */
#ifndef RDS_STRESS_RDMA_H
#define RDS_STRESS_RDMA_H

#include <stddef.h>
#include <stdint.h>
#include <linux/rds.h>

#include "stress/msg.h"
#include "stress/opts.h"

struct rdma_state {
	const struct stress_opts	*o;
	int				fd;
	size_t				size;
	uint8_t				*req_bufs;	/* depth x size */
	uint64_t			*cookies;	/* per slot, 0: none */
	uint8_t				*ack_bufs;	/* ack_cap x size */
	uint32_t			ack_cap;
	struct rds_iovec		*iov;		/* o->iovecs */
};

/* Allocate, and check that the socket's transport can register memory. */
int rdma_setup(struct rdma_state *r, int fd, const struct stress_opts *o,
	       uint32_t ack_cap, char *why, size_t whylen);
/* Register slot @slot for request (@task, @seq); fills the header's RDMA
 * fields and, for RDS_CMSG_RDMA_MAP, a control message. 0 or -errno. */
int rdma_prepare_request(struct rdma_state *r, uint32_t slot, uint16_t task,
			 uint64_t seq, struct stress_hdr *h, void *ctl,
			 size_t *ctl_len);
/* The request could not be sent: drop what was registered for it. */
void rdma_request_unsent(struct rdma_state *r, uint32_t slot);
/* The request was given up (--rerequest-ms): its region goes, cached or
 * not, so a late RDMA is refused rather than land in the next request. */
void rdma_request_given_up(struct rdma_state *r, uint32_t slot);
/* The RDS_CMSG_RDMA_ARGS control message for the ack of a request. */
void rdma_prepare_ack(struct rdma_state *r, uint32_t ring_idx, uint8_t op,
		      uint16_t req_task, uint64_t seq, uint64_t addr,
		      uint32_t len, uint64_t cookie, void *ctl, size_t *ctl_len);
/* The ack for @slot arrived: check written data, release the region.
 * Returns the number of verification errors (0 or 1). */
int rdma_complete_request(struct rdma_state *r, uint32_t slot, uint16_t task,
			  uint64_t seq, uint8_t op, int verify);

#endif
