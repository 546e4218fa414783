// SPDX-License-Identifier: GPL-2.0
/*
 * The send path: sendmsg(), the per-socket send budget, the per-connection
 * send and retransmit queues, the transmit loop, acks, cancellation and
 * pongs.
 *
 * A message is on its socket's send list (counted against SO_SNDBUF) and
 * on its connection's send queue, then retransmit list, until the peer
 * acks it; RDS_CANCEL_SENT_TO drops it from both. Closing the socket
 * takes it off the socket only: sendmsg() succeeded, so it stays queued
 * as an orphan, within the namespace's orphan budget (net.rds.orphan_*),
 * until the peer acks it. RDS_MSG_ON_SOCK and RDS_MSG_ON_CONN, changed
 * under the owning list's lock, decide who unlinks a message when paths
 * race.
 *
 * Send budgets: each destination of a socket (peer address and link) has
 * its own budget of half SO_SNDBUF, so that a dead or slow peer filling
 * its budget does not stop the socket's sends to other peers. Bounding
 * the socket as a whole: its total (messages and unread notifications)
 * is capped at net.rds.sock_sndbuf_factor budgets, and at most
 * net.rds.sock_max_peers destinations have bytes queued at once. A
 * destination's state (struct rds_dest, in the namespace's dest_table)
 * lives while it has bytes queued, the last one sent to also while
 * empty, so a socket that talks to one peer finds it without a lookup,
 * and the RDS_DEST_IDLE_MAX most recently idle ones, so a socket that
 * sends to a few peers in turn makes no allocation per message and
 * decides no peer's transport twice. Locks: rds_core.h's order; the
 * table's bucket locks nest inside rs_lock, and every change to a
 * socket's destinations is made under its rs_lock.
 *
 * Delivered means acked by the peer's RDS (or, where the transport has
 * no RDS-level acks, by the peer's TCP). Every other way a message leaves
 * its connection is counted by reason (send_drop_orphan,
 * send_drop_conn_killed, send_drop_rdma) or was asked for
 * (RDS_CANCEL_SENT_TO), and a socket that can hear of it gets its RDMA
 * notification.
 */
#include <linux/errqueue.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "rds_core.h"
#include "rds_trace.h"

static const struct rhashtable_params rds_dest_params = {
	.key_len		= sizeof(struct rds_dest_key),
	.key_offset		= offsetof(struct rds_dest, d_key),
	.head_offset		= offsetof(struct rds_dest, d_node),
	.automatic_shrinking	= true,
};

int rds_send_net_init(struct rds_net *rn)
{
	return rhashtable_init(&rn->dest_table, &rds_dest_params);
}

/* Every socket of the namespace is gone, and took its destinations. */
void rds_send_net_exit(struct rds_net *rn)
{
	WARN_ON_ONCE(atomic_read(&rn->dest_table.nelems));
	rhashtable_destroy(&rn->dest_table);
}

/* Forget @d: nothing is queued to it and it is not the last one. */
static void rds_dest_free_locked(struct rds_sock *rs, struct rds_dest *d)
{
	lockdep_assert_held(&rs->rs_lock);
	rhashtable_remove_fast(&rds_sock_rn(rs)->dest_table,
			       &d->d_node, rds_dest_params);
	kfree_rcu(d, d_rcu);
	rds_obj_dec(RDS_OBJ_DEST);
}

/* @d went empty and is not the last destination: keep it among the
 * most recently idle, forgetting the oldest beyond RDS_DEST_IDLE_MAX.
 */
static void rds_dest_idle_locked(struct rds_sock *rs, struct rds_dest *d)
{
	struct rds_dest *oldest;

	lockdep_assert_held(&rs->rs_lock);
	list_add_tail(&d->d_idle_item, &rs->rs_dests_idle);
	if (++rs->rs_dests_idle_n <= RDS_DEST_IDLE_MAX)
		return;
	oldest = list_first_entry(&rs->rs_dests_idle, struct rds_dest,
				  d_idle_item);
	list_del(&oldest->d_idle_item);
	rs->rs_dests_idle_n--;
	rds_dest_free_locked(rs, oldest);
}

/* @rs's state for the peer (@addr, @scope_id), which becomes its last
 * destination. With @err NULL only one that exists is found. Else a new
 * one is made from the socket's spare: NULL when there is none (the
 * caller allocates one, rds_dest_prealloc(), and tries again) or, with
 * *@err set, when the table refused it.
 */
static struct rds_dest *rds_dest_get_locked(struct rds_sock *rs,
					    const struct in6_addr *addr,
					    u32 scope_id, int *err)
{
	struct rds_net *rn = rds_sock_rn(rs);
	struct rds_dest *d = rs->rs_dest_last;
	struct rds_dest_key key;

	lockdep_assert_held(&rs->rs_lock);
	/* The hot path: the same peer as last time. */
	if (d && d->d_key.scope_id == scope_id &&
	    ipv6_addr_equal(&d->d_key.addr, addr))
		return d;

	memset(&key, 0, sizeof(key));
	key.addr = *addr;
	key.rs = rs;
	key.scope_id = scope_id;
	d = rhashtable_lookup_fast(&rn->dest_table, &key, rds_dest_params);
	if (d && !d->d_bytes) {
		/* Idle and not the last: it was kept on the idle list. */
		list_del(&d->d_idle_item);
		rs->rs_dests_idle_n--;
	} else if (!d) {
		if (!err)
			return NULL;
		d = rs->rs_dest_spare;
		if (!d)
			return NULL;
		d->d_key = key;
		d->d_bytes = 0;
		d->d_trans = NULL;
		*err = rhashtable_insert_fast(&rn->dest_table, &d->d_node,
					      rds_dest_params);
		if (*err)
			return NULL;
		rs->rs_dest_spare = NULL;
	}
	if (rs->rs_dest_last && !rs->rs_dest_last->d_bytes)
		rds_dest_idle_locked(rs, rs->rs_dest_last);
	rs->rs_dest_last = d;
	return d;
}

/* Free a spare that was never in the table (NULL: nothing). */
static void rds_dest_free_spare(struct rds_dest *d)
{
	if (!d)
		return;
	kfree(d);
	rds_obj_dec(RDS_OBJ_DEST);
}

/* Give @rs a spare destination state, charged to the sender's memory
 * cgroup, for rds_dest_get_locked() to use.
 */
static int rds_dest_prealloc(struct rds_sock *rs)
{
	struct rds_dest *d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);

	if (!d)
		return -ENOMEM;
	rds_obj_inc(RDS_OBJ_DEST);
	spin_lock_bh(&rs->rs_lock);
	if (!rs->rs_dest_spare) {
		rs->rs_dest_spare = d;
		d = NULL;
	}
	spin_unlock_bh(&rs->rs_lock);
	rds_dest_free_spare(d);
	return 0;
}

/**
 * rds_send_release_dests - free a closing socket's destination states
 * @rs: the socket, whose messages all left it (rds_send_drop_to())
 */
void rds_send_release_dests(struct rds_sock *rs)
{
	struct rds_dest *spare, *d, *next;

	spin_lock_bh(&rs->rs_lock);
	WARN_ON_ONCE(rs->rs_dests_busy);
	if (rs->rs_dest_last)
		rds_dest_free_locked(rs, rs->rs_dest_last);
	rs->rs_dest_last = NULL;
	list_for_each_entry_safe(d, next, &rs->rs_dests_idle, d_idle_item)
		rds_dest_free_locked(rs, d);
	INIT_LIST_HEAD(&rs->rs_dests_idle);
	rs->rs_dests_idle_n = 0;
	spare = rs->rs_dest_spare;
	rs->rs_dest_spare = NULL;
	spin_unlock_bh(&rs->rs_lock);
	rds_dest_free_spare(spare);
}

