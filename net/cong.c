// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion maps: one bit per port for each address, set while the
 * socket bound there holds more than its receive budget. Senders check
 * the destination's bit before queueing, so a receiver that does not read
 * stops its senders instead of growing without bound. On loopback the
 * sender and receiver see the same map object.
 *
 * Maps live until their namespace dies (one per address ever used).
 */
#include <linux/slab.h>
#include <net/ipv6.h>

#include "rds_core.h"

struct rds_cong_map {
	struct list_head	m_item;		/* rds_net->cong_maps */
	struct in6_addr		m_addr;
	unsigned long		m_bits[RDS_CONG_MAP_BYTES / sizeof(unsigned long)];
};

/**
 * rds_cong_map_get - the congestion map of an address, created on demand
 * @rn: namespace
 * @addr: address
 *
 * Context: process context (allocates with GFP_KERNEL).
 * Return: the map, valid until the namespace dies, or NULL.
 */
struct rds_cong_map *rds_cong_map_get(struct rds_net *rn,
				      const struct in6_addr *addr)
{
	struct rds_cong_map *map, *new;

	spin_lock_bh(&rn->cong_lock);
	list_for_each_entry(map, &rn->cong_maps, m_item)
		if (ipv6_addr_equal(&map->m_addr, addr))
			goto out;
	spin_unlock_bh(&rn->cong_lock);

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return NULL;
	new->m_addr = *addr;

	spin_lock_bh(&rn->cong_lock);
	list_for_each_entry(map, &rn->cong_maps, m_item)
		if (ipv6_addr_equal(&map->m_addr, addr))
			goto out;
	list_add_tail(&new->m_item, &rn->cong_maps);
	map = new;
	new = NULL;
	rds_obj_inc(RDS_OBJ_CONG_MAP);
out:
	spin_unlock_bh(&rn->cong_lock);
	kfree(new);
	return map;
}

void rds_cong_net_exit(struct rds_net *rn)
{
	struct rds_cong_map *map, *tmp;

	list_for_each_entry_safe(map, tmp, &rn->cong_maps, m_item) {
		list_del(&map->m_item);
		kfree(map);
		rds_obj_dec(RDS_OBJ_CONG_MAP);
	}
}

bool rds_cong_test(struct rds_cong_map *map, __be16 port)
{
	return test_bit_le(be16_to_cpu(port), map->m_bits);
}

/* Tell RDS_CONG_MONITOR sockets that @port of @map is free again. */
static void rds_cong_notify_monitors(struct rds_net *rn, __be16 port)
{
	u64 bit = RDS_CONG_MONITOR_MASK(be16_to_cpu(port));
	struct rds_sock *rs;

	spin_lock_bh(&rn->sock_lock);
	list_for_each_entry(rs, &rn->sock_list, rs_item) {
		if (!READ_ONCE(rs->rs_cong_monitor))
			continue;
		spin_lock(&rs->rs_lock);
		if (rs->rs_cong_mask & bit) {
			rs->rs_cong_notify |= bit;
			spin_unlock(&rs->rs_lock);
			rds_wake_sk(rs);
			continue;
		}
		spin_unlock(&rs->rs_lock);
	}
	spin_unlock_bh(&rn->sock_lock);
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
 * Return: true if the port just became uncongested: the caller must then
 * call rds_cong_uncongested() once it dropped rs_lock.
 */
bool rds_cong_update_locked(struct rds_sock *rs)
{
	struct rds_cong_map *map = rs->rs_cong_map;
	unsigned int port = be16_to_cpu(rs->rs_bound.port);
	bool congested;

	lockdep_assert_held(&rs->rs_lock);
	if (!map)
		return false;
	if (rs->rs_congested)
		congested = rs->rs_rcv_bytes >= rds_sk_rcvbuf(rs) / 2;
	else
		congested = rs->rs_rcv_bytes > rds_sk_rcvbuf(rs);
	if (congested == rs->rs_congested)
		return false;

	rs->rs_congested = congested;
	if (congested)
		set_bit_le(port, map->m_bits);
	else
		clear_bit_le(port, map->m_bits);
	atomic_inc(&rds_net(rds_sock_net(rs))->cong_gen);
	return !congested;
}

/**
 * rds_cong_uncongested - tell waiters that @rs's port is free again
 * @rs: the socket rds_cong_update_locked() reported on
 *
 * Context: any; no RDS spinlock held.
 */
void rds_cong_uncongested(struct rds_sock *rs)
{
	struct rds_net *rn = rds_net(rds_sock_net(rs));

	rds_cong_notify_monitors(rn, rs->rs_bound.port);
	wake_up_interruptible_all(&rn->cong_waitq);
}

/**
 * rds_cong_wait - may a message go to @port of @map?
 * @rn: namespace
 * @map: the destination address's map
 * @port: destination port
 * @nonblock: fail with -ENOBUFS instead of waiting
 * @rs: sending socket
 *
 * Context: process context; sleeps unless @nonblock.
 * Return: 0 when the port is not congested, -ENOBUFS, or -ERESTARTSYS.
 */
int rds_cong_wait(struct rds_net *rn, struct rds_cong_map *map, __be16 port,
		  bool nonblock, struct rds_sock *rs)
{
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
	return wait_event_interruptible(rn->cong_waitq,
					!rds_cong_test(map, port));
}
