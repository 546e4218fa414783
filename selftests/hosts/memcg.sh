#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A flooded receiver's memory cgroup pays, and no one else does. Two RDS
# hosts in network namespaces of one guest (lib/netns_pair.sh), RDS/TCP
# between them. On host b, a socket made by a process in a cgroup v2
# memory cgroup with memory.max = its usage + 8 MiB, a receive budget far
# above that (SO_RCVBUFFORCE 64 MiB) and never reading; beside it a socket
# of the root cgroup. Host a sends the first 200 x 64 KiB (12.5 MiB,
# more than the cgroup has room for), then 20 messages to the second.
# Asserted:
#   - the cgroup's socket memory (memory.stat "sock") grew by what the
#     socket holds (payload + 256 B a message, rounded to pages: within
#     one message), which is at least 4 MiB; its memory.current stayed
#     at or under memory.max;
#   - every message is held or dropped: held + recv_drop_memcg's growth
#     = 200, and the socket's SO_RXQ_OVFL count = recv_drop_memcg's
#     growth; what it holds is in order and intact;
#   - the root cgroup's socket got 20 of 20 within 2 s;
#   - once the socket is read, the cgroup's socket memory is back.
# Needs cgroup v2 with the memory controller (mounted here if it is not);
# make check-debug runs it on the debug kernel too (its two-host boot).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/memcg.sh
. lib/netns_pair.sh
. lib/rds_tools.sh
CG_ROOT=/sys/fs/cgroup
CG=$CG_ROOT/rds-memcg
WORK=$(mktemp -d /tmp/rds-memcg.XXXXXX)
HOG_PORT=4800 OTHER_PORT=4801 FLOOD=200 OTHERS=20 ROOM=$((8 << 20))
HOG_PID=

cleanup() {
	[ -n "$HOG_PID" ] && kill "$HOG_PID" 2>/dev/null && wait "$HOG_PID" 2>/dev/null
	netns_pair_down 2>/dev/null
	rmdir "$CG" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

tap_plan 7

# cgroup v2 with the memory controller for children, or a reason why not.

stat_sock() { awk '$1 == "sock" { print $2 }' "$CG/memory.stat"; }
counter() {	# NAME in host b's namespace
	netns_b "$RDS_TOOLS/rds-info" -c 2>/dev/null | awk -v n="$1" '$1 == n { print $2 + 0 }'
}

# The hog: joins the cgroup before it makes its socket (a socket belongs
# to its maker's cgroup), says "ready", sleeps until SIGUSR1, then reads
# everything queued without waiting and prints what it held.
HOG='
import os, signal, socket, struct, sys, json
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)   # SO_RCVBUFFORCE
s.setsockopt(socket.SOL_SOCKET, 40, 1)          # SO_RXQ_OVFL
s.bind((sys.argv[1], int(sys.argv[2])))
got = []
signal.signal(signal.SIGUSR1, lambda *a: got.append(1))
print("ready", flush=True)
while not got:
    signal.pause()
