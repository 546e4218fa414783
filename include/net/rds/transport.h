/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between rds.ko and its transport modules.
 *
 * A transport is a const ops table registered with rds_trans_register().
 * The core finds a transport by type (or by asking each one whether it can
 * serve a local address) and pins its module with try_module_get() for as
 * long as a socket is bound to it or a connection uses it, so unloading a
 * busy transport fails with -EBUSY instead of pulling code from under us.
 */
#ifndef _NET_RDS_TRANSPORT_H
#define _NET_RDS_TRANSPORT_H

#include <linux/list.h>
#include <linux/module.h>
#include <linux/in6.h>
#include <linux/rds.h>

struct net;

/*
 * Transport types. The first three are the uapi SO_RDS_TRANSPORT values;
 * loopback has no uapi number (it is picked by the bound address only).
 */
enum rds_trans_type {
	RDS_TRANS_TYPE_IB	= RDS_TRANS_IB,
	RDS_TRANS_TYPE_IWARP	= RDS_TRANS_IWARP,
	RDS_TRANS_TYPE_TCP	= RDS_TRANS_TCP,
	RDS_TRANS_TYPE_LOOP	= RDS_TRANS_COUNT,
	RDS_TRANS_TYPE_MAX,
};

/**
 * struct rds_transport - operations a transport module provides
 * @name: short name shown by RDS_INFO_CONNECTIONS (fits TRANSNAMSIZ)
 * @type: which slot this transport fills; one transport per slot
 * @owner: THIS_MODULE; pinned while sockets or connections use it
 * @laddr_check: may this transport serve local address @addr (scope id
 *	@scope_id for link-local IPv6) in namespace @net? Returns 0 or a
 *	negative errno (-EADDRNOTAVAIL when it cannot). Process context, may
 *	sleep, no core locks held.
 *
 * The connection, transmit, receive and RDMA operations join this table in
 * the issues that build them; each states its calling context the same
 * way.
 */
struct rds_transport {
	const char		*name;
	enum rds_trans_type	type;
	struct module		*owner;

	int (*laddr_check)(struct net *net, const struct in6_addr *addr,
			   __u32 scope_id);
};

int rds_trans_register(const struct rds_transport *trans);
void rds_trans_unregister(const struct rds_transport *trans);

const struct rds_transport *rds_trans_get(enum rds_trans_type type);
void rds_trans_put(const struct rds_transport *trans);

#endif /* _NET_RDS_TRANSPORT_H */
