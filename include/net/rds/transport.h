/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between rds.ko and its transport modules.
 *
 * A transport is a const ops table (part 1 below) registered with
 * rds_trans_register(); what the core offers it is part 2. What only the
 * core uses is declared in net/rds_core.h, and rds.ko exports only what
 * a transport calls (scripts/check/check-exports.sh).
 * The core finds a transport by type (or by asking each one whether it can
 * serve a local address) and pins its module with try_module_get() for as
 * long as a socket is bound to it or a connection uses it, so unloading a
 * busy transport fails with -EBUSY instead of pulling code from under us.
 */
#ifndef _NET_RDS_TRANSPORT_H
#define _NET_RDS_TRANSPORT_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/in6.h>
#include <linux/rds.h>

struct net;

/*
 * Part 1: the ops a transport provides.
 */

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
struct rds_mr;
struct rds_rdma_op;
struct rds_info_buf;
struct iov_iter;

/* rds_transport.caps */
#define RDS_TRANS_CAP_WIRE	BIT(0)	/* carries traffic between hosts:
					 * congestion maps, probes and pongs
					 * go on the wire
					 */
#define RDS_TRANS_CAP_NETNS	BIT(1)	/* serves every network namespace
					 * (else init_net only)
					 */
#define RDS_TRANS_CAP_ZEROCOPY	BIT(2)	/* MSG_ZEROCOPY sends */

/**
 * struct rds_info_table - an RDS_INFO_* table a transport exports
 * @optname: RDS_INFO_* number
 * @each: size of one record
 * @fill: emit every record of @net with rds_info_emit(); runs twice per
 *	getsockopt (count, then copy), must not sleep
 */
struct rds_info_table {
	int	optname;
	size_t	each;
	void	(*fill)(struct net *net, struct rds_info_buf *b);
};

