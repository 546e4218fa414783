// SPDX-License-Identifier: GPL-2.0
/*
 * Connections: lookup and creation, the state machine (connect, drop,
 * reconnect with back-off) and teardown.
 *
 * A connection lives until its transport unloads or its namespace dies.
 * Users never hold references: every socket that can reach a connection
 * pins its transport module (rs_transport, rs_loop_transport), and a
 * transport destroys its connections only from its module exit, when no
 * such socket is left; a namespace dies only once its sockets are gone.
 */
#include <linux/jhash.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/route.h>

#include "rds_core.h"

/* Every connection of every namespace, for transport unload. */
static DEFINE_MUTEX(rds_conn_list_mutex);
static LIST_HEAD(rds_conn_list);

/* The part of a connection that lives outside the public struct. */
struct rds_conn_priv {
	struct rds_connection	conn;
	struct list_head	all_item;	/* rds_conn_list */
};

static u32 rds_conn_hash(const struct in6_addr *laddr,
			 const struct in6_addr *faddr,
			 const struct rds_transport *trans, u8 tos)
{
	u32 h = jhash(laddr, sizeof(*laddr), tos);

	return jhash_2words(jhash(faddr, sizeof(*faddr), h), trans->type, 0);
}

static struct rds_connection *
rds_conn_lookup_rcu(struct rds_net *rn, struct hlist_head *head,
		    const struct in6_addr *laddr, const struct in6_addr *faddr,
		    const struct rds_transport *trans, u8 tos, int dev_if)
{
	struct rds_connection *conn;

	hlist_for_each_entry_rcu(conn, head, c_hash_node) {
		if (ipv6_addr_equal(&conn->c_laddr, laddr) &&
		    ipv6_addr_equal(&conn->c_faddr, faddr) &&
		    conn->c_trans == trans && conn->c_tos == tos &&
		    conn->c_dev_if == dev_if)
			return conn;
	}
	return NULL;
}

/* Is @addr one of this namespace's own addresses? */
static bool rds_addr_is_local(struct net *net, const struct in6_addr *addr,
			      int dev_if)
{
	if (ipv6_addr_v4mapped(addr))
		return inet_addr_type(net, addr->s6_addr32[3]) == RTN_LOCAL;
#if IS_ENABLED(CONFIG_IPV6)
	{
		struct net_device *dev = NULL;
		bool local;

		rcu_read_lock();
		if (dev_if)
			dev = dev_get_by_index_rcu(net, dev_if);
		local = ipv6_chk_addr(net, addr, dev, 0);
		rcu_read_unlock();
		return local;
	}
#else
	return false;
#endif
}

static void rds_conn_connect_worker(struct work_struct *work);
static void rds_conn_down_worker(struct work_struct *work);

/**
 * rds_conn_create - find or create the connection for a peer
 * @net: namespace
 * @laddr: local address
 * @faddr: peer address
 * @trans: transport (the caller pins it)
 * @tos: type of service
 * @dev_if: scope id for link-local IPv6, else 0
 * @gfp: allocation flags
 *
 * Context: process context unless @gfp is atomic.
 * Return: the connection or an ERR_PTR.
 */
struct rds_connection *rds_conn_create(struct net *net,
				       const struct in6_addr *laddr,
				       const struct in6_addr *faddr,
				       const struct rds_transport *trans,
				       u8 tos, int dev_if, gfp_t gfp)
{
	struct rds_net *rn = rds_net(net);
	struct rds_connection *conn, *found;
	struct hlist_head *head;
	struct rds_conn_priv *cp;
	int ret;

	head = &rn->conn_hash[hash_32(rds_conn_hash(laddr, faddr, trans, tos),
				      RDS_CONN_HASH_BITS)];
	rcu_read_lock();
	conn = rds_conn_lookup_rcu(rn, head, laddr, faddr, trans, tos, dev_if);
	rcu_read_unlock();
	if (conn)
		return conn;

	cp = kzalloc(sizeof(*cp), gfp);
	if (!cp)
		return ERR_PTR(-ENOMEM);
	conn = &cp->conn;
	write_pnet(&conn->c_net, net);
	conn->c_laddr = *laddr;
	conn->c_faddr = *faddr;
	conn->c_dev_if = dev_if;
	conn->c_tos = tos;
	conn->c_isv6 = !ipv6_addr_v4mapped(laddr);
	conn->c_trans = trans;
	conn->c_loopback = trans->type == RDS_TRANS_TYPE_LOOP ||
			   rds_addr_is_local(net, faddr, dev_if);
	atomic_set(&conn->c_state, RDS_CONN_DOWN);
	spin_lock_init(&conn->c_lock);
	conn->c_next_tx_seq = 1;
	INIT_LIST_HEAD(&conn->c_send_queue);
	INIT_LIST_HEAD(&conn->c_retrans);
	INIT_DELAYED_WORK(&conn->c_send_w, rds_send_worker);
	INIT_DELAYED_WORK(&conn->c_conn_w, rds_conn_connect_worker);
	INIT_WORK(&conn->c_down_w, rds_conn_down_worker);
	init_waitqueue_head(&conn->c_waitq);
	INIT_LIST_HEAD(&cp->all_item);

	conn->c_lcong = rds_cong_map_get(rn, laddr);
	conn->c_fcong = rds_cong_map_get(rn, faddr);
	if (!conn->c_lcong || !conn->c_fcong) {
		ret = -ENOMEM;
		goto err_free;
	}

	if (trans->conn_alloc) {
		ret = trans->conn_alloc(conn, gfp);
		if (ret)
			goto err_free;
	}

	mutex_lock(&rds_conn_list_mutex);
	spin_lock_bh(&rn->conn_lock);
	found = rds_conn_lookup_rcu(rn, head, laddr, faddr, trans, tos, dev_if);
	if (!found) {
		hlist_add_head_rcu(&conn->c_hash_node, head);
		list_add_tail(&cp->all_item, &rds_conn_list);
	}
	spin_unlock_bh(&rn->conn_lock);
	mutex_unlock(&rds_conn_list_mutex);

	if (found) {
		/* Lost a race: use the winner's. */
		if (trans->conn_free)
			trans->conn_free(conn);
		kfree(cp);
		return found;
	}
	rds_obj_inc(RDS_OBJ_CONN);
	return conn;

err_free:
	kfree(cp);
	return ERR_PTR(ret);
}

