// SPDX-License-Identifier: GPL-2.0
/*
 * The transport registry: one slot per transport type.
 *
 * Lookups pin the transport's module under rds_trans_mutex, so a module that
 * is past its exit's rds_trans_unregister() can never be handed out, and a
 * module that has been handed out cannot finish unloading.
 */
#include <linux/kmod.h>
#include <linux/mutex.h>
#include <net/ipv6.h>

#include "rds_core.h"

static DEFINE_MUTEX(rds_trans_mutex);
/* Protected by rds_trans_mutex. */
static const struct rds_transport *rds_trans_slots[RDS_TRANS_TYPE_MAX];

/* Module names match Linux's in-tree modules so modprobe finds either. */
static const char *const rds_trans_modnames[RDS_TRANS_TYPE_MAX] = {
	[RDS_TRANS_TYPE_IB]	= "rds_rdma",
	[RDS_TRANS_TYPE_IWARP]	= "rds_iwarp",
	[RDS_TRANS_TYPE_TCP]	= "rds_tcp",
	[RDS_TRANS_TYPE_LOOP]	= "rds_loop",
};

/**
 * rds_trans_register - make a transport available to sockets
 * @trans: the transport's ops table; must outlive the registration
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for a malformed table, -EEXIST if the slot is taken.
 */
int rds_trans_register(const struct rds_transport *trans)
{
	int ret = 0;

	/* A transport without xmit cannot carry traffic: its laddr_check
	 * must then refuse every address (the skeletons do).
	 */
	if (!trans->name || trans->type < 0 || trans->type >= RDS_TRANS_TYPE_MAX ||
	    !trans->laddr_check ||
	    (trans->xmit && (!trans->inc_copy_to_user || !trans->inc_free)) ||
	    (trans->xmit_rdma && !trans->mr_register))
		return -EINVAL;

	mutex_lock(&rds_trans_mutex);
	if (rds_trans_slots[trans->type])
		ret = -EEXIST;
	else
		rds_trans_slots[trans->type] = trans;
	mutex_unlock(&rds_trans_mutex);

	if (ret)
		pr_err("rds: transport %s: slot %d already registered\n",
		       trans->name, trans->type);
	else
		pr_info("rds: registered transport %s\n", trans->name);
	return ret;
}
EXPORT_SYMBOL_GPL(rds_trans_register);

/**
 * rds_trans_withdraw - take a transport out of its slot
 * @trans: a table previously registered
 *
 * After this returns no new socket or connection can find @trans. The
 * first half of rds_trans_unregister() (connection.c), which then
 * destroys the transport's connections.
 *
 * Context: process context, may sleep.
 */
void rds_trans_withdraw(const struct rds_transport *trans)
{
	mutex_lock(&rds_trans_mutex);
	if (rds_trans_slots[trans->type] == trans)
		rds_trans_slots[trans->type] = NULL;
	mutex_unlock(&rds_trans_mutex);
	pr_info("rds: unregistered transport %s\n", trans->name);
}

static const struct rds_transport *rds_trans_get_locked(enum rds_trans_type type)
{
	const struct rds_transport *trans;

	lockdep_assert_held(&rds_trans_mutex);
	trans = rds_trans_slots[type];
	if (trans && !try_module_get(trans->owner))
		trans = NULL;
	return trans;
}

/**
 * rds_trans_get - find a transport by type and pin its module
 * @type: the slot
 *
 * Loads the transport's module on demand, as SO_RDS_TRANSPORT expects.
 *
 * Context: process context, may sleep.
 * Return: the pinned transport (release with rds_trans_put()) or NULL.
 */
const struct rds_transport *rds_trans_get(enum rds_trans_type type)
{
	const struct rds_transport *trans;

	if (type < 0 || type >= RDS_TRANS_TYPE_MAX)
		return NULL;

	mutex_lock(&rds_trans_mutex);
	trans = rds_trans_get_locked(type);
	mutex_unlock(&rds_trans_mutex);
	if (trans)
		return trans;

	request_module("%s", rds_trans_modnames[type]);

	mutex_lock(&rds_trans_mutex);
	trans = rds_trans_get_locked(type);
	mutex_unlock(&rds_trans_mutex);
	return trans;
}