/**
 * struct rds_transport - operations a transport module provides
 * @name: short name shown by RDS_INFO_CONNECTIONS (fits TRANSNAMSIZ)
 * @type: which slot this transport fills; one transport per slot
 * @owner: THIS_MODULE; pinned while sockets use the transport
 * @caps: RDS_TRANS_CAP_* bits
 * @prefer_loopback: hand connections whose peer is local to the loopback
 *	transport (TCP does; IB and iWARP loop back in the device)
 * @conn_data_size: bytes of per-connection state the core allocates,
 *	zeroed, with each connection (rds_conn_tdata())
 * @laddr_check: may this transport serve local address @addr (scope id
 *	@scope_id for link-local IPv6) in @net? 0 or -EADDRNOTAVAIL.
 *	Process context, may sleep, no core locks held.
 * @faddr_check: can this transport reach peer @faddr from local @laddr
 *	(scope id @dev_if)? 0 or -ENETUNREACH. Asked before a connection
 *	to a new peer is allocated, so unreachable peers cost nothing. NULL:
 *	every peer is worth a try. Process context, no core locks held.
 * @conn_alloc: set up rds_conn_tdata(@conn). Process context unless @gfp
 *	is atomic; @conn is not yet visible to anyone else.
 * @conn_free: release what @conn_alloc set up, after the connection is
 *	shut down and unreachable. Process context, may sleep.
 * @conn_connect: start connecting; call rds_connect_complete() when the
 *	connection is up (now or later) or rds_conn_drop() on failure.
 *	Called from the core's workqueue, may sleep.
 * @conn_shutdown: tear the transport connection down and wait until it
 *	will deliver nothing more. Core workqueue, may sleep.
 * @xmit_prepare: a batch of @xmit calls begins (TCP corks). Optional.
 * @xmit_complete: the batch ended (TCP uncorks). Optional.
 * @xmit: transmit @rm (header in @rm->m_hdr, payload in @rm->m_sg) from
 *	position *@pos, which is 0 for a message not yet started and
 *	otherwise whatever the transport stored there when it stopped; the
 *	core keeps it, and calls again with the same message, even if
 *	that message was canceled meanwhile: a transport that stopped
 *	half-way is never asked to start another message first. Return 0
 *	once all of @rm was taken (it may still be in flight); -EAGAIN
 *	after storing how far it got, when the transport will call
 *	rds_send_kick() once it has room again (no timed retry); -ENOMEM
 *	to be retried after a short delay; any other error drops the
 *	connection. Process context with the transmit lock held, no
 *	spinlocks held; may sleep. Acks come back through
 *	rds_send_drop_acked() or rds_send_drop_acked_fn().
 * @xmit_rdma: carry out the RDMA operation @rm->m_rdma before @rm itself
 *	is transmitted, and report its outcome with rds_rdma_op_complete()
 *	(now or from a completion). Return 0, or -EAGAIN / -ENOMEM to be
 *	called again, or -EKEYREJECTED, before posting anything, when the
 *	peer is known to refuse the operation's key on this connection (the
 *	core drops @rm, reported RDS_RDMA_DROPPED, and goes on with the next
 *	message). Same context as @xmit. NULL: no RDMA on this transport
 *	(sendmsg() and RDS_GET_MR answer EOPNOTSUPP).
 * @rdma_check: can @conn carry @op (a device without masked or any
 *	atomics)? 0 or -EOPNOTSUPP, at sendmsg. Optional. Process
 *	context, may sleep.
 * @mr_register: make the pinned pages of @mr (@mr->r_pages; the region is
 *	[r_offset, r_offset + r_len) from the start of the first page)
 *	accessible to peers of a socket bound to @laddr in @net, and set
 *	@mr->r_key, never 0, and @mr->r_tdata. @kg is the socket's key
 *	state (loopback mints keys from it with rds_mr_key_next(); an
 *	adapter's key is its memory region's rkey). 0 or -errno. Required
 *	with @xmit_rdma. Process context, may sleep.
 * @mr_free: undo @mr_register. When it returns no peer can reach the
 *	pages any more (an adapter invalidates and waits). NULL if there is
 *	nothing to undo. Process context, may sleep.
 * @max_lanes: how many lanes (parallel connections, RDS_MPATH_WORKERS at
 *	most) this transport opens to one peer in @net: @ids says whether
 *	the peer names its lanes (RDS_EXTHDR_LANES) or fills them first-free
 *	as Linux does. A transport with lanes names each lane it connects
 *	(TCP: low bits of the source port) and accepts by that name from a
 *	peer with ids. NULL: one lane. Any context, must not sleep.
 * @tos_map: the TOS a socket on this transport gets when it asks for
 *	@tos (SIOCRDSSETTOS). NULL: as asked.
 * @inc_copy_to_user: copy the payload of @inc into @to; return bytes
 *	copied or -errno. Process context, may sleep; the core also uses
 *	it with a kernel iterator, from the receive path (congestion maps).
 * @inc_free: free @inc once the last reference is gone. Any context.
 * @info: RDS_INFO_* tables of this transport (RDS_INFO_TCP_SOCKETS ...)
 * @n_info: entries in @info
 * @stat_names: names of the transport's counters, appended to
 *	RDS_INFO_COUNTERS (Linux's names where the meaning is the same)
 * @n_stats: entries in @stat_names
 * @stats_sum: add the transport's counters for @net to @vals[@n_stats].
 *	Must not sleep.
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
	unsigned int		caps;
	bool			prefer_loopback;
	size_t			conn_data_size;

	int (*laddr_check)(struct net *net, const struct in6_addr *addr,
			   __u32 scope_id);
	int (*faddr_check)(struct net *net, const struct in6_addr *laddr,
			   const struct in6_addr *faddr, __u32 dev_if);
	int (*conn_alloc)(struct rds_connection *conn, gfp_t gfp);
	void (*conn_free)(struct rds_connection *conn);
	int (*conn_connect)(struct rds_connection *conn);
	void (*conn_shutdown)(struct rds_connection *conn);
	void (*xmit_prepare)(struct rds_connection *conn);
	void (*xmit_complete)(struct rds_connection *conn);
	int (*xmit)(struct rds_connection *conn, struct rds_message *rm,
		    unsigned int *pos);
	int (*xmit_rdma)(struct rds_connection *conn, struct rds_message *rm);
	int (*rdma_check)(struct rds_connection *conn,
			  const struct rds_rdma_op *op);
	int (*mr_register)(struct rds_mr *mr, struct net *net,
			   const struct in6_addr *laddr,
			   struct rds_mr_keygen *kg);
	void (*mr_free)(struct rds_mr *mr);
	unsigned int (*max_lanes)(struct net *net, bool ids);
	u8 (*tos_map)(u8 tos);
	int (*inc_copy_to_user)(struct rds_incoming *inc, struct iov_iter *to);
	void (*inc_free)(struct rds_incoming *inc);

	const struct rds_info_table *info;
	unsigned int		n_info;
	const char *const	*stat_names;
	unsigned int		n_stats;
	void (*stats_sum)(struct net *net, u64 *vals);
};

/*
 * Part 2: the core services a transport calls. Here: registering,
 * RDS_INFO records and delivery; the connection's (state, lanes, acks)
 * are in <net/rds/connection.h>, messages and incomings in
 * <net/rds/message.h>, RDMA operations and regions in <net/rds/rdma.h>,
 * header checks in <net/rds/wire.h>.
 */
int rds_trans_register(const struct rds_transport *trans);
void rds_trans_unregister(const struct rds_transport *trans);

void rds_info_emit(struct rds_info_buf *b, const void *rec);

void rds_recv_incoming(struct rds_connection *conn, struct rds_incoming *inc);
void rds_recv_bad_header(struct rds_connection *conn, int err);

#endif /* _NET_RDS_TRANSPORT_H */
