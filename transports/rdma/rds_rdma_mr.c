// SPDX-License-Identifier: GPL-2.0
/*
 * Memory registration for peers' RDMA: fast registration (FRWR) through
 * a pool of memory regions per device, what Linux's FMR pool gave (cheap
 * repeated RDS_GET_MR: region objects are allocated once and reused)
 * without its hole: Linux leaves a freed region valid until a later
 * batched flush, while here RDS_FREE_MR returns only after the device
 * invalidated it and finished what it was doing with it, so the memory
 * is never read or written again.
 *
 * A registration maps exactly the user's range: its I/O virtual address
 * is the region's offset in its first page, so a peer addresses it as
 * Linux's zero-based registrations are addressed (offset from the start
 * of the first page, the cookie's offset included) and reaches no byte
 * of those pages outside the range. The key's low byte changes on every
 * reuse, so an old cookie never names a new registration.
 *
 * The regions are device-wide (one protection domain per device): any
 * peer connected through the device may use a key it learned, as with
 * Linux; the per-peer check of RDS_GET_MR_FOR_DEST is loopback's only.
 *
 * Locks: dev->regqp_mutex (making the registration queue pair) outside
 * dev->reg_rwsem (read: a registration or invalidation in progress;
 * write: installing a registration queue pair, the device going away)
 * outside dev->frmr_lock. No RDMA CM call is made under reg_rwsem
 * (rds_rdma_regqp_ready()). A connection's i_cm_mutex is taken alone,
 * before any of them, to read its route (rds_rdma_mr_laddr()).
 */
#include <linux/kmemleak.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "rds_rdma.h"
#include "rds_rdma_trace.h"

/* Pool classes: Linux's 8K and 1M pools (two pages or 256, plus one for
 * an unaligned start).
 */
static const unsigned int rds_rdma_frmr_pages[RDS_RDMA_FRMR_CLASSES] = {
	3, (RDS_MAX_MSG_SIZE >> PAGE_SHIFT) + 1,
};

/* Pages a region of @class holds on @dev: the class's, or fewer if the
 * device's page lists are shorter (siw: 256, so an unaligned 1 MiB does
 * not fit there).
 */
static unsigned int rds_rdma_frmr_max_pages(struct rds_rdma_dev *dev,
					    unsigned int class)
{
	return min_t(unsigned int, rds_rdma_frmr_pages[class],
		     dev->ibdev->attrs.max_fast_reg_page_list_len);
}

/* Regions per class a device may have at once. */
static const unsigned int rds_rdma_frmr_cap[RDS_RDMA_FRMR_CLASSES] = {
	16384, 2048,
};

/* A class reuses a region only once this many are free, and then one of
 * them at random: a peer that held a cookie cannot tell when its region
 * comes back (LIFO reuse gave it back at the next registration, where
 * the key's random low byte alone, 255 values, kept it out). A guess at
 * a live key names one of at least this many regions and one of 255
 * bytes: under 1 in 4080 (about 12 bits; the 24 index bits of a pool a
 * peer has not seen add more). At the class's cap the spread is what
 * is free.
 */
#define RDS_RDMA_FRMR_SPREAD	16

/**
 * struct rds_rdma_frmr - one fast-registration memory region
 * @f_mr: the device's region; NULL once the device took it away
 * @f_dev: its device (a struct reference)
 * @f_item: on the device's free list or live list
 * @f_class: pool class
 * @f_nents: mapped entries of @f_sg while registered
 * @f_cqe: completion of the REG_MR or LOCAL_INV in flight
 * @f_done: completed with it
 * @f_status: its status
 * @f_stuck: the device did not complete a request in time: @f_cqe may
 *	still complete, so the struct is never freed (counted, see
 *	rds_rdma_frmr_post())
 * @f_sg: the pages, up to the class's count
 */
struct rds_rdma_frmr {
	struct ib_mr		*f_mr;
	struct rds_rdma_dev	*f_dev;
	struct list_head	f_item;
	unsigned int		f_class;
	unsigned int		f_nents;
	struct ib_cqe		f_cqe;
	struct completion	f_done;
	enum ib_wc_status	f_status;
	bool			f_stuck;
	struct scatterlist	f_sg[];
};

