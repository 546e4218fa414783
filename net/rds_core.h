/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to rds.ko: the socket, the per-namespace state and what the
 * core's files share with each other.
 *
 * Layers, bottom up: a file calls only into files listed before it, the
 * knot's three excepted, which call each other; this header declares
 * them in the same order. scripts/check/check-layering.sh checks that the
 * objects have no other cycle.
 *   leaves   stats.c (module-wide state), addr.c, wire.c, trace.c,
 *            transport.c, cong.c (the map store), zcopy.c
 *   objects  bind.c (bound sockets), rdma.c (MRs, RDMA operations),
 *            message.c (messages, incomings, connection references)
 *   the knot connection.c, lanes.c, send.c: a connection's workers
 *            transmit and requeue, a send picks a lane and brings its
 *            connection up, lanes send probes on connections
 *   users    cong_update.c (the map protocol), recv.c, info.c, sysctl.c,
 *            sockopt.c, debugfs.c
 *   top      af_rds.c: the socket family, module init and exit
 *
 * Lock order (outer first); all spinlocks are taken with BHs off because
 * transports deliver and ack from softirq context:
 *   lock_sock(rds_sock)
 *   rds_net->bind_mutex (bind.c: inserts into the bind table)
 *   rds_net->sock_lock (walks every socket: info, congestion monitors)
 *   rds_message->m_rs_lock
 *   rds_sock->rs_lock
 *   rds_net->dest_table's bucket locks (rhashtable, send.c)
 *   rds_net->conn_lock, then rds_conn_all_lock (connection.c)
 *   rds_connection->c_lock
 *   rds_net->cong_lock
 * RDMA (rdma.c): rds_mr->r_lock (a mutex, process context only) and
 * rds_sock->rs_mrs's xa_lock nest neither with each other nor with the
 * locks above.
 * Nothing takes rs_lock while holding c_lock: the ack and cancel paths
 * collect messages under one lock, drop it, then take the other.
 */
#ifndef _RDS_CORE_H
#define _RDS_CORE_H

#include <linux/rds.h>
#include <linux/rhashtable.h>
#include <linux/percpu.h>
#include <linux/user_namespace.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include <net/rds/compat.h>
#include <net/rds/connection.h>
#include <net/rds/message.h>
#include <net/rds/rdma.h>
#include <net/rds/transport.h>
#include <net/rds/wire.h>

#include "stats.h"

#define RDS_CONN_HASH_BITS	8

/* Pongs one connection may hold unsent or unacked: a peer that pings
 * faster than it reads the answers is answered no further.
 */
#define RDS_MAX_PONGS		1024
#define RDS_CONG_HASH_BITS	8

/* Key of the bind table: what a socket is bound to. */
struct rds_bind_key {
	struct in6_addr	addr;
	__be16		port;
	u16		pad;		/* zero: keys are compared as bytes */
	u32		scope_id;
};

