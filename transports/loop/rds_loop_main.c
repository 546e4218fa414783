// SPDX-License-Identifier: GPL-2.0
/*
 * rds_loop.ko: the loopback transport, for sockets bound to 127.0.0.0/8
 * or ::1. Messages never leave the host.
 */
#include <linux/module.h>
#include <net/ipv6.h>
#include <net/rds/transport.h>

static int rds_loop_laddr_check(struct net *net, const struct in6_addr *addr,
				__u32 scope_id)
{
	if (ipv6_addr_v4mapped(addr) ?
	    ipv4_is_loopback(addr->s6_addr32[3]) : ipv6_addr_loopback(addr))
		return 0;
	return -EADDRNOTAVAIL;
}

static const struct rds_transport rds_loop_transport = {
	.name		= "loopback",
	.type		= RDS_TRANS_TYPE_LOOP,
	.owner		= THIS_MODULE,
	.laddr_check	= rds_loop_laddr_check,
};

static int __init rds_loop_init(void)
{
	return rds_trans_register(&rds_loop_transport);
}

static void __exit rds_loop_exit(void)
{
	rds_trans_unregister(&rds_loop_transport);
}

module_init(rds_loop_init);
module_exit(rds_loop_exit);

MODULE_DESCRIPTION("RDS: loopback transport");
MODULE_LICENSE("GPL");
