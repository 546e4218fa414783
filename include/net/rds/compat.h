/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels rds builds for, here and, for
 * RDS/TCP's use of TCP's own interface, in compat_tcp.h (so that the
 * core does not include TCP's header).
 * Tested: Linux 6.1 (Debian 12), 6.12 (Debian 13) and 7.2 (Debian sid); see
 * Documentation/testbed.rst for adding another. Each wrapper tests for
 * the feature itself where the preprocessor can see it, else the version
 * that brought it, and the code calls the wrapper unconditionally.
 */
#ifndef _NET_RDS_COMPAT_H
#define _NET_RDS_COMPAT_H

#include <linux/bvec.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/sysctl.h>
#include <linux/uio.h>
#include <linux/version.h>
#include <net/net_namespace.h>

/*
 * The table a sysctl proc_handler is given: const since 6.11. Declare
 * handlers as taking a "rds_ctl_table *".
 */
#if KERNEL_VERSION(6, 11, 0) > LINUX_VERSION_CODE
#define rds_ctl_table struct ctl_table
#else
#define rds_ctl_table const struct ctl_table
#endif

/**
 * rds_register_net_sysctl - register a per-namespace sysctl table
 * @net: the namespace
 * @path: e.g. "net/rds"
 * @table: the entries, followed by an empty one
 * @count: how many entries, not counting the empty one
 *
 * Since 6.6 a table is registered with its size (register_net_sysctl()
 * became a macro taking ARRAY_SIZE() of its argument, which must then be
 * an array), and since 6.11 an empty entry inside that size is an error;
 * older kernels find the end at the empty entry.
 *
 * Return: the header to unregister, or NULL.
 */
static inline struct ctl_table_header *
rds_register_net_sysctl(struct net *net, const char *path,
			struct ctl_table *table, size_t count)
{
#ifdef register_net_sysctl
	return register_net_sysctl_sz(net, path, table, count);
#else
	return register_net_sysctl(net, path, table);
#endif
}

/*
 * The address that proto_ops.bind/connect and kernel_bind/connect take:
 * struct sockaddr_unsized since 6.19 (a struct sockaddr whose size the
 * length argument gives), struct sockaddr before. The layout is the same;
 * only the type changed.
 */
#if KERNEL_VERSION(6, 19, 0) <= LINUX_VERSION_CODE
#define rds_sockaddr_arg struct sockaddr_unsized
#else
#define rds_sockaddr_arg struct sockaddr
#endif

/*
 * A workqueue says whether it is per-CPU since 6.17 (and in stable
 * kernels that took the flag, e.g. Debian 13's 6.12.117); 7.2 warns at
 * alloc_workqueue() when it says neither. WQ_PERCPU is an enum value,
 * so Kbuild looks for it in the headers (RDS_HAVE_WQ_PERCPU). Ours stay
 * per-CPU, as on the kernels before the flag.
 */
#ifdef RDS_HAVE_WQ_PERCPU
#define RDS_WQ_PERCPU	WQ_PERCPU
#else
#define RDS_WQ_PERCPU	0
#endif

/*
 * lock_map_acquire_try(): since 6.6, and in the 6.1 stable series from
 * after 6.1.176 (Debian 12's 6.1.0-50, 6.1.176, lacks it; its 6.1.0-56,
 * 6.1.192, has it). A macro where it exists. Without lockdep it must not
 * name its argument: the map is then not a member of the structure.
 */
#if defined(lock_map_acquire_try)
#define rds_lock_map_acquire_try(l)	lock_map_acquire_try(l)
#elif defined(CONFIG_LOCKDEP)
#define rds_lock_map_acquire_try(l)	lock_acquire_exclusive(l, 0, 1, NULL, _THIS_IP_)
#else
#define rds_lock_map_acquire_try(l)	do { } while (0)
#endif

/* get_unaligned_*() and put_unaligned_*(): a generic header since 6.12. */
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/**
 * rds_iter_get_user_pages - hold the user pages under the next bytes of @i
 * @i: a user-backed iterator (user_backed_iter()); advanced past them
 * @pages: room for @maxpages pages
 * @maxsize: at most this many bytes
 * @maxpages: at most this many pages
 * @off: where the bytes start in the first page
 *
 * Since 6.3 the pages are pinned (FOLL_PIN, iov_iter_extract_pages()):
 * the kernel reads their contents, which is what pins are for. Before,
 * they are referenced (iov_iter_get_pages2()), as TCP's own MSG_ZEROCOPY
 * does on those kernels. Never FOLL_LONGTERM: the hold lasts until the
 * peer acks, and a long-term pin would migrate the pages out of movable
 * memory on every send. Release each with rds_put_user_page().
 *
 * Return: bytes held (from one iovec segment), or -errno.
 */
static inline ssize_t rds_iter_get_user_pages(struct iov_iter *i,
					      struct page **pages,
					      size_t maxsize,
					      unsigned int maxpages,
					      size_t *off)
{
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
	return iov_iter_extract_pages(i, &pages, maxsize, maxpages, 0, off);
#else
	return iov_iter_get_pages2(i, pages, maxsize, maxpages, off);
#endif
}

/* Give back a page from rds_iter_get_user_pages(); any context. */
static inline void rds_put_user_page(struct page *page)
{
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
	unpin_user_page(page);
#else
	put_page(page);
#endif
}

#endif /* _NET_RDS_COMPAT_H */
