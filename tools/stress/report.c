// SPDX-License-Identifier: GPL-2.0
/* rds-stress output. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sock.h"
#include "lib/util.h"
#include "stress/report.h"

static int read_cpu(uint64_t *busy, uint64_t *all)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n, i;

	*busy = *all = 0;
	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return -1;
	for (i = 0; i < 8; i++)
		*all += v[i];
	*busy = *all - v[3] - v[4];	/* minus idle and iowait */
	return 0;
}

void totals_snap(struct totals *t, const struct stress_shared *sh,
		 unsigned int tasks, int cpu)
{
	unsigned int i, b;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < tasks; i++) {
		const struct task_stats *s = &sh->task[i];

		t->tx += s->tx;
		t->rx += s->rx;
		t->bytes += s->tx_bytes + s->rx_bytes;
		t->rdma_in += s->rdma_in;
		t->rdma_out += s->rdma_out;
		t->tx_ns += s->tx_ns;
		t->tx_calls += s->tx_calls;
		t->rtt_ns += s->rtt_ns;
		t->rtt_n += s->rtt_n;
		t->verify_errors += s->verify_errors;
		t->duplicates += s->duplicates;
		t->out_of_order += s->out_of_order;
		t->rdma_errors += s->rdma_errors;
		t->rdma_deferred += s->rdma_deferred;
		t->async_sent += s->async_sent;
		t->async_ok += s->async_ok;
		t->async_canceled += s->async_canceled;
		t->async_dropped += s->async_dropped;
		t->async_other += s->async_other;
		t->outliers += s->outliers;
		t->rerequests += s->rerequests;
		t->late_acks += s->late_acks;
		t->unanswered += s->unanswered;
		t->rdma_dropped += s->rdma_dropped;
		for (b = 0; b < HIST_BUCKETS; b++)
			t->hist[b] += s->hist[b];
		t->running += s->state == TASK_READY;
	}
	t->when_ns = now_ns();
	if (cpu)
		read_cpu(&t->cpu_busy, &t->cpu_all);
}

void row_between(struct row *r, const struct totals *a, const struct totals *b, int cpu)
{
	double secs = (b->when_ns - a->when_ns) / 1e9;

	if (secs <= 0)
		secs = 1e-9;
	r->tasks = b->running;
	r->tx_s = (b->tx - a->tx) / secs;
	r->rx_s = (b->rx - a->rx) / secs;
	r->kbytes_s = (b->bytes - a->bytes) / secs / 1024;
	r->mbi_ks = (b->rdma_in - a->rdma_in) / secs / 1024;
	r->mbo_ks = (b->rdma_out - a->rdma_out) / secs / 1024;
	r->tx_us_call = b->tx_calls > a->tx_calls ?
		(b->tx_ns - a->tx_ns) / 1e3 / (b->tx_calls - a->tx_calls) : 0;
	r->rtt_us = b->rtt_n > a->rtt_n ?
		(b->rtt_ns - a->rtt_ns) / 1e3 / (b->rtt_n - a->rtt_n) : 0;
	r->cpu = -1;
	if (cpu && b->cpu_all > a->cpu_all)
		r->cpu = 100.0 * (b->cpu_busy - a->cpu_busy) / (b->cpu_all - a->cpu_all);
}

#define ROW_FMT "%4u %8.0f %8.0f %10.2f %8.2f %8.2f %7.2f %9.2f %6.2f"

void report_header(void)
{
	printf("%4s %8s %8s %10s %8s %8s %7s %9s %6s\n", "tsks", "tx/s", "rx/s",
	       "tx+rx K/s", "mbi K/s", "mbo K/s", "tx us/c", "rtt us", "cpu %");
	fflush(stdout);
}

void report_row(const struct row *r)
{
	printf(ROW_FMT "\n", r->tasks, r->tx_s, r->rx_s, r->kbytes_s, r->mbi_ks,
	       r->mbo_ks, r->tx_us_call, r->rtt_us, r->cpu);
	fflush(stdout);
}

