// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: WARNs on load so the runner's self-test can prove that the
 * kernel-log scan turns a splat into a failed run. Never installed.
 */
#include <linux/module.h>

static int __init rds_test_warn_init(void)
{
	WARN(1, "rds_test_warn: deliberate warning for the log-scan self-test\n");
	return 0;
}

static void __exit rds_test_warn_exit(void)
{
}

module_init(rds_test_warn_init);
module_exit(rds_test_warn_exit);
MODULE_DESCRIPTION("rds selftest: deliberate WARN on load");
MODULE_LICENSE("GPL");
