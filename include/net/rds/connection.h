/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connections: one per (local address, peer address, TOS, transport) in a
 * network namespace, shared by every socket that talks to that peer. The
 * core owns the send and retransmit queues, sequence numbers and the state
 * machine; the transport moves bytes and reports state changes.
 */
#ifndef _NET_RDS_CONNECTION_H
#define _NET_RDS_CONNECTION_H

#include <linux/in6.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/rds/compat.h>
#include <net/rds/drop.h>

struct rds_transport;
struct rds_conn_peer;
struct rds_cong_map;
struct rds_net;

/**
 * struct rds_conn_hist - a lane's history, for RDS_INFO_CONN_PATHS
 * @attempt_ms: when the last connect attempt began (CLOCK_REALTIME ms)
 * @connect_ms: when it last came up
 * @reset_ms: when it last went down from up
 * @attempts: connect attempts since it last went down from up
 * @attempts_total: connect attempts ever
 * @resets: times it went down from up
 * @drops: times it was dropped (up, connecting or down)
 * @reason: enum rds_drop_reason of the last drop
 * @reset_reason: the reason of the last drop from up
 *
 * Each field has one writer at a time, the winner of a state change
 * (the connect worker under c_cm_mutex for the attempts, the
 * transition to UP or ERROR for the rest); readers take a snapshot
 * with READ_ONCE() and may see two fields of different moments.
 */
struct rds_conn_hist {
	u64	attempt_ms;
	u64	connect_ms;
	u64	reset_ms;
	u32	attempts;
	u32	attempts_total;
	u32	resets;
	u32	drops;
	u32	reason;
	u32	reset_reason;
};

enum rds_conn_state {
	RDS_CONN_DOWN,
	RDS_CONN_CONNECTING,
	RDS_CONN_UP,
	RDS_CONN_DISCONNECTING,
	RDS_CONN_ERROR,
};

/* c_flags bits */
enum {
	RDS_CONN_IN_XMIT,	/* one sender at a time runs the transmit loop */
	RDS_CONN_DESTROYING,	/* unhashed, being killed: queue nothing new,
				 * schedule no work; set under c_lock
				 */
	RDS_CONN_WANT_CONNECT,	/* reconnect after shutdown even with
				 * nothing queued (the peer connected)
				 */
	RDS_CONN_CONG_QUEUED,	/* our congestion map changed: send it */
	RDS_CONN_XMIT_KICKED,	/* rds_send_kick() since the transmit loop
				 * last looked
				 */
	RDS_CONN_WAS_UP,	/* came up since the last shutdown */
	RDS_CONN_PROBE_SENT,	/* lane 0: our multipath probe is out and
				 * unanswered; no other is sent meanwhile
				 */
	RDS_CONN_PEER_COUNTED,	/* lane 0: the peer answered our probe
				 * since lane 0 last came up, so it knows
				 * our lane count and ids
				 */
};

