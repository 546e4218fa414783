# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The steps the three-host programs (hosts/three_hog.sh, three_sndbuf.sh)
# share: three guests on one wire (scripts/vm/vmN.sh --hosts 3 --rdma),
# a and b alive throughout, c the one that dies. Sourced after lib/tap.sh,
# lib/wire.sh and lib/rds_tools.sh; the caller calls three_begin NAME.
#
#	RDS_THREE_TRANSPORTS  "tcp ib" (default: tcp, and ib too when rxe1
#	                      is on wire0): RDS/TCP, RDS/IB over rxe1
#	RDS_THREE_DEATHS      how c dies: "stop" (frozen: QEMU's stop),
#	                      "link" (its wire loses its carrier); default
#	                      "stop link", RDS_WIRE_SHORT=1: stop over TCP,
#	                      link over IB

loaded() { grep -q "^$1 " /proc/modules; }

# three_begin NAME: scratch directory, ROLE, every host's module set in
# IMPL[a], IMPL[b], IMPL[c]; outside a three-host guest, skip the program.
three_begin() {
	local h i
	THREE_WORK=$(mktemp -d "/tmp/rds-$1.XXXXXX")
	trap 'rm -rf "$THREE_WORK"' EXIT
	if ! ROLE=$(wire_role) || [ "${RDS_WIRE_HOSTS:-2}" -lt 3 ]; then
		echo "1..0 # SKIP not a three-host guest (run it through scripts/vm/vmN.sh --hosts 3)"
		exit 0
	fi
	wire_mark "$1.impl-${RDS_IMPL:-unset}"
	declare -gA IMPL=()
	for h in a b c; do
		for ((i = 0; i < 1200; i++)); do
			if [ -e "$RDS_WIRE_DIR/$h.$1.impl-ours" ]; then
				IMPL[$h]=ours; break
			elif [ -e "$RDS_WIRE_DIR/$h.$1.impl-intree" ]; then
				IMPL[$h]=intree; break
			fi
			sleep 0.1
		done
		[ -n "${IMPL[$h]:-}" ] ||
			{ echo "1..0 # SKIP host $h never said its module set"; exit 0; }
	done
	HAD_RXE1=0
	rdma link show rxe1/1 >/dev/null 2>&1 && HAD_RXE1=1
	TRANSPORTS=${RDS_THREE_TRANSPORTS:-tcp}
	[ -z "${RDS_THREE_TRANSPORTS:-}" ] && [ "$HAD_RXE1" = 1 ] && TRANSPORTS="tcp ib"
	echo "# host $ROLE ($RDS_WIRE_SELF): a ${IMPL[a]}, b ${IMPL[b]}, c ${IMPL[c]}; transports $TRANSPORTS"
}

# three_deaths TRANSPORT: the ways c dies in this run.
three_deaths() {
	if [ -n "${RDS_THREE_DEATHS:-}" ]; then
		echo "$RDS_THREE_DEATHS"
	elif [ "${RDS_WIRE_SHORT:-0}" = 1 ]; then
		if [ "$1" = tcp ]; then echo stop; else echo link; fi
	else
		echo "stop link"
	fi
}

# three_load TRANSPORT: RDS with only that transport (both RDS/TCP and
# RDS/IB would take wire0's addresses; one must be alone).
three_load() {
	local m mods
	case "$1" in
	tcp) mods=rds_tcp ;;
	ib) mods=rds_rdma ;;
	*) echo "transport $1 is tcp or ib"; return 1 ;;
	esac
	for m in rds_tcp rds_iwarp rds_rdma rds_loop rds; do
		if loaded "$m"; then rmmod "$m" || return 1; fi
	done
	modprobe -a $mods || return 1
	lsmod | grep '^rds'
	rds_impl_matches rds $mods
}

# three_restore: the boot's modules back, for the next program.
three_restore() {
	local m
	for m in rds_tcp rds_iwarp rds_rdma rds_loop rds; do
		if loaded "$m"; then rmmod "$m" || return 1; fi
	done
	# shellcheck disable=SC2046
	if [ "${RDS_IMPL:-}" = ours ]; then
		modprobe -a rds rds_loop rds_tcp $([ "$HAD_RXE1" = 1 ] && echo rds_rdma rds_iwarp)
	else
		modprobe -a rds rds_tcp $([ "$HAD_RXE1" = 1 ] && echo rds_rdma)
	fi
}

# three_party ITEM TAG DEATH: this host's part (hosts/three_party.py),
# its NAME=VALUE results in $THREE_WORK/TAG.
three_party() {
	local rc
	RDS_TOOLS=$RDS_TOOLS python3 hosts/three_party.py "$1" "$ROLE" "$2" "$3" \
		> "$THREE_WORK/$2" 2> "$THREE_WORK/$2.log"
	rc=$?
	cat "$THREE_WORK/$2.log" "$THREE_WORK/$2"
	return $rc
}

# three_val TAG NAME: a value three_party printed.
three_val() {
	awk -F= -v n="$2" '$1 == n { print $2 }' "$THREE_WORK/$1"
}

# three_sync TAG: all three hosts are at TAG (each waits for the others).
three_sync() {
	local h
	wire_mark "$1"
	for h in a b c; do
		[ "$h" = "$ROLE" ] && continue
		wire_wait "$1" 300 "$h" || return 1
	done
}
