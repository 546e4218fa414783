#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict over our kernel sources (lib.sh's
# rds_checkpatch_pl: the linux-source package's, cached). Exits non-zero
# on any error, warning or check.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

checkpatch=$(rds_checkpatch_pl) || die "no checkpatch.pl (linux-source: scripts/deps.sh)"

cd "$REPO"
files=$(git ls-files -- 'net/*.[ch]' 'transports/*.[ch]' 'include/*.h' \
	'selftests/modules/*.[ch]')
# Kernel version tests are allowed in the compat headers, and only there.
# shellcheck disable=SC2086
"$checkpatch" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES,LINUX_VERSION_CODE -f $files > /tmp/checkpatch.$$ 2>&1 || true
# shellcheck disable=SC2086
{ grep -n LINUX_VERSION_CODE $files || true; } |
	grep -v -E '^include/net/rds/compat(_tcp)?\.h:' |
	sed 's/$/: WARNING: version test outside include\/net\/rds\/compat*.h/' >> /tmp/checkpatch.$$ || true
if grep -E ': (ERROR|WARNING|CHECK):' /tmp/checkpatch.$$; then
	rm -f /tmp/checkpatch.$$
	exit 1
fi
rm -f /tmp/checkpatch.$$
echo "checkpatch --strict: clean ($(echo "$files" | wc -w) files)"
