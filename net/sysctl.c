// SPDX-License-Identifier: GPL-2.0
/* net.rds.* sysctls, one set per network namespace. */
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "rds_core.h"

static int rds_sysctl_one = 1;
static int rds_sysctl_max_ms = 60 * MSEC_PER_SEC;
static int rds_sysctl_max_conns = 1 << 20;
static int rds_sysctl_min_idle_ms = 100;

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
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &rds_sysctl_min_idle_ms,
	},
	{ }
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

	rn->sysctl_hdr = register_net_sysctl(rn->net, "net/rds", table);
	if (!rn->sysctl_hdr) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

void rds_sysctl_net_exit(struct rds_net *rn)
{
	struct ctl_table *table = rn->sysctl_hdr->ctl_table_arg;

	unregister_net_sysctl_table(rn->sysctl_hdr);
	kfree(table);
}
