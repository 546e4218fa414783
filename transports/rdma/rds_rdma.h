/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDS verbs engine: what InfiniBand/RoCE (rds_rdma.ko) and iWARP
 * (rds_iwarp.ko) share. The engine owns the RDMA CM listeners, the
 * devices, the queue pairs and the data path; a flavor (one per
 * transport) says which devices it serves and what differs.
 *
 * Lock order (outer first):
 *   rds_rdma_conn->i_cm_mutex (installs and removes the CM id and QP)
 *   rds_rdma_conn->i_rx_lock (receive reassembly, reposting)
 *   the core's locks (c_lock, rs_lock) taken by rds_recv_incoming() and
 *   rds_send_drop_acked()
 * rds_rdma_devs_lock is taken alone; i_rdma_lock (the live RDMA
 * operations) is a leaf. rds_rdma_pages_lock (the recycled receive pages)
 * is a leaf: taken under i_rx_lock or none, takes nothing.
 */
#ifndef _RDS_RDMA_H
#define _RDS_RDMA_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <net/rds/compat.h>
#include <net/rds/connection.h>
#include <net/rds/message.h>
#include <net/rds/rdma.h>
#include <net/rds/transport.h>
#include <net/rds/wire.h>

/* RDMA CM ports, as Linux: IPv4 peers on 18634, IPv6 on 16385 (iWARP
 * IPv6 peers on 18634: see rds_rdma_listen.c).
 */
#define RDS_RDMA_PORT4		18634
#define RDS_RDMA_PORT6		RDS_TCP_PORT

/* Address and route resolution give up after this long. */
#define RDS_RDMA_RESOLVE_MS	5000

/* After a race it could not yield (iWARP), the loser waits this long for
 * the peer's next request before it connects itself.
 */
#define RDS_RDMA_PEER_FIRST_MS	1000
/* How long an accepted iWARP connection waits for the peer's first frame
 * before it sends anyway (a peer that has nothing to say).
 */
#define RDS_RDMA_HEAR_FIRST_MS	2000

/* Transport retries a connection we request asks for (both ends use
 * the requester's count): the most that is still a count everywhere.
 */
#define RDS_RDMA_RETRY_COUNT	6

/* RDMA operations of one connection in flight, and the work requests
 * they may use between them (rdma_rw splits a vector into several).
 * The default send queue is then 511 requests: the ring (256), four of
 * ours, these 187 and the one per context rdma_rw adds itself (64 over
 * IB). Soft devices round a queue up to a power of two with a slot
 * spare: 580 cost rxe twice the memory.
 */
#define RDS_RDMA_MAX_CTXS	64
#define RDS_RDMA_RW_WRS		187

/* Protocol minor versions we speak (3.0 and 3.1); a Linux peer sends it. */
#define RDS_RDMA_MINOR_MASK	0x0003

/* Protocol 4.1 (Oracle UEK's): the private data's frag_sz field counts. */
#define RDS_RDMA_VERSION_4_1	0x0401

/*
 * Fragments bigger than Linux's 4 KiB, negotiated as Oracle UEK does it
 * (frag_sz at protocol 4.1: 4, 8 or 16 KiB, the smaller of the two
 * offers). A Linux peer offers nothing and gets 4 KiB. Data is kept in
 * RDS_FRAG_SIZE pages, so a fragment is up to this many of them.
 */
#define RDS_RDMA_MAX_FRAG_PAGES	4
/* Fragment sizes: 1, 2 or 4 pages. */
#define RDS_RDMA_FRAG_ORDERS	3

/* Receive completions a queue pair on an SRQ may have waiting: past
 * them the device fails it (rds_rdma_srq.c).
 */
#define RDS_RDMA_SRQ_CQ		511

/*
 * Connection private data. Linux's layout: the two addresses, then a
 * common block padded to 24 bytes; 32 bytes for IPv4, 56 for IPv6.
 */
struct rds_rdma_cdata_common {
	u8	major;
	u8	minor;
	__be16	minor_mask;
	u8	tos;
	u8	route;		/* reserved1: RDS_RDMA_ROUTE_MARK in a route
				 * request (rds_rdma_route.c), else 0
				 */
	__be16	frag_sz;	/* UEK, at 4.1; reserved in Linux */
	__be64	ack_seq;
	union {
		struct {
			__be32	credit;
			/* Linux's tail padding (zero): ours says so here */
			u8	ours[2];
			u8	caps;
			u8	pad;
		} __packed;
		/* In a route request: the token the peer gave us. */
		__be64	token;
	} __packed;
} __packed;

struct rds_rdma_cdata4 {
	__be32				saddr;
	__be32				daddr;
	struct rds_rdma_cdata_common	c;
} __packed;

struct rds_rdma_cdata6 {
	struct in6_addr			saddr;
	struct in6_addr			daddr;
	struct rds_rdma_cdata_common	c;
} __packed;

static_assert(sizeof(struct rds_rdma_cdata4) == 32);
static_assert(offsetof(struct rds_rdma_cdata_common, token) == 16);
static_assert(sizeof(struct rds_rdma_cdata6) == 56);

union rds_rdma_cdata {
	struct rds_rdma_cdata4	v4;
	struct rds_rdma_cdata6	v6;
};

/**
 * struct rds_rdma_flavor - one transport served by the engine
 * @trans: the transport's ops: RDS_RDMA_ENGINE_OPS and the flavor's own
 *	name, type, owner, laddr_check, info and stats
 * @node_type: the device node type it serves (RDMA_NODE_IB_CA, _RNIC)
 * @atomics: the transport offers RDMA atomics
 * @write_completes_remotely: a WRITE's completion means the peer placed
 *	it (IB, RoCE); without it (iWARP) the completion is local and a
 *	one-byte READ behind the WRITE tells (rds_rdma_rw.c)
 * @send_after_rdma: a message goes out only once its RDMA operation
 *	completed (iWARP): the peer may free its region as soon as it has
 *	the message, and an iWARP device answers a READ after delivering
 *	the SENDs behind it. Not a device fence: siw 6.1 answers no inbound
 *	READ while a fenced SEND waits, so two peers doing RDMA at each
 *	other deadlocked
 * @cm_yield: in a simultaneous connect, the side that loses gives up its
 *	own attempt inside the CM handler and accepts (IB, RoCE). iWARP
 *	cannot: its CM holds the attempt's queue pair until the peer
 *	answers, and answers come on the queue the handler runs on. There
 *	the loser refuses and leaves the next attempt to the peer
 *	(rds_rdma_cm.c)
 * @rnr_retry: a SEND that finds no receive posted is retried (IB and
 *	RoCE); without it (iWARP) the receive ring must be posted before
 *	the request goes out, so fragments stay RDS_FRAG_SIZE there
 * @initiator_first: the side that accepted may send nothing before a
 *	frame from the requester arrived (iWARP: MPA has the initiator
 *	send first, and siw fails the connect of a requester that finds a
 *	frame behind the MPA reply). The requester acks at once, and the
 *	acceptor holds its ESTABLISHED until that ack (rds_rdma_cm.c)
 * @drain_completes: once ib_drain_qp() returns every request posted
 *	before it has completed (IB, RoCE), so a shutdown may free the
 *	rings at once and leave the queue pair's destruction, which rxe
 *	makes wait for its packets, to a worker. siw can lose completions
 *	after a TERMINATE: there everything goes after the queues
 *	(rds_rdma_conn.c)
 *
 * A flavor is a static const table in its module; what registering
 * links is a struct rds_rdma_flavor_link.
 */
