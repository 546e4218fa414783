#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS over InfiniBand (rds_rdma) on the guest's soft RoCE device: rxe0 on
# eth0, which carries 10.99.0.1 and 10.99.0.2 (fd99::1, fd99::2) and loops
# back to itself, so one guest has a real IB connection between its two
# addresses (a queue pair each way, RDMA CM, SENDs through rxe). Pings,
# rds-stress and SHA-checked exactly-once delivery (rds-wirecheck), then
# the paths that only a misbehaving peer or device reaches: a receiver
# that does not read (dropped past its hard limit, the others on the
# connection unaffected), rings
# of 8 work requests (transmit stops part-way through a message and
# resumes), the device deleted and re-added under traffic, rds_rdma
# unloaded under traffic. IPv6 last, with rds_tcp loaded: both listen on
# port 16385 (rds_rdma per IPv6 address of rxe0, since a wildcard RDMA CM
# listen would make siw0 on eth1 open a kernel TCP listener on the port
# rds_tcp holds), and iWARP's IPv6 listeners are on 18634.
#
# RDS_IB_WIRE_MSGS: messages per wirecheck sender (default 12, one cycle
# of rds-wirecheck's sizes, 0 B to 1 MiB; twice that across the device
# removal, so that traffic spans it).
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/rds_tools.sh
. lib/wirecheck.sh
T=$RDS_TOOLS
WC=$PWD/wirecheck/rds-wirecheck
MSGS=${RDS_IB_WIRE_MSGS:-12}
PORT=6200
WORK=$(mktemp -d /tmp/rds-ib-wire.XXXXXX)
RDS_TOOLS_WORK=$WORK
A4=10.99.0.1 B4=10.99.0.2 A6=fd99::1 B6=fd99::2
# A pair of its own for the small rings: its connections are new, so
# their queue pairs take the ring sizes set just before.
C4=10.99.0.3 D4=10.99.0.4
# And one for the SRQ of 8 slots, whose address goes away under traffic:
# no quiet connection of another test on it notices that later.
E4=10.99.0.5 F4=10.99.0.6
PLAN=33

# What the guest loaded (vm.sh: rds rds_loop rds_tcp rds_rdma rds_iwarp;
# Linux's set has no rds_iwarp).
loaded() { grep -q "^$1 " /proc/modules; }
HAD_IWARP=0
loaded rds_iwarp && HAD_IWARP=1

cleanup() {
	pkill -f "rds-wirecheck send" 2>/dev/null
	pkill -f "rds-wirecheck recv" 2>/dev/null
	rdma link show rxe0/1 >/dev/null 2>&1 ||
		rdma link add rxe0 type rxe netdev eth0 2>/dev/null
	ip addr del $C4/24 dev eth0 2>/dev/null
	ip addr del $D4/24 dev eth0 2>/dev/null
	ip addr del $E4/24 dev eth0 2>/dev/null
	ip addr del $F4/24 dev eth0 2>/dev/null
	# A reload leaves no IB connection behind: later programs count
	# the core's connections (loop_unload wants none at all).
	{ restore_modules && ib_unload && restore_modules; } >/dev/null 2>&1
	rm -rf "$WORK"
}
trap cleanup EXIT

counter() {	# NAME: its RDS_INFO_COUNTERS value (empty if not listed)
	"$T/rds-info" -c 2>/dev/null | awk -v n="$1" '$1 == n { print $2 }'
}

# wirecheck FROM TO SENDERS COUNT [STALL RCVBUF [DISTURB...]]: SENDERS
# sockets on FROM send COUNT messages each to TO; the receiver stalls
# STALL seconds with SO_RCVBUF RCVBUF (0 0: neither); DISTURB runs in the
# background meanwhile (lib/wirecheck.sh).
wirecheck() {
	wirecheck_run - "$1" - "$2" "$3" "$4" "${5:-0}" "${6:-0}" "${@:7}"
}

# ib_conn LOCAL PEER [TRANSPORT]: rds-info -n lists that connection with
# that transport (infiniband), up (flag C).
ib_conn() {
	local info t=${3:-infiniband}
	info=$("$T/rds-info" -n 2>&1)
	echo "$info"
	if [[ "$1" == *:* ]]; then
		echo "$info" | awk -v l="$1" -v p="$2" -v t="$t" \
			'$1 == l && $2 == p && $5 == t && $6 ~ /C/ { f = 1 } END { exit !f }'
	else
		echo "$info" | awk -v l="$1" -v p="$2" -v t="$t" \
			'$1 == l && $2 == p && $6 == t && $7 ~ /C/ { f = 1 } END { exit !f }'
	fi
}

