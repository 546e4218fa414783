// SPDX-License-Identifier: GPL-2.0
/*
 * rds_loop.ko: the loopback transport. Sockets bound to 127.0.0.0/8 or ::1
 * use it, and so do TCP sockets whose peer is a local address.
 *
 * Transmitting a message is delivering it: the receiver reads straight
 * from the sender's pages (the incoming holds a message reference), and
 * the message is acked at once. The core's congestion maps still apply,
 * so a receiver that does not read stops its senders (Linux's loopback
 * skips them and lets one socket queue without bound).
 */
#include <linux/module.h>
#include <net/ipv6.h>
#include <net/rds/connection.h>
#include <net/rds/message.h>
#include <net/rds/rdma.h>
#include <net/rds/transport.h>

#include "rds_loop.h"

static int rds_loop_laddr_check(struct net *net, const struct in6_addr *addr,
				__u32 scope_id)
{
	if (ipv6_addr_v4mapped(addr) ?
	    ipv4_is_loopback(addr->s6_addr32[3]) : ipv6_addr_loopback(addr))
		return 0;
	return -EADDRNOTAVAIL;
}

/* Loopback reaches only this namespace's own addresses. */
static int rds_loop_faddr_check(struct net *net, const struct in6_addr *laddr,
				const struct in6_addr *faddr, __u32 dev_if)
{
	return rds_addr_is_local(net, faddr, dev_if) ? 0 : -ENETUNREACH;
}

/* A loopback region needs no device: its key is minted for the socket. */
static int rds_loop_mr_register(struct rds_mr *mr, struct net *net,
				const struct in6_addr *laddr,
				struct rds_mr_keygen *kg)
{
	mr->r_key = rds_mr_key_next(kg);
	return 0;
}

/* Not delivered: a silent RDMA with nothing else to say wakes nobody,
 * and a message behind a failed RDMA would tell the peer it completed.
 */
static bool rds_loop_undelivered(const struct rds_message *rm)
{
	const struct rds_rdma_op *op = rm->m_rdma;

	if (!op)
		return false;
	if (op->op_done && op->op_status != RDS_RDMA_SUCCESS)
		return true;
	return rds_message_silent(rm);
}

/* The message is its own incoming; the incoming holds a message reference. */
static int rds_loop_xmit(struct rds_connection *conn, struct rds_message *rm,
			 unsigned int *pos)
{
	struct rds_incoming *inc = &rm->m_inc;

	rds_conn_assert_xmit_held(conn);
	if (rds_loop_undelivered(rm)) {
		rds_send_drop_acked(conn, be64_to_cpu(rm->m_hdr.h_sequence));
		return 0;
	}
	rds_inc_init(inc, conn, &conn->c_laddr, &conn->c_faddr);
	inc->i_hdr = rm->m_hdr;
	rds_message_get(rm);

	rds_recv_incoming(conn, inc);
	rds_inc_put(inc);
	rds_send_drop_acked(conn, be64_to_cpu(rm->m_hdr.h_sequence));
	return 0;
}

static int rds_loop_inc_copy_to_user(struct rds_incoming *inc,
				     struct iov_iter *to)
{
	return rds_message_copy_to_user(container_of(inc, struct rds_message,
						     m_inc), to);
}

static void rds_loop_inc_free(struct rds_incoming *inc)
{
	rds_message_put(container_of(inc, struct rds_message, m_inc));
}

static const struct rds_transport rds_loop_transport = {
	.name			= "loopback",
	.type			= RDS_TRANS_TYPE_LOOP,
	.owner			= THIS_MODULE,
	.caps			= RDS_TRANS_CAP_NETNS,
	.laddr_check		= rds_loop_laddr_check,
	.faddr_check		= rds_loop_faddr_check,
	.xmit			= rds_loop_xmit,
	.xmit_rdma		= rds_loop_xmit_rdma,
	.mr_register		= rds_loop_mr_register,
	.inc_copy_to_user	= rds_loop_inc_copy_to_user,
	.inc_free		= rds_loop_inc_free,
};

static int __init rds_loop_init(void)
{
	return rds_trans_register(&rds_loop_transport);
}

static void __exit rds_loop_exit(void)
{
	/* No socket pins us any more: the connections left belong to
	 * closed ones, and go with the transport.
	 */
	rds_trans_unregister(&rds_loop_transport);
}

module_init(rds_loop_init);
module_exit(rds_loop_exit);

MODULE_DESCRIPTION("RDS: loopback transport");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDS_VERSION);
