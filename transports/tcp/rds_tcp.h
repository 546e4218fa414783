/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rds_tcp.ko: what its files share.
 *
 * Lock order (outer first):
 *   rds_tcp_conn->t_mutex (installs and removes the socket)
 *   the TCP socket's lock (lock_sock, or the softirq's bh_lock_sock)
 *   sk->sk_callback_lock (readers: our socket callbacks)
 *   rds_tcp_conn->t_lock (t_sock for RDS_INFO readers)
 */
#ifndef _RDS_TCP_H
#define _RDS_TCP_H

#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/rds/compat.h>
#include <net/rds/connection.h>
#include <net/rds/message.h>
#include <net/rds/transport.h>
#include <net/rds/wire.h>

struct rds_tcp_incoming;

/* The low bits of a connecting socket's source port name its lane. */
#define RDS_TCP_LANE_MASK	(RDS_MPATH_WORKERS - 1)
static_assert(!(RDS_MPATH_WORKERS & RDS_TCP_LANE_MASK));

/* Sockets of one lane the peer connected that may wait to be installed:
 * each may hold bytes its TCP acked, so none is refused while there is
 * room (rds_tcp_conn_accepted()).
 */
#define RDS_TCP_ACCEPTED_MAX	4

/* The kernel's own socket callbacks, restored when we let a socket go. */
struct rds_tcp_callbacks {
	void (*data_ready)(struct sock *sk);
	void (*write_space)(struct sock *sk);
	void (*state_change)(struct sock *sk);
};

/**
 * struct rds_tcp_conn - TCP state of one RDS connection (rds_conn_tdata)
 * @t_mutex: serializes installing and removing @t_sock and @t_accepted
 * @t_lock: held while @t_sock changes, for lockless readers (RDS_INFO)
 * @t_sock: the TCP socket carrying the connection, or NULL; changed
 *	under @t_mutex and @t_lock while nothing transmits
 * @t_accepted: sockets the peer connected, oldest first, waiting for the
 *	connect worker to install them; under @t_mutex
 * @t_naccepted: entries in @t_accepted; written under @t_mutex
 * @t_orig: the callbacks @t_sock had before we took it
 * @t_recv_w: reads in process context when softirq could not allocate
 * @t_hdr: header of the frame being received
 * @t_hdr_got: bytes of @t_hdr received
 * @t_tinc: message being received once its header is complete
 * @t_data_len: payload length of the frame being received (RDS_INFO)
 * @t_data_got: bytes of @t_tinc's payload received
 * @t_broken: the peer sent garbage: discard the rest of the stream
 * @t_xmit_blocked: a send ran out of socket buffer; kick when it drains
 * @t_corked: this transmit batch corked the socket (transmit lock)
 * @t_last_sent_nxt: TCP write_seq after our last send (RDS_INFO)
 * @t_last_expected_una: sequence whose ack retires our last message
 * @t_last_seen_una: snd_una when acks were last processed
 *
 * The receive fields are used under the TCP socket's lock (softirq
 * data_ready or the receive worker), and reset by shutdown once no
 * callback can run.
 */
struct rds_tcp_conn {
	struct mutex		t_mutex;	/* t_sock, t_accepted changes */
	spinlock_t		t_lock;		/* t_sock for info readers */
	struct socket		*t_sock;
	struct socket		*t_accepted[RDS_TCP_ACCEPTED_MAX];
	unsigned int		t_naccepted;
	struct rds_tcp_callbacks t_orig;
	struct delayed_work	t_recv_w;

	struct rds_header	t_hdr;
	unsigned int		t_hdr_got;
	struct rds_tcp_incoming	*t_tinc;
	u32			t_data_len;
	u32			t_data_got;
	bool			t_broken;

	bool			t_xmit_blocked;
	bool			t_corked;
	u32			t_last_sent_nxt;
	u32			t_last_expected_una;
	u32			t_last_seen_una;
};

static inline struct rds_tcp_conn *rds_tcp_conn(struct rds_connection *conn)
{
	return rds_conn_tdata(conn);
}

static inline struct rds_connection *rds_tcp_to_conn(struct rds_tcp_conn *tc)
{
	return rds_conn_from_tdata(tc);
}