/**
 * struct rds_net - everything RDS keeps per network namespace
 * @net: the namespace
 * @bind_table: bound sockets by struct rds_bind_key
 * @bind_mutex: serializes inserts into @bind_table
 * @bind_gen: bumped after each socket leaves @bind_table: validates the
 *	socket a connection's receive path remembers (rds_find_bound_rx())
 * @hash_seed: random, keys @conn_hash, @tomb_hash and @cong_hash
 * @gen_num: this incarnation of the namespace's RDS, random and never 0:
 *	sent as GEN_NUM in probes and pongs, a peer tells our restart by it
 * @conn_lock: serializes writers of @conn_hash and the fields down to
 *	@tomb_count, and @peer_hash, @peer_conns, @evict_list (hash
 *	readers use RCU)
 * @conn_hash: connections by addresses, TOS and transport
 * @conn_count: connections in @conn_hash
 * @conns_closed: the namespace is dying: no new connections
 * @tomb_hash: sequences of reaped connections, hashed as @conn_hash
 * @tomb_list: the same, oldest first (evicted beyond the cap)
 * @tomb_count: entries in @tomb_list
 * @reap_w: reaps idle connections
 * @max_connections: cap on @conn_count (sysctl)
 * @conn_idle_ms: idle time after which a connection is reaped (sysctl)
 * @sock_lock: protects @sock_list and @sock_count
 * @sock_list: every RDS socket in the namespace (for RDS_INFO_*)
 * @sock_count: length of @sock_list
 * @cong_lock: protects @cong_hash and the maps' reference counts
 * @cong_hash: congestion maps by address
 * @cong_waitq: senders and pollers waiting for a port to uncongest
 * @cong_gen: bumped on every congestion map change
 * @stats: per-cpu counters
 * @sysctl_hdr: net.rds sysctls
 * @reconnect_min_ms: first reconnect delay (sysctl)
 * @reconnect_max_ms: reconnect back-off ceiling (sysctl)
 * @max_unacked_packets: ask for an ack after this many messages (sysctl)
 * @max_unacked_bytes: ask for an ack after this many bytes (sysctl)
 * @connect_timeout_ms: a connection attempt not up by then is dropped and
 *	made again (sysctl)
 * @orphan_max_ms: how long a closed socket's queued messages wait for
 *	their peer before they are given up (sysctl)
 * @orphan_max_kb: how much of closed sockets' messages the namespace
 *	keeps; beyond it a closing socket's messages are given up (sysctl)
 * @orphan_bytes: charge of the messages kept for closed sockets
 * @dest_table: every socket's destinations (struct rds_dest), keyed by
 *	socket, address and link (send.c)
 * @sock_max_peers: destinations a socket may have bytes queued to at
 *	once (sysctl)
 * @sock_sndbuf_factor: a socket's send total is this many destination
 *	budgets (sysctl)
 * @cong_mon_list: sockets with RDS_CONG_MONITOR on (under @sock_lock):
 *	a freed port looks at these only, not at every socket
 * @peer_hash: peers (an address or IPv6 prefix) holding connections they
 *	made, with their counts (under @conn_lock)
 * @peer_conns: lane 0 of every connection a peer made, oldest first,
 *	where eviction looks (under @conn_lock)
 * @evict_list: evicted connections, unhashed, waiting for @evict_w
 *	(under @conn_lock)
 * @evict_w: kills what is on @evict_list (killing sleeps)
 * @peer_max_connections: connections one peer's attempts may make
 *	(sysctl)
 * @peer_evict_idle_ms: a peer-made connection unused this long may be
 *	evicted for a new peer at the cap (sysctl)
 * @peer_ipv6_prefix: IPv6 prefix length that makes one peer (sysctl)
 * @ping_enable: pings to port 0 are answered (sysctl)
 */
struct rds_net {
	struct net		*net;
	struct rhashtable	bind_table;
	struct mutex		bind_mutex;	/* bind_table inserts */
	atomic64_t		bind_gen;
	u32			hash_seed;	/* conn, tomb and cong hashes */
	u32			gen_num;
	spinlock_t		conn_lock;	/* conn_hash writers, tombs */
	struct hlist_head	conn_hash[1 << RDS_CONN_HASH_BITS];
	unsigned int		conn_count;
	bool			conns_closed;
	struct hlist_head	tomb_hash[1 << RDS_CONN_HASH_BITS];
	struct list_head	tomb_list;
	unsigned int		tomb_count;
	struct delayed_work	reap_w;
	int			max_connections;
	int			conn_idle_ms;
	spinlock_t		sock_lock;	/* sock_list, sock_count */
	struct list_head	sock_list;
	unsigned int		sock_count;
	spinlock_t		cong_lock;	/* cong_hash, map refs */
	struct hlist_head	cong_hash[1 << RDS_CONG_HASH_BITS];
	wait_queue_head_t	cong_waitq;
	atomic_t		cong_gen;
	struct rds_stats __percpu *stats;
	struct ctl_table_header	*sysctl_hdr;
	int			reconnect_min_ms;
	int			reconnect_max_ms;
	int			max_unacked_packets;
	int			max_unacked_bytes;
	int			connect_timeout_ms;
	int			orphan_max_ms;
	int			orphan_max_kb;
	atomic_long_t		orphan_bytes;	/* closed sockets' messages */
	struct rhashtable	dest_table;
	int			sock_max_peers;
	int			sock_sndbuf_factor;
	struct list_head	cong_mon_list;
	struct hlist_head	peer_hash[1 << RDS_CONN_HASH_BITS];
	struct list_head	peer_conns;
	struct list_head	evict_list;
	struct work_struct	evict_w;
	int			peer_max_connections;
	int			peer_evict_idle_ms;
	int			peer_ipv6_prefix;
	int			ping_enable;
};

extern unsigned int rds_net_id;
/* The initial namespace's, set by its init (the first), for the bounds
 * below: net_generic() is an RCU read section per call.
 */
extern struct rds_net *rds_init_rn;

