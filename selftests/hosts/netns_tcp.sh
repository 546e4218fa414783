#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS over TCP between two network namespaces of one guest, joined by a
# veth pair (selftests/lib/netns_pair.sh): pings and verified rds-stress
# sessions over IPv4 and IPv6, proof that they went over TCP, then the
# same over a lossy, duplicating, reordering, corrupting link (netem).
# Run it on either module set: RDS_IMPL (ours or intree, set by vm.sh)
# names the one that must be loaded, so one script compares both.
#
#	scripts/vm/vm.sh --intree -- RDS_SUITE=hosts selftests/run.sh netns
#
# RDS_WIRE_SECONDS: length of each rds-stress session (default 3);
# RDS_WIRE_SHORT=1: the short variant (no netem, no reverse ping).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/netns_pair.sh
. lib/rds_tools.sh
SECS=${RDS_WIRE_SECONDS:-3}
SHORT=${RDS_WIRE_SHORT:-0}
RDS_TOOLS_WORK=$(mktemp -d /tmp/rds-netns.XXXXXX)
RDS_STRESS_SUMMARY=$RDS_TOOLS_WORK/summary
trap 'netns_pair_down 2>/dev/null; rm -rf "$RDS_TOOLS_WORK"' EXIT
PORT=4700

listens_in_both() {
	local ns rc=0
	for ns in netns_a netns_b; do
		echo "$ns: $($ns ss -Hltn "sport = :$RDS_TCP_PORT")"
		[ -n "$($ns ss -Hltn "sport = :$RDS_TCP_PORT")" ] || rc=1
	done
	return "$rc"
}

# The link really drops and duplicates: netem's own counters moved.
netem_acted() {
	local s
	s=$(netns_a tc -s qdisc show dev rdsva)
	echo "$s"
	echo "$s" | grep -q netem &&
		echo "$s" | awk '/dropped/ { gsub(",", "", $7); d = $7 } END { exit !(d > 0) }'
}