# ib_rings LOCAL PEER SEND RECV: rds-info -I lists that connection with
# those ring sizes (SEND/RECV "any": just not 0) and the RoCE GIDs of its
# two addresses (an IPv4 address's GID is it, v4-mapped).
ib_rings() {
	local info
	info=$("$T/rds-info" -I 2>&1)
	echo "$info"
	echo "$info" | awk -v l="$1" -v p="$2" -v s="$3" -v r="$4" '
		$1 == l && $2 == p && $7 > 0 && $8 > 0 &&
		($5 == l || $5 == "::ffff:" l) && ($6 == p || $6 == "::ffff:" p) &&
		(s == "any" || $7 == s) && (r == "any" || $8 == r) { f = 1 }
		END { exit !f }'
}

# Ours keeps net.rds.ib.min_recv_wr receive slots posted on a quiet
# connection without an SRQ and more as its traffic asks
# (rds_rdma_recv.c): two new connections (TOS 7, each way, 16 KiB
# fragments: 4 pages a slot, net.rds.ib.srq 0) hold at most their
# minimum's pages after a ping; a stream on them grows their goal
# (ib_rx_ring_grown) and arrives whole; quiet seconds after it halve the
# goal again (ib_rx_ring_shrunk) and give pages back.
rings_follow_traffic() {
	local rc
	sysctl -qw net.rds.ib.srq=0 || return 1
	rings_follow_traffic_on
	rc=$?
	sysctl -qw net.rds.ib.srq=1
	return $rc
}

# pace_ping TOS: a ping on TOS between A4 and B4 (new connections on a
# new TOS value).
pace_ping() {
	rds_ping_all "" 1 -Q "$1" -I $A4 $B4 > /dev/null
}

# pace_stream TOS: 3 s of rds-stress -d 16 on TOS, verified.
pace_stream() {
	local port out
	port=$(rds_session_port)
	out=$RDS_TOOLS_WORK/pace$1.out
	rds_stress_pair "" "" "pace$1.$port" "$port" "$B4" "$A4" \
		-t 2 -d 16 -q 8192 -T 3 -Q "$1" > "$out" 2>&1 ||
		{ cat "$out"; echo "rds-stress on TOS $1 failed"; return 1; }
}

# pace_quiet TOS: four pings on TOS, each after over a second of quiet
# (each a quiet window for the pacing).
pace_quiet() {
	local i
	for ((i = 0; i < 4; i++)); do
		sleep 1.2
		pace_ping "$1"
	done
}

rings_follow_traffic_on() {
	local min p0 p1 p2 p3 g0 g1 s0 s1
	min=$(sysctl -n net.rds.ib.min_recv_wr)
	p0=$(counter ib_rx_pages_held)
	g0=$(counter ib_rx_ring_grown)
	s0=$(counter ib_rx_ring_shrunk)
	pace_ping 7 || { echo "no pong on TOS 7"; return 1; }
	sleep 1
	p1=$(counter ib_rx_pages_held)
	echo "ib_rx_pages_held ${p0:-?} -> ${p1:-?} with two quiet connections (at most $((8 * min)) more)"
	[ -n "$p0" ] && [ $((p1 - p0)) -gt 0 ] && [ $((p1 - p0)) -le $((8 * min)) ] || return 1
	pace_stream 7 || return 1
	g1=$(counter ib_rx_ring_grown)
	p2=$(counter ib_rx_pages_held)
	echo "after 3 s of rds-stress -d 16: ib_rx_ring_grown ${g0:-?} -> ${g1:-?}, ib_rx_pages_held ${p2:-?}"
	[ $((g1 - g0)) -gt 0 ] || return 1
	pace_quiet 7
	s1=$(counter ib_rx_ring_shrunk)
	p3=$(counter ib_rx_pages_held)
	echo "quiet: ib_rx_ring_shrunk ${s0:-?} -> ${s1:-?}, ib_rx_pages_held ${p2:-?} -> ${p3:-?}"
	[ $((s1 - s0)) -gt 0 ] && [ "$p3" -lt "$p2" ]
}

# With net.rds.ib.srq on (the default) queue pairs share their device's
# receive queue (rds_rdma_srq.c), paced like a connection's ring: two
# new connections (TOS 8) add no receive pages of their own; a stream on
# them grows the SRQ (ib_srq_grown, ib_srq_posted past srq_min_wr) and
# arrives whole; quiet seconds shrink it again (ib_srq_shrunk).
srq_follows_traffic() {
	local min c0 p0 p1 q1 q2 q3 g0 g1 s0 s1
	min=$(sysctl -n net.rds.ib.srq_min_wr)
	c0=$(counter ib_srq_created)
	p0=$(counter ib_rx_pages_held)
	g0=$(counter ib_srq_grown)
	s0=$(counter ib_srq_shrunk)
	pace_ping 8 || { echo "no pong on TOS 8"; return 1; }
	sleep 1
	p1=$(counter ib_rx_pages_held)
	q1=$(counter ib_srq_posted)
	echo "ib_srq_created ${c0:-?}; ib_rx_pages_held ${p0:-?} -> ${p1:-?} with two new quiet connections; ib_srq_posted ${q1:-?} (srq_min_wr $min)"
	[ "${c0:-0}" -ge 1 ] && [ -n "$p0" ] && [ $((p1 - p0)) -le 16 ] || return 1
	pace_stream 8 || return 1
	g1=$(counter ib_srq_grown)
	q2=$(counter ib_srq_posted)
	echo "after 3 s of rds-stress -d 16: ib_srq_grown ${g0:-?} -> ${g1:-?}, ib_srq_posted ${q2:-?}"
	[ $((g1 - g0)) -gt 0 ] && [ "$q2" -gt "$min" ] || return 1
	pace_quiet 8
	s1=$(counter ib_srq_shrunk)
	q3=$(counter ib_srq_posted)
	echo "quiet: ib_srq_shrunk ${s0:-?} -> ${s1:-?}, ib_srq_posted ${q2:-?} -> ${q3:-?}"
	[ $((s1 - s0)) -gt 0 ] && [ "$q3" -lt "$q2" ]
}

