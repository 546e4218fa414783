#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Oracle UEK's ABI beside mainline's (ours only: Linux's RDS has none of
# it). uek/uek-abi, built against UEK's own <rds.h>, takes UEK's
# SO_RDS_TRANSPORT (9), and resets an RDS/TCP connection between two
# namespaces mid-stream with RDS_CONN_RESET (8, told from mainline's 8 by
# its length) and RDS6_CONN_RESET (11): every message arrives once and in
# order, conn_reset counts the reset, and the lane's history
# (RDS6_INFO_CONN_PATHS) says "user reset". Then the read-only sysctls
# net.rds.pf_rds and sol_rds, and net.rds.ping_enable: 0 leaves rds-ping
# unanswered, 1 answers it again.
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/rds_tools.sh
. lib/netns_pair.sh
NETNS_A=uek-a NETNS_B=uek-b
T=$RDS_TOOLS
BIN=uek/uek-abi
N=29

tap_plan $N
skip_all() {
	local i
	for i in $(seq $N); do tap_skip "uek_abi $i" "$1"; done
	exit 0
}
grep -q O /sys/module/rds/taint 2>/dev/null ||
	skip_all "ours only (Linux's RDS has no UEK numbers)"
[ -x $BIN ] && [ -x uek/build/rds-tools-2.3.4/rds-stress ] || skip_all "uek/uek-abi not built: UEK's rds.h comes from rds-tools-2.3.4.tar.gz (../shared/clients, /work/shared/clients or RDS_UEK_TARBALL at build time)"
modprobe rds_tcp 2>/dev/null
grep -q '^rds_tcp ' /proc/modules || skip_all "no rds_tcp"
trap netns_pair_down EXIT
netns_pair_up || skip_all "could not make the namespace pair"

# uek-abi's own results, renumbered into this file's.
while read -r line; do
	case $line in
	"ok "*)		tap_ok "uek-abi: ${line#ok * - }" ;;
	"not ok "*)	tap_not_ok "uek-abi: ${line#not ok * - }" ;;
	"Bail out!"*)	tap_not_ok "uek-abi: $line" ;;
	esac
done < <(timeout 120 $BIN "$NETNS_A" "$NETNS_B" "$NETNS_A_IP" "$NETNS_B_IP" 2>&1)
# It prints 16 results; a crash prints fewer.
while [ "$TAP_N" -lt 16 ]; do tap_not_ok "uek-abi: result $((TAP_N + 1)) missing"; done

pf_rds_fixed() {
	! echo 5 2>/dev/null > /proc/sys/net/rds/pf_rds &&
		[ "$(sysctl -n net.rds.pf_rds)" = 21 ]
}
# Oracle's rds-tools 2.3.4 itself (pfhack.c reads net.rds.pf_rds).
U=uek/build/rds-tools-2.3.4
uek_stress() {	# PORT ARGS...: a 2 s run over loopback, both sides exit 0
	uek_stress_at 127.0.0.1 127.0.0.2 "$@"
}
uek_stress_at() {	# PASSIVE ACTIVE PORT ARGS...: the same between those
	local passive=$1 active=$2 port=$3 rc
	shift 3
	# Two addresses: its tasks bind the same ports on each side.
	timeout 60 $U/rds-stress -r "$passive" -p "$port" > /tmp/uek-stress.p 2>&1 &
	sleep 1
	timeout 60 $U/rds-stress -r "$active" -s "$passive" -p "$port" -T 2 "$@" \
		> /tmp/uek-stress.a 2>&1
	rc=$?
	wait $! || rc=1
	cat /tmp/uek-stress.a
	# A per-second line: 1 task, messages sent.
	[ "$rc" = 0 ] && awk '$1 == 1 && $2 > 0 { ok = 1 } END { exit !ok }' \
		/tmp/uek-stress.a
}
tap_check "rds-tools 2.3.4: rds-stress over loopback" uek_stress 4710
tap_check "rds-tools 2.3.4: rds-stress --async (every send's SUCCESS reported)" \
	uek_stress 4720 --async