static void rds_rdma_frmr_wr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rds_rdma_frmr *f = container_of(wc->wr_cqe,
					       struct rds_rdma_frmr, f_cqe);

	trace_rds_rdma_reg_done(cq, wc, -1);
	f->f_status = wc->status;
	complete(&f->f_done);
}

static void rds_rdma_frmr_destroy(struct rds_rdma_frmr *f)
{
	if (f->f_mr)
		ib_dereg_mr(f->f_mr);
	rds_rdma_dev_struct_put(f->f_dev);
	if (!f->f_stuck)
		kfree(f);
}

/* A free region of @class to reuse, or NULL to make a new one. */
static struct rds_rdma_frmr *rds_rdma_frmr_pick_locked(struct rds_rdma_dev *dev,
						       unsigned int class)
{
	unsigned int n = dev->frmr_nfree[class], k;
	struct rds_rdma_frmr *f;

	lockdep_assert_held(&dev->frmr_lock);
	if (!n || (n < RDS_RDMA_FRMR_SPREAD &&
		   dev->frmr_count[class] < rds_rdma_frmr_cap[class]))
		return NULL;
	k = get_random_u32_below(min_t(unsigned int, n, RDS_RDMA_FRMR_SPREAD));
	list_for_each_entry(f, &dev->frmr_free[class], f_item)
		if (!k--)
			return f;
	return NULL;	/* not reached: n counts the list */
}

/* A region of @class from the free list or a new one. */
static struct rds_rdma_frmr *rds_rdma_frmr_get(struct rds_rdma_dev *dev,
					       unsigned int class)
{
	unsigned int pages = rds_rdma_frmr_max_pages(dev, class);
	struct rds_rdma_frmr *f;
	int ret = -ENOMEM;

	mutex_lock(&dev->frmr_lock);
	f = rds_rdma_frmr_pick_locked(dev, class);
	if (f) {
		list_move(&f->f_item, &dev->frmr_live);
		dev->frmr_nfree[class]--;
		mutex_unlock(&dev->frmr_lock);
		rds_rdma_stat_inc(class ? RDS_RDMA_STAT_MR_1M_REUSED :
				  RDS_RDMA_STAT_MR_8K_REUSED);
		return f;
	}
	if (dev->frmr_count[class] >= rds_rdma_frmr_cap[class]) {
		mutex_unlock(&dev->frmr_lock);
		rds_rdma_stat_inc(class ? RDS_RDMA_STAT_MR_1M_POOL_DEPLETED :
				  RDS_RDMA_STAT_MR_8K_POOL_DEPLETED);
		return ERR_PTR(-ENOMEM);
	}
	dev->frmr_count[class]++;
	mutex_unlock(&dev->frmr_lock);

	f = kzalloc(struct_size(f, f_sg, pages), GFP_KERNEL_ACCOUNT);
	if (!f)
		goto err;
	f->f_mr = ib_alloc_mr(dev->pd, IB_MR_TYPE_MEM_REG, pages);
	if (IS_ERR(f->f_mr)) {
		ret = PTR_ERR(f->f_mr);
		kfree(f);
		goto err;
	}
	f->f_class = class;
	f->f_cqe.done = rds_rdma_frmr_wr_done;
	/* The key's low byte starts anywhere. */
	ib_update_fast_reg_key(f->f_mr, get_random_u8());
	refcount_inc(&dev->refs);
	f->f_dev = dev;
	mutex_lock(&dev->frmr_lock);
	list_add(&f->f_item, &dev->frmr_live);
	mutex_unlock(&dev->frmr_lock);
	rds_rdma_stat_inc(class ? RDS_RDMA_STAT_MR_1M_ALLOC :
			  RDS_RDMA_STAT_MR_8K_ALLOC);
	return f;

err:
	mutex_lock(&dev->frmr_lock);
	dev->frmr_count[class]--;
	mutex_unlock(&dev->frmr_lock);
	return ERR_PTR(ret);
}

/* Back to the pool, or gone if the device took its region away. */
static void rds_rdma_frmr_put(struct rds_rdma_frmr *f, bool reuse)
{
	struct rds_rdma_dev *dev = f->f_dev;

	mutex_lock(&dev->frmr_lock);
	if (reuse && f->f_mr && !dev->dead) {
		/* At the tail: the spread is taken from the head, so a
		 * region just freed waits its turn.
		 */
		list_move_tail(&f->f_item, &dev->frmr_free[f->f_class]);
		dev->frmr_nfree[f->f_class]++;
		mutex_unlock(&dev->frmr_lock);
		return;
	}
	list_del(&f->f_item);
	dev->frmr_count[f->f_class]--;
	mutex_unlock(&dev->frmr_lock);
	rds_rdma_frmr_destroy(f);
}