# An SRQ of 8 slots (a new one: 8 KiB fragments have none yet) under
# four senders of up to 1 MiB on new connections ($E4 and $F4), the peer's
# address taken away and back twice meanwhile so that queue pairs die
# holding slots: everything arrives once, in order, intact; the SRQ ran
# dry (rxe answered SENDs with RNR NAKs) and what dying queue pairs held
# came back (a stream after it still flows through the 8 slots).
tiny_srq() {
	sysctl -qw net.rds.ib.srq_max_wr=8 net.rds.ib.srq_min_wr=8 || return 1
	frag_size 8192
	ip addr add $E4/24 dev eth0 && ip addr add $F4/24 dev eth0 || return 1
	sleep 1		# rxe's GIDs for them (small_rings)
	wirecheck $E4 $F4 4 "$MSGS" 0 0 bounce_addr
}

bounce_addr() {	# under traffic: the receiver's address goes, twice
	local i
	for i in 1 2; do
		sleep 1
		ip addr del $F4/24 dev eth0
		sleep 0.5
		ip addr add $F4/24 dev eth0
		echo "$F4 away and back ($i)"
	done
}

# RNR NAKs rxe0 sent: SENDs that found no receive posted.
rnr_naks() {
	cat /sys/class/infiniband/rxe0/ports/1/hw_counters/send_rnr_err 2>/dev/null
}

rnr_grew() {	# BEFORE
	local now
	now=$(rnr_naks)
	echo "rxe0 send_rnr_err $1 -> ${now:-missing}; ib_srq_empty $(counter ib_srq_empty)"
	[ -n "$now" ] && [ "$now" -gt "${1:-0}" ]
}

# Where the last bounce caught $E4's side with nothing to send, its queue
# pair outlived the peer's: its heartbeat notices within 10 s, and the
# stream after the bounce may see that reset.
settling() { echo "$E4's side may still find its peer gone (heartbeat)"; }

tiny_srq_after() {
	wirecheck $E4 $F4 2 "$MSGS" 0 0 settling || return 1
	echo "ib_srq_lost $(counter ib_srq_lost), ib_srq_unordered $(counter ib_srq_unordered)"
	[ "$(counter ib_srq_unordered)" = 0 ]
}

ping_ib() {	# LOCAL PEER: 3 of 3, and the connection is IB
	rds_ping_all "" 3 -I "$1" "$2" && ib_conn "$1" "$2"
}

both_rings() {
	ib_rings $A4 $B4 any any && ib_rings $B4 $A4 any any
}

stress_v() {	# LOCAL PEER: rds-stress -v, 2 tasks, 64 KiB
	local port
	port=$(rds_session_port)
	rds_stress_pair "" "" "stress$port" "$port" "$2" "$1" \
		-t 2 -d 4 -q 65536 -T 3 -z
}

# 8 KiB requests, 4 tasks 16 deep: explicit acks go out between the
# fragments of messages both ways, and must never look like a fragment
# of another message to the receiver (that reset the connection ~every
# 2 s until the receiver took an ack anywhere, as Linux does).
# ib_stress NAME LOCAL PEER OPTS...: one rds-stress pair on a port of its own.
ib_stress() {
	local name=$1 port
	port=$(rds_session_port)
	rds_stress_pair "" "" "$name$port" "$port" "$3" "$2" "${@:4}"
}

steady_stress() {	# LOCAL PEER
	local r0 b0 r1 b1 rc
	r0=$(counter conn_reset) b0=$(counter ib_rx_bad_fragment)
	ib_stress steady "$1" "$2" -t 4 -d 16 -q 8192 -a 256 -T 5 -z
	rc=$?
	r1=$(counter conn_reset) b1=$(counter ib_rx_bad_fragment)
	echo "conn_reset ${r0:-0} -> ${r1:-0}, ib_rx_bad_fragment ${b0:-0} -> ${b1:-0}"
	[ "$rc" = 0 ] && [ "${r0:-0}" = "${r1:-0}" ] && [ "${b0:-0}" = "${b1:-0}" ]
}