paths_show() {	# rds-info -p lists the reset RDS/TCP lanes of namespace A
	local out
	out=$(ip netns exec "$NETNS_A" $U/rds-info -p 2>&1)
	echo "$out"
	[[ "$out" == *"$NETNS_B_IP"* ]] && [[ "$out" == *"user reset"* ]]
}
tap_check "rds-tools 2.3.4: rds-info -p shows the lane reset by the user" paths_show
tap_check "rds-tools 2.3.4: rds-ping -n 8 -c 2" \
	timeout 30 $U/rds-ping -n 8 -c 2 127.0.0.1

# The same tools over RDS/IB: rxe0's two addresses (vm.sh --rdma), TOS 3.
RXE_P=10.99.0.1 RXE_A=10.99.0.2
if grep -q '^rds_rdma ' /proc/modules &&
   ip -o addr show | grep -q "inet $RXE_A/"; then
	tap_check "rds-tools 2.3.4: rds-stress -v -Q 3 with 64 KiB RDMA over rxe" \
		uek_stress_at $RXE_P $RXE_A 4730 -v -Q 3 -D 65536
	rxe_reset() {	# --reset drops A -> P (TOS 3); rds-info -p says so
		local out
		timeout 30 $U/rds-stress -r $RXE_A -s $RXE_P -p 4740 -Q 3 --reset || return 1
		out=$(timeout 30 $U/rds-info -p 2>&1)
		echo "$out"
		# The record of A -> P, TOS 3: its lane's last drop.
		awk -v a=$RXE_A -v p=$RXE_P '
			/LocalAddr/ { rec = 0 }
			$1 == a && $2 == p && $3 == 3 { rec = 1; next }
			rec && /user reset/ { ok = 1 }
			END { exit !ok }' <<< "$out"
	}
	tap_check "rds-tools 2.3.4: rds-stress --reset drops the RDS/IB connection (rds-info -p: user reset)" \
		rxe_reset
	tap_check "after the reset, rds-ping -Q 3 over rxe is answered (it reconnected)" \
		timeout 30 $U/rds-ping -Q 3 -c 2 -I $RXE_A $RXE_P
else
	tap_skip "rds-tools 2.3.4: rds-stress -v -Q 3 with RDMA over rxe" "no rds_rdma or rxe0 addresses"
	tap_skip "rds-tools 2.3.4: rds-stress --reset over rxe" "no rds_rdma or rxe0 addresses"
	tap_skip "rds-ping over rxe after the reset" "no rds_rdma or rxe0 addresses"
fi
every_table() {	# rds-info -a: every table read, IPv6 ones too
	local out
	out=$(timeout 30 $U/rds-info -a 2>&1)
	echo "$out"
	[[ "$out" != *Unable* ]] && [[ "$out" == *"RDS Connections"* ]] &&
		[[ "$out" == *"::ffff:127.0.0.1"* || "$out" == *"127.0.0.1"* ]]
}
tap_check "rds-tools 2.3.4: rds-info -a reads every table" every_table

tap_check "net.rds.pf_rds reads 21 and cannot be written" pf_rds_fixed
tap_check "net.rds.sol_rds reads 276" \
	bash -c '[ "$(sysctl -n net.rds.sol_rds)" = 276 ]'

ping_once() {	# exit 0 if rds-ping 127.0.0.1 gets one answer within 2 s
	timeout 10 "$T/rds-ping" -c 1 -W 2 127.0.0.1
}
ping_default() {
	[ "$(sysctl -n net.rds.ping_enable)" = 1 ] && ping_once
}
tap_check "net.rds.ping_enable defaults to 1: rds-ping is answered" ping_default
sysctl -qw net.rds.ping_enable=0
tap_check_fails "net.rds.ping_enable 0: rds-ping is not answered" ping_once
sysctl -qw net.rds.ping_enable=1
tap_check "net.rds.ping_enable back to 1: answered again" ping_once
tap_done
