#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Liveness of a quiet RDS/IB connection (issue 27, item 3;
# Documentation/transports.rst, "Liveness"): two guests, rxe1 on wire0
# (scripts/vm/vm2.sh --rdma or vmN.sh --rdma runs this on both). The
# watcher is host a if it runs our RDS, else host b; the other host is the
# one that hangs. Either may run Linux's rds_rdma (RDS_IMPL):
#
#   quiet  the connection is up and carries nothing for RDS_LIVE_QUIET
#          seconds: the watcher sends heartbeats (ib_heartbeat_sent) and
#          neither host resets anything (conn_reset), then pings go both
#          ways. Against Linux, that is the proof it ignores them.
#   hung   the watcher freezes its peer (QEMU's stop) while the
#          connection is quiet: it must drop the connection within
#          RDS_LIVE_BOUND seconds, for a liveness timeout (its lane's
#          history). It then queues SENDERS x MSGS SHA-checked messages
#          from sockets that close at once, and thaws the peer
#          RDS_LIVE_FREEZE seconds after the freeze: the peer must have
#          every message once, in order, intact, within RDS_LIVE_RECOVER
#          seconds of the thaw.
#   off    (not in the short run) the same freeze with the watcher's
#          net.rds.ib.heartbeat_ms at 0: nothing notices within the bound
#          (Linux's behaviour, what "hung" fails on without heartbeats);
#          after the thaw the connection carries pings again.
#
# RDS_WIRE_SHORT=1 (make check): quiet and hung with a 12 s freeze.
# Outside a two-host guest with rxe1, or with Linux on both, it skips.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/wire.sh
. lib/rds_tools.sh
. lib/wirecheck.sh
. lib/twohost.sh
SHORT=${RDS_WIRE_SHORT:-0}
PERIOD_MS=2000
QUIET=${RDS_LIVE_QUIET:-9}
BOUND=${RDS_LIVE_BOUND:-12}
FREEZE=${RDS_LIVE_FREEZE:-$([ "$SHORT" = 1 ] && echo 12 || echo 30)}
RECOVER=${RDS_LIVE_RECOVER:-30}
SENDERS=2
MSGS=${RDS_LIVE_MSGS:-6}
WC=$PWD/wirecheck/rds-wirecheck
T=$RDS_TOOLS
PORT=6900
R_HB_TIMEOUT=6
twohost_begin liveness-ib

if ! rdma link show rxe1/1 2>/dev/null | grep -q "netdev wire0"; then
	echo "1..0 # SKIP no rxe1 on wire0 (scripts/vm/vm2.sh --rdma)"
	exit 0
fi
wire_mark "impl-${RDS_IMPL:-unset}"
PEER_IMPL=$(peer_impl) || { echo "1..0 # SKIP the peer never said its module set"; exit 0; }
if [ "${RDS_IMPL:-}" = ours ] && { [ "$ROLE" = a ] || [ "$PEER_IMPL" != ours ]; }; then
	WATCHER=1
elif [ "$PEER_IMPL" = ours ]; then
	WATCHER=0
else
	echo "1..0 # SKIP Linux's RDS on both hosts (no heartbeats)"
	exit 0
fi

# rds_rdma alone (rds_tcp would hold the IPv6 listener's port), what
# was loaded kept for the end.
MODS_BEFORE=$(awk '/^rds/ { print $1 }' /proc/modules | tr '\n' ' ')
ib_alone() {
	local m
	for m in rds_iwarp rds_tcp; do
		if loaded $m; then rmmod $m || return 1; fi
	done
	loaded rds_rdma || modprobe rds_rdma || return 1
	if [ "$WATCHER" = 1 ]; then
		sysctl -w net.rds.ib.heartbeat_ms=$PERIOD_MS || return 1
	fi
	rds_impl_matches rds_rdma
}

established() {	# NAME
	wire_mark "$1"
	wire_wait "$1" 120 && rds_ping_all "" 3 "$RDS_WIRE_PEER"
}

# Nothing carried for QUIET seconds: heartbeats counted on ours, no reset
# on either host.
quiet() {
	local resets hb0 hb
	resets=$(rds_counter conn_reset)
	hb0=$(rds_counter ib_heartbeat_sent)
	sleep "$QUIET"
	hb=$(rds_counter ib_heartbeat_sent)
	echo "heartbeats sent in $QUIET s: $((hb - hb0)); conn_reset $resets -> $(rds_counter conn_reset)"
	[ "$(rds_counter conn_reset)" = "$resets" ] || return 1
	[ "${RDS_IMPL:-}" != ours ] || [ $((hb - hb0)) -ge 2 ]
}

# The hung side: bound before the freeze, it has everything by the end.
hung_recv() {	# NAME
	local name=$1 out=$RDS_TOOLS_WORK/$1.recv pid rc
	"$WC" recv "$RDS_WIRE_SELF" "$PORT" "$SENDERS" "$MSGS" \
		$((FREEZE + RECOVER + 120)) > "$out" 2>&1 &
	pid=$!
	wirecheck_wait_ready "$out" $pid 30 || { kill $pid; return 1; }
	wire_mark "$name.ready"
	wait $pid
	rc=$?
	wire_mark "$name.done"
	cat "$out"
	[ "$rc" = 0 ] && return 0
	wirecheck_counters - receiver
	return 1
}

