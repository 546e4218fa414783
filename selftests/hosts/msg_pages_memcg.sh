#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kept payload pages (net/msg_pages.c) never carry one memory cgroup's
# sends on another's charge. Everything on CPU 0, over loopback:
#   1. cgroup A streams 16 KiB messages to its own reader for a second:
#      their pages, freed as A's reader takes them, are kept on CPU 0,
#      still charged to A;
#   2. a sender in cgroup B sends 8 x 16 KiB (32 pages) to a socket of
#      the root cgroup that does not read, so the pages stay allocated.
# Asserted (memory.stat "kernel", read after its 2 s flush):
#   - B's kernel memory grew by at least the 32 pages (128 KiB): had B
#     reused A's kept pages, 16 of them would be charged to A, and B
#     would grow by about half that;
#   - A's did not grow while B sent;
#   - the receiver holds all 8, intact;
#   - the counters say so (page_remainder_hit/miss): A's stream took
#     kept pages, B's 32 pages were all new ones;
#   - 15 s after step 2 A's kept pages are back with the allocator: A,
#     which sends no more, is no longer charged for them (measured
#     against its memory before B sent: a slow kernel may have given
#     them back already while B sent).
# Needs cgroup v2 with the memory controller (mounted here if it is not).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/memcg.sh
. lib/rds_tools.sh
CG_ROOT=/sys/fs/cgroup
CG_A=$CG_ROOT/rds-pages-a CG_B=$CG_ROOT/rds-pages-b
MSGBENCH=../scripts/bench/msgbench
PORT=4900 HOLD_PORT=4990 N=8 SIZE=16384
HOLD_PID=
WORK=$(mktemp -d /tmp/rds-pages.XXXXXX)

cleanup() {
	[ -n "$HOLD_PID" ] && kill "$HOLD_PID" 2>/dev/null && wait "$HOLD_PID" 2>/dev/null
	rmdir "$CG_A" "$CG_B" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

tap_plan 7

kernel_mem() { awk '$1 == "kernel" { print $2 }' "$1/memory.stat"; }
in_cg() {	# CGROUP CMD...: CMD on CPU 0, in CGROUP
	local cg=$1
	shift
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec taskset -c 0 "$@"' sh "$cg" "$@"
}

# The holder (root cgroup): receives nothing until SIGUSR1, then counts.
HOLD='
import os, signal, socket, struct, sys
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)   # SO_RCVBUFFORCE
s.bind(("127.0.0.1", int(sys.argv[1])))
got = []
signal.signal(signal.SIGUSR1, lambda *a: got.append(1))
print("ready", flush=True)
while not got:
    signal.pause()
