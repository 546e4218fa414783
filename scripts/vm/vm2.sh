#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two guests joined by one virtual wire: the test bed's two real hosts for
# RDS over a network transport. Each guest is a vm.sh boot (one vCPU: the
# machine has two cores) with its own module set; vm.sh --wire adds the
# wire NIC (wire0: 10.99.1.N/24, fd99:1::N/64, no DAD) and a marker share.
#
#   vm2.sh [options] -a 'CMD A' -b 'CMD B'   CMD A on host a, CMD B on host b
#   vm2.sh [options] -- CMD                   the same command on both
#
# Host a is 10.99.1.1 / fd99:1::1, host b 10.99.1.2 / fd99:1::2; by
# convention b serves and a is the client. The commands run in the
# checkout with RDS_WIRE_* and RDS_IMPL in their environment and
# synchronise with selftests/lib/wire.sh (wire_mark, wire_wait).
#
# Options:
#   --impl-a ours|intree, --impl-b ours|intree   module set of each host
#                   (default ours: vm.sh stages our modules; intree is
#                   vm.sh --intree, Linux's own rds, rds_tcp, rds_rdma)
#   --intree-a, --intree-b, --intree   short for intree on a, b, both
#   --rdma          soft RDMA devices in both (vm.sh --rdma), and rxe1 on
#                   the wire (RoCE between the hosts)
#   --timeout S     per guest (default 600)
#   --mem M         per guest (default 1024)
#   --pcap FILE     capture the wire (both directions, as host a's NIC
#                   sees it; frames cut to 256 bytes: headers) with QEMU's
#                   filter-dump; scripts/pcap/pcap-rds.py summarises it
#   --out DIR       keep everything: DIR/a and DIR/b are each guest's vm.sh
#                   --out (rc, dmesg, results.tap...), DIR/wire the markers
#
# Each guest has a QEMU monitor, and the guests ask vm2.sh to use it
# (selftests/lib/wire.sh, wire_ctl): a request file TARGET.ctl.N in the
# marker directory names the host (a or b) and one of the commands below;
# vm2.sh runs it on that host's monitor and answers with TARGET.ctl.N.done
# (the monitor's output, then "rc N"). Only these commands are served:
#   set_link wire on|off   the wire NIC's carrier (the guest sees the link
#                          go down; its addresses stay)
#   stop, cont             freeze and thaw the whole guest
#
# Environment: as vm.sh's (KVER, MODDIR...), and RDS_VM_KERNEL and
# RDS_VM_APPEND, when set, boot that kernel image with that command line
# (lib.sh's rds_debug_kernel_env sets them for the debug kernel).
#
# Both kernel logs come back and are scanned (by vm.sh, logscan.sh): a
# splat on either host fails the run. Exit status: 0 only if both guests
# finished, both commands exited 0 and both logs are clean; else host a's
# vm.sh status if it is not 0, else host b's (98: a guest did not finish,
# 99: a splat; see vm.sh).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

IMPL_A=ours IMPL_B=ours RDMA=0 TIMEOUT=600 MEM=1024 OUTDIR="" CMD_A="" CMD_B="" PCAP=""
while [ $# -gt 0 ]; do
	case "$1" in
	--impl-a) IMPL_A=$2; shift ;;
	--impl-b) IMPL_B=$2; shift ;;
	--intree-a) IMPL_A=intree ;;
	--intree-b) IMPL_B=intree ;;
	--intree) IMPL_A=intree; IMPL_B=intree ;;
	--rdma) RDMA=1 ;;
	--timeout) TIMEOUT=$2; shift ;;
	--mem) MEM=$2; shift ;;
	--out) OUTDIR=$2; shift ;;
	--pcap) PCAP=$2; shift ;;
	-a) CMD_A=$2; shift ;;
	-b) CMD_B=$2; shift ;;
	--) shift; CMD_A="$*"; CMD_B="$*"; break ;;
	*) die "unknown option $1 (commands go after -a, -b or --)" ;;
	esac
	shift
done
[ -n "$CMD_A" ] && [ -n "$CMD_B" ] || die "a command for each host (-a and -b, or --)"
for impl in "$IMPL_A" "$IMPL_B"; do
	case "$impl" in ours|intree) ;; *) die "module set must be ours or intree, not $impl" ;; esac
done

KEEP=0
if [ -n "$OUTDIR" ]; then
	KEEP=1
	mkdir -p "$OUTDIR" && OUTDIR=$(cd "$OUTDIR" && pwd) || die "cannot make $OUTDIR"
	rm -rf "$OUTDIR/a" "$OUTDIR/b" "$OUTDIR/wire"
else
	OUTDIR=$(mktemp -d /tmp/rds-vm2.XXXXXX)
fi
# The QEMU socket lives apart from the shares, in a short path (a unix
# socket's path is limited to 107 bytes).
SOCKDIR=$(mktemp -d /tmp/rds-wire.XXXXXX)
cleanup() {
	[ -n "${ctl_pid:-}" ] && kill "$ctl_pid" 2>/dev/null
	rm -rf "$SOCKDIR"
	[ "$KEEP" = 1 ] || rm -rf "$OUTDIR"
}
trap cleanup EXIT
mkdir -p "$OUTDIR/wire"
SOCK=$SOCKDIR/wire.sock

