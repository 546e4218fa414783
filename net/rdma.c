// SPDX-License-Identifier: GPL-2.0
/*
 * Remote memory access, the core's half: memory registration (RDS_GET_MR,
 * RDS_GET_MR_FOR_DEST, RDS_CMSG_RDMA_MAP, RDS_FREE_MR), the per-socket MR
 * table, cookies, the RDMA operation of a message (RDS_CMSG_RDMA_ARGS) and
 * the RDS_CMSG_RDMA_STATUS notifications. Transports move the bytes.
 *
 * Lifetime: the socket's table holds one reference on each MR, each user
 * (an operation targeting it) one more. RDS_FREE_MR and close take the MR
 * out of the table, so no new operation finds it, then mark it dead under
 * its r_lock: an operation copies only under r_lock and only while the MR
 * is alive, so once RDS_FREE_MR returns the memory is never touched again.
 * The pages are unpinned when the last reference goes.
 *
 * Locks: rds_mr->r_lock (a mutex) and the table's xa_lock are never held
 * together; rs_lock (notifications) is never held with either. A
 * message's m_rs_lock is taken outside its socket's rs_lock, and alone
 * when a failed key is counted against the socket.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "rds_core.h"

/* Secret of the key permutation below, the same for every socket. */
static siphash_aligned_key_t rds_mr_key_secret;

/**
 * rds_mr_key_next - mint a region key from a socket's key state
 * @kg: the socket's key state
 *
 * The key is the socket's registration count (its generation) passed
 * through a keyed pseudo-random permutation of 32-bit values: a
 * four-round Feistel network whose round function is SipHash under a
 * secret and the socket's salt (its serial number: sockets' sequences
 * differ). Keys look random to anyone without the secret, and a socket
 * never sees the same key twice within 2^32 registrations, so a freed
 * and re-registered region never answers to an old cookie.
 *
 * Context: any.
 * Return: a key, never 0.
 */
u32 rds_mr_key_next(struct rds_mr_keygen *kg)
{
	u64 n;
	u16 l, r, f;
	int round;

	net_get_random_once(&rds_mr_key_secret, sizeof(rds_mr_key_secret));
	do {
		n = atomic64_inc_return(&kg->kg_count);
		l = (u32)n >> 16;
		r = (u16)n;
		for (round = 0; round < 4; round++) {
			f = siphash_4u32(r | (u32)round << 16, n >> 32,
					 (u32)kg->kg_salt, kg->kg_salt >> 32,
					 &rds_mr_key_secret);
			f ^= l;
			l = r;
			r = f;
		}
	} while (!l && !r);
	return (u32)l << 16 | r;
}
EXPORT_SYMBOL_GPL(rds_mr_key_next);

/* Pages spanned by @vec, or 0 if it is empty, wraps or exceeds UINT_MAX. */
static unsigned int rds_vec_pages(const struct rds_iovec *vec)
{
	u64 end;

	if (!vec->bytes || vec->bytes > UINT_MAX ||
	    check_add_overflow(vec->addr, vec->bytes, &end))
		return 0;
	return ((end - 1) >> PAGE_SHIFT) - (vec->addr >> PAGE_SHIFT) + 1;
}

/* Pin @npages user pages from the page of @addr. */
static int rds_pin_pages(u64 addr, unsigned int npages, struct page **pages,
			 bool write)
{
	unsigned int gup = FOLL_LONGTERM | (write ? FOLL_WRITE : 0);
	unsigned long start = (unsigned long)addr & PAGE_MASK;
	unsigned int done = 0;
	int ret;

	if (addr > ULONG_MAX)
		return -EFAULT;
	while (done < npages) {
		ret = pin_user_pages_fast(start + (unsigned long)done * PAGE_SIZE,
					  npages - done, gup, pages + done);
		if (ret <= 0) {
			unpin_user_pages(pages, done);
			return ret ? ret : -EFAULT;
		}
		done += ret;
	}
	return 0;
}

/* Charge @npages against RLIMIT_MEMLOCK unless the caller may lock memory
 * freely (CAP_IPC_LOCK). Sets *@charged to the charged mm, or NULL.
 */
static int rds_mr_charge(unsigned int npages, struct mm_struct **charged)
{
	struct mm_struct *mm = current->mm;
	unsigned long limit;
	s64 pinned;

	*charged = NULL;
	if (!mm)
		return -EFAULT;
	if (capable(CAP_IPC_LOCK))
		return 0;
	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	pinned = atomic64_add_return(npages, &mm->pinned_vm);
	if (pinned > limit) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	mmgrab(mm);
	*charged = mm;
	return 0;
}

/* Give back what rds_mr_charge() took. */
static void rds_mr_uncharge(struct mm_struct *mm, unsigned int npages)
{
	if (mm) {
		atomic64_sub(npages, &mm->pinned_vm);
		mmdrop(mm);
	}
}

/* Take the transport's registration away: after this no peer reaches
 * the pages. Process context.
 */
static void rds_mr_unregister(struct rds_mr *mr)
{
	if (!mr->r_tdata)
		return;
	mr->r_trans->mr_free(mr);
	mr->r_tdata = NULL;
	module_put(mr->r_trans->owner);
}

static void rds_mr_free(struct rds_mr *mr)
{
	rds_mr_unregister(mr);
	unpin_user_pages_dirty_lock(mr->r_pages, mr->r_npages, true);
	rds_mr_uncharge(mr->r_mm, mr->r_npages);
	kvfree(mr->r_pages);
	kfree(mr);
	rds_obj_dec(RDS_OBJ_MR);
}

/* Drop a reference; the last one unpins the pages (marking them dirty).
 * Process context, may sleep.
 */