# ib_sges LOCAL PEER N: that connection's SENDs use N SGEs (rds-info -I's
# send_sge: the header and a fragment's pages, so the fragment size).
ib_sges() {
	"$T/rds-info" -I 2>&1 | awk -v l="$1" -v p="$2" -v n="$3" '
		($1 == l || $1 == "::ffff:" l) && ($2 == p || $2 == "::ffff:" p) {
			print; f = $9 == n } END { exit !f }'
}

# Two of ours agree on 16 KiB fragments (net.rds.ib.max_frag_size's
# default): a 16 KiB message is one SEND, so one receive completion, where
# 4 KiB fragments take four. rds-stress's 16 KiB requests and 64-byte
# replies: about 1 completion per message (plus acks) against 2.5.
big_frags() {	# LOCAL PEER
	local q0 c0 q1 c1 rc
	ib_sges "$1" "$2" 5 && ib_sges "$2" "$1" 5 || return 1
	q0=$(counter recv_queued) c0=$(counter ib_rx_cq_event)
	ib_stress frag "$1" "$2" -t 1 -d 4 -q 16384 -a 64 -T 2 -z
	rc=$?
	q1=$(counter recv_queued) c1=$(counter ib_rx_cq_event)
	echo "messages $((q1 - q0)), receive completions $((c1 - c0))"
	[ "$rc" = 0 ] && [ $((q1 - q0)) -gt 100 ] &&
		[ $(((c1 - c0) * 10)) -lt $(((q1 - q0) * 15)) ]
}

# grew NAME BEFORE: the counter is above BEFORE now.
grew() {
	local now
	now=$(counter "$1")
	echo "$1: $2 -> ${now:-missing}"
	[ -n "$now" ] && [ "$now" -gt "${2:-0}" ]
}

# hog FROM TO: one socket on TO that never reads and one that does, on
# the same connection. On one host a receiver's congestion map is the
# senders' at once, so a burst cannot overtake it as one from another
# host can (queued before the map reached its senders): instead the hog
# takes 2 x 1 MiB with a big SO_RCVBUF, then shrinks it to 4 KiB
# (SO_RXQ_OVFL on). It now holds more than its hard limit, 4 x SO_RCVBUF
# + 1 MiB, while its map still says it has room, as after such a burst:
# 4 x 256 KiB more are sent to it, then 20 small messages to the other
# socket. Results, as NAME=VALUE lines, in $WORK/hog: good (of 20,
# within 2 s of the last send), sent (messages to the hog sendmsg()
# took after the shrink), before (messages it held before), rcvbuf,
# held, held_bytes, disorder, damaged (the hog's queue read after the
# good messages arrived: they came on the same connection after the
# burst, so the burst was settled), ovfl (the last SO_RXQ_OVFL count; -1
# if none came), drops (recv_drop_rcvbuf grew by).
hog() {
	local d0 d1

	d0=$(counter recv_drop_rcvbuf)
	python3 - "$1" "$2" > "$WORK/hog" <<'PY' || return 1
import select, socket, struct, sys, time

SO_RXQ_OVFL = getattr(socket, "SO_RXQ_OVFL", 40)
SO_SNDBUFFORCE, SO_RCVBUFFORCE = 32, 33
MIB = 1 << 20
src, dst = sys.argv[1], sys.argv[2]
HOG, GOOD, BEFORE, BURST, SMALL = 6400, 6401, 2, 4, 20

def sock(addr, port=0):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    s.bind((addr, port))
    return s

base = bytes(range(256)) * (MIB // 256)
def payload(idx, size):
    k = (idx * 13) % 256
    return struct.pack("!I", idx) + (base[k:] + base[:k])[4:size]

def settle(tx, good, tag):
    # One message to the good socket: once it is there, everything sent
    # before it on the connection was taken (queued or dropped).
    tx.sendto(tag, (dst, GOOD))
    if not select.select([good], [], [], 20)[0]:
        sys.exit("nothing arrived for 20 s")
    good.recv(64)

hog = sock(dst, HOG)
hog.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 * MIB)
hog.setsockopt(socket.SOL_SOCKET, SO_RXQ_OVFL, 1)
good = sock(dst, GOOD)
tx = sock(src)
tx.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 8 * MIB)
msgs = [payload(i, MIB if i < BEFORE else MIB // 4)
        for i in range(BEFORE + BURST)]
for i in range(BEFORE):
    tx.sendto(msgs[i], (dst, HOG))
settle(tx, good, b"settle")
hog.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
sent = 0
for i in range(BEFORE, BEFORE + BURST):
    try:
        tx.sendto(msgs[i], socket.MSG_DONTWAIT, (dst, HOG))
        sent += 1
    except OSError as e:
        print("burst message %d: %s" % (i, e), file=sys.stderr)
for j in range(SMALL):
    tx.sendto(b"good %d" % j, (dst, GOOD))
t0, got = time.monotonic(), 0
while got < SMALL:
    left = t0 + 2 - time.monotonic()
    if left <= 0 or not select.select([good], [], [], left)[0]:
        break
    good.recv(64)
    got += 1
# The rest of the burst, if the good ones did not come: settled or not.
if got < SMALL:
    time.sleep(3)
held = held_bytes = disorder = damaged = 0
ovfl, last = -1, -1
while True:
    try:
        data, anc, _, _ = hog.recvmsg(MIB, socket.CMSG_SPACE(4),
                                      socket.MSG_DONTWAIT)
    except BlockingIOError:
        break
    for level, typ, val in anc:
        if level == socket.SOL_SOCKET and typ == SO_RXQ_OVFL:
            ovfl = struct.unpack("=I", val[:4])[0]
    held += 1
    held_bytes += len(data)
    idx = struct.unpack_from("!I", data)[0]
    if idx >= len(msgs) or data != msgs[idx]:
        damaged += 1
        continue
    if idx <= last:
        disorder += 1
    last = idx
print("good=%d sent=%d before=%d rcvbuf=%d held=%d held_bytes=%d "
      "disorder=%d damaged=%d ovfl=%d" %
      (got, sent, BEFORE,
       hog.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF), held,
       held_bytes, disorder, damaged, ovfl))