struct rds_rdma_flavor {
	struct rds_transport	trans;
	unsigned int	node_type;
	bool			atomics;
	bool			write_completes_remotely;
	bool			send_after_rdma;
	bool			cm_yield;
	bool			rnr_retry;
	bool			initiator_first;
	bool			drain_completes;
};

/**
 * struct rds_rdma_flavor_link - a flavor's entry on the engine's list
 * @fl: the flavor
 * @list: on rds_rdma_flavors (rds_rdma_main.c), under its mutex
 */
struct rds_rdma_flavor_link {
	const struct rds_rdma_flavor	*fl;
	struct list_head		list;
};

/* The engine's ops, the same for every flavor: a flavor's transport
 * table starts with these and sets only its own fields (name, type,
 * owner, laddr_check, info, stats).
 */
#define RDS_RDMA_ENGINE_OPS						\
	.caps			= RDS_TRANS_CAP_WIRE,			\
	.conn_data_size		= sizeof(struct rds_rdma_conn),		\
	.conn_alloc		= rds_rdma_conn_alloc,			\
	.conn_free		= rds_rdma_conn_free,			\
	.conn_connect		= rds_rdma_conn_connect,		\
	.conn_shutdown		= rds_rdma_conn_shutdown,		\
	.xmit			= rds_rdma_xmit,			\
	.xmit_complete		= rds_rdma_xmit_complete,		\
	.xmit_rdma		= rds_rdma_xmit_rdma,			\
	.rdma_check		= rds_rdma_rw_check,			\
	.mr_register		= rds_rdma_mr_register,			\
	.mr_free		= rds_rdma_mr_free,			\
	.inc_copy_to_user	= rds_rdma_inc_copy_to_user,		\
	.inc_free		= rds_rdma_inc_free

static inline const struct rds_rdma_flavor *
rds_rdma_flavor_of_trans(const struct rds_transport *trans)
{
	return container_of(trans, struct rds_rdma_flavor, trans);
}

static inline const struct rds_rdma_flavor *
rds_rdma_flavor_of(const struct rds_connection *conn)
{
	return rds_rdma_flavor_of_trans(conn->c_trans);
}

struct rds_rdma_regqp;

/* Memory region pool classes (rds_rdma_mr.c). */
#define RDS_RDMA_FRMR_CLASSES	2

/**
 * struct rds_rdma_dev - a device the engine uses
 * @ibdev: the device
 * @pd: protection domain of every queue pair and region on it
 * @refs: the structure's: the client holds one, each pooled region one
 * @users: connections with a queue pair on it, plus one while it lives
 * @dead: being removed: no new queue pair or registration
 * @wait: woken when @users drops
 * @reg_rwsem: registrations hold it for read, removal for write
 * @regqp_mutex: serializes making @regqp
 * @regqp: the registration queue pair, made on first use
 * @reg_slots: requests the registration queue pair may have posted
 * @frmr_lock: protects the pool below
 * @frmr_free: regions ready for reuse, per class
 * @frmr_live: regions registered (or being registered)
 * @frmr_count: regions per class, free or live
 * @frmr_nfree: regions per class on @frmr_free
 * @list: on the engine's list of devices while not dead
 * @ev: its asynchronous events (ports going down: rds_rdma_route.c)
 * @port_w: drops the connections of the ports in @port_err
 * @port_err: ports that went down, bit (port - 1)
 * @rcu: the structure is freed after a grace period: connection walkers
 *	 read a connection's i_dev under the RCU read lock
 * @srq_mutex: serializes making @srq's queues
 * @srq: its shared receive queues by fragment size (order of pages),
 *	made on first use (rds_rdma_srq.c)
 */
struct rds_rdma_dev {
	struct ib_device	*ibdev;
	struct ib_pd		*pd;
	refcount_t		refs;
	refcount_t		users;
	bool			dead;
	wait_queue_head_t	wait;
	struct rw_semaphore	reg_rwsem;
	struct mutex		regqp_mutex;	/* making regqp */
	struct rds_rdma_regqp	*regqp;
	struct semaphore	reg_slots;
	struct mutex		frmr_lock;	/* the pool */
	struct list_head	frmr_free[RDS_RDMA_FRMR_CLASSES];
	struct list_head	frmr_live;
	unsigned int		frmr_count[RDS_RDMA_FRMR_CLASSES];
	unsigned int		frmr_nfree[RDS_RDMA_FRMR_CLASSES];
	struct list_head	list;
	struct ib_event_handler	ev;
	struct work_struct	port_w;
	unsigned long		port_err;
	struct rcu_head		rcu;
	struct mutex		srq_mutex;	/* making srq */
	struct rds_rdma_srq	*srq[RDS_RDMA_FRAG_ORDERS];
};

/**
 * struct rds_rdma_send - one slot of the send ring
 * @s_cqe: its completion
 * @s_wr: the work request
 * @s_sge: header copy, then the fragment's data, a page per entry
 * @s_rm: the message the fragment belongs to (a reference), or NULL
 * @s_mapped: data entries of @s_sge mapped for the device
 */
struct rds_rdma_send {
	struct ib_cqe		s_cqe;
	struct ib_send_wr	s_wr;
	struct ib_sge		s_sge[1 + RDS_RDMA_MAX_FRAG_PAGES];
	struct rds_message	*s_rm;
	u8			s_mapped;
};

