#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel under QEMU/TCG with the host's / as a read-only 9p root,
# load our freshly built modules and run a command inside.
#
#   vm.sh [options] [--] COMMAND...   run COMMAND (bash) in the repo dir
#   vm.sh --interactive               a shell on the console
#
# Options:
#   --rdma          bring up soft RDMA devices rxe0 (RoCE) and siw0 (iWARP)
#   --no-load       do not modprobe our modules (the command will)
#   --intree        Linux's own RDS instead of ours: nothing staged,
#                   rds rds_tcp rds_rdma loaded from the kernel's tree
#   --installed     nothing staged, nothing loaded, no overlay: modprobe
#                   finds what the root's /lib/modules holds, as packages
#                   installed it (scripts/deb/check-deb.sh); not with --rdma
#   --kernel IMG    kernel image (default /boot/vmlinuz-KVER)
#   --root DIR      the guest's root instead of the host's / (a Debian
#                   root from debian-root.sh, with its kernel: RDS_KERNEL)
#   --append ARGS   extra kernel command line
#   --smp N --mem M --timeout SECONDS
#   --icount        deterministic instruction counting (-smp 1)
#   --out DIR       keep results (rc, dmesg) in DIR
#   --expect-splat  invert the log scan (for the runner's self-test)
#   --wire N:SOCK:DIR[:HOSTS]  be host N (1 to 9) of HOSTS (default 2)
#                   on one wire (scripts/vm/vmN.sh): a third NIC on the
#                   QEMU stream socket SOCK, renamed wire0 in the guest
#                   with 10.99.1.N/24 and fd99:1::N/64, and DIR shared
#                   with every guest on /run/wire for their markers
#                   (selftests/lib/wire.sh). Two hosts are joined
#                   directly (host 1 listens on SOCK, host 2 connects);
#                   with more, every host connects to vmN.sh's switch
#   --wire1 SOCK    with --wire: a second wire NIC (a second port per
#                   node) on its own wire, the stream socket SOCK (its
#                   own switch with three hosts or more): renamed wire1
#                   with 10.99.2.N/24 and fd99:2::N/64; QEMU netdev id
#                   "wire1" (wire0's is "wire")
#   --monitor SOCK  a QEMU human monitor on the unix socket SOCK (vmN.sh
#                   serves the guests' link and freeze requests on it)
#   --plugin SO[,ARG=VAL...]  load the QEMU TCG plugin SO with its
#                   arguments (-plugin file=SO,ARGS; scripts/bench/insnprof.sh
#                   counts instructions per kernel symbol with one)
#
# Environment: KDIR/KVER pick the kernel (see lib.sh); MODDIR is its
# modules dir (default /lib/modules/KVER; a kernel built elsewhere, like
# the debug kernel, passes its INSTALL_MOD_PATH/lib/modules/KVER, which the
# guest then uses as the overlay's lower dir); RDS_LOGSCAN_IGNORE is handed
# to logscan.sh. RDS_KERNEL=NAME (lib.sh) boots another release's kernel
# with its root (sets KVER, MODDIR, RDS_ROOT and RDS_VM_KERNEL).
#
# Exit status: the command's, else 98 if the guest never finished (panic,
# hang, timeout) or 99 if the kernel log has a splat.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

RDMA=0 LOAD=1 INTERACTIVE=0 INSTALLED=0 SMP=2 MEM=2048 TIMEOUT=1200 ICOUNT=0
KERNEL="" APPEND="" OUTDIR="" EXPECT_SPLAT=0 INTREE=0 ROOT="" WIRE="" WIRE1="" MONITOR="" PLUGIN=""
while [ $# -gt 0 ]; do
	case "$1" in
	--rdma) RDMA=1 ;;
	--no-load) LOAD=0 ;;
	--intree) INTREE=1 ;;
	--installed) INSTALLED=1 LOAD=0 ;;
	--interactive) INTERACTIVE=1 ;;
	--kernel) KERNEL=$2; shift ;;
	--root) ROOT=$2; shift ;;
	--append) APPEND=$2; shift ;;
	--smp) SMP=$2; shift ;;
	--mem) MEM=$2; shift ;;
	--timeout) TIMEOUT=$2; shift ;;
	--icount) ICOUNT=1; SMP=1 ;;
	--out) OUTDIR=$2; shift ;;
	--expect-splat) EXPECT_SPLAT=1 ;;
	--wire) WIRE=$2; shift ;;
	--wire1) WIRE1=$2; shift ;;
	--monitor) MONITOR=$2; shift ;;
	--plugin) PLUGIN=$2; shift ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
