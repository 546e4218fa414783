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
#   --kernel IMG    kernel image (default /boot/vmlinuz-KVER)
#   --append ARGS   extra kernel command line
#   --smp N --mem M --timeout SECONDS
#   --icount        deterministic instruction counting (-smp 1)
#   --out DIR       keep results (rc, dmesg) in DIR
#   --expect-splat  invert the log scan (for the runner's self-test)
#
# Environment: KDIR/KVER pick the kernel (see lib.sh); MODDIR is its
# modules dir (default /lib/modules/KVER; a kernel built elsewhere, like
# the debug kernel, passes its INSTALL_MOD_PATH/lib/modules/KVER, which the
# guest then uses as the overlay's lower dir); RDS_LOGSCAN_IGNORE is handed
# to logscan.sh.
#
# Exit status: the command's, else 98 if the guest never finished (panic,
# hang, timeout) or 99 if the kernel log has a splat.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

RDMA=0 LOAD=1 INTERACTIVE=0 SMP=2 MEM=2048 TIMEOUT=1200 ICOUNT=0
KERNEL="" APPEND="" OUTDIR="" EXPECT_SPLAT=0 INTREE=0
while [ $# -gt 0 ]; do
	case "$1" in
	--rdma) RDMA=1 ;;
	--no-load) LOAD=0 ;;
	--intree) INTREE=1 ;;
	--interactive) INTERACTIVE=1 ;;
	--kernel) KERNEL=$2; shift ;;
	--append) APPEND=$2; shift ;;
	--smp) SMP=$2; shift ;;
	--mem) MEM=$2; shift ;;
	--timeout) TIMEOUT=$2; shift ;;
	--icount) ICOUNT=1; SMP=1 ;;
	--out) OUTDIR=$2; shift ;;
	--expect-splat) EXPECT_SPLAT=1 ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
JOB="$*"
[ -n "$JOB" ] || [ "$INTERACTIVE" = 1 ] || die "no command (or --interactive)"

KVER=$(rds_kver)
RDS_MODULES="net/rds.ko transports/loop/rds_loop.ko transports/tcp/rds_tcp.ko transports/ib/rds_rdma.ko transports/iwarp/rds_iwarp.ko"
KERNEL=${KERNEL:-/boot/vmlinuz-$KVER}
[ -f "$KERNEL" ] || die "no kernel image $KERNEL"
MODDIR=${MODDIR:-/lib/modules/$KVER}

# The guest gets the checkout as a share of its own, mounted at the same
# path (the host's / alone would not do: the guest's tmpfs hides a clone
# under /tmp). The path travels on the kernel command line.
case "$REPO" in
*[[:space:]]*) die "the checkout's path must not contain blanks: $REPO" ;;
esac

if [ "$INTREE" = 0 ]; then
	for ko in $RDS_MODULES; do
		[ -f "$REPO/$ko" ] || die "$ko not built: run make"
	done
fi

INITRD=$(scripts_dir=$REPO/scripts "$REPO/scripts/mkinitramfs.sh" "$KVER" "$MODDIR") ||
	die "initramfs build failed"
SIW_KO=""
# A kernel that ships siw itself (the debug kernel) needs no side build.
if [ "$RDMA" = 1 ] && [ -z "$(find "$MODDIR/kernel" -name 'siw.ko*' 2>/dev/null)" ]; then
	SIW_KO=$("$REPO/scripts/build-siw.sh") || die "siw build failed"
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
if [ "$INTREE" = 1 ]; then
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
	printf 'MODDIR=%q\n' "$MODDIR"
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
	-append "console=ttyS0 $quiet no_timer_check panic=-1 oops=panic_on_warn=0 rdstb.repo=$REPO rdstb.init=$REPO/scripts/guest-init.sh $APPEND"
	-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=root,mount_tag=host
	-fsdev local,id=repo,path="$REPO",security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=repo,mount_tag=repo
	-fsdev local,id=out,path="$OUTDIR",security_model=none,multidevs=remap
	-device virtio-9p-pci,fsdev=out,mount_tag=out
	-netdev user,id=n0,restrict=on
	-device virtio-net-pci,netdev=n0
	-netdev user,id=n1,restrict=on
	-device virtio-net-pci,netdev=n1)

start=$(date +%s)
if [ "$INTERACTIVE" = 1 ]; then
	"${qemu[@]}"
else
	timeout --foreground "$TIMEOUT" "${qemu[@]}" </dev/null
fi
qrc=$?

if [ ! -f "$OUTDIR/rc" ]; then
	echo "vm: the guest did not finish (qemu exit $qrc after $(($(date +%s) - start)) s): panic, hang or timeout" >&2
	exit 98
fi
rc=$(cat "$OUTDIR/rc")

if "$REPO/scripts/logscan.sh" "$OUTDIR/dmesg" > "$OUTDIR/splats"; then
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
