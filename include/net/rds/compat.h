/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels rds builds for, in one place.
 * Tested: Linux 6.1 (Debian 12) and 6.12 (Debian 13); see
 * Documentation/testbed.rst for adding another. Each wrapper tests for
 * the feature itself where the preprocessor can see it, else the version
 * that brought it, and the code calls the wrapper unconditionally.
 */
#ifndef _NET_RDS_COMPAT_H
#define _NET_RDS_COMPAT_H

#include <linux/sysctl.h>
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

/* get_unaligned_*() and put_unaligned_*(): a generic header since 6.12. */
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#endif /* _NET_RDS_COMPAT_H */