static void rds_mr_put(struct rds_mr *mr)
{
	if (refcount_dec_and_test(&mr->r_refcount))
		rds_mr_free(mr);
}

/* Make @mr unreachable for accesses and drop the table's reference. */
static void rds_mr_kill(struct rds_mr *mr)
{
	mutex_lock(&mr->r_lock);
	mr->r_dead = true;
	mutex_unlock(&mr->r_lock);
	/* RDS_FREE_MR's promise: an adapter stops reaching it now. */
	rds_mr_unregister(mr);
	rds_mr_put(mr);
}

/* Register @args->vec for @rs, for @peer only if not NULL; the cookie
 * goes to *@cookie.
 */
static int rds_mr_create(struct rds_sock *rs, const struct rds_get_mr_args *args,
			 const struct in6_addr *peer, u64 *cookie)
{
	const struct rds_transport *trans;
	unsigned int npages, tries;
	struct rds_mr *mr;
	int ret;

	if (!rds_sock_bound(rs))
		return -ENOTCONN;
	trans = rs->rs_transport;
	if (!trans->xmit_rdma)
		return -EOPNOTSUPP;
	if (!can_do_mlock())
		return -EPERM;
	npages = rds_vec_pages(&args->vec);
	if (!npages)
		return -EINVAL;
	/* One more page than the largest message, for an unaligned start. */
	if (npages - 1 > (RDS_MAX_MSG_SIZE >> PAGE_SHIFT))
		return -EMSGSIZE;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return -ENOMEM;
	mr->r_pages = kvcalloc(npages, sizeof(*mr->r_pages), GFP_KERNEL_ACCOUNT);
	if (!mr->r_pages) {
		ret = -ENOMEM;
		goto free_mr;
	}
	refcount_set(&mr->r_refcount, 1);
	mutex_init(&mr->r_lock);
	mr->r_use_once = args->flags & RDS_RDMA_USE_ONCE;
	mr->r_invalidate = args->flags & RDS_RDMA_INVALIDATE;
	mr->r_offset = args->vec.addr & ~PAGE_MASK;
	mr->r_len = args->vec.bytes;
	if (peer) {
		mr->r_peer = *peer;
		mr->r_for_peer = true;
		mr->r_tos = READ_ONCE(rs->rs_tos);
	}

	ret = rds_mr_charge(npages, &mr->r_mm);
	if (ret)
		goto free_pages;
	/* The peer may write: pin writable whatever the flags say. */
	ret = rds_pin_pages(args->vec.addr, npages, mr->r_pages, true);
	if (ret)
		goto uncharge;
	mr->r_npages = npages;
	rds_obj_inc(RDS_OBJ_MR);

	/* A minted key may be live in this socket already (an adapter's
	 * cannot: its keys are unique per device): register again.
	 */
	mr->r_trans = trans;
	tries = 0;
	do {
		ret = trans->mr_register(mr, rds_sock_net(rs),
					 &rs->rs_bound.addr,
					 &rs->rs_mr_keygen);
		if (ret)
			break;
		if (trans->mr_free && mr->r_tdata)
			__module_get(trans->owner);
		else
			mr->r_tdata = NULL;
		ret = mr->r_key ? xa_insert_bh(&rs->rs_mrs, mr->r_key, mr,
					       GFP_KERNEL_ACCOUNT) : -EBUSY;
		if (ret)
			rds_mr_unregister(mr);
	} while (ret == -EBUSY && ++tries < 16);
	if (ret) {
		rds_mr_put(mr);
		return ret;
	}
	*cookie = rds_rdma_make_cookie(mr->r_key, mr->r_offset);
	return 0;

uncharge:
	rds_mr_uncharge(mr->r_mm, npages);
free_pages:
	kvfree(mr->r_pages);
free_mr:
	kfree(mr);
	return ret;
}

/* Take the region named by @key out of @rs's table and kill it. */
static int rds_mr_remove(struct rds_sock *rs, u32 key)
{
	struct rds_mr *mr = key ? xa_erase_bh(&rs->rs_mrs, key) : NULL;

	if (!mr)
		return -EINVAL;
	rds_mr_kill(mr);
	return 0;
}

/* Register and store the cookie at @args->cookie_addr (if any). */
static int rds_mr_register(struct rds_sock *rs,
			   const struct rds_get_mr_args *args,
			   const struct in6_addr *peer, u64 *cookie_out)
{
	u64 cookie;
	int ret;

	ret = rds_mr_create(rs, args, peer, &cookie);
	if (ret)
		return ret;
	if (args->cookie_addr &&
	    put_user(cookie, (u64 __user *)u64_to_user_ptr(args->cookie_addr))) {
		rds_mr_remove(rs, rds_rdma_cookie_key(cookie));
		return -EFAULT;
	}
	if (cookie_out)
		*cookie_out = cookie;
	return 0;
}

/**
 * rds_get_mr - RDS_GET_MR: register user memory, return its cookie
 * @rs: the socket
 * @optval: struct rds_get_mr_args
 * @optlen: its length
 *
 * Return: 0 or -errno.
 */
int rds_get_mr(struct rds_sock *rs, sockptr_t optval, unsigned int optlen)
{
	struct rds_get_mr_args args;

	if (optlen != sizeof(args))
		return -EINVAL;
	if (copy_from_sockptr(&args, optval, sizeof(args)))
		return -EFAULT;
	return rds_mr_register(rs, &args, NULL, NULL);
}

/**
 * rds_get_mr_for_dest - RDS_GET_MR_FOR_DEST: RDS_GET_MR naming a peer
 * @rs: the socket
 * @optval: struct rds_get_mr_for_dest_args
 * @optlen: its length
 *
 * Over loopback the region then accepts RDMA from that peer address
 * only (an adapter cannot check the initiator: over IB any holder of the
 * cookie may use it, as in Linux).
 *
 * Return: 0 or -errno.
 */
