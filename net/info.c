// SPDX-License-Identifier: GPL-2.0
/*
 * RDS_INFO_* getsockopts: snapshots of counters, connections, queued
 * messages and sockets of the caller's namespace, in the uapi record
 * layouts.
 *
 * Protocol (as Linux's RDS): if *optlen is too small for every record the
 * call fails with ENOSPC and sets *optlen to the size needed (a length of
 * 0 is a probe); otherwise it copies the records, sets *optlen to their
 * total size and returns the size of one record.
 */
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "rds_core.h"

struct rds_info_buf {
	char		*data;
	size_t		cap;		/* bytes available in @data */
	size_t		each;		/* record size */
	unsigned int	nr;		/* records seen (stored if they fit) */
	int		err;		/* a table's fill failed: -errno */
};

/**
 * rds_info_emit - add one record to an RDS_INFO_* answer
 * @b: the answer being built
 * @rec: the record, of the table's record size
 */
void rds_info_emit(struct rds_info_buf *b, const void *rec)
{
	if ((b->nr + 1) * b->each <= b->cap)
		memcpy(b->data + b->nr * b->each, rec, b->each);
	b->nr++;
}
EXPORT_SYMBOL_GPL(rds_info_emit);

typedef void (*rds_info_fn)(struct rds_net *rn, struct rds_info_buf *b);

static void rds_info_counter(struct rds_info_buf *b, const char *name,
			     u64 value)
{
	struct rds_info_counter ctr = { .value = value };

	strscpy(ctr.name, name, sizeof(ctr.name));
	rds_info_emit(b, &ctr);
}

struct rds_info_trans_stats {
	struct rds_net		*rn;
	struct rds_info_buf	*b;
};

/* A transport's counters follow the core's, as in Linux's RDS. */
static void rds_info_trans_counters(const struct rds_transport *trans,
				    void *arg)
{
	struct rds_info_trans_stats *ts = arg;
	unsigned int i;
	u64 *vals;

	if (!trans->n_stats || !trans->stats_sum)
		return;
	vals = kcalloc(trans->n_stats, sizeof(*vals), GFP_KERNEL);
	if (!vals)
		return;
	trans->stats_sum(ts->rn->net, vals);
	for (i = 0; i < trans->n_stats; i++)
		rds_info_counter(ts->b, trans->stat_names[i], vals[i]);
	kfree(vals);
}

static void rds_info_counters(struct rds_net *rn, struct rds_info_buf *b)
{
	struct rds_info_trans_stats ts = { .rn = rn, .b = b };
	u64 value;
	int i, cpu;

	for (i = 0; i < RDS_STAT_MAX; i++) {
		value = 0;
		for_each_possible_cpu(cpu)
			value += per_cpu_ptr(rn->stats, cpu)->val[i];
		rds_info_counter(b, rds_stat_names[i], value);
	}
	rds_trans_for_each(rds_info_trans_counters, &ts);
}

static u8 rds_info_conn_flags(struct rds_connection *conn)
{
	u8 flags = 0;

	if (test_bit(RDS_CONN_IN_XMIT, &conn->c_flags))
		flags |= RDS_INFO_CONNECTION_FLAG_SENDING;
	if (rds_conn_state(conn) == RDS_CONN_CONNECTING)
		flags |= RDS_INFO_CONNECTION_FLAG_CONNECTING;
	if (rds_conn_state(conn) == RDS_CONN_UP)
		flags |= RDS_INFO_CONNECTION_FLAG_CONNECTED;
	return flags;
}

static void rds_info_conn4(struct rds_connection *conn, void *arg)
{
	struct rds_info_connection ci = {};

	/* One record per peer, as Linux: its lane 0. */
	if (conn->c_isv6 || conn->c_lane)
		return;
	ci.next_tx_seq = READ_ONCE(conn->c_next_tx_seq);
	ci.next_rx_seq = READ_ONCE(conn->c_next_rx_seq);
	ci.laddr = conn->c_laddr.s6_addr32[3];
	ci.faddr = conn->c_faddr.s6_addr32[3];
	strscpy(ci.transport, conn->c_trans->name, sizeof(ci.transport));
	ci.flags = rds_info_conn_flags(conn);
	ci.tos = conn->c_tos;
	rds_info_emit(arg, &ci);
}

