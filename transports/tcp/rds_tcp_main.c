// SPDX-License-Identifier: GPL-2.0
/*
 * rds_tcp.ko: RDS over TCP (port 16385).
 *
 * This stage serves local addresses: a socket may bind any address of its
 * namespace with the TCP transport, and since TCP prefers loopback (as
 * Linux's rds_tcp), traffic between local addresses is carried by
 * rds_loop. Connections to other hosts need the TCP engine (kernel
 * sockets, framing, acks from the TCP stream), which is its own issue;
 * until then such sends fail with ENETUNREACH.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/rds/connection.h>
#include <net/rds/transport.h>

static int rds_tcp_laddr_check(struct net *net, const struct in6_addr *addr,
			       __u32 scope_id)
{
	struct net_device *dev = NULL;
	bool local;

	if (ipv6_addr_v4mapped(addr))
		return inet_addr_type(net, addr->s6_addr32[3]) == RTN_LOCAL ?
		       0 : -EADDRNOTAVAIL;

	rcu_read_lock();
	if (scope_id) {
		dev = dev_get_by_index_rcu(net, scope_id);
		if (!dev) {
			rcu_read_unlock();
			return -EADDRNOTAVAIL;
		}
	}
	local = ipv6_chk_addr(net, addr, dev, 0);
	rcu_read_unlock();
	return local ? 0 : -EADDRNOTAVAIL;
}

static const struct rds_transport rds_tcp_transport = {
	.name			= "tcp",
	.type			= RDS_TRANS_TYPE_TCP,
	.owner			= THIS_MODULE,
	.prefer_loopback	= true,
	.laddr_check		= rds_tcp_laddr_check,
};

static int __init rds_tcp_init(void)
{
	return rds_trans_register(&rds_tcp_transport);
}

static void __exit rds_tcp_exit(void)
{
	rds_trans_unregister(&rds_tcp_transport);
	rds_conn_destroy_transport(&rds_tcp_transport);
}

module_init(rds_tcp_init);
module_exit(rds_tcp_exit);

MODULE_DESCRIPTION("RDS: TCP transport");
MODULE_LICENSE("GPL");
