#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that the project's include/uapi/linux/rds.h describes exactly the
# same ABI as the <linux/rds.h> installed on this machine (linux-libc-dev).
#
# dump_abi.c is built and run twice, once against each header, and the
# two outputs are compared.  Additionally, the set of macro names each
# header defines is compared, and every macro name of the system header
# must be covered by dump_abi.c so that a constant added upstream cannot
# slip through unchecked.
#
# Output is TAP.  Exit status: 0 on match (or skip), 1 on mismatch.
#
# Environment: CC (default cc), KEEP_TMP=1 to keep the build directory,
# ABI_DUMP=DIR to leave both headers' facts (system.out, ours.out) in DIR.

set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
ours_dir="$root/include/uapi"
ours="$ours_dir/linux/rds.h"
cc=${CC:-cc}
cflags="-std=gnu11 -O0 -Wall -Werror"
desc="uapi rds.h matches system linux/rds.h"

echo "TAP version 13"
echo "1..1"

# Locate the system header the compiler would use without our -I.
sys=$(echo '#include <linux/rds.h>' |
	"$cc" -M -x c - 2>/dev/null | tr -s ' ' '\n' | grep '/linux/rds\.h$')
if [ -z "$sys" ]; then
	echo "ok 1 # SKIP linux-libc-dev rds.h not installed"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rds-abi.XXXXXX") || exit 1
if [ "${KEEP_TMP:-0}" = 1 ]; then
	echo "# keeping $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi

fail() {
	echo "not ok 1 - $desc"
	sed 's/^/# /' "$@"
	exit 1
}

# Names of the macros <linux/rds.h> adds on top of the headers it needs.
# $1: extra compiler flags (the -I for our copy, or nothing).
macro_names() {
	local base='#include <linux/types.h>
#include <linux/socket.h>
#include <linux/in6.h>
#include <linux/sockios.h>'

	# shellcheck disable=SC2086
	printf '%s\n' "$base" | "$cc" $1 -dM -E -x c - |
		awk '{ sub(/\(.*/, "", $2); print $2 }' | sort -u > "$tmp/base"
	# shellcheck disable=SC2086
	printf '%s\n#include <linux/rds.h>\n' "$base" |
		"$cc" $1 -dM -E -x c - |
		awk '{ sub(/\(.*/, "", $2); print $2 }' | sort -u > "$tmp/all"
	comm -13 "$tmp/base" "$tmp/all" | sed 's/^/macro /'
}

# Build and run dump_abi.c; $1: tag, $2: extra compiler flags.
dump() {
	local tag=$1 flags=$2

	# Make sure the header we mean is the one that gets used.
	# shellcheck disable=SC2086
	if ! "$cc" $flags -M "$here/dump_abi.c" > "$tmp/$tag.deps" 2>&1; then
		fail "$tmp/$tag.deps"
	fi
	tr -s ' ' '\n' < "$tmp/$tag.deps" | grep '/linux/rds\.h$' > "$tmp/$tag.hdr"
	echo "# $tag header: $(cat "$tmp/$tag.hdr")"

	# shellcheck disable=SC2086
	if ! "$cc" $cflags $flags -o "$tmp/$tag" "$here/dump_abi.c" \
			> "$tmp/$tag.log" 2>&1; then
		echo "build of dump_abi.c against the $tag header failed:" \
			>> "$tmp/$tag.log"
		fail "$tmp/$tag.log"
	fi
	if ! "$tmp/$tag" > "$tmp/$tag.out" 2> "$tmp/$tag.log"; then
		fail "$tmp/$tag.log"
	fi
	macro_names "$flags" >> "$tmp/$tag.out" || fail /dev/null
}

dump system ""
dump ours "-I$ours_dir"

if [ "$(cat "$tmp/ours.hdr")" != "$ours" ] ||
   [ "$(cat "$tmp/system.hdr")" != "$sys" ]; then
	echo "wrong linux/rds.h picked up: expected $ours and $sys" > "$tmp/why"
	fail "$tmp/why"
fi

# Every macro of the system header must have been evaluated by dump_abi.c.
sed -n 's/^macro //p' "$tmp/system.out" | grep -v '^_LINUX_RDS_H$' |
while read -r name; do
	grep -q -E "^(const|call) ${name}[ (]" "$tmp/system.out" ||
		echo "dump_abi.c does not check macro $name"
done > "$tmp/uncovered"
if [ -s "$tmp/uncovered" ]; then
	fail "$tmp/uncovered"
fi

if ! diff -u --label "system ($sys)" --label "ours ($ours)" \
		"$tmp/system.out" "$tmp/ours.out" > "$tmp/diff"; then
	fail "$tmp/diff"
fi

[ -n "${ABI_DUMP:-}" ] && cp "$tmp/system.out" "$tmp/ours.out" "$ABI_DUMP/"
echo "# $(wc -l < "$tmp/ours.out") facts compared"
echo "ok 1 - $desc"
exit 0