/**
 * rds_send_writable_locked - would a send be admitted now (POLLOUT)?
 * @rs: the socket, rs_lock held
 *
 * For the destination of the socket's last send attempt: a socket that
 * sends to one peer sees POLLOUT exactly as with a single budget. A
 * send to another destination may still meet that one's full budget
 * (EAGAIN with POLLOUT set) or find it open while POLLOUT is clear.
 */
bool rds_send_writable_locked(struct rds_sock *rs)
{
	struct rds_dest *d = rs->rs_dest_last;

	lockdep_assert_held(&rs->rs_lock);
	if (rs->rs_snd_bytes >= rds_sk_snd_total(rs))
		return false;
	if (!d)
		return true;
	if (d->d_bytes)
		return d->d_bytes < rds_sk_sndbuf(rs);
	return rs->rs_dests_busy <
	       rds_sock_max_peers(rds_sock_rn(rs));
}

/* Give back @rm's charge to its destination and to the socket total
 * (@rm leaves the socket's list). True if that reopened a budget a
 * sender or poller may wait for: the destination's, the total, or the
 * destination cap.
 */
static bool rds_send_uncharge_locked(struct rds_sock *rs,
				     struct rds_message *rm)
{
	size_t charge = rds_msg_charge(rm->m_len);
	size_t budget = rds_sk_sndbuf(rs);
	struct rds_dest *d = rm->m_dest;
	bool wake;

	lockdep_assert_held(&rs->rs_lock);
	wake = rds_snd_total_sub_locked(rs, charge);
	rm->m_dest = NULL;
	if (d->d_bytes >= budget && d->d_bytes - charge < budget)
		wake = true;
	d->d_bytes -= charge;
	if (d->d_bytes)
		return wake;
	if (rs->rs_dests_busy-- >=
	    rds_sock_max_peers(rds_sock_rn(rs)))
		wake = true;
	if (d != rs->rs_dest_last)
		rds_dest_idle_locked(rs, d);
	return wake;
}

/* Take @rm off its socket's send list. Returns the socket, whose
 * reference the caller now owns, and sets @wake when the send budget
 * went from full to open (only then can a sender or poller be waiting).
 * An RDMA operation's notification is queued with @status if the
 * operation never ran.
 */
static struct rds_sock *rds_send_unlink_sock(struct rds_message *rm,
					     bool *wake, int status)
{
	struct rds_sock *rs;

	*wake = false;
	spin_lock_bh(&rm->m_rs_lock);
	rs = rm->m_rs;
	if (rs) {
		spin_lock(&rs->rs_lock);
		if (test_and_clear_bit(RDS_MSG_ON_SOCK, &rm->m_flags)) {
			list_del_init(&rm->m_sock_item);
			*wake = rds_send_uncharge_locked(rs, rm);
			if (rm->m_rdma) {
				rds_rdma_notify_locked(rs, rm, status);
				*wake = true;
			}
			if (rds_async_notify_locked(rs, rm, status))
				*wake = true;
			rds_message_put(rm);	/* the socket list's */
		}
		spin_unlock(&rs->rs_lock);
		rm->m_rs = NULL;
	}
	spin_unlock_bh(&rm->m_rs_lock);
	return rs;
}

/* @n messages of @conn were retired without the peer's ack, for @reason. */
static void rds_send_gave_up(struct rds_connection *conn,
			     enum rds_stat reason, unsigned int n)
{
	if (!n)
		return;
	rds_stats_add(rds_conn_rn(conn), reason, n);
	trace_rds_send_giveup(conn, reason, n);
}

/* @rm left its connection: if it was a closed socket's, it no longer
 * counts against the namespace's orphan budget.
 */
static void rds_send_unorphan(struct rds_message *rm)
{
	if (test_and_clear_bit(RDS_MSG_ORPHAN, &rm->m_flags))
		atomic_long_sub(rds_msg_charge(rm->m_len),
				&rds_conn_rn(rm->m_conn)->orphan_bytes);
}

/* Retire messages that left their connection: wake and release senders.
 * @list: the caller's private list of them, abandoned whole (each entry
 *	is reset, not unlinked)
 * @status: what an RDMA operation that never ran is reported as.
 */
static void rds_send_retire(struct list_head *list, int status)
{
	struct rds_message *rm, *tmp;
	struct rds_sock *rs;
	bool wake;

	list_for_each_entry_safe(rm, tmp, list, m_conn_item) {
		INIT_LIST_HEAD(&rm->m_conn_item);
		rds_send_unorphan(rm);
		rs = rds_send_unlink_sock(rm, &wake, status);
		if (rs) {
			if (wake)
				rds_wake_sk(rs);
			sock_put(rds_rs_to_sk(rs));
		}
		rds_message_put(rm);	/* the connection list's */
	}
}

/**
 * rds_send_drop_acked_fn - retire messages acked by the transport's rule
 * @conn: the connection
 * @acked: true if @rm is acked given @arg; false ends the walk (messages
 *	are acked in order)
 * @arg: e.g. TCP's snd_una
 *
 * For transports whose acks come from below (TCP), keyed by what the
 * transport stored in rm->m_ack_seq before setting RDS_MSG_HAS_ACK_SEQ.
 * The retransmit list first, then the requeued head of the send queue.
 *
 * Context: any.
 */
void rds_send_drop_acked_fn(struct rds_connection *conn,
			    bool (*acked)(struct rds_message *rm, u64 arg),
			    u64 arg)
{
	struct rds_net *rn = rds_conn_rn(conn);
	struct rds_message *rm, *last = NULL;
	unsigned int n = 0;
	LIST_HEAD(list);
	LIST_HEAD(head);

	/* A message is on one of the connection's lists exactly while
	 * RDS_MSG_ON_CONN is set, both changed under c_lock: the acked
	 * head of a list is cut off whole, not moved message by message.
	 */
	spin_lock_bh(&conn->c_lock);
	list_for_each_entry(rm, &conn->c_retrans, m_conn_item) {
		if (!acked(rm, arg))
			break;
		clear_bit(RDS_MSG_ON_CONN, &rm->m_flags);
		last = rm;
		n++;
	}
	if (last)
		list_cut_position(&list, &conn->c_retrans, &last->m_conn_item);
	/* Then, if every sent message was acked, what a reconnect put back
	 * at the head of the send queue: an ack from the new connection (a
	 * reconnect's private data) may cover it. Sent again, the peer
	 * would drop it as old and repeat that ack, which a transport may
	 * take for one already applied.
	 */
	last = NULL;
	if (list_empty(&conn->c_retrans)) {
		list_for_each_entry(rm, &conn->c_send_queue, m_conn_item) {
			if (!test_bit(RDS_MSG_RETRANSMITTED, &rm->m_flags) ||
			    !acked(rm, arg))
				break;
			clear_bit(RDS_MSG_ON_CONN, &rm->m_flags);
			last = rm;
			n++;
		}
	}
	if (last) {
		list_cut_position(&head, &conn->c_send_queue,
				  &last->m_conn_item);
		list_splice_tail(&head, &list);
	}
	spin_unlock_bh(&conn->c_lock);
	if (!n)
		return;
	rds_stats_add(rn, RDS_STAT_SEND_DROP_ACKED, n);
	rds_send_retire(&list, RDS_RDMA_SUCCESS);
}
EXPORT_SYMBOL_GPL(rds_send_drop_acked_fn);