int rds_get_mr_for_dest(struct rds_sock *rs, sockptr_t optval,
			unsigned int optlen)
{
	struct rds_get_mr_for_dest_args args;
	struct rds_get_mr_args mr_args;
	struct in6_addr peer;
	u32 scope_id;
	__be16 port;
	int ret;

	if (optlen != sizeof(args))
		return -EINVAL;
	if (copy_from_sockptr(&args, optval, sizeof(args)))
		return -EFAULT;
	ret = rds_parse_addr((struct sockaddr *)&args.dest_addr,
			     sizeof(args.dest_addr), &peer, &port, &scope_id);
	if (ret)
		return ret;
	mr_args.vec = args.vec;
	mr_args.cookie_addr = args.cookie_addr;
	mr_args.flags = args.flags;
	return rds_mr_register(rs, &mr_args, &peer, NULL);
}

/**
 * rds_free_mr - RDS_FREE_MR
 * @rs: the socket
 * @optval: struct rds_free_mr_args
 * @optlen: its length
 *
 * A zero cookie with RDS_RDMA_INVALIDATE frees every region of the socket;
 * without it, a zero cookie is a no-op (Linux flushes its transport's pool
 * of already freed regions, which we do not have).
 *
 * Return: 0, or -EINVAL for an unknown cookie.
 */
int rds_free_mr(struct rds_sock *rs, sockptr_t optval, unsigned int optlen)
{
	struct rds_free_mr_args args;

	if (optlen != sizeof(args))
		return -EINVAL;
	if (copy_from_sockptr(&args, optval, sizeof(args)))
		return -EFAULT;
	if (!args.cookie) {
		if (!READ_ONCE(rs->rs_transport))
			return -EINVAL;
		if (args.flags & RDS_RDMA_INVALIDATE)
			rds_rdma_drop_mrs(rs);
		return 0;
	}
	return rds_mr_remove(rs, rds_rdma_cookie_key(args.cookie));
}

/**
 * rds_rdma_drop_mrs - free every region of a socket (close, flush)
 * @rs: the socket
 *
 * Context: process context, may sleep.
 */
void rds_rdma_drop_mrs(struct rds_sock *rs)
{
	struct rds_mr *mr;
	unsigned long key;

	xa_for_each(&rs->rs_mrs, key, mr) {
		if (xa_cmpxchg_bh(&rs->rs_mrs, key, mr, NULL, 0) == mr)
			rds_mr_kill(mr);
	}
}

/* Failed key lookups a socket's operations may make per window before
 * its RDMA is refused at sendmsg() until the window ends: a peer that
 * guesses keys over loopback cannot guess fast (rdma.rst).
 */
#define RDS_KEY_FAILS_MAX	64
#define RDS_KEY_WINDOW		HZ

/* Is @rs refused RDMA for guessing? Counted when it is. */
static bool rds_rdma_key_throttled(struct rds_sock *rs)
{
	if (atomic_read(&rs->rs_key_fails) < RDS_KEY_FAILS_MAX ||
	    time_after(jiffies, READ_ONCE(rs->rs_key_window) + RDS_KEY_WINDOW))
		return false;
	rds_stats_inc(rds_sock_rn(rs), RDS_STAT_RDMA_KEY_THROTTLED);
	return true;
}

/* An operation of @rm named a key that is not there: count it against
 * its socket. Racing updates may lose a count or restart a window
 * twice: the bound is approximate, never unbounded.
 */
static void rds_rdma_key_failed(struct rds_connection *conn,
				struct rds_message *rm)
{
	struct rds_sock *rs;

	rds_stats_inc(rds_conn_rn(conn), RDS_STAT_RDMA_KEY_REFUSED);
	spin_lock_bh(&rm->m_rs_lock);
	rs = rm->m_rs;
	if (rs) {
		if (time_after(jiffies, READ_ONCE(rs->rs_key_window) +
					RDS_KEY_WINDOW)) {
			WRITE_ONCE(rs->rs_key_window, jiffies);
			atomic_set(&rs->rs_key_fails, 0);
		}
		atomic_inc(&rs->rs_key_fails);
	}
	spin_unlock_bh(&rm->m_rs_lock);
}

/**
 * rds_mr_access_begin - find and lock the region an operation targets
 * @conn: a connection whose peer address is local (loopback)
 * @rm: the message carrying the operation
 * @acc: filled for rds_mr_access_end(), which must follow in any case
 *
 * Looks the key up in the table of the socket bound to the message's
 * destination in @conn's namespace and takes the region's access lock.
 * A use-once region is claimed by the first operation that finds it.
 *
 * Context: process context, may sleep.
 * Return: true if @acc->mr is alive: its pages may be accessed until
 * rds_mr_access_end(). False for a stale, freed, used or foreign key, or
 * no socket at the destination: touch nothing. Such a failure counts
 * against the sending socket (rds_rdma_key_failed()).
 */
bool rds_mr_access_begin(struct rds_connection *conn, struct rds_message *rm,
			 struct rds_mr_access *acc)
{
	struct rds_net *rn = rds_conn_rn(conn);
	u32 key = rm->m_rdma->op_rkey;
	struct rds_mr *mr;

