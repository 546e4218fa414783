// SPDX-License-Identifier: GPL-2.0
/*
 * Payload pages of outgoing messages, kept for the next message.
 *
 * A fresh page costs the page allocator's round trip and, with
 * init_on_alloc (Debian's default), zeroing 4 KiB that the copy from
 * the sender overwrites at once: for a stream of 64 KiB messages over
 * RDS/TCP about a fifth of all the work. So a message's last reference
 * hands its pages to a small per-CPU stack, and the next message of the
 * same memory cgroup takes them from there.
 *
 * The memory cgroup decides: a page stays charged to the cgroup that
 * allocated it, so a page is only ever reused for a sender of that same
 * cgroup (else one cgroup's sends would run on another's charge). A
 * page someone else still holds (TCP splices our pages into its skbs)
 * is not kept: the last holder frees it. A reused page holds an older
 * payload; every user of message pages reads only the sg lengths the
 * copy from the sender filled. At most RDS_MSG_PAGES_KEPT pages per CPU
 * are kept, and all of them go when the module does.
 */
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>

#include "rds_core.h"

/* Enough for the bursts of a stream: on 7.2, RDS/TCP's acks retire
 * a send buffer's worth of 8 KiB messages at once; 16 pages kept then
 * left most of them to the allocator, zeroed again (0.65 against 0.80
 * of TCP). At most 256 KiB a CPU, each page charged to its cgroup.
 */
#define RDS_MSG_PAGES_KEPT	64

struct rds_msg_pages {
	unsigned int	n;
	struct page	*pages[RDS_MSG_PAGES_KEPT];
};

static DEFINE_PER_CPU(struct rds_msg_pages, rds_msg_pages);

/* The cgroup a page allocated now with __GFP_ACCOUNT would be charged
 * to; NULL for none (the root, or no memory cgroups). False when it
 * cannot be told (a kernel override of the charge target): no reuse.
 * Under rcu_read_lock().
 */
static bool rds_msg_pages_memcg(struct mem_cgroup **memcg)
{
#ifdef CONFIG_MEMCG
	struct mem_cgroup *m;

	if (!in_task() || current->active_memcg)
		return false;
	m = mem_cgroup_from_task(current);
	/* The root is never charged: its pages have no cgroup. */
	*memcg = m && m->css.parent ? m : NULL;
#else
	*memcg = NULL;
#endif
	return true;
}

/**
 * rds_msg_page_alloc - a page for a message's payload
 * @rn: the namespace the message is sent in: counts a kept page as
 *	page_remainder_hit, a new one as page_remainder_miss (Linux's
 *	names for its own payload page cache)
 * @gfp: allocation flags for a new one
 *
 * Return: a page (contents undefined: the caller fills it), or NULL.
 */
struct page *rds_msg_page_alloc(struct rds_net *rn, gfp_t gfp)
{
	struct page *page = NULL;
	struct rds_msg_pages *c;
	struct mem_cgroup *memcg;
	unsigned int i;

	rcu_read_lock();
	if (rds_msg_pages_memcg(&memcg)) {
		local_bh_disable();
		c = this_cpu_ptr(&rds_msg_pages);
		for (i = c->n; i--; ) {
			if (folio_memcg(page_folio(c->pages[i])) != memcg)
				continue;
			page = c->pages[i];
			c->pages[i] = c->pages[--c->n];
			break;
		}
		local_bh_enable();
	}
	rcu_read_unlock();
	if (page) {
		rds_stats_inc(rn, RDS_STAT_PAGE_REMAINDER_HIT);
		return page;
	}
	rds_stats_inc(rn, RDS_STAT_PAGE_REMAINDER_MISS);
	return alloc_page(gfp | __GFP_ACCOUNT);
}

/**
 * rds_msg_page_free - a message lets go of a payload page
 * @page: from rds_msg_page_alloc()
 *
 * Context: process or softirq context.
 */
void rds_msg_page_free(struct page *page)
{
	struct rds_msg_pages *c;

	/* Held elsewhere too (TCP's skbs): the last holder frees it. */
	if (page_ref_count(page) == 1 && !in_hardirq() && !irqs_disabled()) {
		local_bh_disable();
		c = this_cpu_ptr(&rds_msg_pages);
		if (c->n < RDS_MSG_PAGES_KEPT) {
			c->pages[c->n++] = page;
			page = NULL;
		}
		local_bh_enable();
	}
	if (page)
		__free_page(page);
}

/* Module exit: every socket and connection is gone, so are their pages. */
void rds_msg_pages_exit(void)
{
	struct rds_msg_pages *c;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&rds_msg_pages, cpu);
		while (c->n)
			__free_page(c->pages[--c->n]);
	}
}
