// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: holds rds_rdma's handling of a finished RDMA operation (the
 * work item rds_rdma_ctx_release()) for hold_ms, so the peer's ack of
 * the message arrives before the operation's completion is handled
 * (rdma.c's ack_before_rdma_completion). A kprobe at its entry takes
 * the work item aside (it returns through an empty function instead)
 * and queues it again hold_ms later; the CPU stays free meanwhile, so
 * the ack, which the same CPU usually handles, does come. One item at a
 * time. hits counts the items held, released those queued again
 * (counted before the item runs). Load it after rds_rdma. Never
 * installed.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/workqueue.h>

static unsigned int hold_ms;
module_param(hold_ms, uint, 0644);
MODULE_PARM_DESC(hold_ms, "hold a finished RDMA operation this long (0: off)");

static unsigned int hits;
module_param(hits, uint, 0444);
MODULE_PARM_DESC(hits, "completions held so far");

static unsigned int released;
module_param(released, uint, 0444);
MODULE_PARM_DESC(released, "held completions queued again so far");

static struct work_struct *rds_test_rdma_held;	/* taken aside */
static struct work_struct *rds_test_rdma_passing; /* queued again */

static void rds_test_rdma_hold_release(struct work_struct *unused)
{
	struct work_struct *w = xchg(&rds_test_rdma_held, NULL);

	if (!w)
		return;
	WRITE_ONCE(rds_test_rdma_passing, w);
	/* Counted before the item can run and notify the sender. */
	smp_store_release(&released, READ_ONCE(released) + 1);
	queue_work(system_unbound_wq, w);
}

static DECLARE_DELAYED_WORK(rds_test_rdma_hold_dw, rds_test_rdma_hold_release);

/* Where a held item's call returns instead of running. */
static noinline void rds_test_rdma_hold_skip(struct work_struct *w)
{
	barrier();	/* a body of its own: never folded into another */
}

static int rds_test_rdma_hold_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct work_struct *w = (void *)regs_get_kernel_argument(regs, 0);
	unsigned int ms = READ_ONCE(hold_ms);

	if (w == READ_ONCE(rds_test_rdma_passing)) {
		WRITE_ONCE(rds_test_rdma_passing, NULL);
		return 0;
	}
	if (!ms || cmpxchg(&rds_test_rdma_held, NULL, w))
		return 0;
	WRITE_ONCE(hits, READ_ONCE(hits) + 1);
	schedule_delayed_work(&rds_test_rdma_hold_dw, msecs_to_jiffies(ms));
	instruction_pointer_set(regs, (unsigned long)rds_test_rdma_hold_skip);
	return 1;	/* execution goes on at regs->ip */
}

static struct kprobe rds_test_rdma_hold_kp = {
	.symbol_name	= "rds_rdma_ctx_release",
	.pre_handler	= rds_test_rdma_hold_pre,
};

static int __init rds_test_rdma_hold_init(void)
{
	return register_kprobe(&rds_test_rdma_hold_kp);
}

static void __exit rds_test_rdma_hold_exit(void)
{
	WRITE_ONCE(hold_ms, 0);
	unregister_kprobe(&rds_test_rdma_hold_kp);
	/* A held item runs now rather than never. */
	mod_delayed_work(system_wq, &rds_test_rdma_hold_dw, 0);
	flush_delayed_work(&rds_test_rdma_hold_dw);
}

module_init(rds_test_rdma_hold_init);
module_exit(rds_test_rdma_hold_exit);
MODULE_DESCRIPTION("rds selftest: hold rds_rdma's handling of finished RDMA");
MODULE_LICENSE("GPL");