/**
 * struct rds_connection - a shared connection to one peer
 * @c_net: namespace
 * @c_laddr: local address (v4-mapped for IPv4)
 * @c_faddr: peer address
 * @c_dev_if: scope id for link-local IPv6, else 0
 * @c_tos: type of service
 * @c_isv6: the addresses are real IPv6 (not v4-mapped)
 * @c_lane: which lane of the peer this is (part of the key); lane 0
 *	exists first and carries the multipath state below
 * @c_trans: transport carrying the traffic
 * @c_state: RDS_CONN_*; changed with cmpxchg
 * @c_flags: RDS_CONN_* bits
 * @c_send_queue: messages waiting for the transport (under @c_lock;
 *	transports only test whether it is empty)
 * @c_next_rx_seq: next sequence expected from the peer (dups are older);
 *	written by the receive path, which is serialized per connection
 * @c_npaths: lane 0: lanes the peer offers (its LANES extension if it has
 *	lane ids, else its NPATHS), from its last probe or pong; 0 until
 *	known. Written with release after @c_peer_ids.
 * @c_xmit_map: tells lockdep that RDS_CONN_IN_XMIT is a lock (a trylock
 *	for senders, a full acquire for shutdown, which waits for it)
 * @c_refs: the namespace's table and every user hold a reference; see
 *	net/connection.c for who does
 * @c_hash_node: in the namespace's connection hash (RCU)
 * @c_loopback: the peer address is local
 * @c_lock: protects @c_send_queue, @c_retrans and the sequence numbers
 * @c_next_tx_seq: sequence of the next queued message
 * @c_retrans: messages sent and not yet acked
 * @c_xmit_rm: message the transport stopped in the middle of, with a
 *	reference; only the transmit loop (transmit lock) and shutdown
 *	touch it
 * @c_xmit_pos: the transport's position in @c_xmit_rm
 * @c_pongs: pongs queued and not yet freed: a peer that pings without
 *	reading the answers gets no more beyond RDS_MAX_PONGS
 * @c_peer_ids: lane 0: the peer names its lanes when it connects them
 * @c_peer_gen: lane 0: the GEN_NUM the peer last sent (0: none yet);
 *	another value means it restarted (lanes.c)
 * @c_lane0: for a lane other than 0, lane 0 of the same peer, with a
 *	reference: no lane outlives its lane 0
 * @c_nlanes: lane 0: how many other lanes hold a reference to it
 * @c_lcong: congestion map of the local address
 * @c_fcong: congestion map of the peer address
 * @c_send_w: retries transmission from process context
 * @c_conn_w: (re)connects after a delay
 * @c_down_w: shuts the transport connection down, then reconnects
 * @c_timeout_w: drops a connection attempt that is not up in time
 * @c_cm_mutex: serializes the transport's conn_connect and conn_shutdown
 *	(the connect and down workers may run at once on rds_wq): an attempt
 *	never starts after, or runs alongside, the shutdown that follows it
 * @c_lanes_w: lane 0: connects the other lanes (the lower address does)
 * @c_reconnect_jiffies: current reconnect back-off
 * @c_waitq: woken when the transmit loop becomes free
 * @c_last_used: jiffies of the last message queued or received (reaping)
 * @c_cached: how many of @c_refs are sockets remembering their last
 *	destination: those do not keep an idle connection alive
 * @c_rcu: frees the connection after lockless hash walkers are done
 * @c_all_item: on the list of every connection (connection.c)
 * @c_kill_item: on a killer's private list (connection.c)
 * @c_free_w: frees the connection from process context
 * @c_lanes_gen: lane 0: value of lanes.c's generation when this peer's
 *	lane count last changed (0: never); sockets sending to other peers
 *	do not look at it
 * @c_peer: made for a peer's attempt: the peer it counts against
 *	(connection.c, under the namespace's conn_lock)
 * @c_peer_item: lane 0 made for a peer: on the namespace's peer_conns
 * @c_hist: history and last drop reason (rds-info -p)
 * @c_rn: the namespace's RDS state (rds_conn_rn())
 * @c_rx_rs: the socket the receive path last delivered to, without a
 *	reference: valid only while the namespace's bind_gen equals
 *	@c_rx_rs_gen (bind.c); written by the receive path only
 * @c_rx_rs_gen: bind_gen when @c_rx_rs was looked up
 * @c_tdata: the transport's per-connection state, conn_data_size bytes
 *
 * Transports read the fields down to @c_xmit_map (the last through
 * the transmit lock's helpers); the rest is the core's (connection.c,
 * lanes.c, send.c), here only because the core allocates a connection
 * and its transport state (@c_tdata) as one object.
 */
struct rds_connection {
	/* What transports read. */
	possible_net_t		c_net;
	struct in6_addr		c_laddr;
	struct in6_addr		c_faddr;
	int			c_dev_if;
	u8			c_tos;
	bool			c_isv6;
	u8			c_lane;
	const struct rds_transport *c_trans;
	atomic_t		c_state;
	unsigned long		c_flags;
	struct list_head	c_send_queue;
	u64			c_next_rx_seq;
	u8			c_npaths;
#ifdef CONFIG_LOCKDEP
	struct lockdep_map	c_xmit_map;
#endif

	/* Core private: see the comment above. */
	refcount_t		c_refs;
	struct hlist_node	c_hash_node;
	bool			c_loopback;
	spinlock_t		c_lock;		/* queues, sequences */
	u64			c_next_tx_seq;
	struct list_head	c_retrans;
	struct rds_message	*c_xmit_rm;
	unsigned int		c_xmit_pos;
	atomic_t		c_pongs;
	bool			c_peer_ids;
	u32			c_peer_gen;
	struct rds_connection	*c_lane0;
	atomic_t		c_nlanes;
	struct rds_cong_map	*c_lcong;
	struct rds_cong_map	*c_fcong;
	struct delayed_work	c_send_w;
	struct delayed_work	c_conn_w;
	struct work_struct	c_down_w;
	struct delayed_work	c_timeout_w;
	struct mutex		c_cm_mutex;	/* connect vs shutdown */
	struct delayed_work	c_lanes_w;
	unsigned long		c_reconnect_jiffies;
	wait_queue_head_t	c_waitq;
	unsigned long		c_last_used;
	atomic_t		c_cached;
	struct rcu_head		c_rcu;
	struct list_head	c_all_item;
	struct list_head	c_kill_item;
	struct work_struct	c_free_w;
	unsigned long		c_lanes_gen;
	struct rds_conn_peer	*c_peer;
	struct list_head	c_peer_item;
	struct rds_conn_hist	c_hist;
	struct rds_net		*c_rn;
	struct rds_sock		*c_rx_rs;
	u64			c_rx_rs_gen;
	u64			c_tdata[];
};

/* The transport's per-connection state (rds_transport.conn_data_size). */
static inline void *rds_conn_tdata(struct rds_connection *conn)
{
	return conn->c_tdata;
}

