// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs engine as a whole: start and stop (listeners, devices,
 * sysctls, the workqueues), the flavors registered on it, the RDS_INFO
 * tables of RDMA connections and the counters. rds_rdma.ko links the
 * engine with the InfiniBand flavor; rds_iwarp.ko registers its own.
 */
#include <linux/module.h>
#include <linux/mutex.h>

#include "rds_rdma.h"

struct workqueue_struct *rds_rdma_wq;
/* Releases RDMA operations (rds_rdma_rw.c) and so delivers their
 * notifications: at high priority, as ib_core's completion workqueue,
 * so that a sender waiting for one is not held behind the busy tasks
 * it competes with (Documentation/measurements.rst).
 */
struct workqueue_struct *rds_rdma_rw_wq;
/* Destroys drained queue pairs (rds_rdma_conn.c), which can take rxe
 * seconds: not on rds_rdma_wq, whose other work a shutdown waits for.
 */
struct workqueue_struct *rds_rdma_corpse_wq;
DEFINE_PER_CPU(u64 [RDS_RDMA_STAT_MAX], rds_rdma_stats);

static LIST_HEAD(rds_rdma_flavors);	/* struct rds_rdma_flavor_link */
static DEFINE_MUTEX(rds_rdma_flavors_mutex);	/* rds_rdma_flavors */

