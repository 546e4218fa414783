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
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/run/out}
DBG=/sys/kernel/debug
TAP=$OUT/faultnth.tap
SITES=$OUT/faultnth-sites.txt
# CI's short round: one call of each kind (socket, bind, connect, send
# with each cmsg family, receive with notifications, MRs, info, close,
# namespaces); the full round runs the whole corpus and the module loads.
SHORT="socket bind_v4_ephemeral bind_v6_port connect_v4 sendmsg_small_v4
sendmsg_rdma_write sendmsg_rdma_map sendmsg_atomic_fadd
recvmsg_rdma_notification setsockopt_get_mr setsockopt_free_mr
getsockopt_rds_info_sockets close_busy_socket unshare_netns_socket"
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
	local i
	[ -e $DBG/rds/objects ] || { echo "no $DBG/rds/objects"; return 1; }
	for i in $(seq 300); do	# the namespace dies in a work item
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
	for i in $(seq 50); do
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
if scripts/kmemleak-check.sh "$OUT/faultnth-kmemleak.txt" > /tmp/fnth.kl 2>&1; then
	emit "ok $n - fail-nth: kmemleak: $(head -n 1 /tmp/fnth.kl)"
else
	bad=$((bad + 1))
	emit "not ok $n - fail-nth: kmemleak"
	sed 's/^/    # /' /tmp/fnth.kl | head -n 60 | tee -a "$TAP"
fi
for m in $MODS; do modprobe "$m"; done

# ---- sites -----------------------------------------------------------------
# The allocation calls in the source: file:line name.
ALLOC='(kmalloc|kzalloc|kcalloc|kmalloc_array|kvmalloc|kvmalloc_array|kvzalloc|kvcalloc|kmemdup|kstrdup|krealloc|alloc_percpu|__alloc_percpu|sk_alloc|sock_kmalloc|xa_insert|xa_alloc|xa_alloc_cyclic|xa_store|rhashtable_[a-z_]*insert[a-z_]*|rhashtable_init|rhltable_init|alloc_pages?|__get_free_pages?|get_zeroed_page|kmem_cache_alloc|kmem_cache_zalloc|kmem_cache_create|pin_user_pages[a-z_]*|get_user_pages[a-z_]*|idr_alloc[a-z_]*|ida_alloc[a-z_]*|sg_alloc_table[a-z_]*|alloc_workqueue|alloc_ordered_workqueue|register_pernet_[a-z]+|vmalloc|vzalloc|alloc_skb|sock_alloc_send_[a-z]+|proto_register|sock_register|register_net_sysctl[a-z_]*)[[:space:]]*\('
# Calls only: indented (a definition starts in column 0), not in a
# comment, and not a longer name (unpin_user_pages, unregister_*).
grep -rnE "(^|[^a-zA-Z0-9_])$ALLOC" net transports --include=*.c |
	grep -E '^[^:]+:[0-9]+:[[:space:]]' |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' |
	sed -E "s/^([^:]+:[0-9]+):(.*[^a-zA-Z0-9_])?$ALLOC.*/\1 \3/" |
	awk '{ print $1, $2 }' | sort -t: -k1,1 -k2,2n -u > /tmp/fnth.alloc

# A hit "func+0xoff/0xsize" in MODULE: its source line, through the
# module's debug info (addr2line -i: the first frame of ours, inlined
# helpers unwound), else the function name alone.
ko_of() {
	case "$1" in
	rds) echo net/rds.ko ;;
	rds_loop) echo transports/loop/rds_loop.ko ;;
	rds_tcp) echo transports/tcp/rds_tcp.ko ;;
	rds_rdma) echo transports/ib/rds_rdma.ko ;;
	rds_iwarp) echo transports/iwarp/rds_iwarp.ko ;;
	esac
}
resolve() {	# MODULE FUNC+0xOFF/0xSIZE
	local ko fn off sec val loc
	ko=$(ko_of "$1")
	fn=${2%%+*}
	off=${2#*+}
	off=${off%%/*}
	read -r sec val < <(readelf -sW "$ko" 2>/dev/null |
		awk -v f="$fn" '$8 == f && $4 == "FUNC" { print $7, $2; exit }')
	if [ -n "${sec:-}" ]; then
		sec=$(readelf -SW "$ko" | sed -nE "s/^ *\[ *$sec\] ([^ ]+) .*/\1/p")
		loc=$(addr2line -i -e "$ko" -j "$sec" \
			"$(printf '0x%x' $((0x$val + off - 1)))" 2>/dev/null |
			sed -nE 's@.*/((net|transports)/[^/]+(/[^/]+)?\.[ch]):([0-9]+).*@\1:\4@p' |
			head -n 1)
	fi
	echo "${loc:-$fn}"
}
awk '{ print $3, $4 }' "$SITES" | sort -u | while read -r mod fn; do
	echo "$(resolve "$mod" "$fn") $mod $fn"
done | sort -u > /tmp/fnth.hits
# A hit within three lines after an allocation call's first line is that
# call (a call spanning lines returns to its last one).
awk 'NR == FNR { split($1, a, ":"); hit[a[1]] = hit[a[1]] " " a[2]; next }
	{
		split($1, a, ":"); found = 0
		n = split(hit[a[1]], l, " ")
		for (i = 1; i <= n; i++)
			if (l[i] >= a[2] && l[i] <= a[2] + 3) found = 1
		print (found ? "hit" : "missed"), $1, $2
	}' /tmp/fnth.hits /tmp/fnth.alloc > /tmp/fnth.cover
x=$(grep -c '^hit' /tmp/fnth.cover)
y=$(wc -l < /tmp/fnth.cover)
cp /tmp/fnth.cover "$OUT/faultnth-coverage.txt"
cp /tmp/fnth.hits "$OUT/faultnth-hits.txt"
inj=$(sed -nE 's/^# faultnth: .* ([0-9]+) fault\(s\) injected, ([0-9]+) survived.*/\1 injected, \2 survived cleanly/p' "$OUT/faultnth.raw")
echo "# fail-nth sites: hit $x of $y allocation calls in net/ and transports/"
sed -n 's/^missed /#   missed: /p' /tmp/fnth.cover
awk '{ print "#   hit at: " $0 }' /tmp/fnth.hits | head -n 80
emit "1..$n"
echo "# fault-nth: sites hit $x of $y; failures ${inj:-unknown}; $elapsed s; $bad problem(s)"
[ "$bad" = 0 ]