/**
 * struct rds_rdma_recv - one receive slot, of a connection or an SRQ
 * @r_cqe: its completion
 * @r_wr: the work request
 * @r_sge: header slot, then the pages (their mappings)
 * @r_hdr: the header slot (@r_sge[0] maps it)
 * @r_pages: the pages the data lands in; NULL until refilled
 */
struct rds_rdma_recv {
	struct ib_cqe		r_cqe;
	struct ib_recv_wr	r_wr;
	struct ib_sge		r_sge[1 + RDS_RDMA_MAX_FRAG_PAGES];
	struct rds_header	*r_hdr;
	struct page		*r_pages[RDS_RDMA_MAX_FRAG_PAGES];
};

/**
 * struct rds_rdma_rx_goal - how many receive slots to keep posted
 * @max: the most (the ring's or the SRQ's slots)
 * @min: what a quiet queue keeps posted
 * @goal: what the traffic asks for, between @min and @max
 * @target: slots kept posted, moving towards @goal as a worker gives
 *	slots pages
 * @window: receives completed since @window_start
 * @window_start: when the pacing window began (jiffies)
 *
 * Under the lock of the slots it paces (rds_rdma_rx_pace()).
 */
struct rds_rdma_rx_goal {
	u32			max;
	u32			min;
	u32			goal;
	u32			target;
	u32			window;
	unsigned long		window_start;
};

struct rds_rdma_srq;

/**
 * struct rds_rdma_srq_slot - a receive slot of a shared receive queue
 * @s_recv: the slot
 * @s_srq: its queue
 * @s_seq: when it was posted (rds_rdma_srq.s_next_seq then)
 * @s_state: RDS_RDMA_SLOT_*
 */
struct rds_rdma_srq_slot {
	struct rds_rdma_recv	s_recv;
	struct rds_rdma_srq	*s_srq;
	u64			s_seq;
	u8			s_state;
};

enum {
	RDS_RDMA_SLOT_FREE,	/* ours: free, or being handled */
	RDS_RDMA_SLOT_POSTED,	/* on the device's queue */
	RDS_RDMA_SLOT_ABANDONED, /* taken long ago and not completed:
				  * not counted as posted, kept intact
				  */
};

/**
 * struct rds_rdma_srq - a device's shared receive queue for one fragment
 * size (rds_rdma_srq.c)
 * @s_dev: its device (the structure's reference)
 * @s_ibsrq: the verbs object
 * @s_lock: everything below (a leaf: after i_rx_lock)
 * @s_pages: pages per slot
 * @s_slots: the slots
 * @s_hdrs: their header slots, @s_hdrs_dma mapped
 * @s_hdrs_dma: the mapping
 * @s_free: slots not posted, a stack (the last freed is posted first)
 * @s_nfree: slots on @s_free
 * @s_posted: slots on the device's queue
 * @s_goal: how many to keep posted
 * @s_next_seq: sequence of the next post; the device takes slots in
 *	the order they were posted
 * @s_done_seq: one past the latest sequence completed: every slot
 *	posted before it has been taken by some queue pair
 * @s_users: the queue pairs attached (struct rds_rdma_rxq)
 * @s_gone_seq: @s_next_seq when the last queue pair left; slots below
 *	it may be lost with a queue pair (its device never completed them)
 * @s_abandoned: slots RDS_RDMA_SLOT_ABANDONED
 * @s_epoch_seq: @s_done_seq at @s_epoch_start
 * @s_epoch_start: when the current epoch began (jiffies)
 * @s_aged_seq: @s_done_seq at least RDS_RDMA_SRQ_AGE ago: slots below it
 *	were taken that long ago
 * @s_unordered: a completion came out of posting order: lost slots are
 *	not looked for
 * @s_w: gives slots pages towards the goal, and looks for lost ones
 */
struct rds_rdma_srq {
	struct rds_rdma_dev	*s_dev;
	struct ib_srq		*s_ibsrq;
	spinlock_t		s_lock;		/* all below */
	u8			s_pages;
	struct rds_rdma_srq_slot *s_slots;
	struct rds_header	*s_hdrs;
	u64			s_hdrs_dma;
	u32			*s_free;
	u32			s_nfree;
	u32			s_posted;
	struct rds_rdma_rx_goal	s_goal;
	u64			s_next_seq;
	u64			s_done_seq;
	struct list_head	s_users;
	u64			s_gone_seq;
	u32			s_abandoned;
	u64			s_epoch_seq;
	unsigned long		s_epoch_start;
	u64			s_aged_seq;
	bool			s_unordered;
	struct delayed_work	s_w;
};

/**
 * struct rds_rdma_rxq - a queue pair's use of an SRQ; its receive CQ's
 * context, so completions name the queue pair they came through
 * @q_ic: the connection the queue pair was made for
 * @q_srq: the SRQ
 * @q_node: on @q_srq's s_users
 * @q_low_seq: the lowest sequence a slot this queue pair may still hold
 *	can have: one past its last completion's (under s_lock)
 */
struct rds_rdma_rxq {
	struct rds_rdma_conn	*q_ic;
	struct rds_rdma_srq	*q_srq;
	struct list_head	q_node;
	u64			q_low_seq;
};

/**
 * struct rds_rdma_incoming - a message being received or delivered
 * @ii_inc: what the core sees
 * @ii_bytes: data bytes received
 * @ii_got: pages in @ii_pages
 * @ii_copy: a small message's data, copied (after @ii_pages), or NULL
 * @ii_held: on the connection's i_rx_held while its delivery waits
 * @ii_mr: the use-once region it used, to kill before it is delivered
 * @ii_pages: the data, RDS_FRAG_SIZE bytes per page (the last one less)
 */
struct rds_rdma_incoming {
	struct rds_incoming	ii_inc;
	u32			ii_bytes;
	unsigned int		ii_got;
	u8			*ii_copy;
	struct list_head	ii_held;
	struct rds_mr		*ii_mr;
	struct page		*ii_pages[];
};

