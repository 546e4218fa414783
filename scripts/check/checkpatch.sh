#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict over our kernel sources (taken from the
# linux-source package once, into the cache). Exits non-zero on any
# error, warning or check.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

cp_dir=$CACHE/checkpatch
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz | sort -V | tail -n1)
	tmp=$(mktemp -d)
	top=$(basename "$tarball" .tar.xz)
	tar -C "$tmp" -xJf "$tarball" "$top/scripts/checkpatch.pl" \
		"$top/scripts/spelling.txt" "$top/scripts/const_structs.checkpatch"
	mkdir -p "$cp_dir"
	rm -rf "$cp_dir/scripts"
	mv "$tmp/$top/scripts" "$cp_dir/scripts"
	rm -rf "$tmp"
fi

cd "$REPO"
files=$(git ls-files -- 'net/*.[ch]' 'transports/*.[ch]' 'include/*.h' \
	'selftests/modules/*.[ch]')
# Kernel version tests are allowed in the compat header, and only there.
# shellcheck disable=SC2086
"$cp_dir/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES,LINUX_VERSION_CODE -f $files > /tmp/checkpatch.$$ 2>&1 || true
# shellcheck disable=SC2086
{ grep -n LINUX_VERSION_CODE $files || true; } |
	grep -v '^include/net/rds/compat\.h:' |
	sed 's/$/: WARNING: version test outside include\/net\/rds\/compat.h/' >> /tmp/checkpatch.$$ || true
if grep -E ': (ERROR|WARNING|CHECK):' /tmp/checkpatch.$$; then
	rm -f /tmp/checkpatch.$$
	exit 1
fi
rm -f /tmp/checkpatch.$$
echo "checkpatch --strict: clean ($(echo "$files" | wc -w) files)"
