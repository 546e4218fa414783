// SPDX-License-Identifier: GPL-2.0
/*
 * Connections: lookup and creation, the state machine (connect, drop,
 * reconnect with back-off), idle reaping and teardown.
 *
 * Lifetime. A connection is reference counted (c_refs). Its namespace's
 * hash table holds one reference from creation until the connection is
 * killed; every other user holds its own: rds_conn_create()'s caller, a
 * socket's cached rs_conn, each message queued on it (m_conn) and each
 * incoming message it delivered (i_conn). A connection is killed when its
 * transport unloads, its namespace dies, or it has been idle (no user but
 * the table and sockets' rs_conn caches, nothing queued or unacked) for
 * net.rds.conn_idle_ms: it is
 * unhashed and marked RDS_CONN_DESTROYING (nothing new is queued on it,
 * no work is scheduled for it), its transport connection is shut down,
 * and the table's reference is dropped. The last reference frees it from
 * rds_wq, after an RCU grace period for lockless hash walkers. Killing
 * never waits for anything that may itself create a connection, and
 * creation takes no mutex, so the send worker may create connections
 * (pongs over loopback) while another connection is being killed.
 *
 * A reaped connection leaves a tombstone with its sequence numbers, so a
 * new connection to the same peer continues where it stopped.
 *
 * Lanes (net/lanes.c): each lane to a peer is a connection of its own,
 * keyed by its index too. A lane other than 0 holds a reference to lane
 * 0, and the reaper retires lanes only with or before their lane 0.
 *
 * Peers' connections (rds_conn_accept*()) are bounded three ways: all
 * of them together by the namespace's cap less a reserve for our own
 * sends, each peer's (an IPv4 address, an IPv6 prefix) by
 * net.rds.peer_max_connections, and at the shared cap a new peer may
 * evict the least recently used idle one a peer made. The per-peer
 * counts and the eviction list live under conn_lock with the hash, so
 * a count is exact whenever a connection is hashed or unhashed.
 *
 * Lock order (outer first): rds_connection->c_cm_mutex (then the
 * transport's own connection locks); rds_net->conn_lock,
 * rds_conn_all_lock, rds_connection->c_lock.
 */
#include <linux/jhash.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/route.h>

#include "rds_core.h"
#include "rds_trace.h"

/* Every connection of every namespace until it is freed. */
static DEFINE_SPINLOCK(rds_conn_all_lock);
static LIST_HEAD(rds_conn_all);
static DECLARE_WAIT_QUEUE_HEAD(rds_conn_freed_wq);
static struct lock_class_key rds_conn_xmit_key;

/* What a reaped connection leaves behind: its sequence numbers. */
struct rds_conn_tomb {
	struct hlist_node	t_hash_node;	/* rds_net->tomb_hash */
	struct list_head	t_item;		/* rds_net->tomb_list, oldest first */
	struct in6_addr		t_laddr;
	struct in6_addr		t_faddr;
	enum rds_trans_type	t_type;
	int			t_dev_if;
	u8			t_tos;
	u8			t_lane;
	u8			t_npaths;
	bool			t_peer_ids;
	u32			t_peer_gen;
	u64			t_next_tx_seq;
	u64			t_next_rx_seq;
};

/* One peer for net.rds.peer_max_connections: its connections hashed
 * and made for its attempts. A peer is an IPv4 address or an IPv6
 * prefix (/64 by default: a host picks its own interface identifiers);
 * a link-local address is one peer on its link (there the prefix is
 * the link, shared by every neighbour).
 */
struct rds_conn_peer {
	struct hlist_node	p_node;		/* rds_net->peer_hash */
	struct in6_addr		p_key;
	int			p_dev_if;
	unsigned int		p_count;
};

/* Seeded per namespace: a peer that picks its addresses (IPv6 gives it
 * plenty) cannot aim them all at one bucket, walked under conn_lock with
 * bottom halves off.
 */
static u32 rds_conn_hash(const struct rds_net *rn,
			 const struct in6_addr *laddr,
			 const struct in6_addr *faddr,
			 enum rds_trans_type type, u8 tos, u8 lane)
{
	u32 h = jhash(laddr, sizeof(*laddr), rn->hash_seed ^ tos);

	return hash_32(jhash_3words(jhash(faddr, sizeof(*faddr), h), type,
				    lane, rn->hash_seed),
		       RDS_CONN_HASH_BITS);
}

static struct rds_connection *
rds_conn_lookup_rcu(struct hlist_head *head, const struct in6_addr *laddr,
		    const struct in6_addr *faddr,
		    const struct rds_transport *trans, u8 tos, int dev_if,
		    u8 lane)
{
	struct rds_connection *conn;

	hlist_for_each_entry_rcu(conn, head, c_hash_node) {
		if (ipv6_addr_equal(&conn->c_laddr, laddr) &&
		    ipv6_addr_equal(&conn->c_faddr, faddr) &&
		    conn->c_trans == trans && conn->c_tos == tos &&
		    conn->c_dev_if == dev_if && conn->c_lane == lane)
			return conn;
	}
	return NULL;
}

static void rds_conn_peer_key(struct rds_net *rn, const struct in6_addr *faddr,
			      struct in6_addr *key)
{
	if (ipv6_addr_v4mapped(faddr) ||
	    (ipv6_addr_type(faddr) & IPV6_ADDR_LINKLOCAL))
		*key = *faddr;
	else
		ipv6_addr_prefix(key, faddr, READ_ONCE(rn->peer_ipv6_prefix));
}

static struct hlist_head *rds_conn_peer_head(struct rds_net *rn,
					     const struct in6_addr *key,
					     int dev_if)
{
	return &rn->peer_hash[hash_32(jhash(key, sizeof(*key),
					    rn->hash_seed ^ dev_if),
				      RDS_CONN_HASH_BITS)];
}

static struct rds_conn_peer *rds_conn_peer_find_locked(struct rds_net *rn,
						       const struct in6_addr *key,
						       int dev_if)
{
	struct rds_conn_peer *p;

	lockdep_assert_held(&rn->conn_lock);
	hlist_for_each_entry(p, rds_conn_peer_head(rn, key, dev_if), p_node)
		if (ipv6_addr_equal(&p->p_key, key) && p->p_dev_if == dev_if)
			return p;
	return NULL;
}

/* @conn is being unhashed: it no longer counts against its peer. */
static void rds_conn_peer_put_locked(struct rds_net *rn,
				     struct rds_connection *conn)
{
	struct rds_conn_peer *p = conn->c_peer;

	lockdep_assert_held(&rn->conn_lock);
	list_del_init(&conn->c_peer_item);
	if (!p)
		return;
	conn->c_peer = NULL;
	if (--p->p_count)
		return;
	hlist_del(&p->p_node);
	kfree(p);
}

/* Lane @k of @conn0's peer, if it is hashed; the caller holds the RCU
 * read lock or rn->conn_lock.
 */
static struct rds_connection *rds_conn_find_lane(struct rds_net *rn,
						 struct rds_connection *conn0,
						 unsigned int k)
{
	u32 h = rds_conn_hash(rn, &conn0->c_laddr, &conn0->c_faddr,
			      conn0->c_trans->type, conn0->c_tos, k);

	return rds_conn_lookup_rcu(&rn->conn_hash[h], &conn0->c_laddr,
				   &conn0->c_faddr, conn0->c_trans,
				   conn0->c_tos, conn0->c_dev_if, k);
}

/**
 * rds_conn_lane_rcu - lane @k of @conn0's peer, if it is hashed
 * @rn: namespace
 * @conn0: lane 0
 * @k: the lane
 *
 * Context: under the RCU read lock, which keeps the result alive.
 */
struct rds_connection *rds_conn_lane_rcu(struct rds_net *rn,
					 struct rds_connection *conn0,
					 unsigned int k)
{
	return rds_conn_find_lane(rn, conn0, k);
}

