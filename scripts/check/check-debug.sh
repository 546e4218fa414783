#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-debug` / `make check-fault`: the suite on the debug kernel
# (scripts/kernel/debug-kernel.sh builds it on first use). Our modules must be
# built against that kernel's tree, and `make` writes .ko files next to
# the sources, so this runs check.sh from a private copy of the tree
# (tracked and untracked-but-not-ignored files, as a DKMS tarball would
# hold them): the normal build in the clone is never touched, and an
# interrupted run leaves nothing behind in it. The copy lives in the cache,
# not under /tmp or /var/tmp: the guest mounts its own tmpfs there.
# Results go to results/check-debug (or check-fault) in the clone.
#
#	check-debug.sh [--fault] [NAME...]
#	check-debug.sh --ha	(make check-ha-debug: scripts/check/ha-debug.sh)
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

mode=debug
case "${1:-}" in
--fault|--ha) mode=${1#--}; shift ;;
esac

"$REPO/scripts/deps.sh" >&2
kdir=$("$REPO/scripts/kernel/debug-kernel.sh")
rds_debug_kernel_env "$kdir"
work=$(rds_private_tree check-debug)
git -C "$work" init -q
git -C "$work" add -A

export RDS_CHECK_MODE=$mode
export RESULTS=$REPO/results/check-$mode
echo "# check-$mode: kernel $KVER from $kdir, tree copied to $work"
[ "$mode" = ha ] && export RESULTS=$REPO/results/check-ha-debug &&
	exec "$work/scripts/check/ha-debug.sh"
exec "$work/scripts/check/check.sh" "$@"