const char *const rds_rdma_stat_names[RDS_RDMA_STAT_MAX] = {
	[RDS_RDMA_STAT_CONNECT_RACED]		= "ib_connect_raced",
	[RDS_RDMA_STAT_CONNECT_LOCAL]		= "ib_connect_local_refused",
	[RDS_RDMA_STAT_CONNECT_YIELDED]		= "ib_connect_yielded",
	[RDS_RDMA_STAT_LISTEN_CLOSED_STALE]	= "ib_listen_closed_stale",
	[RDS_RDMA_STAT_EVT_HANDLER_CALL]	= "ib_evt_handler_call",
	[RDS_RDMA_STAT_TX_CQ_EVENT]		= "ib_tx_cq_event",
	[RDS_RDMA_STAT_TX_RING_FULL]		= "ib_tx_ring_full",
	[RDS_RDMA_STAT_TX_SG_MAPPING_FAILURE]	= "ib_tx_sg_mapping_failure",
	[RDS_RDMA_STAT_RX_CQ_EVENT]		= "ib_rx_cq_event",
	[RDS_RDMA_STAT_RX_RING_EMPTY]		= "ib_rx_ring_empty",
	[RDS_RDMA_STAT_RX_REFILL_FROM_CQ]	= "ib_rx_refill_from_cq",
	[RDS_RDMA_STAT_RX_REFILL_FROM_THREAD]	= "ib_rx_refill_from_thread",
	[RDS_RDMA_STAT_RX_ALLOC_LIMIT]		= "ib_rx_alloc_limit",
	[RDS_RDMA_STAT_ACK_SENT]		= "ib_ack_sent",
	[RDS_RDMA_STAT_ACK_SEND_FAILURE]	= "ib_ack_send_failure",
	[RDS_RDMA_STAT_ACK_SEND_DELAYED]	= "ib_ack_send_delayed",
	[RDS_RDMA_STAT_ACK_SEND_PIGGYBACKED]	= "ib_ack_send_piggybacked",
	[RDS_RDMA_STAT_ACK_RECEIVED]		= "ib_ack_received",
	[RDS_RDMA_STAT_CONNECT_REFUSED]		= "ib_connect_refused",
	[RDS_RDMA_STAT_RX_BAD_FRAGMENT]		= "ib_rx_bad_fragment",
	[RDS_RDMA_STAT_MR_8K_ALLOC]		= "ib_rdma_mr_8k_alloc",
	[RDS_RDMA_STAT_MR_8K_FREE]		= "ib_rdma_mr_8k_free",
	[RDS_RDMA_STAT_MR_8K_REUSED]		= "ib_rdma_mr_8k_reused",
	[RDS_RDMA_STAT_MR_8K_POOL_DEPLETED]	= "ib_rdma_mr_8k_pool_depleted",
	[RDS_RDMA_STAT_MR_1M_ALLOC]		= "ib_rdma_mr_1m_alloc",
	[RDS_RDMA_STAT_MR_1M_FREE]		= "ib_rdma_mr_1m_free",
	[RDS_RDMA_STAT_MR_1M_REUSED]		= "ib_rdma_mr_1m_reused",
	[RDS_RDMA_STAT_MR_1M_POOL_DEPLETED]	= "ib_rdma_mr_1m_pool_depleted",
	/* Ours: messages sent asking the peer for an ack. */
	[RDS_RDMA_STAT_TX_ACK_REQUIRED]		= "ib_tx_ack_required",
	/* Ours: receive pages taken from the recycled ones. */
	[RDS_RDMA_STAT_RX_PAGE_REUSED]		= "ib_rx_page_reused",
	/* Ours: routes over other ports (rds_rdma_route.c). */
	[RDS_RDMA_STAT_ROUTE_ADVERT_SENT]	= "ib_route_advert_sent",
	[RDS_RDMA_STAT_ROUTE_ADVERT_RECEIVED]	= "ib_route_advert_received",
	[RDS_RDMA_STAT_ROUTE_CONNECT]		= "ib_route_connect",
	[RDS_RDMA_STAT_ROUTE_ACCEPTED]		= "ib_route_accepted",
	[RDS_RDMA_STAT_ROUTE_REFUSED]		= "ib_route_refused",
	[RDS_RDMA_STAT_ROUTE_FAILOVER]		= "ib_route_failover",
	[RDS_RDMA_STAT_ROUTE_FAILBACK]		= "ib_route_failback",
	[RDS_RDMA_STAT_ROUTE_PORT_ERROR]	= "ib_route_port_error",
	/* Ours: zero-length WRITEs that check a quiet peer is there, and
	 * connections dropped because one went unanswered (rds_rdma_live.c).
	 */
	[RDS_RDMA_STAT_HEARTBEAT_SENT]		= "ib_heartbeat_sent",
	[RDS_RDMA_STAT_HEARTBEAT_TIMEOUT]	= "ib_heartbeat_timeout",
	/* Ours: connections dropped because their local address left the
	 * interface they ran on (rds_rdma_addr.c).
	 */
	[RDS_RDMA_STAT_ADDR_MOVED]		= "ib_addr_moved",
	/* Ours: messages sent naming a key not valid on their route, and
	 * operations refused here for such a key (rds_rdma_keys.c).
	 */
	[RDS_RDMA_STAT_KEY_AWAY_SENT]		= "ib_key_away_sent",
	[RDS_RDMA_STAT_KEY_REFUSED]		= "ib_key_refused",
	[RDS_RDMA_STAT_KEY_FORGOTTEN]		= "ib_key_forgotten",
	/* Ours: accepted iWARP connections that sent before hearing from
	 * the requester, which had not acked in RDS_RDMA_HEAR_FIRST_MS.
	 */
	[RDS_RDMA_STAT_EST_UNHEARD]		= "ib_est_unheard",
	/* Ours: receive slots posted by the worker past a connection's
	 * first ones, as its traffic asked for them (rds_rdma_recv.c).
	 */
	[RDS_RDMA_STAT_RX_RING_GROWN]		= "ib_rx_ring_grown",
	/* Ours: receive slots a connection stopped keeping posted when its
	 * traffic fell.
	 */
	[RDS_RDMA_STAT_RX_RING_SHRUNK]		= "ib_rx_ring_shrunk",
	/* Ours, a level, not a count: pages the receive slots of every
	 * connection hold now, posted or spare.
	 */
	[RDS_RDMA_STAT_RX_PAGES_HELD]		= "ib_rx_pages_held",
	[RDS_RDMA_STAT_SRQ_CREATED]		= "ib_srq_created",
	[RDS_RDMA_STAT_SRQ_POSTED]		= "ib_srq_posted",
	[RDS_RDMA_STAT_SRQ_EMPTY]		= "ib_srq_empty",
	[RDS_RDMA_STAT_SRQ_GROWN]		= "ib_srq_grown",
	[RDS_RDMA_STAT_SRQ_SHRUNK]		= "ib_srq_shrunk",
	[RDS_RDMA_STAT_SRQ_LOST]		= "ib_srq_lost",
	[RDS_RDMA_STAT_SRQ_ABANDONED]		= "ib_srq_abandoned",
	[RDS_RDMA_STAT_SRQ_UNORDERED]		= "ib_srq_unordered",
	/* Ours: messages that used a use-once region of ours, delivered
	 * only once it was invalidated.
	 */
	[RDS_RDMA_STAT_RX_HELD_USE_ONCE]	= "ib_rx_held_use_once",
	/* Ours: connections dropped for holding too much behind one. */
	[RDS_RDMA_STAT_RX_HOLD_OVERFLOW]	= "ib_rx_hold_overflow",
	/* Ours: a registration or invalidation the device did not complete
	 * in time (the region was destroyed instead).
	 */
	[RDS_RDMA_STAT_MR_TIMEOUT]		= "ib_rdma_mr_timeout",
};
EXPORT_SYMBOL_GPL(rds_rdma_stat_names);