/* An ack retires a message only once its RDMA operation is done: its
 * status comes from the operation's completion, never from a peer that
 * acks before (a lying one could make a failed operation look done).
 * The transport applies the ack again when the operation completes.
 */
static bool rds_send_seq_acked(struct rds_message *rm, u64 ack)
{
	return be64_to_cpu(rm->m_hdr.h_sequence) <= ack &&
	       (!rm->m_rdma || READ_ONCE(rm->m_rdma->op_done));
}

/**
 * rds_send_drop_acked - the peer acked everything up to @ack
 * @conn: the connection
 * @ack: highest sequence acknowledged
 *
 * Only what was sent can be acked: a message never handed to the
 * transport (queued during an outage) is immune to an ack that a peer
 * still holding an earlier incarnation's sequences sends, and an ack
 * beyond anything numbered is ignored (counted as recv_ack_stale).
 *
 * Context: any (transports call it from their completion paths).
 */
void rds_send_drop_acked(struct rds_connection *conn, u64 ack)
{
	/* Beyond every sequence we numbered: the peer remembers an earlier
	 * incarnation of ours (our RDS restarted, its did not). It acks
	 * nothing of this one. The sequence only grows: an unlocked look.
	 */
	if (ack >= READ_ONCE(conn->c_next_tx_seq)) {
		rds_stats_inc(rds_conn_rn(conn),
			      RDS_STAT_RECV_ACK_STALE);
		return;
	}
	rds_send_drop_acked_fn(conn, rds_send_seq_acked, ack);
}
EXPORT_SYMBOL_GPL(rds_send_drop_acked);

/**
 * rds_send_drop_unsent - retire @rm, which the transport did not send
 * @rm: a message on its connection's retransmit list, or already off it
 *
 * For a message that put nothing on the wire (rds_message_silent()): the
 * peer will never ack it.
 *
 * Context: any.
 */
void rds_send_drop_unsent(struct rds_message *rm)
{
	struct rds_connection *conn = rm->m_conn;
	LIST_HEAD(list);

	spin_lock_bh(&conn->c_lock);
	if (test_and_clear_bit(RDS_MSG_ON_CONN, &rm->m_flags))
		list_move_tail(&rm->m_conn_item, &list);
	spin_unlock_bh(&conn->c_lock);
	rds_send_retire(&list, RDS_RDMA_SUCCESS);
}

/* The transport refused @rm's operation before posting it: the peer would
 * refuse its key on this connection (an adapter's key for another route),
 * and the refusal would take the connection down for everyone on it. The
 * message goes instead, unsent, reported RDS_RDMA_DROPPED as a reconnect
 * reports what it drops; its sequence number is never seen (the peer
 * takes gaps, as after a cancel). Returns 0: the next message goes on.
 */
static int rds_send_drop_refused(struct rds_connection *conn,
				 struct rds_message *rm)
{
	LIST_HEAD(list);

	spin_lock_bh(&conn->c_lock);
	if (test_and_clear_bit(RDS_MSG_ON_CONN, &rm->m_flags))
		list_move_tail(&rm->m_conn_item, &list);
	spin_unlock_bh(&conn->c_lock);
	rds_send_gave_up(conn, RDS_STAT_SEND_DROP_RDMA, !list_empty(&list));
	rds_send_retire(&list, RDS_RDMA_DROPPED);
	return 0;
}

/**
 * rds_rdma_send_complete - an adapter finished a message's operation
 * @rm: the message whose operation (@rm->m_rdma) completed
 * @status: RDS_RDMA_SUCCESS or an RDS_RDMA_* error
 *
 * The sender hears of it now (rds_rdma_op_notify()). A silent message,
 * which the peer never sees, leaves its connection now: no ack will ever
 * name it.
 *
 * Context: process context, may sleep.
 */
void rds_rdma_send_complete(struct rds_message *rm, int status)
{
	rds_rdma_op_notify(rm, status);
	if (rds_message_silent(rm))
		rds_send_drop_unsent(rm);
}
EXPORT_SYMBOL_GPL(rds_rdma_send_complete);

/* Did @rm's RDMA operation complete? Then the data is in place (an
 * adapter reports a WRITE done once the peer placed it) and the message
 * that says so may go again without it.
 */
static bool rds_send_rdma_done_ok(const struct rds_message *rm)
{
	/* Pairs with rds_rdma_op_complete(): the status is set first. */
	return smp_load_acquire(&rm->m_rdma->op_done) &&
	       rm->m_rdma->op_status == RDS_RDMA_SUCCESS;
}

/**
 * rds_send_drop_rdma_of - drop the queued RDMA messages of @failed's sender
 * @conn: the connection @failed's operation failed on
 * @failed: a message whose RDMA operation the peer refused
 *
 * The refusal took the shared connection down (the device puts its queue
 * pair in error). The sender's RDMA messages queued behind it most likely
 * name the same dead region: each would take the connection down again,
 * and every other sender's traffic with it. They are dropped now and
 * reported RDS_RDMA_DROPPED, as a reconnect reports what it drops. A
 * closed socket's messages count as one sender.
 *
 * Context: any.
 */
void rds_send_drop_rdma_of(struct rds_connection *conn,
			   struct rds_message *failed)
{
	struct rds_message *rm, *tmp;
	struct rds_sock *rs;
	unsigned int n = 0;
	LIST_HEAD(dropped);

	/* Held while compared: a socket freed meanwhile and its memory
	 * reused by a new one would match that one's messages.
	 */
	spin_lock_bh(&failed->m_rs_lock);
	rs = failed->m_rs;
	if (rs)
		sock_hold(rds_rs_to_sk(rs));
	spin_unlock_bh(&failed->m_rs_lock);
	spin_lock_bh(&conn->c_lock);
	list_for_each_entry_safe(rm, tmp, &conn->c_send_queue, m_conn_item) {
		/* Done: its operation is never posted again. */
		if (!rm->m_rdma || rds_send_rdma_done_ok(rm) ||
		    READ_ONCE(rm->m_rs) != rs)
			continue;
		clear_bit(RDS_MSG_ON_CONN, &rm->m_flags);
		list_move_tail(&rm->m_conn_item, &dropped);
		n++;
	}
	spin_unlock_bh(&conn->c_lock);
	rds_send_gave_up(conn, RDS_STAT_SEND_DROP_RDMA, n);
	rds_send_retire(&dropped, RDS_RDMA_DROPPED);
	if (rs)
		sock_put(rds_rs_to_sk(rs));
}
EXPORT_SYMBOL_GPL(rds_send_drop_rdma_of);

/* Take every message off @conn (teardown of a connection). */
void rds_send_drop_all(struct rds_connection *conn)
{
	struct rds_message *rm, *tmp;
	unsigned int n = 0;
	LIST_HEAD(dropped);

	spin_lock_bh(&conn->c_lock);
	list_splice_init(&conn->c_retrans, &dropped);
	list_splice_tail_init(&conn->c_send_queue, &dropped);
	list_for_each_entry_safe(rm, tmp, &dropped, m_conn_item) {
		rds_lanes_probe_gone(rm);
		clear_bit(RDS_MSG_ON_CONN, &rm->m_flags);
		n += !test_bit(RDS_MSG_PONG, &rm->m_flags);
	}
	spin_unlock_bh(&conn->c_lock);
	rds_send_gave_up(conn, RDS_STAT_SEND_DROP_CONN_KILLED, n);
	rds_send_retire(&dropped, RDS_RDMA_DROPPED);
}

/* Has the orphan @rm waited for its peer longer than @max jiffies? */
static bool rds_send_orphan_expired(struct rds_message *rm, unsigned long max)
{
	return test_bit(RDS_MSG_ORPHAN, &rm->m_flags) &&
	       time_after(jiffies, rm->m_orphaned + max);
}

