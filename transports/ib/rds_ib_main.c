// SPDX-License-Identifier: GPL-2.0
/*
 * rds_rdma.ko: RDS over InfiniBand and RoCE. Skeleton: registers the
 * transport; the verbs engine arrives with the IB transport issue.
 */
#include <linux/module.h>
#include <net/rds/transport.h>

static int rds_ib_laddr_check(struct net *net, const struct in6_addr *addr,
			      __u32 scope_id)
{
	return -EADDRNOTAVAIL;
}

static const struct rds_transport rds_ib_transport = {
	.name		= "infiniband",
	.type		= RDS_TRANS_TYPE_IB,
	.owner		= THIS_MODULE,
	.laddr_check	= rds_ib_laddr_check,
};

static int __init rds_ib_init(void)
{
	return rds_trans_register(&rds_ib_transport);
}

static void __exit rds_ib_exit(void)
{
	rds_trans_unregister(&rds_ib_transport);
}

module_init(rds_ib_init);
module_exit(rds_ib_exit);

MODULE_DESCRIPTION("RDS: InfiniBand/RoCE transport");
MODULE_LICENSE("GPL");
