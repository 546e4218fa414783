// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's RDMA CM listeners, in init_net.
 *
 * IPv4 peers connect to port 18634 on any address: one wildcard listener.
 * IPv6 peers of an IB or RoCE device connect to 16385 (Linux's ports),
 * which is also rds_tcp's. A wildcard RDMA CM listen reaches every device,
 * and on an iWARP device it becomes a kernel TCP listen on the port: with
 * rds_tcp loaded one of the two would fail. So IPv6 listeners are one per
 * local address, and only where that address's device is not iWARP;
 * iWARP devices get theirs on 18634 (RDS over iWARP exists only between
 * two of ours: no Linux port to keep). The set follows the addresses
 * (an inet6addr notifier, and retries while a new address's device has
 * not learnt it yet) and the devices (rds_rdma_listen6_rescan()):
 * a device's removal waits until the listeners bound to it are destroyed,
 * which the rescan does once the engine has let the device go.
 *
 * Lock order: rds_rdma_listen_mutex, then the RDMA CM's own locks
 * (rdma_bind_addr(), rdma_destroy_id()).
 */
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>

#include "rds_rdma.h"

/* IPv6 addresses looked at per scan; more are not listened on. */
#define RDS_RDMA_LISTEN6_MAX	64

/**
 * struct rds_rdma_listener - an IPv6 address and its listener
 * @item: on rds_rdma_listen6s
 * @addr: the local address
 * @scope: its interface, if link-local
 * @id: the listener, or NULL if no device of ours has the address
 * @seen: the address still exists (during a scan)
 */
struct rds_rdma_listener {
	struct list_head	item;
	struct in6_addr		addr;
	int			scope;
	struct rdma_cm_id	*id;
	bool			seen;
};

struct rds_rdma_addr6 {
	struct in6_addr	addr;
	int		scope;
};

static DEFINE_MUTEX(rds_rdma_listen_mutex);
static LIST_HEAD(rds_rdma_listen6s);		/* under the mutex */
static struct rdma_cm_id *rds_rdma_listen4;	/* under the mutex */
static bool rds_rdma_listening;			/* under the mutex */
static unsigned long rds_rdma_listen6_retry;	/* bit 0: forget NULL ids */

/* An address's listener can fail for a moment after the address came:
 * the device learns it (its GID) from its own worker. Scans for the
 * failed ones are repeated this often, this many times after each
 * address change.
 */
#define RDS_RDMA_LISTEN6_RETRY_MS	1000
#define RDS_RDMA_LISTEN6_TRIES		10
static atomic_t rds_rdma_listen6_tries = ATOMIC_INIT(RDS_RDMA_LISTEN6_TRIES);

static void rds_rdma_listen6_worker(struct work_struct *work);
static DECLARE_DELAYED_WORK(rds_rdma_listen6_w, rds_rdma_listen6_worker);

/**
 * rds_rdma_port - the RDMA CM port a peer of @conn listens on
 * @conn: the connection
 */
u16 rds_rdma_port(const struct rds_connection *conn)
{
	if (!conn->c_isv6 ||
	    rds_rdma_flavor_of(conn)->node_type == RDMA_NODE_RNIC)
		return RDS_RDMA_PORT4;
	return RDS_RDMA_PORT6;
}

/* A listener bound to @addr:@port (the wildcard if @addr is any). */
static struct rdma_cm_id *rds_rdma_listen_on(const struct in6_addr *addr,
					     int scope, u16 port)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, rds_rdma_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	rds_rdma_sockaddr(&ss, addr, port, scope);
	/* An IPv6 listener leaves IPv4 on the same port to the other. */
	if (!ipv6_addr_v4mapped(addr))
		rdma_set_afonly(id, 1);
	ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	if (!ret && id->device) {
		/* An address: its device must be one of ours, and decides
		 * the port.
		 */
		if (!rds_rdma_dev_ours(id->device)) {
			ret = -ENODEV;
		} else if (id->device->node_type == RDMA_NODE_RNIC &&
			   port != RDS_RDMA_PORT4) {
			rdma_destroy_id(id);
			return rds_rdma_listen_on(addr, scope, RDS_RDMA_PORT4);
		}
	}
	if (!ret)
		ret = rdma_listen(id, 128);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

/* The IPv6 addresses of init_net that a peer could reach us on. */
static int rds_rdma_addrs6(struct rds_rdma_addr6 *a, int max)
{
	struct inet6_ifaddr *ifa;
	struct net_device *ndev;
	struct inet6_dev *idev;
	int n = 0;

	rcu_read_lock();
	for_each_netdev_rcu(&init_net, ndev) {
		if (ndev->flags & IFF_LOOPBACK)
			continue;
		idev = __in6_dev_get(ndev);
		if (!idev)
			continue;
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifa, &idev->addr_list, if_list) {
			if (ifa->flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED))
				continue;
			if (n == max)
				break;
			a[n].addr = ifa->addr;
			a[n].scope = ipv6_addr_type(&ifa->addr) &
				     IPV6_ADDR_LINKLOCAL ? ndev->ifindex : 0;
			n++;
		}
		read_unlock_bh(&idev->lock);
	}
	rcu_read_unlock();
	return n;
}

static void rds_rdma_listener_free(struct rds_rdma_listener *l)
{
	list_del(&l->item);
	if (l->id)
		rdma_destroy_id(l->id);
	kfree(l);
}

static struct rds_rdma_listener *
rds_rdma_listener_find(const struct rds_rdma_addr6 *a)
{
	struct rds_rdma_listener *l;

	list_for_each_entry(l, &rds_rdma_listen6s, item)
		if (ipv6_addr_equal(&l->addr, &a->addr) && l->scope == a->scope)
			return l;
	return NULL;
}