/**
 * rds_send_drop_stale - give up what waited too long for a peer that is down
 * @conn: a connection that just went down
 * @failed: the attempt never came up
 *
 * Closed sockets' messages (orphans) wait for the peer up to
 * net.rds.orphan_max_ms after their socket closed, however many attempts
 * fail meanwhile (a peer rebooting, a cable replugged), and are then
 * given up and counted as send_drop_orphan. Pongs and probes of an
 * attempt that failed go at once: the peer will ask again.
 *
 * Context: process context (the down worker).
 */
void rds_send_drop_stale(struct rds_connection *conn, bool failed)
{
	struct rds_net *rn = rds_conn_rn(conn);
	unsigned long max = msecs_to_jiffies(rds_orphan_max_ms(rn));
	struct rds_message *rm, *tmp;
	unsigned int n = 0;
	LIST_HEAD(dropped);

	spin_lock_bh(&conn->c_lock);
	list_for_each_entry_safe(rm, tmp, &conn->c_send_queue, m_conn_item) {
		if (test_bit(RDS_MSG_PONG, &rm->m_flags)) {
			if (!failed)
				continue;
		} else if (rds_send_orphan_expired(rm, max)) {
			n++;
		} else {
			continue;
		}
		rds_lanes_probe_gone(rm);
		clear_bit(RDS_MSG_ON_CONN, &rm->m_flags);
		list_move_tail(&rm->m_conn_item, &dropped);
	}
	spin_unlock_bh(&conn->c_lock);
	rds_send_gave_up(conn, RDS_STAT_SEND_DROP_ORPHAN, n);
	rds_send_retire(&dropped, RDS_RDMA_DROPPED);
}

/* After a disconnect, a message stopped half-way starts again from its
 * first byte, and unacked messages go out again, in order, flagged. An
 * RDMA is never done twice (the first may have reached the peer's
 * memory): a message whose operation completed goes again without it
 * (its sender already heard of the success); one whose operation failed
 * or never ran is dropped, and its sender learns the outcome or
 * RDS_RDMA_DROPPED. Linux drops them all: the peer never hears of RDMA
 * that did complete. Called by the shutdown, with the transport's queue
 * drained (every operation done) and the transmit loop out.
 */
void rds_send_requeue_retrans(struct rds_connection *conn)
{
	struct rds_message *rm, *tmp;
	unsigned int ndropped = 0;
	LIST_HEAD(dropped);
	int n = 0;

	if (conn->c_xmit_rm) {
		rds_message_put(conn->c_xmit_rm);
		conn->c_xmit_rm = NULL;
		conn->c_xmit_pos = 0;
	}
	spin_lock_bh(&conn->c_lock);
	list_for_each_entry_safe(rm, tmp, &conn->c_retrans, m_conn_item) {
		if (rm->m_rdma && !rds_send_rdma_done_ok(rm)) {
			clear_bit(RDS_MSG_ON_CONN, &rm->m_flags);
			list_move_tail(&rm->m_conn_item, &dropped);
			ndropped++;
			continue;
		}
		n++;
		set_bit(RDS_MSG_RETRANSMITTED, &rm->m_flags);
		clear_bit(RDS_MSG_HAS_ACK_SEQ, &rm->m_flags);
		rm->m_hdr.h_flags |= RDS_FLAG_RETRANSMITTED;
	}
	list_splice_init(&conn->c_retrans, &conn->c_send_queue);
	spin_unlock_bh(&conn->c_lock);
	rds_send_gave_up(conn, RDS_STAT_SEND_DROP_RDMA, ndropped);
	rds_send_retire(&dropped, RDS_RDMA_DROPPED);
	if (n)
		trace_rds_retransmit(conn, n);
}

/* The socket of @rm, still queued on its connection, closed: keep it for
 * its peer within the namespace's orphan budget, or give it up now.
 */
static void rds_send_orphan(struct rds_message *rm)
{
	struct rds_connection *conn = rm->m_conn;
	struct rds_net *rn = rds_conn_rn(conn);
	long charge = rds_msg_charge(rm->m_len);
	long max = (long)rds_orphan_max_kb(rn) << 10;
	bool drop = false;

	spin_lock_bh(&conn->c_lock);
	if (test_bit(RDS_MSG_ON_CONN, &rm->m_flags)) {
		if (atomic_long_add_return(charge, &rn->orphan_bytes) <= max) {
			rm->m_orphaned = jiffies;
			set_bit(RDS_MSG_ORPHAN, &rm->m_flags);
		} else {
			atomic_long_sub(charge, &rn->orphan_bytes);
			clear_bit(RDS_MSG_ON_CONN, &rm->m_flags);
			list_del_init(&rm->m_conn_item);
			drop = true;
		}
	}
	spin_unlock_bh(&conn->c_lock);
	if (drop) {
		rds_send_gave_up(conn, RDS_STAT_SEND_DROP_ORPHAN, 1);
		rds_message_put(rm);	/* the connection list's */
	}
}

/**
 * rds_send_drop_to - drop a socket's unacked messages
 * @rs: the socket
 * @addr: only those to this address (RDS_CANCEL_SENT_TO), or NULL for all
 *	(socket release)
 * @port: and this port, if @addr
 *
 * On release, messages already queued on a connection stay there and are
 * still delivered: sendmsg() succeeded, so the peer gets them. They wait
 * as orphans (rds_send_orphan(), rds_send_drop_stale()). Only
 * RDS_CANCEL_SENT_TO takes messages back from the connection.
 *
 * Context: process context.
 */
void rds_send_drop_to(struct rds_sock *rs, const struct in6_addr *addr,
		      __be16 port)
{
	struct rds_message *rm, *tmp;
	struct rds_connection *conn;
	LIST_HEAD(dropped);

	spin_lock_bh(&rs->rs_lock);
	list_for_each_entry_safe(rm, tmp, &rs->rs_send_queue, m_sock_item) {
		if (addr && (!ipv6_addr_equal(&rm->m_daddr, addr) ||
			     rm->m_hdr.h_dport != port))
			continue;
		clear_bit(RDS_MSG_ON_SOCK, &rm->m_flags);
		list_move_tail(&rm->m_sock_item, &dropped);
		rds_send_uncharge_locked(rs, rm);
		if (addr) {
			rds_rdma_notify_locked(rs, rm, RDS_RDMA_CANCELED);
			rds_async_notify_locked(rs, rm, RDS_RDMA_CANCELED);
		}
	}
	spin_unlock_bh(&rs->rs_lock);

	list_for_each_entry_safe(rm, tmp, &dropped, m_sock_item) {
		list_del_init(&rm->m_sock_item);
		conn = addr ? rm->m_conn : NULL;
		if (!addr)
			rds_send_orphan(rm);
		if (conn) {
			spin_lock_bh(&conn->c_lock);
			if (test_and_clear_bit(RDS_MSG_ON_CONN, &rm->m_flags)) {
				list_del_init(&rm->m_conn_item);
				rds_message_put(rm);
			}
			spin_unlock_bh(&conn->c_lock);
		}
		spin_lock_bh(&rm->m_rs_lock);
		if (rm->m_rs == rs) {
			rm->m_rs = NULL;
			__sock_put(rds_rs_to_sk(rs));	/* we hold another */
		}
		spin_unlock_bh(&rm->m_rs_lock);
		rds_message_put(rm);	/* the socket list's */
	}
	rds_wake_sk(rs);
}

/* One attempt to queue a message (rds_send_queue_rm()), and what it
 * found.
 */
