#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: build the Debian packages rds-dkms and rds-tools (and the
# native source package) with dpkg-buildpackage from a clean copy of the
# tree (tracked files and untracked ones git would add: never a build's
# leftovers), then run lintian on them, which must report no error or
# warning beyond those explained in debian/*.lintian-overrides.
#
#	build.sh            packages in $DEB_OUT (default results/deb)
#
# Prints the paths of the two .deb files last. The log of the build is
# $DEB_OUT/build.log. See Documentation/packaging.rst.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

out=${DEB_OUT:-$REPO/results/deb}
for t in dpkg-buildpackage dh dh_dkms lintian; do
	command -v "$t" > /dev/null || die "$t missing (scripts/deps.sh)"
done
"$REPO/scripts/check/version-check.sh" > /dev/null
ver=$(dpkg-parsechangelog -l "$REPO/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)

mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$out/build
rm -rf "$work"
mkdir -p "$work/rds-$ver"
(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$work/rds-$ver") || die "cannot copy the tree"
rm -f "$out"/rds*_"$ver"[._]*

log=$out/build.log
echo "deb: dpkg-buildpackage in $work/rds-$ver (log $log)"
if ! (cd "$work/rds-$ver" && dpkg-buildpackage -us -uc) > "$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "dpkg-buildpackage failed (see $log)"
fi
mv "$work"/rds*_"$ver"[._]* "$out/"
rm -rf "$work"

changes=$out/rds_${ver}_$arch.changes
echo "deb: lintian $changes"
lintian --fail-on error,warning --display-info --pedantic --show-overrides \
	"$changes" | tee "$out/lintian.log" ||
	die "lintian found errors or warnings (see $out/lintian.log)"
echo "$out/rds-dkms_${ver}_all.deb"
echo "$out/rds-tools_${ver}_$arch.deb"
