#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS over TCP between two guests on one wire (scripts/vm/vm2.sh runs this on
# both; selftests/lib/wire.sh tells each its role): host b serves, host a
# is the client. Pings and verified rds-stress sessions over IPv4 and
# IPv6, one over a lossy wire (netem on both ends), and proof on both ends
# that they went over TCP. Either host may
# run either module set: RDS_IMPL (ours or intree, set per guest by vm.sh)
# names the one that must be loaded there, so the same script checks
# ours <-> ours, ours <-> in-tree interop both ways, and in-tree <-> in-tree.
#
#	scripts/vm/vm2.sh -- RDS_SUITE=hosts selftests/run.sh twohost
#	scripts/vm/vm2.sh --intree -- RDS_SUITE=hosts selftests/run.sh twohost
#
# Multipath is on with every pair: our rds_tcp offers Linux peers
# before 6.19 RDS_WIRE_LANES_LEGACY lanes (default 8, as Linux does; our
# own default is 1, see Documentation/transports.rst), and host a, the
# lower address, must have connected more than one lane to host b by the
# end; all 8, with no setting, when the peer names its lanes (ours, or
# Linux 6.19 and later: SPORT_IDX).
#
# RDS_WIRE_SECONDS: length of each rds-stress session (default 3);
# RDS_WIRE_SHORT=1: the short variant (fewer sessions).
# Outside a two-host guest it has nothing to do and skips.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/wire.sh
. lib/rds_tools.sh
. lib/wirecheck.sh
. lib/twohost.sh
SECS=${RDS_WIRE_SECONDS:-3}
SHORT=${RDS_WIRE_SHORT:-0}
PORT=4800
WC=$PWD/wirecheck/rds-wirecheck
WCPORT=5600
# 8 sockets (8 bound ports: spread over the lanes), 9 messages each, 0 B
# to 64 KiB.
WC_SENDERS=8
MSGS=9
twohost_begin twohost

has_addresses() {
	ip -br addr show wire0
	ip -br addr show wire0 | grep -qw "$RDS_WIRE_SELF/24" &&
		ip -br addr show wire0 | grep -qw "$RDS_WIRE_SELF6/64"
}

listens() {
	ss -Hltn "sport = :$RDS_TCP_PORT"
	[ -n "$(ss -Hltn "sport = :$RDS_TCP_PORT")" ]
}

# Linux 6.19 and later name their lanes by source port and say so
# (SPORT_IDX), as ours does: ours then gives every lane with no setting.
# Both hosts boot the same kernel.
peer_names_lanes() {
	local maj min
	peer_is_ours && return 0
	IFS=. read -r maj min _ <<< "$(uname -r)"
	[ "$maj" -gt 6 ] || { [ "$maj" = 6 ] && [ "$min" -ge 19 ]; }
}

# Ours offers an older Linux peer more than one lane only when told to.
lanes_for_linux() {
	[ "${RDS_IMPL:-}" = ours ] || { echo "Linux's rds_tcp: always 8 lanes"; return 0; }
	if peer_names_lanes; then
		echo "the peer names its lanes: all of them, no setting"
		return 0
	fi
	sysctl -w "net.rds.tcp.rds_tcp_lanes_legacy=${RDS_WIRE_LANES_LEGACY:-8}"
}

# Host a has the lower address: it connects every lane to host b; all 8
# when the peer names its lanes.
lanes_up() {
	local n want=2
	peer_names_lanes && want=8
	n=$(ss -Htn state established "( dport = :$RDS_TCP_PORT )" dst "$RDS_WIRE_PEER" | wc -l)
	echo "$n TCP connections to $RDS_WIRE_PEER:$RDS_TCP_PORT (want at least $want)"
	[ "$n" -ge "$want" ]
}

common() {
	echo "# host $ROLE: RDS_IMPL=${RDS_IMPL:-unset}, $RDS_WIRE_SELF $RDS_WIRE_SELF6 -> $RDS_WIRE_PEER $RDS_WIRE_PEER6; sessions of $SECS s"
	tap_check "host $ROLE: loaded module set is RDS_IMPL=${RDS_IMPL:-unset}" rds_impl_matches
	tap_check "host $ROLE: wire0 has $RDS_WIRE_SELF and $RDS_WIRE_SELF6" has_addresses
	tap_check "host $ROLE: rds_tcp listens on $RDS_TCP_PORT" listens
	tap_check "host $ROLE: multipath lanes with Linux peers too" lanes_for_linux
}

