#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side, after a suite: ask kmemleak for unreferenced objects and fail
# if any involves our modules (rds*, the test-only rds_test_*). Leaks
# elsewhere in the kernel are listed but do not fail the run: they are not
# ours to fix. An object whose backtrace has an unresolved module-space
# address counts as ours too: a module that was unloaded (the suite
# reloads ours) can no longer be named.
#
#	kmemleak-check.sh [REPORT]   full report to REPORT (default stdout only)
set -uo pipefail
KL=/sys/kernel/debug/kmemleak
report=${1:-/dev/null}

mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
if [ ! -e "$KL" ]; then
	echo "kmemleak: $KL missing (kernel without CONFIG_DEBUG_KMEMLEAK?)"
	exit 1
fi
# Two scans with a pause: an object must look unreferenced in both, and
# kmemleak ignores objects younger than 5 s.
echo scan > "$KL" || { echo "kmemleak: scan refused (kmemleak disabled itself?)"; exit 1; }
sleep 6
echo scan > "$KL" || exit 1
cat "$KL" > /tmp/kmemleak.all
cp /tmp/kmemleak.all "$report" 2>/dev/null

# Split the report into objects; keep the ones that touch us.
awk '
	/^unreferenced object/ { if (obj != "") print obj "\n"; obj = $0; next }
	{ obj = obj "\n" $0 }
	END { if (obj != "") print obj "\n" }
' /tmp/kmemleak.all > /tmp/kmemleak.objs
total=$(grep -c '^unreferenced object' /tmp/kmemleak.all)
# Module space starts at 0xffffffffa0000000 without KASLR (the debug
# kernel) and at 0xffffffffc0000000 with it; kernel text is below both.
# Known upstream leaks that our code only triggers are named, not failed
# (Documentation/upstream-behaviour.rst): 6.1's sysfs_slab_add() does not
# kobject_put() when kobject_init_and_add() fails, so the cache's kobject
# name leaks when proto_register()'s kmem_cache_create() fails (fail-nth
# reaches it through our module init). 6.1's siw_alloc_mr() frees neither
# the page list nor anything else it allocated when siw_mr_add_mem() fails,
# so the fault-injection boot's failslab (a stack through our module's
# rdma_create_qp(), whose MR pool allocates siw MRs) leaks a siw_pbl. A live
# MR's page list is always referenced by siw's own tables, so only that
# error path leaves one unreferenced.
SLAB_ADD='kobject_set_name_vargs[^\n]*\n[^\n]*kobject_init_and_add[^\n]*\n[^\n]*sysfs_slab_add'
SIW_PBL='siw_pbl_alloc[^\n]*\n[^\n]*siw_alloc_mr[^\n]*\n[^\n]*ib_alloc_mr'
UPSTREAM="$SLAB_ADD|$SIW_PBL"
ours=$(awk -v RS= -v up="$UPSTREAM" '
	($0 ~ /\[(rds[a-z_]*|rds_test_[a-z_]+)\]/ ||
	 $0 ~ /\] 0xffffffff[a-f][0-9a-f]+($|\n)/) && $0 !~ up' \
	/tmp/kmemleak.objs | tee /tmp/kmemleak.ours | grep -c '^unreferenced object')
upstream=$(awk -v RS= -v up="$UPSTREAM" '$0 ~ up' /tmp/kmemleak.objs |
	grep -c '^unreferenced object')
known=""
[ "$upstream" != 0 ] && known=" ($upstream: known Linux 6.1 leaks, sysfs_slab_add or siw_alloc_mr)"
echo "kmemleak: $total unreferenced object(s) in the kernel, $ours involving our modules$known"
if [ "$ours" != 0 ]; then
	cat /tmp/kmemleak.ours
	exit 1
fi
if [ "$total" != 0 ]; then
	echo "kmemleak: not ours (first one, for the record):"
	awk -v RS= 'NR == 1' /tmp/kmemleak.objs | sed 's/^/  /'
fi
exit 0
