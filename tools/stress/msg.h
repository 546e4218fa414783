/* SPDX-License-Identifier: GPL-2.0 */
/* rds-stress messages: the header every request and ack starts with. */
#ifndef RDS_STRESS_MSG_H
#define RDS_STRESS_MSG_H

#include <stddef.h>
#include <stdint.h>

#define STRESS_MSG_MAGIC	0x72647321u	/* "rds!" */

enum { MSG_REQ = 1, MSG_ACK = 2 };
enum { RDMA_OP_NONE = 0, RDMA_OP_READ = 1, RDMA_OP_WRITE = 2 };

/* All fields big-endian; 56 bytes (STRESS_MIN_MSG). */
struct stress_hdr {
	uint32_t	magic;
	uint8_t		type;		/* MSG_* */
	uint8_t		rdma_op;	/* RDMA_OP_*: what the responder does */
	uint16_t	task;		/* sender's task index */
	uint32_t	slot;		/* requester's slot, echoed in the ack */
	uint32_t	len;		/* whole message length */
	uint64_t	seq;		/* sender's per-task sequence */
	uint64_t	ts;		/* request send time, echoed in the ack */
	uint64_t	rdma_addr;	/* requester's buffer for the RDMA */
	uint64_t	rdma_cookie;	/* from RDS_GET_MR; 0 with RDMA_MAP */
	uint32_t	rdma_len;
	uint32_t	pad;
} __attribute__((packed));

_Static_assert(sizeof(struct stress_hdr) == 56, "stress_hdr is 56 bytes");

/* The payload byte at @off of message (@task, @seq). */
static inline uint8_t stress_pattern(uint16_t task, uint64_t seq, size_t off)
{
	return (uint8_t)(seq * 131 + off * 7 + task);
}

/* Fill bytes [from, to) of @buf with the pattern for (@task, @seq). */
void stress_fill(uint8_t *buf, size_t from, size_t to, uint16_t task, uint64_t seq);
/* Count bytes of @buf [from, to) that differ from the pattern. */
size_t stress_check_fill(const uint8_t *buf, size_t from, size_t to,
			 uint16_t task, uint64_t seq);

#endif