/* How long an invalidation may take. A use-once region's invalidation
 * holds its connection's deliveries (rdma.rst).
 */
#define RDS_RDMA_INV_TIMEOUT	(5 * HZ)

/* Post @wr (REG_MR or LOCAL_INV of @f) on the registration queue pair
 * and wait for it. A LOCAL_INV waits RDS_RDMA_INV_TIMEOUT at most: a
 * device that does not complete it then has its region destroyed
 * instead (which no peer reaches either), the queue pair marked broken
 * and @f kept forever (its completion may still come), counted in
 * ib_rdma_mr_timeout. A LOCAL_INV names the region by its key only, so
 * the device finds nothing when it gets to it. A REG_MR is waited for:
 * it names the region object itself (rxe reads it when it gets to the
 * request), which must outlive it, and if it ran late it would make
 * pages valid that the caller released.
 * dev->reg_rwsem is held for read.
 */
static int rds_rdma_frmr_post(struct rds_rdma_dev *dev,
			      struct rds_rdma_frmr *f, struct ib_send_wr *wr)
{
	int ret;

	wr->wr_cqe = &f->f_cqe;
	wr->send_flags = IB_SEND_SIGNALED;
	init_completion(&f->f_done);
	if (down_interruptible(&dev->reg_slots))
		return -EINTR;
	/* A software device (rxe) carries a local operation out in a
	 * tasklet its post raises: posted with bottom halves off, that
	 * runs here when they come back on, usually completing the request
	 * before we wait, instead of in ksoftirqd, which would cost context
	 * switches on every registration and invalidation (measured:
	 * Documentation/measurements.rst). Hardware is not affected.
	 */
	local_bh_disable();
	ret = rds_rdma_regqp_post(dev->regqp, wr);
	local_bh_enable();
	if (!ret) {
		/* The device completes it, or a flush does. */
		if (wr->opcode != IB_WR_LOCAL_INV) {
			wait_for_completion(&f->f_done);
		} else if (!wait_for_completion_timeout(&f->f_done,
							RDS_RDMA_INV_TIMEOUT)) {
			rds_rdma_stat_inc(RDS_RDMA_STAT_MR_TIMEOUT);
			rds_rdma_regqp_set_broken(dev->regqp);
			f->f_stuck = true;
			/* Kept for good on purpose: not a leak to report. */
			kmemleak_not_leak(f);
			ib_dereg_mr(f->f_mr);
			f->f_mr = NULL;
			if (f->f_nents)
				ib_dma_unmap_sg(dev->ibdev, f->f_sg, f->f_nents,
						DMA_BIDIRECTIONAL);
			f->f_nents = 0;
			ret = -ETIMEDOUT;
		} else if (f->f_status != IB_WC_SUCCESS) {
			rds_rdma_regqp_set_broken(dev->regqp);
			ret = -EIO;
		}
	}
	up(&dev->reg_slots);
	return ret;
}

/*
 * A working registration queue pair on @dev, made on first use and
 * again after it broke. It is made (RDMA CM ids, listener, connect) and
 * a broken one destroyed under no lock but regqp_mutex: the CM takes
 * its ids' handler mutexes there, and a handler takes i_cm_mutex, under
 * which a connection's teardown waits for its use-once kills, which
 * take reg_rwsem. The new one is installed under reg_rwsem for write,
 * so nobody is posting to the old one any more.
 */
static int rds_rdma_regqp_ready(struct rds_rdma_dev *dev, struct net *net,
				const struct in6_addr *laddr)
{
	struct rds_rdma_regqp *rq, *old;
	int ret = 0;

	rq = READ_ONCE(dev->regqp);
	if (rq && !rds_rdma_regqp_broken(rq))
		return 0;
	mutex_lock(&dev->regqp_mutex);
	rq = READ_ONCE(dev->regqp);
	if (rq && !rds_rdma_regqp_broken(rq)) {
		mutex_unlock(&dev->regqp_mutex);
		return 0;
	}
	rq = rds_rdma_regqp_create(dev, net, laddr);
	if (IS_ERR(rq)) {
		mutex_unlock(&dev->regqp_mutex);
		return PTR_ERR(rq);
	}
	down_write(&dev->reg_rwsem);
	if (dev->dead) {
		old = rq;
		ret = -ENODEV;
	} else {
		old = dev->regqp;
		WRITE_ONCE(dev->regqp, rq);
	}
	up_write(&dev->reg_rwsem);
	mutex_unlock(&dev->regqp_mutex);
	rds_rdma_regqp_free(old);
	return ret;
}

