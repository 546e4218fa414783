#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDMA through the guest's soft RoCE device rxe0 (rds_rdma), between two
# of its addresses, 10.99.0.1 and 10.99.0.2 (the device loops back to
# itself, so each side has a real queue pair): the RDMA suite that runs
# over loopback as its own program (bin/rdma: registration, read, write,
# notifications, bad and freed cookies, use-once, FREE_MR racing the
# operations, plain atomics; rxe has no masked atomics, so those must be
# refused at sendmsg) and rds-stress's verified RDMA sessions
# (-D 65536 -M 0/1/2 -v with the get-mr, use-once and notify variants).
# What an adapter decides differently is the suite's business (rdma.c:
# on_adapter()).
#
# The same over iWARP (siw0, 10.98.0.1 and 10.98.0.2), where atomics
# must be refused at sendmsg and a refused READ or WRITE is reported
# dropped (the peer ends the stream: rdma.c's refused()).
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/rds_tools.sh
T=$RDS_TOOLS
PORT=6800
WORK=$(mktemp -d /tmp/rds-rdma-adapters.XXXXXX)
RDS_TOOLS_WORK=$WORK
trap 'rm -rf "$WORK"' EXIT
PLAN=10

loaded() { grep -q "^$1 " /proc/modules; }

# suite T S ENV...: bin/rdma with its regions on T and its operations
# from S; every test passes, and at least one ran.
suite() {
	local out rc
	out=$(env RDS_RDMA_T_ADDR="$1" RDS_RDMA_S_ADDR="$2" "${@:3}" \
		timeout 300 bin/rdma 2>&1)
	rc=$?
	echo "$out"
	[ "$rc" = 0 ] && ! grep -q '^not ok' <<< "$out" &&
		grep -q '^ok ' <<< "$out"
}

# conn LOCAL PEER TRANSPORT: rds-info lists that connection, up, on it
# (so the RDMA above went through the device, not loopback).
conn() {
	local info
	info=$("$T/rds-info" -n 2>&1)
	echo "$info"
	echo "$info" | awk -v l="$1" -v p="$2" -v t="$3" \
		'$1 == l && $2 == p && $6 == t && $7 ~ /C/ { f = 1 } END { exit !f }'
}

# stress LOCAL PEER MODE OPTS...: a verified rds-stress session with
# 64 KiB of RDMA per request, on a port of its own.
stress() {
	local port
	port=$(rds_session_port)
	rds_stress_pair "" "" "rdma$port" "$port" "$2" "$1" \
		-t 2 -d 4 -q 1024 -D 65536 -M "$3" -T 2 -z "${@:4}"
}

tap_plan $PLAN
if [ "${RDS_IMPL:-ours}" != ours ]; then
	for _ in $(seq $PLAN); do
		tap_skip "RDMA over rxe and siw" \
			"Linux's rds_rdma registers only on a connection, and has no iWARP"
	done
	exit 0
fi
loaded rds_rdma || modprobe rds_rdma 2>/dev/null
# adapter TAG TRANSPORT A B ENV: the five checks over one device, with the
# regions on B and the operations from A; ENV tells rdma.c the device.
adapter() {
	local tag=$1 trans=$2 a=$3 b=$4 env=$5
	tap_check "$tag: the RDMA suite (rdma.c), regions on $b, operations from $a" \
		suite "$b" "$a" "$env"
	tap_check "$tag: the connection is $trans" conn "$a" "$b" "$trans"
	tap_check "$tag: rds-stress -D 65536 -M 0 -v (read and write)" \
		stress "$a" "$b" 0
	tap_check "$tag: rds-stress -M 1 -v --rdma-use-get-mr (reads)" \
		stress "$a" "$b" 1 --rdma-use-get-mr
	tap_check "$tag: rds-stress -M 2 -v --rdma-use-once --rdma-use-notify (writes)" \
		stress "$a" "$b" 2 --rdma-use-once --rdma-use-notify
}

skip5() {
	for _ in 1 2 3 4 5; do
		tap_skip "$1" "$2"
	done
}

if rdma link show rxe0/1 2>/dev/null | grep -q ACTIVE; then
	adapter "IB (rxe0)" infiniband 10.99.0.1 10.99.0.2 \
		RDS_RDMA_NO_MASKED_ATOMICS=1
else
	skip5 "RDMA over IB (rxe0)" "no rxe0 in this guest (vm.sh --rdma)"
fi
if rdma link show siw0/1 2>/dev/null | grep -q ACTIVE &&
	{ loaded rds_iwarp || modprobe rds_iwarp 2>/dev/null; }; then
	adapter "iWARP (siw0)" iwarp 10.98.0.1 10.98.0.2 RDS_RDMA_IWARP=1
else
	skip5 "RDMA over iWARP (siw0)" "no siw0 or no rds_iwarp"
fi
tap_done
