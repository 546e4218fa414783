#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tracepoints, for real: every event of the rds, rds_rdma and rds_tcp
# trace systems exists with its named fields (Documentation/rds.rst and
# rdma.rst list them), and traffic makes them fire with sane values, in a
# tracefs instance of our own: a loopback connection coming up and a
# receiver's drop (port and reason), an RDS/TCP connection between two
# namespaces (socket state changes, the reset of its shutdown when the
# namespaces go), RDS over IB on rxe0 (CM events, SEND and receive
# completions with status 0, registrations and invalidations under
# rds-stress's RDMA) and over iWARP on siw0 (vm.sh --rdma; skipped
# without the devices). Fails if an event vanishes or stops firing.
cd "$(dirname "$0")/.." || exit 1
NETNS_A=rdstr-a NETNS_B=rdstr-b
. lib/tap.sh
. lib/rds_tools.sh
. lib/netns_pair.sh
TR=/sys/kernel/tracing
INST=$TR/instances/rds-selftest
WORK=$(mktemp -d /tmp/rds-traces.XXXXXX)
RDS_TOOLS_WORK=$WORK
# Connections of their own: a TOS no other program uses.
TOS=37
# IPv4 addresses print v4-mapped (%pI6c).
M='(::ffff:)?'
PLAN=12

loaded() { grep -q "^$1 " /proc/modules; }

