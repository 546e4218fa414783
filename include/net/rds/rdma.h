/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Remote memory access as the core hands it to transports: registered
 * memory regions (MRs) and the RDMA operation a message may carry.
 *
 * The core owns the user-facing half (argument checks, pinning, the
 * per-socket MR table, cookies, notifications); a transport with an
 * xmit_rdma op moves the bytes.
 *
 * Lock order: rds_mr->r_lock is a mutex taken in process context only,
 * with no spinlock held; nothing else is taken under it.
 */
#ifndef _NET_RDS_RDMA_H
#define _NET_RDS_RDMA_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rds.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/atomic.h>
#include <linux/in6.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <net/rds/message.h>

struct rds_connection;
struct mm_struct;
struct page;
struct rds_transport;

/**
 * struct rds_mr_keygen - a socket's state for minting region keys
 * @kg_count: registrations so far (the generation)
 * @kg_salt: the socket's own: no two sockets share one (the secret of
 *	rds_mr_key_next() keeps keys unpredictable, not this)
 */
struct rds_mr_keygen {
	atomic64_t	kg_count;
	u64		kg_salt;
};

u32 rds_mr_key_next(struct rds_mr_keygen *kg);

/* A cookie is the region's key in its low half, an offset in its high. */
static inline u32 rds_rdma_cookie_key(u64 cookie)
{
	return (u32)cookie;
}

static inline u32 rds_rdma_cookie_offset(u64 cookie)
{
	return cookie >> 32;
}

static inline u64 rds_rdma_make_cookie(u32 r_key, u32 offset)
{
	return r_key | ((u64)offset << 32);
}

/**
 * struct rds_mr - a registered memory region
 * @r_refcount: the socket's table holds one; so does each user
 * @r_key: key in the owning socket's table (never 0)
 * @r_lock: held while the pages are accessed; serializes with @r_dead
 * @r_dead: freed or used up: the pages must not be touched any more;
 *	protected by @r_lock
 * @r_use_once: the key dies after its first use
 * @r_claimed: a use-once region was found by its one operation; protected
 *	by the table's xa_lock
 * @r_invalidate: RDS_RDMA_INVALIDATE was asked at registration
 * @r_offset: offset of the region in its first page
 * @r_len: bytes in the region
 * @r_npages: pinned pages in @r_pages
 * @r_pages: the pinned user pages (FOLL_LONGTERM, writable)
 * @r_mm: address space charged for the pinned pages (RLIMIT_MEMLOCK), or
 *	NULL when the owner had CAP_IPC_LOCK
 * @r_peer: the only peer address allowed to access the region, if
 *	@r_for_peer (RDS_GET_MR_FOR_DEST, RDS_CMSG_RDMA_MAP)
 * @r_for_peer: @r_peer is set
 * @r_tos: the registering socket's type of service: with @r_peer, it
 *	names the connection the region is for
 * @r_trans: the transport that registered it (its module is held while
 *	@r_tdata is set)
 * @r_tdata: the transport's state of the registration, or NULL
 * @r_where: where the transport registered it (an adapter: its device),
 *	as an id of the transport's that is never 0; 0 if it does not say
 * @r_kill_w: kills a use-once region a peer used (from a receive path
 *	that does not kill it before delivery: rds_rdma_recv_used())
 *
 * Remote addresses are offsets from the start of the first page: the
 * region is [@r_offset, @r_offset + @r_len).
 */
struct rds_mr {
	refcount_t		r_refcount;
	u32			r_key;
	struct mutex		r_lock;		/* @r_dead, page access */
	bool			r_dead;
	bool			r_use_once;
	bool			r_claimed;
	bool			r_invalidate;
	u32			r_offset;
	u32			r_len;
	unsigned int		r_npages;
	struct page		**r_pages;
	struct mm_struct	*r_mm;
	struct in6_addr		r_peer;
	bool			r_for_peer;
	u8			r_tos;
	const struct rds_transport *r_trans;
	void			*r_tdata;
	u32			r_where;
	struct work_struct	r_kill_w;
};

/**
 * struct rds_notifier - an RDS_CMSG_RDMA_STATUS waiting for recvmsg()
 * @n_list: on the sender's notification queue (under its rs_lock)
 * @n_user_token: the user's token from struct rds_rdma_args
 * @n_status: RDS_RDMA_*
 */
struct rds_notifier {
	struct list_head	n_list;
	u64			n_user_token;
	int			n_status;
};

