// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: holds soft RoCE (rxe) in the middle of a peer's access to
 * a registered region. A kprobe on rxe_mr_copy() waits delay_ms before
 * each copy out of or into a region a peer named by its key (its I/O
 * addresses are small: rds_rdma registers regions at their page offset;
 * local buffers are addressed by kernel addresses). rxe checks the key
 * before the copy, so an invalidation or free that does not wait for
 * accesses in progress lands inside the delay (rdma.c's
 * free_mr_waits_for_peer_access). hits counts the copies held, for the
 * test to know when one is under way. Never installed.
 */
#include <linux/kprobes.h>
#include <linux/delay.h>
#include <linux/module.h>

static unsigned int delay_ms;
module_param(delay_ms, uint, 0644);
MODULE_PARM_DESC(delay_ms, "hold each copy of a peer's access this long (0: off)");

static unsigned int hits;
module_param(hits, uint, 0444);
MODULE_PARM_DESC(hits, "copies held so far");

/* rxe_mr_copy(mr, iova, addr, length, dir) */
static int rds_test_rxe_slow_pre(struct kprobe *p, struct pt_regs *regs)
{
	unsigned int ms = READ_ONCE(delay_ms);
	u64 iova = regs_get_kernel_argument(regs, 1);
	long len = (int)regs_get_kernel_argument(regs, 3);

	if (!ms || len <= 0 || iova >> 32)
		return 0;
	WRITE_ONCE(hits, READ_ONCE(hits) + 1);
	mdelay(ms);
	return 0;
}

static struct kprobe rds_test_rxe_slow_kp = {
	.symbol_name	= "rxe_mr_copy",
	.pre_handler	= rds_test_rxe_slow_pre,
};

static int __init rds_test_rxe_slow_init(void)
{
	return register_kprobe(&rds_test_rxe_slow_kp);
}

static void __exit rds_test_rxe_slow_exit(void)
{
	unregister_kprobe(&rds_test_rxe_slow_kp);
}

module_init(rds_test_rxe_slow_init);
module_exit(rds_test_rxe_slow_exit);
MODULE_DESCRIPTION("rds selftest: hold rxe inside a peer's access to a region");
MODULE_LICENSE("GPL");