static void rds_info_conn6(struct rds_connection *conn, void *arg)
{
	struct rds6_info_connection ci = {};

	if (conn->c_lane)
		return;
	ci.next_tx_seq = READ_ONCE(conn->c_next_tx_seq);
	ci.next_rx_seq = READ_ONCE(conn->c_next_rx_seq);
	ci.laddr = conn->c_laddr;
	ci.faddr = conn->c_faddr;
	strscpy(ci.transport, conn->c_trans->name, sizeof(ci.transport));
	ci.flags = rds_info_conn_flags(conn);
	rds_info_emit(arg, &ci);
}

static void rds_info_connections(struct rds_net *rn, struct rds_info_buf *b)
{
	rds_conn_for_each(rn, rds_info_conn4, b);
}

static void rds6_info_connections(struct rds_net *rn, struct rds_info_buf *b)
{
	rds_conn_for_each(rn, rds_info_conn6, b);
}

/* UEK's RDS_INFO_CONN_PATHS: one record per peer connection (lane 0),
 * one path entry per lane, then our extension for each (rds_uek.h).
 */
struct rds_info_paths_arg {
	struct rds_net		*rn;
	struct rds_info_buf	*b;
	bool			v6;
	struct rds_info_connection_paths *rec;	/* one record's room */
};

/* UEK's layout, byte for byte (x86_64's time_t: 64 bits). */
static_assert(sizeof(struct rds_path_info) == 37);
static_assert(sizeof(struct rds_info_connection_paths) == 50);
static_assert(sizeof(struct rds_path_info_ext) == 40);

static void rds_info_path(struct rds_connection *conn, struct rds_path_info *p,
			  struct rds_path_info_ext *x)
{
	const struct rds_conn_hist *h = &conn->c_hist;
	enum rds_conn_state state = rds_conn_state(conn);

	x->attempt_ms = READ_ONCE(h->attempt_ms);
	x->connect_ms = READ_ONCE(h->connect_ms);
	x->reset_ms = READ_ONCE(h->reset_ms);
	x->resets = READ_ONCE(h->resets);
	x->attempts_total = READ_ONCE(h->attempts_total);
	x->drops = READ_ONCE(h->drops);
	x->state = state;
	x->reset_reason = READ_ONCE(h->reset_reason);
	p->attempt_time = div_u64(x->attempt_ms, MSEC_PER_SEC);
	p->connect_time = div_u64(x->connect_ms, MSEC_PER_SEC);
	p->reset_time = div_u64(x->reset_ms, MSEC_PER_SEC);
	p->disconnect_reason = READ_ONCE(h->reason);
	p->connect_attempts = READ_ONCE(h->attempts);
	p->index = conn->c_lane;
	p->flags = rds_info_conn_flags(conn);
	if (state == RDS_CONN_ERROR)
		p->flags |= RDS_INFO_CONNECTION_FLAG_ERROR;
}

static void rds_info_paths_one(struct rds_connection *conn, void *arg)
{
	struct rds_info_paths_arg *pa = arg;
	struct rds_info_connection_paths *rec = pa->rec;
	struct rds_path_info_ext *ext;
	struct rds_connection *lane;
	unsigned int k, n = 0;

	if (conn->c_lane || (conn->c_isv6 && !pa->v6))
		return;
	memset(rec, 0, RDS_INFO_CONN_PATHS_SIZE);
	ext = (void *)&rec->paths[RDS_INFO_PATHS_MAX];
	rec->local_addr = conn->c_laddr;
	rec->peer_addr = conn->c_faddr;
	strscpy(rec->transport, conn->c_trans->name, sizeof(rec->transport));
	rec->tos = conn->c_tos;
	/* Lanes that are not hashed (never made, or reaped) are left out;
	 * each entry's index says which lane it is.
	 */
	for (k = 0; k < RDS_INFO_PATHS_MAX; k++) {
		lane = k ? rds_conn_lane_rcu(pa->rn, conn, k) : conn;
		if (!lane)
			continue;
		rds_info_path(lane, &rec->paths[n], &ext[n]);
		n++;
	}
	rec->npaths = n;
	rds_info_emit(pa->b, rec);
}

