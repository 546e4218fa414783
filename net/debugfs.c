// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/rds/objects: live counts of every object the core
 * allocates, so tests can prove that nothing leaks.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "rds_core.h"

static const char *const rds_obj_names[RDS_OBJ_MAX] = {
	[RDS_OBJ_SOCK]		= "sockets",
	[RDS_OBJ_MESSAGE]	= "messages",
	[RDS_OBJ_INCOMING]	= "incoming",
	[RDS_OBJ_CONN]		= "connections",
	[RDS_OBJ_CONG_MAP]	= "cong_maps",
	[RDS_OBJ_MR]		= "mrs",
	[RDS_OBJ_ZCOPY]		= "zcopy",
	[RDS_OBJ_DEST]		= "send_dests",
};

static struct dentry *rds_debugfs_dir;

static int rds_objects_show(struct seq_file *m, void *v)
{
	int i, cpu;
	long sum;

	for (i = 0; i < RDS_OBJ_MAX; i++) {
		sum = 0;
		for_each_possible_cpu(cpu)
			sum += per_cpu(rds_obj_counts, cpu).n[i];
		seq_printf(m, "%s %ld\n", rds_obj_names[i], sum);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rds_objects);

void rds_debugfs_init(void)
{
	rds_debugfs_dir = debugfs_create_dir("rds", NULL);
	debugfs_create_file("objects", 0444, rds_debugfs_dir, NULL,
			    &rds_objects_fops);
}

void rds_debugfs_exit(void)
{
	debugfs_remove_recursive(rds_debugfs_dir);
}