/**
 * rds_addr_is_local - is @addr one of this namespace's own addresses?
 * @net: namespace
 * @addr: address (v4-mapped for IPv4)
 * @dev_if: scope id for link-local IPv6, else 0
 *
 * Context: any.
 */
bool rds_addr_is_local(struct net *net, const struct in6_addr *addr,
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
		local = (!dev_if || dev) && ipv6_chk_addr(net, addr, dev, 0);
		rcu_read_unlock();
		return local;
	}
#else
	return false;
#endif
}
EXPORT_SYMBOL_GPL(rds_addr_is_local);

/**
 * rds_conn_transition - move a connection from one state to another
 * @conn: the connection
 * @from: the state it must be in
 * @to: the new state
 *
 * Every state change goes through here, so no path can overwrite a state
 * that another path has just set.
 *
 * Context: any.
 * Return: true if @conn was in @from and is now in @to.
 */
bool rds_conn_transition(struct rds_connection *conn,
			 enum rds_conn_state from, enum rds_conn_state to)
{
	if (atomic_cmpxchg(&conn->c_state, from, to) != from)
		return false;
	trace_rds_conn_state(conn, from, to);
	return true;
}
EXPORT_SYMBOL_GPL(rds_conn_transition);

/* Free what rds_conn_alloc() set up; @conn was never or is no longer
 * visible to anyone.
 */
static void rds_conn_release(struct rds_connection *conn, bool trans_data)
{
	struct rds_net *rn = rds_conn_rn(conn);

	if (trans_data && conn->c_trans->conn_free)
		conn->c_trans->conn_free(conn);
	rds_cong_map_put(rn, conn->c_lcong);
	rds_cong_map_put(rn, conn->c_fcong);
	if (conn->c_lane0) {
		/* In this order: the reaper may count one lane too few,
		 * never one too many (see rds_conn_retire_if_idle_locked).
		 */
		atomic_dec(&conn->c_lane0->c_nlanes);
		rds_conn_put(conn->c_lane0);
	}
}

static void rds_conn_free_worker(struct work_struct *work)
{
	struct rds_connection *conn = container_of(work, struct rds_connection,
						   c_free_w);

	rds_conn_release(conn, true);
	spin_lock_bh(&rds_conn_all_lock);
	list_del(&conn->c_all_item);
	spin_unlock_bh(&rds_conn_all_lock);
	/* Lockless hash walkers may still be looking at it. */
	kfree_rcu(conn, c_rcu);
	rds_obj_dec(RDS_OBJ_CONN);
	wake_up_all(&rds_conn_freed_wq);
}

static void rds_conn_connect_worker(struct work_struct *work);
static void rds_conn_down_worker(struct work_struct *work);
static void rds_conn_timeout_worker(struct work_struct *work);

static struct rds_connection *rds_conn_alloc(struct net *net,
					     const struct in6_addr *laddr,
					     const struct in6_addr *faddr,
					     const struct rds_transport *trans,
					     u8 tos, int dev_if, u8 lane,
					     struct rds_connection *conn0,
					     gfp_t gfp)
{
	struct rds_net *rn = rds_net(net);
	struct rds_connection *conn;

	conn = kzalloc(struct_size(conn, c_tdata,
				   DIV_ROUND_UP(trans->conn_data_size,
						sizeof(conn->c_tdata[0]))),
		       gfp | __GFP_ACCOUNT);
	if (!conn)
		return NULL;
	refcount_set(&conn->c_refs, 1);
	write_pnet(&conn->c_net, net);
	conn->c_rn = rn;
	conn->c_laddr = *laddr;
	conn->c_faddr = *faddr;
	conn->c_dev_if = dev_if;
	conn->c_tos = tos;
	conn->c_lane = lane;
	if (lane) {
		rds_conn_get(conn0);
		atomic_inc(&conn0->c_nlanes);
		conn->c_lane0 = conn0;
	}
	conn->c_isv6 = !ipv6_addr_v4mapped(laddr);
	conn->c_trans = trans;
	conn->c_loopback = trans->type == RDS_TRANS_TYPE_LOOP ||
			   rds_addr_is_local(net, faddr, dev_if);
	atomic_set(&conn->c_state, RDS_CONN_DOWN);
	spin_lock_init(&conn->c_lock);
	conn->c_next_tx_seq = 1;
	conn->c_last_used = jiffies;
	INIT_LIST_HEAD(&conn->c_send_queue);
	INIT_LIST_HEAD(&conn->c_retrans);
	INIT_DELAYED_WORK(&conn->c_send_w, rds_send_worker);
	INIT_DELAYED_WORK(&conn->c_conn_w, rds_conn_connect_worker);
	INIT_WORK(&conn->c_down_w, rds_conn_down_worker);
	INIT_DELAYED_WORK(&conn->c_timeout_w, rds_conn_timeout_worker);
	INIT_DELAYED_WORK(&conn->c_lanes_w, rds_lanes_worker);
	init_waitqueue_head(&conn->c_waitq);
	mutex_init(&conn->c_cm_mutex);
	lockdep_init_map(&conn->c_xmit_map, "rds_conn_xmit", &rds_conn_xmit_key,
			 0);
	INIT_LIST_HEAD(&conn->c_all_item);
	INIT_LIST_HEAD(&conn->c_kill_item);
	INIT_LIST_HEAD(&conn->c_peer_item);
	INIT_WORK(&conn->c_free_w, rds_conn_free_worker);

	conn->c_lcong = rds_cong_map_get(rn, laddr);
	conn->c_fcong = rds_cong_map_get(rn, faddr);
	if (!conn->c_lcong || !conn->c_fcong)
		goto err_free;
	if (trans->conn_alloc && trans->conn_alloc(conn, gfp))
		goto err_free;
	return conn;

err_free:
	rds_conn_release(conn, false);
	kfree(conn);
	return NULL;
}

static void rds_conn_tomb_del_locked(struct rds_net *rn,
				     struct rds_conn_tomb *t)
{
	lockdep_assert_held(&rn->conn_lock);
	hlist_del(&t->t_hash_node);
	list_del(&t->t_item);
	rn->tomb_count--;
	kfree(t);
}

/* Is @t what lane @lane of @conn's peer left? */
static bool rds_conn_tomb_of(const struct rds_conn_tomb *t,
			     const struct rds_connection *conn,
			     unsigned int lane)
{
	return ipv6_addr_equal(&t->t_laddr, &conn->c_laddr) &&
	       ipv6_addr_equal(&t->t_faddr, &conn->c_faddr) &&
	       t->t_type == conn->c_trans->type && t->t_tos == conn->c_tos &&
	       t->t_dev_if == conn->c_dev_if && t->t_lane == lane;
}

/* Continue the sequences of a reaped connection to the same peer. */
static void rds_conn_restore_seq_locked(struct rds_net *rn,
					struct rds_connection *conn,
					struct hlist_head *tomb_head)
{
	struct rds_conn_tomb *t;

	lockdep_assert_held(&rn->conn_lock);
	hlist_for_each_entry(t, tomb_head, t_hash_node) {
		if (rds_conn_tomb_of(t, conn, conn->c_lane)) {
			conn->c_next_tx_seq = t->t_next_tx_seq;
			conn->c_next_rx_seq = t->t_next_rx_seq;
			/* What the peer offered still holds: its lanes
			 * keep their numbers across our reaping, and its
			 * incarnation tells a restart from a reconnect.
			 */
			conn->c_peer_ids = t->t_peer_ids;
			conn->c_npaths = t->t_npaths;
			conn->c_peer_gen = t->t_peer_gen;
			rds_conn_tomb_del_locked(rn, t);
			return;
		}
	}
}

/* Connections a peer's attempts may make: the namespace's cap less an
 * eighth (at least one) kept for those our own sockets need, so a peer
 * (or many) that fills the table cannot stop local sends to new peers.
 */
static unsigned int rds_conn_cap(struct rds_net *rn, bool peer)
{
	unsigned int max = rds_max_connections(rn);

	return peer ? max - DIV_ROUND_UP(max, 8) : max;
}