struct rds_send_try {
	__be16		sport;
	__be16		dport;
	bool		queued;		/* it is on the socket and connection */
	bool		dead;		/* the connection is being killed */
	bool		need_dest;	/* a new destination: allocate first */
	int		err;		/* the destination could not be added */
	enum rds_stat	full;		/* the budget that refused it */
};

/* Put @rm on the socket's send list if its budgets allow, then on the
 * connection's send queue with the next sequence number; the message
 * takes a reference to @conn. Like Linux's RDS, a budget admits a
 * message while the bytes already charged are below it: the
 * destination's (half SO_SNDBUF), then the destination cap, then the
 * socket total.
 * Returns false if a budget is full (@t->full says which); true when
 * the caller stops waiting: queued, or *@t says why not.
 */
static bool rds_send_queue_rm(struct rds_sock *rs, struct rds_connection *conn,
			      struct rds_message *rm, struct rds_send_try *t)
{
	struct rds_net *rn = rds_sock_rn(rs);
	size_t charge = rds_msg_charge(rm->m_len);
	size_t budget = rds_sk_sndbuf(rs);
	struct rds_dest *d;

	if (t->queued || t->dead || t->need_dest || t->err)
		return true;

	spin_lock_bh(&rs->rs_lock);
	d = rds_dest_get_locked(rs, &rm->m_daddr, conn->c_dev_if, &t->err);
	if (!d) {
		t->need_dest = !t->err;
		spin_unlock_bh(&rs->rs_lock);
		return true;
	}
	if (d->d_bytes >= budget)
		t->full = RDS_STAT_SEND_DEST_FULL;
	else if (!d->d_bytes && rs->rs_dests_busy >= rds_sock_max_peers(rn))
		t->full = RDS_STAT_SEND_DEST_CAP;
	else if (rs->rs_snd_bytes >= rds_sk_snd_total(rs))
		t->full = RDS_STAT_SEND_SOCK_FULL;
	else
		t->full = RDS_STAT_MAX;
	if (t->full != RDS_STAT_MAX) {
		spin_unlock_bh(&rs->rs_lock);
		return false;
	}
	spin_lock(&conn->c_lock);
	if (test_bit(RDS_CONN_DESTROYING, &conn->c_flags)) {
		spin_unlock(&conn->c_lock);
		spin_unlock_bh(&rs->rs_lock);
		t->dead = true;
		return true;
	}
	if (!d->d_bytes)
		rs->rs_dests_busy++;
	d->d_bytes += charge;
	rs->rs_snd_bytes += charge;
	rm->m_dest = d;
	/* A sender past half its budget to this peer needs acks soon to
	 * go on: ask the peer for one (transports with RDS-level acks
	 * honour it).
	 */
	if (d->d_bytes > budget / 2)
		rm->m_hdr.h_flags |= RDS_FLAG_ACK_REQUIRED;
	d->d_trans = conn->c_trans;
	rds_conn_get(conn);
	rds_message_get(rm);
	set_bit(RDS_MSG_ON_SOCK, &rm->m_flags);
	list_add_tail(&rm->m_sock_item, &rs->rs_send_queue);
	sock_hold(rds_rs_to_sk(rs));
	rm->m_rs = rs;
	rds_zcopy_queued_locked(rs, rm);
	rm->m_conn = conn;
	rm->m_hdr.h_sport = t->sport;
	rm->m_hdr.h_dport = t->dport;

	rm->m_hdr.h_sequence = cpu_to_be64(conn->c_next_tx_seq++);
	rds_message_get(rm);
	set_bit(RDS_MSG_ON_CONN, &rm->m_flags);
	list_add_tail(&rm->m_conn_item, &conn->c_send_queue);
	spin_unlock(&conn->c_lock);
	spin_unlock_bh(&rs->rs_lock);
	rds_conn_touch(conn);

	t->queued = true;
	return true;
}

/* The RDMA operation of @rm goes first, once: not again when the
 * transport took the operation but had no room for the message yet (its
 * completion may still be on the way), nor on retransmit.
 */
static int rds_send_xmit_rdma(struct rds_connection *conn,
			      struct rds_message *rm)
{
	struct rds_rdma_op *op = rm->m_rdma;
	int ret;

	if (!op || op->op_done || op->op_posted)
		return 0;
	if (!conn->c_trans->xmit_rdma) {
		rds_rdma_op_complete(op, RDS_RDMA_OTHER_ERROR);
		return 0;
	}
	ret = conn->c_trans->xmit_rdma(conn, rm);
	if (!ret)
		op->op_posted = true;
	if (!ret && op->op_done && op->op_status == RDS_RDMA_SUCCESS)
		rds_stats_add(rds_conn_rn(conn),
			      RDS_STAT_SEND_RDMA_BYTES, op->op_bytes);
	return ret;
}

/* The next message to hand to the transport, with a reference, as
 * conn->c_xmit_rm: the one the transport stopped in, a congestion map
 * update, or the head of the send queue (moved to the retransmit list
 * first: the ack may come at once). NULL when there is nothing to send.
 */
static struct rds_message *rds_send_next(struct rds_connection *conn,
					 int *err)
{
	struct rds_message *rm = conn->c_xmit_rm;

	rds_conn_assert_xmit_held(conn);
	*err = 0;
	if (rm) {
		/* Canceled before its first byte left: forget it. */
		if (conn->c_xmit_pos || test_bit(RDS_MSG_ON_CONN, &rm->m_flags) ||
		    (rm->m_hdr.h_flags & RDS_FLAG_CONG_BITMAP))
			return rm;
		conn->c_xmit_rm = NULL;
		rds_message_put(rm);
	}
	/* Tested first: no locked operation per message when clear. */
	if (test_bit(RDS_CONN_CONG_QUEUED, &conn->c_flags) &&
	    test_and_clear_bit(RDS_CONN_CONG_QUEUED, &conn->c_flags)) {
		rm = rds_message_cong_map(conn);
		if (!rm) {
			set_bit(RDS_CONN_CONG_QUEUED, &conn->c_flags);
			*err = -ENOMEM;
			return NULL;
		}
		goto out;
	}
	spin_lock_bh(&conn->c_lock);
	rm = list_first_entry_or_null(&conn->c_send_queue, struct rds_message,
				      m_conn_item);
	if (rm) {
		list_move_tail(&rm->m_conn_item, &conn->c_retrans);
		rds_message_get(rm);
	}
	spin_unlock_bh(&conn->c_lock);
	if (!rm)
		return NULL;
out:
	conn->c_xmit_rm = rm;
	conn->c_xmit_pos = 0;
	return rm;
}

/* Hand @rm (conn->c_xmit_rm) to the transport: its RDMA first, then the
 * message from where it stopped.
 */
static int rds_send_one(struct rds_connection *conn, struct rds_message *rm)
{
	int ret = 0;

	rds_conn_assert_xmit_held(conn);
	if (!conn->c_xmit_pos)
		ret = rds_send_xmit_rdma(conn, rm);
	if (ret == -EKEYREJECTED)
		ret = rds_send_drop_refused(conn, rm);
	else if (!ret)
		ret = conn->c_trans->xmit(conn, rm, &conn->c_xmit_pos);
	if (!ret) {
		conn->c_xmit_rm = NULL;
		conn->c_xmit_pos = 0;
		rds_message_put(rm);
	}
	return ret;
}

/* Messages (and restarts) one call of the transmit loop handles before it
 * hands the rest to the send worker. Without a bound, a caller that finds
 * the queue refilled behind it never returns: a user stays in sendmsg()
 * for other users' messages, and the worker holds its CPU's pool, so the
 * receive, connect and lane works queued behind it there never run.
 */
