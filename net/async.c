// SPDX-License-Identifier: GPL-2.0
/*
 * Oracle UEK's asynchronous sends (RDS_CMSG_ASYNC_SEND, <linux/rds_uek.h>):
 * a message sent with a user token reports how it ended as an
 * RDS_CMSG_RDMA_STATUS notification carrying that token: SUCCESS once
 * the peer acked it (delivered), CANCELED for RDS_CANCEL_SENT_TO, DROPPED
 * when it was given up. Success is reported only if RDS_SEND_NOTIFY_ME
 * asked for it; a failure always is. The notifications share the socket's
 * queue and send budget with RDMA's (rdma.c).
 */
#include <linux/slab.h>
#include <net/sock.h>

#include "rds_core.h"

/**
 * rds_async_parse - take a sendmsg()'s RDS_CMSG_ASYNC_SEND, if any
 * @rm: the message being built
 * @msg: the user's message (its control messages passed
 *	rds_send_check_cmsgs())
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for a malformed or repeated one, -ENOMEM.
 */
int rds_async_parse(struct rds_message *rm, struct msghdr *msg)
{
	struct rds_asend_args args;
	struct rds_notifier *n;
	struct cmsghdr *cmsg;

	for_each_cmsghdr(cmsg, msg) {
		if (cmsg->cmsg_level != SOL_RDS ||
		    cmsg->cmsg_type != RDS_CMSG_ASYNC_SEND)
			continue;
		if (rm->m_async ||
		    cmsg->cmsg_len != CMSG_LEN(sizeof(args)))
			return -EINVAL;
		memcpy(&args, CMSG_DATA(cmsg), sizeof(args));
		if (args.flags & ~(u64)RDS_SEND_NOTIFY_ME)
			return -EINVAL;
		n = kmalloc(sizeof(*n), GFP_KERNEL);
		if (!n)
			return -ENOMEM;
		INIT_LIST_HEAD(&n->n_list);
		n->n_user_token = args.user_token;
		n->n_status = RDS_RDMA_SUCCESS;
		rm->m_async = n;
		rm->m_async_notify = args.flags & RDS_SEND_NOTIFY_ME;
	}
	return 0;
}

/**
 * rds_async_notify_locked - report how an asynchronous send ended
 * @rs: the sending socket
 * @rm: the message leaving the socket
 * @status: RDS_RDMA_SUCCESS (acked), _CANCELED or _DROPPED
 *
 * Return: whether a notification was queued (the caller wakes @rs).
 *
 * Context: @rs->rs_lock held.
 */
bool rds_async_notify_locked(struct rds_sock *rs, struct rds_message *rm,
			     int status)
{
	struct rds_notifier *n = rm->m_async;

	lockdep_assert_held(&rs->rs_lock);
	if (!n || (status == RDS_RDMA_SUCCESS && !rm->m_async_notify))
		return false;
	rm->m_async = NULL;
	n->n_status = status;
	rds_notify_queue_locked(rs, n);
	return true;
}
