/* SPDX-License-Identifier: GPL-2.0 */
/* rds-stress: state shared between the parent and its task processes. */
#ifndef RDS_STRESS_SHARED_H
#define RDS_STRESS_SHARED_H

#include <stdint.h>

#define HIST_BUCKETS	32	/* bucket b: rtt in [2^b, 2^(b+1)) microseconds */

enum task_state { TASK_INIT, TASK_READY, TASK_FAILED, TASK_DONE };

/* Written by one task, read by the parent (plain 64-bit loads on x86-64
 * and arm64 are single-copy atomic; a stale value only delays a count). */
struct task_stats {
	uint64_t	tx, rx, tx_bytes, rx_bytes;
	uint64_t	rtt_ns, rtt_n;		/* sum over acks received */
	uint64_t	tx_ns, tx_calls;	/* time inside sendmsg */
	uint64_t	rdma_in, rdma_out;	/* bytes read / written by RDMA */
	uint64_t	verify_errors, rdma_errors, cong_updates;
	/* -v: a peer's request or ack seen again (duplicates) or ahead of
	 * the next one expected (out_of_order: one went missing); both also
	 * count as verify_errors. */
	uint64_t	duplicates, out_of_order;
	uint64_t	rdma_deferred;		/* requests sent without RDMA */
	/* --async: messages sent with RDS_CMSG_ASYNC_SEND, and their
	 * notifications by status (RDS_RDMA_SUCCESS, _CANCELED, _DROPPED,
	 * anything else). */
	uint64_t	async_sent, async_ok, async_canceled, async_dropped, async_other;
	uint64_t	outliers;		/* --show-outliers: acks above it */
	/* --rerequest-ms: requests given up and replaced (rerequests), acks
	 * that came for one given up after all (late_acks), requests still
	 * unanswered when the task ended, and the RDMA notifications that
	 * said RDS_RDMA_DROPPED (also in rdma_errors). */
	uint64_t	rerequests, late_acks, unanswered, rdma_dropped;
	uint64_t	hist[HIST_BUCKETS];
	volatile int	state;			/* enum task_state */
	/* Wound down: sends no requests and none of its own is in flight
	 * (or it gave up waiting), so no peer uses its regions any more. */
	volatile int	drained;
	/* Winding down: when the task last received anything. */
	volatile uint64_t last_rx_ns;
	int		err;			/* errno of a failure */
	int		unsupported;		/* ... because the kernel lacks it */
	char		msg[200];		/* what failed */
};

struct stress_shared {
	volatile int		go;		/* parent: start sending */
	volatile int		stop;		/* parent: no new requests */
	volatile int		quit;		/* parent: both sides wound down */
	struct task_stats	task[];
};

#endif