#define RDS_SEND_BATCH	64

/**
 * rds_send_xmit - run the transmit loop of a connection
 * @conn: the connection
 *
 * One caller at a time transmits; others leave their messages to it.
 * After RDS_SEND_BATCH messages the send worker takes over, at the tail
 * of its workqueue.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EAGAIN / -ENOMEM when the transport ran out of room
 * (it kicks us when it has some again) or memory (the send worker is
 * scheduled).
 */
int rds_send_xmit(struct rds_connection *conn)
{
	const struct rds_transport *trans = conn->c_trans;
	struct rds_net *rn = rds_conn_rn(conn);
	unsigned int budget = RDS_SEND_BATCH;
	struct rds_message *rm;
	int ret;

restart:
	if (!rds_conn_xmit_trylock(conn)) {
		rds_stats_inc(rn, RDS_STAT_SEND_LOCK_CONTENTION);
		return 0;
	}
	if (test_bit(RDS_CONN_XMIT_KICKED, &conn->c_flags))
		clear_bit(RDS_CONN_XMIT_KICKED, &conn->c_flags);
	if (rds_conn_state(conn) != RDS_CONN_UP) {
		rds_conn_xmit_unlock(conn);
		if (wq_has_sleeper(&conn->c_waitq))	/* implies a barrier */
			wake_up_all(&conn->c_waitq);
		rds_conn_connect_if_down(conn);
		return 0;
	}

	if (trans->xmit_prepare)
		trans->xmit_prepare(conn);
	ret = 0;
	for (; budget; budget--) {
		rm = rds_send_next(conn, &ret);
		if (!rm)
			break;
		ret = rds_send_one(conn, rm);
		if (ret)
			break;
	}
	if (trans->xmit_complete)
		trans->xmit_complete(conn);

	rds_conn_xmit_unlock(conn);
	/* Order the release against the checks below (and the shutdown
	 * path's wait_event), then wake a waiting shutdown, if any.
	 */
	smp_mb__after_atomic();
	if (wq_has_sleeper(&conn->c_waitq))
		wake_up_all(&conn->c_waitq);

	if (ret == -EAGAIN) {
		/* The transport kicks us when it has room; a kick that came
		 * while we held the lock found it taken, so look again.
		 */
		rds_stats_inc(rn, RDS_STAT_SEND_IMMEDIATE_RETRY);
		if (test_bit(RDS_CONN_XMIT_KICKED, &conn->c_flags))
			goto again;
		return ret;
	}
	if (ret == -ENOMEM) {
		rds_stats_inc(rn, RDS_STAT_SEND_DELAYED_RETRY);
		rds_conn_queue_delayed(conn, &conn->c_send_w, 1);
		return ret;
	}
	if (ret) {
		trace_rds_conn_error(conn, ret, RDS_TRACE_SITE_XMIT);
		rds_conn_drop_reason(conn, RDS_DROP_SEND_FAIL);
		return 0;
	}
	/* A message queued while we were finishing would be stranded. */
	if (!list_empty_careful(&conn->c_send_queue) ||
	    test_bit(RDS_CONN_CONG_QUEUED, &conn->c_flags)) {
		if (budget)	/* else not a race: the batch ran out */
			rds_stats_inc(rn, RDS_STAT_SEND_LOCK_QUEUE_RACED);
		goto again;
	}
	return 0;

again:
	if (budget) {
		budget--;
		goto restart;
	}
	rds_conn_queue_delayed(conn, &conn->c_send_w, 0);
	return 0;
}

void rds_send_worker(struct work_struct *work)
{
	struct rds_connection *conn = container_of(to_delayed_work(work),
						   struct rds_connection,
						   c_send_w);

	rds_send_xmit(conn);
}

/**
 * rds_send_kick - transmit queued messages soon, from process context
 * @conn: the connection
 *
 * Context: any.
 */
void rds_send_kick(struct rds_connection *conn)
{
	set_bit(RDS_CONN_XMIT_KICKED, &conn->c_flags);
	/* The transmit loop clears the bit after taking its lock. */
	smp_mb__after_atomic();
	rds_conn_queue_delayed(conn, &conn->c_send_w, 0);
}
EXPORT_SYMBOL_GPL(rds_send_kick);

/**
 * rds_send_ctl - queue a control message of the connection's own
 * @conn: the connection
 * @rm: a pong or a multipath probe (nobody's socket); its reference is
 *	taken, also on failure
 *
 * Context: any.
 * Return: 0, -ENETUNREACH if @conn is being killed, or -ENOBUFS when the
 * peer has RDS_MAX_PONGS of them unread already.
 */
int rds_send_ctl(struct rds_connection *conn, struct rds_message *rm)
{
	struct rds_net *rn = rds_conn_rn(conn);

	spin_lock_bh(&conn->c_lock);
	if (test_bit(RDS_CONN_DESTROYING, &conn->c_flags)) {
		/* The pinger will ping again. */
		spin_unlock_bh(&conn->c_lock);
		rds_message_put(rm);
		return -ENETUNREACH;
	}
	if (atomic_read(&conn->c_pongs) >= RDS_MAX_PONGS) {
		spin_unlock_bh(&conn->c_lock);
		rds_message_put(rm);
		rds_stats_inc(rn, RDS_STAT_RECV_PING_UNANSWERED);
		return -ENOBUFS;
	}
	atomic_inc(&conn->c_pongs);
	set_bit(RDS_MSG_PONG, &rm->m_flags);
	rds_conn_get(conn);
	rm->m_conn = conn;
	rm->m_hdr.h_sequence = cpu_to_be64(conn->c_next_tx_seq++);
	set_bit(RDS_MSG_ON_CONN, &rm->m_flags);
	list_add_tail(&rm->m_conn_item, &conn->c_send_queue);	/* our ref */
	spin_unlock_bh(&conn->c_lock);
	rds_send_kick(conn);
	return 0;
}

/**
 * rds_send_pong - answer a ping: an empty message from port 0
 * @conn: connection the ping came in on (gives transport and TOS)
 * @from: our address the ping was sent to
 * @to: the pinger's address
 * @dport: the pinger's port
 *
 * Context: the transport's receive path. Only loopback, which carries the
 * two directions on two connections and so may create the return one,
 * needs process context, and it delivers from process context.
 */
int rds_send_pong(struct rds_connection *conn, const struct in6_addr *from,
		  const struct in6_addr *to, __be16 dport)
{
	struct rds_net *rn = rds_conn_rn(conn);
	struct rds_connection *back = conn;
	struct rds_message *rm;
	int ret;

	/* Loopback carries each direction on its own connection. */
	if (!ipv6_addr_equal(&conn->c_laddr, from)) {
		back = rds_conn_create(rds_conn_net(conn), from, to,
				       conn->c_trans, conn->c_tos,
				       conn->c_dev_if, GFP_KERNEL);
		if (IS_ERR(back))
			return PTR_ERR(back);
	} else {
		rds_conn_get(back);
	}

	rm = rds_message_alloc(rn, 0, GFP_ATOMIC);
	if (!rm) {
		rds_conn_put(back);
		return -ENOMEM;
	}
	rm->m_daddr = *to;
	rm->m_hdr.h_sport = 0;
	rm->m_hdr.h_dport = dport;
	/* The answer to a multipath probe says how many lanes we have. */
	if (dport == cpu_to_be16(RDS_FLAG_PROBE_PORT) &&
	    (conn->c_trans->caps & RDS_TRANS_CAP_WIRE))
		rds_lanes_add_exts(rds_conn_lane0(conn), &rm->m_hdr);

	/* On the lane the ping came in on: its sequence space. */
	ret = rds_send_ctl(back, rm);
	if (!ret)
		rds_stats_inc(rn, RDS_STAT_SEND_PONG);
	rds_conn_put(back);
	return ret;
}