	acc->mr = NULL;
	acc->rs = rds_find_bound(rn, &conn->c_faddr, rm->m_hdr.h_dport,
				 conn->c_dev_if);
	if (!acc->rs || !key) {
		rds_rdma_key_failed(conn, rm);
		return false;
	}
	xa_lock_bh(&acc->rs->rs_mrs);
	mr = xa_load(&acc->rs->rs_mrs, key);
	if (mr && mr->r_use_once && mr->r_claimed)
		mr = NULL;
	/* Registered for one peer: the initiator must be that peer. */
	if (mr && mr->r_for_peer &&
	    !ipv6_addr_equal(&mr->r_peer, &conn->c_laddr))
		mr = NULL;
	if (mr) {
		mr->r_claimed = true;
		refcount_inc(&mr->r_refcount);
	}
	xa_unlock_bh(&acc->rs->rs_mrs);
	if (!mr) {
		rds_rdma_key_failed(conn, rm);
		return false;
	}
	acc->mr = mr;
	mutex_lock(&mr->r_lock);
	return !mr->r_dead;
}
EXPORT_SYMBOL_GPL(rds_mr_access_begin);

/**
 * rds_mr_access_end - finish an access started by rds_mr_access_begin()
 * @acc: what rds_mr_access_begin() filled
 *
 * A use-once region dies here and leaves its table.
 *
 * Context: process context, may sleep.
 */
void rds_mr_access_end(struct rds_mr_access *acc)
{
	struct rds_mr *mr = acc->mr;

	if (mr) {
		if (mr->r_use_once)
			mr->r_dead = true;
		mutex_unlock(&mr->r_lock);
		if (mr->r_use_once &&
		    xa_cmpxchg_bh(&acc->rs->rs_mrs, mr->r_key, mr, NULL, 0) == mr)
			rds_mr_put(mr);		/* the table's */
		rds_mr_put(mr);
	}
	if (acc->rs)
		sock_put(rds_rs_to_sk(acc->rs));
	acc->mr = NULL;
	acc->rs = NULL;
}
EXPORT_SYMBOL_GPL(rds_mr_access_end);

/**
 * rds_rdma_op_complete - a transport finished (or failed) an operation
 * @op: the operation
 * @status: RDS_RDMA_SUCCESS or an RDS_RDMA_* error
 *
 * Releases the local pages (dirtying them after a successful read).
 *
 * Context: process context, may sleep.
 */
void rds_rdma_op_complete(struct rds_rdma_op *op, int status)
{
	bool dirty = !op->op_write && status == RDS_RDMA_SUCCESS;
	unsigned int i;

	for (i = 0; i < op->op_nents; i++) {
		struct page *page = sg_page(&op->op_sg[i]);

		unpin_user_pages_dirty_lock(&page, 1, dirty);
	}
	op->op_nents = 0;
	rds_mr_uncharge(op->op_mm, op->op_charged);
	op->op_mm = NULL;
	op->op_status = status;
	/* Read locklessly by transports waiting for it (rds_rdma_send.c),
	 * and with the status by the requeue after a reconnect (send.c).
	 */
	smp_store_release(&op->op_done, true);
}
EXPORT_SYMBOL_GPL(rds_rdma_op_complete);

/**
 * rds_rdma_op_notify - an adapter finished a message's operation
 * @rm: the message whose operation (@rm->m_rdma) completed
 * @status: RDS_RDMA_SUCCESS or an RDS_RDMA_* error
 *
 * As rds_rdma_op_complete(), and the sender's notification goes out now,
 * when the operation is done, as Linux reports it, rather than when the
 * peer acknowledges the message. rds_rdma_send_complete() (send.c) is
 * what transports call.
 *
 * Context: process context, may sleep.
 */
void rds_rdma_op_notify(struct rds_message *rm, int status)
{
	struct rds_sock *rs;
	bool notified = false;

	rds_rdma_op_complete(rm->m_rdma, status);
	if (status == RDS_RDMA_SUCCESS)
		rds_stats_add(rds_conn_rn(rm->m_conn),
			      RDS_STAT_SEND_RDMA_BYTES, rm->m_rdma->op_bytes);
	spin_lock_bh(&rm->m_rs_lock);
	rs = rm->m_rs;
	/* UEK's RDS_RDMA_REMOTE_COMPLETE: success is told at the ack. */
	if (rs && rm->m_rdma->op_notifier &&
	    !(rm->m_rdma->op_remote_complete && status == RDS_RDMA_SUCCESS)) {
		spin_lock(&rs->rs_lock);
		rds_rdma_notify_locked(rs, rm, status);
		notified = !rm->m_rdma->op_notifier;
		spin_unlock(&rs->rs_lock);
		if (notified)
			sock_hold(rds_rs_to_sk(rs));
	}
	spin_unlock_bh(&rm->m_rs_lock);
	if (notified) {
		rds_wake_sk(rs);
		sock_put(rds_rs_to_sk(rs));
	}
}

/**
 * rds_rdma_op_free - release an operation with its message
 * @op: the operation, or NULL
 *
 * Context: any (pages are unpinned without taking page locks).
 */
void rds_rdma_op_free(struct rds_rdma_op *op)
{
	unsigned int i;

	if (!op)
		return;
	for (i = 0; i < op->op_nents; i++)
		unpin_user_page(sg_page(&op->op_sg[i]));
	rds_mr_uncharge(op->op_mm, op->op_charged);
	kfree(op->op_notifier);
	kfree(op);
}

/* RDS_CMSG_RDMA_ARGS: check the arguments and pin the local vector. */
static int rds_rdma_parse_args(struct rds_sock *rs, struct rds_message *rm,
			       struct cmsghdr *cmsg)
{
	struct rds_iovec *iov = NULL;
	struct rds_rdma_args args;
	unsigned int i, j, npages = 0;
	struct rds_rdma_op *op;
	struct page **pages;
	u64 bytes = 0;
	int ret;