PY
	d1=$(counter recv_drop_rcvbuf)
	echo "drops=$((${d1:-0} - ${d0:-0}))" >> "$WORK/hog"
}

hog_val() {	# NAME: its value in $WORK/hog
	tr ' ' '\n' < "$WORK/hog" | awk -F= -v n="$1" '$1 == n { print $2 }'
}

hog_good() {
	hog "$@" || return 1
	cat "$WORK/hog"
	[ "$(hog_val good)" = 20 ]
}

# The hog's side of the promise (rds.rst, "Delivery"): nothing queued
# past its hard limit (it holds what it held before the shrink, in order
# and intact), and every message it did not get is counted and reported
# to it.
hog_bounded() {
	local held sent drops ovfl
	cat "$WORK/hog"
	held=$(hog_val held) sent=$(hog_val sent) drops=$(hog_val drops)
	ovfl=$(hog_val ovfl)
	[ -n "$held" ] && [ "$held" = "$(hog_val before)" ] &&
		[ "$(hog_val disorder)" = 0 ] && [ "$(hog_val damaged)" = 0 ] &&
		[ "$sent" -gt 0 ] && [ "$drops" = "$sent" ] && [ "$ovfl" = "$drops" ]
}

# frag_size BYTES: net.rds.ib.max_frag_size (ours only; Linux has none).
frag_size() {
	[ "${RDS_IMPL:-ours}" = ours ] || return 0
	sysctl -qw net.rds.ib.max_frag_size="$1"
}

# ib_sges, where the size is ours to choose.
our_sges() {
	[ "${RDS_IMPL:-ours}" = ours ] || return 0
	ib_sges "$@"
}

# our_srq 0|1: net.rds.ib.srq (ours only; Linux has no SRQ).
our_srq() {
	[ "${RDS_IMPL:-ours}" = ours ] || return 0
	sysctl -qw net.rds.ib.srq="$1"
}

small_rings() {
	# A ring of 8 receives of its own, not a slot of an SRQ.
	our_srq 0 &&
		sysctl -w net.rds.ib.max_send_wr=8 net.rds.ib.max_recv_wr=8 &&
		frag_size 8192 || return 1
	ip addr add $C4/24 dev eth0 && ip addr add $D4/24 dev eth0 || return 1
	# rxe adds the new addresses' GIDs from a notifier; the first
	# ping may find the route but not yet the GID.
	sleep 1
	rds_ping_all "" 3 -I $C4 $D4 && ib_rings $C4 $D4 8 8 &&
		ib_rings $D4 $C4 8 8 && our_sges $C4 $D4 3 && our_sges $D4 $C4 3
}

small_rings_traffic() {
	wirecheck $C4 $D4 2 "$MSGS"
}

in_flight() {	# messages queued or unacked from A4 to B4
	"$T/rds-info" -s -t | awk '$1 == "'$A4'" && $3 == "'$B4'"' | wc -l
}

relink() {	# under traffic: rxe0 deleted, then back
	local i
	# Once messages are on their way (up to 10 s; not a fixed delay,
	# after which a fast machine may have sent everything).
	for i in $(seq 200); do
		[ "$(in_flight)" -gt 0 ] && break
		sleep 0.05
	done
	rdma link delete rxe0 || return 1
	echo "rxe0 deleted after $((i * 50)) ms"
	# What the senders queued meanwhile waits for the device (the
	# check after wants some: the removal really was under traffic).
	sleep 1
	in_flight > "$WORK/inflight"
	echo "$(cat "$WORK/inflight") messages queued or unacked"
	sleep 2
	rdma link add rxe0 type rxe netdev eth0 || return 1
	echo "rxe0 back"
	rdma link show rxe0/1
}

# The modules: unload the IB side (rds_iwarp uses rds_rdma's engine).
ib_unload() {
	if loaded rds_iwarp; then rmmod rds_iwarp || return 1; fi
	if loaded rds_rdma; then rmmod rds_rdma || return 1; fi
	return 0
}