/**
 * rds_conn_connect_if_down - start connecting a connection that is down
 * @conn: the connection
 *
 * Context: any.
 */
void rds_conn_connect_if_down(struct rds_connection *conn)
{
	/* Cheap on the fast path: most sends find the connection up. */
	if (rds_conn_state(conn) != RDS_CONN_DOWN ||
	    test_bit(RDS_CONN_DESTROYING, &conn->c_flags))
		return;
	if (atomic_cmpxchg(&conn->c_state, RDS_CONN_DOWN,
			   RDS_CONN_CONNECTING) == RDS_CONN_DOWN)
		queue_delayed_work(rds_wq, &conn->c_conn_w, 0);
}

static void rds_conn_connect_worker(struct work_struct *work)
{
	struct rds_connection *conn = container_of(to_delayed_work(work),
						   struct rds_connection,
						   c_conn_w);
	int ret;

	if (rds_conn_state(conn) == RDS_CONN_DOWN &&
	    atomic_cmpxchg(&conn->c_state, RDS_CONN_DOWN,
			   RDS_CONN_CONNECTING) != RDS_CONN_DOWN)
		return;
	if (rds_conn_state(conn) != RDS_CONN_CONNECTING)
		return;

	if (!conn->c_trans->conn_connect) {
		rds_connect_complete(conn);
		return;
	}
	ret = conn->c_trans->conn_connect(conn);
	if (ret)
		rds_conn_drop(conn);
}

/**
 * rds_connect_complete - a transport reports its connection is up
 * @conn: the connection
 *
 * Queued messages (and retransmissions) go out from the send worker.
 *
 * Context: any.
 */
void rds_connect_complete(struct rds_connection *conn)
{
	struct rds_net *rn = rds_net(rds_conn_net(conn));

	if (atomic_cmpxchg(&conn->c_state, RDS_CONN_CONNECTING,
			   RDS_CONN_UP) != RDS_CONN_CONNECTING) {
		rds_conn_drop(conn);
		return;
	}
	conn->c_reconnect_jiffies = msecs_to_jiffies(READ_ONCE(rn->reconnect_min_ms));
	queue_delayed_work(rds_wq, &conn->c_send_w, 0);
}
EXPORT_SYMBOL_GPL(rds_connect_complete);

/**
 * rds_conn_drop - tear a connection down; it reconnects if it has work
 * @conn: the connection
 *
 * Context: any. Safe to call more than once.
 */
void rds_conn_drop(struct rds_connection *conn)
{
	int old = atomic_xchg(&conn->c_state, RDS_CONN_ERROR);

	if (old == RDS_CONN_ERROR || old == RDS_CONN_DISCONNECTING) {
		atomic_set(&conn->c_state, old);
		return;
	}
	rds_stats_inc(rds_net(rds_conn_net(conn)), RDS_STAT_CONN_RESET);
	if (!test_bit(RDS_CONN_DESTROYING, &conn->c_flags))
		queue_work(rds_wq, &conn->c_down_w);
}
EXPORT_SYMBOL_GPL(rds_conn_drop);

