// SPDX-License-Identifier: GPL-2.0
/*
 * bind(): address validation, transport choice and the per-namespace table
 * of bound (address, port, scope) tuples.
 */
#include <linux/random.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "rds_core.h"

static const struct rhashtable_params rds_bind_params = {
	.key_len		= sizeof(struct rds_bind_key),
	.key_offset		= offsetof(struct rds_sock, rs_bound),
	.head_offset		= offsetof(struct rds_sock, rs_bound_node),
	.automatic_shrinking	= true,
};

static void rds_bind_key_set(struct rds_bind_key *key,
			     const struct in6_addr *addr, __be16 port,
			     u32 scope_id)
{
	memset(key, 0, sizeof(*key));
	key->addr = *addr;
	key->port = port;
	key->scope_id = scope_id;
}

/**
 * rds_find_bound - look up the socket bound to an address and port
 * @rn: namespace
 * @addr: local address
 * @port: local port
 * @scope_id: scope for link-local IPv6, else 0
 *
 * Context: any; takes the RCU read lock itself.
 * Return: the socket with a reference held (sock_put() it), or NULL.
 */
struct rds_sock *rds_find_bound(struct rds_net *rn, const struct in6_addr *addr,
				__be16 port, u32 scope_id)
{
	struct rds_bind_key key;
	struct rds_sock *rs;

	rds_bind_key_set(&key, addr, port, scope_id);
	rcu_read_lock();
	rs = rhashtable_lookup(&rn->bind_table, &key, rds_bind_params);
	if (rs && (sock_flag(rds_rs_to_sk(rs), SOCK_DEAD) ||
		   !refcount_inc_not_zero(&rds_rs_to_sk(rs)->sk_refcnt)))
		rs = NULL;
	rcu_read_unlock();
	return rs;
}

/**
 * rds_find_bound_rx - rds_find_bound() for a connection's receive path
 * @rn: namespace of @conn
 * @conn: the connection a message arrived on; its receive path is
 *	serialized, so the cache in it has one writer
 * @addr: local address
 * @port: local port
 *
 * A stream of messages goes to one socket: the last one found is
 * remembered in @conn (no reference) with the namespace's bind_gen. While
 * bind_gen is unchanged, no socket left the bind table since the lookup,
 * so that socket is still hashed under its key (keys never change while
 * hashed) and its memory is valid: freed a grace period after it left
 * the table (SOCK_RCU_FREE), after bind_gen moved. A changed bind_gen or
 * another key looks up the table.
 *
 * Context: any; takes the RCU read lock itself.
 * Return: the socket with a reference held (sock_put() it), or NULL.
 */
struct rds_sock *rds_find_bound_rx(struct rds_net *rn,
				   struct rds_connection *conn,
				   const struct in6_addr *addr, __be16 port)
{
	struct rds_sock *rs;
	u64 gen;

	rcu_read_lock();
	/* Pairs with rds_remove_bound(): a new value means the unhash. */
	gen = atomic64_read_acquire(&rn->bind_gen);
	rs = conn->c_rx_rs;
	if (rs && conn->c_rx_rs_gen == gen && rs->rs_bound.port == port &&
	    rs->rs_bound.scope_id == conn->c_dev_if &&
	    ipv6_addr_equal(&rs->rs_bound.addr, addr)) {
		if (sock_flag(rds_rs_to_sk(rs), SOCK_DEAD) ||
		    !refcount_inc_not_zero(&rds_rs_to_sk(rs)->sk_refcnt))
			rs = NULL;
		rcu_read_unlock();
		return rs;
	}
	rcu_read_unlock();

	rs = rds_find_bound(rn, addr, port, conn->c_dev_if);
	/* Read before the lookup: a socket unhashed since moved it on. */
	conn->c_rx_rs = rs;
	conn->c_rx_rs_gen = gen;
	return rs;
}

/* Ports an ephemeral bind() may pick: all but 0 and the probe port. */
#define RDS_EPHEMERAL_FIRST	2
#define RDS_EPHEMERAL_COUNT	(65536 - RDS_EPHEMERAL_FIRST)

/* Hash @rs under @key, which is written into @rs only while it is not
 * hashed. Returns 0 or -EEXIST; on failure @rs is unhashed and its key
 * zero again.
 */
static int rds_insert_bound(struct rds_net *rn, struct rds_sock *rs,
			    const struct rds_bind_key *key)
{
	int ret;

	rs->rs_bound = *key;
	ret = rhashtable_lookup_insert_fast(&rn->bind_table, &rs->rs_bound_node,
					    rds_bind_params);
	if (ret)
		memset(&rs->rs_bound, 0, sizeof(rs->rs_bound));
	return ret;
}

static int rds_add_bound_locked(struct rds_net *rn, struct rds_sock *rs,
				const struct in6_addr *addr, __be16 port,
				u32 scope_id);