static int rds_rdma_frmr_map(struct rds_rdma_dev *dev, struct rds_rdma_frmr *f,
			     struct rds_mr *mr)
{
	struct ib_device *ibdev = dev->ibdev;
	u32 off = mr->r_offset, left = mr->r_len;
	unsigned int i;
	int n;

	sg_init_table(f->f_sg, mr->r_npages);
	for (i = 0; i < mr->r_npages; i++) {
		u32 len = min_t(u32, left, PAGE_SIZE - off);

		sg_set_page(&f->f_sg[i], mr->r_pages[i], len, off);
		left -= len;
		off = 0;
	}
	n = ib_dma_map_sg(ibdev, f->f_sg, mr->r_npages, DMA_BIDIRECTIONAL);
	if (!n)
		return -ENOMEM;
	f->f_nents = mr->r_npages;
	if (ib_map_mr_sg(f->f_mr, f->f_sg, n, NULL, PAGE_SIZE) != n) {
		ib_dma_unmap_sg(ibdev, f->f_sg, f->f_nents, DMA_BIDIRECTIONAL);
		f->f_nents = 0;
		return -EINVAL;
	}
	/* Peers address the region from the start of its first page. */
	f->f_mr->iova = mr->r_offset;
	return 0;
}

/* After the device lost the region (invalidated or deregistered). */
static void rds_rdma_frmr_unmap(struct rds_rdma_frmr *f)
{
	if (f->f_nents)
		ib_dma_unmap_sg(f->f_dev->ibdev, f->f_sg, f->f_nents,
				DMA_BIDIRECTIONAL);
	f->f_nents = 0;
}

/*
 * Does a completed LOCAL_INV on @dev mean the device touches the pages
 * no more? It does on hardware, as every FRWR user assumes. rxe's does
 * not: it marks the region invalid, while a responder that checked the
 * key before goes on copying a peer's READ out of the pages (or a WRITE
 * into them); KASAN saw such a READ served from a page RDS_FREE_MR had
 * released. rxe's deregistration waits for those accesses (it drops the
 * key, then waits for the references its responder holds).
 */
static bool rds_rdma_inv_fences(struct rds_rdma_dev *dev)
{
	return dev->ibdev->ops.driver_id != RDMA_DRIVER_RXE;
}

/* A new device region for @f's pool slot, its old one deregistered;
 * dev->reg_rwsem held for read.
 */
static int rds_rdma_frmr_renew(struct rds_rdma_frmr *f)
{
	struct rds_rdma_dev *dev = f->f_dev;
	struct ib_mr *mr;

	mr = ib_alloc_mr(dev->pd, IB_MR_TYPE_MEM_REG,
			 rds_rdma_frmr_max_pages(dev, f->f_class));
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	ib_update_fast_reg_key(mr, get_random_u8());
	f->f_mr = mr;
	return 0;
}

/* Register @mr on @dev; dev->reg_rwsem held for read. */
static int rds_rdma_frmr_register(struct rds_rdma_dev *dev, struct rds_mr *mr,
				  struct rds_rdma_frmr *f, int access)
{
	struct ib_reg_wr wr = {};
	u8 key = f->f_mr->rkey & 0xff;
	int ret;

	ret = rds_rdma_frmr_map(dev, f, mr);
	if (ret)
		return ret;
	/* A new generation: never the key the last user had. */
	ib_update_fast_reg_key(f->f_mr, key + 1 + get_random_u32() % 255);
	wr.wr.opcode = IB_WR_REG_MR;
	wr.mr = f->f_mr;
	wr.key = f->f_mr->rkey;
	wr.access = access;
	ret = rds_rdma_frmr_post(dev, f, &wr.wr);
	trace_rds_rdma_mr_reg(f->f_mr, f->f_nents, ret);
	if (ret)
		rds_rdma_frmr_unmap(f);
	return ret;
}

