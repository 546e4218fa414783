#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Keep dkms.conf true: add, build and remove the tree with dkms against the
# installed headers, under a throwaway version so a real install of ours
# is never touched. Checks every module dkms built.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kver=$(rds_kver)
ver=0.0.0check$$
src=/usr/src/rds-$ver
trap 'dkms remove -m rds -v "$ver" --all >/dev/null 2>&1 || true; rm -rf "$src"' EXIT

mkdir -p "$src"
(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$src")
sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$ver\"/" "$src/dkms.conf"

dkms add -m rds -v "$ver"
dkms build -m rds -v "$ver" -k "$kver"
built=/var/lib/dkms/rds/$ver/$kver/$(uname -m)/module
for m in rds rds_loop rds_rdma rds_iwarp rds_tcp; do
	ls "$built/$m.ko"* >/dev/null || die "dkms did not build $m"
	echo "dkms built $m"
done
