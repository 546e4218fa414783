// SPDX-License-Identifier: GPL-2.0
/*
 * rds_tcp.ko: RDS over TCP (port 16385). Skeleton: registers the transport;
 * the connection and data paths arrive with the TCP transport issue.
 */
#include <linux/module.h>
#include <net/rds/transport.h>

static int rds_tcp_laddr_check(struct net *net, const struct in6_addr *addr,
			       __u32 scope_id)
{
	return -EADDRNOTAVAIL;
}

static const struct rds_transport rds_tcp_transport = {
	.name		= "tcp",
	.type		= RDS_TRANS_TYPE_TCP,
	.owner		= THIS_MODULE,
	.laddr_check	= rds_tcp_laddr_check,
};

static int __init rds_tcp_init(void)
{
	return rds_trans_register(&rds_tcp_transport);
}

static void __exit rds_tcp_exit(void)
{
	rds_trans_unregister(&rds_tcp_transport);
}

module_init(rds_tcp_init);
module_exit(rds_tcp_exit);

MODULE_DESCRIPTION("RDS: TCP transport");
MODULE_LICENSE("GPL");