# The capture hangs on host a's end of the wire (vm.sh passes
# RDS_QEMU_EXTRA to QEMU; the netdev's id is "wire").
if [ -n "$PCAP" ]; then
	case "$PCAP" in /*) ;; *) PCAP=$PWD/$PCAP ;; esac
	case "$PCAP" in *[,[:space:]]*) die "--pcap: no commas or blanks in $PCAP" ;; esac
	rm -f "$PCAP"
fi

# Serve the guests' monitor requests until both guests are gone.
ctl_serve() {
	local req host cmd out rc
	while :; do
		for req in "$OUTDIR"/wire/*.ctl.*; do
			case "$req" in *.done|*.tmp|*"*"*) continue ;; esac
			[ -e "$req.done" ] && continue
			read -r host cmd < "$req"
			case "$host:$cmd" in
			[ab]:"set_link wire on"|[ab]:"set_link wire off"|[ab]:stop|[ab]:cont)
				out=$("$REPO/scripts/vm/qmon.py" "$SOCKDIR/$host.mon" $cmd 2>&1)
				rc=$? ;;
			*)	out="vm2: refused monitor request '$host $cmd'"
				rc=2 ;;
			esac
			echo "vm2: monitor of host $host: $cmd (rc $rc)"
			printf '%s\nrc %d\n' "$out" "$rc" > "$req.done.tmp" &&
				mv "$req.done.tmp" "$req.done"
		done
		sleep 0.1
	done
}

# vm_host N IMPL CMD: one guest, its console lines prefixed with its name.
vm_host() {
	local n=$1 impl=$2 cmd=$3 name opts=() extra=${RDS_QEMU_EXTRA:-}
	name=$( [ "$n" = 1 ] && echo a || echo b )
	[ -n "$PCAP" ] && [ "$n" = 1 ] &&
		extra="$extra -object filter-dump,id=wiredump,netdev=wire,file=$PCAP,maxlen=256"
	[ "$impl" = intree ] && opts+=(--intree)
	[ "$RDMA" = 1 ] && opts+=(--rdma)
	# Another kernel (the debug kernel: lib.sh's rds_debug_kernel_env).
	[ -n "${RDS_VM_KERNEL:-}" ] && opts+=(--kernel "$RDS_VM_KERNEL")
	[ -n "${RDS_VM_APPEND:-}" ] && opts+=(--append "$RDS_VM_APPEND")
	RDS_QEMU_EXTRA=$extra "$REPO/scripts/vm/vm.sh" "${opts[@]}" --smp 1 --mem "$MEM" --timeout "$TIMEOUT" \
		--wire "$n:$SOCK:$OUTDIR/wire" --monitor "$SOCKDIR/$name.mon" --out "$OUTDIR/$name" -- "$cmd" \
		> >(sed -u "s/^/[$name] /") 2>&1
}

start=$(date +%s)
ctl_serve &
ctl_pid=$!
echo "vm2: host a ($IMPL_A) 10.99.1.1 fd99:1::1 <-> host b ($IMPL_B) 10.99.1.2 fd99:1::2"
vm_host 1 "$IMPL_A" "$CMD_A" &
pid_a=$!
# Host b connects to host a's socket, which exists once a's QEMU runs
# (vm.sh first builds or finds the initramfs, stages the modules and, on
# first use with --rdma, builds siw: that can take a while). A client that
# finds no socket would run with a dead wire, so wait for it, or for host
# a's end (vm.sh failed before QEMU ran); host a's own timeout bounds it.
while [ ! -S "$SOCK" ] && kill -0 "$pid_a" 2>/dev/null; do
	sleep 0.1
done
if [ ! -S "$SOCK" ]; then
	wait "$pid_a"
	rc=$?
	echo "vm2: host a ended (vm.sh exit $rc) before it opened the wire" >&2
	[ "$rc" = 0 ] && rc=98
	exit "$rc"
fi
vm_host 2 "$IMPL_B" "$CMD_B" &
pid_b=$!

# As each guest's run ends, tell the other one (wire_wait then fails at
# once rather than at its timeout).
rc_a="" rc_b=""
while [ -z "$rc_a" ] || [ -z "$rc_b" ]; do
	running=()
	[ -z "$rc_a" ] && running+=("$pid_a")
	[ -z "$rc_b" ] && running+=("$pid_b")
	wait -n -p done_pid "${running[@]}"
	rc=$?
	if [ "${done_pid:-}" = "$pid_a" ]; then
		rc_a=$rc; : > "$OUTDIR/wire/a.exited"
	elif [ "${done_pid:-}" = "$pid_b" ]; then
		rc_b=$rc; : > "$OUTDIR/wire/b.exited"
	fi
done
echo "vm2: host a exit $rc_a, host b exit $rc_b, $(($(date +%s) - start)) s wall"
[ "$rc_a" != 0 ] && exit "$rc_a"
exit "$rc_b"