/* Make the listeners match the addresses (and the devices) now. */
static void rds_rdma_listen6_worker(struct work_struct *work)
{
	struct rds_rdma_listener *l, *tmp;
	struct rds_rdma_addr6 *a;
	struct rdma_cm_id *id;
	bool retry, failed = false;
	int i, n;

	a = kmalloc_array(RDS_RDMA_LISTEN6_MAX, sizeof(*a), GFP_KERNEL);
	if (!a)
		return;
	n = rds_rdma_addrs6(a, RDS_RDMA_LISTEN6_MAX);

	mutex_lock(&rds_rdma_listen_mutex);
	if (!rds_rdma_listening)
		goto out;
	retry = test_and_clear_bit(0, &rds_rdma_listen6_retry);
	list_for_each_entry(l, &rds_rdma_listen6s, item)
		l->seen = false;
	for (i = 0; i < n; i++) {
		l = rds_rdma_listener_find(&a[i]);
		/* A device came, or went (its removal waits for this). */
		if (l && ((!l->id && retry) ||
			  (l->id && !rds_rdma_dev_ours(l->id->device)))) {
			rds_rdma_listener_free(l);
			l = NULL;
		}
		if (!l) {
			l = kzalloc(sizeof(*l), GFP_KERNEL);
			if (!l)
				continue;
			l->addr = a[i].addr;
			l->scope = a[i].scope;
			id = rds_rdma_listen_on(&l->addr, l->scope,
						RDS_RDMA_PORT6);
			l->id = IS_ERR(id) ? NULL : id;
			list_add_tail(&l->item, &rds_rdma_listen6s);
		}
		l->seen = true;
		failed |= !l->id;
	}
	list_for_each_entry_safe(l, tmp, &rds_rdma_listen6s, item)
		if (!l->seen)
			rds_rdma_listener_free(l);
	/* Addresses of interfaces without a device of ours fail for good:
	 * bounded by the tries.
	 */
	if (failed && atomic_dec_if_positive(&rds_rdma_listen6_tries) >= 0) {
		set_bit(0, &rds_rdma_listen6_retry);
		queue_delayed_work(rds_rdma_wq, &rds_rdma_listen6_w,
				   msecs_to_jiffies(RDS_RDMA_LISTEN6_RETRY_MS));
	}
out:
	mutex_unlock(&rds_rdma_listen_mutex);
	kfree(a);
}

/**
 * rds_rdma_listen6_rescan - a device came or went: listen again
 *
 * Context: any.
 */
void rds_rdma_listen6_rescan(void)
{
	set_bit(0, &rds_rdma_listen6_retry);
	atomic_set(&rds_rdma_listen6_tries, RDS_RDMA_LISTEN6_TRIES);
	mod_delayed_work(rds_rdma_wq, &rds_rdma_listen6_w, 0);
}

static int rds_rdma_inet6addr_event(struct notifier_block *nb,
				    unsigned long event, void *ptr)
{
	struct inet6_ifaddr *ifa = ptr;

	if ((event == NETDEV_UP || event == NETDEV_DOWN) &&
	    net_eq(dev_net(ifa->idev->dev), &init_net)) {
		atomic_set(&rds_rdma_listen6_tries, RDS_RDMA_LISTEN6_TRIES);
		mod_delayed_work(rds_rdma_wq, &rds_rdma_listen6_w, 0);
	}
	return NOTIFY_DONE;
}

static struct notifier_block rds_rdma_inet6addr_nb = {
	.notifier_call = rds_rdma_inet6addr_event,
};

/**
 * rds_rdma_listen_start - listen on Linux's ports in init_net
 *
 * Return: 0, or -errno if even the IPv4 listener cannot start.
 */
int rds_rdma_listen_start(void)
{
	struct in6_addr any4;
	struct rdma_cm_id *id;
	int ret;

	ipv6_addr_set_v4mapped(htonl(INADDR_ANY), &any4);
	id = rds_rdma_listen_on(&any4, 0, RDS_RDMA_PORT4);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		pr_warn("rds_rdma: cannot listen on port %u: %d\n",
			RDS_RDMA_PORT4, ret);
		return ret;
	}
	mutex_lock(&rds_rdma_listen_mutex);
	rds_rdma_listen4 = id;
	rds_rdma_listening = true;
	mutex_unlock(&rds_rdma_listen_mutex);
	register_inet6addr_notifier(&rds_rdma_inet6addr_nb);
	queue_delayed_work(rds_rdma_wq, &rds_rdma_listen6_w, 0);
	return 0;
}

/**
 * rds_rdma_listen_stop - close every listener
 *
 * Afterwards no connection request reaches the engine.
 */
void rds_rdma_listen_stop(void)
{
	struct rds_rdma_listener *l, *tmp;

	mutex_lock(&rds_rdma_listen_mutex);
	rds_rdma_listening = false;
	mutex_unlock(&rds_rdma_listen_mutex);
	unregister_inet6addr_notifier(&rds_rdma_inet6addr_nb);
	cancel_delayed_work_sync(&rds_rdma_listen6_w);

	mutex_lock(&rds_rdma_listen_mutex);
	list_for_each_entry_safe(l, tmp, &rds_rdma_listen6s, item)
		rds_rdma_listener_free(l);
	if (rds_rdma_listen4)
		rdma_destroy_id(rds_rdma_listen4);
	rds_rdma_listen4 = NULL;
	mutex_unlock(&rds_rdma_listen_mutex);
}
