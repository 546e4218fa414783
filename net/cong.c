// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion maps: one bit per port for each address, set while the
 * socket bound there holds more than its receive budget. Senders check
 * the destination's bit before queueing, so a receiver that does not read
 * stops its senders instead of growing without bound. On loopback the
 * sender and receiver see the same map object.
 *
 * A map lives while anyone uses it: the socket bound to its address
 * (rs_cong_map) and every connection from or to the address (c_lcong,
 * c_fcong) hold a reference, so idle peers cost nothing once their
 * connections are reaped.
 *
 * This file is the store: the maps, their bits and the waits on them,
 * below connections and sending. Telling peers about changes and taking
 * in theirs is cong_update.c's; the update message is built in
 * message.c.
 *
 * Locks: rds_net->cong_lock alone (the hash and the maps' references);
 * rds_net->sock_lock, then a monitoring socket's rs_lock (the monitor
 * walk).
 */
#include <linux/jhash.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "rds_core.h"

struct rds_cong_map {
	struct hlist_node	m_hash_node;	/* rds_net->cong_hash */
	refcount_t		m_refs;		/* changed under cong_lock */
	struct in6_addr		m_addr;
	unsigned long		*m_bits;	/* RDS_CONG_MAP_BYTES */
};

static struct hlist_head *rds_cong_bucket(struct rds_net *rn,
					  const struct in6_addr *addr)
{
	return &rn->cong_hash[hash_32(jhash(addr, sizeof(*addr),
					    rn->hash_seed),
				      RDS_CONG_HASH_BITS)];
}

static struct rds_cong_map *rds_cong_find_locked(struct rds_net *rn,
						 const struct in6_addr *addr)
{
	struct rds_cong_map *map;

	lockdep_assert_held(&rn->cong_lock);
	hlist_for_each_entry(map, rds_cong_bucket(rn, addr), m_hash_node) {
		if (ipv6_addr_equal(&map->m_addr, addr)) {
			refcount_inc(&map->m_refs);
			return map;
		}
	}
	return NULL;
}

static void rds_cong_map_free(struct rds_cong_map *map)
{
	kfree(map->m_bits);
	kfree(map);
	rds_obj_dec(RDS_OBJ_CONG_MAP);
}

/**
 * rds_cong_map_get - the congestion map of an address, created on demand
 * @rn: namespace
 * @addr: address
 *
 * Context: process context (allocates with GFP_KERNEL).
 * Return: the map with a reference (rds_cong_map_put() it), or NULL.
 */
struct rds_cong_map *rds_cong_map_get(struct rds_net *rn,
				      const struct in6_addr *addr)
{
	struct rds_cong_map *map, *new;

	spin_lock_bh(&rn->cong_lock);
	map = rds_cong_find_locked(rn, addr);
	spin_unlock_bh(&rn->cong_lock);
	if (map)
		return map;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return NULL;
	new->m_bits = kzalloc(RDS_CONG_MAP_BYTES, GFP_KERNEL_ACCOUNT);
	if (!new->m_bits) {
		kfree(new);
		return NULL;
	}
	new->m_addr = *addr;
	refcount_set(&new->m_refs, 1);
	rds_obj_inc(RDS_OBJ_CONG_MAP);

	spin_lock_bh(&rn->cong_lock);
	map = rds_cong_find_locked(rn, addr);
	if (!map) {
		hlist_add_head(&new->m_hash_node, rds_cong_bucket(rn, addr));
		map = new;
		new = NULL;
	}
	spin_unlock_bh(&rn->cong_lock);
	if (new)
		rds_cong_map_free(new);
	return map;
}

/**
 * rds_cong_map_put - drop a reference from rds_cong_map_get()
 * @rn: namespace of the map
 * @map: the map, or NULL
 *
 * Context: any.
 */
void rds_cong_map_put(struct rds_net *rn, struct rds_cong_map *map)
{
	bool last;

	if (!map)
		return;
	spin_lock_bh(&rn->cong_lock);
	last = refcount_dec_and_test(&map->m_refs);
	if (last)
		hlist_del(&map->m_hash_node);
	spin_unlock_bh(&rn->cong_lock);
	if (last)
		rds_cong_map_free(map);
}

