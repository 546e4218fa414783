// SPDX-License-Identifier: GPL-2.0
/*
 * net.rds.ib: the engine's tunables, with Linux's names and defaults,
 * max_frag_size (ours; UEK has it as a module parameter), and ha_routes
 * and ha_failback_ms (ours: rds_rdma_route.c), and heartbeat_ms (ours:
 * rds_rdma_live.c), and min_recv_wr (ours: rds_rdma_recv.c), and srq,
 * srq_max_wr and srq_min_wr (ours: rds_rdma_srq.c). Ring and fragment
 * sizes and srq apply to connections made after the change; SRQ sizes
 * to SRQs made after it.
 */
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/rds/compat.h>

#include "rds_rdma.h"

unsigned int rds_rdma_sysctl_max_send_wr = 256;
unsigned int rds_rdma_sysctl_max_recv_wr = 1024;
/* Ours: receive slots a connection keeps posted while its traffic asks
 * for no more (up to max_recv_wr), where the peer retries on RNR.
 */
unsigned int rds_rdma_sysctl_min_recv_wr = 32;
unsigned int rds_rdma_sysctl_max_unsignaled_wr = 16;
/* Ours: where the peer retries on RNR, queue pairs share their device's
 * receive queue of up to srq_max_wr slots (16 MiB with 16 KiB
 * fragments), of which a quiet device keeps srq_min_wr posted.
 */
unsigned int rds_rdma_sysctl_srq = 1;
unsigned int rds_rdma_sysctl_srq_max_wr = 1024;
unsigned int rds_rdma_sysctl_srq_min_wr = 64;
unsigned int rds_rdma_sysctl_max_frag_size = 16384;
/* Ours: routes over other ports between two of ours (rds_rdma_route.c),
 * and how long a primary port must be up before connections go back.
 */
unsigned int rds_rdma_sysctl_ha_routes = 1;
unsigned int rds_rdma_sysctl_ha_failback_ms = 3000;
/* Ours: the heartbeat period of a quiet connection; 0 turns them off,
 * and less than 100 counts as 100 (rds_rdma_live.c).
 */
unsigned int rds_rdma_sysctl_heartbeat_ms = 2000;
/* Ours: interfaces routes never use, separated by spaces or commas. */
char rds_rdma_sysctl_ha_exclude[RDS_RDMA_HA_EXCLUDE_LEN];
DEFINE_SPINLOCK(rds_rdma_ha_exclude_lock);

/* A reader never sees half a write. */
static int rds_rdma_ha_exclude_handler(rds_ctl_table *table,
				       int write, void *buffer, size_t *lenp,
				       loff_t *ppos)
{
	char tmp[RDS_RDMA_HA_EXCLUDE_LEN];
	struct ctl_table t = *table;
	int ret;

	spin_lock_bh(&rds_rdma_ha_exclude_lock);
	memcpy(tmp, rds_rdma_sysctl_ha_exclude, sizeof(tmp));
	spin_unlock_bh(&rds_rdma_ha_exclude_lock);
	t.data = tmp;
	ret = proc_dostring(&t, write, buffer, lenp, ppos);
	if (write && !ret) {
		spin_lock_bh(&rds_rdma_ha_exclude_lock);
		memcpy(rds_rdma_sysctl_ha_exclude, tmp, sizeof(tmp));
		spin_unlock_bh(&rds_rdma_ha_exclude_lock);
	}
	return ret;
}

static unsigned int rds_rdma_wr_min = 8;
static unsigned int rds_rdma_wr_max = 65536;
static unsigned int rds_rdma_unsignaled_min = 1;
static unsigned int rds_rdma_frag_min = RDS_FRAG_SIZE;
static unsigned int rds_rdma_frag_max = RDS_RDMA_MAX_FRAG_PAGES * RDS_FRAG_SIZE;
static unsigned int rds_rdma_zero;
static unsigned int rds_rdma_one = 1;
static unsigned int rds_rdma_failback_max = 600000;
static unsigned int rds_rdma_heartbeat_max = 60000;

static struct ctl_table rds_rdma_sysctl_table[] = {
	{
		.procname	= "max_send_wr",
		.data		= &rds_rdma_sysctl_max_send_wr,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &rds_rdma_wr_min,
		.extra2		= &rds_rdma_wr_max,
	},
	{
		.procname	= "max_recv_wr",
		.data		= &rds_rdma_sysctl_max_recv_wr,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &rds_rdma_wr_min,
		.extra2		= &rds_rdma_wr_max,
	},
	{
		.procname	= "min_recv_wr",
		.data		= &rds_rdma_sysctl_min_recv_wr,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &rds_rdma_wr_min,
		.extra2		= &rds_rdma_wr_max,
	},
	{
		.procname	= "srq",
		.data		= &rds_rdma_sysctl_srq,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &rds_rdma_zero,
		.extra2		= &rds_rdma_one,
	},
	{
		.procname	= "srq_max_wr",
		.data		= &rds_rdma_sysctl_srq_max_wr,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &rds_rdma_wr_min,
		.extra2		= &rds_rdma_wr_max,
	},
	{
		.procname	= "srq_min_wr",
		.data		= &rds_rdma_sysctl_srq_min_wr,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &rds_rdma_wr_min,
		.extra2		= &rds_rdma_wr_max,
	},
	{
		.procname	= "max_unsignaled_wr",
		.data		= &rds_rdma_sysctl_max_unsignaled_wr,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &rds_rdma_unsignaled_min,
		.extra2		= &rds_rdma_wr_max,
	},
	{
		.procname	= "max_frag_size",
		.data		= &rds_rdma_sysctl_max_frag_size,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &rds_rdma_frag_min,
		.extra2		= &rds_rdma_frag_max,
	},
	{
		.procname	= "ha_routes",
		.data		= &rds_rdma_sysctl_ha_routes,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &rds_rdma_zero,
		.extra2		= &rds_rdma_one,
	},
	{
		.procname	= "ha_failback_ms",
		.data		= &rds_rdma_sysctl_ha_failback_ms,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &rds_rdma_zero,
		.extra2		= &rds_rdma_failback_max,
	},
	{
		.procname	= "heartbeat_ms",
		.data		= &rds_rdma_sysctl_heartbeat_ms,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &rds_rdma_zero,
		.extra2		= &rds_rdma_heartbeat_max,
	},
	{
		.procname	= "ha_exclude",
		.data		= &rds_rdma_sysctl_ha_exclude,
		.maxlen		= RDS_RDMA_HA_EXCLUDE_LEN,
		.mode		= 0644,
		.proc_handler	= rds_rdma_ha_exclude_handler,
	},
	{ }
};

static struct ctl_table_header *rds_rdma_sysctl_hdr;

int rds_rdma_sysctl_init(void)
{
	rds_rdma_sysctl_hdr = rds_register_net_sysctl(&init_net, "net/rds/ib",
						      rds_rdma_sysctl_table,
						      ARRAY_SIZE(rds_rdma_sysctl_table) - 1);
	return rds_rdma_sysctl_hdr ? 0 : -ENOMEM;
}

void rds_rdma_sysctl_exit(void)
{
	unregister_net_sysctl_table(rds_rdma_sysctl_hdr);
}