# RDS is reliable across the loss of its transport connection: kill the
# TCP connections under a running session (ss -K, sock_diag destroy), and
# RDS must reconnect and carry on: every payload verified, each peer's
# requests and acks exactly once and in order (rds-stress -v counts
# duplicates and out_of_order), and traffic in the last seconds. Only
# established sockets: a killed listener would never come back. Linux
# 6.1's RDS/TCP has been seen to deliver a message twice after the kill
# (two runs in nine; Documentation/upstream-behaviour.rst, "RDS/TCP across
# a connection reset"): on the in-tree set, duplicates are reported and
# allowed when they are the only errors; a lost, reordered or corrupted
# message fails there too.
killed_midway() {
	local out=$RDS_TOOLS_WORK/reset killed arc rc=0
	rds_stress_serve "$NETNS_B_EXEC" "$out.passive" "$NETNS_B_IP" $((PORT + 50)) || return 1
	timeout 120 $NETNS_A_EXEC "$RDS_TOOLS/rds-stress" -s "$NETNS_B_IP" -r "$NETNS_A_IP" \
		-p $((PORT + 50)) -t 2 -d 4 -q 4096 -T 8 -v --json \
		> "$out.active" 2> "$out.active.err" &
	local apid=$!
	sleep 3
	killed=$(netns_a ss -K -Htn state established \
		"( sport = :$RDS_TCP_PORT or dport = :$RDS_TCP_PORT )")
	echo "killed: $killed"
	[ -n "$killed" ] || { echo "no TCP connection to kill"; rc=1; }
	wait "$apid"
	arc=$?
	echo "active exit $arc"
	cat "$out.active.err"
	wait "$RDS_STRESS_PID"
	echo "passive exit $?"
	python3 - "$out.active" "$out.passive" "${RDS_IMPL:-}" <<'PY' || rc=1
import json, sys
a = json.load(open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
intree = sys.argv[3] == "intree"
rows = [r["tx_per_s"] for r in a["intervals"]]
print("tx/s per second:", rows)
ok = len(rows) >= 6 and all(r > 0 for r in rows[-2:])
for side, d in (("active", a), ("passive", p)):
    print("%s: %s, %d out, %d in, %d verify errors (%d duplicates, %d out of order)"
          % (side, d["status"], d["messages_tx"], d["messages_rx"], d["verify_errors"],
             d["duplicates"], d["out_of_order"]))
    ok = ok and d["options"]["verify"] and d["messages_rx"] > 0
    if d["verify_errors"] == 0:
        ok = ok and d["status"] == "ok"
    elif intree and d["verify_errors"] == d["duplicates"]:
        print("%s: allowed on Linux's in-tree RDS: duplicates after a reset" % side)
    else:
        ok = False
sys.exit(0 if ok else 1)
PY
	netns_a ss -Htn state established "( sport = :$RDS_TCP_PORT or dport = :$RDS_TCP_PORT )"
	# A verification error makes rds-stress exit 1; the check above
	# decided whether that was allowed.
	[ "$rc" = 0 ] && { [ "$arc" = 0 ] || [ "$arc" = 1 ]; }
}

if [ "$SHORT" = 1 ]; then tap_plan 8; else tap_plan 16; fi
echo "# RDS under test: ${RDS_IMPL:-unset}; sessions of $SECS s"
tap_check "loaded module set is RDS_IMPL=${RDS_IMPL:-unset}" rds_impl_matches
tap_check "netns pair up: veth, 10.99.2.1/2 and fd99:2::1/2" netns_pair_up
tap_check "rds_tcp listens on $RDS_TCP_PORT in both namespaces" listens_in_both
tap_check "rds-ping A -> B over IPv4: 5 of 5" rds_ping_all "$NETNS_A_EXEC" 5 "$NETNS_B_IP"
tap_check "rds-ping A -> B over IPv6: 5 of 5" rds_ping_all "$NETNS_A_EXEC" 5 "$NETNS_B_IP6"
tap_check "rds-stress A -> B over IPv4: verified, messages both ways" \
	rds_stress_pair "$NETNS_B_EXEC" "$NETNS_A_EXEC" v4 "$PORT" "$NETNS_B_IP" "$NETNS_A_IP" \
	-t 2 -d 4 -q 4096 -a 64 -T "$SECS"
tap_check "rds-stress A -> B over IPv6: verified, messages both ways" \
	rds_stress_pair "$NETNS_B_EXEC" "$NETNS_A_EXEC" v6 $((PORT + 10)) "$NETNS_B_IP6" "$NETNS_A_IP6" \
	-t 2 -d 4 -q 4096 -a 64 -T "$SECS"
tap_check "the IPv4 messages went over TCP (rds-info -n, established socket)" \
	rds_tcp_conn "$NETNS_A_EXEC" "$NETNS_A_IP" "$NETNS_B_IP"
if [ "$SHORT" != 1 ]; then
	tap_check "the IPv6 messages went over TCP (rds-info -n, established socket)" \
		rds_tcp_conn "$NETNS_A_EXEC" "$NETNS_A_IP6" "$NETNS_B_IP6"
	tap_check "rds-ping B -> A over IPv4 (the other direction): 5 of 5" \
		rds_ping_all "$NETNS_B_EXEC" 5 "$NETNS_A_IP"
	tap_check "rds-stress B -> A, 64 KiB requests: verified" \
		rds_stress_pair "$NETNS_A_EXEC" "$NETNS_B_EXEC" big "$((PORT + 20))" "$NETNS_A_IP" "$NETNS_B_IP" \
		-t 1 -d 4 -q 65536 -a 256 -T "$SECS"
	tap_check "rds-stress survives its TCP connection being killed midway (ss -K): verified, traffic after" \
		killed_midway
	tap_check "netem on both ends: ${RDS_NETEM_LOSSY[*]}" \
		netns_pair_netem "${RDS_NETEM_LOSSY[@]}"
	tap_check "rds-stress over the lossy link, IPv4: verified" \
		rds_stress_pair "$NETNS_B_EXEC" "$NETNS_A_EXEC" lossy4 $((PORT + 30)) "$NETNS_B_IP" "$NETNS_A_IP" \
		-t 2 -d 8 -q 16384 -a 64 -T "$SECS"
	tap_check "rds-stress over the lossy link, IPv6: verified" \
		rds_stress_pair "$NETNS_B_EXEC" "$NETNS_A_EXEC" lossy6 $((PORT + 40)) "$NETNS_B_IP6" "$NETNS_A_IP6" \
		-t 2 -d 8 -q 16384 -a 64 -T "$SECS"
	tap_check "netem dropped packets on the way (the lossy runs were lossy)" netem_acted
fi
tap_check "netns pair down" netns_pair_down
sed 's/^/# /' "$RDS_STRESS_SUMMARY" 2>/dev/null
tap_done
