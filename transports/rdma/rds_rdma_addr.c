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
 * no longer on the interface that held it when it came up drops for
 * RDS_DROP_LOCAL_ADDR_GONE and reconnects at once. A connection on an
 * alternate route (rds_rdma_route.c) uses another address and is left to
 * the route's own checks.
 */
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>

#include "rds_rdma.h"

/* Bounds the look after a burst of changes (a move is two), and the
 * looks to ten a second however fast addresses change.
 */
#define RDS_RDMA_ADDR_DELAY	(HZ / 10)

static void rds_rdma_addr_worker(struct work_struct *work);
static DECLARE_DELAYED_WORK(rds_rdma_addr_w, rds_rdma_addr_worker);

/* Is @addr an address of @dev itself (not merely reachable through it)?
 * A tentative IPv6 address counts: one re-running duplicate detection
 * where it was has not moved. Under RCU.
 */
bool rds_rdma_addr_held(const struct in6_addr *addr, struct net_device *dev)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;

	if (!ipv6_addr_v4mapped(addr))
		return ipv6_chk_addr_and_flags(dev_net(dev), addr, dev, false,
					       1, 0);
	in_dev = __in_dev_get_rcu(dev);
	if (!in_dev)
		return false;
	in_dev_for_each_ifa_rcu(ifa, in_dev)
		if (ifa->ifa_local == addr->s6_addr32[3])
			return true;
	return false;
}

/**
 * rds_rdma_addr_bind - remember which interface holds @conn's address
 * @conn: a connection that just came up
 * @id: its CM id
 *
 * The CM id's bound interface is the one the route leaves by, which for
 * IPv6 with a given source need not be the one holding the address; so
 * that one is tried first and, failing it, every interface. Nothing
 * found (an address gone already): the connection is not watched.
 *
 * Context: a CM handler, or i_est_w (rds_rdma_cm.c); i_cm_mutex held.
 */
void rds_rdma_addr_bind(struct rds_connection *conn, struct rdma_cm_id *id)
{
	int ifindex = id->route.addr.dev_addr.bound_dev_if, held = 0;
	struct net_device *dev;

	rcu_read_lock();
	dev = ifindex ? dev_get_by_index_rcu(&init_net, ifindex) : NULL;
	if (dev && rds_rdma_addr_held(&conn->c_laddr, dev)) {
		held = ifindex;
	} else {
		for_each_netdev_rcu(&init_net, dev) {
			if (rds_rdma_addr_held(&conn->c_laddr, dev)) {
				held = dev->ifindex;
				break;
			}
		}
	}
	rcu_read_unlock();
	WRITE_ONCE(rds_rdma_conn(conn)->i_bound_if, held);
}

/**
 * rds_rdma_addr_gone - has @conn's local address left the interface
 *	that held it when the connection came up?
 * @conn: the connection
 *
 * A connection on an alternate route, or one not watched, answers no.
 *
 * Context: any.
 * Return: true if the address left that interface, or the interface
 * is gone.
 */
bool rds_rdma_addr_gone(struct rds_connection *conn)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct net_device *dev;
	int ifindex;
	bool gone;

	ifindex = READ_ONCE(ic->i_bound_if);
	if (!ifindex || READ_ONCE(ic->i_route.alt))
		return false;
	rcu_read_lock();
	dev = dev_get_by_index_rcu(&init_net, ifindex);
	gone = !dev || !rds_rdma_addr_held(&conn->c_laddr, dev);
	rcu_read_unlock();
	return gone;
}

/**
 * rds_rdma_addr_drop - drop @conn because its address has gone
 * @conn: the connection
 *
 * Counted once per drop, whoever notices first: the watch, or a
 * completion that failed because the device could no longer send from
 * the address (rxe fails such a request at once).
 *
 * Context: any.
 */
void rds_rdma_addr_drop(struct rds_connection *conn)
{
	if (rds_conn_drop_reason(conn, RDS_DROP_LOCAL_ADDR_GONE))
		rds_rdma_stat_inc(RDS_RDMA_STAT_ADDR_MOVED);
}

static void rds_rdma_addr_check_one(struct rds_connection *conn, void *arg)
{
	if (rds_conn_state(conn) == RDS_CONN_UP && rds_rdma_addr_gone(conn))
		rds_rdma_addr_drop(conn);
}

static void rds_rdma_addr_worker(struct work_struct *work)
{
	rds_rdma_walk_conns(rds_rdma_addr_check_one, NULL);
}

static int rds_rdma_addr_event(struct net *net)
{
	/* RDS/IB lives in the initial namespace only. A look already
	 * pending will see this change too: it is not put off.
	 */
	if (net_eq(net, &init_net))
		queue_delayed_work(rds_rdma_wq, &rds_rdma_addr_w,
				   RDS_RDMA_ADDR_DELAY);
	return NOTIFY_DONE;
}

/* Both chains only queue the worker: IPv4's runs under RTNL, IPv6's in
 * atomic context.
 */
static int rds_rdma_inetaddr_event(struct notifier_block *nb,
				   unsigned long event, void *ptr)
{
	const struct in_ifaddr *ifa = ptr;

	return rds_rdma_addr_event(dev_net(ifa->ifa_dev->dev));
}

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