/* i_flags bits */
enum {
	RDS_RDMA_SEND_STALLED,	/* xmit found the ring full: kick on space */
	RDS_RDMA_ACK_WANTED,	/* the peer asked for an ack */
	RDS_RDMA_ACK_IN_FLIGHT,	/* the ack slot is posted */
	RDS_RDMA_RX_DYING,	/* shutdown: post no more receives */
	RDS_RDMA_RDMA_STALLED,	/* xmit_rdma found no room, or a message
				 * waits for its RDMA: kick on release
				 */
	RDS_RDMA_PEER_FIRST,	/* lost a race: the peer connects next */
	RDS_RDMA_RX_HOLDING,	/* deliveries wait behind a use-once kill */
	RDS_RDMA_ROUTE_FAILED,	/* the current route failed (port down, queue
				 * pair error): the next attempt tries another
				 */
	RDS_RDMA_ADV_IN_FLIGHT,	/* the route advert's slot is posted */
	RDS_RDMA_LIVE_IN_FLIGHT, /* the heartbeat's slot is posted */
	RDS_RDMA_HEAR_FIRST,	/* accepted, initiator_first: nothing heard
				 * from the peer yet, so nothing may be sent
				 */
	RDS_RDMA_EST_HELD,	/* ESTABLISHED came while HEAR_FIRST: i_est_w
				 * finishes it
				 */
};

/* Addresses a route advert carries (rds_rdma_route.c). */
#define RDS_RDMA_ROUTE_MAX	8

/* A peer's keys a connection remembers (rds_rdma_keys.c): 128 buckets of
 * 4, 4 KiB.
 */
#define RDS_RDMA_PEER_KEYS_BITS	7
#define RDS_RDMA_PEER_KEYS	BIT(RDS_RDMA_PEER_KEYS_BITS)
#define RDS_RDMA_PEER_KEYS_WAYS	4

/* h_flags of a message naming a key that is not valid on the route it
 * came over (rds_rdma_keys.c). Neither Linux nor UEK has the bit, and it
 * goes only to peers that are ours with routes.
 */
#define RDS_RDMA_FLAG_KEY_AWAY	0x40

/**
 * struct rds_rdma_route - the routes of one connection (rds_rdma_route.c)
 * @lock: protects the fields down to @hint_faddr (a leaf)
 * @token_mine: a peer opening a route to us for this connection shows it
 * @token_peer: what we show the peer; 0 until its advert came
 * @naddrs: the peer's addresses in @addrs
 * @addrs: the peer's addresses on its other RDMA devices
 * @peer_stable: the peer's last advert said its primary port is up and
 *	has been for net.rds.ib.ha_failback_ms
 * @peer_heard: jiffies of the peer's last advert
 * @hint: the peer moved us to (@hint_laddr, @hint_faddr): try it first
 * @hint_laddr: our address of that route
 * @hint_faddr: the peer's
 * @peer_ha: the peer's private data offered routes (under i_cm_mutex)
 * @alt: the current attempt or connection is on an alternate route, not
 *	on the connection's own addresses (under i_cm_mutex; read lockless)
 * @was_up: the current attempt came up
 * @failback: the next drop is ours, to go back to the primary route
 * @prefer_alt: the next attempt starts on an alternate route
 * @laddr: our address of the current route
 * @faddr: the peer's
 * @faddr_id: rds_rdma_keys_route_id() of @faddr (read lockless)
 * @answered: the peer refused the current attempt (it works, but raced)
 * @up_since: jiffies since the primary port is up (0: down), sampled
 * @mine_known: @my_addrs is filled for this connection
 * @my_naddrs: our addresses in @my_addrs
 * @my_addrs: our addresses on other devices, for adverts (worker only)
 * @w: adverts, and while on an alternate route the move back
 * @adv: the advert's buffer (header and body), mapped, or NULL
 * @adv_dma: its mapping
 * @adv_cqe: its completion
 * @adv_sge: its one SGE
 * @adv_wr: its work request
 */
struct rds_rdma_route {
	spinlock_t		lock;	/* the peer's side of it */
	u64			token_mine;
	u64			token_peer;
	u8			naddrs;
	struct in6_addr		addrs[RDS_RDMA_ROUTE_MAX];
	bool			peer_stable;
	unsigned long		peer_heard;
	bool			hint;
	struct in6_addr		hint_laddr;
	struct in6_addr		hint_faddr;

	bool			peer_ha;
	bool			alt;
	bool			was_up;
	bool			failback;
	bool			prefer_alt;
	struct in6_addr		laddr;
	struct in6_addr		faddr;
	u32			faddr_id;
	bool			answered;
	unsigned long		up_since;
	bool			mine_known;
	u8			my_naddrs;
	struct in6_addr		my_addrs[RDS_RDMA_ROUTE_MAX];
	struct delayed_work	w;

	struct rds_rdma_route_frame *adv;
	u64			adv_dma;
	struct ib_cqe		adv_cqe;
	struct ib_sge		adv_sge;
	struct ib_send_wr	adv_wr;
};

