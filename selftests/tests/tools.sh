#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user-space tools (tools/rds-stress, rds-ping, rds-info) against
# whichever RDS is loaded: ours, or Linux's in-tree one (check.sh runs this
# file in a second boot with `vm.sh --intree`). Bad command lines need no
# kernel and must fail cleanly everywhere. While our rds.ko cannot bind a
# socket yet, the tests that need a data path are skipped with that reason;
# against any other RDS they run and must pass.
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
# shellcheck disable=SC2034 # netns_pair.sh's names
NETNS_A=tools-a NETNS_B=tools-b
. lib/netns_pair.sh
REPO=$(cd .. && pwd)
T=$REPO/tools
WORK=$(mktemp -d /tmp/rds-tools-test.XXXXXX)
trap 'rm -rf "$WORK"; [ -n "$NETNS_UP" ] && netns_pair_down' EXIT
NETNS_UP=
PORT=4600

# usage_fails DESC TOOL ARGS...: exit status 2, a message naming the tool
# and a pointer to --help, and nothing on stdout.
usage_fails() {
	local out err rc
	out=$("$@" 2>"$WORK/err")
	rc=$?
	err=$(cat "$WORK/err")
	echo "exit $rc; stderr: $err"
	[ "$rc" = 2 ] && [ -z "$out" ] && [[ "$err" == *"$(basename "$1"): "* ]] &&
		[[ "$err" == *"--help"* ]]
}

impl() {	# "ours" if the loaded rds.ko is out-of-tree, else "in-tree"
	if grep -q O /sys/module/rds/taint 2>/dev/null; then echo ours; else echo in-tree; fi
}

# Can a socket of the loaded RDS be bound? Prints the error if not.
bind_works() {
	python3 - <<'PY'
import socket, sys
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
try:
    s.bind(("127.0.0.1", 0))
except OSError as e:
    print(e.strerror)
    sys.exit(3)
PY
}

# stress_pair NAME PASSIVE-ARGS -- ACTIVE-ARGS: run both sides, keep the
# output in $WORK/NAME.{passive,active}; succeed if both exit 0.
stress_pair() {
	local name=$1 prc arc
	shift
	local pargs=() aargs=()
	while [ "$1" != -- ]; do pargs+=("$1"); shift; done
	shift
	aargs=("$@")
	timeout 60 "$T/rds-stress" "${pargs[@]}" > "$WORK/$name.passive" 2>&1 &
	local ppid=$!
	timeout 60 "$T/rds-stress" "${aargs[@]}" > "$WORK/$name.active" 2>"$WORK/$name.active.err"
	arc=$?
	wait "$ppid"
	prc=$?
	echo "active exit $arc, passive exit $prc"
	echo "--- active:"; cat "$WORK/$name.active" "$WORK/$name.active.err"
	echo "--- passive:"; cat "$WORK/$name.passive"
	[ "$arc" = 0 ] && [ "$prc" = 0 ]
}

stress_loop_verify() {
	stress_pair loop -r 127.0.0.1 -p $PORT -- \
		-r 127.0.0.1 -s 127.0.0.1 -p $PORT -t 2 -d 4 -q 1024 -a 128 -T 3 -v || return 1
	grep -q '(average)' "$WORK/loop.active" || { echo "no average row"; return 1; }
	grep -q 'tsks.*tx/s.*rx/s.*tx+rx K/s.*mbi K/s.*mbo K/s.*tx us/c.*rtt us.*cpu %' \
		"$WORK/loop.active" || { echo "no column header"; return 1; }
	# Some traffic must have flowed: the average tx/s is not zero.
	awk '/\(average\)/ { exit !($2 > 0) }' "$WORK/loop.active"
}

stress_json() {
	stress_pair json -p $((PORT + 100)) -- \
		-s 127.0.0.1 -p $((PORT + 100)) -t 1 -d 2 -q 256 -a 64 -T 2 -v --json || return 1
	python3 - "$WORK/json.active" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "ok", d
assert d["verify_errors"] == 0, d
assert len(d["intervals"]) >= 2, d["intervals"]
assert d["average"]["tx_per_s"] > 0, d["average"]
assert d["messages_rx"] > 0, d
print("json ok:", d["average"])
PY
}