	if (cmsg->cmsg_len < CMSG_LEN(sizeof(args)) || rm->m_rdma)
		return -EINVAL;
	memcpy(&args, CMSG_DATA(cmsg), sizeof(args));
	if (!rds_sock_bound(rs))
		return -ENOTCONN;
	if (rds_rdma_key_throttled(rs))
		return -EKEYREJECTED;
	if (!args.nr_local)
		return -EINVAL;
	if (args.nr_local > UIO_MAXIOV)
		return -EMSGSIZE;

	iov = kvmalloc_array(args.nr_local, sizeof(*iov), GFP_KERNEL);
	if (!iov)
		return -ENOMEM;
	if (copy_from_user(iov, u64_to_user_ptr(args.local_vec_addr),
			   args.nr_local * sizeof(*iov))) {
		ret = -EFAULT;
		goto out;
	}
	for (i = 0; i < args.nr_local; i++) {
		unsigned int n = rds_vec_pages(&iov[i]);

		if (!n) {
			ret = -EINVAL;
			goto out;
		}
		/* bytes stays below 2^32 * UIO_MAXIOV: no overflow. */
		bytes += iov[i].bytes;
		if (bytes > RDS_MAX_MSG_SIZE) {
			ret = -EMSGSIZE;
			goto out;
		}
		npages += n;	/* at most 2 pages a byte: bounded above */
	}
	if (bytes > args.remote_vec.bytes) {
		ret = -EINVAL;
		goto out;
	}

	op = kzalloc(struct_size(op, op_sg, npages), GFP_KERNEL_ACCOUNT);
	if (!op) {
		ret = -ENOMEM;
		goto out;
	}
	rm->m_rdma = op;	/* freed with the message from here on */
	sg_init_table(op->op_sg, npages);
	op->op_rkey = rds_rdma_cookie_key(args.cookie);
	op->op_write = args.flags & RDS_RDMA_READWRITE;
	op->op_fence = args.flags & RDS_RDMA_FENCE;
	op->op_notify = args.flags & RDS_RDMA_NOTIFY_ME;
	op->op_silent = args.flags & RDS_RDMA_SILENT;
	op->op_remote_complete = args.flags & RDS_RDMA_REMOTE_COMPLETE;
	op->op_status = RDS_RDMA_DROPPED;
	op->op_bytes = bytes;
	if (check_add_overflow(args.remote_vec.addr,
			       (u64)rds_rdma_cookie_offset(args.cookie),
			       &op->op_remote_addr)) {
		ret = -EINVAL;
		goto out;
	}
	if (op->op_notify || READ_ONCE(rs->rs_recverr)) {
		op->op_notifier = kmalloc(sizeof(*op->op_notifier),
					  GFP_KERNEL_ACCOUNT);
		if (!op->op_notifier) {
			ret = -ENOMEM;
			goto out;
		}
		INIT_LIST_HEAD(&op->op_notifier->n_list);
		op->op_notifier->n_user_token = args.user_token;
		op->op_notifier->n_status = RDS_RDMA_SUCCESS;
	}

	/* The local pages stay pinned until the operation is done. */
	ret = rds_mr_charge(npages, &op->op_mm);
	if (ret)
		goto out;
	op->op_charged = npages;
	pages = kvmalloc_array(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < args.nr_local; i++) {
		unsigned int n = rds_vec_pages(&iov[i]);
		u64 addr = iov[i].addr, left = iov[i].bytes;

		/* A read writes into our pages. */
		ret = rds_pin_pages(addr, n, pages, !op->op_write);
		if (ret)
			break;
		for (j = 0; j < n; j++) {
			unsigned int off = addr & ~PAGE_MASK;
			unsigned int len = min_t(u64, left, PAGE_SIZE - off);

			sg_set_page(&op->op_sg[op->op_nents++], pages[j], len,
				    off);
			addr += len;
			left -= len;
		}
	}
	kvfree(pages);
	if (!ret)
		rds_stats_inc(rds_sock_rn(rs), RDS_STAT_SEND_RDMA);
out:
	kvfree(iov);
	return ret;
}

/* RDS_CMSG_*ATOMIC_*: one 8-byte word, its old value comes back. */
static int rds_rdma_parse_atomic(struct rds_sock *rs, struct rds_message *rm,
				 struct cmsghdr *cmsg)
{
	struct rds_atomic_args args;
	struct rds_rdma_op *op;
	struct page *page;
	int ret;

	if (cmsg->cmsg_len < CMSG_LEN(sizeof(args)) || rm->m_rdma)
		return -EINVAL;
	memcpy(&args, CMSG_DATA(cmsg), sizeof(args));
	if (!rds_sock_bound(rs))
		return -ENOTCONN;
	if (rds_rdma_key_throttled(rs))
		return -EKEYREJECTED;
	/* Linux's errno for an unaligned local word. */
	if (args.local_addr & 7)
		return -EFAULT;

