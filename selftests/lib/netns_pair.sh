# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Two network namespaces joined by a veth pair (sourced): two RDS hosts in
# one guest. RDS picks its loopback transport for a peer address that is
# local to the namespace, so a wire transport (TCP) is only exercised
# between namespaces; each namespace gets its own rds_tcp listener.
#
#	netns_pair_up            make them: $NETNS_A and $NETNS_B, veth
#	                         rdsva/rdsvb, 10.99.2.1/24 and 10.99.2.2/24,
#	                         fd99:2::1/64 and fd99:2::2/64 (no DAD)
#	netns_pair_netem ARGS... netem on both ends, e.g. "loss 5% duplicate
#	                         1% delay 1ms reorder 25% corrupt 0.1%"
#	                         (no ARGS: remove it)
#	netns_a CMD..., netns_b CMD...   run CMD in that namespace;
#	$NETNS_A_EXEC, $NETNS_B_EXEC     the same as a command prefix (for
#	                         timeout and the rds_tools.sh checks)
#	netns_pair_down          delete both (and so the veth pair)
#
# The addresses are a subnet of their own (the guest's eth0 has 10.99.0.x
# and fd99::x, the two-host wire 10.99.1.x and fd99:1::x).
NETNS_A=${NETNS_A:-rds-nsa}
NETNS_B=${NETNS_B:-rds-nsb}
NETNS_A_IP=10.99.2.1 NETNS_B_IP=10.99.2.2
NETNS_A_IP6=fd99:2::1 NETNS_B_IP6=fd99:2::2

NETNS_A_EXEC="ip netns exec $NETNS_A" NETNS_B_EXEC="ip netns exec $NETNS_B"
netns_a() { ip netns exec "$NETNS_A" "$@"; }
netns_b() { ip netns exec "$NETNS_B" "$@"; }

# One end: loopback up, DAD off before the link comes up (so the
# link-local address is not tentative either), IPv6 addresses kept when
# the link goes down (tests that flap it), the addresses.
netns_pair_end() {	# NETNS DEV IP IP6
	ip -n "$1" link set lo up &&
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.accept_dad=0" \
		"net.ipv6.conf.$2.keep_addr_on_down=1" &&
	ip -n "$1" link set "$2" up &&
	ip -n "$1" addr add "$3/24" dev "$2" &&
	ip -n "$1" -6 addr add "$4/64" dev "$2" nodad
}

netns_pair_up() {
	netns_pair_down 2>/dev/null
	ip netns add "$NETNS_A" && ip netns add "$NETNS_B" &&
	ip link add rdsva netns "$NETNS_A" type veth peer name rdsvb netns "$NETNS_B" &&
	netns_pair_end "$NETNS_A" rdsva "$NETNS_A_IP" "$NETNS_A_IP6" &&
	netns_pair_end "$NETNS_B" rdsvb "$NETNS_B_IP" "$NETNS_B_IP6"
}

netns_pair_netem() {
	local ns dev
	for ns in "$NETNS_A:rdsva" "$NETNS_B:rdsvb"; do
		dev=${ns#*:}
		ns=${ns%%:*}
		if [ $# = 0 ]; then
			tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null
		else
			tc -n "$ns" qdisc replace dev "$dev" root netem "$@" || return 1
		fi
	done
}

netns_pair_down() {
	local rc=0
	ip netns del "$NETNS_A" || rc=1
	ip netns del "$NETNS_B" || rc=1
	return "$rc"
}
