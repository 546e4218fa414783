// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA devices: an ib_client learns of each device as it comes and goes.
 * A device gets a protection domain on arrival; connections take a user
 * reference while their queue pair lives on it. Removal (rdma link delete,
 * the driver unloading) drops every connection on the device and waits
 * for their queue pairs to go, so nothing outlives the device; the
 * connections come back on another device, or on this one when it
 * returns, and their messages with them.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>

#include "rds_rdma.h"

static LIST_HEAD(rds_rdma_devs);
static DEFINE_SPINLOCK(rds_rdma_devs_lock);	/* rds_rdma_devs, dead */

static int rds_rdma_dev_add(struct ib_device *ibdev);
static void rds_rdma_dev_remove(struct ib_device *ibdev, void *client_data);

static struct ib_client rds_rdma_client = {
	.name	= "rds_rdma",
	.add	= rds_rdma_dev_add,
	.remove	= rds_rdma_dev_remove,
};

static int rds_rdma_dev_add(struct ib_device *ibdev)
{
	struct rds_rdma_dev *dev;

	if (ibdev->node_type != RDMA_NODE_IB_CA &&
	    ibdev->node_type != RDMA_NODE_RNIC)
		return -EOPNOTSUPP;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	refcount_set(&dev->refs, 1);
	refcount_set(&dev->users, 1);
	init_waitqueue_head(&dev->wait);
	init_rwsem(&dev->reg_rwsem);
	mutex_init(&dev->regqp_mutex);
	sema_init(&dev->reg_slots, 64);
	mutex_init(&dev->frmr_lock);
	mutex_init(&dev->srq_mutex);
	INIT_LIST_HEAD(&dev->frmr_free[0]);
	INIT_LIST_HEAD(&dev->frmr_free[1]);
	INIT_LIST_HEAD(&dev->frmr_live);
	dev->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(dev->pd)) {
		int ret = PTR_ERR(dev->pd);

		kfree(dev);
		return ret;
	}
	ib_set_client_data(ibdev, &rds_rdma_client, dev);
	/* A port going down moves its connections to another route. */
	INIT_WORK(&dev->port_w, rds_rdma_route_port_worker);
	INIT_IB_EVENT_HANDLER(&dev->ev, ibdev, rds_rdma_route_dev_event);
	ib_register_event_handler(&dev->ev);
	spin_lock_bh(&rds_rdma_devs_lock);
	list_add_tail(&dev->list, &rds_rdma_devs);
	spin_unlock_bh(&rds_rdma_devs_lock);
	/* Its IPv6 addresses get listeners. */
	rds_rdma_listen6_rescan();
	return 0;
}

static void rds_rdma_dev_remove(struct ib_device *ibdev, void *client_data)
{
	struct rds_rdma_dev *dev = client_data;

	ib_unregister_event_handler(&dev->ev);
	cancel_work_sync(&dev->port_w);
	spin_lock_bh(&rds_rdma_devs_lock);
	dev->dead = true;
	list_del(&dev->list);
	spin_unlock_bh(&rds_rdma_devs_lock);

	/* A connection may be between taking its reference and showing
	 * which device it is on: drop again until all are gone.
	 */
	do {
		rds_rdma_drop_dev_conns(ibdev);
	} while (!wait_event_timeout(dev->wait,
				     refcount_read(&dev->users) == 1, HZ));

	/* Registrations go: their owners find them gone. */
	rds_rdma_mr_dev_remove(dev);
	rds_rdma_srq_dev_remove(dev);
	ib_dealloc_pd(dev->pd);
	rds_rdma_dev_struct_put(dev);
	/* Its listeners go with it (the CM detaches them): listen again. */
	rds_rdma_listen6_rescan();
}

/**
 * rds_rdma_dev_struct_put - drop a reference to the structure
 * @dev: the device's structure
 *
 * Regions that outlive the device (their owners free them later) keep
 * only the structure.
 */
void rds_rdma_dev_struct_put(struct rds_rdma_dev *dev)
{
	if (refcount_dec_and_test(&dev->refs))
		kfree_rcu(dev, rcu);
}

/**
 * rds_rdma_dev_get - the engine's state of a device, for a new queue pair
 * @ibdev: the device
 *
 * Context: process context.
 * Return: the device with a user reference, or NULL if it is not one of
 * ours or is going away.
 */
struct rds_rdma_dev *rds_rdma_dev_get(struct ib_device *ibdev)
{
	struct rds_rdma_dev *dev;

	spin_lock_bh(&rds_rdma_devs_lock);
	list_for_each_entry(dev, &rds_rdma_devs, list) {
		if (dev->ibdev == ibdev) {
			refcount_inc(&dev->users);
			spin_unlock_bh(&rds_rdma_devs_lock);
			return dev;
		}
	}
	spin_unlock_bh(&rds_rdma_devs_lock);
	return NULL;
}

/**
 * rds_rdma_dev_ours - is @ibdev a device the engine uses (and not leaving)?
 * @ibdev: the device, or NULL
 */