	op = kzalloc(struct_size(op, op_sg, 1), GFP_KERNEL_ACCOUNT);
	if (!op)
		return -ENOMEM;
	rm->m_rdma = op;	/* freed with the message from here on */
	sg_init_table(op->op_sg, 1);
	switch (cmsg->cmsg_type) {
	case RDS_CMSG_ATOMIC_FADD:
		op->op_type = RDS_OP_ATOMIC_FADD;
		op->op_add = args.fadd.add;
		break;
	case RDS_CMSG_MASKED_ATOMIC_FADD:
		op->op_type = RDS_OP_ATOMIC_FADD;
		op->op_add = args.m_fadd.add;
		op->op_nocarry = args.m_fadd.nocarry_mask;
		break;
	case RDS_CMSG_ATOMIC_CSWP:
		op->op_type = RDS_OP_ATOMIC_CSWP;
		op->op_compare = args.cswp.compare;
		op->op_swap = args.cswp.swap;
		op->op_compare_mask = ~0ULL;
		op->op_swap_mask = ~0ULL;
		break;
	default:	/* RDS_CMSG_MASKED_ATOMIC_CSWP */
		op->op_type = RDS_OP_ATOMIC_CSWP;
		op->op_compare = args.m_cswp.compare;
		op->op_swap = args.m_cswp.swap;
		op->op_compare_mask = args.m_cswp.compare_mask;
		op->op_swap_mask = args.m_cswp.swap_mask;
		break;
	}
	op->op_rkey = rds_rdma_cookie_key(args.cookie);
	op->op_notify = args.flags & RDS_RDMA_NOTIFY_ME;
	op->op_silent = args.flags & RDS_RDMA_SILENT;
	op->op_status = RDS_RDMA_DROPPED;
	op->op_bytes = sizeof(u64);
	if (check_add_overflow(args.remote_addr,
			       (u64)rds_rdma_cookie_offset(args.cookie),
			       &op->op_remote_addr))
		return -EINVAL;
	if (op->op_notify || READ_ONCE(rs->rs_recverr)) {
		op->op_notifier = kmalloc(sizeof(*op->op_notifier),
					  GFP_KERNEL_ACCOUNT);
		if (!op->op_notifier)
			return -ENOMEM;
		INIT_LIST_HEAD(&op->op_notifier->n_list);
		op->op_notifier->n_user_token = args.user_token;
		op->op_notifier->n_status = RDS_RDMA_SUCCESS;
	}
	ret = rds_mr_charge(1, &op->op_mm);
	if (ret)
		return ret;
	op->op_charged = 1;
	ret = rds_pin_pages(args.local_addr, 1, &page, true);
	if (ret)
		return ret;
	sg_set_page(&op->op_sg[0], page, sizeof(u64),
		    args.local_addr & ~PAGE_MASK);
	op->op_nents = 1;
	return 0;
}

/* RDS_CMSG_RDMA_DEST: name one of our regions to the peer. */
static int rds_rdma_parse_dest(struct rds_sock *rs, struct rds_message *rm,
			       struct cmsghdr *cmsg)
{
	u64 cookie;

	if (cmsg->cmsg_len < CMSG_LEN(sizeof(cookie)) || rm->m_rdma_cookie)
		return -EINVAL;
	memcpy(&cookie, CMSG_DATA(cmsg), sizeof(cookie));
	if (!rds_rdma_cookie_key(cookie) ||
	    !xa_load(&rs->rs_mrs, rds_rdma_cookie_key(cookie)))
		return -EINVAL;
	rm->m_rdma_cookie = cookie;
	return 0;
}

/* RDS_CMSG_RDMA_MAP: register a region and name it to the peer. */
static int rds_rdma_parse_map(struct rds_sock *rs, struct rds_message *rm,
			      struct cmsghdr *cmsg)
{
	struct rds_get_mr_args args;
	int ret;

	if (cmsg->cmsg_len < CMSG_LEN(sizeof(args)) || rm->m_rdma_cookie)
		return -EINVAL;
	memcpy(&args, CMSG_DATA(cmsg), sizeof(args));
	/* Only the message's destination may use it. */
	ret = rds_mr_register(rs, &args, &rm->m_daddr, &rm->m_rdma_cookie);
	if (!ret)
		rm->m_rdma_mapped = true;
	return ret;
}

/**
 * rds_rdma_parse_cmsgs - act on the RDMA control messages of a sendmsg()
 * @rs: the sending socket
 * @rm: the message being built
 * @msg: the user's message (already checked by the send path)
 *
 * Context: process context, may sleep.
 * Return: 0 or -errno; on error rds_rdma_unmap() undoes a RDS_CMSG_RDMA_MAP.
 */
int rds_rdma_parse_cmsgs(struct rds_sock *rs, struct rds_message *rm,
			 struct msghdr *msg)
{
	struct cmsghdr *cmsg;
	int ret = 0;

