#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make fuzz`: boot the guest and fuzz AF_RDS for FUZZ_SECONDS (default
# 600) with trinity (PF_RDS, socket calls only) and rds-fuzz side by side,
# as an unprivileged user (scripts/check/fuzz-guest.sh); then report the
# syscalls executed and every splat. Exits non-zero on any splat, leak,
# hang or fuzzer failure. Results (TAP, logs, dmesg) in results/fuzz/.
#
# The kernel: the debug kernel (KASAN, lockdep, kmemleak, UBSAN) when one
# has been built (`make debug-kernel`), else Debian's stock kernel; the
# first line says which. FUZZ_KERNEL=debug|stock forces one (debug builds
# it if missing). Our modules are then built against that kernel, for the
# debug kernel in a private copy of the tree, as check-debug.sh does.
#
# Environment: FUZZ_SECONDS, FUZZ_SEED (rds-fuzz --seed), FUZZ_ARGS (more
# rds-fuzz options, e.g. "--procs 3 --threads 4 --avoid-known"),
# TRINITY_SEED, TRINITY_CHILDREN, FUZZ_RESULTS (default results/fuzz),
# FUZZ_APPEND (more kernel command line), TRINITY=0 (rds-fuzz alone),
# WIRE_FUZZ=0, ADDR_CHURN=0, BURST_PING=0 (leave out the wire fuzzer, the
# address moves, the burst pinger).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO" || exit 1

SECS=${FUZZ_SECONDS:-600}
RESULTS=${FUZZ_RESULTS:-$REPO/results/fuzz}
KIND=${FUZZ_KERNEL:-auto}
start=$(date +%s)

"$REPO/scripts/deps.sh" >&2 || die "dependency install failed"

# The newest finished debug kernel, if any ("done" marks a finished one).
newest_debug() {
	ls -td "$CACHE"/debug-kernel/*/done 2>/dev/null | head -n1 | xargs -r dirname
}
kdir=""
case "$KIND" in
auto) kdir=$(newest_debug) ;;
debug) kdir=$("$REPO/scripts/kernel/debug-kernel.sh") || die "no debug kernel" ;;
stock) ;;
*) die "FUZZ_KERNEL must be auto, debug or stock" ;;
esac

vmopts=(--rdma --timeout $((SECS + 900)) --out "$RESULTS")
# loglevel=5: warnings (lockdep, WARN) reach the console too, so a guest
# that then locks up for good still leaves its first report behind.
append="loglevel=5 ${FUZZ_APPEND:-}"
tree=$REPO
if [ -n "$kdir" ]; then
	rds_debug_kernel_env "$kdir"
	echo "# fuzz: debug kernel $KVER ($kdir)"
	# Modules for it are built in a private copy of the tree.
	tree=$(rds_private_tree fuzz) || exit 1
	vmopts+=(--kernel "$RDS_VM_KERNEL")
	append="$RDS_VM_APPEND $append"
	# Its guest clock runs 2-5x slower than the wall under TCG on a
	# loaded host (measured: 103 s of uptime in 8 min), and FUZZ_SECONDS
	# is guest time: give the boot room.
	vmopts[2]=$((SECS * 6 + 900))
	# kmemleak-check.sh, not the log scan, judges kmemleak's own line.
	export RDS_LOGSCAN_IGNORE='kmemleak: [0-9]+ new suspected'
else
	why="no debug kernel built; make debug-kernel for KASAN/lockdep/kmemleak"
	[ "$KIND" = stock ] && why="FUZZ_KERNEL=stock"
	echo "# fuzz: stock kernel $(rds_kver) ($why)"
fi
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
vmopts+=(--append "$append")
make -C "$tree" -s modules tools selftests > "$RESULTS/build.log" 2>&1 ||
	{ tail -n 30 "$RESULTS/build.log"; die "build failed"; }

fargs=()
[ -n "${FUZZ_SEED:-}" ] && fargs+=(--seed "$FUZZ_SEED")
# shellcheck disable=SC2206
fargs+=(${FUZZ_ARGS:-})
guest="$(printf '%q ' env \
	RDS_LOGSCAN_IGNORE="${RDS_LOGSCAN_IGNORE:-}" \
	TRINITY_SEED="${TRINITY_SEED:-}" \
	TRINITY_CHILDREN="${TRINITY_CHILDREN:-2}" TRINITY="${TRINITY:-1}" \
	WIRE_FUZZ="${WIRE_FUZZ:-1}" ADDR_CHURN="${ADDR_CHURN:-1}" \
	BURST_PING="${BURST_PING:-1}" \
	scripts/check/fuzz-guest.sh "$SECS" "${fargs[@]}")"
echo "# fuzz: $SECS s of trinity + rds-fuzz as nobody; results in $RESULTS"
"$tree/scripts/vm/vm.sh" "${vmopts[@]}" -- "$guest" 2>&1 | tee "$RESULTS/console.log"
vmrc=${PIPESTATUS[0]}

# The counts survive only if the guest finished.
tcalls=0 fcalls=0
if [ -f "$RESULTS/counts" ]; then
	tcalls=$(sed -n 's/.*trinity=\([0-9]*\).*/\1/p' "$RESULTS/counts")
	fcalls=$(sed -n 's/.*rds_fuzz=\([0-9]*\).*/\1/p' "$RESULTS/counts")
fi
splats=0
if [ -f "$RESULTS/dmesg" ]; then
	splats=$("$REPO/scripts/check/logscan.sh" "$RESULTS/dmesg" | wc -l)
else
	# No dmesg: the guest died (panic) or hung; the console has the trace.
	splats=$(grep -E -c 'BUG:|WARNING:|Oops|Kernel panic|KASAN|UBSAN|soft lockup' \
		"$RESULTS/console.log")
fi
case "$vmrc" in
0) verdict="clean" ;;
98) verdict="guest crashed or hung (console: $RESULTS/console.log)" ;;
99) verdict="kernel log splat (see $RESULTS/splats, $RESULTS/dmesg)" ;;
*) verdict="fuzz checks failed (exit $vmrc; $RESULTS/fuzz.tap)" ;;
esac
echo "# fuzz: $((tcalls + fcalls)) syscalls (trinity $tcalls, rds-fuzz $fcalls), $splats splat line(s), $(($(date +%s) - start)) s: $verdict"
exit "$vmrc"