JOB="$*"
[ -n "$JOB" ] || [ "$INTERACTIVE" = 1 ] || die "no command (or --interactive)"
[ "$INSTALLED" = 1 ] && [ "$RDMA" = 1 ] && die "--installed stages no siw: no --rdma"

WIRE_N="" WIRE_SOCK="" WIRE_DIR="" WIRE_HOSTS=""
if [ -n "$WIRE" ]; then
	IFS=: read -r WIRE_N WIRE_SOCK WIRE_DIR WIRE_HOSTS <<< "$WIRE"
	WIRE_HOSTS=${WIRE_HOSTS:-2}
	case "$WIRE_HOSTS" in [2-9]) ;; *) die "--wire: 2 to 9 hosts" ;; esac
	case "$WIRE_N" in [1-9]) ;; *) die "--wire: host number must be 1 to 9" ;; esac
	[ "$WIRE_N" -le "$WIRE_HOSTS" ] || die "--wire: host $WIRE_N of $WIRE_HOSTS"
	[ -d "$WIRE_DIR" ] || die "--wire: no marker directory $WIRE_DIR"
	[ -n "$WIRE_SOCK" ] || die "--wire: no socket path"
fi
[ -z "$WIRE1" ] || [ -n "$WIRE" ] || die "--wire1 needs --wire"

rds_kernel_env
ROOT=${ROOT:-${RDS_ROOT:-}}
if [ -n "$ROOT" ] && [ -z "${KVER:-}" ]; then
	KVER=$(ls "$ROOT/lib/modules" | sort -V | tail -n1)
fi
KVER=$(rds_kver)
RDS_MODULES="net/rds.ko transports/loop/rds_loop.ko transports/tcp/rds_tcp.ko transports/ib/rds_rdma.ko transports/iwarp/rds_iwarp.ko"
KERNEL=${KERNEL:-$ROOT/boot/vmlinuz-$KVER}
[ -f "$KERNEL" ] || die "no kernel image $KERNEL"
MODDIR=${MODDIR:-$ROOT/lib/modules/$KVER}

# The guest gets the checkout as a share of its own, mounted at the same
# path (the host's / alone would not do: the guest's tmpfs hides a clone
# under /tmp). The path travels on the kernel command line.
case "$REPO" in
*[[:space:]]*) die "the checkout's path must not contain blanks: $REPO" ;;
esac

if [ "$INTREE" = 0 ] && [ "$INSTALLED" = 0 ]; then
	for ko in $RDS_MODULES; do
		[ -f "$REPO/$ko" ] || die "$ko not built: run make"
	done
fi

INITRD=$("$REPO/scripts/vm/mkinitramfs.sh" "$KVER" "$MODDIR") ||
	die "initramfs build failed"
SIW_KO=""
# A kernel that ships siw itself (the debug kernel) needs no side build.
if [ "$RDMA" = 1 ] && [ -z "$(find "$MODDIR/kernel" -name 'siw.ko*' 2>/dev/null)" ]; then
	SIW_KO=$("$REPO/scripts/kernel/build-siw.sh") || die "siw build failed"
fi

if [ -n "$OUTDIR" ]; then
	mkdir -p "$OUTDIR"
	rm -f "$OUTDIR/rc" "$OUTDIR/dmesg"
else
	OUTDIR=$(mktemp -d /tmp/rds-vm.XXXXXX)
	trap 'rm -rf "$OUTDIR"' EXIT
fi

