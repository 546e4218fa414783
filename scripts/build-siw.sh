#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's kernel ships no siw (soft iWARP): build it out of tree from the
# linux-source package, once per kernel release, into the cache.
# Prints the path of siw.ko.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kdir=$(rds_kdir)
kver=$(rds_kver)
out="$CACHE/siw/$kver"

if [ -f "$out/siw.ko" ]; then
	echo "$out/siw.ko"
	exit 0
fi

series=$(echo "$kver" | cut -d. -f1,2)
tarball=/usr/src/linux-source-$series.tar.xz
[ -f "$tarball" ] || die "$tarball missing (apt-get install linux-source-$series)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xJf "$tarball" --wildcards \
	"linux-source-$series/drivers/infiniband/sw/siw/*" >&2
src="$work/linux-source-$series/drivers/infiniband/sw/siw"
make -s -C "$kdir" M="$src" CONFIG_RDMA_SIW=m modules >&2
mkdir -p "$out"
cp "$src/siw.ko" "$out/siw.ko.tmp"
mv "$out/siw.ko.tmp" "$out/siw.ko"
echo "$out/siw.ko"
