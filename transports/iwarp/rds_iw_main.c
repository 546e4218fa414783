// SPDX-License-Identifier: GPL-2.0
/*
 * rds_iwarp.ko: RDS over iWARP, on the verbs engine of rds_rdma.ko (which
 * must stay loaded while this module is: a module dependency). Only what
 * differs lives here, as flavor flags the engine reads: the devices
 * served (RNIC), no atomics, WRITE completions that are only local (the
 * engine puts a one-byte READ behind each WRITE), messages that wait for
 * their RDMA to complete (READs are answered after the SENDs behind them),
 * no RNR retry (4 KiB fragments), and RDS_INFO_IWARP_CONNECTIONS. The engine covers the rest
 * (rdma_rw knows iWARP's READ-sink rule; the registration queue pair is
 * a connected one, as iWARP devices need; a device loops back to its own
 * addresses). Linux has had no iWARP RDS since 4.6: nothing to
 * interoperate with.
 */
#include <linux/module.h>
#include <net/rds/transport.h>

#include "../rdma/rds_rdma.h"

static const struct rds_rdma_flavor rds_iw_flavor;

static int rds_iw_laddr_check(struct net *net, const struct in6_addr *addr,
			      __u32 scope_id)
{
	return rds_rdma_laddr_check(net, addr, scope_id, RDMA_NODE_RNIC);
}

/* The uapi has no IPv6 twin: IPv6 connections show in
 * RDS6_INFO_CONNECTIONS only.
 */
static void rds_iw_info4(struct net *net, struct rds_info_buf *b)
{
	rds_rdma_info_fill(net, b, &rds_iw_flavor.trans, false);
}

static const struct rds_info_table rds_iw_info[] = {
	{ RDS_INFO_IWARP_CONNECTIONS, sizeof(struct rds_info_rdma_connection),
	  rds_iw_info4 },
};

static const struct rds_rdma_flavor rds_iw_flavor = {
	.trans = {
		RDS_RDMA_ENGINE_OPS,
		.name			= "iwarp",
		.type			= RDS_TRANS_TYPE_IWARP,
		.owner			= THIS_MODULE,
		.laddr_check		= rds_iw_laddr_check,
		.info			= rds_iw_info,
		.n_info			= ARRAY_SIZE(rds_iw_info),
	},
	.node_type	= RDMA_NODE_RNIC,
	.atomics	= false,
	.write_completes_remotely = false,
	.send_after_rdma = true,
	.cm_yield	= false,
	.rnr_retry	= false,
	.initiator_first = true,
	.drain_completes = false,
};

static struct rds_rdma_flavor_link rds_iw_link = { .fl = &rds_iw_flavor };

static int __init rds_iw_init(void)
{
	return rds_rdma_flavor_register(&rds_iw_link);
}

static void __exit rds_iw_exit(void)
{
	rds_rdma_flavor_unregister(&rds_iw_link);
}

module_init(rds_iw_init);
module_exit(rds_iw_exit);

MODULE_DESCRIPTION("RDS: iWARP transport");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDS_VERSION);
