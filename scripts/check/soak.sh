#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make soak`: RDS/TCP teardown under load, SOAK_ROUNDS (default 100)
# rounds of each pattern of selftests/tests/tcp_teardown.sh (namespaces
# deleted under traffic and with SYNs in flight: CVE-2019-11815 and
# CVE-2024-26865; rds_tcp unloaded with connections busy), on the debug
# kernel (KASAN, lockdep, kmemleak, UBSAN; built if missing), then a
# kmemleak scan. Exits non-zero on any failed round, splat or leak.
# Results in results/soak/. CI runs a few rounds (tcp_teardown's default,
# in make check and make check-debug); this is the long run.
#
# Environment: SOAK_ROUNDS, SOAK_TIMEOUT (seconds; default 40 per round
# plus 900).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO" || exit 1

ROUNDS=${SOAK_ROUNDS:-100}
RESULTS=$REPO/results/soak
start=$(date +%s)

"$REPO/scripts/deps.sh" >&2 || die "dependency install failed"
kdir=$("$REPO/scripts/kernel/debug-kernel.sh") || die "no debug kernel"
rds_debug_kernel_env "$kdir"
tree=$(rds_private_tree soak) || exit 1
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
make -C "$tree" -s all > "$RESULTS/build.log" 2>&1 ||
	{ tail -n 30 "$RESULTS/build.log"; die "build failed"; }

echo "# soak: $ROUNDS rounds of tcp_teardown on $KVER; results in $RESULTS"
# kmemleak-check.sh, not the log scan, judges kmemleak's own line.
# run.sh's per-program limit (600 s) would cut a long soak short.
guest="$(printf '%q ' env RDS_TEARDOWN_ROUNDS="$ROUNDS" \
	RDS_TEST_TIMEOUT=$((ROUNDS * 40 + 600)) \
	RDS_LOGSCAN_IGNORE='kmemleak: [0-9]+ new suspected' \
	selftests/run.sh tcp_teardown)"
guest+='; rc=$?; scripts/check/kmemleak-check.sh /run/out/kmemleak.txt > /run/out/kmemleak.log 2>&1 || rc=1; exit $rc'
RDS_LOGSCAN_IGNORE='kmemleak: [0-9]+ new suspected' \
	"$tree/scripts/vm/vm.sh" --kernel "$RDS_VM_KERNEL" \
	--append "$RDS_VM_APPEND loglevel=5" \
	--timeout "${SOAK_TIMEOUT:-$((ROUNDS * 40 + 900))}" \
	--out "$RESULTS" -- "$guest" 2>&1 | tee "$RESULTS/console.log"
rc=${PIPESTATUS[0]}
[ -f "$RESULTS/kmemleak.log" ] && sed 's/^/# kmemleak: /' "$RESULTS/kmemleak.log"
case "$rc" in
0) verdict="clean" ;;
98) verdict="guest crashed or hung (console: $RESULTS/console.log)" ;;
99) verdict="kernel log splat (see $RESULTS/dmesg)" ;;
*) verdict="failed (exit $rc)" ;;
esac
echo "# soak: $ROUNDS rounds, $(($(date +%s) - start)) s: $verdict"
exit "$rc"