	for_each_cmsghdr(cmsg, msg) {
		if (cmsg->cmsg_level != SOL_RDS)
			continue;
		switch (cmsg->cmsg_type) {
		case RDS_CMSG_RDMA_ARGS:
			ret = rds_rdma_parse_args(rs, rm, cmsg);
			break;
		case RDS_CMSG_RDMA_DEST:
			ret = rds_rdma_parse_dest(rs, rm, cmsg);
			break;
		case RDS_CMSG_RDMA_MAP:
			ret = rds_rdma_parse_map(rs, rm, cmsg);
			break;
		case RDS_CMSG_ATOMIC_CSWP:
		case RDS_CMSG_ATOMIC_FADD:
		case RDS_CMSG_MASKED_ATOMIC_CSWP:
		case RDS_CMSG_MASKED_ATOMIC_FADD:
			ret = rds_rdma_parse_atomic(rs, rm, cmsg);
			break;
		default:
			break;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * rds_rdma_unmap - undo the RDS_CMSG_RDMA_MAP of a message that failed
 * @rs: the sending socket
 * @rm: the message
 */
void rds_rdma_unmap(struct rds_sock *rs, struct rds_message *rm)
{
	if (rm->m_rdma_mapped) {
		rds_mr_remove(rs, rds_rdma_cookie_key(rm->m_rdma_cookie));
		rm->m_rdma_mapped = false;
	}
}

/**
 * rds_rdma_set_exthdrs - describe a message's RDMA in its wire header
 * @rm: the message
 *
 * RDS_EXTHDR_RDMA carries the key an operation used, RDS_EXTHDR_RDMA_DEST
 * the cookie a RDS_CMSG_RDMA_MAP or RDS_CMSG_RDMA_DEST names.
 */
void rds_rdma_set_exthdrs(struct rds_message *rm)
{
	if (rm->m_rdma && rm->m_rdma->op_type == RDS_OP_RDMA) {
		struct rds_ext_header_rdma ext = {
			.h_rdma_rkey = cpu_to_be32(rm->m_rdma->op_rkey),
		};

		rds_hdr_add_ext(&rm->m_hdr, RDS_EXTHDR_RDMA, &ext, sizeof(ext));
	}
	if (rm->m_rdma_cookie) {
		struct rds_ext_header_rdma_dest ext = {
			.h_rdma_rkey = cpu_to_be32(rds_rdma_cookie_key(rm->m_rdma_cookie)),
			.h_rdma_offset = cpu_to_be32(rds_rdma_cookie_offset(rm->m_rdma_cookie)),
		};

		rds_hdr_add_ext(&rm->m_hdr, RDS_EXTHDR_RDMA_DEST, &ext,
				sizeof(ext));
	}
}

static void rds_mr_kill_worker(struct work_struct *work)
{
	rds_mr_kill(container_of(work, struct rds_mr, r_kill_w));
}

/* The use-once region of @rs that @hdr says a peer used, claimed and out
 * of the table (the caller has the table's reference), or NULL.
 */
static struct rds_mr *rds_rdma_used_claim(struct rds_sock *rs,
					  const struct rds_header *hdr)
{
	struct rds_ext_header_rdma ext;
	struct rds_mr *mr;
	u32 key;

	if (!rds_hdr_find_ext(hdr, RDS_EXTHDR_RDMA, &ext))
		return NULL;
	key = be32_to_cpu(ext.h_rdma_rkey);
	if (!key)
		return NULL;
	xa_lock_bh(&rs->rs_mrs);
	mr = xa_load(&rs->rs_mrs, key);
	if (mr && mr->r_use_once && !mr->r_claimed) {
		mr->r_claimed = true;
		__xa_erase(&rs->rs_mrs, key);
	} else {
		mr = NULL;
	}
	xa_unlock_bh(&rs->rs_mrs);
	return mr;
}

/**
 * rds_rdma_recv_used - a message says the peer used one of our regions
 * @rs: the socket the message is for
 * @hdr: its header; RDS_EXTHDR_RDMA names the region's key
 *
 * A use-once region dies: out of the table now, invalidated (which may
 * sleep) from process context soon after. A transport that can be
 * RDMA'd into claims the region before delivery instead
 * (rds_rdma_recv_claim()), so this finds nothing to do there.
 *
 * Context: the transport's receive path (softirq).
 */
void rds_rdma_recv_used(struct rds_sock *rs, const struct rds_header *hdr)
{
	struct rds_mr *mr = rds_rdma_used_claim(rs, hdr);

	if (mr) {
		INIT_WORK(&mr->r_kill_w, rds_mr_kill_worker);
		queue_work(rds_wq, &mr->r_kill_w);	/* the table's ref */
	}
}

/**
 * rds_rdma_recv_claim - a received message used a use-once region of ours
 * @conn: the connection it came on
 * @hdr: its header (RDS_EXTHDR_RDMA names the key the peer used)
 * @daddr: its destination address
 *
 * The region leaves its socket's table now; the caller must kill it with
 * rds_rdma_recv_kill() before the message is delivered, so that no peer
 * reaches it once the receiver can see the message (rdma.rst).
 *
 * Context: any (the receive path: softirq).
 * Return: the claimed region, or NULL if the message names none (the
 * cheap case: a header without the extension is not looked up).
 */
struct rds_mr *rds_rdma_recv_claim(struct rds_connection *conn,
				   const struct rds_header *hdr,
				   const struct in6_addr *daddr)
{
	struct rds_ext_header_rdma ext;
	struct rds_sock *rs;
	struct rds_mr *mr;

	if (!hdr->h_dport || !rds_hdr_find_ext(hdr, RDS_EXTHDR_RDMA, &ext))
		return NULL;
	rs = rds_find_bound(rds_conn_rn(conn), daddr, hdr->h_dport,
			    conn->c_dev_if);
	if (!rs)
		return NULL;
	mr = rds_rdma_used_claim(rs, hdr);
	sock_put(rds_rs_to_sk(rs));
	return mr;
}
EXPORT_SYMBOL_GPL(rds_rdma_recv_claim);

/**
 * rds_rdma_recv_kill - kill a region rds_rdma_recv_claim() returned
 * @mr: the region
 *
 * Returns once the transport invalidated it (a bounded wait: the
 * transport destroys a region it cannot invalidate in time).
 *
 * Context: process context, may sleep.
 */
void rds_rdma_recv_kill(struct rds_mr *mr)
{
	rds_mr_kill(mr);
}
EXPORT_SYMBOL_GPL(rds_rdma_recv_kill);

/**
 * rds_rdma_hdr_cookie - the RDS_EXTHDR_RDMA_DEST cookie of a header
 * @hdr: a received header
 *
 * Return: the cookie, or 0 if the header names none.
 */
u64 rds_rdma_hdr_cookie(const struct rds_header *hdr)
{
	struct rds_ext_header_rdma_dest ext;

	if (!rds_hdr_find_ext(hdr, RDS_EXTHDR_RDMA_DEST, &ext))
		return 0;
	return rds_rdma_make_cookie(be32_to_cpu(ext.h_rdma_rkey),
				    be32_to_cpu(ext.h_rdma_offset));
}
EXPORT_SYMBOL_GPL(rds_rdma_hdr_cookie);

/**
 * rds_rdma_cookie_is_at - is the region a message names registered there?
 * @rm: a message naming one of its sender's regions (@rm->m_rdma_cookie)
 * @where: a transport's id of a place (struct rds_mr, @r_where)
 *
 * A transport whose keys are valid in one place only (an adapter's, on
 * its device) asks before it sends the cookie over another.
 *
 * Context: process or softirq context (the transmit path).
 * Return: false also when the region or its socket is gone: the cookie
 * names nothing a peer can reach.
 */
bool rds_rdma_cookie_is_at(struct rds_message *rm, u32 where)
{
	u32 key = rds_rdma_cookie_key(rm->m_rdma_cookie);
	struct rds_sock *rs;
	struct rds_mr *mr;
	bool at = false;

	spin_lock_bh(&rm->m_rs_lock);
	rs = rm->m_rs;
	if (rs)
		sock_hold(rds_rs_to_sk(rs));
	spin_unlock_bh(&rm->m_rs_lock);
	if (!rs)
		return false;
	xa_lock_bh(&rs->rs_mrs);
	mr = key ? xa_load(&rs->rs_mrs, key) : NULL;
	at = mr && !(mr->r_use_once && mr->r_claimed) && mr->r_where == where;
	xa_unlock_bh(&rs->rs_mrs);
	sock_put(rds_rs_to_sk(rs));
	return at;
}
EXPORT_SYMBOL_GPL(rds_rdma_cookie_is_at);

/**
 * rds_rdma_notify_locked - queue an operation's status for its sender
 * @rs: the sending socket
 * @rm: the message leaving the socket
 * @status: the status if the operation never ran (dropped, canceled)
 *
 * Notifies when the sender asked (RDS_RDMA_NOTIFY_ME) or on error when
 * RDS_RECVERR was set at send time, as Linux does.
 *
 * Context: @rs->rs_lock held.
 */
void rds_rdma_notify_locked(struct rds_sock *rs, struct rds_message *rm,
			    int status)
{
	struct rds_rdma_op *op = rm->m_rdma;
	struct rds_notifier *n;

	lockdep_assert_held(&rs->rs_lock);
	if (!op || !op->op_notifier)
		return;
	if (op->op_done)
		status = op->op_status;
	if (!op->op_notify && status == RDS_RDMA_SUCCESS)
		return;
	n = op->op_notifier;
	op->op_notifier = NULL;
	n->n_status = status;
	rds_notify_queue_locked(rs, n);
}

/**
 * rds_notify_queue_locked - queue a notification for recvmsg()
 * @rs: the socket
 * @n: the notification (RDMA's or an asynchronous send's), now the
 *	queue's
 *
 * Context: @rs->rs_lock held.
 */
void rds_notify_queue_locked(struct rds_sock *rs, struct rds_notifier *n)
{
	lockdep_assert_held(&rs->rs_lock);
	list_add_tail(&n->n_list, &rs->rs_notify_queue);
	/* Unread notifications count against the sender's send total, so
	 * a sender that never reads them stops instead of piling them up.
	 */
	rs->rs_snd_bytes += RDS_NOTIFY_CHARGE;
}

/* Give back the budget of @count notifications leaving the queue. */
static void rds_rdma_notify_uncharge_locked(struct rds_sock *rs,
					    unsigned int count, bool *wake)
{
	*wake = rds_snd_total_sub_locked(rs, (size_t)count * RDS_NOTIFY_CHARGE);
}

/**
 * rds_rdma_notify_recv - hand queued RDS_CMSG_RDMA_STATUS to recvmsg()
 * @rs: the socket
 * @msg: the user's message
 *
 * As many notifications as msg_control holds (at least one, which is
 * lost with MSG_CTRUNC if it does not fit).
 *
 * Return: 0 or -EFAULT.
 */
int rds_rdma_notify_recv(struct rds_sock *rs, struct msghdr *msg)
{
	size_t max = msg->msg_controllen /
		     CMSG_SPACE(sizeof(struct rds_rdma_notify));
	struct rds_notifier *n, *tmp;
	unsigned int count = 0;
	LIST_HEAD(list);
	bool wake;
	int ret = 0;

	if (!max)
		max = 1;
	spin_lock_bh(&rs->rs_lock);
	list_for_each_entry_safe(n, tmp, &rs->rs_notify_queue, n_list) {
		if (!max--)
			break;
		list_move_tail(&n->n_list, &list);
		count++;
	}
	rds_rdma_notify_uncharge_locked(rs, count, &wake);
	spin_unlock_bh(&rs->rs_lock);
	if (wake)
		rds_wake_sk(rs);

	list_for_each_entry_safe(n, tmp, &list, n_list) {
		struct rds_rdma_notify cmsg;

		/* The struct has padding: nothing uninitialised goes out. */
		memset(&cmsg, 0, sizeof(cmsg));
		cmsg.user_token = n->n_user_token;
		cmsg.status = n->n_status;
		if (!ret)
			ret = put_cmsg(msg, SOL_RDS, RDS_CMSG_RDMA_STATUS,
				       sizeof(cmsg), &cmsg);
		list_del(&n->n_list);
		kfree(n);
	}
	return ret;
}

/**
 * rds_rdma_drop_notifications - free undelivered notifications (close)
 * @rs: the socket
 */
void rds_rdma_drop_notifications(struct rds_sock *rs)
{
	struct rds_notifier *n, *tmp;
	unsigned int count = 0;
	LIST_HEAD(list);
	bool wake;

	spin_lock_bh(&rs->rs_lock);
	list_splice_init(&rs->rs_notify_queue, &list);
	list_for_each_entry(n, &list, n_list)
		count++;
	rds_rdma_notify_uncharge_locked(rs, count, &wake);
	spin_unlock_bh(&rs->rs_lock);
	list_for_each_entry_safe(n, tmp, &list, n_list)
		kfree(n);
}
