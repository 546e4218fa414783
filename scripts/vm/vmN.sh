#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guests joined by one virtual wire: the test bed's real hosts for RDS
# over a network transport. Each guest is a vm.sh boot (one vCPU: the
# machine has two cores) with its own module set; vm.sh --wire adds the
# wire NIC (wire0: 10.99.1.N/24, fd99:1::N/64, no DAD) and a marker share.
# vm2.sh is this with two hosts.
#
#   vmN.sh [--hosts N] [options] -a 'CMD A' -b 'CMD B' [-c 'CMD C'...]
#   vmN.sh [--hosts N] [options] -- CMD      the same command on every host
#
# Hosts a, b, c... (N of them, 2 to 9, default 2) are 10.99.1.1, .2, .3...
# and fd99:1::1, ::2, ::3...; by convention b serves and a is the client.
# Two hosts are joined directly (a QEMU stream socket from b to a); three
# or more through a switch on the host (wire-switch.py: learns MACs,
# drops what a frozen guest does not read rather than wait for it). The
# commands run in the checkout with RDS_WIRE_* and RDS_IMPL in their
# environment and synchronise with selftests/lib/wire.sh (wire_mark,
# wire_wait).
#
# Options:
#   --hosts N       how many guests (default 2)
#   --impl-X ours|intree   module set of host X (a, b, c...; default ours:
#                   vm.sh stages our modules; intree is vm.sh --intree,
#                   Linux's own rds, rds_tcp, rds_rdma)
#   --intree-X, --intree   short for intree on host X, on every host
#   --kernel-X NAME kernel of host X, an intree host: a name of
#                   scripts/kernels (lib.sh's RDS_KERNEL: that release's
#                   kernel with its Debian root), e.g. 7.2 for a peer
#                   running the newest Linux we support
#   -X CMD          the command of host X
#   --nics M        wire NICs per guest, 1 or 2 (default 1). With 2 each
#                   guest has a second port, wire1 (10.99.2.N/24,
#                   fd99:2::N/64), on a second wire of its own (its own
#                   stream socket, or its own switch with three hosts or
#                   more): two fabrics, for failover tests
#   --rdma          soft RDMA devices in every guest (vm.sh --rdma), and
#                   rxe1 on the wire (RoCE between the hosts); rxe2 on
#                   wire1 with --nics 2
#   --timeout S     per guest (default 600)
#   --mem M         per guest (default 1024)
#   --pcap FILE     capture the wire (both directions, as host a's NIC
#                   sees it; frames cut to 256 bytes: headers) with QEMU's
#                   filter-dump; scripts/pcap/pcap-rds.py summarises it
#   --out DIR       keep everything: DIR/a, DIR/b... are each guest's vm.sh
#                   --out (rc, dmesg, results.tap...), DIR/wire the markers
#
# Each guest has a QEMU monitor, and the guests ask vmN.sh to use it
# (selftests/lib/wire.sh, wire_ctl): a request file ROLE.ctl.ID in the
# marker directory names the host (a, b, c...) and one of the commands
# below; vmN.sh runs it on that host's monitor and answers with
# ROLE.ctl.ID.done (the monitor's output, then "rc N"). Only these
# commands are served:
#   set_link wire on|off   the wire NIC's carrier (the guest sees the link
#                          go down; its addresses stay)
#   set_link wire1 on|off  the same for the second port (--nics 2)
#   stop, cont             freeze and thaw the whole guest
#
# Environment: as vm.sh's (KVER, MODDIR...), and RDS_VM_KERNEL and
# RDS_VM_APPEND, when set, boot that kernel image with that command line
# (lib.sh's rds_debug_kernel_env sets them for the debug kernel).
#
# Every kernel log comes back and is scanned (by vm.sh, logscan.sh): a
# splat on any host fails the run. Exit status: 0 only if every guest
# finished, every command exited 0 and every log is clean; else the
# first non-zero vm.sh status in host order a, b, c... (98: a guest did
# not finish, 99: a splat; see vm.sh).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