static void rds_info_paths_any(struct rds_net *rn, struct rds_info_buf *b,
			       bool v6)
{
	struct rds_info_paths_arg pa = { .rn = rn, .b = b, .v6 = v6 };

	pa.rec = kmalloc(RDS_INFO_CONN_PATHS_SIZE, GFP_KERNEL);
	if (!pa.rec) {
		b->err = -ENOMEM;
		return;
	}
	rds_conn_for_each(rn, rds_info_paths_one, &pa);
	kfree(pa.rec);
}

static void rds_info_paths(struct rds_net *rn, struct rds_info_buf *b)
{
	rds_info_paths_any(rn, b, false);
}

static void rds6_info_paths(struct rds_net *rn, struct rds_info_buf *b)
{
	rds_info_paths_any(rn, b, true);
}

/* One queued message, either family; @v6 picks the record layout. */
static void rds_info_msg(struct rds_info_buf *b, bool v6, u64 seq, u32 len,
			 const struct in6_addr *laddr,
			 const struct in6_addr *faddr, __be16 lport,
			 __be16 fport, u8 tos)
{
	if (v6) {
		struct rds6_info_message m = {};

		m.seq = seq;
		m.len = len;
		m.laddr = *laddr;
		m.faddr = *faddr;
		m.lport = lport;
		m.fport = fport;
		m.tos = tos;
		rds_info_emit(b, &m);
	} else if (ipv6_addr_v4mapped(laddr)) {
		struct rds_info_message m = {};

		m.seq = seq;
		m.len = len;
		m.laddr = laddr->s6_addr32[3];
		m.faddr = faddr->s6_addr32[3];
		m.lport = lport;
		m.fport = fport;
		m.tos = tos;
		rds_info_emit(b, &m);
	}
}

static void rds_info_sock_queues(struct rds_net *rn, struct rds_info_buf *b,
				 bool v6, bool recv)
{
	struct rds_incoming *inc;
	struct rds_message *rm;
	struct rds_sock *rs;

	spin_lock_bh(&rn->sock_lock);
	list_for_each_entry(rs, &rn->sock_list, rs_item) {
		spin_lock(&rs->rs_lock);
		if (recv) {
			list_for_each_entry(inc, &rs->rs_recv_queue, i_item)
				rds_info_msg(b, v6,
					     be64_to_cpu(inc->i_hdr.h_sequence),
					     be32_to_cpu(inc->i_hdr.h_len),
					     &inc->i_daddr, &inc->i_saddr,
					     inc->i_hdr.h_dport,
					     inc->i_hdr.h_sport,
					     inc->i_conn->c_tos);
		} else {
			list_for_each_entry(rm, &rs->rs_send_queue, m_sock_item)
				rds_info_msg(b, v6,
					     be64_to_cpu(rm->m_hdr.h_sequence),
					     rm->m_len, &rs->rs_bound.addr,
					     &rm->m_daddr, rm->m_hdr.h_sport,
					     rm->m_hdr.h_dport, rs->rs_tos);
		}
		spin_unlock(&rs->rs_lock);
	}
	spin_unlock_bh(&rn->sock_lock);
}

static void rds_info_send(struct rds_net *rn, struct rds_info_buf *b)
{
	rds_info_sock_queues(rn, b, false, false);
}

static void rds6_info_send(struct rds_net *rn, struct rds_info_buf *b)
{
	rds_info_sock_queues(rn, b, true, false);
}

static void rds_info_recv(struct rds_net *rn, struct rds_info_buf *b)
{
	rds_info_sock_queues(rn, b, false, true);
}

