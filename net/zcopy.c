// SPDX-License-Identifier: GPL-2.0
/*
 * MSG_ZEROCOPY sends: the payload stays in the sender's pages, held from
 * sendmsg() until the message is freed (the peer acked it, or it was
 * dropped or canceled, and no transport or receiver reads it any more),
 * and the sender then gets its RDS_CMSG_ZCOPY_COOKIE back in an
 * RDS_CMSG_ZCOPY_COMPLETION from recvmsg() (with a message, or alone
 * from a non-blocking call), up to RDS_MAX_ZCOOKIES cookies per call, as
 * in Linux.
 *
 * Bounds: the held pages count against the user's RLIMIT_MEMLOCK (as
 * TCP's MSG_ZEROCOPY: ENOBUFS beyond it, unless CAP_IPC_LOCK), the
 * message against SO_SNDBUF as any other, and each completion waiting to
 * be read against SO_SNDBUF too (RDS_NOTIFY_CHARGE), so a sender that
 * never reads its completions stops sending instead of growing a queue.
 *
 * What the sender writes into the buffer before the completion may or
 * may not be what the peer receives (a retransmission after a reconnect
 * reads the buffer again); unmapping it is safe, the pages stay held.
 *
 * message.c builds the message (rds_message_zcopy()); this file holds
 * its pages, charges them and posts the completion.
 *
 * Lock order: rs_lock only, taken with BHs off (completions are posted
 * from the transport's ack path in softirq).
 */
#include <linux/mm.h>
#include <linux/rds.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/rds/compat.h>
#include <net/sock.h>

#include "rds_core.h"

void rds_zcopy_free(struct rds_znotifier *zn)
{
	kfree(zn);
	rds_obj_dec(RDS_OBJ_ZCOPY);
}

/**
 * rds_zcopy_cookie - read an RDS_CMSG_ZCOPY_COOKIE
 * @cmsg: the control message
 * @cookie: where to put the cookie
 *
 * Return: 0, or -EINVAL when it is too short for a u32 (longer ones are
 * accepted, as by Linux).
 */
int rds_zcopy_cookie(struct cmsghdr *cmsg, u32 *cookie)
{
	if (cmsg->cmsg_len < CMSG_LEN(sizeof(*cookie)))
		return -EINVAL;
	memcpy(cookie, CMSG_DATA(cmsg), sizeof(*cookie));
	return 0;
}

/* Hold the user pages of @from in @rm's entries (m_nents counts them,
 * so freeing @rm gives back whatever was taken).
 */
int rds_zcopy_get_pages(struct rds_message *rm, struct iov_iter *from,
			unsigned int nents)
{
	struct page *pages[16];
	unsigned int n, i, len;
	size_t off;
	ssize_t got;

	while (iov_iter_count(from)) {
		got = rds_iter_get_user_pages(from, pages, iov_iter_count(from),
					      ARRAY_SIZE(pages), &off);
		if (got <= 0)
			return got ? got : -EFAULT;
		n = DIV_ROUND_UP(off + got, PAGE_SIZE);
		for (i = 0; i < n; i++) {
			if (rm->m_nents == nents) {
				/* More pieces than counted: cannot happen. */
				for (; i < n; i++)
					rds_put_user_page(pages[i]);
				return -EFAULT;
			}
			len = min_t(size_t, got, PAGE_SIZE - off);
			sg_set_page(&rm->m_sg[rm->m_nents++], pages[i], len, off);
			got -= len;
			off = 0;
		}
	}
	return 0;
}

/**
 * rds_zcopy_queued_locked - @rm is on @rs's send queue: complete to @rs
 * @rs: the sender
 * @rm: its message
 *
 * Context: @rs->rs_lock held.
 */
void rds_zcopy_queued_locked(struct rds_sock *rs, struct rds_message *rm)
{
	lockdep_assert_held(&rs->rs_lock);
	if (!rm->m_znotifier)
		return;
	sock_hold(rds_rs_to_sk(rs));
	rm->m_znotifier->z_rs = rs;
}

/**
 * rds_zcopy_unpin - give back the user pages of @rm
 * @rm: a message with RDS_MSG_ZCOPY, being freed
 *
 * Context: any but hard interrupt.
 */
void rds_zcopy_unpin(struct rds_message *rm)
{
	unsigned int i;

	for (i = 0; i < rm->m_nents; i++)
		rds_put_user_page(sg_page(&rm->m_sg[i]));
	rm->m_nents = 0;
}