stress_one_way_tos() {
	stress_pair oneway -p $((PORT + 200)) -- \
		-s 127.0.0.1 -p $((PORT + 200)) -t 3 -d 2 -o -T 2 -z -v || return 1
	! grep -q '^ *[0-9].*[0-9]$' <(grep -v average "$WORK/oneway.active") ||
		{ echo "-z printed per-second rows"; return 1; }
}

# SO_RDS_TRANSPORT: pin the sockets to TCP between two local addresses.
stress_transport_tcp() {
	modprobe rds_tcp || return 1
	stress_pair tcp -r 10.99.0.2 -p $((PORT + 300)) -- \
		-r 10.99.0.1 -s 10.99.0.2 -p $((PORT + 300)) --transport tcp -Q 1 -t 2 -d 2 -T 2 -v
}

# RDMA over loop: Linux's loopback cannot register memory, so the tool
# must say so and exit 3 rather than fake numbers; ours carries RDMA over
# loopback, so a verified read/write session must pass.
stress_rdma_loop() {
	local rc
	timeout 60 "$T/rds-stress" -p $((PORT + 400)) > "$WORK/rdma.passive" 2>&1 &
	timeout 60 "$T/rds-stress" -s 127.0.0.1 -p $((PORT + 400)) -D 4096 -T 1 -v \
		> "$WORK/rdma.active" 2>&1
	rc=$?
	wait
	cat "$WORK/rdma.active"
	if [ "$IMPL" = ours ]; then
		[ "$rc" = 0 ]
	else
		[ "$rc" = 3 ] && grep -q "not supported by this kernel" "$WORK/rdma.active"
	fi
}

# --rdma-alignment 7: RDMA buffers 7 bytes past a page (rds-tools'
# unaligned-RDMA test), told to the passive side too; verified on ours,
# unsupported (exit 3) on Linux's loopback as plain -D.
stress_rdma_unaligned() {
	stress_split align -p $((PORT + 450)) --json -- -s 127.0.0.1 -p $((PORT + 450)) \
		-D 5000 --rdma-alignment 7 -T 1 -v --json
	if [ "$IMPL" != ours ]; then
		[ "$SPLIT_ARC" = 3 ]
		return
	fi
	[ "$SPLIT_ARC" = 0 ] || return 1
	python3 - "$WORK/align" <<'PY'
import json, sys
for side in ("active", "passive"):
    d = json.load(open(sys.argv[1] + "." + side))
    print(side, d["status"], d["options"], d["average"], d["verify_errors"])
    assert d["status"] == "ok" and d["options"]["rdma_alignment"] == 7, d
    assert d["verify_errors"] == 0 and d["messages_rx"] > 0, d
PY
}

ping_loop() {
	local out
	out=$(timeout 60 "$T/rds-ping" -c 3 -i 0.2 127.0.0.1) || { echo "$out"; return 1; }
	echo "$out"
	[ "$(echo "$out" | grep -c '^ *[0-9]*: [0-9]* usec$')" = 3 ]
}

ping_source() {
	local out
	out=$(timeout 60 "$T/rds-ping" -c 2 -i 0.1 -I 127.0.0.1 127.0.0.1) ||
		{ echo "$out"; return 1; }
	echo "$out"
	echo "$out" | grep -q '2 sent, 2 received'
}

# Loop has no type-of-service map: -Q there is a clear error, not a hang.
# Linux's loopback has no TOS map and refuses -Q; ours carries TOS on
# loopback too, so the ping must then work.
ping_tos_on_loop() {
	local out rc
	out=$(timeout 60 "$T/rds-ping" -c 1 -Q 2 127.0.0.1 2>&1)
	rc=$?
	echo "exit $rc: $out"
	if [ "$(impl)" = ours ]; then
		[ "$rc" = 0 ] && [[ "$out" == *"1 received"* ]]
	else
		[ "$rc" = 1 ] &&
			[[ "$out" == *"type of service -Q 2 is not supported"* ]]
	fi
}