static unsigned int rds_conn_reap_peer_locked(struct rds_net *rn,
					      struct rds_connection *conn0,
					      unsigned long idle,
					      struct list_head *list);
static bool rds_conn_looks_idle(struct rds_connection *conn,
				unsigned long idle);

/* How many of peer_conns one eviction looks at: the scan runs with
 * bottom halves off, at every attempt a full table sees.
 */
#define RDS_CONN_EVICT_SCAN	64

/* The peers' share is full: free a slot by evicting the least recently
 * used of the first RDS_CONN_EVICT_SCAN connections peers made that is
 * idle (rds_conn_looks_idle() for net.rds.peer_evict_idle_ms, nothing
 * queued or unacked: rds_conn_retire_if_idle_locked()), with its idle
 * lanes. Those found busy go to the tail, so the next scan sees others.
 * What is evicted goes, unhashed, onto @rn->evict_list for evict_w.
 */
static bool rds_conn_evict_locked(struct rds_net *rn)
{
	unsigned long idle = msecs_to_jiffies(READ_ONCE(rn->peer_evict_idle_ms));
	struct rds_connection *conn, *tmp, *lru = NULL;
	unsigned int n = 0, evicted;
	LIST_HEAD(busy);

	lockdep_assert_held(&rn->conn_lock);
	list_for_each_entry_safe(conn, tmp, &rn->peer_conns, c_peer_item) {
		if (n++ == RDS_CONN_EVICT_SCAN)
			break;
		if (!rds_conn_looks_idle(conn, idle)) {
			list_move_tail(&conn->c_peer_item, &busy);
			continue;
		}
		if (!lru || time_before(READ_ONCE(conn->c_last_used),
					READ_ONCE(lru->c_last_used)))
			lru = conn;
	}
	list_splice_tail(&busy, &rn->peer_conns);
	if (!lru)
		return false;
	evicted = rds_conn_reap_peer_locked(rn, lru, idle, &rn->evict_list);
	rds_stats_add(rn, RDS_STAT_CONN_PEER_EVICTED, evicted);
	return evicted;
}

/* May a connection for @faddr's attempt be hashed now? Under conn_lock,
 * with @spare a zeroed peer entry for a peer not yet counted (taken, and
 * set to NULL, if used). Sets @conn->c_peer on success, and @evicted
 * if it evicted a connection for it.
 */
static int rds_conn_admit_peer_locked(struct rds_net *rn,
				      struct rds_connection *conn,
				      struct rds_conn_peer **spare,
				      bool *evicted)
{
	struct rds_conn_peer *p;
	struct in6_addr key;

	lockdep_assert_held(&rn->conn_lock);
	rds_conn_peer_key(rn, &conn->c_faddr, &key);
	p = rds_conn_peer_find_locked(rn, &key, conn->c_dev_if);
	if (p && p->p_count >= rds_peer_max_connections(rn)) {
		rds_stats_inc(rn, RDS_STAT_CONN_PER_PEER_OVER_CAP);
		return -ENOBUFS;
	}
	if (rn->conn_count >= rds_conn_cap(rn, true)) {
		*evicted = rds_conn_evict_locked(rn);
		if (rn->conn_count >= rds_conn_cap(rn, true)) {
			rds_stats_inc(rn, RDS_STAT_CONN_PEER_OVER_CAP);
			return -ENOBUFS;
		}
	}
	/* The eviction may have freed this peer's own entry. */
	p = rds_conn_peer_find_locked(rn, &key, conn->c_dev_if);
	if (!p) {
		p = *spare;
		*spare = NULL;
		p->p_key = key;
		p->p_dev_if = conn->c_dev_if;
		hlist_add_head(&p->p_node,
			       rds_conn_peer_head(rn, &key, conn->c_dev_if));
	}
	p->p_count++;
	conn->c_peer = p;
	if (!conn->c_lane)
		list_add_tail(&conn->c_peer_item, &rn->peer_conns);
	return 0;
}

static void rds_conn_kill_list(struct list_head *list);

/* Kills what evictions unhashed: from rds_wq, since killing sleeps and
 * a transport may create connections from its CM handler.
 */
static void rds_conn_evict_worker(struct work_struct *work)
{
	struct rds_net *rn = container_of(work, struct rds_net, evict_w);
	LIST_HEAD(list);

	spin_lock_bh(&rn->conn_lock);
	list_splice_init(&rn->evict_list, &list);
	spin_unlock_bh(&rn->conn_lock);
	rds_conn_kill_list(&list);
}

/* rds_conn_create(), rds_conn_lane() and their rds_conn_accept*() twins
 * (@peer: made for a peer's attempt); @conn0 is lane 0 for a @lane > 0.
 */
static struct rds_connection *
__rds_conn_create(struct net *net, const struct in6_addr *laddr,
		  const struct in6_addr *faddr,
		  const struct rds_transport *trans, u8 tos, int dev_if,
		  u8 lane, struct rds_connection *conn0, bool peer, gfp_t gfp)
{
	struct rds_net *rn = rds_net(net);
	u32 h = rds_conn_hash(rn, laddr, faddr, trans->type, tos, lane);
	struct hlist_head *head = &rn->conn_hash[h];
	struct rds_connection *conn, *found;
	struct rds_conn_peer *spare = NULL;
	bool evicted = false;
	int ret = 0;

	rcu_read_lock();
	conn = rds_conn_lookup_rcu(head, laddr, faddr, trans, tos, dev_if,
				   lane);
	if (conn && !refcount_inc_not_zero(&conn->c_refs))
		conn = NULL;
	rcu_read_unlock();
	if (conn)
		return conn;

	/* An unloading transport makes no new connections (module exit
	 * cannot start while we hold this).
	 */
	if (!try_module_get(trans->owner))
		return ERR_PTR(-ENETUNREACH);
	/* At the cap: fail before allocating (checked again below). A
	 * peer's attempt is judged under the lock, where it may evict.
	 */
	if (!peer && READ_ONCE(rn->conn_count) >= rds_conn_cap(rn, peer)) {
		module_put(trans->owner);
		return ERR_PTR(-ENOBUFS);
	}
	if (peer) {
		spare = kzalloc(sizeof(*spare), gfp | __GFP_ACCOUNT);
		if (!spare) {
			module_put(trans->owner);
			return ERR_PTR(-ENOMEM);
		}
	}
	conn = rds_conn_alloc(net, laddr, faddr, trans, tos, dev_if, lane,
			      conn0, gfp);
	if (!conn) {
		kfree(spare);
		module_put(trans->owner);
		return ERR_PTR(-ENOMEM);
	}

	spin_lock_bh(&rn->conn_lock);
	found = rds_conn_lookup_rcu(head, laddr, faddr, trans, tos, dev_if,
				    lane);
	if (found) {
		refcount_inc(&found->c_refs);	/* under conn_lock: alive */
	} else if (rn->conns_closed) {
		ret = -ENETUNREACH;
	} else if (conn0 && hlist_unhashed(&conn0->c_hash_node)) {
		/* Lane 0 is being killed: its lanes go with it. */
		ret = -ENETUNREACH;
	} else if (peer) {
		ret = rds_conn_admit_peer_locked(rn, conn, &spare, &evicted);
	} else if (rn->conn_count >= rds_conn_cap(rn, peer)) {
		ret = -ENOBUFS;
	}
	if (!found && !ret) {
		rds_conn_restore_seq_locked(rn, conn, &rn->tomb_hash[h]);
		refcount_inc(&conn->c_refs);	/* the table's */
		hlist_add_head_rcu(&conn->c_hash_node, head);
		WRITE_ONCE(rn->conn_count, rn->conn_count + 1);
		spin_lock(&rds_conn_all_lock);
		list_add_tail(&conn->c_all_item, &rds_conn_all);
		spin_unlock(&rds_conn_all_lock);
		rds_obj_inc(RDS_OBJ_CONN);
	}
	spin_unlock_bh(&rn->conn_lock);

	kfree(spare);
	if (evicted)
		queue_work(rds_wq, &rn->evict_w);
	if (found || ret) {
		rds_conn_release(conn, true);
		kfree(conn);
		conn = found ?: ERR_PTR(ret);
	}
	module_put(trans->owner);
	if (IS_ERR(conn) || found)
		return conn;
	rds_conn_arm_reaper(rn);
	return conn;
}

