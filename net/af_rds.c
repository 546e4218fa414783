// SPDX-License-Identifier: GPL-2.0
/*
 * The AF_RDS socket family: socket life cycle, connect, getname, poll,
 * ioctl, and module init/exit.
 */
#include <linux/module.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "rds_core.h"

/* Socket memory accounting, only so that the core charges a socket's
 * queued messages to its memory cgroup (sk_memcg; net/recv.c). The
 * protocol-wide limits are never reached: RDS bounds each socket's
 * queue itself, and memory.max bounds the cgroup.
 */
static atomic_long_t rds_memory_allocated;
/* Sockets made so far: each one's number salts its region keys. */
static atomic64_t rds_sock_serial;
static DEFINE_PER_CPU(int, rds_memory_per_cpu_fw_alloc);
static long rds_sysctl_mem[3] = { LONG_MAX, LONG_MAX, LONG_MAX };
static int rds_sysctl_rmem[3];

static struct proto rds_proto = {
	.name			= "RDS",
	.owner			= THIS_MODULE,
	.obj_size		= sizeof(struct rds_sock),
	.memory_allocated	= &rds_memory_allocated,
	.per_cpu_fw_alloc	= &rds_memory_per_cpu_fw_alloc,
	.sysctl_mem		= rds_sysctl_mem,
	.sysctl_rmem		= rds_sysctl_rmem,
};

static void rds_sock_unlink(struct rds_sock *rs)
{
	struct rds_net *rn = rds_sock_rn(rs);

	spin_lock_bh(&rn->sock_lock);
	list_del_init(&rs->rs_item);
	list_del_init(&rs->rs_cong_mon_item);
	rn->sock_count--;
	spin_unlock_bh(&rn->sock_lock);
}

static int rds_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs;

	if (!sk)
		return 0;
	rs = rds_sk_to_rs(sk);

	sock_orphan(sk);
	/* Nothing new can arrive once we are out of the bind table. */
	rds_remove_bound(rs);
	rds_send_drop_to(rs, NULL, 0);
	rds_send_release_dests(rs);
	rds_clear_recv_queue(rs);
	rds_rdma_drop_notifications(rs);
	rds_zcopy_drop_completions(rs);
	rds_rdma_drop_mrs(rs);
	xa_destroy(&rs->rs_mrs);
	rds_sock_unlink(rs);
	rds_send_release_conn(rs);

	rds_cong_map_put(rds_net(sock_net(sk)), rs->rs_cong_map);
	rs->rs_cong_map = NULL;
	rds_trans_put(rs->rs_loop_transport);
	rs->rs_loop_transport = NULL;
	rds_trans_put(rs->rs_transport);
	rs->rs_transport = NULL;

	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

static void rds_sock_destruct(struct sock *sk)
{
	struct rds_sock *rs = rds_sk_to_rs(sk);

	WARN_ON_ONCE(!list_empty(&rs->rs_send_queue));
	WARN_ON_ONCE(!list_empty(&rs->rs_recv_queue));
	WARN_ON_ONCE(sk->sk_forward_alloc);	/* every charge given back */
	WARN_ON_ONCE(!list_empty(&rs->rs_zcookie_queue));
	rds_obj_dec(RDS_OBJ_SOCK);
}

/* Write @addr:@port as sockaddr_in (@v4) or sockaddr_in6; return its size. */
static int rds_fill_name(struct sockaddr *uaddr, const struct in6_addr *addr,
			 __be16 port, u32 scope_id, bool v4)
{
	DECLARE_SOCKADDR(struct sockaddr_in6 *, sin6, uaddr);
	DECLARE_SOCKADDR(struct sockaddr_in *, sin, uaddr);

	if (v4) {
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = port;
		sin->sin_addr.s_addr = addr->s6_addr32[3];
		return sizeof(*sin);
	}
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = port;
	sin6->sin6_addr = *addr;
	sin6->sin6_scope_id = scope_id;
	return sizeof(*sin6);
}