# Stage our modules as a DKMS install would place them (updates/ wins over
# the in-tree kernel/net/rds) and run depmod here, natively: the guest
# only stacks this directory over its /lib/modules/KVER with overlayfs.
stage_modules() {
	local tree=$OUTDIR/depmod-tree/lib/modules/$KVER f
	rm -rf "$OUTDIR/depmod-tree" "$OUTDIR/modules"
	mkdir -p "$tree/updates/rds" "$tree/updates/extra"
	for f in "$MODDIR"/*; do
		case "$f" in */modules.dep*|*/modules.alias*|*/modules.symbols*|\
			*/modules.devname|*/modules.softdep|*/modules.weakdep) ;;
		*) ln -s "$f" "$tree/" ;;
		esac
	done
	for f in $RDS_MODULES; do
		cp "$REPO/$f" "$tree/updates/rds/"
	done
	[ -n "$SIW_KO" ] && cp "$SIW_KO" "$tree/updates/extra/"
	depmod -b "$OUTDIR/depmod-tree" "$KVER" || return 1
	mkdir -p "$OUTDIR/modules"
	cp -r "$tree/updates" "$OUTDIR/modules/"
	cp "$tree"/modules.* "$OUTDIR/modules/" 2>/dev/null
	rm -rf "$OUTDIR/depmod-tree"
}
if [ "$INSTALLED" = 1 ]; then
	RDS_LOAD=""
	mkdir -p "$OUTDIR/modules"
elif [ "$INTREE" = 1 ]; then
	# Only siw joins the kernel's own tree; RDS is Linux's.
	RDS_MODULES=""
	stage_modules || die "depmod of the staged modules failed"
	RDS_LOAD="rds rds_tcp rds_rdma"
else
	stage_modules || die "depmod of the staged modules failed"
	RDS_LOAD="rds rds_loop rds_tcp rds_rdma rds_iwarp"
fi

{
	printf 'REPO=%q\n' "$REPO"
	printf 'RDMA=%q LOAD=%q INTERACTIVE=%q\n' "$RDMA" "$LOAD" "$INTERACTIVE"
	printf 'RDS_LOAD=%q\n' "$RDS_LOAD"
	printf 'RDS_IMPL=%q\n' "$([ "$INTREE" = 1 ] && echo intree || echo ours)"
	printf 'STAGED=%q\n' "$((1 - INSTALLED))"
	printf 'WIRE=%q WIRE_MAC=%q WIRE_HOSTS=%q\n' "$WIRE_N" "$RDS_WIRE_MAC_PREFIX$WIRE_N" "$WIRE_HOSTS"
	printf 'WIRE_NICS=%q WIRE1_MAC=%q\n' "$([ -n "$WIRE1" ] && echo 2 || echo 1)" "$RDS_WIRE1_MAC_PREFIX$WIRE_N"
	printf 'MODDIR=%q\n' "${MODDIR#"$ROOT"}"
	printf 'JOB=%q\n' "$JOB"
} > "$OUTDIR/job.env"

accel=(-accel tcg)
[ "$ICOUNT" = 1 ] && accel=(-accel tcg -icount shift=3,sleep=off)
# no_timer_check: under TCG on a loaded host the IO-APIC timer check can
# miss its ticks and panic the boot ("IO-APIC + timer doesn't work!").
quiet="quiet loglevel=4"
[ "$INTERACTIVE" = 1 ] && quiet="loglevel=4"

qemu=(qemu-system-x86_64 "${accel[@]}" -machine q35 -cpu max
	-smp "$SMP" -m "$MEM" -nographic -no-reboot -nodefaults
	-serial mon:stdio -bios qboot.rom
	-kernel "$KERNEL" -initrd "$INITRD"
	-append "console=ttyS0 $quiet no_timer_check panic=-1 oops=panic_on_warn=0 rdstb.repo=$REPO rdstb.init=$REPO/scripts/vm/guest-init.sh $APPEND"
	-fsdev local,id=root,path="${ROOT:-/}",security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=root,mount_tag=host
	-fsdev local,id=repo,path="$REPO",security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=repo,mount_tag=repo
	-fsdev local,id=out,path="$OUTDIR",security_model=none,multidevs=remap
	-device virtio-9p-pci,fsdev=out,mount_tag=out
	-netdev user,id=n0,restrict=on
	-device virtio-net-pci,netdev=n0
	-netdev user,id=n1,restrict=on
	-device virtio-net-pci,netdev=n1)