/**
 * rds_trans_put - release a transport returned by rds_trans_get()
 * @trans: the transport, or NULL
 */
void rds_trans_put(const struct rds_transport *trans)
{
	if (trans)
		module_put(trans->owner);
}

static bool rds_addr_is_loopback(const struct in6_addr *addr)
{
	if (ipv6_addr_v4mapped(addr))
		return ipv4_is_loopback(addr->s6_addr32[3]);
	return ipv6_addr_loopback(addr);
}

/**
 * rds_trans_find_for_addr - pick the transport for a bind() address
 * @net: namespace
 * @addr: local address
 * @scope_id: scope for link-local IPv6
 *
 * Loopback addresses go to the loopback transport (loaded on demand);
 * any other goes to the first registered transport, in slot order (IB,
 * iWARP, TCP), whose laddr_check accepts it.
 *
 * Context: process context, may sleep.
 * Return: the pinned transport or NULL.
 */
const struct rds_transport *rds_trans_find_for_addr(struct net *net,
						    const struct in6_addr *addr,
						    u32 scope_id)
{
	const struct rds_transport *trans;
	int type;

	if (rds_addr_is_loopback(addr))
		return rds_trans_get(RDS_TRANS_TYPE_LOOP);

	for (type = 0; type < RDS_TRANS_TYPE_LOOP; type++) {
		mutex_lock(&rds_trans_mutex);
		trans = rds_trans_get_locked(type);
		mutex_unlock(&rds_trans_mutex);
		if (!trans)
			continue;
		if ((net_eq(net, &init_net) ||
		     (trans->caps & RDS_TRANS_CAP_NETNS)) &&
		    !trans->laddr_check(net, addr, scope_id))
			return trans;
		rds_trans_put(trans);
	}
	return NULL;
}

/**
 * rds_trans_for_each - call @fn on every registered transport
 * @fn: callback; runs under the registry mutex (may sleep, must not
 *	register or look up transports)
 * @arg: passed to @fn
 */
void rds_trans_for_each(void (*fn)(const struct rds_transport *trans,
				   void *arg),
			void *arg)
{
	int i;

	mutex_lock(&rds_trans_mutex);
	for (i = 0; i < RDS_TRANS_TYPE_MAX; i++)
		if (rds_trans_slots[i])
			fn(rds_trans_slots[i], arg);
	mutex_unlock(&rds_trans_mutex);
}

/**
 * rds_trans_get_info - the transport that exports an RDS_INFO_* table
 * @optname: RDS_INFO_* number
 * @table: set to the table
 *
 * Return: the transport, pinned (rds_trans_put() it), or NULL.
 */
const struct rds_transport *rds_trans_get_info(int optname,
					       const struct rds_info_table **table)
{
	const struct rds_transport *trans;
	unsigned int j;
	int i;

	mutex_lock(&rds_trans_mutex);
	for (i = 0; i < RDS_TRANS_TYPE_MAX; i++) {
		trans = rds_trans_slots[i];
		if (!trans)
			continue;
		for (j = 0; j < trans->n_info; j++) {
			if (trans->info[j].optname != optname ||
			    !try_module_get(trans->owner))
				continue;
			*table = &trans->info[j];
			mutex_unlock(&rds_trans_mutex);
			return trans;
		}
	}
	mutex_unlock(&rds_trans_mutex);
	return NULL;
}

int rds_trans_init(void)
{
	return 0;
}

void rds_trans_exit(void)
{
	int i;

	/* Transports pin rds.ko through their symbol references. */
	for (i = 0; i < RDS_TRANS_TYPE_MAX; i++)
		WARN_ON_ONCE(rds_trans_slots[i]);
}