# -a (rds-tools 2.3.4's): the IPv6 tables alone, IPv4 entries v4-mapped.
info_all_v6() {
	python3 - "$T/rds-info" <<'PY'
import socket, subprocess, sys
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
s.bind(("127.0.0.1", 4778))
out = subprocess.run([sys.argv[1], "-a", "-k"], capture_output=True, text=True).stdout
print(out)
rows = [l.split() for l in out.splitlines()]
ok = any(r[:2] == ["::ffff:127.0.0.1", "4778"] for r in rows)
sys.exit(0 if ok and "\nSockets:" not in out and "IPv6 sockets" in out else 1)
PY
}

# Sockets rds-info -k lists bound to ADDRESS (its own one excluded).
sockets_on() {
	"$T/rds-info" -k | awk -v a="$1" '$1 == a && $2 != 0 { n++ } END { print n + 0 }'
}

# -n N: the pings take turns on N sockets, so N are bound while it runs
# (the default, one, is what the other ping tests use), and every ping is
# answered (with -i 0 up to N are in flight at once).
ping_sockets() {
	local out pid base seen
	base=$(sockets_on 127.0.0.1)
	timeout 60 "$T/rds-ping" -n 5 -c 12 -i 0.1 127.0.0.1 > "$WORK/ping-n5" &
	pid=$!
	sleep 0.5
	seen=$(sockets_on 127.0.0.1)
	wait $pid || { cat "$WORK/ping-n5"; return 1; }
	echo "-n 5: $((seen - base)) sockets bound while running"
	grep -q '^12 sent, 12 received' "$WORK/ping-n5" || { cat "$WORK/ping-n5"; return 1; }
	[ $((seen - base)) = 5 ] || return 1
	out=$(timeout 60 "$T/rds-ping" -n 4 -i 0 -c 40 127.0.0.1) || { echo "$out"; return 1; }
	[ "$(echo "$out" | grep -c '^ *[0-9]*: [0-9]* usec$')" = 40 ] || { echo "$out"; return 1; }
}

# stress_split NAME PASSIVE-ARGS -- ACTIVE-ARGS: like stress_pair, with
# stdout and stderr of each side in $WORK/NAME.{passive,active}{,.err}
# and the active side's exit status in SPLIT_ARC.
stress_split() {
	local name=$1 prc arc
	shift
	local pargs=()
	while [ "$1" != -- ]; do pargs+=("$1"); shift; done
	shift
	timeout 60 "$T/rds-stress" "${pargs[@]}" > "$WORK/$name.passive" 2>"$WORK/$name.passive.err" &
	local ppid=$!
	timeout 60 "$T/rds-stress" "$@" > "$WORK/$name.active" 2>"$WORK/$name.active.err"
	arc=$?
	wait "$ppid"
	prc=$?
	SPLIT_ARC=$arc
	echo "active exit $arc, passive exit $prc"
	tail -n 5 "$WORK/$name.active.err" "$WORK/$name.passive.err"
	[ "$arc" = 0 ] && [ "$prc" = 0 ]
}

# --show-outliers USEC: one "Found RTT = 0x..." line on stderr per ack
# slower than USEC, as many as the JSON counts; none above 4000 s.
stress_outliers() {
	stress_split outl -p $((PORT + 600)) --json --show-outliers 4000000000 -- \
		-s 127.0.0.1 -p $((PORT + 600)) -d 2 -T 1 --json --show-outliers 0 || return 1
	python3 - "$WORK/outl" <<'PY'
import json, re, sys
w = sys.argv[1]
for side, want_some in (("active", True), ("passive", False)):
    d = json.load(open(w + "." + side))
    lines = [l for l in open(w + "." + side + ".err") if l.startswith("Found RTT")]
    assert all(re.fullmatch(r"Found RTT = 0x[0-9a-f]+\n", l) for l in lines), lines[:3]
    print(side, "outliers", d.get("outliers"), "lines", len(lines))
    assert d["outliers"] == len(lines), (d["outliers"], len(lines))
    assert (len(lines) > 0) == want_some
PY
}