static int rds_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct rds_sock *rs = rds_sk_to_rs(sock->sk);
	const struct in6_addr *conn = &rs->rs_conn_addr;
	const struct in6_addr *bound = &rs->rs_bound.addr;
	int ret;

	lock_sock(sock->sk);
	if (peer) {
		ret = -ENOTCONN;
		if (!ipv6_addr_any(conn))
			ret = rds_fill_name(uaddr, conn, rs->rs_conn_port,
					    rds_sock_scope_id(rs),
					    ipv6_addr_v4mapped(conn));
	} else if (rs->rs_bound_ok) {
		ret = rds_fill_name(uaddr, bound, rs->rs_bound.port,
				    rs->rs_bound.scope_id,
				    ipv6_addr_v4mapped(bound));
	} else if (ipv6_addr_any(conn)) {
		/* Unbound and unconnected: AF_UNSPEC (sockaddr_in sized),
		 * as Linux's RDS does.
		 */
		memset(uaddr, 0, sizeof(struct sockaddr_in));
		uaddr->sa_family = AF_UNSPEC;
		ret = sizeof(struct sockaddr_in);
	} else {
		/* Unbound: a zero address of the destination's family. */
		ret = rds_fill_name(uaddr, &in6addr_any, 0, 0,
				    ipv6_addr_v4mapped(conn));
	}
	release_sock(sock->sk);
	return ret;
}

static int rds_connect_v6(struct rds_sock *rs, const struct sockaddr_in6 *sin6)
{
	int type = ipv6_addr_type(&sin6->sin6_addr);

	if (!(type & IPV6_ADDR_UNICAST)) {
		__be32 a4 = sin6->sin6_addr.s6_addr32[3];

		if (!(type & IPV6_ADDR_MAPPED) || a4 == htonl(INADDR_ANY) ||
		    a4 == htonl(INADDR_BROADCAST) || ipv4_is_multicast(a4))
			return -EPROTOTYPE;
	}
	if (type & IPV6_ADDR_LINKLOCAL) {
		/* The peer must be on the bound address's link. */
		if (!sin6->sin6_scope_id ||
		    (rs->rs_bound.scope_id &&
		     sin6->sin6_scope_id != rs->rs_bound.scope_id))
			return -EINVAL;
	}
	/* Never into rs_bound: that is the bind table's key. */
	WRITE_ONCE(rs->rs_conn_scope_id, (type & IPV6_ADDR_LINKLOCAL) ?
					 sin6->sin6_scope_id : 0);
	rs->rs_conn_addr = sin6->sin6_addr;
	rs->rs_conn_port = sin6->sin6_port;
	return 0;
}

static int rds_connect(struct socket *sock, rds_sockaddr_arg *uaddr,
		       int addr_len, int flags)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs = rds_sk_to_rs(sk);
	DECLARE_SOCKADDR(struct sockaddr_in *, sin, uaddr);
	int ret = 0;

	if (addr_len < (int)offsetofend(struct sockaddr, sa_family))
		return -EINVAL;

	lock_sock(sk);
	switch (uaddr->sa_family) {
	case AF_INET:
		if (addr_len < (int)sizeof(*sin)) {
			ret = -EINVAL;
		} else if (sin->sin_addr.s_addr == htonl(INADDR_ANY)) {
			ret = -EDESTADDRREQ;
		} else if (ipv4_is_multicast(sin->sin_addr.s_addr) ||
			   sin->sin_addr.s_addr == htonl(INADDR_BROADCAST)) {
			ret = -EINVAL;
		} else {
			ipv6_addr_set_v4mapped(sin->sin_addr.s_addr,
					       &rs->rs_conn_addr);
			rs->rs_conn_port = sin->sin_port;
			WRITE_ONCE(rs->rs_conn_scope_id, 0);
		}
		break;
	case AF_INET6:
		if (addr_len < (int)sizeof(struct sockaddr_in6))
			ret = -EINVAL;
		else
			ret = rds_connect_v6(rs, (struct sockaddr_in6 *)uaddr);
		break;
	default:
		ret = -EAFNOSUPPORT;
		break;
	}
	release_sock(sk);
	return ret;
}

static __poll_t rds_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs = rds_sk_to_rs(sk);
	struct rds_net *rn = rds_net(sock_net(sk));
	__poll_t mask = 0;
	int gen;

	poll_wait(file, sk_sleep(sk), wait);
	if (READ_ONCE(rs->rs_seen_congestion)) {
		poll_wait(file, &rn->cong_waitq, wait);
		/* A map changed since our send met congestion: try again. */
		gen = atomic_read(&rn->cong_gen);
		if (!rs->rs_cong_monitor && gen != READ_ONCE(rs->rs_cong_track)) {
			WRITE_ONCE(rs->rs_cong_track, gen);
			mask |= EPOLLIN | EPOLLRDNORM | EPOLLWRBAND;
		}
	}
	/* rs_seen_congestion stays set until a send succeeds, so a poller
	 * keeps watching the maps until the destination drains.
	 */

	spin_lock_bh(&rs->rs_lock);
	if (rs->rs_cong_notify || !list_empty(&rs->rs_recv_queue) ||
	    !list_empty(&rs->rs_notify_queue) ||
	    !list_empty(&rs->rs_zcookie_queue))
		mask |= EPOLLIN | EPOLLRDNORM;
	/* For the last destination tried: rds_send_writable_locked(). */
	if (rds_send_writable_locked(rs))
		mask |= EPOLLOUT | EPOLLWRNORM;
	spin_unlock_bh(&rs->rs_lock);
	if (sk->sk_err || !skb_queue_empty_lockless(&sk->sk_error_queue))
		mask |= EPOLLERR;
	return mask;
}