# The guest's set, loaded in the guest's order (rds_tcp before rds_rdma).
restore_modules() {
	local want=(rds_tcp rds_rdma) m
	[ "$HAD_IWARP" = 1 ] && want+=(rds_iwarp)
	if ! loaded rds_tcp; then
		ib_unload || return 1
	fi
	for m in "${want[@]}"; do
		loaded "$m" || modprobe "$m" || return 1
	done
}

rmmod_under_load() {
	local senders=() i rc=0 out
	"$WC" recv $B4 $PORT 2 100000 60 > "$WORK/recv" 2>&1 &
	local rpid=$!
	wirecheck_wait_ready "$WORK/recv" $rpid || { kill $rpid; return 1; }
	for i in 0 1; do
		"$WC" send $A4 $B4 $PORT "$i" 100000 > /dev/null 2>&1 &
		senders+=($!)
	done
	PORT=$((PORT + 100))
	sleep 3
	echo "before: $(counter ib_tx_cq_event) sends completed"
	if out=$(ib_unload 2>&1); then
		echo "rmmod under load succeeded"
	else
		echo "rmmod under load failed (allowed): $out"
	fi
	kill "${senders[@]}" "$rpid" 2>/dev/null
	wait 2>/dev/null
	# The users are gone: now it must go, and come back.
	# Their messages are still queued on the connections: the unload
	# tears those down busy.
	ib_unload || { echo "rmmod with no users failed"; rc=1; }
	loaded rds_rdma && { echo "rds_rdma still loaded"; rc=1; }
	restore_modules || { echo "reload failed"; rc=1; }
	[ "$rc" = 0 ] && ping_ib $A4 $B4
}

# rds_tcp and rds_rdma both listen on 16385: rds_tcp on the wildcard,
# rds_rdma on each IPv6 address of rxe0 (none of it on siw0).
ipv6_listeners() {
	local cm
	cm=$(rdma resource show cm_id 2>/dev/null | grep LISTEN)
	echo "$cm"
	ss -Hltn | grep -E ':(16385|18634) ' || return 1
	ss -Hltn | grep -qE '^LISTEN .* (\*|\[::\]):16385 ' &&
		echo "$cm" | grep -qE "^link rxe0/1 .* src-addr $A6:16385" &&
		echo "$cm" | grep -qE "^link rxe0/1 .* src-addr $B6:16385" &&
		! echo "$cm" | grep -qE '^link siw0/.*:16385 '
}

ipv6_setup() {
	loaded rds_tcp || return 1
	ping_ib $A6 $B6 && ping_ib $B6 $A6
}

# At net.rds.ib.max_frag_size 4096 we offer nothing: 4 KiB fragments, as
# with Linux (2 SGEs per SEND).
ipv6_frag_4k() {
	ib_sges $A6 $B6 2 && ib_sges $B6 $A6 2
}

# iWARP between siw0's two IPv6 addresses on eth1 (its listeners: 18634).
IW_A6=fd98::1 IW_B6=fd98::2
iwarp_ipv6() {
	rds_ping_all "" 3 -I $IW_A6 $IW_B6 && ib_conn $IW_A6 $IW_B6 iwarp
}

ipv6_rings() {
	ib_rings $A6 $B6 any any && ib_rings $B6 $A6 any any
}

restored() {
	restore_modules && lsmod | grep '^rds' && ping_ib $A4 $B4
}

# Every message sent above is acked soon after the traffic stops: a
# sender asks for an ack only every few messages, so the receiver must
# ack the tail of a burst by itself, or it stays on the sender's
# retransmit queue (Linux's rds_rdma leaves it there until more traffic
# comes or the socket closes).
retrans_drained() {
	local i out
	for ((i = 0; i < 20; i++)); do
		out=$("$T/rds-info" -t 2>&1)
		[ "$(echo "$out" | grep -c '(none)')" = 2 ] && return 0
		sleep 0.1
	done
	echo "$out"
	return 1
}

ib_counters() {
	local n c
	"$T/rds-info" -c | grep -E '^ *ib_'
	n=$("$T/rds-info" -c | awk '$1 ~ /^ib_/' | wc -l)
	[ "$n" -ge 10 ] || { echo "only $n ib_* counters"; return 1; }
	for c in ib_tx_cq_event ib_rx_cq_event ib_ack_received; do
		[ "$(counter $c)" -gt 0 ] || { echo "$c is 0"; return 1; }
	done
}