/* Linux's counters are global, not per namespace; so are ours. */
void rds_rdma_stats_sum(struct net *net, u64 *vals)
{
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < RDS_RDMA_STAT_MAX; i++)
			vals[i] += per_cpu(rds_rdma_stats, cpu)[i];
}
EXPORT_SYMBOL_GPL(rds_rdma_stats_sum);

/**
 * rds_rdma_flavor_find - the flavor serving devices of node type @t
 * @t: RDMA_NODE_IB_CA or RDMA_NODE_RNIC
 *
 * Return: the flavor with a reference on its module (module_put() it),
 * or NULL.
 */
const struct rds_rdma_flavor *rds_rdma_flavor_find(unsigned int t)
{
	const struct rds_rdma_flavor *found = NULL;
	struct rds_rdma_flavor_link *link;

	mutex_lock(&rds_rdma_flavors_mutex);
	list_for_each_entry(link, &rds_rdma_flavors, list) {
		if (link->fl->node_type == t &&
		    try_module_get(link->fl->trans.owner)) {
			found = link->fl;
			break;
		}
	}
	mutex_unlock(&rds_rdma_flavors_mutex);
	return found;
}

/**
 * rds_rdma_flavor_register - a transport joins the engine
 * @link: its entry: @link->fl is the flavor, whose const transport table
 *	(RDS_RDMA_ENGINE_OPS and its own fields) is registered with the core
 *
 * Context: module init.
 */
int rds_rdma_flavor_register(struct rds_rdma_flavor_link *link)
{
	int ret;

	ret = rds_trans_register(&link->fl->trans);
	if (ret)
		return ret;
	mutex_lock(&rds_rdma_flavors_mutex);
	list_add_tail(&link->list, &rds_rdma_flavors);
	mutex_unlock(&rds_rdma_flavors_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(rds_rdma_flavor_register);

/**
 * rds_rdma_flavor_unregister - a transport leaves the engine
 * @link: its entry, as registered
 *
 * No request is handed to it any more; its connections are destroyed
 * (rds_trans_unregister()).
 *
 * Context: module exit.
 */
void rds_rdma_flavor_unregister(struct rds_rdma_flavor_link *link)
{
	mutex_lock(&rds_rdma_flavors_mutex);
	list_del(&link->list);
	mutex_unlock(&rds_rdma_flavors_mutex);
	rds_trans_unregister(&link->fl->trans);
}
EXPORT_SYMBOL_GPL(rds_rdma_flavor_unregister);

static void rds_rdma_drop_if_on(struct rds_connection *conn, void *arg)
{
	struct rds_rdma_dev *dev = READ_ONCE(rds_rdma_conn(conn)->i_dev);

	if (dev && dev->ibdev == arg)
		rds_conn_drop_reason(conn, RDS_DROP_CM_DEVICE_REMOVAL);
}

/**
 * rds_rdma_drop_dev_conns - drop every connection on a device
 * @ibdev: the device
 *
 * Context: process context.
 */
void rds_rdma_drop_dev_conns(struct ib_device *ibdev)
{
	struct rds_rdma_flavor_link *link;

	mutex_lock(&rds_rdma_flavors_mutex);
	list_for_each_entry(link, &rds_rdma_flavors, list)
		rds_conn_walk_transport(&init_net, &link->fl->trans,
					rds_rdma_drop_if_on, ibdev);
	mutex_unlock(&rds_rdma_flavors_mutex);
}

/**
 * rds_rdma_walk_conns - call @fn on every connection of every flavor
 * @fn: runs under the RCU read lock, must not sleep
 * @arg: passed to @fn
 *
 * Context: process context.
 */
void rds_rdma_walk_conns(void (*fn)(struct rds_connection *conn, void *arg),
			 void *arg)
{
	struct rds_rdma_flavor_link *link;

	mutex_lock(&rds_rdma_flavors_mutex);
	list_for_each_entry(link, &rds_rdma_flavors, list)
		rds_conn_walk_transport(&init_net, &link->fl->trans, fn, arg);
	mutex_unlock(&rds_rdma_flavors_mutex);
}

/* RDS_INFO_IB_CONNECTIONS and the like. */
struct rds_rdma_info_arg {
	struct rds_info_buf	*b;
	bool			v6;
};

static void rds_rdma_info_one(struct rds_connection *conn, void *arg)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);
	struct rds_rdma_info_arg *ia = arg;
	struct rds6_info_rdma_connection r6 = {};
	struct rds_info_rdma_connection r4 = {};

	if (!ia->v6 && conn->c_isv6)
		return;
	r6.src_addr = conn->c_laddr;
	r6.dst_addr = conn->c_faddr;
	spin_lock_bh(&ic->i_rx_lock);
	memcpy(r6.src_gid, ic->i_sgid, sizeof(r6.src_gid));
	memcpy(r6.dst_gid, ic->i_dgid, sizeof(r6.dst_gid));
	spin_unlock_bh(&ic->i_rx_lock);
	if (rds_conn_state(conn) == RDS_CONN_UP) {
		r6.max_send_wr = READ_ONCE(ic->i_send_ring);
		r6.max_recv_wr = READ_ONCE(ic->i_recv_ring);
		/* What our SENDs use: the header and a fragment's pages. */
		r6.max_send_sge = 1 + READ_ONCE(ic->i_frag_pages);
	}
	r6.tos = conn->c_tos;
	if (ia->v6) {
		rds_info_emit(ia->b, &r6);
		return;
	}
	r4.src_addr = r6.src_addr.s6_addr32[3];
	r4.dst_addr = r6.dst_addr.s6_addr32[3];
	memcpy(r4.src_gid, r6.src_gid, sizeof(r4.src_gid));
	memcpy(r4.dst_gid, r6.dst_gid, sizeof(r4.dst_gid));
	r4.max_send_wr = r6.max_send_wr;
	r4.max_recv_wr = r6.max_recv_wr;
	r4.max_send_sge = r6.max_send_sge;
	r4.tos = r6.tos;
	rds_info_emit(ia->b, &r4);
}