static int rds_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	struct rds_sock *rs = rds_sk_to_rs(sock->sk);
	const struct rds_transport *trans;
	rds_tos_t tos;
	int ret = 0;

	switch (cmd) {
	case SIOCRDSSETTOS:
		if (get_user(tos, (rds_tos_t __user *)arg))
			return -EFAULT;
		/* Unbound: no transport to serve it (Linux's ENOTTY). */
		trans = READ_ONCE(rs->rs_transport);
		if (!trans)
			return -ENOIOCTLCMD;
		if (trans->tos_map)
			tos = trans->tos_map(tos);
		lock_sock(sock->sk);
		/* Fixed once set or once the socket has sent. */
		if (rs->rs_tos || READ_ONCE(rs->rs_has_sent))
			ret = -EINVAL;
		else
			rs->rs_tos = tos;
		release_sock(sock->sk);
		return ret;
	case SIOCRDSGETTOS:
		tos = READ_ONCE(rs->rs_tos);
		return put_user(tos, (rds_tos_t __user *)arg) ? -EFAULT : 0;
	default:
		return -ENOIOCTLCMD;
	}
}

static const struct proto_ops rds_proto_ops = {
	.family		= AF_RDS,
	.owner		= THIS_MODULE,
	.release	= rds_release,
	.bind		= rds_bind,
	.connect	= rds_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= rds_getname,
	.poll		= rds_poll,
	.ioctl		= rds_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.setsockopt	= rds_setsockopt,
	.getsockopt	= rds_getsockopt,
	.sendmsg	= rds_sendmsg,
	.recvmsg	= rds_recvmsg,
	.mmap		= sock_no_mmap,
};

static int rds_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	struct rds_net *rn = rds_net(net);
	struct rds_sock *rs;
	struct sock *sk;

	/* Same errno as Linux's RDS for both, so applications see no change. */
	if (sock->type != SOCK_SEQPACKET || protocol)
		return -ESOCKTNOSUPPORT;

	sk = sk_alloc(net, AF_RDS, GFP_KERNEL, &rds_proto, kern);
	if (!sk)
		return -ENOMEM;

	sock_init_data(sock, sk);
	/* Bind-table lookups run under RCU only. */
	sock_set_flag(sk, SOCK_RCU_FREE);
	sock->ops = &rds_proto_ops;
	sk->sk_protocol = protocol;
	sk->sk_destruct = rds_sock_destruct;

	rs = rds_sk_to_rs(sk);
	rs->rs_rn = rn;
	spin_lock_init(&rs->rs_lock);
	INIT_LIST_HEAD(&rs->rs_send_queue);
	INIT_LIST_HEAD(&rs->rs_recv_queue);
	INIT_LIST_HEAD(&rs->rs_notify_queue);
	INIT_LIST_HEAD(&rs->rs_zcookie_queue);
	INIT_LIST_HEAD(&rs->rs_cong_mon_item);
	INIT_LIST_HEAD(&rs->rs_dests_idle);
	xa_init_flags(&rs->rs_mrs, XA_FLAGS_LOCK_BH);
	atomic64_set(&rs->rs_mr_keygen.kg_count, 0);
	rs->rs_mr_keygen.kg_salt = atomic64_inc_return(&rds_sock_serial);
	memset(&rs->rs_bound, 0, sizeof(rs->rs_bound));
	rs->rs_bound_ok = false;
	rs->rs_conn_addr = in6addr_any;
	rs->rs_conn_port = 0;
	rs->rs_conn_scope_id = 0;
	rs->rs_transport = NULL;
	rs->rs_loop_transport = NULL;
	rs->rs_cong_map = NULL;
	rs->rs_conn = NULL;
	rds_obj_inc(RDS_OBJ_SOCK);

	spin_lock_bh(&rn->sock_lock);
	list_add_tail(&rs->rs_item, &rn->sock_list);
	rn->sock_count++;
	spin_unlock_bh(&rn->sock_lock);
	return 0;
}