static void rds6_info_recv(struct rds_net *rn, struct rds_info_buf *b)
{
	rds_info_sock_queues(rn, b, true, true);
}

struct rds_info_retrans_arg {
	struct rds_info_buf	*b;
	bool			v6;
};

static void rds_info_conn_retrans(struct rds_connection *conn, void *arg)
{
	struct rds_info_retrans_arg *ra = arg;
	struct rds_message *rm;

	spin_lock_bh(&conn->c_lock);
	list_for_each_entry(rm, &conn->c_retrans, m_conn_item)
		rds_info_msg(ra->b, ra->v6, be64_to_cpu(rm->m_hdr.h_sequence),
			     rm->m_len, &conn->c_laddr, &conn->c_faddr,
			     rm->m_hdr.h_sport, rm->m_hdr.h_dport, conn->c_tos);
	spin_unlock_bh(&conn->c_lock);
}

static void rds_info_retrans(struct rds_net *rn, struct rds_info_buf *b)
{
	struct rds_info_retrans_arg ra = { .b = b, .v6 = false };

	rds_conn_for_each(rn, rds_info_conn_retrans, &ra);
}

static void rds6_info_retrans(struct rds_net *rn, struct rds_info_buf *b)
{
	struct rds_info_retrans_arg ra = { .b = b, .v6 = true };

	rds_conn_for_each(rn, rds_info_conn_retrans, &ra);
}

static void rds_info_sockets_any(struct rds_net *rn, struct rds_info_buf *b,
				 bool v6)
{
	struct rds_sock *rs;

	spin_lock_bh(&rn->sock_lock);
	list_for_each_entry(rs, &rn->sock_list, rs_item) {
		struct sock *sk = rds_rs_to_sk(rs);
		/* A socket still in bind() shows as unbound. */
		struct rds_bind_key bound = {};

		if (rds_sock_bound(rs))
			bound = rs->rs_bound;
		if (v6) {
			struct rds6_info_socket si = {};

			si.sndbuf = rds_sk_sndbuf(rs);
			si.rcvbuf = rds_sk_rcvbuf(rs);
			si.bound_addr = bound.addr;
			si.connected_addr = rs->rs_conn_addr;
			si.bound_port = bound.port;
			si.connected_port = rs->rs_conn_port;
			si.inum = sock_i_ino(sk);
			rds_info_emit(b, &si);
		} else if (ipv6_addr_v4mapped(&bound.addr)) {
			struct rds_info_socket si = {};

			si.sndbuf = rds_sk_sndbuf(rs);
			si.rcvbuf = rds_sk_rcvbuf(rs);
			si.bound_addr = bound.addr.s6_addr32[3];
			si.connected_addr = rs->rs_conn_addr.s6_addr32[3];
			si.bound_port = bound.port;
			si.connected_port = rs->rs_conn_port;
			si.inum = sock_i_ino(sk);
			rds_info_emit(b, &si);
		}
	}
	spin_unlock_bh(&rn->sock_lock);
}

static void rds_info_sockets(struct rds_net *rn, struct rds_info_buf *b)
{
	rds_info_sockets_any(rn, b, false);
}

static void rds6_info_sockets(struct rds_net *rn, struct rds_info_buf *b)
{
	rds_info_sockets_any(rn, b, true);
}

