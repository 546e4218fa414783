// SPDX-License-Identifier: GPL-2.0
/*
 * Outgoing message objects: allocation of the payload pages (plain,
 * zero-copy, the congestion map update), copies from and to user space,
 * and the reference counts of messages, incomings and the connections
 * they pin.
 */
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "rds_core.h"

/* Payloads up to this size live in the message's own allocation. */
#define RDS_MSG_INLINE_MAX	(PAGE_SIZE / 2)

/**
 * rds_message_alloc_sgs - a message whose payload the caller attaches
 * @len: payload length
 * @nents: room for this many @m_sg entries (m_nents stays 0)
 * @extra: bytes of inline payload room after the entries
 * @gfp: allocation flags
 *
 * Return: the message with one reference, or NULL.
 */
struct rds_message *rds_message_alloc_sgs(unsigned int len, unsigned int nents,
					  size_t extra, gfp_t gfp)
{
	struct rds_message *rm;

	rm = kmalloc(struct_size(rm, m_sg, nents) + extra, gfp | __GFP_ACCOUNT);
	if (!rm)
		return NULL;
	memset(rm, 0, sizeof(*rm));
	refcount_set(&rm->m_refcount, 1);
	INIT_LIST_HEAD(&rm->m_sock_item);
	INIT_LIST_HEAD(&rm->m_conn_item);
	spin_lock_init(&rm->m_rs_lock);
	rm->m_len = len;
	rm->m_hdr.h_len = cpu_to_be32(len);
	rds_obj_inc(RDS_OBJ_MESSAGE);
	if (nents)
		sg_init_table(rm->m_sg, nents);
	return rm;
}

/**
 * rds_message_alloc - a message with room for @len payload bytes
 * @rn: the namespace it is sent in (its payload page counters)
 * @len: payload length (at most RDS_MAX_MSG_SIZE)
 * @gfp: allocation flags
 *
 * Small payloads share one allocation with the message; larger ones get
 * a page per RDS_FRAG_SIZE, ready for DMA mapping.
 *
 * Return: the message with one reference, or NULL.
 */
struct rds_message *rds_message_alloc(struct rds_net *rn, unsigned int len,
				      gfp_t gfp)
{
	bool inline_data = len <= RDS_MSG_INLINE_MAX;
	unsigned int nents = inline_data ? !!len : DIV_ROUND_UP(len, PAGE_SIZE);
	struct rds_message *rm;
	unsigned int i;

	rm = rds_message_alloc_sgs(len, nents, inline_data ? len : 0, gfp);
	if (!rm || !nents)
		return rm;

	if (inline_data) {
		sg_set_buf(&rm->m_sg[0], &rm->m_sg[1], len);
		rm->m_nents = 1;
		return rm;
	}
	for (i = 0; i < nents; i++) {
		struct page *page = rds_msg_page_alloc(rn, gfp);

		if (!page)
			goto err;
		sg_set_page(&rm->m_sg[i], page,
			    min_t(unsigned int, len - i * PAGE_SIZE, PAGE_SIZE), 0);
		rm->m_nents++;
	}
	set_bit(RDS_MSG_PAGES, &rm->m_flags);
	return rm;
err:
	rds_message_put(rm);
	return NULL;
}

/**
 * rds_message_zcopy - a message for a MSG_ZEROCOPY send
 * @rn: the namespace it is sent in
 * @from: the payload, @len bytes
 * @len: payload length (checked against RDS_MAX_MSG_SIZE by the caller)
 * @cookie: the sender's cookie
 *
 * Holds the user's pages when @from is user memory in at most
 * RDS_ZCOPY_MAX_NENTS pieces, else copies (the completion comes either
 * way). The completion is posted once the message is queued
 * (rds_zcopy_queued_locked()) and later freed.
 *
 * Context: process context (the sender).
 * Return: the message, or ERR_PTR(-ENOBUFS) over RLIMIT_MEMLOCK,
 * -ENOMEM, -EFAULT.
 */
