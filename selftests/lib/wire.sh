# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers (sourced) for a command that scripts/vm/vmN.sh (vm2.sh: two
# hosts) runs in each guest. guest-init.sh exports the wire's plan:
#	RDS_WIRE_HOST   1 (host a, the client side by convention), 2 (host
#	                b), 3 (host c)...
#	RDS_WIRE_HOSTS  how many hosts are on the wire (2 under vm2.sh)
#	RDS_WIRE_SELF, RDS_WIRE_PEER     10.99.1.N (the peer: b for a, else a)
#	RDS_WIRE_SELF6, RDS_WIRE_PEER6   fd99:1::N
#	RDS_WIRE_DIR    a directory every guest shares (9p, uncached)
#	RDS_WIRE_NICS   wire NICs per guest: 1, or 2 under vmN.sh --nics 2,
#	                when the second port wire1 has these too:
#	RDS_WIRE1_SELF, RDS_WIRE1_PEER   10.99.2.N
#	RDS_WIRE1_SELF6, RDS_WIRE1_PEER6 fd99:2::N
# The guests synchronise through marker files in that directory rather
# than over the wire itself, so a broken wire shows up as a failed test,
# not as a hang in the synchronisation. vmN.sh writes "a.exited",
# "b.exited"... there when a guest's run is over, so waiting for a host
# that is gone fails at once instead of running into the timeout.
#
#	wire_role          prints a, b, c...
#	wire_addr HOST [6] prints HOST's address on the wire (IPv6 with 6)
#	wire_nic_addr NIC HOST [6]  the same on wire NIC (0: wire0, 1: wire1)
#	wire_mark NAME     tell the others NAME happened (a file ROLE.NAME)
#	wire_wait NAME [S [HOST]]  wait up to S seconds (default 120) for
#	                   HOST's NAME (default: the peer's)
#	wire_ctl HOST CMD  run CMD on the QEMU monitor of HOST (self, peer, a,
#	                   b, c...) through vmN.sh: "set_link wire on|off"
#	                   (wire0's carrier), "set_link wire1 on|off" (the
#	                   second port's, --nics 2), "stop" or "cont" (freeze,
#	                   thaw)

WIRE_ROLES=abcdefghi

# wire_frames NIC: frames NIC has sent and received, both together.
wire_frames() {
	echo $(($(cat "/sys/class/net/$1/statistics/tx_packets") +
		$(cat "/sys/class/net/$1/statistics/rx_packets")))
}

wire_role() {
	case "${RDS_WIRE_HOST:-}" in
	[1-9]) echo "${WIRE_ROLES:$((RDS_WIRE_HOST - 1)):1}" ;;
	*) return 1 ;;
	esac
}

wire_peer_role() {
	case "${RDS_WIRE_HOST:-}" in
	1) echo b ;;
	[2-9]) echo a ;;
	*) return 1 ;;
	esac
}

# wire_host_num HOST: 1 for a, 2 for b...; fails for anything else.
wire_host_num() {
	local pre=${WIRE_ROLES%%"$1"*}
	[ "${#1}" = 1 ] && [ "$pre" != "$WIRE_ROLES" ] || return 1
	echo $((${#pre} + 1))
}

wire_addr() {	# HOST [6]
	wire_nic_addr 0 "$@"
}

wire_nic_addr() {	# NIC HOST [6]
	local n w=$(($1 + 1))
	case "$1" in 0) ;; 1) [ "${RDS_WIRE_NICS:-1}" -gt 1 ] || return 1 ;; *) return 1 ;; esac
	n=$(wire_host_num "$2") || return 1
	if [ "${3:-}" = 6 ]; then echo "fd99:$w::$n"; else echo "10.99.$w.$n"; fi
}

wire_mark() {
	local f
	f=$RDS_WIRE_DIR/$(wire_role).$1
	# Written under another name and renamed: the peer never sees a
	# marker whose contents are still being written.
	date +%s.%N > "$f.tmp" && mv "$f.tmp" "$f"
}

wire_wait() {
	local name=$1 secs=${2:-120} peer=${3:-} i
	[ -n "$peer" ] || peer=$(wire_peer_role) || return 1
	for ((i = 0; i < secs * 10; i++)); do
		[ -e "$RDS_WIRE_DIR/$peer.$name" ] && return 0
		if [ -e "$RDS_WIRE_DIR/$peer.exited" ]; then
			echo "wire: host $peer finished without marking '$name'" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "wire: host $peer did not mark '$name' within $secs s" >&2
	return 1
}

# A request file ROLE.ctl.ID for vmN.sh's monitor server, answered by
# ROLE.ctl.ID.done ("rc N" last); the ID (shell and time) is unique even
# from subshells, which tap_check runs its commands in.
wire_ctl() {
	local host=$1 req i rc
	shift
	case "$host" in
	self) host=$(wire_role) || return 1 ;;
	peer) host=$(wire_peer_role) || return 1 ;;
	*) wire_host_num "$host" > /dev/null ||
		{ echo "wire_ctl: host must be self, peer, a, b, c..." >&2; return 1; } ;;
	esac
	req=$RDS_WIRE_DIR/$(wire_role).ctl.$BASHPID.$(date +%s%N)
	echo "$host $*" > "$req.tmp" && mv "$req.tmp" "$req" || return 1
	for ((i = 0; i < 300; i++)); do
		if [ -e "$req.done" ]; then
			rc=$(awk '$1 == "rc" { r = $2 } END { print r + 0 }' "$req.done")
			[ "$rc" = 0 ] || sed 's/^/wire_ctl: /' "$req.done" >&2
			return "$rc"
		fi
		sleep 0.1
	done
	echo "wire_ctl: no answer to '$host $*' within 30 s" >&2
	return 1
}
