#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-6.12` (or `make check KERNEL=NAME`): make check on another
# test-bed kernel (lib.sh: a Debian release's stock kernel, booted with a
# root of that release). Our modules are built for it inside that root,
# and `make` writes .ko files next to the sources, so this runs check.sh
# from a private copy of the tree (tracked and untracked-but-not-ignored
# files) in the cache: the clone's own build is never touched. Results go
# to results/check-NAME in the clone.
#
#	check-kernel.sh NAME [TEST...]   the whole check on kernel NAME
#	check-kernel.sh NAME --build     only build the modules and test-only
#	                                 modules with W=1 -Werror (make check
#	                                 does this on every run)
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

name=${1:?usage: check-kernel.sh NAME [--build | TEST...]}
shift
build=0
if [ "${1:-}" = --build ]; then
	build=1
	shift
fi
[ "$build" = 1 ] || "$REPO/scripts/deps.sh" >&2

export RDS_KERNEL=$name
unset RDS_ROOT
rds_kernel_env

work=$CACHE/check-$name/$(echo "$REPO" | sha1sum | cut -c1-12)
[ "$build" = 1 ] && work=$work-build
rm -rf "$work"
mkdir -p "$work"
(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$work" 2>/dev/null) ||
	die "cannot copy the tree to $work"

if [ "$build" = 1 ]; then
	cd "$work"
	echo "# kernel $KVER, built in $RDS_ROOT"
	make modules test-modules W=1 KCFLAGS=-Werror
	exit
fi

# checkpatch.sh lists files with git: give the copy an index of its own.
git -C "$work" init -q
git -C "$work" add -A
export RESULTS=$REPO/results/check-$name
echo "# check-$name: kernel $KVER from $RDS_ROOT, tree copied to $work"
exec "$work/scripts/check/check.sh" "$@"
