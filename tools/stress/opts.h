/* SPDX-License-Identifier: GPL-2.0 */
/* rds-stress: its options, their parsing, and their form on the wire. */
#ifndef RDS_STRESS_OPTS_H
#define RDS_STRESS_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/addr.h"

#define STRESS_DEFAULT_PORT	4000
/* Every message starts with struct stress_hdr: nothing can be smaller. */
#define STRESS_MIN_MSG		56
#define STRESS_MAX_MSG		(1u << 20)
#define STRESS_MAX_TASKS	512
#define STRESS_MAX_DEPTH	4096
#define STRESS_MAX_IOVECS	64

/* Flags that both sides must agree on (sent to the passive side). */
#define SF_ONE_WAY	0x0001
#define SF_VERIFY	0x0002
#define SF_RDMA_ONCE	0x0004
#define SF_RDMA_GET_MR	0x0008
#define SF_RDMA_FENCE	0x0010
#define SF_RDMA_NOTIFY	0x0020
#define SF_RDMA_CACHE	0x0040
#define SF_CONG_MON	0x0080
#define SF_ASYNC	0x0100	/* RDS_CMSG_ASYNC_SEND on every message */

enum { RDMA_MODE_BOTH = 0, RDMA_MODE_READ = 1, RDMA_MODE_WRITE = 2 };

struct stress_opts {
	/* shared with the peer */
	uint32_t	tasks, depth, req_size, ack_size;
	uint32_t	rdma_size, iovecs, rdma_mode, seconds, tos, flags;
	int32_t		transport;	/* RDS_TRANS_*, -1: kernel's choice */
	uint32_t	rdma_align;	/* RDMA buffers start this far past a page */
	uint32_t	rerequest_ms;	/* --rerequest-ms; 0: wait for every ack */
	/* local only */
	bool		active, summary_only, cpu, histogram, perfdata, json;
	bool		reset, show_params, rtprio, trace;
	uint64_t	outlier_us;	/* --show-outliers; UINT64_MAX: off */
	int32_t		connect_retries;	/* -1: our default (see control.c) */
	uint16_t	port;
	struct rds_ep	local;		/* -r; unset: from the control socket */
	struct rds_ep	peer;		/* -s (active side) */
	bool		have_local;
};

/* Parse argv into @o; exits with status 2 and a clear message on errors. */
void stress_parse(struct stress_opts *o, int argc, char **argv);
/* Check values the peer sent; NULL if fine, else why not. */
const char *stress_check(const struct stress_opts *o);

/* The shared part, in network byte order, for the control connection. */
struct stress_wire {
	uint32_t	magic, version;
	uint32_t	tasks, depth, req_size, ack_size;
	uint32_t	rdma_size, iovecs, rdma_mode, seconds, tos, flags;
	int32_t		transport;
	uint32_t	family;		/* of the active side's RDS address */
	uint8_t		addr[16];
	uint32_t	port_base;	/* first port of the active side's tasks */
	uint32_t	rdma_align;
	uint32_t	rerequest_ms;
};

#define STRESS_WIRE_MAGIC	0x52445354	/* "RDST" */
#define STRESS_WIRE_VERSION	3
#define STRESS_PAGE		4096	/* --rdma-alignment's limit */
#define STRESS_MAX_REREQUEST_MS	3600000	/* --rerequest-ms's limit: an hour */

#endif
