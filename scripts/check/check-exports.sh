#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rds.ko exports only what transports call: every EXPORT_SYMBOL_GPL in
# net/ must be imported (nm: undefined) by a transport module under
# transports/, or by a test-only module on the allow-list below. A core
# function no module needs is declared in net/rds_core.h and not
# exported. Run after the build (make modules, and make test-modules
# for allow-listed test modules).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

# Test-only modules (selftests/modules) whose imports count as users,
# each for a reason; none needs a core export today.
ALLOWED_TEST_MODULES=()

mods=(transports/*/*.ko)
[ -e "${mods[0]}" ] || { echo "no transport modules: build first" >&2; exit 1; }
for m in "${ALLOWED_TEST_MODULES[@]}"; do
	[ -e "$m" ] || { echo "$m: not built (make test-modules)" >&2; exit 1; }
	mods+=("$m")
done

used=$(for m in "${mods[@]}"; do nm -u "$m"; done | awk '{ print $2 }' | sort -u)
bad=0 n=0
while read -r file sym; do
	n=$((n + 1))
	if ! grep -qxF "$sym" <<< "$used"; then
		echo "$file: $sym is exported but no transport uses it"
		bad=1
	fi
done < <(grep -oE '^EXPORT_SYMBOL_GPL\([a-z0-9_]+\)' net/*.c |
	 sed -E 's/:EXPORT_SYMBOL_GPL\((.*)\)/ \1/')
[ "$n" -gt 0 ] || { echo "no exports found in net/" >&2; exit 1; }
grep -nE '^EXPORT_SYMBOL(_NS)?(_GPL)?\(' net/*.c | grep -v ':EXPORT_SYMBOL_GPL(' &&
	{ echo "exports other than EXPORT_SYMBOL_GPL in net/"; bad=1; }
[ "$bad" = 0 ] && echo "net/ exports: all $n used by transports"
exit "$bad"
