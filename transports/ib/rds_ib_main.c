// SPDX-License-Identifier: GPL-2.0
/*
 * rds_rdma.ko: RDS over InfiniBand and RoCE, interoperating with Linux's
 * in-tree rds_rdma. The verbs engine (transports/rdma) does the work;
 * this file is the InfiniBand flavor: which devices (IB_CA), the
 * RDS_INFO_IB_CONNECTIONS tables, and the module, which also starts the
 * engine that rds_iwarp.ko shares.
 */
#include <linux/module.h>
#include <net/rds/transport.h>

#include "../rdma/rds_rdma.h"

static const struct rds_rdma_flavor rds_ib_flavor;

static int rds_ib_laddr_check(struct net *net, const struct in6_addr *addr,
			      __u32 scope_id)
{
	return rds_rdma_laddr_check(net, addr, scope_id, RDMA_NODE_IB_CA);
}

static void rds_ib_info4(struct net *net, struct rds_info_buf *b)
{
	rds_rdma_info_fill(net, b, &rds_ib_flavor.trans, false);
}

static void rds_ib_info6(struct net *net, struct rds_info_buf *b)
{
	rds_rdma_info_fill(net, b, &rds_ib_flavor.trans, true);
}

static const struct rds_info_table rds_ib_info[] = {
	{ RDS_INFO_IB_CONNECTIONS, sizeof(struct rds_info_rdma_connection),
	  rds_ib_info4 },
	{ RDS6_INFO_IB_CONNECTIONS, sizeof(struct rds6_info_rdma_connection),
	  rds_ib_info6 },
};

static const struct rds_rdma_flavor rds_ib_flavor = {
	.trans = {
		RDS_RDMA_ENGINE_OPS,
		.name			= "infiniband",
		.type			= RDS_TRANS_TYPE_IB,
		.owner			= THIS_MODULE,
		.laddr_check		= rds_ib_laddr_check,
		.info			= rds_ib_info,
		.n_info			= ARRAY_SIZE(rds_ib_info),
		.stat_names		= rds_rdma_stat_names,
		.n_stats		= RDS_RDMA_STAT_MAX,
		.stats_sum		= rds_rdma_stats_sum,
	},
	.node_type	= RDMA_NODE_IB_CA,
	.atomics	= true,
	.write_completes_remotely = true,
	.send_after_rdma = false,
	.cm_yield	= true,
	.rnr_retry	= true,
	.initiator_first = false,
	.drain_completes = true,
};

static struct rds_rdma_flavor_link rds_ib_link = { .fl = &rds_ib_flavor };

static int __init rds_ib_init(void)
{
	int ret;

	ret = rds_rdma_engine_init();
	if (ret)
		return ret;
	ret = rds_rdma_flavor_register(&rds_ib_link);
	if (ret)
		rds_rdma_engine_exit();
	return ret;
}

static void __exit rds_ib_exit(void)
{
	rds_rdma_flavor_unregister(&rds_ib_link);
	rds_rdma_engine_exit();
}

module_init(rds_ib_init);
module_exit(rds_ib_exit);

MODULE_DESCRIPTION("RDS: InfiniBand/RoCE transport");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDS_VERSION);
