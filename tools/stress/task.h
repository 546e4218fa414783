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

/* Runs in the forked child; never returns. */
void __attribute__((noreturn)) task_main(const struct task_plan *p);

#endif