now_ms() { date +%s%3N; }

# The lane to the peer as rds_paths.py prints it (see there).
peer_lane() {
	python3 lib/rds_paths.py -4 | awk -v p="$RDS_WIRE_PEER" '$2 == p && $4 == "infiniband"'
}

# The watcher: freeze the peer, time the drop, queue and close, thaw.
hung_watch() {	# NAME
	local name=$1 resets t0 t rc=0 i pids=() lane
	wire_wait "$name.ready" 180 || return 1
	resets=$(rds_counter conn_reset)
	wire_ctl peer stop || return 1
	t0=$(now_ms)
	while [ "$(rds_counter conn_reset)" = "$resets" ] &&
	      [ $(($(now_ms) - t0)) -lt $(((BOUND + 20) * 1000)) ]; do
		sleep 0.2
	done
	t=$(($(now_ms) - t0))
	echo "the connection dropped $((t / 1000)).$(((t % 1000) / 100)) s after the peer froze (bound $BOUND s)" |
		tee "$RDS_TOOLS_WORK/$name.detect"
	[ "$t" -le $((BOUND * 1000)) ] || rc=1
	lane=$(peer_lane)
	echo "lane: $lane"
	echo "$lane" | awk -v r=$R_HB_TIMEOUT '$15 == r { ok = 1 } END { exit !ok }' ||
		{ echo "its last reset was not for a liveness timeout ($R_HB_TIMEOUT)"; rc=1; }
	for ((i = 0; i < SENDERS; i++)); do
		WC_EXIT=1 "$WC" send "$RDS_WIRE_SELF" "$RDS_WIRE_PEER" "$PORT" "$i" \
			"$MSGS" > "$RDS_TOOLS_WORK/$name.send$i" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	cat "$RDS_TOOLS_WORK/$name".send*
	t=$((FREEZE * 1000 - ($(now_ms) - t0)))
	[ "$t" -gt 0 ] && sleep "$((t / 1000)).$((t % 1000 / 100))"
	wire_ctl peer cont || return 1
	t0=$SECONDS
	wire_wait "$name.done" $((RECOVER + 60)) || rc=1
	echo "the peer had every message $((SECONDS - t0)) s after it thawed (bound $RECOVER s)" |
		tee -a "$RDS_TOOLS_WORK/$name.detect"
	[ $((SECONDS - t0)) -le "$RECOVER" ] || rc=1
	"$T/rds-info" -c 2>/dev/null | awk '/heartbeat|conn_reset|connect_timeout/'
	return $rc
}

# Heartbeats off: a frozen peer goes unnoticed for the bound.
off_watch() {	# NAME
	local name=$1 resets rc=0
	wire_wait "$name.ready" 180 || return 1
	sysctl -qw net.rds.ib.heartbeat_ms=0 || return 1
	resets=$(rds_counter conn_reset)
	wire_ctl peer stop || return 1
	sleep $((BOUND + 2))
	echo "conn_reset $resets -> $(rds_counter conn_reset) in $((BOUND + 2)) s with heartbeats off"
	[ "$(rds_counter conn_reset)" = "$resets" ] || rc=1
	wire_ctl peer cont || rc=1
	sysctl -qw net.rds.ib.heartbeat_ms=$PERIOD_MS || rc=1
	wire_mark "$name.thawed"
	return $rc
}

restore() {
	local m
	# shellcheck disable=SC2086
	modprobe -a $MODS_BEFORE || return 1
	for m in $MODS_BEFORE; do
		loaded "$m" || return 1
	done
}

echo "# host $ROLE ($RDS_IMPL, peer $PEER_IMPL): watcher $WATCHER; heartbeat ${PERIOD_MS} ms, bound $BOUND s, freeze $FREEZE s"
tap_check "host $ROLE: rds_rdma alone on rxe1" ib_alone
tap_check "host $ROLE: the connection is up (pings both ways)" established live.up
tap_check "host $ROLE: $QUIET s of a quiet connection: no reset$([ "${RDS_IMPL:-}" = ours ] && echo ', heartbeats sent')" quiet
tap_check "host $ROLE: pings both ways after the quiet time" established live.quiet
if [ "$WATCHER" = 1 ]; then
	tap_check "host $ROLE freezes its peer: the quiet connection drops within $BOUND s for a liveness timeout; messages queued meanwhile arrive within $RECOVER s of the thaw" \
		hung_watch live.hung
	sed 's/^/# /' "$RDS_TOOLS_WORK/live.hung.detect" 2>/dev/null
else
	tap_check "host $ROLE, frozen for $FREEZE s: $SENDERS closed sockets x $MSGS messages delivered once, in order, intact" \
		hung_recv live.hung
fi
if [ "$SHORT" != 1 ]; then
	tap_check "host $ROLE: the connection is up again (pings both ways)" established live.again
	if [ "$WATCHER" = 1 ]; then
		tap_check "host $ROLE: with heartbeats off a frozen peer goes unnoticed for $((BOUND + 2)) s" off_watch live.off
	else
		wire_mark live.off.ready
		tap_check "host $ROLE: thawed after the heartbeat-off freeze" wire_wait live.off.thawed 120
	fi
	tap_check "host $ROLE: the connection carries pings after the thaw" established live.after
fi
tap_check "host $ROLE: the boot's modules back ($MODS_BEFORE)" restore
tap_done