# --connect-retries 0: a refused control connection fails at once (the
# default retries for 10 s); 3: waits, a second apart, for a late passive.
stress_connect_retries() {
	local t0 rc
	t0=$(date +%s)
	timeout 60 "$T/rds-stress" -s 127.0.0.1 -p $((PORT + 700)) --connect-retries 0 -T 1 \
		> /dev/null 2> "$WORK/retry0.err"
	rc=$?
	cat "$WORK/retry0.err"
	[ "$rc" = 1 ] && [ $(($(date +%s) - t0)) -lt 5 ] &&
		! grep -q retrying "$WORK/retry0.err" || return 1
	(sleep 1.2; exec timeout 60 "$T/rds-stress" -p $((PORT + 700)) > "$WORK/retry3.passive" 2>&1) &
	timeout 60 "$T/rds-stress" -s 127.0.0.1 -p $((PORT + 700)) --connect-retries 3 -T 1 -z \
		> "$WORK/retry3.active" 2> "$WORK/retry3.err"
	rc=$?
	wait
	cat "$WORK/retry3.active" "$WORK/retry3.err"
	[ "$rc" = 0 ] && grep -q 'retrying (1 of 3)' "$WORK/retry3.err"
}

# --async: every request and ack goes with RDS_CMSG_ASYNC_SEND; each
# side reports as many SUCCESS notifications as it sent messages. Linux's
# RDS refuses the control message: the run says so and exits 3.
stress_async() {
	if [ "$IMPL" != ours ]; then
		stress_split async -p $((PORT + 800)) -- \
			-s 127.0.0.1 -p $((PORT + 800)) -T 2 --async
		[ "$SPLIT_ARC" = 3 ] && grep -q RDS_CMSG_ASYNC_SEND "$WORK/async.active.err"
		return
	fi
	stress_split async -p $((PORT + 800)) --json -- \
		-s 127.0.0.1 -p $((PORT + 800)) -t 2 -d 4 -T 1 -v --async --json || return 1
	python3 - "$WORK/async" <<'PY'
import json, sys
for side in ("active", "passive"):
    d = json.load(open(sys.argv[1] + "." + side))
    a = d["async"]
    print(side, "messages_tx", d["messages_tx"], "async", a)
    assert d["status"] == "ok" and d["options"]["async"], d
    assert a["sent"] > 0 and a["sent"] == d["messages_tx"], a
    assert a["success"] == a["sent"], a
    assert a["canceled"] == a["dropped"] == a["other"] == 0, a
PY
}

# Lane 0 of A's connection to PEER in rds-info -p: "RESETS REASON".
lane0() {
	netns_a "$T/rds-info" -p | awk -v p="$1" '$2 == p && $5 == 0 {
		r = ""; for (i = 14; i <= NF; i++) r = r " " $i; print $10 r }'
}

# reset_case A-ADDR B-ADDR: with a connection up, --reset -r A -s B is
# silent, adds one reset with reason "user reset" to its lane 0, and the
# connection comes back for the next ping.
reset_case() {
	local a=$1 b=$2 before after out
	netns_a timeout 30 "$T/rds-ping" -c 1 -W 10 "$b" || return 1
	before=$(lane0 "$b")
	echo "$b before: $before"
	out=$(netns_a "$T/rds-stress" --reset -r "$a" -s "$b" 2>&1) ||
		{ echo "$out"; return 1; }
	[ -z "$out" ] || { echo "--reset printed: $out"; return 1; }
	for _ in $(seq 50); do
		after=$(lane0 "$b")
		[ "${after%% *}" -gt "${before%% *}" ] 2>/dev/null && break
		sleep 0.1
	done
	echo "$b after: $after"
	[ "${after%% *}" = $((${before%% *} + 1)) ] && [[ "$after" == *"user reset"* ]] ||
		return 1
	netns_a timeout 30 "$T/rds-ping" -c 1 -W 10 "$b"
}