void rds_cong_net_exit(struct rds_net *rn)
{
	struct rds_cong_map *map;
	struct hlist_node *tmp;
	int i;

	/* Sockets and connections are gone and gave theirs back. */
	for (i = 0; i < ARRAY_SIZE(rn->cong_hash); i++) {
		hlist_for_each_entry_safe(map, tmp, &rn->cong_hash[i],
					  m_hash_node) {
			WARN_ON_ONCE(1);
			hlist_del(&map->m_hash_node);
			rds_cong_map_free(map);
		}
	}
}

/**
 * rds_cong_any - is any port of @map congested?
 * @map: a map
 *
 * Context: any.
 */
bool rds_cong_any(struct rds_cong_map *map)
{
	return find_first_bit(map->m_bits, RDS_CONG_MAP_BYTES * 8) <
	       RDS_CONG_MAP_BYTES * 8;
}

bool rds_cong_test(struct rds_cong_map *map, __be16 port)
{
	return test_bit_le(be16_to_cpu(port), map->m_bits);
}

/* The map as it goes on the wire: RDS_CONG_MAP_BYTES, little-endian bits. */
const u8 *rds_cong_bits(const struct rds_cong_map *map)
{
	return (const u8 *)map->m_bits;
}

/**
 * rds_cong_monitor_set - RDS_CONG_MONITOR was turned on or off
 * @rs: the socket
 * @on: its new setting
 *
 * Monitoring sockets are listed apart, so that a freed port (a peer's
 * map, as often as it likes to send one) costs a look at each of them,
 * not at every socket of the namespace with bottom halves off.
 *
 * Context: process context, no RDS lock held.
 */
void rds_cong_monitor_set(struct rds_sock *rs, bool on)
{
	struct rds_net *rn = rds_sock_rn(rs);

	spin_lock_bh(&rn->sock_lock);
	spin_lock(&rs->rs_lock);
	WRITE_ONCE(rs->rs_cong_monitor, on);
	if (!on) {
		rs->rs_cong_mask = 0;
		rs->rs_cong_notify = 0;
	}
	spin_unlock(&rs->rs_lock);
	if (!on)
		list_del_init(&rs->rs_cong_mon_item);
	else if (list_empty(&rs->rs_cong_mon_item))
		list_add_tail(&rs->rs_cong_mon_item, &rn->cong_mon_list);
	spin_unlock_bh(&rn->sock_lock);
}

/* Tell RDS_CONG_MONITOR sockets that ports in @bits (RDS_CONG_MONITOR_MASK
 * bits) are free again.
 */
void rds_cong_notify_monitors(struct rds_net *rn, u64 bits)
{
	unsigned int visits = 0;
	struct rds_sock *rs;

	spin_lock_bh(&rn->sock_lock);
	list_for_each_entry(rs, &rn->cong_mon_list, rs_cong_mon_item) {
		visits++;
		if (!READ_ONCE(rs->rs_cong_monitor))
			continue;
		spin_lock(&rs->rs_lock);
		if (rs->rs_cong_mask & bits) {
			rs->rs_cong_notify |= rs->rs_cong_mask & bits;
			spin_unlock(&rs->rs_lock);
			rds_wake_sk(rs);
			continue;
		}
		spin_unlock(&rs->rs_lock);
	}
	spin_unlock_bh(&rn->sock_lock);
	rds_stats_add(rn, RDS_STAT_CONG_MONITOR_VISITS, visits);
}

/**
 * rds_cong_update_locked - re-evaluate a socket's congestion bit
 * @rs: a socket whose receive queue grew or shrank
 *
 * As Linux's RDS: congested above half of SO_RCVBUF, uncongested again
 * below a quarter (the gap keeps the bit from flapping), on every
 * transport.
 *
 * Context: rs_lock held.
 * Return: whether the port's bit changed: if so, the caller must call
 * rds_cong_changed() once it dropped rs_lock.
 */
