// SPDX-License-Identifier: GPL-2.0
/* net.rds.* sysctls, one set per network namespace. */
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include <net/rds/compat.h>

#include "rds_core.h"

static int rds_sysctl_one = 1;
static int rds_sysctl_max_ms = 60 * MSEC_PER_SEC;
static int rds_sysctl_max_conns = 1 << 20;
static int rds_sysctl_min_idle_ms = 100;
static int rds_sysctl_min_connect_ms = 100;
static int rds_sysctl_zero;
static int rds_sysctl_max_peers = 65536;
static int rds_sysctl_max_factor = 1024;
static int rds_sysctl_min_v6_prefix = 32;
static int rds_sysctl_max_v6_prefix = 128;
/* Read-only, for programs whose headers lack AF_RDS and SOL_RDS (qperf
 * reads pf_rds): UEK's names.
 */
static int rds_sysctl_pf_rds = PF_RDS;
static int rds_sysctl_sol_rds = SOL_RDS;

/* A shorter idle time takes effect now, not after the old period. */
static int rds_sysctl_idle_ms(rds_ctl_table *table, int write,
			      void *buffer, size_t *lenp, loff_t *ppos)
{
	int ret = proc_dointvec_minmax(table, write, buffer, lenp, ppos);

	if (!ret && write)
		rds_conn_retune_reaper(container_of(table->data, struct rds_net,
						    conn_idle_ms));
	return ret;
}

static const struct ctl_table rds_sysctl_template[] = {
	{
		.procname	= "reconnect_min_delay_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_one,
		.extra2		= &rds_sysctl_max_ms,
	},
	{
		.procname	= "reconnect_max_delay_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_one,
		.extra2		= &rds_sysctl_max_ms,
	},
	{
		.procname	= "max_unacked_packets",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_one,
	},
	{
		.procname	= "max_unacked_bytes",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_one,
	},
	{
		/* Ours: a local user cannot make connections without bound. */
		.procname	= "max_connections",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_one,
		.extra2		= &rds_sysctl_max_conns,
	},
	{
		/* Ours: idle connections are reaped after this long. */
		.procname	= "conn_idle_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= rds_sysctl_idle_ms,
		.extra1		= &rds_sysctl_min_idle_ms,
	},
	{
		/* Ours: TCP's SYN back-off alone would leave a returning
		 * peer unnoticed for up to a minute.
		 */
		.procname	= "connect_timeout_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_min_connect_ms,
	},
	{
		/* Ours: closed sockets' messages wait this long for a peer. */
		.procname	= "orphan_max_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_zero,
	},
	{
		/* Ours: and this much of them is kept per namespace. */
		.procname	= "orphan_max_kb",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_zero,
	},
	{
		/* UEK's name: destinations a socket may have bytes queued
		 * to at once.
		 */
		.procname	= "sock_max_peers",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_one,
		.extra2		= &rds_sysctl_max_peers,
	},
	{
		/* Ours: a socket's send total, in destination budgets. */
		.procname	= "sock_sndbuf_factor",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_one,
		.extra2		= &rds_sysctl_max_factor,
	},
	{
		/* Ours: connections one peer's attempts may make. */
		.procname	= "peer_max_connections",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_one,
		.extra2		= &rds_sysctl_max_conns,
	},
	{
		/* Ours: idle this long, a peer's connection may be evicted. */
		.procname	= "peer_evict_idle_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_min_idle_ms,
	},
	{
		/* Ours: the IPv6 prefix that is one peer. */
		.procname	= "peer_ipv6_prefix",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_min_v6_prefix,
		.extra2		= &rds_sysctl_max_v6_prefix,
	},
	{
		/* UEK's: answer pings (to port 0) at all. */
		.procname	= "ping_enable",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_zero,
		.extra2		= &rds_sysctl_one,
	},
	{
		.procname	= "pf_rds",
		.data		= &rds_sysctl_pf_rds,
		.maxlen		= sizeof(int),
		.mode		= 0444,
		.proc_handler	= proc_dointvec,
	},
	{
		.procname	= "sol_rds",
		.data		= &rds_sysctl_sol_rds,
		.maxlen		= sizeof(int),
		.mode		= 0444,
		.proc_handler	= proc_dointvec,
	},
	{ }	/* the end, for kernels that look for it (compat.h) */
};

int rds_sysctl_net_init(struct rds_net *rn)
{
	struct ctl_table *table;

	/* Linux's defaults. */
	rn->reconnect_min_ms = 1;
	rn->reconnect_max_ms = 1000;
	rn->max_unacked_packets = 8;
	rn->max_unacked_bytes = 16 << 20;
	/* Ours. */
	rn->max_connections = 16384;
	rn->conn_idle_ms = 300 * MSEC_PER_SEC;
	rn->connect_timeout_ms = 10 * MSEC_PER_SEC;
	/* Longer than a server takes to reboot. */
	rn->orphan_max_ms = 15 * 60 * MSEC_PER_SEC;
	rn->orphan_max_kb = 64 << 10;
	/* UEK's default; ours: what a socket queues in all is bounded. */
	rn->sock_max_peers = 8192;
	rn->sock_sndbuf_factor = 8;
	/* 8 lanes x 4 TOS values. */
	rn->peer_max_connections = 32;
	rn->peer_evict_idle_ms = 10 * MSEC_PER_SEC;
	rn->peer_ipv6_prefix = 64;
	rn->ping_enable = 1;

	table = kmemdup(rds_sysctl_template, sizeof(rds_sysctl_template),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	table[0].data = &rn->reconnect_min_ms;
	table[1].data = &rn->reconnect_max_ms;
	table[2].data = &rn->max_unacked_packets;
	table[3].data = &rn->max_unacked_bytes;
	table[4].data = &rn->max_connections;
	table[5].data = &rn->conn_idle_ms;
	table[6].data = &rn->connect_timeout_ms;
	table[7].data = &rn->orphan_max_ms;
	table[8].data = &rn->orphan_max_kb;
	table[9].data = &rn->sock_max_peers;
	table[10].data = &rn->sock_sndbuf_factor;
	table[11].data = &rn->peer_max_connections;
	table[12].data = &rn->peer_evict_idle_ms;
	table[13].data = &rn->peer_ipv6_prefix;
	table[14].data = &rn->ping_enable;

	rn->sysctl_hdr = rds_register_net_sysctl(rn->net, "net/rds", table,
						 ARRAY_SIZE(rds_sysctl_template) - 1);
	if (!rn->sysctl_hdr) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

void rds_sysctl_net_exit(struct rds_net *rn)
{
	const struct ctl_table *table = rn->sysctl_hdr->ctl_table_arg;

	unregister_net_sysctl_table(rn->sysctl_hdr);
	kfree(table);
}