static inline struct rds_net *rds_net(struct net *net)
{
	return net_generic(net, rds_net_id);
}

/* The namespace's bounds (sysctls) as they apply: a namespace owned by a
 * user namespace may lower one but never raise it past the initial
 * namespace's value. Read at every use, so a later change in the
 * initial namespace applies at once.
 */
static inline int rds_net_clamp(const struct rds_net *rn, int own, int top)
{
	return rn->net->user_ns == &init_user_ns ? own : min(own, top);
}

static inline int rds_max_connections(struct rds_net *rn)
{
	return rds_net_clamp(rn, READ_ONCE(rn->max_connections),
			     READ_ONCE(rds_init_rn->max_connections));
}

static inline int rds_peer_max_connections(struct rds_net *rn)
{
	return rds_net_clamp(rn, READ_ONCE(rn->peer_max_connections),
			     READ_ONCE(rds_init_rn->peer_max_connections));
}

static inline int rds_conn_idle_ms(struct rds_net *rn)
{
	return rds_net_clamp(rn, READ_ONCE(rn->conn_idle_ms),
			     READ_ONCE(rds_init_rn->conn_idle_ms));
}

static inline int rds_connect_timeout_ms(struct rds_net *rn)
{
	return rds_net_clamp(rn, READ_ONCE(rn->connect_timeout_ms),
			     READ_ONCE(rds_init_rn->connect_timeout_ms));
}

static inline int rds_orphan_max_ms(struct rds_net *rn)
{
	return rds_net_clamp(rn, READ_ONCE(rn->orphan_max_ms),
			     READ_ONCE(rds_init_rn->orphan_max_ms));
}

static inline int rds_orphan_max_kb(struct rds_net *rn)
{
	return rds_net_clamp(rn, READ_ONCE(rn->orphan_max_kb),
			     READ_ONCE(rds_init_rn->orphan_max_kb));
}

static inline int rds_sock_max_peers(struct rds_net *rn)
{
	return rds_net_clamp(rn, READ_ONCE(rn->sock_max_peers),
			     READ_ONCE(rds_init_rn->sock_max_peers));
}

static inline int rds_sock_sndbuf_factor(struct rds_net *rn)
{
	return rds_net_clamp(rn, READ_ONCE(rn->sock_sndbuf_factor),
			     READ_ONCE(rds_init_rn->sock_sndbuf_factor));
}

struct rds_sock;

/* Key of a socket's destination: compared as bytes, so zero-filled. */
struct rds_dest_key {
	struct in6_addr		addr;
	struct rds_sock		*rs;
	u32			scope_id;
};

/**
 * struct rds_dest - what one socket has queued to one destination
 * @d_node: in rds_net->dest_table
 * @d_key: the socket and the peer (address and link)
 * @d_bytes: charge of the socket's messages to the peer still unacked;
 *	protected by the socket's rs_lock
 * @d_trans: transport of the socket's last message to the peer (NULL
 *	before the first): a send after others finds its connection
 *	without deciding again; protected by rs_lock
 * @d_idle_item: on rds_sock->rs_dests_idle while idle; protected by
 *	rs_lock
 * @d_rcu: freed after a grace period (other sockets' lookups walk the
 *	same chains under RCU)
 *
 * It exists while @d_bytes is not zero, while it is the socket's last
 * destination (rds_sock->rs_dest_last), and while it is one of the
 * socket's RDS_DEST_IDLE_MAX most recently idle ones (on
 * rs_dests_idle: empty and not the last).
 */
struct rds_dest {
	struct rhash_head	d_node;
	struct rds_dest_key	d_key;
	size_t			d_bytes;
	const struct rds_transport *d_trans;
	struct list_head	d_idle_item;
	struct rcu_head		d_rcu;
};

/* Idle destinations a socket keeps: one that sends to a few peers in
 * turn finds each without an allocation, a free and a route lookup.
 */
#define RDS_DEST_IDLE_MAX	64