void report_average(const struct row *r)
{
	printf("---------------------------------------------------------------------------\n");
	printf(ROW_FMT "  (average)\n", r->tasks, r->tx_s, r->rx_s, r->kbytes_s,
	       r->mbi_ks, r->mbo_ks, r->tx_us_call, r->rtt_us, r->cpu);
	fflush(stdout);
}

void report_histogram(const struct totals *t)
{
	uint64_t max = 0;
	int b;

	printf("\nround-trip time histogram (acks received):\n%16s %12s\n", "usec", "count");
	for (b = 0; b < HIST_BUCKETS; b++)
		max = t->hist[b] > max ? t->hist[b] : max;
	for (b = 0; b < HIST_BUCKETS; b++) {
		char range[32];
		int bar;

		if (!t->hist[b])
			continue;
		if (b == 0)
			snprintf(range, sizeof(range), "< 2");
		else
			snprintf(range, sizeof(range), "%llu-%llu", 1ull << b, (2ull << b) - 1);
		bar = max ? (int)(40 * t->hist[b] / max) : 0;
		printf("%16s %12" PRIu64 " %.*s\n", range, t->hist[b], bar,
		       "########################################");
	}
}

void report_perfdata(const struct row *a, const struct totals *t)
{
	printf("perfdata: tasks=%u tx_per_s=%.0f rx_per_s=%.0f kbytes_per_s=%.2f "
	       "rdma_in_kbytes_per_s=%.2f rdma_out_kbytes_per_s=%.2f tx_usec_per_call=%.2f "
	       "rtt_usec=%.2f cpu_pct=%.2f messages_tx=%" PRIu64 " messages_rx=%" PRIu64
	       " verify_errors=%" PRIu64 " rdma_errors=%" PRIu64 " rdma_deferred=%" PRIu64
	       " duplicates=%" PRIu64 " out_of_order=%" PRIu64
	       "\n", a->tasks, a->tx_s, a->rx_s, a->kbytes_s,
	       a->mbi_ks, a->mbo_ks, a->tx_us_call, a->rtt_us, a->cpu, t->tx, t->rx,
	       t->verify_errors, t->rdma_errors, t->rdma_deferred, t->duplicates,
	       t->out_of_order);
}

void report_async(const struct totals *t)
{
	printf("async sends: %" PRIu64 ", notified: %" PRIu64 " (success %" PRIu64
	       ", canceled %" PRIu64 ", dropped %" PRIu64 ", other %" PRIu64 ")\n",
	       t->async_sent, t->async_ok + t->async_canceled + t->async_dropped +
	       t->async_other, t->async_ok, t->async_canceled, t->async_dropped,
	       t->async_other);
}

void report_rerequests(const struct totals *t)
{
	printf("rerequests: %" PRIu64 ", late acks: %" PRIu64 ", unanswered at the end: %"
	       PRIu64 ", RDMA reported dropped: %" PRIu64 "\n", t->rerequests,
	       t->late_acks, t->unanswered, t->rdma_dropped);
}

void report_params(const struct stress_opts *o)
{
	unsigned int k = 0;

	printf("Options:\n  %-10s %-7u\n  %-10s %-7u\n  %-10s %-7u\n  %-10s %-7u\n",
	       "Tasks", o->tasks, "Req size", o->req_size, "ACK size", o->ack_size,
	       "RDMA size", o->rdma_size);
	printf("  %-10s", "RDMA opts");
	if (o->flags & SF_RDMA_ONCE)
		k += printf(" use_once");
	if (o->flags & SF_RDMA_GET_MR)
		k += printf(" use_get_mr");
	if (o->flags & SF_RDMA_FENCE)
		k += printf(" use_fence");
	if (o->flags & SF_RDMA_CACHE)
		k += printf(" cache_mrs");
	if (o->rdma_align)
		k += printf(" align=%u", o->rdma_align);
	if (!k)
		printf(" (defaults)");
	printf("\n\n");
	fflush(stdout);
}

static struct row *rows;
static size_t nrows, cap;