# --reset: UEK's RDS_CONN_RESET (IPv4) and RDS6_CONN_RESET (IPv6) from
# namespace A drop the RDS/TCP connection to B (reset_case). Without
# CAP_NET_ADMIN it is refused and nothing changes. Linux's RDS takes
# option 8 for SO_RDS_TRANSPORT: not served, exit 3.
stress_reset() {
	local before out rc
	if [ "$IMPL" != ours ]; then
		out=$("$T/rds-stress" --reset -s 127.0.0.1 2>&1)
		rc=$?
		echo "exit $rc: $out"
		[ "$rc" = 3 ] && [[ "$out" == *"does not serve RDS_CONN_RESET"* ]]
		return
	fi
	modprobe rds_tcp || return 1
	netns_pair_up || return 1
	NETNS_UP=1
	netns_a timeout 30 "$T/rds-ping" -c 1 -W 10 "$NETNS_B_IP" || return 1
	before=$(lane0 "$NETNS_B_IP")
	out=$(netns_a setpriv --inh-caps=-net_admin --bounding-set=-net_admin -- \
		"$T/rds-stress" --reset -r "$NETNS_A_IP" -s "$NETNS_B_IP" 2>&1)
	echo "without CAP_NET_ADMIN: exit $?: $out"
	[[ "$out" == *"needs CAP_NET_ADMIN"* ]] || return 1
	[ "$(lane0 "$NETNS_B_IP")" = "$before" ] ||
		{ echo "the refused reset reset: $(lane0 "$NETNS_B_IP")"; return 1; }
	reset_case "$NETNS_A_IP" "$NETNS_B_IP" && reset_case "$NETNS_A_IP6" "$NETNS_B_IP6"
}

info_all_tables() {
	local out t
	out=$(timeout 60 "$T/rds-info" -v) || { echo "$out"; return 1; }
	echo "$out"
	for t in Counters Sockets "IPv6 sockets" Connections "IPv6 connections" \
		"Receive queue" "Send queue" "Retransmit queue" "TCP sockets" \
		"InfiniBand connections"; do
		echo "$out" | grep -q "^$t:\$" || { echo "table '$t' missing"; return 1; }
	done
	# Counters are a table every RDS provides.
	echo "$out" | sed -n '/^Counters:/,/^$/p' | grep -qE '^ *[a-z_]+ [0-9]+$'
}

info_sees_socket() {
	# A bound socket shows up in -k.
	python3 - "$T/rds-info" <<'PY'
import socket, subprocess, sys
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
s.bind(("127.0.0.1", 4777))
out = subprocess.run([sys.argv[1], "-k"], capture_output=True, text=True).stdout
print(out)
sys.exit(0 if "127.0.0.1  4777" in out or " 4777 " in out else 1)
PY
}

tap_plan 39
tap_check "rds-stress: request smaller than its header is refused" usage_fails "$T/rds-stress" -s 127.0.0.1 -q 10
tap_check "rds-stress: test options on the passive side are refused" usage_fails "$T/rds-stress" -t 4
tap_check "rds-stress: unknown option" usage_fails "$T/rds-stress" --no-such-option
tap_check "rds-stress: option without its value" usage_fails "$T/rds-stress" -s
tap_check "rds-stress: non-numeric depth" usage_fails "$T/rds-stress" -s 127.0.0.1 -d 4x
tap_check "rds-stress: unknown transport" usage_fails "$T/rds-stress" -s 127.0.0.1 --transport carrier-pigeon
tap_check "rds-stress: --rdma-* without -D" usage_fails "$T/rds-stress" -s 127.0.0.1 --rdma-use-once
tap_check "rds-ping: no destination" usage_fails "$T/rds-ping"
tap_check "rds-ping: bad count" usage_fails "$T/rds-ping" -c -3 127.0.0.1
tap_check "rds-ping: unresolvable address" usage_fails "$T/rds-ping" no-such-host.invalid
tap_check "rds-ping: -n 0 sockets" usage_fails "$T/rds-ping" -n 0 127.0.0.1
tap_check "rds-ping: -n 33 sockets (at most 32)" usage_fails "$T/rds-ping" -n 33 127.0.0.1
tap_check "rds-stress: negative --show-outliers" usage_fails "$T/rds-stress" -s 127.0.0.1 --show-outliers -1
tap_check "rds-stress: garbage --connect-retries" usage_fails "$T/rds-stress" -s 127.0.0.1 --connect-retries 3x
tap_check "rds-stress: --reset without -s" usage_fails "$T/rds-stress" --reset
tap_check "rds-stress: --rdma-use-once=2" usage_fails "$T/rds-stress" -s 127.0.0.1 -D 4096 --rdma-use-once=2
tap_check "rds-stress: --async on the passive side" usage_fails "$T/rds-stress" --async
tap_check "rds-stress: --rdma-alignment above a page" usage_fails "$T/rds-stress" -s 127.0.0.1 -D 4096 --rdma-alignment 4097
tap_check "rds-info: unknown option" usage_fails "$T/rds-info" -x
tap_check "rds-info: stray argument" usage_fails "$T/rds-info" -c extra