/* What a sendmsg()'s control messages ask for, beyond a zero-copy cookie:
 * the parsers to run (none for a plain message).
 */
#define RDS_SEND_CMSG_RDMA	BIT(0)	/* rds_rdma_parse_cmsgs() */
#define RDS_SEND_CMSG_ASYNC	BIT(1)	/* rds_async_parse() */

/* Validate control messages as Linux's RDS does, in its order. RDMA and
 * atomics are checked further by rds_rdma_parse_cmsgs(); a zero-copy
 * cookie goes to *@zcookie; *@parse gets the RDS_SEND_CMSG_* bits of the
 * parsers the message needs.
 */
static int rds_send_check_cmsgs(struct msghdr *msg, bool zcopy, u32 *zcookie,
				unsigned int *parse)
{
	bool cookie = false, rdma = false, map = false, async = false;
	struct cmsghdr *cmsg;
	int ret;

	for_each_cmsghdr(cmsg, msg) {
		if (!CMSG_OK(msg, cmsg))
			return -EINVAL;
		if (cmsg->cmsg_level != SOL_RDS)
			continue;
		switch (cmsg->cmsg_type) {
		case RDS_CMSG_ATOMIC_CSWP:
		case RDS_CMSG_ATOMIC_FADD:
		case RDS_CMSG_MASKED_ATOMIC_CSWP:
		case RDS_CMSG_MASKED_ATOMIC_FADD:
		case RDS_CMSG_RDMA_ARGS:
			rdma = true;
			break;
		case RDS_CMSG_ASYNC_SEND:	/* UEK's; rds_async_parse() */
			async = true;
			break;
		case RDS_CMSG_ZCOPY_COOKIE:
			ret = rds_zcopy_cookie(cmsg, zcookie);
			if (ret)
				return ret;
			cookie = true;
			fallthrough;
		case RDS_CMSG_RDMA_DEST:
		case RDS_CMSG_RDMA_MAP:
			map = true;
			break;
		default:
			return -EINVAL;
		}
	}
	if ((msg->msg_flags & MSG_ZEROCOPY) && !cookie)
		return -EINVAL;
	/* Memory offered to the peer never mixes with operations on it. */
	if (rdma && map)
		return -EINVAL;
	/* A cookie names a zero-copy send: without SO_ZEROCOPY there is none. */
	if (cookie && !zcopy)
		return -EINVAL;
	*parse = (rdma || map ? RDS_SEND_CMSG_RDMA : 0) |
		 (async ? RDS_SEND_CMSG_ASYNC : 0);
	return 0;
}

/* Is the connection @rs used last the one for @daddr? Takes a reference. */
static struct rds_connection *rds_send_cached_conn(struct rds_sock *rs,
						   const struct in6_addr *daddr,
						   u32 scope_id)
{
	struct rds_connection *conn;

	rcu_read_lock();
	conn = READ_ONCE(rs->rs_conn);
	if (conn && (!ipv6_addr_equal(&conn->c_faddr, daddr) ||
		     conn->c_tos != READ_ONCE(rs->rs_tos) ||
		     conn->c_dev_if != scope_id ||
		     test_bit(RDS_CONN_DESTROYING, &conn->c_flags) ||
		     !refcount_inc_not_zero(&conn->c_refs)))
		conn = NULL;
	rcu_read_unlock();
	return conn;
}

/* Drop a socket's cached connection, as taken by rds_send_cache_conn(). */
static void rds_send_uncache_conn(struct rds_connection *conn)
{
	if (conn) {
		atomic_dec(&conn->c_cached);
		rds_conn_put(conn);
	}
}

/* Remember @conn (a reference is taken) for the next send of @rs. */
static void rds_send_cache_conn(struct rds_sock *rs,
				struct rds_connection *conn)
{
	rds_conn_get(conn);
	atomic_inc(&conn->c_cached);
	rds_send_uncache_conn(xchg(&rs->rs_conn, conn));
}

/**
 * rds_send_release_conn - forget @rs's cached connection (socket release)
 * @rs: the socket
 */
void rds_send_release_conn(struct rds_sock *rs)
{
	rds_send_uncache_conn(xchg(&rs->rs_conn, NULL));
}

/* Pick the transport that carries @rs's traffic to @daddr, pinned in @rs;
 * refuse, before anything is allocated, a peer that none can reach.
 */
static const struct rds_transport *
rds_send_pick_transport(struct rds_sock *rs, const struct in6_addr *daddr,
			u32 scope_id)
{
	const struct rds_transport *trans = rs->rs_transport;
	const struct rds_transport *loop;
	struct net *net = rds_sock_net(rs);

	/* A local peer of a transport that prefers loopback, or our own
	 * address: both ends of that would be one connection object. The
	 * loopback transport carries it (its RDMA finds regions of any
	 * transport by their key).
	 */
	if ((trans->prefer_loopback &&
	     rds_addr_is_local(net, daddr, scope_id)) ||
	    ipv6_addr_equal(daddr, &rs->rs_bound.addr)) {
		loop = READ_ONCE(rs->rs_loop_transport);
		if (loop)
			return loop;
		loop = rds_trans_get(RDS_TRANS_TYPE_LOOP);
		if (!loop)
			return ERR_PTR(-ENETUNREACH);
		if (cmpxchg(&rs->rs_loop_transport, NULL, loop))
			rds_trans_put(loop);
		return READ_ONCE(rs->rs_loop_transport);
	}
	/* A transport still without its engine serves local peers only. */
	if (!trans->xmit)
		return ERR_PTR(-ENETUNREACH);
	if (trans->faddr_check &&
	    trans->faddr_check(net, &rs->rs_bound.addr, daddr, scope_id))
		return ERR_PTR(-ENETUNREACH);
	return trans;
}

/* The transport of @rs's last message to (@daddr, @scope_id) if the
 * socket still keeps that destination (it becomes the last one): the
 * peer's connection is then found without deciding the transport again
 * (a route lookup for every send to peers taken in turn).
 */
static const struct rds_transport *
rds_send_dest_transport(struct rds_sock *rs, const struct in6_addr *daddr,
			u32 scope_id)
{
	const struct rds_transport *trans = NULL;
	struct rds_dest *d;

	spin_lock_bh(&rs->rs_lock);
	d = rds_dest_get_locked(rs, daddr, scope_id, NULL);
	if (d)
		trans = d->d_trans;
	spin_unlock_bh(&rs->rs_lock);
	return trans;
}

/* The lane of @conn0's peer that @rs sends on, with a reference; drops
 * the caller's reference to @conn (a lane of the same peer, maybe @conn0).
 */
static struct rds_connection *rds_send_lane(struct rds_sock *rs,
					    struct rds_connection *conn,
					    bool nonblock, long timeo)
{
	struct rds_connection *conn0 = rds_conn_lane0(conn);
	struct rds_connection *lane;
	unsigned int k;

	k = rds_lanes_pick(rs, conn0, nonblock, timeo);
	if (k == conn->c_lane)
		return conn;
	lane = rds_conn_lane(conn0, k, GFP_KERNEL);	/* conn holds conn0 */
	if (IS_ERR(lane) && PTR_ERR(lane) == -ENOBUFS) {
		/* At net.rds.max_connections: lane 0, which exists, and
		 * stay there while messages are queued on it.
		 */
		rds_lanes_unsettle(rs);
		lane = rds_conn_lane(conn0, 0, GFP_KERNEL);
	}
	rds_conn_put(conn);
	if (!IS_ERR(lane))
		rds_send_cache_conn(rs, lane);
	return lane;
}