struct rds_message *rds_message_zcopy(struct rds_net *rn,
				      struct iov_iter *from, size_t len,
				      u32 cookie)
{
	struct rds_znotifier *zn;
	struct rds_message *rm;
	unsigned int nents = 0;
	int ret;

	zn = kzalloc(sizeof(*zn), GFP_KERNEL_ACCOUNT);
	if (!zn)
		return ERR_PTR(-ENOMEM);
	rds_obj_inc(RDS_OBJ_ZCOPY);
	INIT_LIST_HEAD(&zn->z_list);
	zn->z_cookie = cookie;

	if (len && user_backed_iter(from))
		nents = iov_iter_npages(from, RDS_ZCOPY_MAX_NENTS + 1);
	if (!nents || nents > RDS_ZCOPY_MAX_NENTS) {
		rm = rds_message_alloc(rn, len, GFP_KERNEL);
		if (!rm)
			goto nomem;
		rm->m_znotifier = zn;
		ret = rds_message_copy_from_user(rm, from);
		if (ret)
			goto err;
		return rm;
	}

	rm = rds_message_alloc_sgs(len, nents, 0, GFP_KERNEL);
	if (!rm)
		goto nomem;
	rm->m_znotifier = zn;
	set_bit(RDS_MSG_ZCOPY, &rm->m_flags);
	set_bit(RDS_MSG_PAGES, &rm->m_flags);
	ret = mm_account_pinned_pages(&zn->z_mmp, len);
	if (ret)
		goto err;
	ret = rds_zcopy_get_pages(rm, from, nents);
	if (ret)
		goto err;
	return rm;

nomem:
	rds_zcopy_free(zn);
	return ERR_PTR(-ENOMEM);
err:
	rds_message_put(rm);
	return ERR_PTR(ret);
}

/**
 * rds_message_cong_map - a congestion map update for a peer
 * @conn: the connection to send it on
 *
 * Exactly what Linux sends: flags RDS_FLAG_CONG_BITMAP alone, ports and
 * sequence 0, the 8 KiB map of our address as payload. It is sent, never
 * queued or acked.
 *
 * Context: process context (the transmit loop).
 * Return: the message, with one reference, or NULL.
 */
struct rds_message *rds_message_cong_map(struct rds_connection *conn)
{
	const u8 *bits = rds_cong_bits(conn->c_lcong);
	struct rds_message *rm;
	unsigned int i, off = 0;

	rm = rds_message_alloc(rds_conn_rn(conn), RDS_CONG_MAP_BYTES, GFP_KERNEL);
	if (!rm)
		return NULL;
	for (i = 0; i < rm->m_nents; i++) {
		struct scatterlist *sg = &rm->m_sg[i];

		memcpy_to_page(sg_page(sg), sg->offset, bits + off, sg->length);
		off += sg->length;
	}
	rm->m_daddr = conn->c_faddr;
	rm->m_hdr.h_flags = RDS_FLAG_CONG_BITMAP;
	return rm;
}

static void rds_message_free(struct rds_message *rm)
{
	unsigned int i;

	WARN_ON_ONCE(!list_empty(&rm->m_sock_item));
	WARN_ON_ONCE(!list_empty(&rm->m_conn_item));
	if (test_bit(RDS_MSG_ZCOPY, &rm->m_flags))
		rds_zcopy_unpin(rm);
	else if (rm->m_len > RDS_MSG_INLINE_MAX)
		for (i = 0; i < rm->m_nents; i++)
			rds_msg_page_free(sg_page(&rm->m_sg[i]));
	/* Only now is the sender's buffer no longer ours. */
	kfree(rm->m_async);
	if (rm->m_znotifier)
		rds_zcopy_notify(rm->m_znotifier);
	rds_rdma_op_free(rm->m_rdma);
	if (rm->m_conn && test_bit(RDS_MSG_PONG, &rm->m_flags))
		atomic_dec(&rm->m_conn->c_pongs);
	if (rm->m_conn)
		rds_conn_put(rm->m_conn);
	kfree(rm);
	rds_obj_dec(RDS_OBJ_MESSAGE);
}

void rds_message_put(struct rds_message *rm)
{
	if (refcount_dec_and_test(&rm->m_refcount))
		rds_message_free(rm);
}
EXPORT_SYMBOL_GPL(rds_message_put);

