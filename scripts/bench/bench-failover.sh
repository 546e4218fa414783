#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-failover`: how long traffic stops when a port fails, the
# median over BENCH_FAILOVER_RUNS boots of each way RDS/IB can get past
# it (issue 27's bench row). Two guests with two ports each
# (scripts/vm/vmN.sh --hosts 2 --nics 2 --rdma), paced SHA-checked
# streams both ways; each receiver reports the longest time between two
# arrivals over the whole run, and a run's gap is the larger of the two:
#
#   routes       ha_route.sh, routes on: host a's wire0 loses its carrier
#                and the connection moves to wire1 (ours on both hosts)
#   address move addr_move.sh: wire0 lost on both hosts, each moves its
#                address to wire1 1-2 s later (part of the gap), and the
#                connection reconnects there: the reconnect-only
#                behaviour, the only one a Linux peer takes part in
#                (pairs BENCH_FAILOVER_PAIRS, default ours:ours)
#
# Without either the traffic waits for the port to return: its gap is
# the outage's length, a choice of the test, not measured here.
#
# Wall-clock times of two TCG guests (no --icount: two guests), so
# compare rows of one run. Results: a table on stdout and
# results/bench-failover/gaps.csv. Environment: BENCH_FAILOVER_RUNS (3),
# BENCH_FAILOVER_PAIRS ("ours:ours"; ours:intree, intree:ours add Linux
# on one host).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO" || exit 1

OUT=$REPO/results/bench-failover
RUNS=${BENCH_FAILOVER_RUNS:-3}
read -ra PAIRS <<< "${BENCH_FAILOVER_PAIRS:-ours:ours}"
rm -rf "$OUT"
mkdir -p "$OUT"
make -s all || die "build failed"
echo "scenario,run,gap_ms,host_a_ms,host_b_ms" > "$OUT/gaps.csv"
start=$(date +%s)

# gap_of DIR AWK-PROGRAM: each host's longest gap in ms, "a b".
gap_of() {
	local h g out=""
	for h in a b; do
		g=$(awk "$2" "$1/$h/results.tap" 2>/dev/null | tail -n 1)
		out="$out ${g:--}"
	done
	echo "$out"
}

# boot SCENARIO RUN DIR VMN-ARGS... -- COMMAND: one boot, one CSV row.
boot() {
	local name=$1 run=$2 dir=$3 rc a b g
	shift 3
	scripts/vm/vmN.sh --hosts 2 --nics 2 --rdma --timeout 900 --out "$dir" "$@" \
		> "$dir.log" 2>&1
	rc=$?
	# ha_route says "longest gap between arrivals: S s", addr_move's
	case "$name" in
	# receiver "... maxgap_ms MS at_ms ..."; a "?" is nothing measured.
	routes) read -r a b <<< "$(gap_of "$dir" '{ for (i = 1; i < NF; i++)
		if ($i == "arrivals:" && $(i + 1) ~ /^[0-9.]+$/)
			printf "%d\n", $(i + 1) * 1000 }')" ;;
	*) read -r a b <<< "$(gap_of "$dir" '{ for (i = 1; i < NF; i++)
		if ($i == "maxgap_ms" && $(i + 1) ~ /^[0-9]+$/) print $(i + 1) }')" ;;
	esac
	if [ "$a" = - ] || [ "$b" = - ]; then
		echo "# bench-failover: $name run $run measured nothing (exit $rc; see $dir.log)"
		return 1
	fi
	g=$((a > b ? a : b))
	echo "$name,$run,$g,$a,$b" >> "$OUT/gaps.csv"
	echo "# $name run $run: $g ms (host a $a, host b $b)"
	# A gap over the test's bound fails it, and still counts here.
	[ "$rc" = 0 ] || echo "# bench-failover: $name run $run: the test failed (exit $rc; see $dir.log)"
	[ "$rc" = 0 ]
}

fail=0
for run in $(seq "$RUNS"); do
	boot routes "$run" "$OUT/routes-$run" -- \
		"RDS_HA_MODE=on RDS_SUITE=hosts selftests/run.sh =ha_route" || fail=1
	for pair in "${PAIRS[@]}"; do
		# No colon in the directory: vmN.sh hands it on in
		# DIR:COUNT options.
		boot "move-$pair" "$run" "$OUT/move-${pair/:/-}-$run" \
			--impl-a "${pair%%:*}" --impl-b "${pair##*:}" -- \
			"RDS_SUITE=hosts selftests/run.sh =addr_move" || fail=1
	done
done

echo
printf '%-24s %6s %10s  %s\n' scenario runs median_ms "gaps (ms)"
awk -F, 'NR > 1 { g[$1] = g[$1] " " $3; n[$1]++ }
	END { for (s in g) print s, n[s], g[s] }' "$OUT/gaps.csv" | sort |
while read -r name n gaps; do
	med=$(tr ' ' '\n' <<< "$gaps" | sort -n | awk '{ v[NR] = $1 }
		END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }')
	printf '%-24s %6s %10s  %s\n' "$name" "$n" "$med" "$gaps"
done
echo "# bench-failover wall time: $(($(date +%s) - start)) s"
exit $fail