/* The device that registers @mr, with a structure reference, and in
 * *@laddr the address its registration queue pair is made on. A key is
 * valid on one device only: a region for one peer whose connection is
 * up is registered on the device that connection runs on, or the peer's
 * RDMA with its key would be refused, taking the connection down (on an
 * alternate route, rds_rdma_route.c, that is another port and often
 * another device than the address's). The device is taken from the
 * connection: resolving the address binds an RDMA CM id and destroys it
 * again, about 1 % of an RDMA request's CPU time over rxe
 * (Documentation/measurements.rst). But a device whose registration
 * queue pair is still to be made is looked up by the address that makes
 * it. Otherwise, and for a region any peer may use, the socket's own
 * address picks the device. A move after this leaves the key on the old
 * device: the peer's RDMA fails, and its sender is told.
 */
static struct rds_rdma_dev *
rds_rdma_mr_dev(const struct rds_mr *mr, struct net *net,
		const struct in6_addr **laddr,
		const struct rds_rdma_flavor *fl, struct in6_addr *route)
{
	struct rds_rdma_dev *dev = NULL;
	struct rds_connection *conn;
	struct rds_rdma_conn *ic;

	might_sleep();
	if (!mr->r_for_peer || !net_eq(net, &init_net))
		goto by_addr;
	conn = rds_conn_find(net, *laddr, &mr->r_peer, &fl->trans, mr->r_tos,
			     0);
	if (!conn)
		goto by_addr;
	ic = rds_rdma_conn(conn);
	/* The route's address is written under it; held for a copy only. */
	mutex_lock(&ic->i_cm_mutex);
	if (rds_conn_state(conn) == RDS_CONN_UP) {
		if (ic->i_route.alt) {
			*route = ic->i_route.laddr;
			*laddr = route;
		}
		dev = rds_rdma_dev_of_conn(ic);
	}
	mutex_unlock(&ic->i_cm_mutex);
	rds_conn_put(conn);
	if (dev && (*laddr == route || READ_ONCE(dev->regqp)))
		return dev;
	if (dev)
		rds_rdma_dev_struct_put(dev);
by_addr:
	return rds_rdma_dev_by_addr(net, *laddr, fl->node_type);
}

/**
 * rds_rdma_mr_register - the transport's mr_register op
 * @mr: the region, pinned
 * @net: namespace of @laddr
 * @laddr: the registering socket's address (picks the device, unless
 *	the region is for a peer whose connection is up)
 * @kg: unused: the key is the device region's
 *
 * Context: process context, may sleep.
 */
int rds_rdma_mr_register(struct rds_mr *mr, struct net *net,
			 const struct in6_addr *laddr, struct rds_mr_keygen *kg)
{
	const struct rds_rdma_flavor *fl = rds_rdma_flavor_of_trans(mr->r_trans);
	unsigned int class = mr->r_npages > rds_rdma_frmr_pages[0];
	struct rds_rdma_frmr *f;
	struct rds_rdma_dev *dev;
	struct in6_addr route;
	int access, ret, tries = 0;

	dev = rds_rdma_mr_dev(mr, net, &laddr, fl, &route);
	if (!dev)
		return -ENODEV;
	if (mr->r_npages > rds_rdma_frmr_max_pages(dev, class)) {
		rds_rdma_dev_struct_put(dev);
		return -EMSGSIZE;
	}
	access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
		 IB_ACCESS_REMOTE_WRITE;
	if (fl->atomics)
		access |= IB_ACCESS_REMOTE_ATOMIC;
again:
	ret = rds_rdma_regqp_ready(dev, net, laddr);
	if (ret)
		goto put;
	down_read(&dev->reg_rwsem);
	if (dev->dead) {
		ret = -ENODEV;
		goto out;
	}
	if (!dev->regqp || rds_rdma_regqp_broken(dev->regqp)) {
		ret = -EAGAIN;	/* broke meanwhile: make another */
		goto out;
	}
	f = rds_rdma_frmr_get(dev, class);
	if (IS_ERR(f)) {
		ret = PTR_ERR(f);
		goto out;
	}
	ret = rds_rdma_frmr_register(dev, mr, f, access);
	if (ret) {
		rds_rdma_frmr_put(f, false);
		goto out;
	}
	mr->r_key = f->f_mr->rkey;
	mr->r_tdata = f;
	mr->r_where = rds_rdma_keys_where(dev);
out:
	up_read(&dev->reg_rwsem);
	if ((ret == -EAGAIN || ret == -EIO) && ++tries < 3)
		goto again;
put:
	rds_rdma_dev_struct_put(dev);
	return ret;
}
EXPORT_SYMBOL_GPL(rds_rdma_mr_register);

