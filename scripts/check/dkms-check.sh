#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Keep dkms.conf true: add, build and remove the tree with dkms against the
# installed headers, under a throwaway version so a real install of ours
# is never touched. Checks every module dkms built. For another release's
# kernel (RDS_ROOT, see lib.sh) dkms runs in its root, as on that release.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

rds_kernel_env
root=${RDS_ROOT:-}
run=()
[ -n "$root" ] && run=("$REPO/scripts/kernel/in-root.sh" "$root")
kver=$(rds_kver)
ver=0.0.0check$$
src=/usr/src/rds-$ver
trap '"${run[@]}" dkms remove -m rds -v "$ver" --all >/dev/null 2>&1 || true; rm -rf "$root$src"' EXIT

mkdir -p "$root$src"
(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$root$src")
sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$ver\"/" "$root$src/dkms.conf"

"${run[@]}" dkms add -m rds -v "$ver"
"${run[@]}" dkms build -m rds -v "$ver" -k "$kver"
built=$root/var/lib/dkms/rds/$ver/$kver/$(uname -m)/module
for m in rds rds_loop rds_rdma rds_iwarp rds_tcp; do
	ls "$built/$m.ko"* >/dev/null || die "dkms did not build $m"
	echo "dkms built $m"
done
