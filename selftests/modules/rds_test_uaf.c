// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: reads a freed object on load, so check-debug can prove that
 * the debug kernel's KASAN reports a use-after-free and the run fails.
 * On a kernel without KASAN the read goes unnoticed. Never installed.
 */
#include <linux/module.h>
#include <linux/slab.h>

static int __init rds_test_uaf_init(void)
{
	char *p = kmalloc(64, GFP_KERNEL);
	char c;

	if (!p)
		return -ENOMEM;
	kfree(p);
	/* Hide the pointer from the compiler's own use-after-free check. */
	OPTIMIZER_HIDE_VAR(p);
	c = READ_ONCE(p[8]);
	pr_info("rds_test_uaf: read %d from a freed object\n", c);
	return 0;
}

static void __exit rds_test_uaf_exit(void)
{
}

module_init(rds_test_uaf_init);
module_exit(rds_test_uaf_exit);
MODULE_DESCRIPTION("rds selftest: deliberate use-after-free on load");
MODULE_LICENSE("GPL");
