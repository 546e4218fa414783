#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's kernels ship no siw (soft iWARP): build it out of tree from the
# linux-source package, once per kernel release, into the cache. For a
# kernel of another release (RDS_ROOT, see lib.sh) the package and the
# build are those of its root. It carries the fix in siw-fix.sh; the cache
# key hashes it, so a changed fix builds a new module.
# Prints the path of siw.ko.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/siw-fix.sh"

rds_kernel_env
root=${RDS_ROOT:-}
kdir=$(rds_kdir)
kver=$(rds_kver)
fix=$(declare -f siw_fix_data_ready | sha1sum | cut -c1-8)
out="$CACHE/siw/$kver-$fix"

if [ -f "$out/siw.ko" ]; then
	echo "$out/siw.ko"
	exit 0
fi
# make check boots two guests at once: on a new machine both would build
# it. The second waits for the first and takes its module.
mkdir -p "$CACHE/siw"
exec 9> "$CACHE/siw/.lock"
flock 9
if [ -f "$out/siw.ko" ]; then
	echo "$out/siw.ko"
	exit 0
fi

series=$(echo "$kver" | cut -d. -f1,2)
tarball=$root/usr/src/linux-source-$series.tar.xz
[ -f "$tarball" ] || die "$tarball missing (apt-get install linux-source-$series)"

# Under the cache, not /tmp: in-root.sh binds it into the root.
mkdir -p "$CACHE/siw"
work=$(mktemp -d "$CACHE/siw/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xJf "$tarball" --wildcards \
	"linux-source-$series/drivers/infiniband/sw/siw/*" >&2
src="$work/linux-source-$series/drivers/infiniband/sw/siw"
siw_fix_data_ready "$src/siw_cm.c"
run=()
[ -n "$root" ] && run=("$REPO/scripts/kernel/in-root.sh" "$root")
(cd "$work" && "${run[@]}" make -s -C "$kdir" M="$src" CONFIG_RDMA_SIW=m modules) >&2
mkdir -p "$out"
cp "$src/siw.ko" "$out/siw.ko.tmp"
mv "$out/siw.ko.tmp" "$out/siw.ko"
echo "$out/siw.ko"