/**
 * struct rds_tcp_net - per namespace
 * @listen_sock: the listener on RDS_TCP_PORT, or NULL
 * @listen_orig: the listener's callbacks before ours: the kernel's
 *	defaults, which accepted sockets also get back when released
 * @accept_w: accepts queued connections
 * @sysctl_hdr: net.rds.tcp
 * @sysctl_table: this namespace's copy of the table
 * @sndbuf: net.rds.tcp.rds_tcp_sndbuf (0: autotune)
 * @rcvbuf: net.rds.tcp.rds_tcp_rcvbuf (0: autotune)
 * @lanes: net.rds.tcp.rds_tcp_lanes: lanes per peer (1: no multipath)
 * @lanes_legacy: net.rds.tcp.rds_tcp_lanes_legacy: lanes per peer without
 *	lane ids (Linux), at most @lanes
 */
struct rds_tcp_net {
	struct socket		*listen_sock;
	struct rds_tcp_callbacks listen_orig;
	struct work_struct	accept_w;
	struct ctl_table_header	*sysctl_hdr;
	struct ctl_table	*sysctl_table;
	int			sndbuf;
	int			rcvbuf;
	int			lanes;
	int			lanes_legacy;
};

extern unsigned int rds_tcp_net_id;
extern struct workqueue_struct *rds_tcp_wq;
extern const struct rds_transport rds_tcp_transport;

struct rds_tcp_net *rds_tcp_net(struct net *net);

/**
 * rds_tcp_bound - one of rds_tcp's bounds as it applies in a namespace
 * @net: the namespace
 * @own: its value of the sysctl
 * @top: the initial namespace's value
 *
 * A namespace owned by a user namespace may lower a bound, never raise
 * it past the initial namespace's. 0 (TCP's own buffer sizes) bounds
 * nothing, so it never wins over a size that is set.
 */
static inline int rds_tcp_bound(const struct net *net, int own, int top)
{
	if (net->user_ns == &init_user_ns || top <= 0)
		return own;
	return own <= 0 ? top : min(own, top);
}

/* Counters (Linux's rds_tcp names), summed over CPUs. */
enum rds_tcp_stat {
	RDS_TCP_STAT_DATA_READY_CALLS,
	RDS_TCP_STAT_WRITE_SPACE_CALLS,
	RDS_TCP_STAT_SNDBUF_FULL,
	RDS_TCP_STAT_CONNECT_RACED,
	RDS_TCP_STAT_LISTEN_CLOSED_STALE,
	RDS_TCP_STAT_ACCEPT_REFUSED,
	RDS_TCP_STAT_ACCEPT_LOCAL,	/* ours: a local address posed as a peer */
	RDS_TCP_STAT_MAX,
};

DECLARE_PER_CPU(u64 [RDS_TCP_STAT_MAX], rds_tcp_stats);

static inline void rds_tcp_stat_inc(enum rds_tcp_stat s)
{
	this_cpu_inc(rds_tcp_stats[s]);
}

/* rds_tcp_connect.c */
int rds_tcp_conn_connect(struct rds_connection *conn);
void rds_tcp_conn_shutdown(struct rds_connection *conn);
bool rds_tcp_conn_accepted(struct rds_connection *conn, struct socket *sock);
bool rds_tcp_conn_has_accepted(struct rds_connection *conn);
void rds_tcp_tune(struct net *net, struct socket *sock);

/* rds_tcp_listen.c */
int rds_tcp_listen_start(struct net *net);
void rds_tcp_listen_stop(struct net *net);

/* rds_tcp_send.c */
void rds_tcp_xmit_prepare(struct rds_connection *conn);
void rds_tcp_xmit_complete(struct rds_connection *conn);
int rds_tcp_xmit(struct rds_connection *conn, struct rds_message *rm,
		 unsigned int *pos);
void rds_tcp_write_space(struct sock *sk);

/* rds_tcp_recv.c */
void rds_tcp_data_ready(struct sock *sk);
void rds_tcp_recv_worker(struct work_struct *work);
void rds_tcp_recv_reset(struct rds_tcp_conn *tc);
void rds_tcp_recv_drain(struct rds_tcp_conn *tc, struct sock *sk);
int rds_tcp_inc_copy_to_user(struct rds_incoming *inc, struct iov_iter *to);
void rds_tcp_inc_free(struct rds_incoming *inc);

#endif /* _RDS_TCP_H */