/**
 * rds_message_copy_from_user - fill the payload from @from
 * @rm: a message from rds_message_alloc()
 * @from: exactly @rm->m_len bytes
 *
 * Return: 0 or -EFAULT.
 */
int rds_message_copy_from_user(struct rds_message *rm, struct iov_iter *from)
{
	unsigned int i;

	for (i = 0; i < rm->m_nents; i++) {
		struct scatterlist *sg = &rm->m_sg[i];

		if (copy_page_from_iter(sg_page(sg), sg->offset, sg->length,
					from) != sg->length)
			return -EFAULT;
	}
	return 0;
}

/**
 * rds_message_copy_to_user - copy the payload into @to
 * @rm: the message
 * @to: destination; may be shorter than the payload (truncation)
 *
 * Context: process context, may fault.
 * Return: bytes copied or -EFAULT.
 */
int rds_message_copy_to_user(struct rds_message *rm, struct iov_iter *to)
{
	unsigned int i, copied = 0;

	for (i = 0; i < rm->m_nents && iov_iter_count(to); i++) {
		struct scatterlist *sg = &rm->m_sg[i];
		size_t want = min_t(size_t, sg->length, iov_iter_count(to));

		if (copy_page_to_iter(sg_page(sg), sg->offset, want, to) != want)
			return -EFAULT;
		copied += want;
	}
	return copied;
}
EXPORT_SYMBOL_GPL(rds_message_copy_to_user);

/* Messages and incomings pin the connection they go or came on, so the
 * connection's reference count is here, below connection.c: the last
 * put hands the connection to its free worker there (c_free_w).
 */
/**
 * rds_conn_put - drop a reference to a connection
 * @conn: the connection
 *
 * Context: any; the last reference frees the connection from rds_wq.
 */
void rds_conn_put(struct rds_connection *conn)
{
	if (refcount_dec_and_test(&conn->c_refs))
		queue_work(rds_wq, &conn->c_free_w);
}
EXPORT_SYMBOL_GPL(rds_conn_put);

/**
 * rds_conn_get - take another reference to a connection
 * @conn: a connection the caller holds a reference to
 */
void rds_conn_get(struct rds_connection *conn)
{
	refcount_inc(&conn->c_refs);
}
EXPORT_SYMBOL_GPL(rds_conn_get);

/**
 * rds_inc_init - prepare a received message for rds_recv_incoming()
 * @inc: embedded in the transport's receive context
 * @conn: connection it arrived on
 * @saddr: source address
 * @daddr: destination (local) address
 *
 * The caller fills @inc->i_hdr and holds the one reference this sets;
 * @inc holds a reference to @conn and to its transport's module.
 */
void rds_inc_init(struct rds_incoming *inc, struct rds_connection *conn,
		  const struct in6_addr *saddr, const struct in6_addr *daddr)
{
	refcount_set(&inc->i_refcount, 1);
	INIT_LIST_HEAD(&inc->i_item);
	rds_conn_get(conn);
	inc->i_conn = conn;
	inc->i_saddr = *saddr;
	inc->i_daddr = *daddr;
	inc->i_rx_tstamp = 0;
	memset(inc->i_rx_lat, 0, sizeof(inc->i_rx_lat));
	/* The receiving socket may pin another transport than the one that
	 * carried this message (loopback on behalf of TCP): the message
	 * pins its own until freed.
	 */
	__module_get(conn->c_trans->owner);
	rds_obj_inc(RDS_OBJ_INCOMING);
}
EXPORT_SYMBOL_GPL(rds_inc_init);

void rds_inc_put(struct rds_incoming *inc)
{
	struct rds_connection *conn = inc->i_conn;
	const struct rds_transport *trans = conn->c_trans;

	if (refcount_dec_and_test(&inc->i_refcount)) {
		WARN_ON_ONCE(!list_empty(&inc->i_item));
		rds_obj_dec(RDS_OBJ_INCOMING);
		trans->inc_free(inc);
		rds_conn_put(conn);
		module_put(trans->owner);
	}
}
EXPORT_SYMBOL_GPL(rds_inc_put);
