#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-debug` / `make check-fault`: the suite on the debug kernel
# (scripts/debug-kernel.sh builds it on first use). Our modules must be
# built against that kernel's tree, and `make` writes .ko files next to
# the sources, so this runs check.sh from a private copy of the tree
# (tracked and untracked-but-not-ignored files, as a DKMS tarball would
# hold them): the normal build in the clone is never touched, and an
# interrupted run leaves nothing behind in it. The copy lives in the cache,
# not under /tmp or /var/tmp: the guest mounts its own tmpfs there.
# Results go to results/check-debug (or check-fault) in the clone.
#
#	check-debug.sh [--fault] [NAME...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=debug
if [ "${1:-}" = --fault ]; then
	mode=fault
	shift
fi

"$REPO/scripts/deps.sh" >&2
kdir=$("$REPO/scripts/debug-kernel.sh")
release=$(cat "$kdir/release")

work=$CACHE/check-debug/$(echo "$REPO" | sha1sum | cut -c1-12)
rm -rf "$work"
mkdir -p "$work"
(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$work" 2>/dev/null) ||
	die "cannot copy the tree to $work"
# checkpatch.sh lists files with git: give the copy an index of its own.
git -C "$work" init -q
git -C "$work" add -A

export KDIR=$kdir/linux KVER=$release
export MODDIR=$kdir/modules/lib/modules/$release
export RDS_VM_KERNEL=$kdir/linux/arch/x86/boot/bzImage
# Without acpi=off, TCG spends 3 x 30 s in ACPI AML loop timeouts.
# no5lvl: QEMU's -cpu max offers LA57, and with 5-level paging an
# interrupt that lands while identify_cpu() re-reads the CPU features
# sees pgtable_l5_enabled() false for a moment; KASAN then reports a
# wild-memory-access in handle_edge_irq at boot (seen once in three).
export RDS_VM_APPEND="acpi=off no5lvl"
export RDS_CHECK_MODE=$mode
export RESULTS=$REPO/results/check-$mode
echo "# check-$mode: kernel $release from $kdir, tree copied to $work"
exec "$work/scripts/check.sh" "$@"