/**
 * struct rds_sock - an AF_RDS socket
 * @rs_sk: the generic socket; must be first
 * @rs_bound_node: in the namespace's bind table
 * @rs_bound: bound address, port and scope: the bind table's key, so it
 *	changes only while the socket is not hashed (under lock_sock)
 * @rs_bound_ok: bind() completed: @rs_bound, @rs_transport and
 *	@rs_cong_map are final. Set with release semantics after all of
 *	them; lockless readers test it with rds_sock_bound() first
 * @rs_conn_addr: default destination set by connect()
 * @rs_conn_port: default destination port
 * @rs_conn_scope_id: scope id of a link-local default destination
 * @rs_transport: transport chosen by SO_RDS_TRANSPORT or bind(); pinned
 * @rs_cong_map: congestion map of the bound address
 * @rs_rn: the namespace's RDS state (rds_sock_rn())
 * @rs_lanes_gen: lane generation (net/lanes.c) seen at a send with nothing
 *	queued: toward a peer whose lane count last changed no later, the
 *	port's hash picks the lane (0: look at the queue first)
 * @rs_conn: connection of the last send; valid while the socket lives,
 *	since the socket pins the transports whose connections it uses
 * @rs_loop_transport: loopback transport pinned for local peers of a
 *	transport that prefers loopback
 * @rs_item: on rds_net->sock_list
 * @rs_mrs: registered memory regions by key (has its own lock)
 * @rs_mr_keygen: key state of @rs_mrs
 * @rs_lock: protects the queues, byte counts and congestion fields
 * @rs_send_queue: messages sent and not yet acked (rds_message)
 * @rs_snd_bytes: the send total: the charge of @rs_send_queue (each
 *	message also counts in its rds_dest) and of unread notifications
 * @rs_recv_queue: received messages not yet read (rds_incoming)
 * @rs_rcv_bytes: payload bytes on @rs_recv_queue
 * @rs_notify_queue: RDMA notifications for recvmsg (rds_notifier)
 * @rs_zcookie_queue: MSG_ZEROCOPY completions for recvmsg (rds_znotifier)
 * @rs_congested: this socket's port is marked congested in its map
 * @rs_cong_mask: ports (mod 64) whose uncongestion the user waits for
 * @rs_cong_notify: bits of @rs_cong_mask that became uncongested
 * @rs_seen_congestion: a send met congestion; poll() watches the maps
 * @rs_cong_track: rds_net->cong_gen when the congestion was seen
 * @rs_tos: type of service of new connections
 * @rs_has_sent: a message was queued (the TOS is fixed from then on)
 * @rs_recverr: RDS_RECVERR: report RDMA errors (set via sockopt)
 * @rs_cong_monitor: RDS_CONG_MONITOR enabled
 * @rs_rx_traces: number of SO_RDS_MSG_RXPATH_LATENCY points wanted
 * @rs_rx_trace: which points
 * @rs_dest_last: the destination of the last send attempt (it decides
 *	POLLOUT), kept while empty; protected by @rs_lock
 * @rs_dest_spare: a destination allocated ahead, for the next new one;
 *	protected by @rs_lock
 * @rs_dests_busy: destinations with bytes queued; protected by @rs_lock
 * @rs_dests_idle: empty destinations other than the last, oldest first;
 *	protected by @rs_lock
 * @rs_dests_idle_n: how many (at most RDS_DEST_IDLE_MAX)
 * @rs_key_fails: RDMA key lookups of this socket's operations that
 *	failed in the window starting at @rs_key_window (loopback: rdma.c)
 * @rs_key_window: jiffies when that window started
 * @rs_cong_mon_item: on rds_net->cong_mon_list while @rs_cong_monitor
 */
struct rds_sock {
	struct sock		rs_sk;
	struct rhash_head	rs_bound_node;
	struct rds_bind_key	rs_bound;
	bool			rs_bound_ok;
	struct in6_addr		rs_conn_addr;
	__be16			rs_conn_port;
	u32			rs_conn_scope_id;
	const struct rds_transport *rs_transport;
	const struct rds_transport *rs_loop_transport;
	struct rds_cong_map	*rs_cong_map;
	struct rds_connection	*rs_conn;
	struct rds_net		*rs_rn;
	unsigned long		rs_lanes_gen;
	struct list_head	rs_item;
	struct xarray		rs_mrs;
	struct rds_mr_keygen	rs_mr_keygen;

	spinlock_t		rs_lock;	/* the fields below */
	struct list_head	rs_send_queue;
	size_t			rs_snd_bytes;
	struct list_head	rs_recv_queue;
	size_t			rs_rcv_bytes;
	struct list_head	rs_notify_queue;
	struct list_head	rs_zcookie_queue;
	bool			rs_congested;
	u64			rs_cong_mask;
	u64			rs_cong_notify;
	bool			rs_seen_congestion;
	int			rs_cong_track;

