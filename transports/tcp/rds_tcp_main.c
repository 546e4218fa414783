// SPDX-License-Identifier: GPL-2.0
/*
 * rds_tcp.ko: RDS over TCP, port 16385, in every network namespace,
 * interoperating with Linux's in-tree rds_tcp.
 *
 * This file holds the module: the transport's ops table, the
 * per-namespace state (listener and the net.rds.tcp sysctls), the
 * RDS_INFO_TCP_SOCKETS tables and the counters. Connections between two
 * local addresses go through the loopback transport (prefer_loopback),
 * as in Linux.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>
#include <net/rds/compat.h>
#include <net/route.h>
#include <net/tcp.h>

#include "rds_tcp.h"

unsigned int rds_tcp_net_id;
struct workqueue_struct *rds_tcp_wq;
DEFINE_PER_CPU(u64 [RDS_TCP_STAT_MAX], rds_tcp_stats);

static const char *const rds_tcp_stat_names[RDS_TCP_STAT_MAX] = {
	[RDS_TCP_STAT_DATA_READY_CALLS]		= "tcp_data_ready_calls",
	[RDS_TCP_STAT_WRITE_SPACE_CALLS]	= "tcp_write_space_calls",
	[RDS_TCP_STAT_SNDBUF_FULL]		= "tcp_sndbuf_full",
	[RDS_TCP_STAT_CONNECT_RACED]		= "tcp_connect_raced",
	[RDS_TCP_STAT_LISTEN_CLOSED_STALE]	= "tcp_listen_closed_stale",
	[RDS_TCP_STAT_ACCEPT_REFUSED]		= "tcp_accept_refused",
	[RDS_TCP_STAT_ACCEPT_LOCAL]		= "tcp_accept_local",
};

struct rds_tcp_net *rds_tcp_net(struct net *net)
{
	return net_generic(net, rds_tcp_net_id);
}

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

/* A peer without a route costs no connection (nor a connect attempt). */
static int rds_tcp_faddr_check(struct net *net, const struct in6_addr *laddr,
			       const struct in6_addr *faddr, __u32 dev_if)
{
	if (ipv6_addr_v4mapped(faddr)) {
		struct flowi4 fl4 = {
			.daddr = faddr->s6_addr32[3],
			.saddr = laddr->s6_addr32[3],
			.flowi4_oif = dev_if,
			.flowi4_proto = IPPROTO_TCP,
		};
		struct rtable *rt = ip_route_output_key(net, &fl4);

		if (IS_ERR(rt))
			return -ENETUNREACH;
		ip_rt_put(rt);
		return 0;
	}
#if IS_ENABLED(CONFIG_IPV6)
	{
		struct flowi6 fl6 = {
			.daddr = *faddr,
			.saddr = *laddr,
			.flowi6_oif = dev_if,
			.flowi6_proto = IPPROTO_TCP,
		};
		struct dst_entry *dst = ip6_route_output(net, NULL, &fl6);
		int err = dst->error;

		dst_release(dst);
		return err ? -ENETUNREACH : 0;
	}
#else
	return -ENETUNREACH;
#endif
}

static int rds_tcp_conn_alloc(struct rds_connection *conn, gfp_t gfp)
{
	struct rds_tcp_conn *tc = rds_tcp_conn(conn);

	mutex_init(&tc->t_mutex);
	spin_lock_init(&tc->t_lock);
	INIT_DELAYED_WORK(&tc->t_recv_w, rds_tcp_recv_worker);
	return 0;
}

static void rds_tcp_conn_free(struct rds_connection *conn)
{
	struct rds_tcp_conn *tc = rds_tcp_conn(conn);

	/* Shut down already (a socket left installed would call into freed
	 * memory from softirq); a socket the peer connected may still wait.
	 */
	if (WARN_ON_ONCE(tc->t_sock))
		rds_tcp_conn_shutdown(conn);
	cancel_delayed_work_sync(&tc->t_recv_w);
	while (tc->t_naccepted)
		sock_release(tc->t_accepted[--tc->t_naccepted]);
	mutex_destroy(&tc->t_mutex);
}

/* Lanes per peer: net.rds.tcp.rds_tcp_lanes, and for a peer without
 * lane ids (Linux) rds_tcp_lanes_legacy, never more.
 */
