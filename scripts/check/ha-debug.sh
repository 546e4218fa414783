#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-ha-debug` (check-debug.sh --ha runs this from its private
# tree, with the debug kernel's environment): RDS/IB port failover
# (selftests/hosts/ha_route.sh, modes "on" and "rdma") between two
# debug-kernel guests with two ports each, then a kmemleak scan on each
# host: KASAN, lockdep and kmemleak over the moves, fail-backs and the
# RDMA given up across them. The streams' gap bound is 10 s here (the
# debug kernel under TCG is slow: 5.5 s seen with the normal bound of
# 5 s); RDS_HA_MODE and RDS_HA_BOUND override. About 6 min.
# Results in results/check-ha-debug of the clone.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO" || exit 1

# shellcheck disable=SC2034 # lib.sh's result and finish read them
start=$(date +%s)
TAP=$RESULTS/check-ha-debug.tap
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
: > "$TAP"
# shellcheck disable=SC2034
n=0 pass=0 fail=0 skip=0
echo "TAP version 13" | tee -a "$TAP"
echo "# check-ha-debug: kernel $KVER"

step "build modules, tools and selftests" make modules tools selftests
[ "$fail" = 0 ] || finish

modes=${RDS_HA_MODE:-on rdma}
out=$RESULTS/ha-route
RDS_LOGSCAN_IGNORE='kmemleak: [0-9]+ new suspected' \
	scripts/vm/vmN.sh --hosts 2 --nics 2 --rdma --timeout 1800 --out "$out" -- \
	"RDS_HA_MODE='$modes' RDS_HA_BOUND=${RDS_HA_BOUND:-10} RDS_SUITE=hosts selftests/run.sh ha_route; rc=\$?
	scripts/check/kmemleak-check.sh /run/out/kmemleak.txt > /run/out/kmemleak.log 2>&1 || rc=1
	exit \$rc" > "$out.log" 2>&1
rc=$?
for h in a b; do
	merge_tap "$out/$h/results.tap" "port failover on the debug kernel, $h: "
	sed "s/^/# kmemleak, host $h: /" "$out/$h/kmemleak.log" 2>/dev/null
done
result "$rc" "port failover ($modes) on two debug-kernel hosts: clean kernel logs, kmemleak clean (vmN.sh exit $rc)" "$out.log"
grep -h "longest gap" "$out"/[ab]/results.tap 2>/dev/null | sed 's/^#* */# /'
finish