	u8			rs_tos;
	bool			rs_has_sent;
	bool			rs_recverr;
	bool			rs_cong_monitor;
	u8			rs_rx_traces;
	u8			rs_rx_trace[RDS_MSG_RX_DGRAM_TRACE_MAX];
	struct rds_dest		*rs_dest_last;
	struct rds_dest		*rs_dest_spare;
	unsigned int		rs_dests_busy;
	struct list_head	rs_dests_idle;
	unsigned int		rs_dests_idle_n;
	atomic_t		rs_key_fails;
	unsigned long		rs_key_window;
	struct list_head	rs_cong_mon_item;
};

static inline struct rds_sock *rds_sk_to_rs(const struct sock *sk)
{
	return container_of(sk, struct rds_sock, rs_sk);
}

static inline struct sock *rds_rs_to_sk(struct rds_sock *rs)
{
	return &rs->rs_sk;
}

/* Has bind() completed? Once true, rs_bound, rs_transport and
 * rs_cong_map never change again and may be read without the socket lock.
 */
static inline bool rds_sock_bound(const struct rds_sock *rs)
{
	/* Pairs with the smp_store_release() in rds_bind(). */
	return smp_load_acquire(&rs->rs_bound_ok);
}

/* The link of a link-local socket: bind()'s, else connect()'s. Callers
 * hold the socket lock or have seen rds_sock_bound().
 */
static inline u32 rds_sock_scope_id(const struct rds_sock *rs)
{
	return rs->rs_bound.scope_id ?: READ_ONCE(rs->rs_conn_scope_id);
}

static inline struct net *rds_sock_net(struct rds_sock *rs)
{
	return sock_net(&rs->rs_sk);
}

/* The namespace's RDS state of @rs, found once when it was created: a
 * socket never changes namespace, and holds it.
 */
static inline struct rds_net *rds_sock_rn(const struct rds_sock *rs)
{
	return rs->rs_rn;
}

/* The same for a connection, which the namespace's exit takes down. */
static inline struct rds_net *rds_conn_rn(const struct rds_connection *conn)
{
	return conn->c_rn;
}

/* What a message costs the socket budgets while queued: its payload plus
 * a fixed share for the kernel objects that carry it, so that empty
 * messages are not free.
 */
#define RDS_MSG_OVERHEAD	256

/* What an unread RDMA notification costs its sender's budget. */
#define RDS_NOTIFY_CHARGE	RDS_MSG_OVERHEAD

static inline size_t rds_msg_charge(unsigned int len)
{
	return (size_t)len + RDS_MSG_OVERHEAD;
}

/* Upstream semantics: half of SO_SNDBUF / SO_RCVBUF is the budget (the
 * send budget of each destination).
 */
static inline size_t rds_sk_sndbuf(struct rds_sock *rs)
{
	return READ_ONCE(rs->rs_sk.sk_sndbuf) / 2;
}

/* The socket's send total: net.rds.sock_sndbuf_factor destination
 * budgets (saturated where size_t is 32 bits).
 */
static inline size_t rds_sk_snd_total(struct rds_sock *rs)
{
	u64 total = (u64)rds_sk_sndbuf(rs) *
		    rds_sock_sndbuf_factor(rds_net(rds_sock_net(rs)));

	return min_t(u64, total, SIZE_MAX);
}

/* Take @bytes off @rs's send total; true if that reopened it, so that a
 * waiting sender or poller may go on.
 */
static inline bool rds_snd_total_sub_locked(struct rds_sock *rs, size_t bytes)
{
	size_t cap = rds_sk_snd_total(rs);
	bool was_full = rs->rs_snd_bytes >= cap;

	lockdep_assert_held(&rs->rs_lock);
	rs->rs_snd_bytes -= bytes;
	return was_full && rs->rs_snd_bytes < cap;
}

static inline size_t rds_sk_rcvbuf(struct rds_sock *rs)
{
	return READ_ONCE(rs->rs_sk.sk_rcvbuf) / 2;
}