cleanup() {
	[ -d "$INST" ] && echo 0 > "$INST/tracing_on" && rmdir "$INST"
	netns_pair_down 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

tap_plan $PLAN
if [ "${RDS_IMPL:-ours}" != ours ]; then
	for _ in $(seq $PLAN); do
		tap_skip "tracepoints" "Linux's RDS has other events"
	done
	exit 0
fi
loaded rds_rdma || modprobe rds_rdma 2>/dev/null
loaded rds_tcp || modprobe rds_tcp 2>/dev/null
rdma link show siw0/1 2>/dev/null | grep -q ACTIVE &&
	{ loaded rds_iwarp || modprobe rds_iwarp 2>/dev/null; }

# fields SYSTEM EVENT FIELD...: the event exists with these named fields.
# Matched in bash, without a process per field: on the debug kernel the
# hundred greps took 25 s of each check.
fields() {
	local f=$TR/events/$1/$2/format g fmt re
	[ -r "$f" ] || { echo "no $f"; return 1; }
	IFS= read -r -d '' fmt < "$f"
	for g in "${@:3}"; do
		re="field:[^;]*[ *]$g(\[[^]]*\])?;"
		[[ $fmt =~ $re ]] ||
			{ echo "$1:$2 has no field $g"; echo "$fmt"; return 1; }
	done
}

all_fields() {
	local rc=0 c
	c=(laddr faddr trans tos lane)
	fields rds rds_conn_state "${c[@]}" old_state new_state || rc=1
	fields rds rds_retransmit "${c[@]}" requeued || rc=1
	fields rds rds_recv_drop "${c[@]}" reason dport || rc=1
	fields rds rds_send_giveup "${c[@]}" reason count || rc=1
	fields rds rds_conn_error "${c[@]}" err site || rc=1
	for e in send_done ack_done recv_done rw_done reg_done; do
		fields rds_rdma rds_rdma_$e cq_id slot status vendor_err || rc=1
	done
	fields rds_rdma rds_rdma_cm_event srcaddr dstaddr event status rej_data || rc=1
	fields rds_rdma rds_rdma_cm_refuse srcaddr dstaddr why || rc=1
	fields rds_rdma rds_rdma_mr_reg rkey length nents err || rc=1
	fields rds_rdma rds_rdma_mr_inv rkey err || rc=1
	for e in tx_stall tx_resume; do
		fields rds_rdma rds_rdma_$e laddr faddr trans tos kind || rc=1
	done
	for e in rx_rnr_enter rx_rnr_exit; do
		fields rds_rdma rds_rdma_$e laddr faddr trans tos posted || rc=1
	done
	fields rds_tcp rds_tcp_state_change laddr faddr sport dport lane state sk_err || rc=1
	fields rds_tcp rds_tcp_reset laddr faddr sport dport state why || rc=1
	return $rc
}

# A tracefs instance of our own, every event of the three systems on.
trace_on() {
	mkdir -p "$INST" && echo 2048 > "$INST/buffer_size_kb" &&
		echo rds rds_rdma rds_tcp | tr ' ' '\n' | while read -r s; do
			echo 1 > "$INST/events/$s/enable" || exit 1
		done && echo 1 > "$INST/tracing_on" && echo > "$INST/trace"
}

# seen REGEX [SECONDS]: a line of the trace matches the extended REGEX
# (within SECONDS, default 5, for events that come from workers).
seen() {
	local i
	for ((i = 0; i < ${2:-5} * 10; i++)); do
		if grep -qE -- "$1" "$INST/trace"; then
			grep -E -- "$1" "$INST/trace" | head -n 3
			return 0
		fi
		sleep 0.1
	done
	echo "no trace line matches: $1"
	echo "--- the trace (last 40 lines):"
	tail -n 40 "$INST/trace"
	return 1
}

# Pieces of the expected lines. rds events print IPv4 v4-mapped
# (%pI6c), CM events as sockaddrs (%pISpc, with the port).
LO_A="${M}127\.0\.37\.1" LO_B="${M}127\.0\.37\.2"
NS_A="${M}10\.99\.2\.1" NS_B="${M}10\.99\.2\.2" NS="${M}10\.99\.2\.[12]:[0-9]+"
IB_A="${M}10\.99\.0\.1" IB_B="${M}10\.99\.0\.2" IB="10\.99\.0\.[12]:[0-9]+"
IW_A="${M}10\.98\.0\.1" IW_B="${M}10\.98\.0\.2" IW="10\.98\.0\.[12]:[0-9]+"
CQ='cq\.id=[0-9]+' OK0='status=SUCCESS \(0\)' KEY='rkey=0x[0-9a-f]{8}'

# drop_no_sock LOCAL PEER PORT: a message to a port nobody bound.
drop_no_sock() {
	python3 - "$@" <<-'EOF'
	import socket, sys
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
	s.bind((sys.argv[1], 0))
	s.sendto(b"nobody listens", (sys.argv[2], int(sys.argv[3])))
	EOF
}

loop_traffic() {
	rds_ping_all "" 2 -Q $TOS -I 127.0.37.1 127.0.37.2 &&
		seen "rds_conn_state: $LO_A -> $LO_B tos $TOS lane 0 loop: CONNECTING -> UP" &&
		drop_no_sock 127.0.37.1 127.0.37.2 4099 &&
		seen "rds_recv_drop: .* loop: reason=recv_drop_no_sock dport=4099"
}

# Over TCP the TOS is always 0 (as Linux).
tcp_traffic() {
	netns_pair_up && rds_ping_all "$NETNS_A_EXEC" 2 "$NETNS_B_IP" &&
		seen "rds_tcp_state_change: $NS -> $NS lane [0-9]+: state=ESTABLISHED sk_err=0" &&
		seen "rds_conn_state: $NS_A -> $NS_B tos 0 lane 0 tcp: CONNECTING -> UP"
}

tcp_teardown() {
	netns_pair_down &&
		seen "rds_tcp_reset: $NS -> $NS state=[A-Z_0-9]+ why=shutdown" 20 &&
		seen "rds_conn_state: $NS_A -> $NS_B tos 0 lane [0-9]+ tcp: [A-Z]+ -> DISCONN" 20
}

ib_traffic() {
	rds_ping_all "" 3 -Q $TOS -I 10.99.0.1 10.99.0.2 &&
		seen "rds_conn_state: $IB_A -> $IB_B tos $TOS lane 0 ib: CONNECTING -> UP" &&
		seen "rds_rdma_cm_event: $IB -> $IB ESTABLISHED status=0" &&
		seen "rds_rdma_send_done: $CQ slot=[0-9]+ $OK0 vendor_err=0x0" &&
		seen "rds_rdma_recv_done: $CQ slot=[0-9]+ $OK0 vendor_err=0x0"
}

ib_rdma() {
	rds_stress_pair "" "" rdma6950 6950 10.99.0.2 10.99.0.1 \
		-t 1 -d 2 -q 1024 -D 65536 -M 0 -T 1 -z &&
		seen "rds_rdma_mr_reg: $KEY length=[1-9][0-9]* nents=[1-9][0-9]* err=0" &&
		seen "rds_rdma_reg_done: $CQ slot=-1 $OK0" &&
		seen "rds_rdma_rw_done: $CQ slot=-1 $OK0" &&
		seen "rds_rdma_mr_inv: $KEY err=0"
}

# Flushes come with any queue pair torn down; anything else is a failure.
no_failed_completion() {
	! grep -E '_done: .* status=' "$INST/trace" | grep -v 'status=SUCCESS' |
		grep -v WR_FLUSH_ERR
}

iwarp_traffic() {
	rds_ping_all "" 3 -Q $TOS -I 10.98.0.1 10.98.0.2 &&
		seen "rds_conn_state: $IW_A -> $IW_B tos $TOS lane 0 iwarp: CONNECTING -> UP" &&
		seen "rds_rdma_cm_event: $IW -> $IW ESTABLISHED status=0"
}

tap_check "every event of rds, rds_rdma and rds_tcp exists with its named fields" \
	all_fields
tap_check "a tracefs instance with the three systems enabled" trace_on
tap_check "loop: connection UP (rds_conn_state), a drop's port and reason (rds_recv_drop)" \
	loop_traffic
tap_check "tcp (netns pair): socket ESTABLISHED (rds_tcp_state_change), connection UP" \
	tcp_traffic
tap_check "tcp: namespaces deleted, the shutdown resets its sockets (rds_tcp_reset)" \
	tcp_teardown
if rdma link show rxe0/1 2>/dev/null | grep -q ACTIVE && loaded rds_rdma; then
	tap_check "IB (rxe0): connection UP, CM ESTABLISHED, send/recv completions status 0" \
		ib_traffic
	tap_check "IB: rds-stress RDMA: mr_reg, reg_done, rw_done, mr_inv, all status 0" \
		ib_rdma
	tap_check "IB: no completion failed during the clean traffic" no_failed_completion
else
	for _ in 1 2 3; do
		tap_skip "IB tracepoints" "no rxe0 in this guest (vm.sh --rdma)"
	done
fi
if rdma link show siw0/1 2>/dev/null | grep -q ACTIVE && loaded rds_iwarp; then
	tap_check "iWARP (siw0): connection UP as iwarp, CM ESTABLISHED (rds_rdma.ko's events)" \
		iwarp_traffic
else
	tap_skip "iWARP tracepoints" "no siw0 or no rds_iwarp"
fi
tap_check "every event still registered after the traffic" all_fields
tap_check "the instance recorded no lost events" \
	bash -c "! grep -E 'LOST [0-9]+ EVENTS' '$INST/trace'"
tap_done