/**
 * rds_conn_create - find or create the connection for a peer
 * @net: namespace
 * @laddr: local address
 * @faddr: peer address
 * @trans: transport
 * @tos: type of service
 * @dev_if: scope id for link-local IPv6, else 0
 * @gfp: allocation flags
 *
 * This is lane 0 of the peer; rds_conn_lane() gives the others. For our
 * own sockets' sends; a transport answering a peer's attempt uses
 * rds_conn_accept().
 * Fails with -ENETUNREACH once @trans is unloading or @net is dying, and
 * with -ENOBUFS when the namespace has net.rds.max_connections already
 * (every lane counts).
 *
 * Context: process context unless @gfp is atomic. Takes no mutex, so it
 * may run from the core's workers while connections are being killed.
 * Return: the connection with a reference the caller must drop with
 * rds_conn_put(), or an ERR_PTR.
 */
struct rds_connection *rds_conn_create(struct net *net,
				       const struct in6_addr *laddr,
				       const struct in6_addr *faddr,
				       const struct rds_transport *trans,
				       u8 tos, int dev_if, gfp_t gfp)
{
	return __rds_conn_create(net, laddr, faddr, trans, tos, dev_if, 0,
				 NULL, false, gfp);
}

/**
 * rds_conn_accept - rds_conn_create() for a peer's connection attempt
 * @net: namespace
 * @laddr: local address
 * @faddr: peer address
 * @trans: transport
 * @tos: type of service
 * @dev_if: scope id for link-local IPv6, else 0
 * @gfp: allocation flags
 *
 * As rds_conn_create(), but a new connection is made only below the
 * namespace's cap less the share kept for our own sockets (an eighth):
 * -ENOBUFS beyond it, counted in conn_peer_over_cap. One that exists is
 * always found.
 *
 * Context: as rds_conn_create().
 * Return: as rds_conn_create().
 */
struct rds_connection *rds_conn_accept(struct net *net,
				       const struct in6_addr *laddr,
				       const struct in6_addr *faddr,
				       const struct rds_transport *trans,
				       u8 tos, int dev_if, gfp_t gfp)
{
	return __rds_conn_create(net, laddr, faddr, trans, tos, dev_if, 0,
				 NULL, true, gfp);
}
EXPORT_SYMBOL_GPL(rds_conn_accept);

/**
 * rds_conn_find - the connection (lane 0) between two addresses, if any
 * @net: namespace
 * @laddr: local address
 * @faddr: peer address
 * @trans: transport
 * @tos: type of service
 * @dev_if: scope id for link-local IPv6, else 0
 *
 * Unlike rds_conn_create(), never makes one: for checks a peer must not
 * be able to turn into allocations.
 *
 * Context: any.
 * Return: the connection with a reference for rds_conn_put(), or NULL.
 */
struct rds_connection *rds_conn_find(struct net *net,
				     const struct in6_addr *laddr,
				     const struct in6_addr *faddr,
				     const struct rds_transport *trans,
				     u8 tos, int dev_if)
{
	struct rds_net *rn = rds_net(net);
	u32 h = rds_conn_hash(rn, laddr, faddr, trans->type, tos, 0);
	struct rds_connection *conn;

	rcu_read_lock();
	conn = rds_conn_lookup_rcu(&rn->conn_hash[h], laddr, faddr,
				   trans, tos, dev_if, 0);
	if (conn && !refcount_inc_not_zero(&conn->c_refs))
		conn = NULL;
	rcu_read_unlock();
	return conn;
}
EXPORT_SYMBOL_GPL(rds_conn_find);

static struct rds_connection *__rds_conn_lane(struct rds_connection *conn0,
					      unsigned int lane, bool peer,
					      gfp_t gfp)
{
	if (WARN_ON_ONCE(conn0->c_lane0) || lane >= RDS_MPATH_WORKERS)
		return ERR_PTR(-EINVAL);
	if (!lane) {
		rds_conn_get(conn0);
		return conn0;
	}
	return __rds_conn_create(rds_conn_net(conn0), &conn0->c_laddr,
				 &conn0->c_faddr, conn0->c_trans, conn0->c_tos,
				 conn0->c_dev_if, lane, conn0, peer, gfp);
}

/**
 * rds_conn_lane - find or create one lane of a peer
 * @conn0: lane 0 of the peer (the caller holds a reference)
 * @lane: lane index, below RDS_MPATH_WORKERS
 * @gfp: allocation flags
 *
 * Context: as rds_conn_create().
 * Return: the lane with a reference, or an ERR_PTR (-ENETUNREACH once
 * @conn0 is being killed, -ENOBUFS at the connection cap).
 */
struct rds_connection *rds_conn_lane(struct rds_connection *conn0,
				     unsigned int lane, gfp_t gfp)
{
	return __rds_conn_lane(conn0, lane, false, gfp);
}

/**
 * rds_conn_accept_lane - rds_conn_lane() for a peer's connection attempt
 * @conn0: lane 0 of the peer (the caller holds a reference)
 * @lane: lane index, below RDS_MPATH_WORKERS
 * @gfp: allocation flags
 *
 * Within the share of the cap peers may fill, as rds_conn_accept().
 *
 * Context: as rds_conn_create().
 * Return: as rds_conn_lane().
 */
struct rds_connection *rds_conn_accept_lane(struct rds_connection *conn0,
					    unsigned int lane, gfp_t gfp)
{
	return __rds_conn_lane(conn0, lane, true, gfp);
}
EXPORT_SYMBOL_GPL(rds_conn_accept_lane);

/**
 * rds_conn_peer_restarted - @conn0's peer is a new incarnation
 * @conn0: lane 0 of the peer
 *
 * Its sequences start again: every lane, hashed or reaped, takes any
 * sequence next, so the new incarnation's first messages are not dropped
 * as old when they come again marked RETRANSMITTED (Linux resets its
 * lanes the same way). What we queued to the peer stays queued: the new
 * incarnation never saw it (Linux drops it).
 *
 * Context: the transport's receive path; takes rn->conn_lock.
 */
void rds_conn_peer_restarted(struct rds_connection *conn0)
{
	struct rds_net *rn = rds_conn_rn(conn0);
	struct rds_connection *lane;
	struct rds_conn_tomb *t;
	unsigned int k;
	u32 h;

	WRITE_ONCE(conn0->c_next_rx_seq, 0);
	spin_lock_bh(&rn->conn_lock);
	for (k = 0; k < RDS_MPATH_WORKERS; k++) {
		lane = k ? rds_conn_find_lane(rn, conn0, k) : NULL;
		if (lane)
			WRITE_ONCE(lane->c_next_rx_seq, 0);
		h = rds_conn_hash(rn, &conn0->c_laddr, &conn0->c_faddr,
				  conn0->c_trans->type, conn0->c_tos, k);
		hlist_for_each_entry(t, &rn->tomb_hash[h], t_hash_node)
			if (rds_conn_tomb_of(t, conn0, k))
				t->t_next_rx_seq = 0;
	}
	spin_unlock_bh(&rn->conn_lock);
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
	if (rds_conn_transition(conn, RDS_CONN_DOWN, RDS_CONN_CONNECTING))
		rds_conn_queue_delayed(conn, &conn->c_conn_w, 0);
}

/**
 * rds_conn_want_connect - (re)connect even if nothing is queued
 * @conn: the connection
 *
 * For a transport whose peer has just connected to us: the connection
 * comes up now if it is down, or right after the shutdown in progress.
 *
 * Context: any.
 */
