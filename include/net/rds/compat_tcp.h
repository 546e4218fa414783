/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differences between kernels that only RDS/TCP sees: TCP's own
 * send interface. Kept apart from compat.h so that the core does not
 * include TCP's header; the same rules hold (see compat.h).
 */
#ifndef _NET_RDS_COMPAT_TCP_H
#define _NET_RDS_COMPAT_TCP_H

#include <linux/bvec.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <linux/version.h>
#include <net/tcp.h>

/**
 * rds_tcp_send_pages_locked - send pages on TCP without copying
 * @sk: the TCP socket, locked by the caller (lock_sock())
 * @bv: the pieces; not slab memory (sendpage_ok())
 * @n: how many
 * @bytes: their total length
 * @flags: MSG_* flags (MSG_DONTWAIT ...)
 *
 * TCP takes its own page references. MSG_SPLICE_PAGES since 6.5;
 * tcp_sendpage_locked() page by page before (it is gone since). By the
 * version, not by the flag: Debian's 6.1 defines MSG_SPLICE_PAGES (a
 * backport) but its TCP ignores it and copies the pages.
 *
 * Return: bytes taken (maybe fewer than @bytes), or -errno.
 */
static inline int rds_tcp_send_pages_locked(struct sock *sk,
					    struct bio_vec *bv,
					    unsigned int n, size_t bytes,
					    int flags)
{
#if KERNEL_VERSION(6, 5, 0) <= LINUX_VERSION_CODE
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };

	iov_iter_bvec(&msg.msg_iter, WRITE, bv, n, bytes);
	return tcp_sendmsg_locked(sk, &msg, bytes);
#else
	unsigned int i;
	int sent = 0, ret;

	for (i = 0; i < n; i++) {
		int f = flags;

		if (i + 1 < n)
			f |= MSG_MORE | MSG_SENDPAGE_NOTLAST;
		ret = tcp_sendpage_locked(sk, bv[i].bv_page, bv[i].bv_offset,
					  bv[i].bv_len, f);
		if (ret <= 0)
			return sent ?: ret;
		sent += ret;
		if (ret < bv[i].bv_len)
			break;
	}
	return sent;
#endif
}

#endif /* _NET_RDS_COMPAT_TCP_H */