/* The connection whose transport state is @tdata. */
static inline struct rds_connection *rds_conn_from_tdata(void *tdata)
{
	return container_of(tdata, struct rds_connection, c_tdata);
}

static inline struct net *rds_conn_net(const struct rds_connection *conn)
{
	return read_pnet(&conn->c_net);
}

static inline enum rds_conn_state rds_conn_state(struct rds_connection *conn)
{
	return atomic_read(&conn->c_state);
}

/**
 * rds_conn_xmit_trylock - take the transmit bit-lock of a connection
 * @conn: the connection
 *
 * Return: true if the caller now runs the transmit loop alone.
 */
static inline bool rds_conn_xmit_trylock(struct rds_connection *conn)
{
	if (test_and_set_bit_lock(RDS_CONN_IN_XMIT, &conn->c_flags))
		return false;
	rds_lock_map_acquire_try(&conn->c_xmit_map);
	return true;
}

static inline void rds_conn_xmit_unlock(struct rds_connection *conn)
{
	lock_map_release(&conn->c_xmit_map);
	clear_bit_unlock(RDS_CONN_IN_XMIT, &conn->c_flags);
}

/**
 * rds_conn_assert_xmit_held - the caller runs @conn's transmit loop
 * @conn: the connection
 *
 * For code that touches transmit state (the core's c_xmit_rm, a
 * transport's send ring or cork). Checked only in lockdep kernels: the
 * bit must be set and lockdep must see this task holding it.
 */
static inline void rds_conn_assert_xmit_held(struct rds_connection *conn)
{
#ifdef CONFIG_LOCKDEP
	WARN_ON_ONCE(!test_bit(RDS_CONN_IN_XMIT, &conn->c_flags));
	lockdep_assert(lock_is_held(&conn->c_xmit_map));
#endif
}

/**
 * rds_conn_assert_xmit_quiet - transmit state is the caller's alone
 * @conn: the connection
 *
 * The caller runs the transmit loop, or shuts @conn down: c_cm_mutex
 * held and the connection DISCONNECTING (after the shutdown waited for
 * the transmit bit) or DOWN (a final shutdown). The bit itself is not
 * asserted clear there: a sender may still take it for a moment, see
 * the connection is not UP and leave, touching nothing.
 */
static inline void rds_conn_assert_xmit_quiet(struct rds_connection *conn)
{
#ifdef CONFIG_LOCKDEP
	enum rds_conn_state state = atomic_read(&conn->c_state);

	if (lock_is_held(&conn->c_xmit_map))
		return;
	lockdep_assert_held(&conn->c_cm_mutex);
	WARN_ON_ONCE(state != RDS_CONN_DISCONNECTING && state != RDS_CONN_DOWN);
#endif
}

struct rds_connection *rds_conn_find(struct net *net,
				     const struct in6_addr *laddr,
				     const struct in6_addr *faddr,
				     const struct rds_transport *trans,
				     u8 tos, int dev_if);
struct rds_connection *rds_conn_accept(struct net *net,
				       const struct in6_addr *laddr,
				       const struct in6_addr *faddr,
				       const struct rds_transport *trans,
				       u8 tos, int dev_if, gfp_t gfp);
struct rds_connection *rds_conn_accept_lane(struct rds_connection *conn0,
					    unsigned int lane, gfp_t gfp);
unsigned int rds_conn_lanes(struct rds_connection *conn0, bool *ids);
void rds_conn_lanes_retune(struct rds_connection *conn0);
bool rds_conn_transition(struct rds_connection *conn,
			 enum rds_conn_state from, enum rds_conn_state to);
void rds_conn_want_connect(struct rds_connection *conn);
void rds_conn_walk_transport(struct net *net,
			     const struct rds_transport *trans,
			     void (*fn)(struct rds_connection *conn, void *arg),
			     void *arg);
void rds_conn_get(struct rds_connection *conn);
void rds_conn_put(struct rds_connection *conn);
bool rds_addr_is_local(struct net *net, const struct in6_addr *addr,
		       int dev_if);
void rds_connect_complete(struct rds_connection *conn);
void rds_conn_unacked_limits(const struct rds_connection *conn,
			     u32 *packets, u32 *bytes);
void rds_conn_destroy_transport(const struct rds_transport *trans,
				struct net *net);

/* Is @conn's peer address the higher one? That side never initiates. */
static inline bool rds_conn_peer_is_lower(const struct rds_connection *conn)
{
	return memcmp(&conn->c_faddr, &conn->c_laddr,
		      sizeof(conn->c_laddr)) < 0;
}

void rds_send_drop_acked(struct rds_connection *conn, u64 ack);
void rds_send_drop_rdma_of(struct rds_connection *conn,
			   struct rds_message *failed);
void rds_send_drop_acked_fn(struct rds_connection *conn,
			    bool (*acked)(struct rds_message *rm, u64 arg),
			    u64 arg);
void rds_send_kick(struct rds_connection *conn);

#endif /* _NET_RDS_CONNECTION_H */