static const struct {
	rds_info_fn	fn;
	size_t		each;
} rds_info_tables[RDS_INFO_LAST - RDS_INFO_FIRST + 1] = {
#define RDS_INFO_ENTRY(opt, func, rec) \
	[(opt) - RDS_INFO_FIRST] = { .fn = (func), .each = sizeof(rec) }
	RDS_INFO_ENTRY(RDS_INFO_COUNTERS, rds_info_counters,
		       struct rds_info_counter),
	RDS_INFO_ENTRY(RDS_INFO_CONNECTIONS, rds_info_connections,
		       struct rds_info_connection),
	RDS_INFO_ENTRY(RDS_INFO_SEND_MESSAGES, rds_info_send,
		       struct rds_info_message),
	RDS_INFO_ENTRY(RDS_INFO_RETRANS_MESSAGES, rds_info_retrans,
		       struct rds_info_message),
	RDS_INFO_ENTRY(RDS_INFO_RECV_MESSAGES, rds_info_recv,
		       struct rds_info_message),
	RDS_INFO_ENTRY(RDS_INFO_SOCKETS, rds_info_sockets,
		       struct rds_info_socket),
	RDS_INFO_ENTRY(RDS6_INFO_CONNECTIONS, rds6_info_connections,
		       struct rds6_info_connection),
	RDS_INFO_ENTRY(RDS6_INFO_SEND_MESSAGES, rds6_info_send,
		       struct rds6_info_message),
	RDS_INFO_ENTRY(RDS6_INFO_RETRANS_MESSAGES, rds6_info_retrans,
		       struct rds6_info_message),
	RDS_INFO_ENTRY(RDS6_INFO_RECV_MESSAGES, rds6_info_recv,
		       struct rds6_info_message),
	RDS_INFO_ENTRY(RDS6_INFO_SOCKETS, rds6_info_sockets,
		       struct rds6_info_socket),
#undef RDS_INFO_ENTRY
};

static void rds_info_fill(struct rds_net *rn, struct rds_info_buf *b,
			  rds_info_fn fn, const struct rds_info_table *table)
{
	if (fn)
		fn(rn, b);
	else
		table->fill(rn->net, b);
}

int rds_info_getsockopt(struct socket *sock, int optname, char __user *optval,
			int __user *optlen)
{
	struct rds_net *rn = rds_net(sock_net(sock->sk));
	const struct rds_info_table *table = NULL;
	const struct rds_transport *trans = NULL;
	struct rds_info_buf b = {};
	rds_info_fn fn = NULL;
	size_t total;
	int len, ret;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	/* Linux's RDS pins the whole buffer first and answers EAGAIN when it
	 * cannot; check the same way so callers see the same errno.
	 */
	if (len && fault_in_writeable(optval, len))
		return -EAGAIN;

	if (optname == RDS_INFO_CONN_PATHS || optname == RDS6_INFO_CONN_PATHS) {
		/* UEK's numbers, outside mainline's range. */
		fn = optname == RDS_INFO_CONN_PATHS ? rds_info_paths :
						      rds6_info_paths;
		b.each = RDS_INFO_CONN_PATHS_SIZE;
	} else if (!rds_info_tables[optname - RDS_INFO_FIRST].fn) {
		/* A transport's table (RDS_INFO_TCP_SOCKETS, ...)? */
		trans = rds_trans_get_info(optname, &table);
		if (!trans)
			return -ENOPROTOOPT;
		b.each = table->each;
	} else {
		fn = rds_info_tables[optname - RDS_INFO_FIRST].fn;
		b.each = rds_info_tables[optname - RDS_INFO_FIRST].each;
	}

	/* Count, then fill a kernel snapshot of exactly that size. */
	rds_info_fill(rn, &b, fn, table);
	ret = b.err;
	if (ret)
		goto out;
	total = (size_t)b.nr * b.each;
	if (total > (size_t)len) {
		ret = -ENOSPC;
		goto out_len;
	}
	if (total) {
		ret = -ENOMEM;
		b.data = kvzalloc(total, GFP_KERNEL);
		if (!b.data)
			goto out;
		b.cap = total;
		b.nr = 0;
		rds_info_fill(rn, &b, fn, table);
		/* Records may have come or gone between the passes. */
		total = min_t(size_t, b.nr * b.each, b.cap);
		ret = b.err;
		if (!ret && copy_to_user(optval, b.data, total))
			ret = -EFAULT;
		kvfree(b.data);
		if (ret)
			goto out;
	}
	ret = b.each;
out_len:
	if (put_user((int)total, optlen))
		ret = -EFAULT;
out:
	if (trans)
		rds_trans_put(trans);
	return ret;
}
