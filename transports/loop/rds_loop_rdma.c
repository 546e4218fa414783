// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA over loopback: the target region belongs to a socket of this node,
 * so an RDMA read or write is a copy between two sets of pinned pages, and
 * an atomic a cmpxchg loop on the remote word.
 *
 * The core finds the region (by the key, in the table of the socket bound
 * at the message's destination) and holds it alive and locked against
 * RDS_FREE_MR; we check the range, copy and report the outcome. A key that
 * names nothing, or a range outside the region, touches no memory and
 * completes with RDS_RDMA_REMOTE_ERROR.
 */
#include <linux/highmem.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <net/rds/connection.h>
#include <net/rds/message.h>
#include <net/rds/rdma.h>

#include "rds_loop.h"

/* Does [op_remote_addr, + op_bytes) lie inside the region? */
static bool rds_loop_rdma_in_range(const struct rds_mr *mr,
				   const struct rds_rdma_op *op)
{
	u64 end;

	if (check_add_overflow(op->op_remote_addr, (u64)op->op_bytes, &end))
		return false;
	return op->op_remote_addr >= mr->r_offset &&
	       end <= (u64)mr->r_offset + mr->r_len;
}

static void rds_loop_rdma_copy(struct rds_mr *mr, struct rds_rdma_op *op)
{
	u64 pos = op->op_remote_addr;
	struct scatterlist *sg;
	unsigned int i;

	for_each_sg(op->op_sg, sg, op->op_nents, i) {
		unsigned int done = 0;

		while (done < sg->length) {
			struct page *rpage = mr->r_pages[pos >> PAGE_SHIFT];
			unsigned int roff = pos & ~PAGE_MASK;
			unsigned int n = min_t(unsigned int, sg->length - done,
					       PAGE_SIZE - roff);
			void *local = kmap_local_page(sg_page(sg));
			void *remote = kmap_local_page(rpage);

			/* The user may name the same memory on both sides. */
			if (op->op_write)
				memmove(remote + roff, local + sg->offset + done, n);
			else
				memmove(local + sg->offset + done, remote + roff, n);
			kunmap_local(remote);
			kunmap_local(local);
			done += n;
			pos += n;
		}
		cond_resched();
	}
}

/* @a + @b with the carry out of each bit set in @nocarry discarded. */
static u64 rds_loop_masked_add(u64 a, u64 b, u64 nocarry)
{
	u64 sum = 0, carry = 0, s;
	unsigned int i;

	if (!nocarry)
		return a + b;
	for (i = 0; i < 64; i++) {
		s = ((a >> i) & 1) + ((b >> i) & 1) + carry;
		sum |= (s & 1) << i;
		carry = (s >> 1) & ~(nocarry >> i) & 1;
	}
	return sum;
}

/* An 8-byte aligned remote word: atomic against the CPU as well. The old
 * value goes to the local word.
 */
static void rds_loop_atomic(struct rds_mr *mr, struct rds_rdma_op *op)
{
	u64 pos = op->op_remote_addr, old, new, seen;
	struct scatterlist *sg = &op->op_sg[0];
	void *remote, *local;
	u64 *word;

	remote = kmap_local_page(mr->r_pages[pos >> PAGE_SHIFT]);
	word = remote + (pos & ~PAGE_MASK);
	old = READ_ONCE(*word);
	for (;;) {
		if (op->op_type == RDS_OP_ATOMIC_FADD) {
			new = rds_loop_masked_add(old, op->op_add,
						  op->op_nocarry);
		} else {
			if ((old ^ op->op_compare) & op->op_compare_mask)
				break;
			new = (old & ~op->op_swap_mask) |
			      (op->op_swap & op->op_swap_mask);
		}
		seen = cmpxchg64(word, old, new);
		if (seen == old)
			break;
		old = seen;
	}
	kunmap_local(remote);

	local = kmap_local_page(sg_page(sg));
	memcpy(local + sg->offset, &old, sizeof(old));
	kunmap_local(local);
}

/**
 * rds_loop_xmit_rdma - carry out the RDMA operation of @rm
 * @conn: the loopback connection
 * @rm: the message; @rm->m_rdma is the operation
 *
 * Context: process context, RDS_CONN_IN_XMIT held, may sleep.
 * Return: 0 (the outcome goes to the operation's status).
 */
int rds_loop_xmit_rdma(struct rds_connection *conn, struct rds_message *rm)
{
	struct rds_rdma_op *op = rm->m_rdma;
	int status = RDS_RDMA_REMOTE_ERROR;
	struct rds_mr_access acc;

	rds_conn_assert_xmit_held(conn);
	if (rds_mr_access_begin(conn, rm, &acc) &&
	    rds_loop_rdma_in_range(acc.mr, op)) {
		if (op->op_type == RDS_OP_RDMA) {
			rds_loop_rdma_copy(acc.mr, op);
			status = RDS_RDMA_SUCCESS;
		} else if (!(op->op_remote_addr & 7)) {
			rds_loop_atomic(acc.mr, op);
			status = RDS_RDMA_SUCCESS;
		}
	}
	rds_mr_access_end(&acc);
	rds_rdma_op_complete(op, status);
	return 0;
}