NAMES=(a b c d e f g h i)
HOSTS=2 NICS=1 RDMA=0 TIMEOUT=600 MEM=1024 OUTDIR="" PCAP=""
declare -A IMPL=() CMD=() KERN=()
host_name() {	# a..i: itself, else fails
	case "$1" in [a-i]) echo "$1" ;; *) return 1 ;; esac
}
while [ $# -gt 0 ]; do
	case "$1" in
	--hosts) HOSTS=$2; shift ;;
	--impl-?) h=$(host_name "${1#--impl-}") || die "unknown option $1"; IMPL[$h]=$2; shift ;;
	--intree-?) h=$(host_name "${1#--intree-}") || die "unknown option $1"; IMPL[$h]=intree ;;
	--intree) IMPL[all]=intree ;;
	--kernel-?) h=$(host_name "${1#--kernel-}") || die "unknown option $1"; KERN[$h]=$2; shift ;;
	--nics) NICS=$2; shift ;;
	--rdma) RDMA=1 ;;
	--timeout) TIMEOUT=$2; shift ;;
	--mem) MEM=$2; shift ;;
	--out) OUTDIR=$2; shift ;;
	--pcap) PCAP=$2; shift ;;
	-[a-i]) CMD[${1#-}]=$2; shift ;;
	--) shift; CMD[all]="$*"; break ;;
	*) die "unknown option $1 (commands go after -a, -b... or --)" ;;
	esac
	shift
done
case "$HOSTS" in [2-9]) ;; *) die "--hosts: 2 to 9" ;; esac
case "$NICS" in [12]) ;; *) die "--nics: 1 or 2" ;; esac
ROLES=("${NAMES[@]:0:HOSTS}")
for h in "${!IMPL[@]}" "${!CMD[@]}" "${!KERN[@]}"; do
	[ "$h" = all ] && continue
	[[ " ${ROLES[*]} " == *" $h "* ]] || die "host $h, but only ${ROLES[*]} (--hosts $HOSTS)"
done
for h in "${ROLES[@]}"; do
	IMPL[$h]=${IMPL[$h]:-${IMPL[all]:-ours}}
	CMD[$h]=${CMD[$h]:-${CMD[all]:-}}
	[ -n "${CMD[$h]}" ] || die "a command for each host (-a, -b... or --): none for $h"
	case "${IMPL[$h]}" in ours|intree) ;; *) die "module set must be ours or intree, not ${IMPL[$h]}" ;; esac
	# Our modules are built for the host's kernel (or the debug one).
	[ -z "${KERN[$h]:-}" ] || [ "${IMPL[$h]}" = intree ] ||
		die "--kernel-$h: only for an intree host"
	[ -z "${KERN[$h]:-}" ] || rds_kernel_suite "${KERN[$h]}" > /dev/null ||
		die "--kernel-$h: unknown kernel ${KERN[$h]} (known: $(rds_kernels | xargs))"
	# Its root now (minutes on first use), not while host a's guest
	# waits for its peer.
	[ -z "${KERN[$h]:-}" ] ||
		(unset RDS_ROOT; RDS_KERNEL=${KERN[$h]} rds_kernel_env) ||
		die "--kernel-$h: no root for kernel ${KERN[$h]}"
done

KEEP=0
if [ -n "$OUTDIR" ]; then
	KEEP=1
	mkdir -p "$OUTDIR" && OUTDIR=$(cd "$OUTDIR" && pwd) || die "cannot make $OUTDIR"
	for h in "${ROLES[@]}"; do rm -rf "${OUTDIR:?}/$h"; done
	rm -rf "$OUTDIR/wire"
else
	OUTDIR=$(mktemp -d /tmp/rds-vm2.XXXXXX)
