#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One version: dkms.conf's PACKAGE_VERSION is its home (Kbuild compiles
# it into every module's MODULE_VERSION), debian/changelog's newest entry
# must say the same, and with --modules so must the built modules
# (modinfo). scripts/release.sh sets both files; debian/rules runs this
# before building the packages. See Documentation/packaging.rst.
#
#	version-check.sh [--modules]
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO"

ver=$(sed -n 's/^PACKAGE_VERSION="\([0-9A-Za-z.+~-]*\)"$/\1/p' dkms.conf)
[ -n "$ver" ] || die "dkms.conf: no PACKAGE_VERSION=\"...\" line"
deb=$(dpkg-parsechangelog -l debian/changelog -S Version)
[ "$deb" = "$ver" ] ||
	die "debian/changelog says $deb, dkms.conf $ver: run scripts/release.sh"
echo "dkms.conf and debian/changelog: $ver"
[ "${1:-}" = --modules ] || exit 0
for ko in net/rds.ko transports/loop/rds_loop.ko transports/tcp/rds_tcp.ko \
	  transports/ib/rds_rdma.ko transports/iwarp/rds_iwarp.ko; do
	[ -f "$ko" ] || die "$ko not built"
	m=$(modinfo -F version "$ko")
	[ "$m" = "$ver" ] || die "$ko: MODULE_VERSION $m, dkms.conf $ver"
	echo "$ko: $m"
done