void json_add_row(const struct row *r)
{
	if (nrows == cap) {
		size_t ncap = cap ? cap * 2 : 64;
		struct row *n = realloc(rows, ncap * sizeof(*rows));

		if (!n)
			return;		/* JSON loses rows, the run goes on */
		rows = n;
		cap = ncap;
	}
	rows[nrows++] = *r;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_row(const struct row *r)
{
	printf("{\"tasks\": %u, \"tx_per_s\": %.2f, \"rx_per_s\": %.2f, "
	       "\"tx_rx_kbytes_per_s\": %.2f, \"rdma_in_kbytes_per_s\": %.2f, "
	       "\"rdma_out_kbytes_per_s\": %.2f, \"tx_usec_per_call\": %.3f, "
	       "\"rtt_usec\": %.3f, \"cpu_pct\": ", r->tasks, r->tx_s, r->rx_s,
	       r->kbytes_s, r->mbi_ks, r->mbo_ks, r->tx_us_call, r->rtt_us);
	if (r->cpu < 0)
		printf("null}");
	else
		printf("%.2f}", r->cpu);
}

void json_print(const struct stress_opts *o, const char *role, const struct row *avg,
		const struct totals *t, const char *status, const char *error)
{
	size_t i;

	printf("{\"tool\": \"rds-stress\", \"role\": \"%s\", \"status\": ", role);
	json_str(status);
	printf(", \"error\": ");
	if (error)
		json_str(error);
	else
		printf("null");
	printf(",\n \"options\": {\"tasks\": %u, \"depth\": %u, \"req_bytes\": %u, "
	       "\"ack_bytes\": %u, \"seconds\": %u, \"one_way\": %s, \"verify\": %s, "
	       "\"tos\": %u, \"rdma_bytes\": %u, \"iovecs\": %u, \"rdma_mode\": %u, "
	       "\"transport\": \"%s\", \"port\": %u, \"async\": %s, "
	       "\"rdma_alignment\": %u},\n",
	       o->tasks, o->depth, o->req_size, o->ack_size, o->seconds,
	       o->flags & SF_ONE_WAY ? "true" : "false",
	       o->flags & SF_VERIFY ? "true" : "false", o->tos, o->rdma_size,
	       o->iovecs, o->rdma_mode, rds_transport_name(o->transport), o->port,
	       o->flags & SF_ASYNC ? "true" : "false", o->rdma_align);
	printf(" \"intervals\": [");
	for (i = 0; i < nrows; i++) {
		printf(i ? ",\n   " : "\n   ");
		json_row(&rows[i]);
	}
	printf("],\n \"average\": ");
	if (avg)
		json_row(avg);
	else
		printf("null");
	if (t && (o->flags & SF_ASYNC))
		printf(",\n \"async\": {\"sent\": %" PRIu64 ", \"success\": %" PRIu64
		       ", \"canceled\": %" PRIu64 ", \"dropped\": %" PRIu64
		       ", \"other\": %" PRIu64 "}", t->async_sent, t->async_ok,
		       t->async_canceled, t->async_dropped, t->async_other);
	if (t && o->outlier_us != UINT64_MAX)
		printf(",\n \"outliers\": %" PRIu64, t->outliers);
	if (t && o->rerequest_ms)
		printf(",\n \"rerequests\": {\"after_ms\": %u, \"given_up\": %" PRIu64
		       ", \"late_acks\": %" PRIu64 ", \"unanswered\": %" PRIu64
		       ", \"rdma_dropped\": %" PRIu64 "}", o->rerequest_ms, t->rerequests,
		       t->late_acks, t->unanswered, t->rdma_dropped);
	printf(",\n \"messages_tx\": %" PRIu64 ", \"messages_rx\": %" PRIu64
	       ", \"verify_errors\": %" PRIu64 ", \"rdma_errors\": %" PRIu64
	       ", \"rdma_deferred\": %" PRIu64 ", \"duplicates\": %" PRIu64
	       ", \"out_of_order\": %" PRIu64 ", \"rdma_in_bytes\": %" PRIu64
	       ", \"rdma_out_bytes\": %" PRIu64 "}\n",
	       t ? t->tx : 0, t ? t->rx : 0, t ? t->verify_errors : 0,
	       t ? t->rdma_errors : 0, t ? t->rdma_deferred : 0,
	       t ? t->duplicates : 0, t ? t->out_of_order : 0,
	       t ? t->rdma_in : 0, t ? t->rdma_out : 0);
	fflush(stdout);
}