# net.rds.max_unacked_packets: at 1 every ping asks for an ack, at 10000
# (and max_unacked_bytes large) none of 20 pings does.
unacked_sysctl() {
	local p0 b0 c0 c1 c2 rc=0
	p0=$(sysctl -n net.rds.max_unacked_packets)
	b0=$(sysctl -n net.rds.max_unacked_bytes)
	c0=$(counter ib_tx_ack_required)
	sysctl -qw net.rds.max_unacked_packets=1
	rds_ping_all "" 20 -I $A4 $B4 > /dev/null || rc=1
	c1=$(counter ib_tx_ack_required)
	sysctl -qw net.rds.max_unacked_packets=10000 \
		net.rds.max_unacked_bytes=1000000000
	rds_ping_all "" 20 -I $A4 $B4 > /dev/null || rc=1
	c2=$(counter ib_tx_ack_required)
	sysctl -qw net.rds.max_unacked_packets="$p0" \
		net.rds.max_unacked_bytes="$b0"
	echo "ib_tx_ack_required: $c0 -> $c1 (at 1) -> $c2 (at 10000)"
	[ "$rc" = 0 ] && [ $((c1 - c0)) -ge 20 ] && [ $((c2 - c1)) -lt 10 ]
}

# A local user opens an RDMA CM connection from one of our addresses to
# another and offers RDS's connection data: rds_rdma refuses it (only our
# own connections meet themselves between local addresses), counts it,
# and the real connection between the two is untouched.
CMSPOOF=$PWD/cmspoof/rds-cm-spoof
cm_local_spoof() {
	local c0 out rc
	c0=$(counter ib_connect_local_refused)
	out=$("$CMSPOOF" $A4 $B4 2>&1)
	rc=$?
	echo "rds-cm-spoof $A4 -> $B4: $out (exit $rc)"
	[ "$rc" = 0 ] && grew ib_connect_local_refused "$c0" && ping_ib $A4 $B4
}

# RDS_IB_WIRE_DEBUG=1: every check's output, and the core's live objects
# after it (debugging the suite itself).
if [ "${RDS_IB_WIRE_DEBUG:-0}" = 1 ]; then
	eval "$(declare -f tap_check | sed '1s/tap_check/tap_check_quiet/')"
	tap_check() {
		local desc=$1 out rc t0=$SECONDS
		shift
		echo "# start: $desc"
		out=$("$@" 2>&1)
		rc=$?
		printf '%s\n' "$out" | sed 's/^/# /'
		if [ "$rc" = 0 ]; then tap_ok "$desc"; else tap_not_ok "$desc"; fi
		sed 's/^/# objects: /' /sys/kernel/debug/rds/objects 2>/dev/null
		echo "# $((SECONDS - t0)) s"
	}
fi

tap_plan $PLAN
skip_all() {
	local i
	for ((i = 0; i < PLAN; i++)); do tap_skip "ib wire $((i + 1))" "$1"; done
	exit 0
}
rdma link show rxe0/1 2>/dev/null | grep -q ACTIVE ||
	skip_all "no rxe0 in this guest (vm.sh --rdma)"
loaded rds_rdma || modprobe rds_rdma 2>/dev/null || skip_all "rds_rdma not loadable"

t0=$SECONDS
tap_check "rds-ping $A4 -> $B4 over IB: 3 of 3, connection infiniband" ping_ib $A4 $B4
tap_check "rds-ping $B4 -> $A4 over IB: 3 of 3, connection infiniband" ping_ib $B4 $A4
tap_check "rds-info -I lists both connections with their ring sizes and GIDs" both_rings
if [ "${RDS_IMPL:-ours}" = ours ]; then
	tap_check "receive slots follow the traffic: a quiet connection holds min_recv_wr, a stream grows it, quiet halves it" \
		rings_follow_traffic
	tap_check "with an SRQ: new connections hold no slots of their own, a stream grows the SRQ, quiet shrinks it" \
		srq_follows_traffic
else
	tap_skip "receive slots follow the traffic" "ours only"
	tap_skip "SRQ follows the traffic" "ours only"
fi
if [ "${RDS_IMPL:-ours}" = ours ]; then
	tap_check "a local user's RDMA CM request posing as $A4 is refused" cm_local_spoof
else
	tap_skip "a local user's RDMA CM request is refused" "only ours is held to it"
fi
if [ "${RDS_IMPL:-ours}" = ours ]; then
	tap_check "ours with ours: 16 KiB fragments agreed (5 SGEs per SEND), a 16 KiB message is one receive" \
		big_frags $A4 $B4
else
	tap_skip "16 KiB fragments agreed" "Linux has 4 KiB fragments only"
fi
tap_check "rds-stress -v over IB (2 tasks, 64 KiB)" stress_v $A4 $B4
tap_check "rds-stress 8 KiB, 4 tasks x 16 deep, 5 s: no connection reset, no bad fragment" \
	steady_stress $A4 $B4
tap_check "2 senders x $MSGS messages, 0 B to 1 MiB, $A4 -> $B4: exactly once, in order, intact" \
	wirecheck $A4 $B4 2 "$MSGS"
tap_check "the same $B4 -> $A4" wirecheck $B4 $A4 2 "$MSGS"
if [ "${RDS_IMPL:-ours}" = ours ]; then
	tap_check "within 2 s of the traffic's end every message is acked (retransmit queues empty)" \
		retrans_drained