/**
 * struct rds_rdma_conn - the engine's state of one connection
 *	(rds_conn_tdata)
 * @i_connect_w: connects after all when the peer's request did not come
 *	(RDS_RDMA_PEER_FIRST)
 * @i_cm_mutex: serializes installing and removing @i_cm_id and @i_qp
 *	(connect, accept, shutdown; CM handlers of an id that is no longer
 *	@i_cm_id do nothing)
 * @i_cm_id: the CM id of the current attempt or connection, or NULL
 * @i_cm_active: @i_cm_id is our own request (not one we accepted)
 * @i_req_port: the source port of that request once sent, else 0 (read
 *	without the mutex by the accept of its local mirror)
 * @i_stale_id: our request that gave way to the peer's, destroyed by the
 *	next shutdown
 * @i_est_w: finishes an ESTABLISHED held for the peer's first frame
 *	(RDS_RDMA_EST_HELD), once it came or at @i_est_deadline
 * @i_est_deadline: when a held ESTABLISHED goes ahead unheard (jiffies)
 * @i_qp: its queue pair once created
 * @i_dev: the device of @i_qp (a user reference)
 * @i_cm_port: the device port of @i_cm_id (rdma_rw)
 * @i_send_cq: send completions
 * @i_recv_cq: receive completions
 * @i_version: negotiated protocol version (0x0301)
 * @i_frag_pages: RDS_FRAG_SIZE pages per fragment, both ways (1 with a
 *	Linux peer); 0 on the active side until the reply says
 * @i_frag_offer: the most pages a fragment may have on this queue pair
 * @i_flags: RDS_RDMA_* bits
 * @i_send_ring: slots in the send ring
 * @i_sends: the send ring
 * @i_send_hdrs: header copies, one per send slot, then the ack's
 * @i_send_hdrs_dma: their mapping
 * @i_send_head: next slot to post (transmit lock; the heartbeat reads it
 *	lockless)
 * @i_send_tail: oldest slot not completed (send completion)
 * @i_send_used: slots posted and not completed
 * @i_send_unsignaled: sends posted since the last signaled one
 * @i_xmit_ackreq: the message being sent asks for an ack
 * @i_xmit_key_away: the message being sent names a key not valid on this
 *	route (RDS_RDMA_FLAG_KEY_AWAY)
 * @i_unacked_msgs: messages sent since one last asked for an ack
 * @i_unacked_bytes: bytes sent since one last asked for an ack
 * @i_ack_cqe: completion of the explicit ack
 * @i_ack_sge: the ack's header
 * @i_ack_wr: the ack's work request
 * @i_peer_acked: the last ack the peer sent (a repeat is skipped: the
 *	core retires what an ack covers on both of its lists at once)
 * @i_ack_sent: the ack we last sent, explicit or piggybacked
 * @i_ack_w: sends an ack for what arrived without asking for one
 * @i_ack_due: the sequence @i_ack_w was armed for (under @i_rx_lock)
 * @i_rdma_wr_avail: work requests RDMA operations may still post
 * @i_rdma_ctxs: RDMA operations posted and not yet released
 * @i_rdma_wait: woken when @i_rdma_ctxs drops to 0
 * @i_scratch: where the READs behind iWARP WRITEs land (never read)
 * @i_scratch_dma: its mapping
 * @i_rdma_lock: protects @i_rdma_live (a leaf)
 * @i_rdma_live: RDMA operations not yet released
 * @i_corpses: queue pairs of this connection a worker has yet to destroy
 *	(rds_rdma_conn.c: at most one; a second shutdown meanwhile tears
 *	down in place). Read by shutdown, which the core runs one at a time
 *	per connection; the worker only decrements it
 * @i_rx_lock: serializes the receive path (completions and the worker)
 * @i_recv_ring: receive slots, the most that are ever posted
 * @i_recvs: the slots
 * @i_recv_hdrs: header slots, one per receive slot
 * @i_recv_hdrs_dma: their mapping
 * @i_recv_order: the posted slots' numbers in the order they were posted
 *	(a queue of @i_recv_ring entries; receives complete in order)
 * @i_recv_head: where in @i_recv_order the next completion's slot is
 * @i_recv_posted: slots posted
 * @i_recv_free: the slots not posted, a stack: the last one freed is
 *	posted first, with its page (@i_recv_ring entries)
 * @i_recv_nfree: slots on @i_recv_free
 * @i_rx_goal: how many slots to keep posted (its min is @i_recv_ring
 *	where the peer does not retry on RNR)
 *	All of these are under @i_rx_lock, but set at setup under
 *	i_cm_mutex before anything posts
 * @i_rxq: the queue pair's use of an SRQ, else NULL (then the slots
 *	above are its own); set and cleared under i_cm_mutex and
 *	@i_rx_lock
 * @i_rx_frag_seen: before the reply says the fragment size (SRQ: the
 *	slots are posted), the size the peer's first split message used
 * @i_rx_inc: message whose fragments are arriving, or NULL
 * @i_rx_hdr: header of @i_rx_inc's first fragment
 * @i_rx_w: posts slots up to @i_recv_goal, and refills when a page could
 *	not be allocated
 * @i_rx_held: complete messages whose delivery waits, in order, for a
 *	use-once region one of them used to be invalidated (under
 *	@i_rx_lock; RDS_RDMA_RX_HOLDING while not empty or being delivered)
 * @i_rx_held_count: messages on @i_rx_held
 * @i_rx_held_bytes: their bytes
 * @i_rx_hold_w: kills those regions and delivers @i_rx_held
 * @i_sgid: our GID, for RDS_INFO (under @i_rx_lock)
 * @i_dgid: the peer's GID, likewise
 * @i_route: its routes over other ports (rds_rdma_route.c)
 * @i_peer_keys: keys the peer named, and where they are valid
 *	(rds_rdma_keys.c)
 * @i_bound_if: the interface that held its local address when it came
 *	up, else 0 (rds_rdma_addr.c)
 * @i_live_w: posts heartbeats while the connection is up (rds_rdma_live.c)
 * @i_live_head: @i_send_head at the last heartbeat period
 * @i_live_sent: jiffies the heartbeat in flight was posted
 * @i_live_cqe: the heartbeat's completion
 * @i_live_wr: the heartbeat: a zero-length RDMA WRITE
 * @i_live_refused: the peer's device refused one: none go to it any more
 *	(kept across reconnects)
 */
struct rds_rdma_conn {
	struct delayed_work	i_connect_w;
	struct mutex		i_cm_mutex;	/* i_cm_id, i_qp */
	struct rdma_cm_id	*i_cm_id;
	bool			i_cm_active;
	__be16			i_req_port;
	struct rdma_cm_id	*i_stale_id;
	struct delayed_work	i_est_w;
	unsigned long		i_est_deadline;
	struct ib_qp		*i_qp;
	struct rds_rdma_dev	*i_dev;
	u32			i_cm_port;
	struct ib_cq		*i_send_cq;
	struct ib_cq		*i_recv_cq;
	u16			i_version;
	u8			i_frag_pages;
	u8			i_frag_offer;
	unsigned long		i_flags;

	u32			i_send_ring;
	struct rds_rdma_send	*i_sends;
	struct rds_header	*i_send_hdrs;
	u64			i_send_hdrs_dma;
	u32			i_send_head;
	u32			i_send_tail;
	atomic_t		i_send_used;
	u32			i_send_unsignaled;
	bool			i_xmit_ackreq;
	bool			i_xmit_key_away;
	u32			i_unacked_msgs;
	u64			i_unacked_bytes;
	struct ib_cqe		i_ack_cqe;
	struct ib_sge		i_ack_sge;
	struct ib_send_wr	i_ack_wr;
	u64			i_peer_acked;
	u64			i_ack_sent;
	struct delayed_work	i_ack_w;
	u64			i_ack_due;
	atomic_t		i_rdma_wr_avail;
	atomic_t		i_rdma_ctxs;
	wait_queue_head_t	i_rdma_wait;
	u64			*i_scratch;
	u64			i_scratch_dma;
	spinlock_t		i_rdma_lock;	/* i_rdma_live */
	struct list_head	i_rdma_live;
	atomic_t		i_corpses;

