// SPDX-License-Identifier: GPL-2.0
/*
 * The AF_RDS socket family: module init/exit and the socket entry points.
 */
#include <linux/module.h>
#include <linux/net.h>
#include <net/sock.h>

#include "rds_core.h"

struct rds_sock {
	struct sock	rs_sk;
};

static struct proto rds_proto = {
	.name		= "RDS",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct rds_sock),
};

static int rds_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (!sk)
		return 0;
	sock_orphan(sk);
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

static const struct proto_ops rds_proto_ops = {
	.family		= AF_RDS,
	.owner		= THIS_MODULE,
	.release	= rds_release,
	.bind		= sock_no_bind,
	.connect	= sock_no_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= sock_no_getname,
	.poll		= datagram_poll,
	.ioctl		= sock_no_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.sendmsg	= sock_no_sendmsg,
	.recvmsg	= sock_no_recvmsg,
	.mmap		= sock_no_mmap,
	.sendpage	= sock_no_sendpage,
};

static int rds_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	struct sock *sk;

	/* Same errno as Linux's RDS for both, so applications see no change. */
	if (sock->type != SOCK_SEQPACKET || protocol)
		return -ESOCKTNOSUPPORT;

	sk = sk_alloc(net, AF_RDS, GFP_KERNEL, &rds_proto, kern);
	if (!sk)
		return -ENOMEM;

	sock_init_data(sock, sk);
	sock->ops = &rds_proto_ops;
	sk->sk_protocol = protocol;
	return 0;
}

static const struct net_proto_family rds_family_ops = {
	.family	= AF_RDS,
	.create	= rds_create,
	.owner	= THIS_MODULE,
};

static int __init rds_init(void)
{
	int ret;

	ret = rds_trans_init();
	if (ret)
		return ret;

	ret = proto_register(&rds_proto, 1);
	if (ret)
		goto err_trans;

	ret = sock_register(&rds_family_ops);
	if (ret) {
		if (ret == -EEXIST)
			pr_err("rds: address family %d is already registered; unload the other RDS implementation (e.g. Linux's in-tree rds.ko) first\n",
			       AF_RDS);
		goto err_proto;
	}
	return 0;

err_proto:
	proto_unregister(&rds_proto);
err_trans:
	rds_trans_exit();
	return ret;
}

static void __exit rds_exit(void)
{
	sock_unregister(AF_RDS);
	proto_unregister(&rds_proto);
	rds_trans_exit();
}

module_init(rds_init);
module_exit(rds_exit);

MODULE_DESCRIPTION("RDS: Reliable Datagram Sockets (AF_RDS)");
MODULE_LICENSE("GPL");
MODULE_ALIAS_NETPROTO(PF_RDS);