n = nbytes = bad = disorder = ovfl = 0
last = -1
while True:
    try:
        d, anc, fl, addr = s.recvmsg(1 << 17, 64, socket.MSG_DONTWAIT)
    except BlockingIOError:
        break
    for lvl, typ, val in anc:
        if lvl == socket.SOL_SOCKET and typ == 40:
            ovfl = max(ovfl, struct.unpack("I", val)[0])
    i = struct.unpack("I", d[:4])[0]
    if d != struct.pack("I", i) * (len(d) // 4) or len(d) != 65536:
        bad += 1
    if i <= last:
        disorder += 1
    last = i
    n += 1
    nbytes += len(d)
print(json.dumps({"held": n, "bytes": nbytes, "bad": bad,
                  "disorder": disorder, "ovfl": ovfl}), flush=True)
'

# The other receiver (root cgroup): how many of OTHERS came, how fast.
OTHER='
import socket, sys, time, select
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
s.bind((sys.argv[1], int(sys.argv[2])))
print("ready", flush=True)
n, want, t0 = 0, int(sys.argv[3]), None
while n < want:
    r, _, _ = select.select([s], [], [], 30 if t0 is None else max(0, t0 + 2 - time.time()))
    if not r:
        break
    s.recv(100)
    t0 = t0 or time.time()
    n += 1
print("got %d of %d within 2 s of the first" % (n, want), flush=True)
'

# Host a: the flood to the hog, then the others' messages.
SEND='
import socket, struct, sys, errno
src, dst, hog, other, flood, others = sys.argv[1:7]
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
s.setsockopt(socket.SOL_SOCKET, 32, 64 << 20)   # SO_SNDBUFFORCE
s.bind((src, 0))
sent = 0
for i in range(int(flood)):
    s.sendto(struct.pack("I", i) * 16384, (dst, int(hog)))
    sent += 1
for i in range(int(others)):
    s.sendto(b"other %d" % i, (dst, int(other)))
print("sent %d to the hog, %s to the other" % (sent, others), flush=True)
'

if ! why=$(memcg_ready "$CG" 2>&1); then
	for i in 1 2 3 4 5 6 7; do
		tap_skip "memory cgroup check $i" "no cgroup v2 memory controller here: $why"
	done
	exit 0
fi

tap_check "loaded module set is RDS_IMPL=${RDS_IMPL:-unset}" rds_impl_matches
netns_pair_up || { echo "Bail out! netns pair"; exit 1; }

# The hog in the cgroup, the other in the root cgroup, both on host b.
mkfifo "$WORK/hog.out" "$WORK/other.out"
sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
	ip netns exec "$NETNS_B" python3 -c "$HOG" "$NETNS_B_IP" "$HOG_PORT" \
	> "$WORK/hog.out" 2>&1 &
HOG_PID=$!
exec 3< "$WORK/hog.out"
read -r -t 30 line <&3
netns_b python3 -c "$OTHER" "$NETNS_B_IP" "$OTHER_PORT" "$OTHERS" \
	> "$WORK/other.out" 2>&1 &
other_pid=$!
exec 4< "$WORK/other.out"
read -r -t 30 oline <&4
[ "$line" = ready ] && [ "$oline" = ready ] || { echo "Bail out! receivers: '$line' '$oline'"; exit 1; }

cur0=$(cat "$CG/memory.current")
max=$((cur0 + ROOM))
echo "$max" > "$CG/memory.max"
sock0=$(stat_sock)
drops0=$(counter recv_drop_memcg)
echo "# cgroup: memory.current $cur0, memory.max $max, sock $sock0; recv_drop_memcg ${drops0:-absent}"

sent=$(timeout 120 $NETNS_A_EXEC python3 -c "$SEND" "$NETNS_A_IP" "$NETNS_B_IP" \
	"$HOG_PORT" "$OTHER_PORT" "$FLOOD" "$OTHERS" 2>&1)
echo "# host a: $sent"
wait "$other_pid"
read -r -t 5 other_res <&4
sleep 3	# the flood (sent before the others) is in; memory.stat is
	# flushed every 2 s
cur1=$(cat "$CG/memory.current")
sock1=$(stat_sock)
drops1=$(counter recv_drop_memcg)
events=$(tr '\n' ' ' < "$CG/memory.events")
kill -USR1 "$HOG_PID"
read -r -t 30 hog_res <&3
wait "$HOG_PID"
HOG_PID=
sleep 3
sock2=$(stat_sock)
echo "# after the flood: memory.current $cur1, sock $sock1; memory.events: $events"
echo "# recv_drop_memcg ${drops1:-absent}; hog: $hog_res; after reading: sock $sock2"
echo "# other: $other_res"

hog() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$hog_res" "$1"; }
held=$(hog held) dropped=$((${drops1:-0} - ${drops0:-0}))
charge=$((held * (65536 + 256)))

charged_as_held() {
	echo "held $held messages ($charge B charged as the budget counts them); sock grew $((sock1 - sock0)) B"
	[ "$charge" -ge $((4 << 20)) ] &&
		[ $((sock1 - sock0)) -ge "$charge" ] &&
		[ $((sock1 - sock0)) -le $((charge + 65536 + 4096)) ]
}
tap_check "the cgroup's socket memory grew by what the socket holds (>= 4 MiB, within one message)" charged_as_held

under_max() {
	echo "memory.current $cur1, memory.max $max"
	[ "$cur1" -le "$max" ]
}
tap_check "the cgroup stayed at or under memory.max" under_max

all_counted() {
	echo "sent $FLOOD; held $held, recv_drop_memcg +$dropped (${drops0:-absent} -> ${drops1:-absent}), SO_RXQ_OVFL $(hog ovfl)"
	[ -n "${drops1:-}" ] && [ "$dropped" -gt 0 ] &&
		[ $((held + dropped)) = "$FLOOD" ] && [ "$(hog ovfl)" = "$dropped" ]
}
tap_check "every message held or dropped and counted: recv_drop_memcg = SO_RXQ_OVFL" all_counted

intact() {
	echo "$hog_res"
	[ "$(hog bad)" = 0 ] && [ "$(hog disorder)" = 0 ]
}
tap_check "what the socket held is in order and intact" intact

tap_check "the root cgroup's socket on the same host got $OTHERS of $OTHERS within 2 s" \
	test "$other_res" = "got $OTHERS of $OTHERS within 2 s of the first"

uncharged() {
	echo "sock before $sock0, with the queue $sock1, after reading $sock2"
	[ "$sock2" -le "$sock0" ]
}
tap_check "reading gives the charge back" uncharged

tap_done