enum rds_cong_change rds_cong_update_locked(struct rds_sock *rs)
{
	struct rds_cong_map *map = rs->rs_cong_map;
	unsigned int port = be16_to_cpu(rs->rs_bound.port);
	bool congested;

	lockdep_assert_held(&rs->rs_lock);
	if (!map)
		return RDS_CONG_SAME;
	if (rs->rs_congested)
		congested = rs->rs_rcv_bytes >= rds_sk_rcvbuf(rs) / 2;
	else
		congested = rs->rs_rcv_bytes > rds_sk_rcvbuf(rs);
	if (congested == rs->rs_congested)
		return RDS_CONG_SAME;

	rs->rs_congested = congested;
	if (congested)
		set_bit_le(port, map->m_bits);
	else
		clear_bit_le(port, map->m_bits);
	atomic_inc(&rds_sock_rn(rs)->cong_gen);
	return congested ? RDS_CONG_SET : RDS_CONG_CLEARED;
}

/* Store a peer's map in @map; return the RDS_CONG_MONITOR_MASK bits of
 * the ports that went from congested to free.
 */
u64 rds_cong_store(struct rds_cong_map *map, const u8 *new)
{
	unsigned long *bits = map->m_bits;
	unsigned int i, b, nwords = RDS_CONG_MAP_BYTES / sizeof(long);
	unsigned long old, val, freed;
	u64 mask = 0;

	for (i = 0; i < nwords; i++) {
		memcpy(&val, new + i * sizeof(long), sizeof(long));
		old = READ_ONCE(bits[i]);
		if (old == val)
			continue;
		WRITE_ONCE(bits[i], val);
		freed = old & ~val;
		if (!freed)
			continue;
		/* The map's bit order is little-endian per byte: go by bytes. */
		for (b = 0; b < sizeof(long); b++) {
			u8 ob = ((u8 *)&old)[b], nb = ((u8 *)&val)[b];
			unsigned int port = (i * sizeof(long) + b) * 8, k;

			for (k = 0; k < 8; k++)
				if ((ob & ~nb) & BIT(k))
					mask |= RDS_CONG_MONITOR_MASK(port + k);
		}
	}
	return mask;
}

/**
 * rds_cong_wait - may a message go to @port of @map?
 * @rn: namespace
 * @map: the destination address's map
 * @port: destination port
 * @nonblock: fail with -ENOBUFS instead of waiting
 * @rs: sending socket
 * @timeo: in: how long to wait (SO_SNDTIMEO); out: what is left
 *
 * Context: process context; sleeps unless @nonblock.
 * Return: 0 when the port is not congested, -ENOBUFS, -ETIMEDOUT or
 * -ERESTARTSYS.
 */
int rds_cong_wait(struct rds_net *rn, struct rds_cong_map *map, __be16 port,
		  bool nonblock, struct rds_sock *rs, long *timeo)
{
	long left;

	if (!rds_cong_test(map, port))
		return 0;

	WRITE_ONCE(rs->rs_cong_track, atomic_read(&rn->cong_gen));
	WRITE_ONCE(rs->rs_seen_congestion, true);
	if (nonblock) {
		if (READ_ONCE(rs->rs_cong_monitor)) {
			spin_lock_bh(&rs->rs_lock);
			rs->rs_cong_mask |=
				RDS_CONG_MONITOR_MASK(be16_to_cpu(port));
			spin_unlock_bh(&rs->rs_lock);
			/* It may have cleared before the mask was set. */
			if (!rds_cong_test(map, port))
				return 0;
		}
		rds_stats_inc(rn, RDS_STAT_CONG_SEND_ERROR);
		return -ENOBUFS;
	}

	rds_stats_inc(rn, RDS_STAT_CONG_SEND_BLOCKED);
	left = wait_event_interruptible_timeout(rn->cong_waitq,
						!rds_cong_test(map, port),
						*timeo);
	if (left < 0)
		return left;
	if (!left)
		return -ETIMEDOUT;	/* SO_SNDTIMEO ran out, as Linux's send wait */
	if (*timeo != MAX_SCHEDULE_TIMEOUT)
		*timeo = left;
	return 0;
}