static unsigned int rds_tcp_max_lanes(struct net *net, bool ids)
{
	struct rds_tcp_net *top = rds_tcp_net(&init_net);
	struct rds_tcp_net *rtn = rds_tcp_net(net);
	int lanes, legacy;

	lanes = rds_tcp_bound(net, READ_ONCE(rtn->lanes), READ_ONCE(top->lanes));
	if (ids)
		return lanes;
	legacy = rds_tcp_bound(net, READ_ONCE(rtn->lanes_legacy),
			       READ_ONCE(top->lanes_legacy));
	return min(lanes, legacy);
}

/* Linux's rds_tcp: a socket over TCP has TOS 0 whatever it asks for. */
static u8 rds_tcp_tos_map(u8 tos)
{
	return 0;
}

/* RDS_INFO_TCP_SOCKETS and its IPv6 twin. */
struct rds_tcp_info_arg {
	struct rds_info_buf	*b;
	bool			v6;
};

/* One connection's record, in the IPv6 layout; false if it has no
 * socket. The receive-side numbers are read unlocked: a snapshot.
 */
static bool rds_tcp_info_fill(struct rds_connection *conn,
			      struct rds6_info_tcp_socket *ts)
{
	struct rds_tcp_conn *tc = rds_tcp_conn(conn);
	unsigned int hdr_got = READ_ONCE(tc->t_hdr_got);
	bool up;

	spin_lock_bh(&tc->t_lock);
	up = tc->t_sock;
	if (up) {
		ts->local_port = inet_sk(tc->t_sock->sk)->inet_sport;
		ts->peer_port = inet_sk(tc->t_sock->sk)->inet_dport;
	}
	spin_unlock_bh(&tc->t_lock);
	if (!up)
		return false;
	ts->local_addr = conn->c_laddr;
	ts->peer_addr = conn->c_faddr;
	ts->hdr_rem = sizeof(struct rds_header) - hdr_got;
	if (hdr_got == sizeof(struct rds_header))
		ts->data_rem = READ_ONCE(tc->t_data_len) -
			       READ_ONCE(tc->t_data_got);
	ts->last_sent_nxt = READ_ONCE(tc->t_last_sent_nxt);
	ts->last_expected_una = READ_ONCE(tc->t_last_expected_una);
	ts->last_seen_una = READ_ONCE(tc->t_last_seen_una);
	return true;
}

static void rds_tcp_info_one(struct rds_connection *conn, void *arg)
{
	struct rds_tcp_info_arg *ia = arg;
	struct rds6_info_tcp_socket ts6 = {};
	struct rds_info_tcp_socket ts = {};

	if (!ia->v6 && conn->c_isv6)
		return;
	if (!rds_tcp_info_fill(conn, &ts6))
		return;
	if (ia->v6) {
		rds_info_emit(ia->b, &ts6);
		return;
	}
	ts.local_addr = ts6.local_addr.s6_addr32[3];
	ts.local_port = ts6.local_port;
	ts.peer_addr = ts6.peer_addr.s6_addr32[3];
	ts.peer_port = ts6.peer_port;
	ts.hdr_rem = ts6.hdr_rem;
	ts.data_rem = ts6.data_rem;
	ts.last_sent_nxt = ts6.last_sent_nxt;
	ts.last_expected_una = ts6.last_expected_una;
	ts.last_seen_una = ts6.last_seen_una;
	ts.tos = conn->c_tos;
	rds_info_emit(ia->b, &ts);
}

static void rds_tcp_info4(struct net *net, struct rds_info_buf *b)
{
	struct rds_tcp_info_arg ia = { .b = b, .v6 = false };

	rds_conn_walk_transport(net, &rds_tcp_transport, rds_tcp_info_one, &ia);
}

static void rds_tcp_info6(struct net *net, struct rds_info_buf *b)
{
	struct rds_tcp_info_arg ia = { .b = b, .v6 = true };

	rds_conn_walk_transport(net, &rds_tcp_transport, rds_tcp_info_one, &ia);
}

static const struct rds_info_table rds_tcp_info[] = {
	{ RDS_INFO_TCP_SOCKETS, sizeof(struct rds_info_tcp_socket),
	  rds_tcp_info4 },
	{ RDS6_INFO_TCP_SOCKETS, sizeof(struct rds6_info_tcp_socket),
	  rds_tcp_info6 },
};