n = bad = 0
while True:
    try:
        d = s.recv(1 << 16, socket.MSG_DONTWAIT)
    except BlockingIOError:
        break
    if d != struct.pack("I", n) * (len(d) // 4) or len(d) != int(sys.argv[2]):
        bad += 1
    n += 1
print("held %d bad %d" % (n, bad), flush=True)
'
SEND='
import socket, struct, sys
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
s.bind(("127.0.0.1", 0))
for i in range(int(sys.argv[2])):
    s.sendto(struct.pack("I", i) * (int(sys.argv[3]) // 4), ("127.0.0.1", int(sys.argv[1])))
'

if ! why=$(memcg_ready "$CG_A" "$CG_B" 2>&1); then
	for i in 1 2 3 4 5 6 7; do
		tap_skip "kept pages and memory cgroups $i" "no cgroup v2 memory controller here: $why"
	done
	exit 0
fi
if [ ! -x "$MSGBENCH" ]; then
	for i in 1 2 3 4 5 6 7; do
		tap_skip "kept pages and memory cgroups $i" "no $MSGBENCH (make scripts/bench/msgbench)"
	done
	exit 0
fi
tap_check "loaded module set is RDS_IMPL=${RDS_IMPL:-unset}" rds_impl_matches
modprobe rds_loop 2>/dev/null

# 1. A's stream: its freed pages are kept on CPU 0.
ha0=$(rds_counter page_remainder_hit) ma0=$(rds_counter page_remainder_miss)
in_cg "$CG_A" "$MSGBENCH" stream recv rds -s "$SIZE" -p "$PORT" -T 1 -W 0 \
	> "$WORK/a.recv" 2>&1 &
arecv=$!
sleep 0.5
in_cg "$CG_A" "$MSGBENCH" stream send rds -s "$SIZE" -p "$PORT" -T 1 -W 0 \
	> /dev/null 2>&1 &
asend=$!
wait "$arecv"
# $asend is the subshell that runs in_cg: stop the sender itself, or
# it goes on sending (to a port nobody binds) through step 2.
pkill -f "stream send rds -s $SIZE -p $PORT" 2>/dev/null
wait "$asend" 2>/dev/null
echo "# cgroup A's stream: $(cat "$WORK/a.recv")"
ha1=$(rds_counter page_remainder_hit) ma1=$(rds_counter page_remainder_miss)

mkfifo "$WORK/hold.out"
taskset -c 0 python3 -c "$HOLD" "$HOLD_PORT" "$SIZE" > "$WORK/hold.out" 2>&1 &
HOLD_PID=$!
exec 3< "$WORK/hold.out"
read -r -t 30 line <&3
[ "$line" = ready ] || { echo "Bail out! holder: '$line'"; exit 1; }
sleep 3		# memory.stat is flushed every 2 s
a0=$(kernel_mem "$CG_A") b0=$(kernel_mem "$CG_B")

# 2. B's sends, held by the root cgroup's socket.
in_cg "$CG_B" python3 -c "$SEND" "$HOLD_PORT" "$N" "$SIZE"
hb1=$(rds_counter page_remainder_hit) mb1=$(rds_counter page_remainder_miss)
sleep 3
a1=$(kernel_mem "$CG_A") b1=$(kernel_mem "$CG_B")
echo "# kernel memory: A $a0 -> $a1, B $b0 -> $b1"

b_charged() {
	echo "B grew $((b1 - b0)) B for $N messages of $SIZE B ($((N * SIZE)) B of pages)"
	[ $((b1 - b0)) -ge $((N * SIZE)) ]
}
tap_check "a sender's payload pages are charged to its own cgroup, not to the one whose pages were kept" b_charged

a_flat() {
	echo "A grew $((a1 - a0)) B while B sent"
	[ $((a1 - a0)) -lt $((SIZE / 2)) ]
}
tap_check "the cgroup whose pages were kept is not charged for another's sends" a_flat

kill -USR1 "$HOLD_PID"
read -r -t 30 res <&3
wait "$HOLD_PID"
HOLD_PID=
held_all() {
	echo "holder: $res"
	[ "$res" = "held $N bad 0" ]
}
tap_check "the holder got all $N messages, intact" held_all

a_reused() {
	echo "A's stream: $((ha1 - ha0)) kept pages, $((ma1 - ma0)) new"
	[ $((ha1 - ha0)) -gt $((ma1 - ma0)) ]
}
tap_check "a stream's pages come from the kept ones (page_remainder_hit)" a_reused

b_fresh() {
	echo "B's sends: $((hb1 - ha1)) kept pages, $((mb1 - ma1)) new"
	[ $((hb1 - ha1)) -eq 0 ] && [ $((mb1 - ma1)) -eq $((N * SIZE / 4096)) ]
}
tap_check "another cgroup's sender takes none of them (page_remainder_miss)" b_fresh

# 3. Kept pages nobody takes go back within 10 to 12 s
# (RDS_MSG_PAGES_IDLE), uncharged; then the 2 s flush of memory.stat.
sleep 12
a2=$(kernel_mem "$CG_A")
a_given_back() {
	echo "A's kernel memory $a0 before B sent, $a2 15 s after"
	[ $((a0 - a2)) -ge $((16 * 4096)) ]
}
tap_check "a cgroup that sends no more is not left charged for kept pages" a_given_back