	spinlock_t		i_rx_lock;	/* receive path */
	u32			i_recv_ring;
	struct rds_rdma_recv	*i_recvs;
	struct rds_header	*i_recv_hdrs;
	u64			i_recv_hdrs_dma;
	u32			*i_recv_order;
	u32			i_recv_head;
	u32			i_recv_posted;
	u32			*i_recv_free;
	u32			i_recv_nfree;
	struct rds_rdma_rx_goal	i_rx_goal;
	struct rds_rdma_rxq	*i_rxq;
	u32			i_rx_frag_seen;
	struct rds_rdma_incoming *i_rx_inc;
	struct rds_header	i_rx_hdr;
	struct delayed_work	i_rx_w;
	struct list_head	i_rx_held;
	u32			i_rx_held_count;
	u64			i_rx_held_bytes;
	struct work_struct	i_rx_hold_w;
	u8			i_sgid[16];
	u8			i_dgid[16];

	struct rds_rdma_route	i_route;
	atomic64_t		i_peer_keys[RDS_RDMA_PEER_KEYS][RDS_RDMA_PEER_KEYS_WAYS];
	int			i_bound_if;

	struct delayed_work	i_live_w;
	u32			i_live_head;
	unsigned long		i_live_sent;
	struct ib_cqe		i_live_cqe;
	struct ib_rdma_wr	i_live_wr;
	bool			i_live_refused;
};

/* The int a consumer-defined reject carries (0 if none). */
static inline int rds_rdma_cm_rej_word(const struct rdma_cm_id *id,
				       const struct rdma_cm_event *ev)
{
	const void *data;
	int word = 0;
	u8 len = 0;

	data = rdma_consumer_reject_data((struct rdma_cm_id *)id,
					 (struct rdma_cm_event *)ev, &len);
	if (data && len >= sizeof(word))
		memcpy(&word, data, sizeof(word));
	return word;
}

static inline struct rds_rdma_conn *rds_rdma_conn(struct rds_connection *conn)
{
	return rds_conn_tdata(conn);
}

/* Counters, with Linux's names where the meaning is the same. */
enum rds_rdma_stat {
	RDS_RDMA_STAT_CONNECT_RACED,
	RDS_RDMA_STAT_CONNECT_LOCAL,
	RDS_RDMA_STAT_CONNECT_YIELDED,
	RDS_RDMA_STAT_LISTEN_CLOSED_STALE,
	RDS_RDMA_STAT_EVT_HANDLER_CALL,
	RDS_RDMA_STAT_TX_CQ_EVENT,
	RDS_RDMA_STAT_TX_RING_FULL,
	RDS_RDMA_STAT_TX_SG_MAPPING_FAILURE,
	RDS_RDMA_STAT_RX_CQ_EVENT,
	RDS_RDMA_STAT_RX_RING_EMPTY,
	RDS_RDMA_STAT_RX_REFILL_FROM_CQ,
	RDS_RDMA_STAT_RX_REFILL_FROM_THREAD,
	RDS_RDMA_STAT_RX_ALLOC_LIMIT,
	RDS_RDMA_STAT_ACK_SENT,
	RDS_RDMA_STAT_ACK_SEND_FAILURE,
	RDS_RDMA_STAT_ACK_SEND_DELAYED,
	RDS_RDMA_STAT_ACK_SEND_PIGGYBACKED,
	RDS_RDMA_STAT_ACK_RECEIVED,
	RDS_RDMA_STAT_CONNECT_REFUSED,
	RDS_RDMA_STAT_RX_BAD_FRAGMENT,
	RDS_RDMA_STAT_MR_8K_ALLOC,
	RDS_RDMA_STAT_MR_8K_FREE,
	RDS_RDMA_STAT_MR_8K_REUSED,
	RDS_RDMA_STAT_MR_8K_POOL_DEPLETED,
	RDS_RDMA_STAT_MR_1M_ALLOC,
	RDS_RDMA_STAT_MR_1M_FREE,
	RDS_RDMA_STAT_MR_1M_REUSED,
	RDS_RDMA_STAT_MR_1M_POOL_DEPLETED,
	RDS_RDMA_STAT_TX_ACK_REQUIRED,
	RDS_RDMA_STAT_RX_PAGE_REUSED,
	RDS_RDMA_STAT_RX_HELD_USE_ONCE,
	RDS_RDMA_STAT_RX_HOLD_OVERFLOW,
	RDS_RDMA_STAT_MR_TIMEOUT,
	RDS_RDMA_STAT_ROUTE_ADVERT_SENT,
	RDS_RDMA_STAT_ROUTE_ADVERT_RECEIVED,
	RDS_RDMA_STAT_ROUTE_CONNECT,
	RDS_RDMA_STAT_ROUTE_ACCEPTED,
	RDS_RDMA_STAT_ROUTE_REFUSED,
	RDS_RDMA_STAT_ROUTE_FAILOVER,
	RDS_RDMA_STAT_ROUTE_FAILBACK,
	RDS_RDMA_STAT_ROUTE_PORT_ERROR,
	RDS_RDMA_STAT_HEARTBEAT_SENT,
	RDS_RDMA_STAT_HEARTBEAT_TIMEOUT,
	RDS_RDMA_STAT_ADDR_MOVED,
	RDS_RDMA_STAT_KEY_AWAY_SENT,
	RDS_RDMA_STAT_KEY_REFUSED,
	RDS_RDMA_STAT_KEY_FORGOTTEN,
	RDS_RDMA_STAT_EST_UNHEARD,
	RDS_RDMA_STAT_RX_RING_GROWN,
	RDS_RDMA_STAT_RX_RING_SHRUNK,
	RDS_RDMA_STAT_RX_PAGES_HELD,
	RDS_RDMA_STAT_SRQ_CREATED,
	RDS_RDMA_STAT_SRQ_POSTED,
	RDS_RDMA_STAT_SRQ_EMPTY,
	RDS_RDMA_STAT_SRQ_GROWN,
	RDS_RDMA_STAT_SRQ_SHRUNK,
	RDS_RDMA_STAT_SRQ_LOST,
	RDS_RDMA_STAT_SRQ_ABANDONED,
	RDS_RDMA_STAT_SRQ_UNORDERED,
	RDS_RDMA_STAT_MAX,
};