void rds_conn_want_connect(struct rds_connection *conn)
{
	set_bit(RDS_CONN_WANT_CONNECT, &conn->c_flags);
	/* Seen by the down worker, which tests the bit after going DOWN. */
	smp_mb__after_atomic();
	rds_conn_connect_if_down(conn);
}
EXPORT_SYMBOL_GPL(rds_conn_want_connect);

/* The attempt about to start is dropped, and made again, if it is not up
 * within net.rds.connect_timeout_ms: a peer that returns is then found by
 * the next attempt, not after TCP's SYN back-off or the RDMA CM's
 * retries, which can take minutes.
 */
static void rds_conn_arm_timeout(struct rds_connection *conn)
{
	struct rds_net *rn = rds_conn_rn(conn);

	spin_lock_bh(&conn->c_lock);
	if (!test_bit(RDS_CONN_DESTROYING, &conn->c_flags))
		mod_delayed_work(rds_wq, &conn->c_timeout_w,
				 msecs_to_jiffies(rds_connect_timeout_ms(rn)));
	spin_unlock_bh(&conn->c_lock);
}

static void rds_conn_timeout_worker(struct work_struct *work)
{
	struct rds_connection *conn = container_of(to_delayed_work(work),
						   struct rds_connection,
						   c_timeout_w);

	if (rds_conn_state(conn) != RDS_CONN_CONNECTING)
		return;
	rds_stats_inc(rds_conn_rn(conn),
		      RDS_STAT_CONN_CONNECT_TIMEOUT);
	trace_rds_conn_error(conn, -ETIMEDOUT, RDS_TRACE_SITE_CONNECT_TIMEOUT);
	rds_conn_drop_reason(conn, RDS_DROP_CONNECT_TIMEOUT);
}

static u64 rds_conn_now_ms(void)
{
	return ktime_to_ms(ktime_get_real());
}

/* A connect attempt begins: the connect worker, under c_cm_mutex. */
static void rds_conn_hist_attempt(struct rds_connection *conn)
{
	struct rds_conn_hist *h = &conn->c_hist;

	WRITE_ONCE(h->attempt_ms, rds_conn_now_ms());
	WRITE_ONCE(h->attempts, h->attempts + 1);
	WRITE_ONCE(h->attempts_total, h->attempts_total + 1);
}

static void rds_conn_connect_worker(struct work_struct *work)
{
	struct rds_connection *conn = container_of(to_delayed_work(work),
						   struct rds_connection,
						   c_conn_w);
	int ret = 0;

	/* A drop may have started the shutdown since we were queued: under
	 * the mutex we either see that, or finish before it begins.
	 */
	mutex_lock(&conn->c_cm_mutex);
	if (rds_conn_state(conn) != RDS_CONN_CONNECTING)
		goto out;
	if (!rds_lanes_may_connect(conn)) {
		/* Back down until lane 0's answer kicks the lanes; if it
		 * came meanwhile, the kick found us connecting: go on.
		 */
		rds_conn_transition(conn, RDS_CONN_CONNECTING, RDS_CONN_DOWN);
		if (rds_lanes_may_connect(conn))
			rds_conn_connect_if_down(conn);
		goto out;
	}
	rds_conn_hist_attempt(conn);
	if (conn->c_trans->conn_connect) {
		rds_conn_arm_timeout(conn);
		ret = conn->c_trans->conn_connect(conn);
	} else {
		rds_connect_complete(conn);
	}
out:
	mutex_unlock(&conn->c_cm_mutex);
	if (ret) {
		trace_rds_conn_error(conn, ret, RDS_TRACE_SITE_CONNECT);
		rds_conn_drop_reason(conn, ret == -ENOMEM ? RDS_DROP_MEMORY :
					   RDS_DROP_CONNECT_FAIL);
	}
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
	struct rds_net *rn = rds_conn_rn(conn);

	if (!rds_conn_transition(conn, RDS_CONN_CONNECTING, RDS_CONN_UP)) {
		rds_conn_drop_reason(conn, RDS_DROP_BAD_STATE);
		return;
	}
	WRITE_ONCE(conn->c_hist.connect_ms, rds_conn_now_ms());
	conn->c_reconnect_jiffies = msecs_to_jiffies(READ_ONCE(rn->reconnect_min_ms));
	clear_bit(RDS_CONN_WANT_CONNECT, &conn->c_flags);
	set_bit(RDS_CONN_WAS_UP, &conn->c_flags);
	/* A new peer connection starts with our whole congestion map; maps
	 * go on lane 0 only, so that an older one never overtakes a newer.
	 */
	if ((conn->c_trans->caps & RDS_TRANS_CAP_WIRE) && !conn->c_loopback &&
	    !conn->c_lane) {
		set_bit(RDS_CONN_CONG_QUEUED, &conn->c_flags);
		rds_lanes_connected(conn);
	}
	rds_send_kick(conn);
}
EXPORT_SYMBOL_GPL(rds_connect_complete);

/* The drop that moved @conn from @state to ERROR: only its winner gets
 * here, so the first reason of a shutdown is the one kept.
 */
static void rds_conn_hist_drop(struct rds_connection *conn,
			       enum rds_conn_state state,
			       enum rds_drop_reason reason)
{
	struct rds_conn_hist *h = &conn->c_hist;

	WRITE_ONCE(h->reason, reason);
	WRITE_ONCE(h->drops, h->drops + 1);
	if (state != RDS_CONN_UP)
		return;
	/* As UEK: the attempts count again from this outage on. */
	WRITE_ONCE(h->reset_ms, rds_conn_now_ms());
	WRITE_ONCE(h->reset_reason, reason);
	WRITE_ONCE(h->resets, h->resets + 1);
	WRITE_ONCE(h->attempts, 0);
}

/**
 * rds_conn_drop_reason - tear a connection down; it reconnects if it
 *	has work
 * @conn: the connection
 * @reason: why (enum rds_drop_reason): kept as the lane's last drop
 *	reason if this call starts the shutdown
 *
 * Context: any. Safe to call more than once.
 * Return: true if this call started the shutdown (callers that count
 * their drops count only these).
 */
bool rds_conn_drop_reason(struct rds_connection *conn,
			  enum rds_drop_reason reason)
{
	enum rds_conn_state state;

	for (;;) {
		state = rds_conn_state(conn);
		/* Already going down: the shutdown in progress covers us. */
		if (state == RDS_CONN_ERROR || state == RDS_CONN_DISCONNECTING)
			return false;
		if (rds_conn_transition(conn, state, RDS_CONN_ERROR))
			break;
	}
	rds_conn_hist_drop(conn, state, reason);
	trace_rds_conn_drop(conn, reason);
	rds_stats_inc(rds_conn_rn(conn), RDS_STAT_CONN_RESET);
	/* Under c_lock, as rds_conn_queue_delayed() explains. */
	spin_lock_bh(&conn->c_lock);
	if (!test_bit(RDS_CONN_DESTROYING, &conn->c_flags))
		queue_work(rds_wq, &conn->c_down_w);
	spin_unlock_bh(&conn->c_lock);
	return true;
}
EXPORT_SYMBOL_GPL(rds_conn_drop_reason);

/**
 * rds_conn_unacked_limits - when a sender asks its peer for an ack
 * @conn: the connection
 * @packets: set to net.rds.max_unacked_packets of its namespace
 * @bytes: set to net.rds.max_unacked_bytes
 *
 * For transports with RDS-level acks: a message sets
 * RDS_FLAG_ACK_REQUIRED once this many messages or bytes went out since
 * the last one that did (Linux's rule and defaults, 8 and 16 MiB).
 */
void rds_conn_unacked_limits(const struct rds_connection *conn,
			     u32 *packets, u32 *bytes)
{
	struct rds_net *rn = rds_conn_rn(conn);

	*packets = max(READ_ONCE(rn->max_unacked_packets), 1);
	*bytes = max(READ_ONCE(rn->max_unacked_bytes), 1);
}
EXPORT_SYMBOL_GPL(rds_conn_unacked_limits);

/* Shut the transport connection down; leaves the connection DOWN. With
 * @final (the connection is being killed) the transport is told even if
 * the connection is DOWN already: whatever it still holds goes now.
 */