/* Linux's counters are global, not per namespace; so are ours. */
static void rds_tcp_stats_sum(struct net *net, u64 *vals)
{
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < RDS_TCP_STAT_MAX; i++)
			vals[i] += per_cpu(rds_tcp_stats, cpu)[i];
}

const struct rds_transport rds_tcp_transport = {
	.name			= "tcp",
	.type			= RDS_TRANS_TYPE_TCP,
	.owner			= THIS_MODULE,
	.caps			= RDS_TRANS_CAP_WIRE | RDS_TRANS_CAP_NETNS |
				  RDS_TRANS_CAP_ZEROCOPY,
	.prefer_loopback	= true,
	.conn_data_size		= sizeof(struct rds_tcp_conn),
	.laddr_check		= rds_tcp_laddr_check,
	.faddr_check		= rds_tcp_faddr_check,
	.conn_alloc		= rds_tcp_conn_alloc,
	.conn_free		= rds_tcp_conn_free,
	.conn_connect		= rds_tcp_conn_connect,
	.conn_shutdown		= rds_tcp_conn_shutdown,
	.xmit_prepare		= rds_tcp_xmit_prepare,
	.xmit_complete		= rds_tcp_xmit_complete,
	.xmit			= rds_tcp_xmit,
	.max_lanes		= rds_tcp_max_lanes,
	.tos_map		= rds_tcp_tos_map,
	.inc_copy_to_user	= rds_tcp_inc_copy_to_user,
	.inc_free		= rds_tcp_inc_free,
	.info			= rds_tcp_info,
	.n_info			= ARRAY_SIZE(rds_tcp_info),
	.stat_names		= rds_tcp_stat_names,
	.n_stats		= RDS_TCP_STAT_MAX,
	.stats_sum		= rds_tcp_stats_sum,
};

/* net.rds.tcp: socket buffer sizes; 0 lets TCP autotune. */

static void rds_tcp_drop_one(struct rds_connection *conn, void *arg)
{
	rds_conn_drop_reason(conn, RDS_DROP_USER_RESET);
}

/* Read or parse the int behind @table into @val; the caller checks a
 * written value and stores it (extra2 is the namespace, not a bound).
 */
static int rds_tcp_sysctl_int(rds_ctl_table *table, int write, void *buffer,
			      size_t *lenp, loff_t *ppos, int *val)
{
	struct ctl_table tmp = *table;

	*val = *(int *)table->data;
	tmp.data = val;
	tmp.extra1 = NULL;
	tmp.extra2 = NULL;
	return proc_dointvec(&tmp, write, buffer, lenp, ppos);
}

static int rds_tcp_skbuf_handler(rds_ctl_table *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos)
{
	struct net *net = table->extra2;
	int val, ret;

	ret = rds_tcp_sysctl_int(table, write, buffer, lenp, ppos, &val);
	if (ret || !write)
		return ret;
	if (val < 0 || (val && val < (long)table->extra1) || val > INT_MAX / 2)
		return -EINVAL;
	WRITE_ONCE(*(int *)table->data, val);
	/* New sizes apply to new sockets: reconnect, as Linux does. */
	rds_conn_walk_transport(net, &rds_tcp_transport, rds_tcp_drop_one, NULL);
	return 0;
}

static void rds_tcp_retune_one(struct rds_connection *conn, void *arg)
{
	if (!conn->c_lane)
		rds_conn_lanes_retune(conn);
}

/* net.rds.tcp lane counts, 1..RDS_MPATH_WORKERS. Connections stay: our
 * count changes at once and every peer gets a new probe with it.
 */
static int rds_tcp_lanes_handler(rds_ctl_table *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos)
{
	struct net *net = table->extra2;
	int val, ret;

	ret = rds_tcp_sysctl_int(table, write, buffer, lenp, ppos, &val);
	if (ret || !write)
		return ret;
	if (val < 1 || val > RDS_MPATH_WORKERS)
		return -EINVAL;
	WRITE_ONCE(*(int *)table->data, val);
	rds_conn_walk_transport(net, &rds_tcp_transport, rds_tcp_retune_one,
				NULL);
	return 0;
}

