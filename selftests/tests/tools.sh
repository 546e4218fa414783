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
REPO=$(cd .. && pwd)
T=$REPO/tools
WORK=$(mktemp -d /tmp/rds-tools-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
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

tap_plan 24
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
	"rds-ping: replies from 127.0.0.1|ping_loop"
	"rds-ping: -I source address|ping_source"
	"rds-ping: -Q on loop: works on ours, refused clearly on in-tree|ping_tos_on_loop"
	"rds-info: -v prints every table|info_all_tables"
	"rds-info: -k lists a bound socket|info_sees_socket"
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