bool rds_rdma_dev_ours(struct ib_device *ibdev)
{
	struct rds_rdma_dev *dev;
	bool ours = false;

	spin_lock_bh(&rds_rdma_devs_lock);
	list_for_each_entry(dev, &rds_rdma_devs, list)
		if (dev->ibdev == ibdev)
			ours = true;
	spin_unlock_bh(&rds_rdma_devs_lock);
	return ours;
}

void rds_rdma_dev_put(struct rds_rdma_dev *dev)
{
	/* The remover's timed wait may see the count drop and free the
	 * structure before the wake-up below: pin it across.
	 */
	refcount_inc(&dev->refs);
	if (refcount_dec_and_test(&dev->users))
		WARN_ON_ONCE(1);	/* the device itself holds one */
	wake_up(&dev->wait);
	rds_rdma_dev_struct_put(dev);
}

static int rds_rdma_noop_handler(struct rdma_cm_id *id,
				 struct rdma_cm_event *ev)
{
	return 0;
}

/* The device @addr is on (a CM id bound to it knows), or NULL. */
static struct ib_device *rds_rdma_ibdev_of(struct rdma_cm_id *id,
					   const struct in6_addr *addr,
					   __u32 scope_id)
{
	struct sockaddr_storage ss = {};

	if (ipv6_addr_v4mapped(addr)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = addr->s6_addr32[3];
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = *addr;
		sin6->sin6_scope_id = scope_id;
	}
	if (rdma_bind_addr(id, (struct sockaddr *)&ss))
		return NULL;
	return id->device;
}

/**
 * rds_rdma_laddr_check - is @addr an address of a device of @node_type?
 * @net: namespace
 * @addr: the address (v4-mapped for IPv4)
 * @scope_id: interface of a link-local IPv6 address
 * @node_type: RDMA_NODE_IB_CA or RDMA_NODE_RNIC
 *
 * Binding a CM id to the address finds its device, as Linux does.
 *
 * Context: process context, may sleep.
 * Return: 0 or -EADDRNOTAVAIL.
 */
int rds_rdma_laddr_check(struct net *net, const struct in6_addr *addr,
			 __u32 scope_id, unsigned int node_type)
{
	struct ib_device *ibdev;
	struct rdma_cm_id *id;
	int ret = -EADDRNOTAVAIL;

	id = rdma_create_id(net, rds_rdma_noop_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return ret;
	ibdev = rds_rdma_ibdev_of(id, addr, scope_id);
	if (ibdev && ibdev->node_type == node_type &&
	    ib_get_client_data(ibdev, &rds_rdma_client))
		ret = 0;
	rdma_destroy_id(id);
	return ret;
}
EXPORT_SYMBOL_GPL(rds_rdma_laddr_check);

/**
 * rds_rdma_dev_by_addr - the engine's device @addr is on
 * @net: namespace
 * @addr: a local address
 * @node_type: the flavor's node type
 *
 * Context: process context, may sleep.
 * Return: the device with a structure reference (rds_rdma_dev_struct_put),
 * or NULL if there is none or it is going away.
 */
struct rds_rdma_dev *rds_rdma_dev_by_addr(struct net *net,
					  const struct in6_addr *addr,
					  unsigned int node_type)
{
	struct rds_rdma_dev *dev = NULL;
	struct ib_device *ibdev;
	struct rdma_cm_id *id;

	id = rdma_create_id(net, rds_rdma_noop_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return NULL;
	ibdev = rds_rdma_ibdev_of(id, addr, 0);
	if (ibdev && ibdev->node_type == node_type) {
		struct rds_rdma_dev *d;

		/* On the list: not dead, not freed. */
		spin_lock_bh(&rds_rdma_devs_lock);
		list_for_each_entry(d, &rds_rdma_devs, list) {
			if (d->ibdev == ibdev) {
				refcount_inc(&d->refs);
				dev = d;
				break;
			}
		}
		spin_unlock_bh(&rds_rdma_devs_lock);
	}
	rdma_destroy_id(id);
	return dev;
}

/**
 * rds_rdma_dev_of_conn - the device a connection's queue pair is on
 * @ic: the connection
 *
 * Context: any.
 * Return: the device with a structure reference (rds_rdma_dev_struct_put),
 * or NULL if the connection has none or it is going away.
 */
struct rds_rdma_dev *rds_rdma_dev_of_conn(struct rds_rdma_conn *ic)
{
	struct rds_rdma_dev *dev;

	/* The structure is freed after a grace period; its last
	 * reference may be going: then it is not ours to take.
	 */
	rcu_read_lock();
	dev = READ_ONCE(ic->i_dev);
	if (dev && (READ_ONCE(dev->dead) || !refcount_inc_not_zero(&dev->refs)))
		dev = NULL;
	rcu_read_unlock();
	return dev;
}

int rds_rdma_dev_init(void)
{
	return ib_register_client(&rds_rdma_client);
}

void rds_rdma_dev_exit(void)
{
	ib_unregister_client(&rds_rdma_client);
}
