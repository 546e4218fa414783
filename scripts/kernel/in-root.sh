#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command inside a Debian root made by debian-root.sh, in the current
# directory, with the checkout (and that directory, when outside it) bound
# at the same paths: a kernel's headers can only be used with the build
# programs and compiler of their own release. The bind mounts live in a
# private mount namespace and vanish with the command.
#
#	in-root.sh ROOT COMMAND...
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

root=${1:?usage: in-root.sh ROOT COMMAND...}
shift
[ -x "$root/bin/sh" ] || die "$root is not a root (scripts/kernel/debian-root.sh)"
dirs=$REPO
case "$PWD/" in "$REPO"/*) ;; *) dirs="$dirs $PWD" ;; esac

# shellcheck disable=SC2016
exec unshare --mount --propagation private sh -c '
	root=$1 dirs=$2
	shift 2
	mount -t proc proc "$root/proc" || exit 1
	for d in $dirs; do
		mkdir -p "$root$d" && mount --bind "$d" "$root$d" || exit 1
	done
	exec chroot "$root" sh -c "cd \"\$1\" && shift && exec \"\$@\"" sh "$PWD" "$@"
' sh "$root" "$dirs" "$@"