/* The connection, with a reference, for (bound address -> @daddr): the
 * socket's lane of the peer's connection.
 */
static struct rds_connection *rds_send_conn(struct rds_sock *rs,
					    const struct in6_addr *daddr,
					    u32 scope_id, bool nonblock,
					    long timeo)
{
	const struct rds_transport *trans;
	struct rds_connection *conn;

	/* Most sends go where the last one went. */
	conn = rds_send_cached_conn(rs, daddr, scope_id);
	if (conn)
		goto lane;

	trans = rds_send_dest_transport(rs, daddr, scope_id);
	if (!trans)
		trans = rds_send_pick_transport(rs, daddr, scope_id);
	if (IS_ERR(trans))
		return ERR_CAST(trans);
	conn = rds_conn_create(rds_sock_net(rs), &rs->rs_bound.addr, daddr,
			       trans, READ_ONCE(rs->rs_tos), scope_id,
			       GFP_KERNEL);
	if (IS_ERR(conn))
		return conn;
	rds_send_cache_conn(rs, conn);
lane:
	if (!conn->c_trans->max_lanes)
		return conn;
	return rds_send_lane(rs, conn, nonblock, timeo);
}

int rds_sendmsg(struct socket *sock, struct msghdr *msg, size_t payload_len)
{
	struct sock *sk = sock->sk;
	struct rds_sock *rs = rds_sk_to_rs(sk);
	struct rds_net *rn = rds_sock_rn(rs);
	bool nonblock = msg->msg_flags & MSG_DONTWAIT;
	bool zcopy = (msg->msg_flags & MSG_ZEROCOPY) &&
		     sock_flag(sk, SOCK_ZEROCOPY);
	struct rds_connection *conn;
	struct rds_message *rm;
	struct rds_send_try t;
	struct in6_addr daddr;
	unsigned int retried = 0, parse;
	__be16 dport;
	u32 scope_id, zcookie = 0;
	long timeo;
	int ret;

	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_CMSG_COMPAT | MSG_ZEROCOPY))
		return -EOPNOTSUPP;

	if (msg->msg_namelen) {
		ret = rds_parse_addr(msg->msg_name, msg->msg_namelen, &daddr,
				     &dport, &scope_id);
		if (ret)
			return ret;
	} else {
		lock_sock(sk);
		daddr = rs->rs_conn_addr;
		dport = rs->rs_conn_port;
		scope_id = rs->rs_conn_scope_id;
		release_sock(sk);
	}

	/* From here on rs_bound and rs_transport are final. */
	if (!rds_sock_bound(rs) || ipv6_addr_any(&daddr))
		return -ENOTCONN;
	/* No mixing of IPv4 and IPv6 on one socket. */
	if (ipv6_addr_v4mapped(&daddr) ^ ipv6_addr_v4mapped(&rs->rs_bound.addr))
		return -EOPNOTSUPP;
	/* A link-local peer is reached over the bound address's link. */
	if (scope_id != rs->rs_bound.scope_id) {
		if (!scope_id)
			scope_id = rs->rs_bound.scope_id;
		else if (rs->rs_bound.scope_id)
			return -EINVAL;
	}

	if (payload_len > RDS_MAX_MSG_SIZE || payload_len > rds_sk_sndbuf(rs))
		return -EMSGSIZE;
	if (zcopy && !(rs->rs_transport->caps & RDS_TRANS_CAP_ZEROCOPY))
		return -EOPNOTSUPP;
	ret = rds_send_check_cmsgs(msg, zcopy, &zcookie, &parse);
	if (ret)
		return ret;

	if (zcopy) {
		rm = rds_message_zcopy(rn, &msg->msg_iter, payload_len,
				       zcookie);
		if (IS_ERR(rm))
			return PTR_ERR(rm);
	} else {
		rm = rds_message_alloc(rn, payload_len, GFP_KERNEL);
		if (!rm)
			return -ENOMEM;
		ret = rds_message_copy_from_user(rm, &msg->msg_iter);
		if (ret)
			goto out;
		rds_stats_add(rn, RDS_STAT_COPY_FROM_USER, payload_len);
	}
	rm->m_daddr = daddr;
	/* A plain message (most are) has nothing to parse or describe. */
	if (parse & RDS_SEND_CMSG_RDMA) {
		ret = rds_rdma_parse_cmsgs(rs, rm, msg);
		if (ret)
			goto out;
	}
	if (parse & RDS_SEND_CMSG_ASYNC) {
		ret = rds_async_parse(rm, msg);
		if (ret)
			goto out;
	}
	if (rm->m_rdma || rm->m_rdma_cookie)
		rds_rdma_set_exthdrs(rm);
	timeo = sock_sndtimeo(sk, nonblock);
again:
	conn = rds_send_conn(rs, &daddr, scope_id, nonblock, timeo);
	if (IS_ERR(conn)) {
		/* Lane 0 was reaped while we picked a lane: start over. */
		if (PTR_ERR(conn) == -ENETUNREACH && !retried++)
			goto again;
		ret = PTR_ERR(conn);
		goto out;
	}
	if (rm->m_rdma && !conn->c_trans->xmit_rdma) {
		ret = -EOPNOTSUPP;
		goto out_conn;
	}
	/* What the device cannot do (masked atomics on rxe, atomics on
	 * iWARP) fails now, not in a completion.
	 */
	if (rm->m_rdma && conn->c_trans->rdma_check) {
		ret = conn->c_trans->rdma_check(conn, rm->m_rdma);
		if (ret)
			goto out_conn;
	}
	rds_conn_connect_if_down(conn);

	ret = rds_cong_wait(rn, conn->c_fcong, dport, nonblock, rs, &timeo);
	if (ret)
		goto out_conn;

	memset(&t, 0, sizeof(t));
	t.sport = rs->rs_bound.port;
	t.dport = dport;
	for (;;) {
		if (rds_send_queue_rm(rs, conn, rm, &t)) {
			if (!t.need_dest)
				break;
			t.need_dest = false;
			ret = rds_dest_prealloc(rs);
			if (ret)
				goto out_conn;
			continue;
		}
		/* Any budget (Linux's counter), and which one. */
		rds_stats_inc(rn, RDS_STAT_SEND_QUEUE_FULL);
		rds_stats_inc(rn, t.full);
		if (nonblock) {
			ret = -EAGAIN;
			goto out_conn;
		}
		/* Woken when this destination, the cap or the total opens. */
		timeo = wait_event_interruptible_timeout(*sk_sleep(sk),
							 rds_send_queue_rm(rs, conn, rm, &t),
							 timeo);
		if (timeo > 0 || timeo == MAX_SCHEDULE_TIMEOUT)
			continue;
		ret = timeo ? timeo : -ETIMEDOUT;
		goto out_conn;
	}
	if (t.err) {
		ret = t.err == -ENOMEM ? -ENOMEM : -ENOBUFS;
		goto out_conn;
	}
	if (t.dead) {
		/* Reaped under us (it was idle): use a fresh one. */
		rds_conn_put(conn);
		goto again;
	}
	rds_stats_inc(rn, RDS_STAT_SEND_QUEUED);
	WRITE_ONCE(rs->rs_has_sent, true);
	WRITE_ONCE(rs->rs_seen_congestion, false);

	rds_send_xmit(conn);
	ret = payload_len;
out_conn:
	rds_conn_put(conn);
out:
	if (ret < 0)
		rds_rdma_unmap(rs, rm);
	rds_message_put(rm);
	return ret;
}
