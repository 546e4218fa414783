// SPDX-License-Identifier: GPL-2.0
/*
 * Receive pages, recycled. Every fragment over RDS_RDMA_RX_COPY_MAX hands
 * its ring page to the message and the ring takes a new one; with
 * init_on_alloc (Debian's default) each new page is also cleared, a
 * cost Linux (which recycles its fragments) does not pay (measured:
 * Documentation/measurements.rst). A page the reader is done with
 * comes back here instead, for the next refill.
 *
 * One stack for the engine, bounded: a reader and the completion that
 * refills usually run on different CPUs, so per-CPU stacks would only
 * move the allocation around. A page may hold an earlier message's
 * bytes; only what a fragment received is ever copied out of it. A page
 * charged to a memory cgroup (a ring's first pages are) keeps its charge
 * while it waits here: at most RDS_RDMA_PAGE_CACHE pages.
 *
 * rds_rdma_pages_lock is a leaf lock (rds_rdma.h), irq-safe because a
 * message may be freed from any context.
 */
#include <linux/mm.h>
#include <linux/spinlock.h>

#include "rds_rdma.h"

/* 1 MiB: a few rings' worth of 8 KiB messages in flight. */
#define RDS_RDMA_PAGE_CACHE	256

static DEFINE_SPINLOCK(rds_rdma_pages_lock);
static struct page *rds_rdma_pages[RDS_RDMA_PAGE_CACHE];
static unsigned int rds_rdma_pages_nr;

/**
 * rds_rdma_page_get - a page for a receive slot
 * @gfp: for a new one, when none is cached
 *
 * Context: any.
 */
struct page *rds_rdma_page_get(gfp_t gfp)
{
	struct page *page = NULL;
	unsigned long flags;

	spin_lock_irqsave(&rds_rdma_pages_lock, flags);
	if (rds_rdma_pages_nr)
		page = rds_rdma_pages[--rds_rdma_pages_nr];
	spin_unlock_irqrestore(&rds_rdma_pages_lock, flags);
	if (page) {
		rds_rdma_stat_inc(RDS_RDMA_STAT_RX_PAGE_REUSED);
		return page;
	}
	return alloc_page(gfp);
}

/**
 * rds_rdma_page_put - a receive page is free again
 * @page: ours alone (its only reference)
 *
 * Context: any.
 */
void rds_rdma_page_put(struct page *page)
{
	unsigned long flags;

	if (page_ref_count(page) == 1 && page_to_nid(page) == numa_mem_id()) {
		spin_lock_irqsave(&rds_rdma_pages_lock, flags);
		if (rds_rdma_pages_nr < RDS_RDMA_PAGE_CACHE) {
			rds_rdma_pages[rds_rdma_pages_nr++] = page;
			page = NULL;
		}
		spin_unlock_irqrestore(&rds_rdma_pages_lock, flags);
	}
	if (page)
		put_page(page);
}

/**
 * rds_rdma_pages_drain - free every cached page (engine exit)
 *
 * Every message is gone by then: each held a reference to its module.
 */
void rds_rdma_pages_drain(void)
{
	unsigned long flags;

	spin_lock_irqsave(&rds_rdma_pages_lock, flags);
	while (rds_rdma_pages_nr)
		put_page(rds_rdma_pages[--rds_rdma_pages_nr]);
	spin_unlock_irqrestore(&rds_rdma_pages_lock, flags);
}
