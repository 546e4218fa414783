#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: boot the same guest twice, once with Linux's in-tree RDS
# and once with ours, run the rds-stress scenario matrix in each
# (scripts/bench/bench-guest.sh) and msgbench's ceilings and cost curves
# (bench-msgbench.sh), and compare: a side-by-side table with
# ours/in-tree ratios, the shares of the ceilings, CSVs and PNGs in
# results/bench/.
#
# Guests boot with --icount (deterministic instruction counting, one
# vCPU): guest time then counts executed instructions, so tx/s measures
# CPU cost per message and ratios are repeatable (see DESIGN.md §5).
#
# Environment: BENCH_RUNS (3), BENCH_SECONDS (5, measured per run),
# BENCH_WARMUP (1 s dropped per run), BENCH_TRANSPORTS ("loop"),
# BENCH_IMPLS ("intree ours"), BENCH_ICOUNT (1; 0 for plain TCG, -smp 2),
# BENCH_CURVES (1: the loopback cost curves when loop is a transport).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO" || exit 1

OUT=$REPO/results/bench
rm -rf "$OUT"
mkdir -p "$OUT"
IMPLS=${BENCH_IMPLS:-intree ours}
vmopts=(--icount)
[ "${BENCH_ICOUNT:-1}" = 0 ] && vmopts=()
[[ " ${BENCH_TRANSPORTS:-loop} " =~ \ (ib|iwarp)\  ]] && vmopts+=(--rdma)

make -s all scripts/bench/msgbench || die "build failed"
start=$(date +%s)
csvs=()
for impl in $IMPLS; do
	extra=()
	[ "$impl" = intree ] && extra=(--intree)
	echo "# bench: booting with $impl RDS (${vmopts[*]} ${extra[*]})"
	scripts/vm/vm.sh "${vmopts[@]}" "${extra[@]}" --out "$OUT/$impl" \
		--timeout 3600 -- \
		"BENCH_CURVES=${BENCH_CURVES:-1} BENCH_RUNS=${BENCH_RUNS:-3} BENCH_SECONDS=${BENCH_SECONDS:-5} BENCH_WARMUP=${BENCH_WARMUP:-1} BENCH_TRANSPORTS='${BENCH_TRANSPORTS:-loop}' scripts/bench/bench-guest.sh $impl" \
		> "$OUT/$impl.log" 2>&1
	rc=$?
	grep -E "^$impl," "$OUT/$impl.log" | sed 's/^/#   /'
	[ "$rc" = 0 ] || echo "# bench: the $impl guest exited $rc (see $OUT/$impl.log)"
	csvs+=("$OUT/$impl/runs.csv")
done
scripts/bench/bench-report.py "$OUT" "${csvs[@]}"
rc=$?
echo "# bench wall time: $(($(date +%s) - start)) s"
exit $rc