# Each host puts the lossy link on its own end of the wire (its egress).
netem_on() {
	tc qdisc replace dev wire0 root netem "${RDS_NETEM_LOSSY[@]}" &&
		tc qdisc show dev wire0
}

stress_args=(-t 2 -d 4 -q 4096 -a 64 -T "$SECS")
big_args=(-t 1 -d 4 -q 65536 -a 256 -T "$SECS")
case "$ROLE" in
b)
	if [ "$SHORT" = 1 ]; then tap_plan 7; else tap_plan 12; fi
	common
	wire_mark ready
	tap_check "host b: served rds-stress over IPv4: verified" \
		serve stress4 "$PORT" "$RDS_WIRE_SELF"
	tap_check "host b: served rds-stress over IPv6: verified" \
		serve stress6 $((PORT + 10)) "$RDS_WIRE_SELF6"
	tap_check "host b: rds-wirecheck from 8 sockets of host a: exactly once, in order, SHA-256 intact" \
		wc_recv wc $WCPORT "$RDS_WIRE_SELF"
	if [ "$SHORT" != 1 ]; then
		tap_check "host b: served rds-stress with 64 KiB requests: verified" \
			serve big $((PORT + 20)) "$RDS_WIRE_SELF"
		tap_check "host b: netem on wire0: ${RDS_NETEM_LOSSY[*]}" netem_on
		tap_check "host b: served rds-stress over the lossy wire, IPv4: verified" \
			serve lossy4 $((PORT + 30)) "$RDS_WIRE_SELF"
		tap_check "host b: the connection from host a is TCP (rds-info -n, socket)" \
			rds_tcp_conn "" "$RDS_WIRE_SELF" "$RDS_WIRE_PEER"
		tap_check "host b: rds-ping back to host a over IPv4: 5 of 5" \
			rds_ping_all "" 5 "$RDS_WIRE_PEER"
		wire_mark checked
	fi
	# Stay up until host a is through (its last checks need this host).
	wire_wait finished 300
	;;
a)
	if [ "$SHORT" = 1 ]; then tap_plan 11; else tap_plan 15; fi
	common
	tap_check "host a: rds-ping host b over IPv4: 5 of 5" ping_when_ready "$RDS_WIRE_PEER"
	tap_check "host a: rds-ping host b over IPv6: 5 of 5" ping_when_ready "$RDS_WIRE_PEER6"
	tap_check "host a: rds-stress to host b over IPv4: verified, messages both ways" \
		client stress4 "$PORT" "$RDS_WIRE_PEER" "$RDS_WIRE_SELF" "${stress_args[@]}"
	tap_check "host a: rds-stress to host b over IPv6: verified, messages both ways" \
		client stress6 $((PORT + 10)) "$RDS_WIRE_PEER6" "$RDS_WIRE_SELF6" "${stress_args[@]}"
	tap_check "host a: rds-wirecheck senders on 8 sockets ran until host b had all" wc_send wc $WCPORT "$RDS_WIRE_SELF" "$RDS_WIRE_PEER"
	if [ "$SHORT" != 1 ]; then
		tap_check "host a: rds-stress to host b, 64 KiB requests: verified" \
			client big $((PORT + 20)) "$RDS_WIRE_PEER" "$RDS_WIRE_SELF" "${big_args[@]}"
		tap_check "host a: netem on wire0: ${RDS_NETEM_LOSSY[*]}" netem_on
		tap_check "host a: rds-stress to host b over the lossy wire, IPv4: verified" \
			client lossy4 $((PORT + 30)) "$RDS_WIRE_PEER" "$RDS_WIRE_SELF" "${stress_args[@]}"
		tap_check "host a: the IPv6 messages went over TCP (rds-info -n, socket)" \
			rds_tcp_conn "" "$RDS_WIRE_SELF6" "$RDS_WIRE_PEER6"
	fi
	tap_check "host a: the IPv4 messages went over TCP (rds-info -n, socket)" \
		rds_tcp_conn "" "$RDS_WIRE_SELF" "$RDS_WIRE_PEER"
	tap_check "host a: multipath: more than one lane (all 8 if the peer names them) to host b" lanes_up
	# Host b checks its end and pings back in the full run: stay up.
	[ "$SHORT" = 1 ] || wire_wait checked 300
	wire_mark finished
	;;
esac
sed 's/^/# /' "$RDS_STRESS_SUMMARY" 2>/dev/null
tap_done
