/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages as the core hands them to transports (struct rds_message, one
 * per sendmsg) and as transports hand them back (struct rds_incoming, one
 * per received message).
 */
#ifndef _NET_RDS_MESSAGE_H
#define _NET_RDS_MESSAGE_H

#include <linux/in6.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/uio.h>
#include <net/rds/wire.h>

struct rds_connection;
struct rds_dest;
struct rds_rdma_op;
struct rds_sock;
struct rds_znotifier;

/**
 * struct rds_incoming - one received message, owned by its transport
 * @i_refcount: the socket receive queue and each reader hold a reference
 * @i_item: on a socket's receive queue; protected by the socket's lock
 * @i_conn: connection it arrived on
 * @i_hdr: the wire header as received
 * @i_saddr: source address
 * @i_daddr: destination (local) address
 * @i_rx_tstamp: arrival time, for SO_TIMESTAMP
 * @i_rx_lat: timestamps along the receive path (SO_RDS_MSG_RXPATH_LATENCY)
 *
 * Transports embed this in their own receive context, fill it with
 * rds_inc_init() and give it to rds_recv_incoming(); the core calls the
 * transport's inc_copy_to_user and inc_free on it.
 */
struct rds_incoming {
	refcount_t		i_refcount;
	struct list_head	i_item;
	struct rds_connection	*i_conn;
	struct rds_header	i_hdr;
	struct in6_addr		i_saddr;
	struct in6_addr		i_daddr;
	ktime_t			i_rx_tstamp;
	u64			i_rx_lat[4];
};

/* rds_message.m_flags bits */
enum {
	RDS_MSG_ON_SOCK,	/* on its socket's send list */
	RDS_MSG_ON_CONN,	/* on its connection's send or retransmit list */
	RDS_MSG_HAS_ACK_SEQ,	/* m_ack_seq is valid */
	RDS_MSG_RETRANSMITTED,	/* queued again after a reconnect */
	RDS_MSG_PONG,		/* a pong: counted in m_conn->c_pongs */
	RDS_MSG_ZCOPY,		/* m_sg holds the sender's own pages, pinned
				 * (MSG_ZEROCOPY), any offset and length per
				 * entry; RDS_MSG_PAGES is set too
				 */
	RDS_MSG_PAGES,		/* m_sg entries are pages, not slab memory: a
				 * transport may hand them to the network
				 * stack by reference instead of copying
				 */
	RDS_MSG_ORPHAN,		/* its socket closed while it was queued:
				 * counted in the namespace's orphan bytes
				 * since m_orphaned; set under c_lock
				 */
};

/**
 * struct rds_message - one outgoing message
 * @m_refcount: the socket list, the connection lists and each transport
 *	user hold a reference
 * @m_flags: RDS_MSG_* bits
 * @m_sock_item: on @m_rs's send list; protected by the socket's lock
 * @m_conn_item: on the connection's send or retransmit list; protected by
 *	the connection's c_lock
 * @m_rs: sending socket (a sock reference) until acked or dropped;
 *	protected by @m_rs_lock
 * @m_rs_lock: protects @m_rs and @m_sock_item against ack/drop races
 * @m_conn: connection the message is queued on (set once)
 * @m_daddr: destination address
 * @m_hdr: wire header; h_sequence is set when queued on the connection
 * @m_ack_seq: sequence whose ack retires the message
 * @m_len: payload bytes
 * @m_orphaned: jiffies when its socket closed (RDS_MSG_ORPHAN)
 * @m_inc: the message seen as received, for transports that deliver the
 *	sender's own object (loopback); unused by others
 * @m_rdma: the RDMA read or write to carry out before delivery, or NULL
 * @m_rdma_cookie: cookie of one of the sender's regions named to the peer
 *	(RDS_CMSG_RDMA_MAP or RDS_CMSG_RDMA_DEST), or 0
 * @m_rdma_mapped: @m_rdma_cookie was registered for this message
 * @m_znotifier: the MSG_ZEROCOPY completion posted to the sender when the
 *	message is freed, or NULL (core only)
 * @m_async: UEK's RDS_CMSG_ASYNC_SEND notification, until it is queued
 *	to the sender or freed with the message (async.c)
 * @m_async_notify: report success too (RDS_SEND_NOTIFY_ME), not only
 *	cancel and drop
 * @m_dest: the destination of @m_rs charged for it while RDS_MSG_ON_SOCK
 *	(core only; protected by the socket's lock)
 * @m_nents: number of @m_sg entries
 * @m_sg: the payload: one entry pointing into this allocation for small
 *	messages, else one page per entry (RDS_FRAG_SIZE each but the last);
 *	with RDS_MSG_ZCOPY, the sender's pages as its buffer lies in them
 */
struct rds_message {
	refcount_t		m_refcount;
	unsigned long		m_flags;
	struct list_head	m_sock_item;
	struct list_head	m_conn_item;
	spinlock_t		m_rs_lock;	/* m_rs vs. ack/drop */
	struct rds_sock		*m_rs;
	struct rds_connection	*m_conn;
	struct in6_addr		m_daddr;
	struct rds_header	m_hdr;
	u64			m_ack_seq;
	unsigned int		m_len;
	unsigned long		m_orphaned;
	struct rds_incoming	m_inc;
	struct rds_rdma_op	*m_rdma;
	u64			m_rdma_cookie;
	bool			m_rdma_mapped;
	struct rds_znotifier	*m_znotifier;
	struct rds_notifier	*m_async;
	bool			m_async_notify;
	struct rds_dest		*m_dest;
	unsigned int		m_nents;
	struct scatterlist	m_sg[];
};

/* Another reference to @rm, which the caller holds one to. */
static inline void rds_message_get(struct rds_message *rm)
{
	refcount_inc(&rm->m_refcount);
}

void rds_message_put(struct rds_message *rm);

void rds_inc_init(struct rds_incoming *inc, struct rds_connection *conn,
		  const struct in6_addr *saddr, const struct in6_addr *daddr);
void rds_inc_put(struct rds_incoming *inc);

int rds_message_copy_to_user(struct rds_message *rm, struct iov_iter *to);

#endif /* _NET_RDS_MESSAGE_H */
