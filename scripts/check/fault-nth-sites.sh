#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of the fail-nth round: which allocation calls in net/ and
# transports/ had a failure injected? SITES (written by fault-nth.sh in
# the guest) has one line per injected failure whose stack has a frame of
# ours: "CALL N MODULE FUNC+0xOFF/0xSIZE", the first such frame. Each is
# resolved to a source line through the module's debug info (addr2line
# -i, so inlined helpers unwind to the line that calls the allocator; the
# function name alone without -g) and compared with the allocation calls
# found in the source. Prints "sites hit X of Y", the missed ones and the
# hits; writes the table to COVERAGE.
#
#	fault-nth-sites.sh SITES [COVERAGE]   run from the tree the modules
#	                                      were built in
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO"
SITES=$1
COVER=${2:-/dev/null}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The allocation calls in the source: file:line name.
ALLOC='(kmalloc|kzalloc|kcalloc|kmalloc_array|kvmalloc|kvmalloc_array|kvzalloc|kvcalloc|kmemdup|kstrdup|krealloc|alloc_percpu|__alloc_percpu|sk_alloc|sock_kmalloc|xa_insert|xa_alloc|xa_alloc_cyclic|xa_store|rhashtable_[a-z_]*insert[a-z_]*|rhashtable_init|rhltable_init|alloc_pages?|__get_free_pages?|get_zeroed_page|kmem_cache_alloc|kmem_cache_zalloc|kmem_cache_create|pin_user_pages[a-z_]*|get_user_pages[a-z_]*|idr_alloc[a-z_]*|ida_alloc[a-z_]*|sg_alloc_table[a-z_]*|alloc_workqueue|alloc_ordered_workqueue|register_pernet_[a-z]+|vmalloc|vzalloc|alloc_skb|sock_alloc_send_[a-z]+|proto_register|sock_register|register_net_sysctl[a-z_]*)[[:space:]]*\('
# Calls only: indented (a definition starts in column 0), not in a
# comment, and not a longer name (unpin_user_pages, unregister_*).
grep -rnE "(^|[^a-zA-Z0-9_])$ALLOC" net transports --include=*.c |
	grep -E '^[^:]+:[0-9]+:[[:space:]]' |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' |
	sed -E "s/^([^:]+:[0-9]+):(.*[^a-zA-Z0-9_])?$ALLOC.*/\1 \3/" |
	awk '{ print $1, $2 }' | sort -t: -k1,1 -k2,2n -u > $tmp/alloc

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
		awk -v f="$fn" '$8 == f && $4 == "FUNC" { print $7, $2; exit }') || true
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
done | sort -u > $tmp/hits
# A hit within three lines after an allocation call's first line is that
# call (a call spanning lines returns to its last one).
awk 'NR == FNR { split($1, a, ":"); hit[a[1]] = hit[a[1]] " " a[2]; next }
	{
		split($1, a, ":"); found = 0
		n = split(hit[a[1]], l, " ")
		for (i = 1; i <= n; i++)
			if (l[i] >= a[2] && l[i] <= a[2] + 3) found = 1
		print (found ? "hit" : "missed"), $1, $2
	}' $tmp/hits $tmp/alloc > $tmp/cover
x=$(grep -c "^hit" "$tmp/cover" || true)
y=$(wc -l < $tmp/cover)
cp "$tmp/cover" "$COVER"
echo "# fail-nth: sites hit $x of $y allocation calls in net/ and transports/"
sed -n 's/^missed /#   missed: /p' $tmp/cover
awk '{ print "#   hit at: " $0 }' $tmp/hits | head -n 80