else
	tap_skip "every message acked after the traffic" "Linux keeps the unacked tail"
fi
echo "# $((SECONDS - t0)) s: basics"
tap_check "a socket over its hard limit that never reads (SO_RCVBUF 4 KiB), 4 x 256 KiB more to it, then 20 to another: 20 of 20 within 2 s" \
	hog_good $A4 $B4
if [ "${RDS_IMPL:-ours}" = ours ]; then
	tap_check "... the hog took none of the 4 (it holds what it held, in order and intact); recv_drop_rcvbuf and SO_RXQ_OVFL count them" \
		hog_bounded
else
	tap_skip "the hog holds at most its hard limit" "Linux has no receive hard limit"
fi
r0=$(counter ib_tx_ring_full)
tap_check "net.rds.ib.max_send_wr/max_recv_wr 8, max_frag_size 8192: a new connection has rings of 8, 8 KiB fragments" \
	small_rings
tap_check "rings of 8, 8 KiB fragments, 1 MiB messages: exactly once, in order, intact" \
	small_rings_traffic
tap_check "... and the send ring ran full (ib_tx_ring_full grew)" \
	grew ib_tx_ring_full "$r0"
sysctl -qw net.rds.ib.max_send_wr=256 net.rds.ib.max_recv_wr=1024
if [ "${RDS_IMPL:-ours}" = ours ]; then
	sysctl -qw net.rds.ib.srq=1
	n0=$(rnr_naks)
	tap_check "an SRQ of 8 slots, 4 senders of up to 1 MiB, the receiver's address away twice: exactly once, in order, intact" \
		tiny_srq
	tap_check "... and the SRQ ran dry (rxe0 sent RNR NAKs)" rnr_grew "$n0"
	tap_check "... and a stream after it still flows through the 8 slots" tiny_srq_after
	sysctl -qw net.rds.ib.srq_max_wr=1024 net.rds.ib.srq_min_wr=64
else
	tap_skip "an SRQ of 8 slots" "ours only"
	tap_skip "the SRQ ran dry" "ours only"
	tap_skip "a stream after it" "ours only"
fi
frag_size 16384
echo "# $((SECONDS - t0)) s: hog, small rings"
c0=$(counter conn_reset)
# rxe moves a wirecheck's 2 x 12 messages (3 MiB) in well under a
# second: 2 x 96 keep the senders busy across the outage (from 1 s to
# 4 s; about 40 messages wait in it), about 15 s in all.
tap_check "rxe0 deleted and re-added under 2 x $((MSGS * 8)) messages: nothing lost or duplicated" \
	wirecheck $A4 $B4 2 $((MSGS * 8)) 0 0 relink
tap_check "... and the connections were reset (conn_reset grew)" grew conn_reset "$c0"
# The outage must have caught messages in flight for the check above to
# mean anything; on a loaded host the traffic may finish first: then
# that check proved less, and this says so instead of failing.
inflight=$(cat "$WORK/inflight" 2>/dev/null || echo 0)
if [ "$inflight" -gt 0 ]; then
	tap_check "... with $inflight messages queued or unacked during the outage" \
		test "$inflight" -gt 0
else
	tap_skip "... with messages queued or unacked during the outage" \
		"the traffic was over before the device went (timing)"
fi
tap_check "rmmod rds_rdma under traffic: clean; unload and reload work" rmmod_under_load
tap_check "ib_* counters in rds-info -c, sends and receives counted" ib_counters
tap_check "net.rds.max_unacked_packets decides how often a sender asks for acks" \
	unacked_sysctl
echo "# $((SECONDS - t0)) s: device removal, unload"
tap_check "IPv6: rds_tcp (wildcard) and rds_rdma (rxe0's addresses) both listen on 16385, siw0 not" \
	ipv6_listeners
frag_size 4096
tap_check "IPv6 (rds_tcp loaded): rds-ping $A6 <-> $B6 both ways over IB" ipv6_setup
if [ "${RDS_IMPL:-ours}" = ours ]; then
	tap_check "net.rds.ib.max_frag_size 4096: IPv6 connections have 4 KiB fragments" ipv6_frag_4k
else
	tap_skip "max_frag_size 4096" "ours only"
fi
tap_check "IPv6: 2 senders x $MSGS messages $B6 -> $A6: exactly once, in order, intact" \
	wirecheck $B6 $A6 2 "$MSGS"
tap_check "IPv6: rds-info -I lists both connections" ipv6_rings
frag_size 16384
if [ "$HAD_IWARP" = 1 ] && rdma link show siw0/1 >/dev/null 2>&1; then
	tap_check "IPv6 over iWARP: rds-ping $IW_A6 -> $IW_B6 (siw0, port 18634)" iwarp_ipv6
else
	tap_skip "IPv6 over iWARP" "no rds_iwarp or no siw0"
fi
tap_check "module set restored (rds_tcp, then rds_rdma); IPv4 over IB again" \
	restored
echo "# $((SECONDS - t0)) s in all"
tap_done