static void rds_conn_shutdown(struct rds_connection *conn)
{
	atomic_set(&conn->c_state, RDS_CONN_DISCONNECTING);
	/* Wait out a transmit loop in progress. */
	wait_event(conn->c_waitq,
		   !test_bit(RDS_CONN_IN_XMIT, &conn->c_flags));
	if (conn->c_trans->conn_shutdown)
		conn->c_trans->conn_shutdown(conn);
	/* Unacked messages go out again, flagged, after the reconnect. */
	rds_send_requeue_retrans(conn);
	atomic_set(&conn->c_state, RDS_CONN_DOWN);
}

static void rds_conn_down_worker(struct work_struct *work)
{
	struct rds_connection *conn = container_of(work, struct rds_connection,
						   c_down_w);
	struct rds_net *rn = rds_net(rds_conn_net(conn));
	unsigned long delay, max;
	bool pending;

	rds_conn_shutdown(conn);
	if (test_bit(RDS_CONN_DESTROYING, &conn->c_flags))
		return;

	spin_lock_bh(&conn->c_lock);
	pending = !list_empty(&conn->c_send_queue);
	spin_unlock_bh(&conn->c_lock);
	if (!pending)
		return;

	/* Exponential back-off between min and max delay. */
	delay = conn->c_reconnect_jiffies;
	max = msecs_to_jiffies(READ_ONCE(rn->reconnect_max_ms));
	conn->c_reconnect_jiffies = min(max(delay * 2, 1UL), max);
	if (atomic_cmpxchg(&conn->c_state, RDS_CONN_DOWN,
			   RDS_CONN_CONNECTING) == RDS_CONN_DOWN)
		queue_delayed_work(rds_wq, &conn->c_conn_w, delay);
}

static void rds_conn_destroy(struct rds_connection *conn)
{
	struct rds_conn_priv *cp = container_of(conn, struct rds_conn_priv,
						conn);
	struct rds_net *rn = rds_net(rds_conn_net(conn));

	lockdep_assert_held(&rds_conn_list_mutex);
	set_bit(RDS_CONN_DESTROYING, &conn->c_flags);

	spin_lock_bh(&rn->conn_lock);
	hlist_del_init_rcu(&conn->c_hash_node);
	spin_unlock_bh(&rn->conn_lock);
	list_del_init(&cp->all_item);

	cancel_work_sync(&conn->c_down_w);
	cancel_delayed_work_sync(&conn->c_conn_w);
	cancel_delayed_work_sync(&conn->c_send_w);
	if (rds_conn_state(conn) != RDS_CONN_DOWN)
		rds_conn_shutdown(conn);
	rds_send_drop_all(conn);

	synchronize_rcu();
	if (conn->c_trans->conn_free)
		conn->c_trans->conn_free(conn);
	kfree(cp);
	rds_obj_dec(RDS_OBJ_CONN);
}

/**
 * rds_conn_destroy_transport - destroy every connection of a transport
 * @trans: the transport, from its module exit
 *
 * Messages still queued belong to closed sockets (open ones pin the
 * transport) and are dropped.
 *
 * Context: process context, may sleep.
 */
void rds_conn_destroy_transport(const struct rds_transport *trans)
{
	struct rds_conn_priv *cp, *tmp;

	mutex_lock(&rds_conn_list_mutex);
	list_for_each_entry_safe(cp, tmp, &rds_conn_list, all_item)
		if (cp->conn.c_trans == trans)
			rds_conn_destroy(&cp->conn);
	mutex_unlock(&rds_conn_list_mutex);
}
EXPORT_SYMBOL_GPL(rds_conn_destroy_transport);

void rds_conn_net_exit(struct rds_net *rn)
{
	struct rds_conn_priv *cp, *tmp;

	mutex_lock(&rds_conn_list_mutex);
	list_for_each_entry_safe(cp, tmp, &rds_conn_list, all_item)
		if (net_eq(rds_conn_net(&cp->conn), rn->net))
			rds_conn_destroy(&cp->conn);
	mutex_unlock(&rds_conn_list_mutex);
}

/**
 * rds_conn_for_each - call @fn on every connection of a namespace
 * @rn: namespace
 * @fn: callback; runs under the RCU read lock, must not sleep
 * @arg: passed to @fn
 */
void rds_conn_for_each(struct rds_net *rn,
		       void (*fn)(struct rds_connection *conn, void *arg),
		       void *arg)
{
	struct rds_connection *conn;
	int i;

	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(rn->conn_hash); i++)
		hlist_for_each_entry_rcu(conn, &rn->conn_hash[i], c_hash_node)
			fn(conn, arg);
	rcu_read_unlock();
}

int rds_conn_init(void)
{
	return 0;
}

void rds_conn_exit(void)
{
	/* Namespaces destroyed theirs; transports pin rds.ko. */
	WARN_ON_ONCE(!list_empty(&rds_conn_list));
}
