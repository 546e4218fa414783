// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: claims the AF_RDS family, as another RDS implementation
 * would, so a test can check that our rds.ko then refuses to load with a
 * clear message instead of misbehaving. Never installed.
 */
#include <linux/module.h>
#include <linux/net.h>
#include <linux/socket.h>

static int rds_test_pf_create(struct net *net, struct socket *sock,
			      int protocol, int kern)
{
	return -EAFNOSUPPORT;
}

static const struct net_proto_family rds_test_pf_family = {
	.family	= AF_RDS,
	.create	= rds_test_pf_create,
	.owner	= THIS_MODULE,
};

static int __init rds_test_pf_init(void)
{
	return sock_register(&rds_test_pf_family);
}

static void __exit rds_test_pf_exit(void)
{
	sock_unregister(AF_RDS);
}

module_init(rds_test_pf_init);
module_exit(rds_test_pf_exit);
MODULE_DESCRIPTION("rds selftest: holds AF_RDS");
MODULE_LICENSE("GPL");