DECLARE_PER_CPU(u64 [RDS_RDMA_STAT_MAX], rds_rdma_stats);

static inline void rds_rdma_stat_inc(enum rds_rdma_stat s)
{
	this_cpu_inc(rds_rdma_stats[s]);
}

static inline void rds_rdma_stat_add(enum rds_rdma_stat s, u64 n)
{
	this_cpu_add(rds_rdma_stats[s], n);
}

/* For a level (RDS_RDMA_STAT_RX_PAGES_HELD): the CPUs' sum is right. */
static inline void rds_rdma_stat_dec(enum rds_rdma_stat s)
{
	this_cpu_dec(rds_rdma_stats[s]);
}

extern const char *const rds_rdma_stat_names[RDS_RDMA_STAT_MAX];
void rds_rdma_stats_sum(struct net *net, u64 *vals);

/* net.rds.ib tunables */
extern unsigned int rds_rdma_sysctl_max_send_wr;
extern unsigned int rds_rdma_sysctl_max_recv_wr;
extern unsigned int rds_rdma_sysctl_min_recv_wr;
extern unsigned int rds_rdma_sysctl_max_unsignaled_wr;
extern unsigned int rds_rdma_sysctl_srq;
extern unsigned int rds_rdma_sysctl_srq_max_wr;
extern unsigned int rds_rdma_sysctl_srq_min_wr;
extern unsigned int rds_rdma_sysctl_max_frag_size;
extern unsigned int rds_rdma_sysctl_ha_routes;
extern unsigned int rds_rdma_sysctl_ha_failback_ms;
extern unsigned int rds_rdma_sysctl_heartbeat_ms;
#define RDS_RDMA_HA_EXCLUDE_LEN	128
extern char rds_rdma_sysctl_ha_exclude[RDS_RDMA_HA_EXCLUDE_LEN];
extern spinlock_t rds_rdma_ha_exclude_lock;
int rds_rdma_sysctl_init(void);
void rds_rdma_sysctl_exit(void);

extern struct workqueue_struct *rds_rdma_wq;
extern struct workqueue_struct *rds_rdma_rw_wq;
extern struct workqueue_struct *rds_rdma_corpse_wq;

/* rds_rdma_pages.c */
struct page *rds_rdma_page_get(gfp_t gfp);
void rds_rdma_page_put(struct page *page);
void rds_rdma_pages_drain(void);

/* rds_rdma_dev.c */
int rds_rdma_dev_init(void);
void rds_rdma_dev_exit(void);
struct rds_rdma_dev *rds_rdma_dev_get(struct ib_device *ibdev);
void rds_rdma_dev_put(struct rds_rdma_dev *dev);
bool rds_rdma_dev_ours(struct ib_device *ibdev);
void rds_rdma_dev_struct_put(struct rds_rdma_dev *dev);
struct rds_rdma_dev *rds_rdma_dev_by_addr(struct net *net,
					  const struct in6_addr *addr,
					  unsigned int node_type);
struct rds_rdma_dev *rds_rdma_dev_of_conn(struct rds_rdma_conn *ic);
int rds_rdma_laddr_check(struct net *net, const struct in6_addr *addr,
			 __u32 scope_id, unsigned int node_type);

/* rds_rdma_main.c: the flavors */
const struct rds_rdma_flavor *rds_rdma_flavor_find(unsigned int t);
int rds_rdma_flavor_register(struct rds_rdma_flavor_link *link);
void rds_rdma_flavor_unregister(struct rds_rdma_flavor_link *link);
void rds_rdma_drop_dev_conns(struct ib_device *ibdev);
void rds_rdma_walk_conns(void (*fn)(struct rds_connection *conn, void *arg),
			 void *arg);
void rds_rdma_info_fill(struct net *net, struct rds_info_buf *b,
			const struct rds_transport *trans, bool v6);
int rds_rdma_engine_init(void);
void rds_rdma_engine_exit(void);

/* rds_rdma_cm.c */
void rds_rdma_sockaddr(struct sockaddr_storage *ss, const struct in6_addr *addr,
		       u16 port, int scope);
int rds_rdma_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
int rds_rdma_conn_connect(struct rds_connection *conn);
void rds_rdma_connect_worker(struct work_struct *work);
void rds_rdma_est_worker(struct work_struct *work);
void rds_rdma_cm_heard(struct rds_rdma_conn *ic);

/* rds_rdma_listen.c */
u16 rds_rdma_port(const struct rds_connection *conn);
int rds_rdma_listen_start(void);
void rds_rdma_listen_stop(void);
void rds_rdma_listen6_rescan(void);

/* rds_rdma_conn.c */
int rds_rdma_conn_alloc(struct rds_connection *conn, gfp_t gfp);
void rds_rdma_conn_free(struct rds_connection *conn);
void rds_rdma_conn_shutdown(struct rds_connection *conn);
int rds_rdma_qp_setup(struct rds_connection *conn, struct rdma_cm_id *cm_id);
void rds_rdma_qp_teardown(struct rds_connection *conn, struct rdma_cm_id *id);
bool rds_rdma_wc_failed(struct rds_connection *conn, const struct ib_wc *wc,
			const char *what);
void rds_rdma_qp_event(struct ib_event *ev, void *ctx);

/* rds_rdma_send.c */
int rds_rdma_send_ring_init(struct rds_rdma_conn *ic);
void rds_rdma_send_ring_free(struct rds_rdma_conn *ic);
int rds_rdma_xmit(struct rds_connection *conn, struct rds_message *rm,
		  unsigned int *pos);
void rds_rdma_xmit_complete(struct rds_connection *conn);
void rds_rdma_send_ack(struct rds_connection *conn);
void rds_rdma_ack_worker(struct work_struct *work);
void rds_rdma_ack_later(struct rds_connection *conn, struct rds_rdma_conn *ic);
void rds_rdma_peer_acked(struct rds_connection *conn, u64 ack);
void rds_rdma_reapply_ack(struct rds_connection *conn);
u64 rds_rdma_ack_seq(struct rds_connection *conn);

/* rds_rdma_rw.c */
int rds_rdma_xmit_rdma(struct rds_connection *conn, struct rds_message *rm);
void rds_rdma_rw_drain(struct rds_connection *conn, struct list_head *dead);
void rds_rdma_rw_bury(struct list_head *dead);
int rds_rdma_rw_check(struct rds_connection *conn,
		      const struct rds_rdma_op *op);

