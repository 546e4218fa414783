// SPDX-License-Identifier: GPL-2.0
/*
 * A peer's keys across routes. An adapter's key is valid on the device
 * that registered it only. When a connection between two of ours moves
 * to another route (rds_rdma_route.c) it lands on other devices, and an
 * RDMA there with a key from before the move is refused by the peer's
 * device: the queue pair breaks and the connection drops for every user
 * of it, and the reconnect resends the very messages that name such
 * keys. So the side that names a key says where it is valid, and the
 * side that would use it refuses it itself:
 *
 * - A message naming one of its sender's regions (RDS_EXTHDR_RDMA_DEST)
 *   carries RDS_RDMA_FLAG_KEY_AWAY when the region is not on the device
 *   of the route the message goes over, or is gone (freed, its socket
 *   closed: no device takes the key then).
 * - Its receiver remembers, per connection, the last keys it was named:
 *   in a table of buckets of RDS_RDMA_PEER_KEYS_WAYS slots, the bucket
 *   picked by the key and its oldest slot given to a new key, each with
 *   the id of the route (its peer address) the key came over, and
 *   whether it came "away".
 * - An RDMA operation (or atomic) with a remembered key is refused over
 *   another route than the one the key came over, or over the one it
 *   came away on: the core drops its message, reported
 *   RDS_RDMA_DROPPED, as a move drops the operations in flight, and the
 *   connection stays up. A key that came away is tried again on another
 *   route (the region may be on that one's device: a fail-back).
 *
 * A key the table does not remember (it came another way, or newer keys
 * took its bucket) goes as before. Only with peers that are ours with
 * routes (i_route.peer_ha): nothing else sets the flag, and a Linux
 * peer's keys never move; the table is forgotten when a peer stops
 * offering routes, and when it restarted (its advert shows another
 * token, rds_rdma_route.c).
 *
 * A route is told by its peer address, not by the peer's device: over a
 * route to another address on the same device (a second port of one
 * HCA) a key from before the move would still work, but is refused.
 *
 * Lock order: none of its own. A slot is one atomic64 (key, away bit,
 * route id), written under i_rx_lock only (the receive path, and the
 * forgetting) and read by the transmit path: a read racing a write may
 * miss a key, which then goes as before.
 */
#include <linux/hash.h>
#include <linux/jhash.h>
#include <net/rds/rdma.h>

#include "rds_rdma.h"

static bool rds_rdma_keys_on(struct rds_rdma_conn *ic)
{
	return READ_ONCE(ic->i_route.peer_ha);
}

#define RDS_RDMA_KEY_AWAY	BIT(31)
#define RDS_RDMA_KEY_ROUTE	(RDS_RDMA_KEY_AWAY - 1)

/**
 * rds_rdma_keys_route_id - the id a route's peer address has here
 * @faddr: the peer's address of the route
 *
 * Return: 31 bits, never 0.
 */
u32 rds_rdma_keys_route_id(const struct in6_addr *faddr)
{
	return (jhash(faddr, sizeof(*faddr), 0) & RDS_RDMA_KEY_ROUTE) | 1;
}

/* The device id regions registered on @dev carry (struct rds_mr). */
u32 rds_rdma_keys_where(const struct rds_rdma_dev *dev)
{
	return dev->ibdev->index + 1;
}

/**
 * rds_rdma_keys_away - must a message say its key is not valid here?
 * @conn: the connection it goes on
 * @rm: the message, naming one of its sender's regions
 *
 * Context: the transmit path.
 */
bool rds_rdma_keys_away(struct rds_connection *conn, struct rds_message *rm)
{
	struct rds_rdma_conn *ic = rds_rdma_conn(conn);

	if (!rm->m_rdma_cookie || !rds_rdma_keys_on(ic))
		return false;
	if (rds_rdma_cookie_is_at(rm, rds_rdma_keys_where(ic->i_dev)))
		return false;
	rds_rdma_stat_inc(RDS_RDMA_STAT_KEY_AWAY_SENT);
	return true;
}

static atomic64_t *rds_rdma_keys_bucket(struct rds_rdma_conn *ic, u32 key)
{
	return ic->i_peer_keys[hash_32(key, RDS_RDMA_PEER_KEYS_BITS)];
}

/**
 * rds_rdma_keys_forget - forget the keys a peer named
 * @ic: the connection, whose peer no longer offers routes or restarted
 *
 * A peer that restarted registers its regions anew: one of its new keys
 * may equal a remembered one and would be refused for the old key's
 * route.
 *
 * Context: i_rx_lock held, as by every writer of the table. A transmit
 * racing this may still find a key, as it may miss one racing
 * rds_rdma_keys_recv().
 */
void rds_rdma_keys_forget(struct rds_rdma_conn *ic)
{
	int i, j;

	lockdep_assert_held(&ic->i_rx_lock);
	for (i = 0; i < RDS_RDMA_PEER_KEYS; i++)
		for (j = 0; j < RDS_RDMA_PEER_KEYS_WAYS; j++)
			atomic64_set(&ic->i_peer_keys[i][j], 0);
	rds_rdma_stat_inc(RDS_RDMA_STAT_KEY_FORGOTTEN);
}

/**
 * rds_rdma_keys_recv - remember the key a received message names
 * @ic: the connection it came on
 * @hdr: its header (checksum good)
 *
 * Context: the receive path.
 */
void rds_rdma_keys_recv(struct rds_rdma_conn *ic, const struct rds_header *hdr)
{
	atomic64_t *b;
	u64 cookie;
	u32 key, id;
	int i;

	if (!rds_rdma_keys_on(ic))
		return;
	cookie = rds_rdma_hdr_cookie(hdr);
	key = rds_rdma_cookie_key(cookie);
	if (!key)
		return;
	id = READ_ONCE(ic->i_route.faddr_id);
	if (hdr->h_flags & RDS_RDMA_FLAG_KEY_AWAY)
		id |= RDS_RDMA_KEY_AWAY;
	lockdep_assert_held(&ic->i_rx_lock);
	/* Newest first: the key's own slot, else the oldest, moves up. */
	b = rds_rdma_keys_bucket(ic, key);
	for (i = 0; i < RDS_RDMA_PEER_KEYS_WAYS - 1; i++)
		if (atomic64_read(&b[i]) >> 32 == key)
			break;
	for (; i > 0; i--)
		atomic64_set(&b[i], atomic64_read(&b[i - 1]));
	atomic64_set(&b[0], (u64)key << 32 | id);
}

/**
 * rds_rdma_keys_refused - would the peer refuse @key on this route?
 * @ic: the connection
 * @key: an operation's remote key
 *
 * Context: the transmit path.
 */
bool rds_rdma_keys_refused(struct rds_rdma_conn *ic, u32 key)
{
	bool away, same;
	atomic64_t *b;
	u32 here;
	int i;
	u64 slot;

	if (!key || !rds_rdma_keys_on(ic))
		return false;
	here = READ_ONCE(ic->i_route.faddr_id);
	b = rds_rdma_keys_bucket(ic, key);
	for (i = 0; i < RDS_RDMA_PEER_KEYS_WAYS; i++) {
		slot = atomic64_read(&b[i]);
		if (slot >> 32 != key)
			continue;
		same = (slot & RDS_RDMA_KEY_ROUTE) == here;
		away = slot & RDS_RDMA_KEY_AWAY;
		/* Away: refused on the route it came over; else off it. */
		if (away != same)
			return false;
		rds_rdma_stat_inc(RDS_RDMA_STAT_KEY_REFUSED);
		return true;
	}
	return false;
}
