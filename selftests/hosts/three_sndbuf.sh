#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Item 4 of issue 25 between three hosts (scripts/vm/vmN.sh --hosts 3 runs
# this on all three): a dead peer must not stall a socket's sends to a
# live one. One socket on host a (SO_SNDBUF 256 KiB asked, 512 KiB
# granted) sends one message each to b and c; then c dies (frozen, or
# its link down: RDS_THREE_DEATHS), a fills what it may queue to c (16 KiB
# messages, non-blocking, until one is refused), then sends b 200 messages
# of 1 KiB, non-blocking, one every 10 ms, knocking at c every tenth.
# Asserted:
#   - a: at least 95% of the 200 sends to b are accepted (with one
#     SO_SNDBUF shared by every destination, as on main at f2a35c5 and on
#     Linux: about none once c's messages fill it);
#   - b: every accepted message arrives (within 10 s of the last send);
#   - c: once back (thawed, or its link up), everything a queued to it
#     arrives within 60 s.
# This is the per-destination send budget (SO_SNDBUF/2 per destination,
# a socket total and a destination cap): it fails until that lands.
# Over RDS/TCP and RDS/IB (rxe1 on wire0; RDS_THREE_TRANSPORTS). Host a
# must run ours (Linux's sender behaves as the old code: not run); b and
# c may run Linux's in-tree RDS (vmN.sh --impl-b intree: interop).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/wire.sh
. lib/rds_tools.sh
. lib/threehost.sh
three_begin three_sndbuf

checks() {	# TAG
	local tag=$1 n ok got
	case "$ROLE" in
	a)
		n=$(three_val "$tag" live_n) ok=$(three_val "$tag" live_accepted)
		tap_check "host a over $NAME, c $DEATH: with c's share full ($(three_val "$tag" dead_filled_bytes) B queued to it, SO_SNDBUF $(three_val "$tag" sndbuf)), >= 95% of $n non-blocking sends to live b accepted (${ok:-none})" \
			test $((${ok:-0} * 100)) -ge $((${n:-1} * 95))
		;;
	b)
		got=$(three_val "$tag" live_received)
		tap_check "host b over $NAME, c $DEATH: every message a's sendmsg() accepted arrives (${got:-none})" \
			test "${got:-x}" = "$(cat "$RDS_WIRE_DIR/a.$tag.count" 2>/dev/null)"
		;;
	c)
		got=$(three_val "$tag" dead_received)
		tap_check "host c over $NAME, $DEATH: back, it gets all a queued to it within 60 s (${got:-none})" \
			test "${got:-x}" = "$(cat "$RDS_WIRE_DIR/a.$tag.dead" 2>/dev/null)"
		;;
	esac
}

scenario() {	# TAG
	local tag=$1
	if ! three_party sndbuf "$tag" "$DEATH" > "$THREE_WORK/$tag.out"; then
		tap_not_ok "host $ROLE over $NAME, c $DEATH: its part ran"
		sed 's/^/# /' "$THREE_WORK/$tag.out"
		return
	fi
	tap_ok "host $ROLE over $NAME, c $DEATH: its part ran"
	sed 's/^/# /' "$THREE_WORK/$tag.out"
	checks "$tag"
}

if [ "${IMPL[a]}" != ours ]; then
	echo "1..0 # SKIP the sender a runs Linux's RDS: one SO_SNDBUF for every destination, as the old code"
	exit 0
fi
for TRANS in $TRANSPORTS; do
	case "$TRANS" in
	tcp) NAME="RDS/TCP" ;;
	ib) NAME="RDS/IB over rxe1" ;;
	*) tap_not_ok "transport '$TRANS' is tcp or ib"; continue ;;
	esac
	three_sync "sndbuf-$TRANS.load" || { tap_not_ok "host $ROLE: the others reached $TRANS"; break; }
	tap_check "host $ROLE: $NAME alone loaded" three_load "$TRANS"
	for DEATH in $(three_deaths "$TRANS"); do
		three_sync "sndbuf-$TRANS-$DEATH.start" ||
			{ tap_not_ok "host $ROLE: the others reached $TRANS, c $DEATH"; break 2; }
		scenario "sndbuf-$TRANS-$DEATH"
	done
done
three_sync sndbuf.end
tap_check "host $ROLE: the boot's modules back" three_restore
tap_done
