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

struct rds_transport;
struct rds_cong_map;

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
};

/**
 * struct rds_connection - a shared connection to one peer
 * @c_refs: the namespace's table and every user hold a reference; see
 *	net/connection.c for who does
 * @c_hash_node: in the namespace's connection hash (RCU)
 * @c_net: namespace
 * @c_laddr: local address (v4-mapped for IPv4)
 * @c_faddr: peer address
 * @c_dev_if: scope id for link-local IPv6, else 0
 * @c_tos: type of service
 * @c_isv6: the addresses are real IPv6 (not v4-mapped)
 * @c_loopback: the peer address is local
 * @c_trans: transport carrying the traffic
 * @c_transport_data: the transport's per-connection state
 * @c_state: RDS_CONN_*; changed with cmpxchg
 * @c_flags: RDS_CONN_* bits
 * @c_lock: protects the queues and sequence numbers below
 * @c_next_tx_seq: sequence of the next queued message
 * @c_send_queue: messages waiting for the transport
 * @c_retrans: messages sent and not yet acked
 * @c_next_rx_seq: next sequence expected from the peer (dups are older)
 * @c_lcong: congestion map of the local address
 * @c_fcong: congestion map of the peer address
 * @c_send_w: retries transmission from process context
 * @c_conn_w: (re)connects after a delay
 * @c_down_w: shuts the transport connection down, then reconnects
 * @c_reconnect_jiffies: current reconnect back-off
 * @c_waitq: woken when the transmit loop becomes free
 * @c_last_used: jiffies of the last message queued or received (reaping)
 * @c_rcu: frees the connection after lockless hash walkers are done
 * @c_xmit_map: tells lockdep that RDS_CONN_IN_XMIT is a lock (a trylock
 *	for senders, a full acquire for shutdown, which waits for it)
 */
struct rds_connection {
	refcount_t		c_refs;
	struct hlist_node	c_hash_node;
	possible_net_t		c_net;
	struct in6_addr		c_laddr;
	struct in6_addr		c_faddr;
	int			c_dev_if;
	u8			c_tos;
	bool			c_isv6;
	bool			c_loopback;
	const struct rds_transport *c_trans;
	void			*c_transport_data;

	atomic_t		c_state;
	unsigned long		c_flags;

	spinlock_t		c_lock;		/* queues, sequences */
	u64			c_next_tx_seq;
	struct list_head	c_send_queue;
	struct list_head	c_retrans;
	u64			c_next_rx_seq;

	struct rds_cong_map	*c_lcong;
	struct rds_cong_map	*c_fcong;

	struct delayed_work	c_send_w;
	struct delayed_work	c_conn_w;
	struct work_struct	c_down_w;
	unsigned long		c_reconnect_jiffies;
	wait_queue_head_t	c_waitq;
	unsigned long		c_last_used;
	struct rcu_head		c_rcu;
#ifdef CONFIG_LOCKDEP
	struct lockdep_map	c_xmit_map;
#endif
};

static inline struct net *rds_conn_net(const struct rds_connection *conn)
{
	return read_pnet(&conn->c_net);
}

static inline enum rds_conn_state rds_conn_state(struct rds_connection *conn)
{
	return atomic_read(&conn->c_state);
}

/* Note a use, for idle reaping; cheap when called often. */
static inline void rds_conn_touch(struct rds_connection *conn)
{
	unsigned long now = jiffies;

	if (READ_ONCE(conn->c_last_used) != now)
		WRITE_ONCE(conn->c_last_used, now);
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
	lock_map_acquire_try(&conn->c_xmit_map);
	return true;
}

static inline void rds_conn_xmit_unlock(struct rds_connection *conn)
{
	lock_map_release(&conn->c_xmit_map);
	clear_bit_unlock(RDS_CONN_IN_XMIT, &conn->c_flags);
}

bool rds_conn_transition(struct rds_connection *conn,
			 enum rds_conn_state from, enum rds_conn_state to);
void rds_conn_get(struct rds_connection *conn);
void rds_conn_put(struct rds_connection *conn);
bool rds_addr_is_local(struct net *net, const struct in6_addr *addr,
		       int dev_if);
void rds_connect_complete(struct rds_connection *conn);
void rds_conn_drop(struct rds_connection *conn);
void rds_conn_destroy_transport(const struct rds_transport *trans);

void rds_send_drop_acked(struct rds_connection *conn, u64 ack);
void rds_send_kick(struct rds_connection *conn);

#endif /* _NET_RDS_CONNECTION_H */
