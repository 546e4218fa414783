// SPDX-License-Identifier: GPL-2.0
/*
 * A local address that leaves the port its connections run on. When a
 * port fails, a failover daemon (or an operator) moves its address to a
 * surviving port, as UEK's active bonding does. The RDMA CM tells a
 * connected id nothing about it: the queue pair stays on the old port,
 * and the connection would wait for a heartbeat or a send's retries to
 * fail before it reconnected from where the address is now.
 *
 * So an address added or removed anywhere in the namespace makes a
 * worker look at every connection that is up: one whose local address is
 * no longer on the interface its CM id was bound to drops for
 * RDS_DROP_LOCAL_ADDR_GONE and reconnects at once. A connection on an
 * alternate route (rds_rdma_route.c) uses another address and is left to
 * the route's own checks.
 */
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>

#include "rds_rdma.h"

/* Coalesces a move (removed here, added there) into one look. */
#define RDS_RDMA_ADDR_DELAY	(HZ / 10)

static void rds_rdma_addr_worker(struct work_struct *work);
static DECLARE_DELAYED_WORK(rds_rdma_addr_w, rds_rdma_addr_worker);

/* Is @addr still an address of interface @ifindex? Under RCU. */
static bool rds_rdma_addr_on(const struct in6_addr *addr, int ifindex)
{
	struct net_device *dev;

	if (ipv6_addr_v4mapped(addr)) {
		dev = __ip_dev_find(&init_net, addr->s6_addr32[3], false);
		return dev && dev->ifindex == ifindex;
	}
	dev = dev_get_by_index_rcu(&init_net, ifindex);
	return dev && ipv6_chk_addr(&init_net, addr, dev, 0);
}

static void rds_rdma_addr_check_one(struct rds_connection *conn, void *arg)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	int ifindex = READ_ONCE(ic->i_bound_if);

	if (!ifindex || READ_ONCE(ic->i_route.alt) ||
	    rds_conn_state(conn) != RDS_CONN_UP)
		return;
	if (!rds_rdma_addr_on(&conn->c_laddr, ifindex)) {
		rds_rdma_stat_inc(RDS_RDMA_STAT_ADDR_MOVED);
		rds_conn_drop_reason(conn, RDS_DROP_LOCAL_ADDR_GONE);
	}
}

static void rds_rdma_addr_worker(struct work_struct *work)
{
	rds_rdma_walk_conns(rds_rdma_addr_check_one, NULL);
}

static int rds_rdma_addr_event(struct net *net)
{
	/* RDS/IB lives in the initial namespace only. */
	if (net_eq(net, &init_net))
		mod_delayed_work(rds_rdma_wq, &rds_rdma_addr_w,
				 RDS_RDMA_ADDR_DELAY);
	return NOTIFY_DONE;
}

static int rds_rdma_inetaddr_event(struct notifier_block *nb,
				   unsigned long event, void *ptr)
{
	const struct in_ifaddr *ifa = ptr;

	return rds_rdma_addr_event(dev_net(ifa->ifa_dev->dev));
}

/* Atomic context: only queues the worker. */
static int rds_rdma_inet6addr_event(struct notifier_block *nb,
				    unsigned long event, void *ptr)
{
	const struct inet6_ifaddr *ifa = ptr;

	return rds_rdma_addr_event(dev_net(ifa->idev->dev));
}

static struct notifier_block rds_rdma_inetaddr_nb = {
	.notifier_call = rds_rdma_inetaddr_event,
};

static struct notifier_block rds_rdma_inet6addr_nb = {
	.notifier_call = rds_rdma_inet6addr_event,
};

/**
 * rds_rdma_addr_init - watch local addresses (rds_rdma.ko's init)
 *
 * Return: 0 or -errno.
 */
int rds_rdma_addr_init(void)
{
	int ret;

	ret = register_inetaddr_notifier(&rds_rdma_inetaddr_nb);
	if (ret)
		return ret;
	ret = register_inet6addr_notifier(&rds_rdma_inet6addr_nb);
	if (ret)
		unregister_inetaddr_notifier(&rds_rdma_inetaddr_nb);
	return ret;
}

/**
 * rds_rdma_addr_exit - stop watching; the worker has finished on return
 */
void rds_rdma_addr_exit(void)
{
	unregister_inet6addr_notifier(&rds_rdma_inet6addr_nb);
	unregister_inetaddr_notifier(&rds_rdma_inetaddr_nb);
	cancel_delayed_work_sync(&rds_rdma_addr_w);
}