IMPL=$(impl)
echo "# RDS under test: $IMPL"
why=$(bind_works)
data_tests=(
	"rds-stress: loop session with -v, no verification errors|stress_loop_verify"
	"rds-stress: --json output parses and shows traffic|stress_json"
	"rds-stress: one-way, 3 tasks, summary only|stress_one_way_tos"
	"rds-stress: --transport tcp -Q 1 between two local addresses|stress_transport_tcp"
	"rds-stress: -D over loop (ours: verified RDMA; in-tree: unsupported, exit 3)|stress_rdma_loop"
	"rds-stress: -D --rdma-alignment 7 over loop (ours: verified; in-tree: exit 3)|stress_rdma_unaligned"
	"rds-ping: replies from 127.0.0.1|ping_loop"
	"rds-ping: -I source address|ping_source"
	"rds-ping: -Q on loop: works on ours, refused clearly on in-tree|ping_tos_on_loop"
	"rds-info: -v prints every table|info_all_tables"
	"rds-info: -k lists a bound socket|info_sees_socket"
	"rds-info: -a lists an IPv4 socket v4-mapped in the IPv6 table alone|info_all_v6"
	"rds-ping: -n 5 binds 5 sockets, all answered; -n 4 -i 0: 40 of 40|ping_sockets"
	"rds-stress: --show-outliers reports each slow ack, as counted|stress_outliers"
	"rds-stress: --connect-retries 0 fails at once, 3 waits for the passive|stress_connect_retries"
)
# UEK's numbers (<linux/rds_uek.h>): ours serves them, Linux's does not
# (the tool must say so, exit 3).
uek_tests=(
	"rds-stress: --async: one SUCCESS per message sent, both sides (in-tree: exit 3)|stress_async"
	"rds-stress: --reset resets RDS/TCP lanes over IPv4 and IPv6 (user reset), needs CAP_NET_ADMIN (in-tree: exit 3)|stress_reset"
)
if [ -n "$why" ] && [ "$IMPL" = ours ]; then
	for t in "${data_tests[@]}"; do
		tap_skip "${t%%|*}" "our rds.ko has no data path yet (bind: $why)"
	done
else
	for t in "${data_tests[@]}"; do
		tap_check "${t%%|*}" "${t##*|}"
	done
fi
for t in "${uek_tests[@]}"; do
	if [ -n "$why" ] && [ "$IMPL" = ours ]; then
		tap_skip "${t%%|*}" "our rds.ko has no data path yet (bind: $why)"
	else
		tap_check "${t%%|*}" "${t##*|}"
	fi
done
# An RDS that cannot bind: rds-stress says so and exits 3, no numbers.
stress_reports_no_data_path() {
	local rc
	timeout 60 "$T/rds-stress" -p $((PORT + 500)) > "$WORK/nodata.passive" 2>&1 &
	timeout 60 "$T/rds-stress" -s 127.0.0.1 -p $((PORT + 500)) -T 1 --json \
		> "$WORK/nodata.active" 2>"$WORK/nodata.err"
	rc=$?
	wait
	cat "$WORK/nodata.active" "$WORK/nodata.err"
	[ "$rc" = 3 ] && grep -q "cannot carry data" "$WORK/nodata.err" &&
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["status"] != "unsupported")' \
			"$WORK/nodata.active"
}
if [ -n "$why" ]; then
	tap_check "rds-stress: an RDS that cannot bind is reported (exit 3, JSON status)" \
		stress_reports_no_data_path
else
	tap_skip "rds-stress: an RDS that cannot bind is reported (exit 3, JSON status)" \
		"this RDS binds sockets"
fi
# The tools themselves leave nothing behind.
tap_check "no rds-stress left running" bash -c '! pgrep -x rds-stress'
tap_done