/* What a struct rds_rdma_op does. */
enum rds_rdma_op_type {
	RDS_OP_RDMA,		/* read or write (op_write) */
	RDS_OP_ATOMIC_FADD,	/* fetch and add, carries cut at op_nocarry */
	RDS_OP_ATOMIC_CSWP,	/* masked compare and swap */
};

/**
 * struct rds_rdma_op - the RDMA read, write or atomic a message carries
 * @op_type: enum rds_rdma_op_type
 * @op_add: FADD: the addend
 * @op_nocarry: FADD: bits whose carry out is discarded (0: plain add)
 * @op_compare: CSWP: compared with the remote word under @op_compare_mask
 * @op_compare_mask: CSWP: bits compared (all for the unmasked op)
 * @op_swap: CSWP: the new value, under @op_swap_mask
 * @op_swap_mask: CSWP: bits replaced (all for the unmasked op)
 * @op_rkey: key of the peer's region
 * @op_remote_addr: offset in the peer's region (remote_vec.addr plus the
 *	cookie's offset)
 * @op_bytes: bytes to move (sum of the local vector; 8 for atomics)
 * @op_write: RDS_RDMA_READWRITE: local to remote, else remote to local
 * @op_fence: RDS_RDMA_FENCE (loopback is always ordered)
 * @op_notify: RDS_RDMA_NOTIFY_ME
 * @op_silent: RDS_RDMA_SILENT
 * @op_remote_complete: UEK's RDS_RDMA_REMOTE_COMPLETE: success is told
 *	when the message is acked, not when the operation completes
 * @op_posted: handed to the transport (the transmit loop's: a message
 *	whose SEND found the ring full is offered again, its RDMA not)
 * @op_done: the transport carried the operation out (or failed it)
 * @op_status: RDS_RDMA_* outcome, RDS_RDMA_DROPPED until done
 * @op_notifier: preallocated notification, or NULL if none is wanted
 * @op_mm: address space charged for the pinned local pages
 *	(RLIMIT_MEMLOCK) until they are unpinned, or NULL
 * @op_charged: pages charged to @op_mm
 * @op_nents: entries of @op_sg
 * @op_sg: the pinned local pages, in order (atomics: the 8-byte word
 *	that receives the remote word's old value)
 */
struct rds_rdma_op {
	enum rds_rdma_op_type	op_type;
	u64			op_add;
	u64			op_nocarry;
	u64			op_compare;
	u64			op_compare_mask;
	u64			op_swap;
	u64			op_swap_mask;
	u32			op_rkey;
	u64			op_remote_addr;
	u32			op_bytes;
	bool			op_write;
	bool			op_fence;
	bool			op_notify;
	bool			op_silent;
	bool			op_remote_complete;
	bool			op_posted;
	bool			op_done;
	int			op_status;
	struct rds_notifier	*op_notifier;
	struct mm_struct	*op_mm;
	unsigned int		op_charged;
	unsigned int		op_nents;
	struct scatterlist	op_sg[];
};

/**
 * struct rds_mr_access - an operation's hold on its target region
 * @rs: the socket owning the region (a reference), or NULL
 * @mr: the region (a reference), or NULL if the key named nothing
 */
struct rds_mr_access {
	struct rds_sock		*rs;
	struct rds_mr		*mr;
};

bool rds_mr_access_begin(struct rds_connection *conn, struct rds_message *rm,
			 struct rds_mr_access *acc);
void rds_mr_access_end(struct rds_mr_access *acc);
void rds_rdma_op_complete(struct rds_rdma_op *op, int status);
void rds_rdma_send_complete(struct rds_message *rm, int status);
struct rds_mr *rds_rdma_recv_claim(struct rds_connection *conn,
				   const struct rds_header *hdr,
				   const struct in6_addr *daddr);
void rds_rdma_recv_kill(struct rds_mr *mr);
bool rds_rdma_cookie_is_at(struct rds_message *rm, u32 where);
u64 rds_rdma_hdr_cookie(const struct rds_header *hdr);

/*
 * A silent RDMA with nothing else to say: no SEND goes to the peer (as in
 * Linux), so no ack of its sequence number ever comes back.
 */
static inline bool rds_message_silent(const struct rds_message *rm)
{
	return rm->m_rdma && rm->m_rdma->op_silent && !rm->m_len &&
	       !rm->m_rdma_cookie;
}

#endif /* _NET_RDS_RDMA_H */
