#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The two-port test bed itself: each guest has wire0 (10.99.1.N) and
# wire1 (10.99.2.N) on two separate virtual wires (scripts/vm/vmN.sh
# --nics 2). Host a proves that each wire carries RDS/TCP and, with
# --rdma, RDS/IB (rxe1 on wire0, rxe2 on wire1) on its own: a ping over
# one wire moves that NIC's packet counters and not the other's. Then
# it takes its wire1 down from the host (wire_ctl self set_link wire1
# off): wire1 stops carrying anything, wire0 goes on, and once wire1 is
# back up it carries RDS again.
#
#	scripts/vm/vmN.sh --hosts 2 --nics 2 --rdma -- \
#		RDS_SUITE=hosts selftests/run.sh =twonic_smoke
#
# Outside a two-port guest it has nothing to do and skips.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/wire.sh
. lib/rds_tools.sh

if ! ROLE=$(wire_role) || [ "${RDS_WIRE_NICS:-1}" -lt 2 ]; then
	echo "1..0 # SKIP not a two-port guest (scripts/vm/vmN.sh --nics 2)"
	exit 0
fi
RDMA=0
rdma link show rxe1/1 > /dev/null 2>&1 && RDMA=1
TRANSPORTS=(tcp)
[ "$RDMA" = 1 ] && TRANSPORTS+=(ib)

# Each subnet is on-link on its own NIC only.
routes() {
	ip -br addr show wire0
	ip -br addr show wire1
	ip route
	ip -br addr show wire0 | grep -qw "$RDS_WIRE_SELF/24" &&
		ip -br addr show wire1 | grep -qw "$RDS_WIRE1_SELF/24" &&
		ip -br addr show wire1 | grep -qw "$RDS_WIRE1_SELF6/64" &&
		ip route get "$RDS_WIRE_PEER" | grep -q "dev wire0" &&
		ip route get "$RDS_WIRE1_PEER" | grep -q "dev wire1" &&
		ip -6 route get "$RDS_WIRE1_PEER6" | grep -q "dev wire1"
}

rxe_on() {	# DEV NIC
	rdma link show "$1/1"
	rdma link show "$1/1" | grep -q "state ACTIVE.*netdev $2"
}

pkts() {	# NIC: frames sent plus received
	echo $(($(cat "/sys/class/net/$1/statistics/tx_packets") +
		$(cat "/sys/class/net/$1/statistics/rx_packets")))
}

# ping_on NIC TRANSPORT [6]: 5 pings over NIC's subnet; NIC's counters
# move by at least 10 frames, the other NIC's by fewer than 5 (stray
# neighbour traffic at most).
ping_on() {
	local nic=$1 other=wire0 self peer a0 b0 a1 b1
	[ "$nic" = wire0 ] && other=wire1
	self=$(wire_nic_addr "${nic#wire}" "$ROLE" "${3:-}") &&
		peer=$(wire_nic_addr "${nic#wire}" "$(wire_peer_role)" "${3:-}") || return 1
	a0=$(pkts "$nic") b0=$(pkts "$other")
	rds_ping_all "" 5 --transport "$2" -I "$self" "$peer" || return 1
	a1=$(pkts "$nic") b1=$(pkts "$other")
	echo "$nic: $((a1 - a0)) frames, $other: $((b1 - b0))"
	[ $((a1 - a0)) -ge 10 ] && [ $((b1 - b0)) -lt 5 ]
}

# ping_dead NIC TRANSPORT: no answer over NIC and no frame on it.
ping_dead() {
	local self peer out
	self=$(wire_nic_addr "${1#wire}" "$ROLE") &&
		peer=$(wire_nic_addr "${1#wire}" "$(wire_peer_role)") || return 1
	cat /sys/class/net/"$1"/carrier
	out=$(timeout 30 "$RDS_TOOLS/rds-ping" -c 2 -i 0.5 -W 2 --transport "$2" -I "$self" "$peer" 2>&1)
	echo "$out"
	[ "$(cat "/sys/class/net/$1/carrier")" = 0 ] && ! echo "$out" | grep -q ' usec$'
}

# ping_back NIC TRANSPORT: answers again within 60 s of the carrier's
# return (TCP's retransmission backoff, the IB QP's retries).
ping_back() {
	local self peer i
	self=$(wire_nic_addr "${1#wire}" "$ROLE") &&
		peer=$(wire_nic_addr "${1#wire}" "$(wire_peer_role)") || return 1
	for ((i = 0; i < 12; i++)); do
		rds_ping_all "" 1 --transport "$2" -I "$self" "$peer" && return 0
	done
	return 1
}

link1() { wire_ctl self set_link wire1 "$1"; }

plan=3
[ "$RDMA" = 1 ] && plan=$((plan + 2))
case "$ROLE" in
b)
	tap_plan $plan
	tap_check "host b: wire0 and wire1 on their own subnets" routes
	if [ "$RDMA" = 1 ]; then
		tap_check "host b: rxe1 ACTIVE on wire0" rxe_on rxe1 wire0
		tap_check "host b: rxe2 ACTIVE on wire1" rxe_on rxe2 wire1
	fi
	tap_check "host b: wire_ctl refuses nothing it serves: set_link wire1 on" \
		wire_ctl self set_link wire1 on
	wire_mark sm-ready
	tap_check "host b: host a finished" wire_wait sm-finished 600
	;;
a)
	tap_plan $((plan + 2 + ${#TRANSPORTS[@]} * 5))
	tap_check "host a: wire0 and wire1 on their own subnets" routes
	if [ "$RDMA" = 1 ]; then
		tap_check "host a: rxe1 ACTIVE on wire0" rxe_on rxe1 wire0
		tap_check "host a: rxe2 ACTIVE on wire1" rxe_on rxe2 wire1
	fi
	tap_check "host a: host b is up" wire_wait sm-ready 300
	tap_check "host a: RDS/TCP over IPv6 on wire1 alone" ping_on wire1 tcp 6
	for t in "${TRANSPORTS[@]}"; do
		tap_check "host a: RDS/$t on wire0 alone" ping_on wire0 "$t"
		tap_check "host a: RDS/$t on wire1 alone" ping_on wire1 "$t"
	done
	tap_check "host a: set_link wire1 off" link1 off
	for t in "${TRANSPORTS[@]}"; do
		tap_check "host a: wire1 down: RDS/$t over it gets no answer" ping_dead wire1 "$t"
		tap_check "host a: wire1 down: RDS/$t on wire0 unaffected" ping_on wire0 "$t"
	done
	tap_check "host a: set_link wire1 on" link1 on
	for t in "${TRANSPORTS[@]}"; do
		tap_check "host a: wire1 back: RDS/$t over it answers again" ping_back wire1 "$t"
	done
	wire_mark sm-finished
	;;
esac
tap_done
