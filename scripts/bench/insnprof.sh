#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest instructions per kernel symbol: boot an -icount guest with the
# insnprof TCG plugin (scripts/bench/insnprof/), run GUEST COMMANDS, and
# attribute every instruction executed inside the windows they mark to
# the symbol (and module) it belongs to. Unlike perf's sampling under
# -icount, which lands where interrupts come back on, this counts code
# that runs with interrupts off too: a CPU cost per symbol that moving
# work between contexts cannot hide.
#
#   insnprof.sh [--intree] [--ops N] [--top N] [--out DIR]
#               [vm.sh options] -- 'GUEST COMMANDS'
#   insnprof.sh --report DIR [--ops N] [--top N] [--window N]
#   insnprof.sh --diff DIR_A DIR_B [--top N] [--window N]
#
# GUEST COMMANDS run in bash in the checkout (as vm.sh's), with:
#   insnprof_start    open a window: every counter to zero
#   insnprof_end      close it: the plugin writes DIR/prof.N (N = 1, 2...)
#   insnprof_ops N    the last window carried N operations
#   insnprof_rate R   ... or R operations a second: N = R x its guest time
# Keep the modules the windows ran in loaded until the command ends: the
# guest's /proc/kallsyms is read then (DIR/kallsyms) to name addresses.
#
# --ops N gives every window N operations (the guest's own count wins).
# The run's report (instructions per symbol, per module, per operation
# given a count; top 60) goes to stdout and DIR/report.txt. --report
# prints it again from DIR; --diff puts two runs side by side (e.g.
# --intree against ours), per operation when both have a count.
# Default DIR: results/insnprof/ours or results/insnprof/intree.
#
# Sanity: with the vCPU busy throughout, a window's instructions over its
# guest time come to 125 per microsecond (-icount shift=3: 8 ns each).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO" || exit 1

PY=$REPO/scripts/bench/insnprof.py
DIR="" OPS="" TOP=60 WINDOW="" INTREE=0 vmargs=()
case "${1:-}" in
--report)
	shift
	exec python3 "$PY" report "$@"
	;;
--diff)
	shift
	exec python3 "$PY" diff "$@"
	;;
esac
while [ $# -gt 0 ]; do
	case "$1" in
	--intree) INTREE=1; vmargs+=(--intree) ;;
	--ops) OPS=$2; shift ;;
	--top) TOP=$2; shift ;;
	--window) WINDOW=$2; shift ;;
	--out) DIR=$2; shift ;;
	--icount) ;;
	--) shift; break ;;
	--rdma|--no-load|--installed|--interactive|--expect-splat)
		vmargs+=("$1") ;;
	-*) vmargs+=("$1" "$2"); shift ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || die "no guest command (insnprof.sh [options] -- 'COMMANDS')"
CMD="$*"
if [ -z "$DIR" ]; then
	DIR=$REPO/results/insnprof/ours
	[ "$INTREE" = 1 ] && DIR=$REPO/results/insnprof/intree
fi
mkdir -p "$DIR" || die "cannot make $DIR"
DIR=$(cd "$DIR" && pwd)
rm -f "$DIR"/prof.* "$DIR"/win.* "$DIR"/ops.* "$DIR"/rate.* \
	"$DIR/kallsyms" "$DIR/report.txt"

SO=scripts/bench/insnprof/insnprof.so
MARK=scripts/bench/insnprof/insnprof-mark
make -s "$SO" "$MARK" || die "building the plugin failed"
addr() { nm "$MARK" | awk -v s="$1" '$3 == s { print $1 }'; }
START=$(addr insnprof_mark_start) END=$(addr insnprof_mark_end)
if [ -z "$START" ] || [ -z "$END" ]; then die "no marks in $MARK"; fi

# The guest's side, sourced before the command: the window helpers, and
# the kernel's symbols on the way out, whatever the command's status.
cat > "$DIR/insnprof-guest.sh" <<EOF
# Written by insnprof.sh: sourced by the guest's job.
insnprof_n=0 insnprof_t0=
insnprof_start() {
	$REPO/$MARK start
	insnprof_t0=\$EPOCHREALTIME
}
insnprof_end() {
	local t1=\$EPOCHREALTIME
	$REPO/$MARK end
	insnprof_n=\$((insnprof_n + 1))
	echo "\$insnprof_t0 \$t1" > /run/out/win.\$insnprof_n
}
insnprof_ops() { echo "\$1" > /run/out/ops.\$insnprof_n; }
insnprof_rate() { echo "\$1" > /run/out/rate.\$insnprof_n; }
trap 'cat /proc/kallsyms > /run/out/kallsyms' EXIT
EOF

scripts/vm/vm.sh --icount --out "$DIR" "${vmargs[@]}" \
	--plugin "$REPO/$SO,start=$START,end=$END,out=$DIR/prof" \
	-- ". /run/out/insnprof-guest.sh; $CMD"
rc=$?
ls "$DIR"/prof.* > /dev/null 2>&1 || die "no window was marked (vm.sh exit $rc)"
rep=(--top "$TOP")
[ -n "$OPS" ] && rep+=(--ops "$OPS")
[ -n "$WINDOW" ] && rep+=(--window "$WINDOW")
python3 "$PY" report "$DIR" "${rep[@]}" | tee "$DIR/report.txt"
exit "$rc"