/**
 * rds_rdma_info_fill - emit a flavor's connections for an RDS_INFO table
 * @net: namespace
 * @b: the buffer
 * @trans: the flavor's transport
 * @v6: the IPv6 layout (every connection) or the IPv4 one (IPv4 only)
 */
void rds_rdma_info_fill(struct net *net, struct rds_info_buf *b,
			const struct rds_transport *trans, bool v6)
{
	struct rds_rdma_info_arg ia = { .b = b, .v6 = v6 };

	rds_conn_walk_transport(net, trans, rds_rdma_info_one, &ia);
}
EXPORT_SYMBOL_GPL(rds_rdma_info_fill);

/**
 * rds_rdma_engine_init - start the engine (rds_rdma.ko's init)
 */
int rds_rdma_engine_init(void)
{
	int ret;

	rds_rdma_wq = alloc_workqueue("rds_rdma", WQ_MEM_RECLAIM | RDS_WQ_PERCPU,
				      0);
	if (!rds_rdma_wq)
		return -ENOMEM;
	rds_rdma_rw_wq = alloc_workqueue("rds_rdma_rw", WQ_MEM_RECLAIM |
					 WQ_HIGHPRI | RDS_WQ_PERCPU, 0);
	if (!rds_rdma_rw_wq) {
		ret = -ENOMEM;
		goto err_wq;
	}
	rds_rdma_corpse_wq = alloc_workqueue("rds_rdma_corpse", WQ_UNBOUND, 0);
	if (!rds_rdma_corpse_wq) {
		ret = -ENOMEM;
		goto err_rw_wq;
	}
	ret = rds_rdma_sysctl_init();
	if (ret)
		goto err_corpse_wq;
	ret = rds_rdma_dev_init();
	if (ret)
		goto err_sysctl;
	ret = rds_rdma_listen_start();
	if (ret)
		goto err_dev;
	ret = rds_rdma_addr_init();
	if (ret)
		goto err_listen;
	return 0;

err_listen:
	rds_rdma_listen_stop();
err_dev:
	rds_rdma_dev_exit();
err_sysctl:
	rds_rdma_sysctl_exit();
err_corpse_wq:
	destroy_workqueue(rds_rdma_corpse_wq);
err_rw_wq:
	destroy_workqueue(rds_rdma_rw_wq);
err_wq:
	destroy_workqueue(rds_rdma_wq);
	return ret;
}

/**
 * rds_rdma_engine_exit - stop the engine; every flavor is gone
 */
void rds_rdma_engine_exit(void)
{
	rds_rdma_addr_exit();
	rds_rdma_listen_stop();
	rds_rdma_dev_exit();
	rds_rdma_sysctl_exit();
	/* Every connection is freed: each worker has at most returned. */
	destroy_workqueue(rds_rdma_corpse_wq);
	destroy_workqueue(rds_rdma_rw_wq);
	destroy_workqueue(rds_rdma_wq);
	rds_rdma_pages_drain();
}