fi
# The QEMU sockets live apart from the shares, in a short path (a unix
# socket's path is limited to 107 bytes).
SOCKDIR=$(mktemp -d /tmp/rds-wire.XXXXXX)
cleanup() {
	[ -n "${ctl_pid:-}" ] && kill "$ctl_pid" 2>/dev/null
	[ -n "${switch_pid:-}" ] && kill "$switch_pid" 2>/dev/null && wait "$switch_pid"
	[ -n "${switch1_pid:-}" ] && kill "$switch1_pid" 2>/dev/null && wait "$switch1_pid"
	rm -rf "$SOCKDIR"
	[ "$KEEP" = 1 ] || rm -rf "$OUTDIR"
}
trap cleanup EXIT
mkdir -p "$OUTDIR/wire"
# The wires, by QEMU netdev id: "wire" (wire0 in the guests) and with
# --nics 2 "wire1" (wire1 in the guests), each on a socket of its own.
SOCK=$SOCKDIR/wire.sock
SOCK1=""
[ "$NICS" = 2 ] && SOCK1=$SOCKDIR/wire1.sock

# The capture hangs on host a's end of the wire (vm.sh passes
# RDS_QEMU_EXTRA to QEMU; the netdev's id is "wire").
if [ -n "$PCAP" ]; then
	case "$PCAP" in /*) ;; *) PCAP=$PWD/$PCAP ;; esac
	case "$PCAP" in *[,[:space:]]*) die "--pcap: no commas or blanks in $PCAP" ;; esac
	rm -f "$PCAP"
fi

# Serve the guests' monitor requests until every guest is gone.
ctl_serve() {
	local req host cmd out rc
	while :; do
		for req in "$OUTDIR"/wire/*.ctl.*; do
			case "$req" in *.done|*.tmp|*"*"*) continue ;; esac
			[ -e "$req.done" ] && continue
			read -r host cmd < "$req"
			rc=2 out="vmN: refused monitor request '$host $cmd'"
			if [[ " ${ROLES[*]} " == *" $host "* ]]; then
				case "$cmd" in
				"set_link wire on"|"set_link wire off"|stop|cont)
					out=$("$REPO/scripts/vm/qmon.py" "$SOCKDIR/$host.mon" $cmd 2>&1)
					rc=$? ;;
				"set_link wire1 on"|"set_link wire1 off")
					if [ "$NICS" = 2 ]; then
						out=$("$REPO/scripts/vm/qmon.py" "$SOCKDIR/$host.mon" $cmd 2>&1)
						rc=$?
					else
						out="vmN: no wire1 (--nics 1)"
					fi ;;
				esac
			fi
			echo "vmN: monitor of host $host: $cmd (rc $rc)"
			printf '%s\nrc %d\n' "$out" "$rc" > "$req.done.tmp" &&
				mv "$req.done.tmp" "$req.done"
		done
		sleep 0.1
	done
}

# vm_host N: host N (1: a...), its console lines prefixed with its name.
vm_host() {
	local n=$1 name=${ROLES[$(($1 - 1))]} opts=() extra=${RDS_QEMU_EXTRA:-}
	[ -n "$PCAP" ] && [ "$n" = 1 ] &&
		extra="$extra -object filter-dump,id=wiredump,netdev=wire,file=$PCAP,maxlen=256"
	[ "${IMPL[$name]}" = intree ] && opts+=(--intree)
	[ "$RDMA" = 1 ] && opts+=(--rdma)
	[ -n "$SOCK1" ] && opts+=(--wire1 "$SOCK1")
	# Another kernel: this host's release (vm.sh finds its root), or
	# every host's (the debug kernel: lib.sh's rds_debug_kernel_env).
	local env=(env)
	if [ -n "${KERN[$name]:-}" ]; then
		env=(env -u RDS_VM_KERNEL -u RDS_VM_APPEND -u RDS_ROOT -u KVER
		     -u KDIR -u MODDIR RDS_KERNEL="${KERN[$name]}")
	else
		[ -n "${RDS_VM_KERNEL:-}" ] && opts+=(--kernel "$RDS_VM_KERNEL")
		[ -n "${RDS_VM_APPEND:-}" ] && opts+=(--append "$RDS_VM_APPEND")
	fi
	"${env[@]}" RDS_QEMU_EXTRA="$extra" "$REPO/scripts/vm/vm.sh" "${opts[@]}" --smp 1 --mem "$MEM" --timeout "$TIMEOUT" \
		--wire "$n:$SOCK:$OUTDIR/wire:$HOSTS" --monitor "$SOCKDIR/$name.mon" \
		--out "$OUTDIR/$name" -- "${CMD[$name]}" > >(sed -u "s/^/[$name] /") 2>&1
}

# wait_sock PID [SOCKET]: until the wire's socket (default wire0's)
# exists, or PID (the one that makes it) is gone: false then.
wait_sock() {
	local sock=${2:-$SOCK}
	while [ ! -S "$sock" ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.1
	done
	[ -S "$sock" ]
}

start=$(date +%s)
ctl_serve &
ctl_pid=$!
line="vmN:"
for ((i = 0; i < HOSTS; i++)); do
	h=${ROLES[$i]}
	line="$line host $h (${IMPL[$h]}${KERN[$h]:+ on ${KERN[$h]}}) 10.99.1.$((i + 1)) fd99:1::$((i + 1))"
	[ "$NICS" = 2 ] && line="$line + 10.99.2.$((i + 1)) fd99:2::$((i + 1))"
	[ $((i + 1)) -lt "$HOSTS" ] && line="$line <->"
done
echo "$line"
declare -A PID=() RC=()
first=1
if [ "$HOSTS" -gt 2 ]; then
	"$REPO/scripts/vm/wire-switch.py" "$SOCK" > >(sed -u "s/^/[switch] /") 2>&1 &
	switch_pid=$!
	wait_sock "$switch_pid" || die "the wire's switch did not start"
	if [ -n "$SOCK1" ]; then
		"$REPO/scripts/vm/wire-switch.py" "$SOCK1" > >(sed -u "s/^/[switch1] /") 2>&1 &
		switch1_pid=$!
		wait_sock "$switch1_pid" "$SOCK1" || die "the second wire's switch did not start"
	fi
else
	# Host b connects to host a's socket, which exists once a's QEMU
	# runs (vm.sh first builds or finds the initramfs, stages the
	# modules and, on first use with --rdma, builds siw: that can take
	# a while). A client that finds no socket would run with a dead
	# wire, so wait for it, or for host a's end (vm.sh failed before
	# QEMU ran); host a's own timeout bounds it.
	vm_host 1 &
	PID[a]=$!
	first=2
	if ! wait_sock "${PID[a]}" || { [ -n "$SOCK1" ] && ! wait_sock "${PID[a]}" "$SOCK1"; }; then
		wait "${PID[a]}"
		rc=$?
		echo "vmN: host a ended (vm.sh exit $rc) before it opened the wire" >&2
		[ "$rc" = 0 ] && rc=98
		exit "$rc"
	fi
fi
for ((i = first; i <= HOSTS; i++)); do
	vm_host "$i" &
	PID[${ROLES[$((i - 1))]}]=$!
done

# As each guest's run ends, tell the others (wire_wait then fails at
# once rather than at its timeout).
while [ "${#RC[@]}" -lt "$HOSTS" ]; do
	running=()
	for h in "${ROLES[@]}"; do
		[ -z "${RC[$h]:-}" ] && running+=("${PID[$h]}")
	done
	wait -n -p done_pid "${running[@]}"
	rc=$?
	for h in "${ROLES[@]}"; do
		if [ "${done_pid:-}" = "${PID[$h]}" ]; then
			RC[$h]=$rc
			: > "$OUTDIR/wire/$h.exited"
		fi
	done
done
line="vmN:"
for h in "${ROLES[@]}"; do line="$line host $h exit ${RC[$h]},"; done
echo "$line $(($(date +%s) - start)) s wall"
for h in "${ROLES[@]}"; do
	[ "${RC[$h]}" != 0 ] && exit "${RC[$h]}"
done
exit 0