static void rds_conn_shutdown(struct rds_connection *conn, bool final)
{
	enum rds_conn_state state;

	mutex_lock(&conn->c_cm_mutex);
	do {
		state = rds_conn_state(conn);
		if (state == RDS_CONN_DOWN) {
			if (final && conn->c_trans->conn_shutdown)
				conn->c_trans->conn_shutdown(conn);
			goto out;
		}
	} while (!rds_conn_transition(conn, state, RDS_CONN_DISCONNECTING));

	/* This attempt is over; the next one arms its own timeout. */
	cancel_delayed_work(&conn->c_timeout_w);
	/* Wait out a transmit loop in progress: for lockdep, that is
	 * taking the transmit lock.
	 */
	lock_map_acquire(&conn->c_xmit_map);
	lock_map_release(&conn->c_xmit_map);
	wait_event(conn->c_waitq,
		   !test_bit(RDS_CONN_IN_XMIT, &conn->c_flags));
	rds_conn_assert_xmit_quiet(conn);
	if (conn->c_trans->conn_shutdown)
		conn->c_trans->conn_shutdown(conn);
	/* The message stopped half-way starts again from its first byte,
	 * unacked ones go out again, flagged, after the reconnect.
	 */
	rds_send_requeue_retrans(conn);
	WARN_ON_ONCE(!rds_conn_transition(conn, RDS_CONN_DISCONNECTING,
					  RDS_CONN_DOWN));
out:
	mutex_unlock(&conn->c_cm_mutex);
}

/* Lane 0 went down: its other lanes may not connect until it is back
 * (rds_lanes_may_connect()), so they make no attempts whose end would
 * give up what closed sockets left on them; do it for them.
 */
static void rds_conn_expire_lanes(struct rds_connection *conn0)
{
	struct rds_net *rn = rds_conn_rn(conn0);
	struct rds_connection *lane;
	unsigned int k;

	if (conn0->c_lane0 || !atomic_read(&conn0->c_nlanes))
		return;
	for (k = 1; k < RDS_MPATH_WORKERS; k++) {
		rcu_read_lock();
		lane = rds_conn_find_lane(rn, conn0, k);
		if (lane && !refcount_inc_not_zero(&lane->c_refs))
			lane = NULL;
		rcu_read_unlock();
		if (!lane)
			continue;
		if (rds_conn_state(lane) == RDS_CONN_DOWN)
			rds_send_drop_stale(lane, false);
		rds_conn_put(lane);
	}
}

static void rds_conn_down_worker(struct work_struct *work)
{
	struct rds_connection *conn = container_of(work, struct rds_connection,
						   c_down_w);
	struct rds_net *rn = rds_conn_rn(conn);
	unsigned long delay, max;
	bool pending;

	rds_conn_shutdown(conn, false);
	if (test_bit(RDS_CONN_DESTROYING, &conn->c_flags))
		return;
	/* Closed sockets' messages wait for the peer only so long. */
	rds_send_drop_stale(conn, !test_and_clear_bit(RDS_CONN_WAS_UP,
						      &conn->c_flags));
	rds_conn_expire_lanes(conn);

	/* Pairs with rds_conn_want_connect(): it saw DOWN, or we see it. */
	smp_mb();
	if (test_and_clear_bit(RDS_CONN_WANT_CONNECT, &conn->c_flags)) {
		if (rds_conn_transition(conn, RDS_CONN_DOWN, RDS_CONN_CONNECTING))
			rds_conn_queue_delayed(conn, &conn->c_conn_w, 0);
		return;
	}
	spin_lock_bh(&conn->c_lock);
	pending = !list_empty(&conn->c_send_queue);
	spin_unlock_bh(&conn->c_lock);
	/* Senders may wait for the peer to uncongest a port: its update
	 * only comes over a connection, so there must be one.
	 */
	if (!pending && (conn->c_trans->caps & RDS_TRANS_CAP_WIRE) &&
	    !conn->c_lane)
		pending = rds_cong_any(conn->c_fcong);
	/* The lower address keeps every lane up, as Linux: a peer with the
	 * higher one cannot bring a lane other than 0 back itself.
	 */
	if (!pending)
		pending = rds_lanes_keep_up(conn);
	if (!pending)
		return;

	/* Exponential back-off between min and max delay. */
	delay = conn->c_reconnect_jiffies;
	max = msecs_to_jiffies(READ_ONCE(rn->reconnect_max_ms));
	conn->c_reconnect_jiffies = min(max(delay * 2, 1UL), max);
	if (rds_conn_transition(conn, RDS_CONN_DOWN, RDS_CONN_CONNECTING))
		rds_conn_queue_delayed(conn, &conn->c_conn_w, delay);
}

/* Take @conn out of its table and mark it dying; the caller now owns the
 * table's reference and must pass @conn to rds_conn_kill().
 */
static void rds_conn_unhash_locked(struct rds_net *rn,
				   struct rds_connection *conn)
{
	lockdep_assert_held(&rn->conn_lock);
	hlist_del_init_rcu(&conn->c_hash_node);
	WRITE_ONCE(rn->conn_count, rn->conn_count - 1);
	rds_conn_peer_put_locked(rn, conn);
	/* Under c_lock: a sender that queues after this sees it. */
	spin_lock(&conn->c_lock);
	set_bit(RDS_CONN_DESTROYING, &conn->c_flags);
	spin_unlock(&conn->c_lock);
}

/* Stop an unhashed connection and drop the table's reference. */
static void rds_conn_kill(struct rds_connection *conn)
{
	might_sleep();
	cancel_delayed_work_sync(&conn->c_timeout_w);
	cancel_work_sync(&conn->c_down_w);
	cancel_delayed_work_sync(&conn->c_lanes_w);
	cancel_delayed_work_sync(&conn->c_conn_w);
	cancel_delayed_work_sync(&conn->c_send_w);
	rds_conn_shutdown(conn, true);
	rds_send_drop_all(conn);
	rds_conn_put(conn);
}

static void rds_conn_kill(struct rds_connection *conn);

static void rds_conn_kill_list(struct list_head *list)
{
	struct rds_connection *conn, *tmp;

	list_for_each_entry_safe(conn, tmp, list, c_kill_item) {
		list_del_init(&conn->c_kill_item);
		rds_conn_kill(conn);
	}
}

/* Unhash every connection of @rn that @match accepts, onto @list. */
static void rds_conn_collect(struct rds_net *rn, struct list_head *list,
			     bool (*match)(struct rds_connection *conn,
					   const void *arg),
			     const void *arg)
{
	struct rds_connection *conn;
	struct hlist_node *tmp;
	int i;

	spin_lock_bh(&rn->conn_lock);
	for (i = 0; i < ARRAY_SIZE(rn->conn_hash); i++) {
		hlist_for_each_entry_safe(conn, tmp, &rn->conn_hash[i],
					  c_hash_node) {
			if (!match(conn, arg))
				continue;
			rds_conn_unhash_locked(rn, conn);
			list_add_tail(&conn->c_kill_item, list);
		}
	}
	spin_unlock_bh(&rn->conn_lock);
}

static bool rds_conn_any(struct rds_connection *conn, const void *arg)
{
	return true;
}

/* Has every connection that @match accepts been freed? */
static bool rds_conn_all_freed(bool (*match)(struct rds_connection *conn,
					     const void *arg),
			       const void *arg)
{
	struct rds_connection *conn;
	bool none = true;

	spin_lock_bh(&rds_conn_all_lock);
	list_for_each_entry(conn, &rds_conn_all, c_all_item) {
		if (match(conn, arg)) {
			none = false;
			break;
		}
	}
	spin_unlock_bh(&rds_conn_all_lock);
	return none;
}

static bool rds_conn_in_net(struct rds_connection *conn, const void *arg)
{
	return net_eq(rds_conn_net(conn), arg);
}

struct rds_conn_match {
	const struct rds_transport	*trans;
	struct net			*net;
};