/**
 * rds_zcopy_notify - post a completion to its sender, or free it
 * @zn: the completion of a message being freed
 *
 * A closed sender gets nothing (its queue was emptied at close, after
 * SOCK_DEAD was set; both under rs_lock).
 *
 * Context: any but hard interrupt; no RDS lock held.
 */
void rds_zcopy_notify(struct rds_znotifier *zn)
{
	struct rds_sock *rs = zn->z_rs;
	struct sock *sk;

	mm_unaccount_pinned_pages(&zn->z_mmp);
	if (!rs) {
		rds_zcopy_free(zn);
		return;
	}
	sk = rds_rs_to_sk(rs);
	spin_lock_bh(&rs->rs_lock);
	if (sock_flag(sk, SOCK_DEAD)) {
		spin_unlock_bh(&rs->rs_lock);
		rds_zcopy_free(zn);
	} else {
		list_add_tail(&zn->z_list, &rs->rs_zcookie_queue);
		/* Unread completions fill the send total: bounded. */
		rs->rs_snd_bytes += RDS_NOTIFY_CHARGE;
		spin_unlock_bh(&rs->rs_lock);
		rds_wake_sk(rs);
	}
	sock_put(sk);
}

/* Take up to @max completions off @rs into @list, giving back their
 * budget; returns how many.
 */
static unsigned int rds_zcopy_take(struct rds_sock *rs, struct list_head *list,
				   unsigned int max)
{
	struct rds_znotifier *zn, *tmp;
	unsigned int n = 0;
	bool wake;

	spin_lock_bh(&rs->rs_lock);
	list_for_each_entry_safe(zn, tmp, &rs->rs_zcookie_queue, z_list) {
		if (n == max)
			break;
		list_move_tail(&zn->z_list, list);
		n++;
	}
	wake = rds_snd_total_sub_locked(rs, (size_t)n * RDS_NOTIFY_CHARGE);
	spin_unlock_bh(&rs->rs_lock);
	if (wake)
		rds_wake_sk(rs);
	return n;
}

/**
 * rds_zcopy_recv - hand completions to recvmsg()
 * @rs: the socket
 * @msg: the user's message
 *
 * As Linux: with a message being returned (any recvmsg()), or without
 * one to a non-blocking recvmsg(), which then returns 0; only on an
 * SO_ZEROCOPY socket, and only into a control buffer with room left for
 * a whole struct rds_zcopy_cookies (up to RDS_MAX_ZCOOKIES cookies).
 *
 * Return: 0 when completions were delivered, -EAGAIN when none were,
 * -EFAULT (the completions stay queued).
 */
int rds_zcopy_recv(struct rds_sock *rs, struct msghdr *msg)
{
	struct rds_zcopy_cookies done;
	struct rds_znotifier *zn, *tmp;
	unsigned int n;
	LIST_HEAD(list);
	int ret;

	if (!sock_flag(rds_rs_to_sk(rs), SOCK_ZEROCOPY) || !msg->msg_control ||
	    msg->msg_controllen < CMSG_SPACE(sizeof(done)) ||
	    list_empty_careful(&rs->rs_zcookie_queue))
		return -EAGAIN;

	memset(&done, 0, sizeof(done));
	done.num = rds_zcopy_take(rs, &list, RDS_MAX_ZCOOKIES);
	if (!done.num)
		return -EAGAIN;
	n = 0;
	list_for_each_entry(zn, &list, z_list)
		done.cookies[n++] = zn->z_cookie;
	ret = put_cmsg(msg, SOL_RDS, RDS_CMSG_ZCOPY_COMPLETION, sizeof(done),
		       &done);
	if (ret) {
		/* Not delivered: back to the head of the queue. */
		spin_lock_bh(&rs->rs_lock);
		list_splice(&list, &rs->rs_zcookie_queue);
		rs->rs_snd_bytes += (size_t)done.num * RDS_NOTIFY_CHARGE;
		spin_unlock_bh(&rs->rs_lock);
		return ret;
	}
	list_for_each_entry_safe(zn, tmp, &list, z_list)
		rds_zcopy_free(zn);
	return 0;
}

/**
 * rds_zcopy_drop_completions - free unread completions (close)
 * @rs: the socket, already SOCK_DEAD: nothing is posted after this
 */
void rds_zcopy_drop_completions(struct rds_sock *rs)
{
	struct rds_znotifier *zn, *tmp;
	LIST_HEAD(list);

	while (rds_zcopy_take(rs, &list, UINT_MAX))
		list_for_each_entry_safe(zn, tmp, &list, z_list) {
			list_del(&zn->z_list);
			rds_zcopy_free(zn);
		}
}