static struct ctl_table rds_tcp_sysctl_template[] = {
	{
		.procname	= "rds_tcp_sndbuf",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= rds_tcp_skbuf_handler,
		.extra1		= (void *)(long)SOCK_MIN_SNDBUF,
	},
	{
		.procname	= "rds_tcp_rcvbuf",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= rds_tcp_skbuf_handler,
		.extra1		= (void *)(long)SOCK_MIN_RCVBUF,
	},
	{
		.procname	= "rds_tcp_lanes",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= rds_tcp_lanes_handler,
	},
	{
		.procname	= "rds_tcp_lanes_legacy",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= rds_tcp_lanes_handler,
	},
	{ }
};

static int rds_tcp_sysctl_init(struct net *net, struct rds_tcp_net *rtn)
{
	struct ctl_table *t;

	t = kmemdup(rds_tcp_sysctl_template, sizeof(rds_tcp_sysctl_template),
		    GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t[0].data = &rtn->sndbuf;
	t[0].extra2 = net;
	t[1].data = &rtn->rcvbuf;
	t[1].extra2 = net;
	t[2].data = &rtn->lanes;
	t[2].extra2 = net;
	t[3].data = &rtn->lanes_legacy;
	t[3].extra2 = net;
	rtn->sysctl_hdr = rds_register_net_sysctl(net, "net/rds/tcp", t,
						  ARRAY_SIZE(rds_tcp_sysctl_template) - 1);
	if (!rtn->sysctl_hdr) {
		kfree(t);
		return -ENOMEM;
	}
	rtn->sysctl_table = t;
	return 0;
}

static void rds_tcp_sysctl_exit(struct rds_tcp_net *rtn)
{
	unregister_net_sysctl_table(rtn->sysctl_hdr);
	kfree(rtn->sysctl_table);
}

static int __net_init rds_tcp_net_init(struct net *net)
{
	struct rds_tcp_net *rtn = rds_tcp_net(net);
	int ret;

	/* Lane ids make lanes safe between two of ours; a Linux peer gets
	 * one lane unless asked (Documentation/transports.rst).
	 */
	rtn->lanes = RDS_MPATH_WORKERS;
	rtn->lanes_legacy = 1;
	ret = rds_tcp_sysctl_init(net, rtn);
	if (ret)
		return ret;
	ret = rds_tcp_listen_start(net);
	if (ret)
		goto err_sysctl;
	return 0;

err_sysctl:
	rds_tcp_sysctl_exit(rtn);
	return ret;
}

/* The namespace has no RDS socket left (each holds it): close the
 * listener, then the connections, whose kernel sockets do not hold the
 * namespace and must not outlive it.
 */
static void __net_exit rds_tcp_net_exit(struct net *net)
{
	struct rds_tcp_net *rtn = rds_tcp_net(net);

	rds_tcp_listen_stop(net);
	rds_conn_destroy_transport(&rds_tcp_transport, net);
	rds_tcp_sysctl_exit(rtn);
}

static struct pernet_operations rds_tcp_net_ops = {
	.init	= rds_tcp_net_init,
	.exit	= rds_tcp_net_exit,
	.id	= &rds_tcp_net_id,
	.size	= sizeof(struct rds_tcp_net),
};

static int __init rds_tcp_init(void)
{
	int ret;

	rds_tcp_wq = alloc_workqueue("rds_tcp", WQ_MEM_RECLAIM | RDS_WQ_PERCPU, 0);
	if (!rds_tcp_wq)
		return -ENOMEM;
	ret = rds_trans_register(&rds_tcp_transport);
	if (ret)
		goto err_wq;
	ret = register_pernet_device(&rds_tcp_net_ops);
	if (ret)
		goto err_trans;
	return 0;

err_trans:
	rds_trans_unregister(&rds_tcp_transport);
err_wq:
	destroy_workqueue(rds_tcp_wq);
	return ret;
}

static void __exit rds_tcp_exit(void)
{
	/* Our connections go with the transport while the listeners are
	 * still open: a peer accepted meanwhile joins a connection that is
	 * destroyed with the rest, or finds none, and none can be made for
	 * it any more (the module is going; rds_conn_accept() pins it).
	 */
	rds_trans_unregister(&rds_tcp_transport);
	/* Every namespace's listener goes. */
	unregister_pernet_device(&rds_tcp_net_ops);
	destroy_workqueue(rds_tcp_wq);
}

module_init(rds_tcp_init);
module_exit(rds_tcp_exit);

MODULE_DESCRIPTION("RDS: TCP transport");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDS_VERSION);