/* Insert @rs at @port, or at a free ephemeral port when @port is 0. */
static int rds_add_bound(struct rds_net *rn, struct rds_sock *rs,
			 const struct in6_addr *addr, __be16 port,
			 u32 scope_id)
{
	int ret;

	sock_owned_by_me(rds_rs_to_sk(rs));
	/* Binds of one namespace run one at a time: bind is not a fast
	 * path, and serialized, a key is plainly inserted once. The insert
	 * alone already is atomic: rhashtable_lookup_insert_fast() compares
	 * keys under the bucket lock, and during a resize its slow path
	 * checks both tables under their bucket locks. The one report of
	 * two binds of one key winning here most likely came from Linux's
	 * RDS, which make check then also ran the suite on, and which looks
	 * up, then inserts without comparing keys (upstream-behaviour.rst,
	 * "Concurrent binds").
	 */
	mutex_lock(&rn->bind_mutex);
	ret = rds_add_bound_locked(rn, rs, addr, port, scope_id);
	mutex_unlock(&rn->bind_mutex);
	return ret;
}

static int rds_add_bound_locked(struct rds_net *rn, struct rds_sock *rs,
				const struct in6_addr *addr, __be16 port,
				u32 scope_id)
{
	struct rds_bind_key key;
	u32 start, i;
	int ret;

	lockdep_assert_held(&rn->bind_mutex);
	if (port) {
		/* Reserved for the multipath probe, as in Linux's RDS. */
		if (port == cpu_to_be16(RDS_FLAG_PROBE_PORT))
			return -EINVAL;
		rds_bind_key_set(&key, addr, port, scope_id);
		ret = rds_insert_bound(rn, rs, &key);
		goto out;
	}

	/* Ephemeral: from a random start, each candidate port once. */
	start = get_random_u32_below(RDS_EPHEMERAL_COUNT);
	ret = -EEXIST;
	for (i = 0; i < RDS_EPHEMERAL_COUNT && ret == -EEXIST; i++) {
		port = cpu_to_be16(RDS_EPHEMERAL_FIRST +
				   (start + i) % RDS_EPHEMERAL_COUNT);
		rds_bind_key_set(&key, addr, port, scope_id);
		ret = rds_insert_bound(rn, rs, &key);
		if ((i & 1023) == 1023)
			cond_resched();
	}
out:
	if (ret)
		return ret == -EEXIST ? -EADDRINUSE : ret;
	sock_hold(rds_rs_to_sk(rs));
	return 0;
}

/**
 * rds_remove_bound - take a socket out of the bind table
 * @rs: the socket; may be unbound
 *
 * Context: socket release (no other syscall can run on @rs).
 */
void rds_remove_bound(struct rds_sock *rs)
{
	struct rds_net *rn = rds_sock_rn(rs);

	if (!rds_sock_bound(rs))
		return;
	WARN_ON_ONCE(rhashtable_remove_fast(&rn->bind_table,
					    &rs->rs_bound_node,
					    rds_bind_params));
	/* Connections that remember @rs look it up again from now on
	 * (rds_find_bound_rx()); ordered after the unhash.
	 */
	smp_mb__before_atomic();
	atomic64_inc(&rn->bind_gen);
	/* RCU lookups may still find it: they check SOCK_DEAD and take a
	 * reference only if one is left; the memory waits for a grace
	 * period (SOCK_RCU_FREE).
	 */
	__sock_put(rds_rs_to_sk(rs));
}

int rds_bind(struct socket *sock, rds_sockaddr_arg *uaddr, int addr_len)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs = rds_sk_to_rs(sk);
	struct net *net = sock_net(sk);
	const struct rds_transport *trans;
	struct in6_addr addr;
	u32 scope_id;
	__be16 port;
	int ret;

	ret = rds_parse_addr((struct sockaddr *)uaddr, addr_len, &addr, &port,
			     &scope_id);
	if (ret)
		return ret;

	lock_sock(sk);
	if (rs->rs_bound_ok) {
		ret = -EINVAL;
		goto out;
	}
	/* connect() before bind() fixed the link of a link-local peer. */
	if (scope_id && rs->rs_conn_scope_id &&
	    scope_id != rs->rs_conn_scope_id) {
		ret = -EINVAL;
		goto out;
	}

	if (rs->rs_transport) {
		trans = rs->rs_transport;
		ret = trans->laddr_check(net, &addr, scope_id);
		if (ret) {
			ret = -ENOPROTOOPT;
			goto out;
		}
	} else {
		trans = rds_trans_find_for_addr(net, &addr, scope_id);
		if (!trans) {
			ret = -EADDRNOTAVAIL;
			goto out;
		}
	}

	/* What the receive path reads is set before the socket is hashed,
	 * what the send path reads before rs_bound_ok; nothing after the
	 * insert can fail.
	 */
	rs->rs_cong_map = rds_cong_map_get(rds_net(net), &addr);
	ret = rs->rs_cong_map ? rds_add_bound(rds_net(net), rs, &addr, port,
					      scope_id) : -ENOMEM;
	if (ret) {
		rds_cong_map_put(rds_net(net), rs->rs_cong_map);
		rs->rs_cong_map = NULL;
		if (!rs->rs_transport)
			rds_trans_put(trans);
		goto out;
	}
	WRITE_ONCE(rs->rs_transport, trans);
	/* Publish: pairs with the acquire in rds_sock_bound(). */
	smp_store_release(&rs->rs_bound_ok, true);
out:
	release_sock(sk);
	return ret;
}

int rds_bind_net_init(struct rds_net *rn)
{
	mutex_init(&rn->bind_mutex);
	atomic64_set(&rn->bind_gen, 0);
	return rhashtable_init(&rn->bind_table, &rds_bind_params);
}

void rds_bind_net_exit(struct rds_net *rn)
{
	rhashtable_destroy(&rn->bind_table);
}