static const struct net_proto_family rds_family_ops = {
	.family	= AF_RDS,
	.create	= rds_create,
	.owner	= THIS_MODULE,
};

static __net_init int rds_net_init(struct net *net)
{
	struct rds_net *rn = rds_net(net);
	int ret, i;

	rn->net = net;
	if (net_eq(net, &init_net))
		rds_init_rn = rn;
	rn->hash_seed = get_random_u32();
	/* A peer that sees another value knows we restarted (lanes.c). */
	do {
		rn->gen_num = get_random_u32();
	} while (!rn->gen_num);
	rds_conn_net_init(rn);
	spin_lock_init(&rn->sock_lock);
	INIT_LIST_HEAD(&rn->sock_list);
	INIT_LIST_HEAD(&rn->cong_mon_list);
	spin_lock_init(&rn->cong_lock);
	for (i = 0; i < ARRAY_SIZE(rn->cong_hash); i++)
		INIT_HLIST_HEAD(&rn->cong_hash[i]);
	init_waitqueue_head(&rn->cong_waitq);
	atomic_set(&rn->cong_gen, 0);

	rn->stats = alloc_percpu(struct rds_stats);
	if (!rn->stats)
		return -ENOMEM;

	ret = rds_bind_net_init(rn);
	if (ret)
		goto err_stats;

	ret = rds_send_net_init(rn);
	if (ret)
		goto err_bind;

	ret = rds_sysctl_net_init(rn);
	if (ret)
		goto err_send;
	return 0;

err_send:
	rds_send_net_exit(rn);
err_bind:
	rds_bind_net_exit(rn);
err_stats:
	free_percpu(rn->stats);
	return ret;
}

static __net_exit void rds_net_exit(struct net *net)
{
	struct rds_net *rn = rds_net(net);

	/* Sockets hold the namespace: none are left here. */
	rds_conn_net_exit(rn);
	/* Every closed socket's message left with its connection. */
	WARN_ON_ONCE(atomic_long_read(&rn->orphan_bytes));
	rds_cong_net_exit(rn);
	rds_sysctl_net_exit(rn);
	rds_send_net_exit(rn);
	rds_bind_net_exit(rn);
	free_percpu(rn->stats);
}

static struct pernet_operations rds_net_ops = {
	.init	= rds_net_init,
	.exit	= rds_net_exit,
	.id	= &rds_net_id,
	.size	= sizeof(struct rds_net),
};

static int __init rds_init(void)
{
	int ret;

	ret = rds_trans_init();
	if (ret)
		return ret;

	rds_wq = alloc_workqueue("krdsd", WQ_MEM_RECLAIM | RDS_WQ_PERCPU, 0);
	if (!rds_wq) {
		ret = -ENOMEM;
		goto err_trans;
	}

	ret = rds_conn_init();
	if (ret)
		goto err_wq;

	ret = register_pernet_subsys(&rds_net_ops);
	if (ret)
		goto err_conn;

	ret = proto_register(&rds_proto, 1);
	if (ret)
		goto err_pernet;

	ret = sock_register(&rds_family_ops);
	if (ret) {
		if (ret == -EEXIST)
			pr_err("rds: address family %d is already registered; unload the other RDS implementation (e.g. Linux's in-tree rds.ko) first\n",
			       AF_RDS);
		goto err_proto;
	}
	rds_debugfs_init();
	return 0;

err_proto:
	proto_unregister(&rds_proto);
err_pernet:
	unregister_pernet_subsys(&rds_net_ops);
err_conn:
	rds_conn_exit();
err_wq:
	destroy_workqueue(rds_wq);
err_trans:
	rds_trans_exit();
	return ret;
}

static void __exit rds_exit(void)
{
	rds_debugfs_exit();
	sock_unregister(AF_RDS);
	proto_unregister(&rds_proto);
	unregister_pernet_subsys(&rds_net_ops);
	rds_conn_exit();
	destroy_workqueue(rds_wq);
	rds_msg_pages_exit();
	rds_trans_exit();
}

module_init(rds_init);
module_exit(rds_exit);

MODULE_DESCRIPTION("RDS: Reliable Datagram Sockets (AF_RDS)");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDS_VERSION);
MODULE_ALIAS_NETPROTO(PF_RDS);
