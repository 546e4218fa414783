#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The release step: set the version in its one home, dkms.conf (the
# modules' MODULE_VERSION comes from it at build time), and open the
# matching debian/changelog entry, then check that they agree. Commit the
# result as "release: VERSION". See Documentation/packaging.rst.
#
#	release.sh VERSION [CHANGE...]    e.g. release.sh 0.2.0 "New: ..."
#
# VERSION is a Debian native version (digits first; letters, digits and
# . + ~ after; no "-"), higher than the current one. Each CHANGE becomes
# a "*" line of the entry (default: "Release VERSION."). DEBFULLNAME and
# DEBEMAIL name the author; by default the entry before's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$REPO"

new=${1:?usage: release.sh VERSION [CHANGE...]}
shift
[[ "$new" =~ ^[0-9][0-9A-Za-z.+~]*$ ]] ||
	die "$new: not a native Debian version (digits first, then [0-9A-Za-z.+~])"
old=$(dpkg-parsechangelog -l debian/changelog -S Version)
dpkg --compare-versions "$new" gt "$old" || die "$new is not higher than $old"
[ $# -gt 0 ] || set -- "Release $new."

maint=$(dpkg-parsechangelog -l debian/changelog -S Maintainer)
[ -n "${DEBFULLNAME:-}" ] && [ -n "${DEBEMAIL:-}" ] && maint="$DEBFULLNAME <$DEBEMAIL>"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
	echo "rds ($new) unstable; urgency=medium"
	echo
	for c in "$@"; do
		echo "$c" | fold -s -w 72 | sed '1s/^/  * /; 2,$s/^/    /; s/ *$//'
	done
	echo
	echo " -- $maint  $(date -R)"
	echo
	cat debian/changelog
} > "$tmp"
cat "$tmp" > debian/changelog
sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$new\"/" dkms.conf
scripts/check/version-check.sh