static bool rds_conn_of_trans(struct rds_connection *conn, const void *arg)
{
	const struct rds_conn_match *m = arg;

	return conn->c_trans == m->trans &&
	       (!m->net || net_eq(rds_conn_net(conn), m->net));
}

/**
 * rds_conn_destroy_transport - destroy every connection of a transport
 * @trans: the transport
 * @net: only those of this namespace (its transport state is going), or
 *	NULL for every namespace (module exit)
 *
 * Messages still queued belong to closed sockets (open ones pin the
 * transport and the namespace) and are dropped. Returns once every such
 * connection is freed, so the module or the namespace may go. The caller
 * makes sure no new ones are created: the module is past its
 * rds_trans_withdraw() (rds_trans_unregister() calls this next), or the
 * namespace's listener is closed and its sockets are gone.
 *
 * Context: process context, may sleep.
 */
void rds_conn_destroy_transport(const struct rds_transport *trans,
				struct net *net)
{
	struct rds_conn_match m = { .trans = trans, .net = net };
	bool again;
	LIST_HEAD(list);

	/* A lane may be created while the walk is past its bucket but not
	 * yet at its lane 0's (after which none can be): walk again until
	 * a walk finds nothing.
	 */
	do {
		if (m.net) {
			rds_conn_collect(rds_net(m.net), &list,
					 rds_conn_of_trans, &m);
		} else {
			down_read(&net_rwsem);
			for_each_net(net)
				rds_conn_collect(rds_net(net), &list,
						 rds_conn_of_trans, &m);
			up_read(&net_rwsem);
		}
		again = !list_empty(&list);
		rds_conn_kill_list(&list);
	} while (again);
	wait_event(rds_conn_freed_wq, rds_conn_all_freed(rds_conn_of_trans, &m));
}
EXPORT_SYMBOL_GPL(rds_conn_destroy_transport);

/**
 * rds_trans_unregister - withdraw a transport and destroy its connections
 * @trans: a table registered with rds_trans_register()
 *
 * After this returns no new socket or connection can find @trans
 * (rds_trans_withdraw()), and every connection it had, in every
 * namespace, is freed (rds_conn_destroy_transport()): what messages they
 * still held belonged to closed sockets. Users that already held @trans
 * keep its module pinned, so this is only reached from the module's exit
 * (or its init's unwind) once they are gone; from then on no connection
 * of it can be created either (__rds_conn_create() pins the module).
 *
 * Context: process context, may sleep.
 */
void rds_trans_unregister(const struct rds_transport *trans)
{
	rds_trans_withdraw(trans);
	rds_conn_destroy_transport(trans, NULL);
}
EXPORT_SYMBOL_GPL(rds_trans_unregister);

/**
 * rds_conn_net_exit - destroy a dying namespace's connections
 * @rn: the namespace, which has no sockets left
 */
void rds_conn_net_exit(struct rds_net *rn)
{
	struct rds_conn_tomb *t, *tmp;
	LIST_HEAD(list);

	spin_lock_bh(&rn->conn_lock);
	rn->conns_closed = true;	/* workers create nothing from now on */
	spin_unlock_bh(&rn->conn_lock);
	cancel_delayed_work_sync(&rn->reap_w);
	/* Nothing is evicted once conns_closed is set. */
	flush_work(&rn->evict_w);
	rds_conn_collect(rn, &list, rds_conn_any, NULL);
	rds_conn_kill_list(&list);
	/* conns_closed: nothing was created after that walk. */
	wait_event(rds_conn_freed_wq, rds_conn_all_freed(rds_conn_in_net,
							 rn->net));
	cancel_work_sync(&rn->evict_w);
	list_for_each_entry_safe(t, tmp, &rn->tomb_list, t_item)
		kfree(t);
	INIT_LIST_HEAD(&rn->tomb_list);
	rn->tomb_count = 0;
}

/* Remember @t's sequences, replacing an older tomb of the same peer and
 * forgetting the oldest beyond the cap.
 */
static void rds_conn_bury_locked(struct rds_net *rn, struct rds_conn_tomb *t)
{
	u32 h = rds_conn_hash(rn, &t->t_laddr, &t->t_faddr, t->t_type,
			      t->t_tos, t->t_lane);
	struct rds_conn_tomb *old;
	struct hlist_node *tmp;

	lockdep_assert_held(&rn->conn_lock);
	hlist_for_each_entry_safe(old, tmp, &rn->tomb_hash[h], t_hash_node) {
		if (ipv6_addr_equal(&old->t_laddr, &t->t_laddr) &&
		    ipv6_addr_equal(&old->t_faddr, &t->t_faddr) &&
		    old->t_type == t->t_type && old->t_tos == t->t_tos &&
		    old->t_dev_if == t->t_dev_if && old->t_lane == t->t_lane)
			rds_conn_tomb_del_locked(rn, old);
	}
	if (rn->tomb_count >= rds_max_connections(rn))
		rds_conn_tomb_del_locked(rn, list_first_entry(&rn->tomb_list,
							      struct rds_conn_tomb,
							      t_item));
	hlist_add_head(&t->t_hash_node, &rn->tomb_hash[h]);
	list_add_tail(&t->t_item, &rn->tomb_list);
	rn->tomb_count++;
}

/* Does nothing but the table, sockets' caches and (lane 0) its other
 * lanes refer to @conn, and was it unused for @idle jiffies? A lane being
 * freed drops its count before its reference, so a racing free reads as
 * busy, never as idle.
 */
static bool rds_conn_looks_idle(struct rds_connection *conn,
				unsigned long idle)
{
	unsigned int users = 1 + atomic_read(&conn->c_cached) +
			     atomic_read(&conn->c_nlanes);

	return refcount_read(&conn->c_refs) == users &&
	       !time_before(jiffies, READ_ONCE(conn->c_last_used) + idle);
}

/* If @conn is idle (rds_conn_looks_idle(), nothing queued or unacked),
 * mark it dying and bury its sequences, in one c_lock section: a sender
 * either queued before (then it is not idle) or finds it dying and looks
 * up a new one, which continues from the tomb. A socket whose cached
 * connection was reaped does the same at its next send.
 */
static bool rds_conn_retire_if_idle_locked(struct rds_net *rn,
					   struct rds_connection *conn,
					   unsigned long idle)
{
	struct rds_conn_tomb *t;
	bool empty;

	lockdep_assert_held(&rn->conn_lock);
	if (!rds_conn_looks_idle(conn, idle))
		return false;
	t = kzalloc(sizeof(*t), GFP_ATOMIC | __GFP_ACCOUNT);
	if (!t)
		return false;	/* try again next period */
	t->t_laddr = conn->c_laddr;
	t->t_faddr = conn->c_faddr;
	t->t_type = conn->c_trans->type;
	t->t_dev_if = conn->c_dev_if;
	t->t_tos = conn->c_tos;
	t->t_lane = conn->c_lane;
	t->t_npaths = READ_ONCE(conn->c_npaths);
	t->t_peer_ids = READ_ONCE(conn->c_peer_ids);
	t->t_peer_gen = READ_ONCE(conn->c_peer_gen);

	spin_lock(&conn->c_lock);
	empty = list_empty(&conn->c_send_queue) && list_empty(&conn->c_retrans);
	if (empty) {
		set_bit(RDS_CONN_DESTROYING, &conn->c_flags);
		t->t_next_tx_seq = conn->c_next_tx_seq;
		t->t_next_rx_seq = conn->c_next_rx_seq;
	}
	spin_unlock(&conn->c_lock);
	if (!empty) {
		kfree(t);
		return false;
	}
	rds_conn_bury_locked(rn, t);
	return true;
}

/* Reap the idle lanes of @conn0's peer, then @conn0 if they all went.
 * A lane unhashed here may be the next entry of the caller's walk: an
 * unhashed node keeps its next pointer, and the walk skips lanes.
 */
