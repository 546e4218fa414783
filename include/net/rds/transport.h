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

struct rds_connection;
struct rds_message;
struct rds_incoming;
struct rds_mr_keygen;
struct iov_iter;

/**
 * struct rds_transport - operations a transport module provides
 * @name: short name shown by RDS_INFO_CONNECTIONS (fits TRANSNAMSIZ)
 * @type: which slot this transport fills; one transport per slot
 * @owner: THIS_MODULE; pinned while sockets use the transport
 * @prefer_loopback: hand connections whose peer is local to the loopback
 *	transport (TCP does; IB and iWARP loop back in the device)
 * @laddr_check: may this transport serve local address @addr (scope id
 *	@scope_id for link-local IPv6) in @net? 0 or -EADDRNOTAVAIL.
 *	Process context, may sleep, no core locks held.
 * @faddr_check: can this transport reach peer @faddr from local @laddr
 *	(scope id @dev_if)? 0 or -ENETUNREACH. Asked before a connection
 *	to a new peer is allocated, so unreachable peers cost nothing. NULL:
 *	every peer is worth a try. Process context, no core locks held.
 * @conn_alloc: set up @conn->c_transport_data. Process context, may
 *	sleep; @conn is not yet visible to anyone else.
 * @conn_free: release what @conn_alloc set up, after the connection is
 *	shut down and unreachable. Process context, may sleep.
 * @conn_connect: start connecting; call rds_connect_complete() when the
 *	connection is up (now or later) or rds_conn_drop() on failure.
 *	Called from the core's workqueue, may sleep.
 * @conn_shutdown: tear the transport connection down and wait until it
 *	will deliver nothing more. Core workqueue, may sleep.
 * @xmit: transmit @rm (header in @rm->m_hdr, payload in @rm->m_sg).
 *	Return 0 once the transport took it (it may still be in flight),
 *	-EAGAIN or -ENOMEM to be called again later for the same message.
 *	Process context with RDS_CONN_IN_XMIT held, no spinlocks held; may
 *	sleep. Acks come back through rds_send_drop_acked().
 * @xmit_rdma: carry out the RDMA operation @rm->m_rdma before @rm itself
 *	is transmitted, and report its outcome with rds_rdma_op_complete()
 *	(now or from a completion). Return 0, or -EAGAIN / -ENOMEM to be
 *	called again. Same context as @xmit. NULL: no RDMA on this transport
 *	(sendmsg() and RDS_GET_MR answer EOPNOTSUPP).
 * @mr_key: mint the key of a new memory region registered by a socket
 *	whose key state is @kg; never 0. Required with @xmit_rdma. The
 *	loopback transport uses rds_mr_key_next(); an adapter returns its
 *	MR's rkey. Process context.
 * @inc_copy_to_user: copy the payload of @inc into @to; return bytes
 *	copied or -errno. Process context, may sleep.
 * @inc_free: free @inc once the last reference is gone. Any context.
 *
 * Ops not needed by a transport may be NULL except @laddr_check. A
 * transport without @xmit carries nothing itself: its laddr_check refuses
 * every address, or it sets @prefer_loopback and serves local peers only
 * (through the loopback transport); other destinations get ENETUNREACH.
 */
struct rds_transport {
	const char		*name;
	enum rds_trans_type	type;
	struct module		*owner;
	bool			prefer_loopback;

	int (*laddr_check)(struct net *net, const struct in6_addr *addr,
			   __u32 scope_id);
	int (*faddr_check)(struct net *net, const struct in6_addr *laddr,
			   const struct in6_addr *faddr, __u32 dev_if);
	int (*conn_alloc)(struct rds_connection *conn, gfp_t gfp);
	void (*conn_free)(struct rds_connection *conn);
	int (*conn_connect)(struct rds_connection *conn);
	void (*conn_shutdown)(struct rds_connection *conn);
	int (*xmit)(struct rds_connection *conn, struct rds_message *rm);
	int (*xmit_rdma)(struct rds_connection *conn, struct rds_message *rm);
	u32 (*mr_key)(struct rds_mr_keygen *kg);
	int (*inc_copy_to_user)(struct rds_incoming *inc, struct iov_iter *to);
	void (*inc_free)(struct rds_incoming *inc);
};

int rds_trans_register(const struct rds_transport *trans);
void rds_trans_unregister(const struct rds_transport *trans);

const struct rds_transport *rds_trans_get(enum rds_trans_type type);
void rds_trans_put(const struct rds_transport *trans);

void rds_recv_incoming(struct rds_connection *conn, struct rds_incoming *inc);

#endif /* _NET_RDS_TRANSPORT_H */