/* Wake sleepers and pollers; safe on an orphaned socket. */
static inline void rds_wake_sk(struct rds_sock *rs)
{
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(rs->rs_sk.sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_all(&wq->wait);
	rcu_read_unlock();
}

static inline bool rds_addr_is_v4(const struct in6_addr *addr)
{
	return ipv6_addr_v4mapped(addr);
}

/* Objects the core allocates, counted so tests can prove none leak. */
enum rds_obj {
	RDS_OBJ_SOCK,
	RDS_OBJ_MESSAGE,
	RDS_OBJ_INCOMING,
	RDS_OBJ_CONN,
	RDS_OBJ_CONG_MAP,
	RDS_OBJ_MR,
	RDS_OBJ_ZCOPY,		/* MSG_ZEROCOPY completions, sent or queued */
	RDS_OBJ_DEST,		/* a socket's destinations (send accounting) */
	RDS_OBJ_MAX,
};

struct rds_obj_counts {
	long	n[RDS_OBJ_MAX];
};

/* Per cpu: an object may be freed on another cpu than it was made on. */
DECLARE_PER_CPU(struct rds_obj_counts, rds_obj_counts);

static inline void rds_obj_inc(enum rds_obj obj)
{
	this_cpu_inc(rds_obj_counts.n[obj]);
}

static inline void rds_obj_dec(enum rds_obj obj)
{
	this_cpu_dec(rds_obj_counts.n[obj]);
}

extern struct workqueue_struct *rds_wq;

/* What each file offers the others, from the bottom up: a file calls
 * only into the sections above its own (the knot excepted).
 */

/* stats.c: rds_net_id, rds_wq and rds_obj_counts above; the counter
 * names in stats.h.
 */

/* wire.c (the rest, for transports too, in <net/rds/wire.h>) */
unsigned int rds_exthdr_size(u8 type);
int rds_hdr_add_ext(struct rds_header *hdr, u8 type, const void *data,
		    unsigned int len);
bool rds_hdr_find_ext(const struct rds_header *hdr, u8 type, void *body);

/* addr.c */
int rds_parse_addr(const struct sockaddr *uaddr, int addr_len,
		   struct in6_addr *addr, __be16 *port, u32 *scope_id);

/* transport.c (registering, in <net/rds/transport.h>) */
const struct rds_transport *rds_trans_get(enum rds_trans_type type);
void rds_trans_put(const struct rds_transport *trans);
int rds_trans_init(void);
void rds_trans_exit(void);
void rds_trans_withdraw(const struct rds_transport *trans);
void rds_trans_for_each(void (*fn)(const struct rds_transport *trans,
				   void *arg),
			void *arg);
const struct rds_transport *rds_trans_get_info(int optname,
					       const struct rds_info_table **table);
const struct rds_transport *rds_trans_find_for_addr(struct net *net,
						    const struct in6_addr *addr,
						    u32 scope_id);

/* cong.c: the map store */
struct rds_cong_map;
struct rds_cong_map *rds_cong_map_get(struct rds_net *rn,
				      const struct in6_addr *addr);
void rds_cong_map_put(struct rds_net *rn, struct rds_cong_map *map);
bool rds_cong_test(struct rds_cong_map *map, __be16 port);
bool rds_cong_any(struct rds_cong_map *map);
const u8 *rds_cong_bits(const struct rds_cong_map *map);
u64 rds_cong_store(struct rds_cong_map *map, const u8 *new);
void rds_cong_notify_monitors(struct rds_net *rn, u64 bits);
void rds_cong_monitor_set(struct rds_sock *rs, bool on);
int rds_cong_wait(struct rds_net *rn, struct rds_cong_map *map, __be16 port,
		  bool nonblock, struct rds_sock *rs, long *timeo);
enum rds_cong_change {
	RDS_CONG_SAME,
	RDS_CONG_SET,
	RDS_CONG_CLEARED,
};

enum rds_cong_change rds_cong_update_locked(struct rds_sock *rs);
void rds_cong_net_exit(struct rds_net *rn);

/* zcopy.c */
/**
 * struct rds_znotifier - the completion of one MSG_ZEROCOPY send
 * @z_list: on the sender's rs_zcookie_queue (under its rs_lock)
 * @z_rs: the sender (a sock reference) once the message is queued; NULL
 *	before, so a failed sendmsg() posts nothing
 * @z_mmp: pinned pages charged to the user's RLIMIT_MEMLOCK
 * @z_cookie: the sender's RDS_CMSG_ZCOPY_COOKIE
 */
struct rds_znotifier {
	struct list_head	z_list;
	struct rds_sock		*z_rs;
	struct mmpin		z_mmp;
	u32			z_cookie;
};

/* Payload entries one message may have: one per page of the largest
 * message, plus one for an unaligned start; a buffer cut into more
 * pieces (many small iovecs) is copied instead.
 */
#define RDS_ZCOPY_MAX_NENTS	((RDS_MAX_MSG_SIZE >> PAGE_SHIFT) + 1)

int rds_zcopy_cookie(struct cmsghdr *cmsg, u32 *cookie);
int rds_zcopy_get_pages(struct rds_message *rm, struct iov_iter *from,
			unsigned int nents);
void rds_zcopy_free(struct rds_znotifier *zn);
void rds_zcopy_queued_locked(struct rds_sock *rs, struct rds_message *rm);
void rds_zcopy_unpin(struct rds_message *rm);
void rds_zcopy_notify(struct rds_znotifier *zn);
int rds_zcopy_recv(struct rds_sock *rs, struct msghdr *msg);
void rds_zcopy_drop_completions(struct rds_sock *rs);

/* bind.c */
int rds_bind(struct socket *sock, rds_sockaddr_arg *uaddr, int addr_len);
void rds_remove_bound(struct rds_sock *rs);
struct rds_sock *rds_find_bound(struct rds_net *rn, const struct in6_addr *addr,
				__be16 port, u32 scope_id);
struct rds_sock *rds_find_bound_rx(struct rds_net *rn,
				   struct rds_connection *conn,
				   const struct in6_addr *addr, __be16 port);
int rds_bind_net_init(struct rds_net *rn);
void rds_bind_net_exit(struct rds_net *rn);

/* rdma.c */

int rds_get_mr(struct rds_sock *rs, sockptr_t optval, unsigned int optlen);
int rds_get_mr_for_dest(struct rds_sock *rs, sockptr_t optval,
			unsigned int optlen);
int rds_free_mr(struct rds_sock *rs, sockptr_t optval, unsigned int optlen);
void rds_rdma_drop_mrs(struct rds_sock *rs);
void rds_rdma_op_free(struct rds_rdma_op *op);
int rds_rdma_parse_cmsgs(struct rds_sock *rs, struct rds_message *rm,
			 struct msghdr *msg);
void rds_rdma_unmap(struct rds_sock *rs, struct rds_message *rm);
void rds_rdma_set_exthdrs(struct rds_message *rm);
void rds_rdma_recv_used(struct rds_sock *rs, const struct rds_header *hdr);
void rds_notify_queue_locked(struct rds_sock *rs, struct rds_notifier *n);
int rds_async_parse(struct rds_message *rm, struct msghdr *msg);
bool rds_async_notify_locked(struct rds_sock *rs, struct rds_message *rm,
			     int status);
void rds_rdma_notify_locked(struct rds_sock *rs, struct rds_message *rm,
			    int status);
void rds_rdma_op_notify(struct rds_message *rm, int status);
int rds_rdma_notify_recv(struct rds_sock *rs, struct msghdr *msg);
void rds_rdma_drop_notifications(struct rds_sock *rs);

/* message.c (and rds_conn_get/put, in <net/rds/connection.h>) */
static inline void rds_inc_get(struct rds_incoming *inc)
{
	refcount_inc(&inc->i_refcount);
}

struct rds_message *rds_message_alloc(struct rds_net *rn, unsigned int len,
				      gfp_t gfp);
int rds_message_copy_from_user(struct rds_message *rm, struct iov_iter *from);
struct rds_message *rds_message_alloc_sgs(unsigned int len, unsigned int nents,
					  size_t extra, gfp_t gfp);
struct rds_message *rds_message_zcopy(struct rds_net *rn,
				      struct iov_iter *from, size_t len,
				      u32 cookie);
struct rds_message *rds_message_cong_map(struct rds_connection *conn);

/* msg_pages.c */
struct page *rds_msg_page_alloc(struct rds_net *rn, gfp_t gfp);
void rds_msg_page_free(struct page *page);
void rds_msg_pages_exit(void);

/* The knot: connection.c, lanes.c and send.c call each other. */

/* connection.c */
struct rds_connection *rds_conn_create(struct net *net,
				       const struct in6_addr *laddr,
				       const struct in6_addr *faddr,
				       const struct rds_transport *trans,
				       u8 tos, int dev_if, gfp_t gfp);
struct rds_connection *rds_conn_lane(struct rds_connection *conn0,
				     unsigned int lane, gfp_t gfp);

/* Lane 0 of @conn's peer: where the multipath state lives. */
static inline struct rds_connection *rds_conn_lane0(struct rds_connection *conn)
{
	return conn->c_lane0 ?: conn;
}

/* Note a use, for idle reaping; cheap when called often. */
static inline void rds_conn_touch(struct rds_connection *conn)
{
	unsigned long now = jiffies;

	if (READ_ONCE(conn->c_last_used) != now)
		WRITE_ONCE(conn->c_last_used, now);
}

void rds_conn_connect_if_down(struct rds_connection *conn);
void rds_conn_arm_reaper(struct rds_net *rn);
void rds_conn_retune_reaper(struct rds_net *rn);
void rds_conn_queue_delayed(struct rds_connection *conn,
			    struct delayed_work *dwork, unsigned long delay);
void rds_conn_net_init(struct rds_net *rn);
void rds_conn_reset(struct rds_net *rn, const struct in6_addr *laddr,
		    const struct in6_addr *faddr, u8 tos);
void rds_conn_for_each(struct rds_net *rn,
		       void (*fn)(struct rds_connection *conn, void *arg),
		       void *arg);
struct rds_connection *rds_conn_lane_rcu(struct rds_net *rn,
					 struct rds_connection *conn0,
					 unsigned int k);
void rds_conn_net_exit(struct rds_net *rn);
int rds_conn_init(void);
void rds_conn_exit(void);

/* lanes.c */
void rds_conn_probe(struct rds_connection *conn0);
void rds_conn_peer_restarted(struct rds_connection *conn0);
void rds_lanes_add_exts(struct rds_connection *conn0, struct rds_header *hdr);
void rds_lanes_kick(struct rds_connection *conn0);
void rds_lanes_connected(struct rds_connection *conn0);
void rds_lanes_probe_gone(struct rds_message *rm);
void rds_lanes_worker(struct work_struct *work);
bool rds_lanes_keep_up(struct rds_connection *conn);
bool rds_lanes_may_connect(struct rds_connection *conn);
void rds_lanes_learn(struct rds_connection *conn, const struct rds_header *hdr,
		     bool answer);
unsigned int rds_lanes_pick(struct rds_sock *rs, struct rds_connection *conn0,
			    bool nonblock, long timeo);
void rds_lanes_unsettle(struct rds_sock *rs);
void rds_lanes_init(void);

/* send.c */
int rds_sendmsg(struct socket *sock, struct msghdr *msg, size_t payload_len);
void rds_send_drop_to(struct rds_sock *rs, const struct in6_addr *addr,
		      __be16 port);
int rds_send_xmit(struct rds_connection *conn);
void rds_send_worker(struct work_struct *work);
void rds_send_requeue_retrans(struct rds_connection *conn);
void rds_send_drop_unsent(struct rds_message *rm);
void rds_send_drop_all(struct rds_connection *conn);
void rds_send_drop_stale(struct rds_connection *conn, bool failed);
void rds_send_release_conn(struct rds_sock *rs);
int rds_send_pong(struct rds_connection *conn, const struct in6_addr *from,
		  const struct in6_addr *to, __be16 dport);
int rds_send_ctl(struct rds_connection *conn, struct rds_message *rm);
bool rds_send_writable_locked(struct rds_sock *rs);
void rds_send_release_dests(struct rds_sock *rs);
int rds_send_net_init(struct rds_net *rn);
void rds_send_net_exit(struct rds_net *rn);

/* Above the knot. */

/* cong_update.c: the map protocol */
void __rds_cong_changed(struct rds_sock *rs, enum rds_cong_change change);

/**
 * rds_cong_changed - act on a change rds_cong_update_locked() reported
 * @rs: the socket whose port changed
 * @change: what rds_cong_update_locked() returned
 *
 * Nothing to do for RDS_CONG_SAME (nearly every message): tested here,
 * without a call.
 *
 * Context: any; no RDS spinlock held.
 */
static inline void rds_cong_changed(struct rds_sock *rs,
				    enum rds_cong_change change)
{
	if (change != RDS_CONG_SAME)
		__rds_cong_changed(rs, change);
}

void rds_cong_recv_map(struct rds_connection *conn, struct rds_incoming *inc);

/* recv.c */
int rds_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
		int msg_flags);
void rds_clear_recv_queue(struct rds_sock *rs);
bool rds_recv_pending(struct rds_sock *rs);

/* info.c */
int rds_info_getsockopt(struct socket *sock, int optname, char __user *optval,
			int __user *optlen);

/* sysctl.c */
int rds_sysctl_net_init(struct rds_net *rn);
void rds_sysctl_net_exit(struct rds_net *rn);

/* sockopt.c */
int rds_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen);
int rds_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen);

/* debugfs.c */
void rds_debugfs_init(void);
void rds_debugfs_exit(void);

/* af_rds.c, the top: the socket family and module init/exit. */

#endif /* _RDS_CORE_H */