# The wire: a stream socket between the two QEMUs (a unix one, so no TCP
# port has to be free; host 1 must be running before host 2 connects, and
# vmN.sh orders them), or with three hosts or more, to vmN.sh's switch
# (wire-switch.py), which runs before any of them. A fixed MAC lets the
# guest find that NIC whatever its name. Its own share carries the
# guests' markers.
if [ -n "$WIRE_N" ]; then
	server=off
	[ "$WIRE_N" = 1 ] && [ "$WIRE_HOSTS" = 2 ] && server=on
	qemu+=(-netdev "stream,id=wire,server=$server,addr.type=unix,addr.path=$WIRE_SOCK"
		-device "virtio-net-pci,netdev=wire,mac=$RDS_WIRE_MAC_PREFIX$WIRE_N"
		-fsdev "local,id=wire,path=$WIRE_DIR,security_model=none,multidevs=remap"
		-device virtio-9p-pci,fsdev=wire,mount_tag=wire)
	# The second port: the same on a wire of its own.
	[ -n "$WIRE1" ] &&
		qemu+=(-netdev "stream,id=wire1,server=$server,addr.type=unix,addr.path=$WIRE1"
			-device "virtio-net-pci,netdev=wire1,mac=$RDS_WIRE1_MAC_PREFIX$WIRE_N")
fi
[ -n "$MONITOR" ] && qemu+=(-monitor "unix:$MONITOR,server=on,wait=off")
[ -n "$PLUGIN" ] && qemu+=(-plugin "file=$PLUGIN")
# RDS_QEMU_EXTRA: more QEMU options, e.g. "-s" for a gdb stub on :1234
# (how a guest frozen with interrupts off is inspected; see testbed.rst).
# shellcheck disable=SC2206
qemu+=(${RDS_QEMU_EXTRA:-})

# The checkout's mount point, in another root (it is ours: the cache).
[ -n "$ROOT" ] && mkdir -p "$ROOT$REPO"

start=$(date +%s)
boot() {
	rm -f "$OUTDIR/started"
	if [ "$INTERACTIVE" = 1 ]; then
		"${qemu[@]}"
	else
		timeout --foreground "$TIMEOUT" "${qemu[@]}" </dev/null
	fi
}
boot
qrc=$?
# A kernel that died before running our init had loaded nothing of ours
# (seen once: 6.12 under TCG, an int3 Oops in run_timer_softirq at 1.5 s
# during ACPI setup): that is the test bed's, and it gets one more boot,
# said on the console. A guest that started and then died is not retried.
if [ ! -f "$OUTDIR/rc" ] && [ ! -f "$OUTDIR/started" ] && [ "$INTERACTIVE" = 0 ]; then
	echo "vm: the guest kernel died before its init ran (no RDS loaded yet): booting once more" >&2
	boot
	qrc=$?
fi

if [ ! -f "$OUTDIR/rc" ]; then
	echo "vm: the guest did not finish (qemu exit $qrc after $(($(date +%s) - start)) s): panic, hang or timeout" >&2
	exit 98
fi
rc=$(cat "$OUTDIR/rc")

if "$REPO/scripts/check/logscan.sh" "$OUTDIR/dmesg" > "$OUTDIR/splats"; then
	if [ "$EXPECT_SPLAT" = 1 ]; then
		echo "vm: expected a splat in the kernel log, found none" >&2
		exit 99
	fi
else
	if [ "$EXPECT_SPLAT" = 0 ]; then
		echo "vm: kernel log scan FAILED:" >&2
		sed 's/^/vm:   /' "$OUTDIR/splats" >&2
		exit 99
	fi
	echo "vm: kernel log scan found the expected splat:"
	sed 's/^/vm:   /' "$OUTDIR/splats"
fi
exit "$rc"