static unsigned int rds_conn_reap_peer_locked(struct rds_net *rn,
					      struct rds_connection *conn0,
					      unsigned long idle,
					      struct list_head *list)
{
	struct rds_connection *lane;
	unsigned int k, reaped = 0;
	bool all = true;

	lockdep_assert_held(&rn->conn_lock);
	if (!rds_conn_looks_idle(conn0, idle))
		return 0;
	for (k = 1; k < RDS_MPATH_WORKERS && atomic_read(&conn0->c_nlanes); k++) {
		lane = rds_conn_find_lane(rn, conn0, k);
		if (!lane)
			continue;
		if (!rds_conn_retire_if_idle_locked(rn, lane, idle)) {
			all = false;
			continue;
		}
		rds_conn_unhash_locked(rn, lane);
		list_add_tail(&lane->c_kill_item, list);
		reaped++;
	}
	/* Lanes being killed still count in c_nlanes until freed. */
	if (all && rds_conn_retire_if_idle_locked(rn, conn0, idle)) {
		rds_conn_unhash_locked(rn, conn0);
		list_add_tail(&conn0->c_kill_item, list);
		return reaped + 1;
	}
	/* Lane 0 stays: a lane the peer may use again must come back. */
	if (reaped)
		rds_lanes_kick(conn0);
	return reaped;
}

static void rds_conn_reap_worker(struct work_struct *work)
{
	struct rds_net *rn = container_of(to_delayed_work(work), struct rds_net,
					  reap_w);
	unsigned long idle = msecs_to_jiffies(rds_conn_idle_ms(rn));
	struct rds_connection *conn;
	struct hlist_node *tmp;
	unsigned int reaped = 0;
	LIST_HEAD(list);
	int i;

	spin_lock_bh(&rn->conn_lock);
	for (i = 0; i < ARRAY_SIZE(rn->conn_hash); i++) {
		hlist_for_each_entry_safe(conn, tmp, &rn->conn_hash[i],
					  c_hash_node) {
			/* Lanes go with their lane 0, never alone. */
			if (rn->conns_closed || conn->c_lane)
				continue;
			reaped += rds_conn_reap_peer_locked(rn, conn, idle,
							    &list);
		}
	}
	spin_unlock_bh(&rn->conn_lock);
	rds_conn_kill_list(&list);
	rds_stats_add(rn, RDS_STAT_CONN_REAPED, reaped);
	rds_conn_arm_reaper(rn);
}

/* Reaped between one and one and a half idle periods after use. */
static unsigned long rds_conn_reap_period(struct rds_net *rn)
{
	return msecs_to_jiffies(rds_conn_idle_ms(rn)) / 2 + 1;
}

/**
 * rds_conn_arm_reaper - make sure idle connections will be reaped
 * @rn: namespace
 *
 * Context: any.
 */
void rds_conn_arm_reaper(struct rds_net *rn)
{
	if (!READ_ONCE(rn->conn_count) || READ_ONCE(rn->conns_closed))
		return;
	queue_delayed_work(rds_wq, &rn->reap_w, rds_conn_reap_period(rn));
}

/**
 * rds_conn_retune_reaper - net.rds.conn_idle_ms changed: rearm now
 * @rn: namespace
 *
 * Context: process context.
 */
void rds_conn_retune_reaper(struct rds_net *rn)
{
	if (!READ_ONCE(rn->conn_count) || READ_ONCE(rn->conns_closed))
		return;
	mod_delayed_work(rds_wq, &rn->reap_w, rds_conn_reap_period(rn));
}

/**
 * rds_conn_queue_delayed - schedule one of a connection's works
 * @conn: the connection
 * @dwork: &conn->c_send_w or &conn->c_conn_w
 * @delay: in jiffies
 *
 * Tested and queued under c_lock, where RDS_CONN_DESTROYING is set, so
 * no work is queued after rds_conn_kill() cancelled it.
 *
 * Context: any; c_lock not held.
 */
void rds_conn_queue_delayed(struct rds_connection *conn,
			    struct delayed_work *dwork, unsigned long delay)
{
	spin_lock_bh(&conn->c_lock);
	if (!test_bit(RDS_CONN_DESTROYING, &conn->c_flags))
		queue_delayed_work(rds_wq, dwork, delay);
	spin_unlock_bh(&conn->c_lock);
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

struct rds_conn_reset_req {
	const struct in6_addr *laddr;
	const struct in6_addr *faddr;	/* NULL: every peer */
	u8 tos;
};

static void rds_conn_reset_one(struct rds_connection *conn, void *arg)
{
	const struct rds_conn_reset_req *req = arg;

	/* The loopback transport has no path to reset; a connection
	 * between two local addresses over IB or TCP has one.
	 */
	if (conn->c_trans->type == RDS_TRANS_TYPE_LOOP ||
	    conn->c_tos != req->tos ||
	    !ipv6_addr_equal(&conn->c_laddr, req->laddr))
		return;
	if (req->faddr && !ipv6_addr_equal(&conn->c_faddr, req->faddr))
		return;
	rds_conn_drop_reason(conn, RDS_DROP_USER_RESET);
}

/**
 * rds_conn_reset - drop every lane of some connections (UEK's reset)
 * @rn: namespace
 * @laddr: their local address
 * @faddr: their peer's address; the unspecified address: every peer
 * @tos: their TOS
 *
 * They reconnect as after any drop: unacked messages are sent again.
 *
 * Context: process.
 */
void rds_conn_reset(struct rds_net *rn, const struct in6_addr *laddr,
		    const struct in6_addr *faddr, u8 tos)
{
	struct rds_conn_reset_req req = {
		.laddr = laddr,
		.faddr = ipv6_addr_any(faddr) ? NULL : faddr,
		.tos = tos,
	};

	rds_conn_for_each(rn, rds_conn_reset_one, &req);
}

struct rds_conn_each_of {
	const struct rds_transport *trans;
	void (*fn)(struct rds_connection *conn, void *arg);
	void *arg;
};

static void rds_conn_each_of_one(struct rds_connection *conn, void *arg)
{
	struct rds_conn_each_of *e = arg;

	if (conn->c_trans == e->trans)
		e->fn(conn, e->arg);
}

/**
 * rds_conn_walk_transport - call @fn on each connection of a transport
 * @net: namespace
 * @trans: the transport
 * @fn: callback; runs under the RCU read lock, must not sleep
 * @arg: passed to @fn
 */
void rds_conn_walk_transport(struct net *net,
			     const struct rds_transport *trans,
			     void (*fn)(struct rds_connection *conn, void *arg),
			     void *arg)
{
	struct rds_conn_each_of e = { .trans = trans, .fn = fn, .arg = arg };

	rds_conn_for_each(rds_net(net), rds_conn_each_of_one, &e);
}
EXPORT_SYMBOL_GPL(rds_conn_walk_transport);

/**
 * rds_conn_net_init - per-namespace connection state
 * @rn: namespace
 */
void rds_conn_net_init(struct rds_net *rn)
{
	int i;

	spin_lock_init(&rn->conn_lock);
	for (i = 0; i < ARRAY_SIZE(rn->conn_hash); i++) {
		INIT_HLIST_HEAD(&rn->conn_hash[i]);
		INIT_HLIST_HEAD(&rn->tomb_hash[i]);
	}
	INIT_LIST_HEAD(&rn->tomb_list);
	INIT_DELAYED_WORK(&rn->reap_w, rds_conn_reap_worker);
	for (i = 0; i < ARRAY_SIZE(rn->peer_hash); i++)
		INIT_HLIST_HEAD(&rn->peer_hash[i]);
	INIT_LIST_HEAD(&rn->peer_conns);
	INIT_LIST_HEAD(&rn->evict_list);
	INIT_WORK(&rn->evict_w, rds_conn_evict_worker);
}

int rds_conn_init(void)
{
	rds_lanes_init();
	return 0;
}

void rds_conn_exit(void)
{
	/* Namespaces destroyed theirs; transports pin rds.ko. */
	WARN_ON_ONCE(!list_empty(&rds_conn_all));
}
