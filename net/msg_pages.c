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
 *
 * A kept page nobody takes within RDS_MSG_PAGES_IDLE goes back to the
 * allocator (rds_msg_pages_drain(), every RDS_MSG_PAGES_DRAIN_EVERY
 * while any page is kept): else a cgroup that stopped sending, or was removed,
 * would stay charged for them (a removed one would linger as a zombie)
 * and fill the slots with pages no live sender can take.
 *
 * Each CPU's pages are under its own lock, taken with bottom halves
 * off (softirqs free message pages): its CPU takes it, and the drain
 * from any CPU. It is the only lock here.
 */
#include <linux/jiffies.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "rds_core.h"

/* Enough for the bursts of a stream: on 7.2, RDS/TCP's acks retire
 * a send buffer's worth of 8 KiB messages at once; 16 pages kept then
 * left most of them to the allocator, zeroed again (0.65 against 0.80
 * of TCP). At most 256 KiB a CPU, each page charged to its cgroup.
 */
#define RDS_MSG_PAGES_KEPT	64
#define RDS_MSG_PAGES_IDLE	(10 * HZ)
#define RDS_MSG_PAGES_DRAIN_EVERY (2 * HZ)

struct rds_msg_page_slot {
	struct page	*page;
	unsigned long	since;		/* jiffies when it was kept */
};

struct rds_msg_pages {
	spinlock_t		lock;	/* n and slots; bottom halves off */
	unsigned int		n;
	struct rds_msg_page_slot slots[RDS_MSG_PAGES_KEPT];
};

static DEFINE_PER_CPU(struct rds_msg_pages, rds_msg_pages) = {
	.lock = __SPIN_LOCK_UNLOCKED(rds_msg_pages.lock),
};

static void rds_msg_pages_drain(struct work_struct *work);
static DECLARE_DELAYED_WORK(rds_msg_pages_drain_work, rds_msg_pages_drain);

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
		spin_lock(&c->lock);
		for (i = c->n; i--; ) {
			if (folio_memcg(page_folio(c->slots[i].page)) != memcg)
				continue;
			page = c->slots[i].page;
			c->slots[i] = c->slots[--c->n];
			break;
		}
		spin_unlock(&c->lock);
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
		spin_lock(&c->lock);
		if (c->n < RDS_MSG_PAGES_KEPT) {
			c->slots[c->n].page = page;
			c->slots[c->n++].since = jiffies;
			page = NULL;
		}
		spin_unlock(&c->lock);
		local_bh_enable();
		/* A plain test first: no atomic operation a page. */
		if (!page && !delayed_work_pending(&rds_msg_pages_drain_work))
			queue_delayed_work(system_unbound_wq,
					   &rds_msg_pages_drain_work,
					   RDS_MSG_PAGES_DRAIN_EVERY);
	}
	if (page)
		__free_page(page);
}

/* Free the pages kept longer than RDS_MSG_PAGES_IDLE, every CPU's; run
 * again in RDS_MSG_PAGES_DRAIN_EVERY while any page is kept. A freer that queues this work while it
 * runs makes it run once more: none is left behind.
 */
static void rds_msg_pages_drain(struct work_struct *work)
{
	struct page *stale[RDS_MSG_PAGES_KEPT];
	unsigned int i, nr, kept = 0;
	struct rds_msg_pages *c;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&rds_msg_pages, cpu);
		nr = 0;
		spin_lock_bh(&c->lock);
		for (i = c->n; i--; ) {
			if (time_before(jiffies, c->slots[i].since +
					RDS_MSG_PAGES_IDLE))
				continue;
			stale[nr++] = c->slots[i].page;
			c->slots[i] = c->slots[--c->n];
		}
		kept += c->n;
		spin_unlock_bh(&c->lock);
		while (nr)
			__free_page(stale[--nr]);
	}
	if (kept)
		queue_delayed_work(system_unbound_wq, &rds_msg_pages_drain_work,
				   RDS_MSG_PAGES_DRAIN_EVERY);
}

/* Module exit: every socket and connection is gone, so are their pages
 * and whoever could queue the drain.
 */
void rds_msg_pages_exit(void)
{
	struct rds_msg_pages *c;
	int cpu;

	cancel_delayed_work_sync(&rds_msg_pages_drain_work);
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&rds_msg_pages, cpu);
		while (c->n)
			__free_page(c->slots[--c->n].page);
	}
}
