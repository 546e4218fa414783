#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the fail-nth round (check-debug runs a short one,
# check-fault the full one): selftests/faultnth/faultnth fails the 1st,
# 2nd, 3rd... allocation of every call in its corpus through
# /proc/thread-self/fail-nth and checks each failure unwinds cleanly (see
# its header). It runs in a network namespace of its own; once that is
# gone, the core's object counts must be back to zero, then all our modules
# unload and kmemleak finds nothing of ours. Allocations with __GFP_NOWARN
# (kvmalloc's first try, say) fail without a stack, so no site is seen
# for them. Last, the allocation sites a failure was injected at (the first
# frame of ours in each failure's stack) are compared with the allocation
# calls in the source: "sites hit X of Y", and the missing ones.
#
# Writes TAP to $OUT/faultnth.tap (the harness's lines, then these checks).
#
#	fault-nth.sh [--short] [CALL...]   CALL: corpus entries to run
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-/run/out}
DBG=/sys/kernel/debug
TAP=$OUT/faultnth.tap
SITES=$OUT/faultnth-sites.txt
# CI's short round: one call of each kind (socket, bind, connect, send
# with each cmsg family, receive with notifications, MRs, info, close);
# the full round runs the whole corpus, a new namespace (Linux's setup has
# hundreds of fault points) and the module loads.
SHORT="socket bind_v4_ephemeral bind_v6_port connect_v4 sendmsg_small_v4
sendmsg_64k sendmsg_rdma_write sendmsg_rdma_map sendmsg_atomic_cswp
sendmsg_masked_atomic_cswp recvmsg recvmsg_rdma_notification
setsockopt_get_mr_untouched setsockopt_free_mr getsockopt_rds_info_sockets
close_busy_socket"
short=0
if [ "${1:-}" = --short ]; then
	short=1
	shift
	# shellcheck disable=SC2086
	[ $# = 0 ] && set -- $SHORT
fi
MODS="rds rds_loop rds_tcp rds_rdma rds_iwarp"

mountpoint -q $DBG || mount -t debugfs debugfs $DBG
for a in failslab fail_page_alloc; do
	[ -d "$DBG/$a" ] || { echo "fault-nth: no $DBG/$a"; exit 1; }
	# fail-nth bypasses probability and filters, but these gate it.
	echo 0 > "$DBG/$a/probability"
	echo 2 > "$DBG/$a/verbose"	# a stack per failure: the site
	echo N > "$DBG/$a/ignore-gfp-wait"
	echo -1 > "$DBG/$a/times"
	echo 32 > "$DBG/$a/stacktrace-depth"
done
echo N > $DBG/fail_page_alloc/ignore-gfp-highmem
echo 0 > $DBG/fail_page_alloc/min-order

: > "$SITES"
args=(-q -s "$SITES")
# The module loads unload our modules and load them under injection.
[ "$short" = 0 ] && args+=(-M "/lib/modules/$(uname -r)/updates/rds")
start=$(date +%s)
# In a network namespace of its own: when it is gone, so must be every
# connection and congestion map the runs created.
unshare -n selftests/faultnth/faultnth "${args[@]}" "$@" | tee "$OUT/faultnth.raw"
elapsed=$(($(date +%s) - start))

# Fold the harness's TAP into ours and add the closing checks.
grep -E '^(ok|not ok) [0-9]+ ' "$OUT/faultnth.raw" > /tmp/fnth.results
n=$(wc -l < /tmp/fnth.results)
grep -vE '^(ok|not ok) [0-9]+ |^1\.\.|^TAP version' "$OUT/faultnth.raw" > /tmp/fnth.diag
{ echo "TAP version 13"; cat "$OUT/faultnth.raw" | grep -vE '^1\.\.|^TAP version'; } > "$TAP"
bad=$(grep -c '^not ok' /tmp/fnth.results)
emit() { echo "$1" | tee -a "$TAP"; }

objects_zero() {
	[ -e $DBG/rds/objects ] || { echo "no $DBG/rds/objects"; return 1; }
	for _ in $(seq 300); do	# the namespace dies in a work item
		awk '$2 != 0 { bad = 1 } END { exit bad }' $DBG/rds/objects && return 0
		sleep 0.1
	done
	tr '\n' ' ' < $DBG/rds/objects
	return 1
}
n=$((n + 1))
if why=$(objects_zero); then
	emit "ok $n - fail-nth: every object count back to zero once the sockets and the namespace are gone"
else
	bad=$((bad + 1))
	emit "not ok $n - fail-nth: object counts after close: $why"
fi

n=$((n + 1))
unloaded=""
for m in rds_iwarp rds_rdma rds_tcp rds_loop rds; do
	[ -d /sys/module/$m ] || continue
	for _ in $(seq 50); do
		rmmod $m 2>/tmp/fnth.rmmod && break
		sleep 0.2
	done
	[ -d /sys/module/$m ] && unloaded="$unloaded $m($(tr '\n' ' ' < /tmp/fnth.rmmod))"
done
if [ -z "$unloaded" ]; then
	emit "ok $n - fail-nth: all our modules unload"
else
	bad=$((bad + 1))
	emit "not ok $n - fail-nth: modules still loaded:$unloaded"
fi

n=$((n + 1))
if scripts/check/kmemleak-check.sh "$OUT/faultnth-kmemleak.txt" > /tmp/fnth.kl 2>&1; then
	emit "ok $n - fail-nth: kmemleak: $(head -n 1 /tmp/fnth.kl)"
else
	bad=$((bad + 1))
	emit "not ok $n - fail-nth: kmemleak"
	sed 's/^/    # /' /tmp/fnth.kl | head -n 60 | tee -a "$TAP"
fi
for m in $MODS; do modprobe "$m"; done

# The sites are resolved on the host (scripts/check/fault-nth-sites.sh):
# addr2line under TCG takes minutes.
emit "1..$n"
inj=$(sed -nE 's/^# faultnth: .* ([0-9]+) fault\(s\) injected, ([0-9]+) survived.*/\1 injected, \2 survived cleanly/p' "$OUT/faultnth.raw")
echo "# fault-nth: failures ${inj:-unknown}; $elapsed s; $bad problem(s)"
[ "$bad" = 0 ]
