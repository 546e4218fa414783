// SPDX-License-Identifier: GPL-2.0
/*
 * rds_iwarp.ko: RDS over iWARP. Skeleton: registers the transport; it will
 * reuse the IB verbs engine and add only what iWARP needs differently.
 */
#include <linux/module.h>
#include <net/rds/transport.h>

static int rds_iw_laddr_check(struct net *net, const struct in6_addr *addr,
			      __u32 scope_id)
{
	return -EADDRNOTAVAIL;
}

static const struct rds_transport rds_iw_transport = {
	.name		= "iwarp",
	.type		= RDS_TRANS_TYPE_IWARP,
	.owner		= THIS_MODULE,
	.laddr_check	= rds_iw_laddr_check,
};

static int __init rds_iw_init(void)
{
	return rds_trans_register(&rds_iw_transport);
}

static void __exit rds_iw_exit(void)
{
	rds_trans_unregister(&rds_iw_transport);
}

module_init(rds_iw_init);
module_exit(rds_iw_exit);

MODULE_DESCRIPTION("RDS: iWARP transport");
MODULE_LICENSE("GPL");