/**
 * rds_rdma_mr_free - the transport's mr_free op
 * @mr: a region rds_rdma_mr_register() registered
 *
 * Returns once the device has invalidated the region (or the device is
 * gone and took it along) and is done with any access a peer started
 * before: no peer reaches the pages any more, and the caller may
 * release them. On rxe that takes a deregistration
 * (rds_rdma_inv_fences()).
 *
 * Context: process context, may sleep.
 */
void rds_rdma_mr_free(struct rds_mr *mr)
{
	struct rds_rdma_frmr *f = mr->r_tdata;
	struct rds_rdma_dev *dev = f->f_dev;
	struct ib_send_wr wr = {};
	bool reuse = false;
	int ret = -ENODEV;

	down_read(&dev->reg_rwsem);
	if (f->f_mr && !dev->dead && !rds_rdma_inv_fences(dev)) {
		/* Deregistering kills the key too, and returns once the
		 * device's accesses in progress are over. The pool slot
		 * gets a new region.
		 */
		ib_dereg_mr(f->f_mr);
		f->f_mr = NULL;
		ret = 0;
		reuse = !rds_rdma_frmr_renew(f);
	} else if (f->f_mr && !dev->dead && dev->regqp) {
		wr.opcode = IB_WR_LOCAL_INV;
		wr.ex.invalidate_rkey = f->f_mr->rkey;
		ret = rds_rdma_frmr_post(dev, f, &wr);
		reuse = !ret;
	}
	trace_rds_rdma_mr_inv(mr->r_key, ret);
	if (ret && f->f_mr) {
		/* Not invalidated: destroying the region is as good. */
		ib_dereg_mr(f->f_mr);
		f->f_mr = NULL;
	}
	/* Only now: the device may have been reading the pages. */
	rds_rdma_frmr_unmap(f);
	up_read(&dev->reg_rwsem);
	rds_rdma_stat_inc(f->f_class ? RDS_RDMA_STAT_MR_1M_FREE :
			  RDS_RDMA_STAT_MR_8K_FREE);
	rds_rdma_frmr_put(f, reuse);
}
EXPORT_SYMBOL_GPL(rds_rdma_mr_free);

/**
 * rds_rdma_mr_dev_remove - the device goes: take every region away
 * @dev: the device, dead, with no connection left
 *
 * Live regions are destroyed (their owners' rds_rdma_mr_free() finds
 * them gone), free ones freed, the registration queue pair torn down.
 *
 * Context: process context (the ib_client's remove).
 */
void rds_rdma_mr_dev_remove(struct rds_rdma_dev *dev)
{
	struct rds_rdma_frmr *f, *tmp;
	unsigned int c;
	struct rds_rdma_regqp *rq;
	LIST_HEAD(gone);

	down_write(&dev->reg_rwsem);
	/* Freed below, outside the lock (see rds_rdma_regqp_ready()):
	 * holding it for write, nothing is posted to it any more.
	 */
	rq = dev->regqp;
	dev->regqp = NULL;
	mutex_lock(&dev->frmr_lock);
	list_for_each_entry(f, &dev->frmr_live, f_item) {
		if (f->f_mr)
			ib_dereg_mr(f->f_mr);
		f->f_mr = NULL;
		rds_rdma_frmr_unmap(f);
	}
	for (c = 0; c < RDS_RDMA_FRMR_CLASSES; c++) {
		list_splice_init(&dev->frmr_free[c], &gone);
		dev->frmr_nfree[c] = 0;
	}
	mutex_unlock(&dev->frmr_lock);
	up_write(&dev->reg_rwsem);
	rds_rdma_regqp_free(rq);
	list_for_each_entry_safe(f, tmp, &gone, f_item) {
		list_del(&f->f_item);
		mutex_lock(&dev->frmr_lock);
		dev->frmr_count[f->f_class]--;
		mutex_unlock(&dev->frmr_lock);
		rds_rdma_frmr_destroy(f);
	}
}
