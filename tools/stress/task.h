/* SPDX-License-Identifier: GPL-2.0 */
/* rds-stress: one task, i.e. one RDS socket exchanging requests and acks. */
#ifndef RDS_STRESS_TASK_H
#define RDS_STRESS_TASK_H

#include "lib/addr.h"
#include "stress/opts.h"
#include "stress/shared.h"

struct task_plan {
	const struct stress_opts	*o;
	struct stress_shared		*sh;
	unsigned int			idx;
	struct rds_ep			local;		/* port already set */
	struct rds_ep			peer;		/* port: peer_base */
	uint16_t			peer_base;
	int				send_requests;
};

/* After the run, how long a task waits for the acks of its requests:
 * 2 s, or with --rerequest-ms as long as a request may take before it
 * would be given up (a slow guest's acks are late, not lost), at most
 * WIND_DOWN_MAX_MS.
 */
#define WIND_DOWN_MS		2000u
#define WIND_DOWN_MAX_MS	30000u

static inline uint64_t task_wind_down_ns(const struct stress_opts *o)
{
	uint32_t ms = o->rerequest_ms > WIND_DOWN_MS ? o->rerequest_ms :
						       WIND_DOWN_MS;

	if (ms > WIND_DOWN_MAX_MS)
		ms = WIND_DOWN_MAX_MS;
	return ms * 1000000ull;
}

/* Runs in the forked child; never returns. */
void __attribute__((noreturn)) task_main(const struct task_plan *p);

#endif