/* rds_rdma_mr.c */
int rds_rdma_mr_register(struct rds_mr *mr, struct net *net,
			 const struct in6_addr *laddr, struct rds_mr_keygen *kg);
void rds_rdma_mr_free(struct rds_mr *mr);
void rds_rdma_mr_dev_remove(struct rds_rdma_dev *dev);

/* rds_rdma_regqp.c */
struct rds_rdma_regqp *rds_rdma_regqp_create(struct rds_rdma_dev *dev,
					     struct net *net,
					     const struct in6_addr *laddr);
void rds_rdma_regqp_free(struct rds_rdma_regqp *rq);
int rds_rdma_regqp_post(struct rds_rdma_regqp *rq, struct ib_send_wr *wr);
bool rds_rdma_regqp_broken(struct rds_rdma_regqp *rq);
void rds_rdma_regqp_set_broken(struct rds_rdma_regqp *rq);

/* rds_rdma_route.c */
#define RDS_RDMA_ROUTE_MARK	0xa5	/* cdata route: a route request */
void rds_rdma_route_conn_init(struct rds_rdma_conn *ic);
void rds_rdma_route_conn_free(struct rds_rdma_conn *ic);
int rds_rdma_route_qp_init(struct rds_rdma_conn *ic);
void rds_rdma_route_qp_free(struct rds_rdma_conn *ic);
void rds_rdma_route_fill_cdata(struct rds_connection *conn,
			       struct rds_rdma_cdata_common *c, bool request);
void rds_rdma_route_peer_cdata(struct rds_connection *conn,
			       const struct rds_rdma_cdata_common *c);
bool rds_rdma_route_pick(struct rds_connection *conn, struct in6_addr *laddr,
			 struct in6_addr *faddr);
struct rds_connection *
rds_rdma_route_request(const struct rds_rdma_flavor *fl,
		       const struct rds_rdma_cdata_common *c,
		       const struct in6_addr *laddr,
		       const struct in6_addr *faddr,
		       const struct in6_addr *cm_laddr,
		       const struct in6_addr *cm_faddr);
bool rds_rdma_route_wins(struct rds_connection *conn, bool route_req);
void rds_rdma_route_accepted(struct rds_connection *conn,
			     const struct in6_addr *cm_laddr,
			     const struct in6_addr *cm_faddr);
void rds_rdma_route_stale(struct rds_connection *conn,
			  const struct in6_addr *cm_laddr,
			  const struct in6_addr *cm_faddr);
void rds_rdma_route_established(struct rds_connection *conn);
bool rds_rdma_route_recv(struct rds_connection *conn, struct rds_rdma_conn *ic,
			 const struct rds_header *hdr, struct page *page,
			 u64 dma, u32 data_len);
void rds_rdma_route_failed(struct rds_connection *conn);
void rds_rdma_route_shutdown(struct rds_connection *conn);
void rds_rdma_route_dev_event(struct ib_event_handler *h, struct ib_event *ev);
void rds_rdma_route_port_worker(struct work_struct *work);

u32 rds_rdma_keys_route_id(const struct in6_addr *faddr);
u32 rds_rdma_keys_where(const struct rds_rdma_dev *dev);
bool rds_rdma_keys_away(struct rds_connection *conn, struct rds_message *rm);
void rds_rdma_keys_recv(struct rds_rdma_conn *ic, const struct rds_header *hdr);
bool rds_rdma_keys_refused(struct rds_rdma_conn *ic, u32 key);
void rds_rdma_keys_forget(struct rds_rdma_conn *ic);

/* rds_rdma_addr.c */
int rds_rdma_addr_init(void);
void rds_rdma_addr_exit(void);
void rds_rdma_addr_bind(struct rds_connection *conn, struct rdma_cm_id *id);
bool rds_rdma_addr_held(const struct in6_addr *addr, struct net_device *dev);
bool rds_rdma_addr_gone(struct rds_connection *conn);
void rds_rdma_addr_drop(struct rds_connection *conn);

/* rds_rdma_srq.c */
struct rds_rdma_srq *rds_rdma_srq_get(struct rds_rdma_dev *dev,
				      unsigned int pages);
int rds_rdma_srq_attach(struct rds_rdma_conn *ic, struct rds_rdma_srq *srq);
void rds_rdma_srq_detach(struct rds_rdma_rxq *q);
void rds_rdma_srq_dev_remove(struct rds_rdma_dev *dev);
bool rds_rdma_srq_frag_agreed(struct rds_rdma_conn *ic, unsigned int pages);

/* rds_rdma_live.c */
void rds_rdma_live_conn_init(struct rds_rdma_conn *ic);
void rds_rdma_live_start(struct rds_connection *conn);
void rds_rdma_live_stop(struct rds_rdma_conn *ic);

/* rds_rdma_recv.c */
void rds_rdma_rx_goal_start(struct rds_rdma_rx_goal *g, u32 min, u32 max);
void rds_rdma_rx_pace(struct rds_rdma_rx_goal *g, struct delayed_work *grow,
		      enum rds_rdma_stat shrunk);
void rds_rdma_recv_slot_init(struct rds_rdma_recv *r, struct rds_header *hdr,
			     u64 hdr_dma, u32 lkey,
			     void (*done)(struct ib_cq *cq, struct ib_wc *wc));
int rds_rdma_recv_slot_ready(struct ib_device *ibdev, struct rds_rdma_recv *r,
			     unsigned int pages, gfp_t gfp);
void rds_rdma_recv_unpage(struct ib_device *ibdev, struct rds_rdma_recv *r);
void rds_rdma_recv_taken(struct rds_connection *conn, struct rds_rdma_recv *r,
			 u32 len);
int rds_rdma_recv_ring_init(struct rds_rdma_conn *ic);
void rds_rdma_recv_ring_free(struct rds_rdma_conn *ic);
int rds_rdma_recv_ring_pages(struct rds_rdma_conn *ic);
void rds_rdma_recv_fill(struct rds_connection *conn);
void rds_rdma_recv_worker(struct work_struct *work);
void rds_rdma_recv_hold_worker(struct work_struct *work);
int rds_rdma_inc_copy_to_user(struct rds_incoming *inc, struct iov_iter *to);
void rds_rdma_inc_free(struct rds_incoming *inc);

#endif /* _RDS_RDMA_H */
