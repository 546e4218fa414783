/* SPDX-License-Identifier: GPL-2.0 */
/* rds-stress output: per-second rows, the average, JSON, histogram. */
#ifndef RDS_STRESS_REPORT_H
#define RDS_STRESS_REPORT_H

#include <stdint.h>

#include "stress/opts.h"
#include "stress/shared.h"

/* Running totals over all tasks at one instant. */
struct totals {
	uint64_t	tx, rx, bytes, rdma_in, rdma_out;
	uint64_t	tx_ns, tx_calls, rtt_ns, rtt_n;
	uint64_t	verify_errors, rdma_errors, rdma_deferred;
	uint64_t	duplicates, out_of_order;
	uint64_t	async_sent, async_ok, async_canceled, async_dropped, async_other;
	uint64_t	outliers;
	uint64_t	rerequests, late_acks, unanswered, rdma_dropped;
	uint64_t	hist[HIST_BUCKETS];
	unsigned int	running;
	uint64_t	when_ns;
	uint64_t	cpu_busy, cpu_all;	/* from /proc/stat */
};

/* One output row: rates between two snapshots. */
struct row {
	unsigned int	tasks;
	double		tx_s, rx_s, kbytes_s, mbi_ks, mbo_ks, tx_us_call, rtt_us, cpu;
};

void totals_snap(struct totals *t, const struct stress_shared *sh,
		 unsigned int tasks, int cpu);
void row_between(struct row *r, const struct totals *a, const struct totals *b, int cpu);

void report_header(void);
void report_row(const struct row *r);
void report_average(const struct row *r);
void report_histogram(const struct totals *t);
void report_perfdata(const struct row *avg, const struct totals *t);
/* --async: sends and their notifications, once every task has drained. */
void report_async(const struct totals *t);
/* --rerequest-ms: requests given up and replaced, and why. */
void report_rerequests(const struct totals *t);
/* --show-params: the test's parameters, before it starts. */
void report_params(const struct stress_opts *o);

/* JSON: rows collected while running, printed once at the end. */
void json_add_row(const struct row *r);
void json_print(const struct stress_opts *o, const char *role, const struct row *avg,
		const struct totals *t, const char *status, const char *error);

#endif
