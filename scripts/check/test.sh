#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make test T=NAME`: the fast inner loop. Boots one guest (with rxe0 and
# siw0, as make check's suite boot) and runs only the named selftest
# programs through selftests/run.sh: no dependency install, no static
# checks, no fuzz or wire rounds. The Makefile builds first; KERNEL=NAME
# (scripts/kernels) builds for and boots that kernel. Prints the guest's
# TAP; results (TAP, kernel log) in results/test/.
#
#	test.sh [--intree] NAME...
#
# NAME is a program of selftests/tests (bind for tests/bind.c, tcp_mpath
# for tests/tcp_mpath.sh) or of selftests/hosts: netns_tcp runs in one
# guest, the two-host programs (first_contact, twohost_tcp, twohost_ib,
# twohost_iw: the ones that use selftests/lib/wire.sh) in two guests on
# one wire as check-wire boots them (scripts/vm/vm2.sh, with --rdma but
# for twohost_tcp, which must find RDS going over TCP), RDS_WIRE_SHORT
# and RDS_WIRE_SECONDS handed on to them; with two ports per guest
# (vmN.sh --nics 2) if a program says it needs them (twonic_*). --intree (make's INTREE=1) loads
# Linux's in-tree RDS instead of ours (one-guest programs only).
#
# Exit status: 0 when every program passed, else vm.sh's or vm2.sh's
# (1: a test failed; 98: the guest never finished; 99: a kernel splat).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO" || exit 1

intree=()
if [ "${1:-}" = --intree ]; then
	intree=(--intree)
	shift
fi
[ $# -gt 0 ] || die "usage: make test T=NAME [KERNEL=NAME] (NAME: a program in selftests/tests or selftests/hosts)"

tests=() hosts=() twohost=() twohost_tcp=() nics=1
for t in "$@"; do
	t=${t%.sh}
	t=${t%.c}
	if [ -e "selftests/tests/$t.sh" ] || [ -e "selftests/tests/$t.c" ]; then
		tests+=("=$t")
	elif [ "$t" = twohost_tcp ]; then
		twohost_tcp+=("=$t")
	elif [ -e "selftests/hosts/$t.sh" ] && grep -q 'lib/wire\.sh' "selftests/hosts/$t.sh"; then
		twohost+=("=$t")
		# A program that needs two ports per guest says so.
		grep -q 'vmN.sh --nics 2' "selftests/hosts/$t.sh" && nics=2
	elif [ -e "selftests/hosts/$t.sh" ]; then
		hosts+=("=$t")
	else
		die "no selftest $t (selftests/tests/$t.c or .sh, selftests/hosts/$t.sh)"
	fi
done
[ "${#intree[@]}" = 0 ] || [ "$((${#twohost[@]} + ${#twohost_tcp[@]}))" = 0 ] ||
	die "--intree: two-host programs pick each host's modules (scripts/vm/vm2.sh --impl-a/--impl-b)"

OUT=${RESULTS:-$REPO/results/test}
rm -rf "$OUT"
mkdir -p "$OUT"
wire_env=$(printf 'RDS_WIRE_SHORT=%q RDS_WIRE_SECONDS=%q' \
	"${RDS_WIRE_SHORT:-0}" "${RDS_WIRE_SECONDS:-3}")
rc=0
if [ "${#tests[@]}" -gt 0 ]; then
	scripts/vm/vm.sh "${intree[@]}" --rdma --out "$OUT/guest" -- \
		"$(printf '%q ' selftests/run.sh "${tests[@]}")" || rc=$?
fi
if [ "${#hosts[@]}" -gt 0 ]; then
	scripts/vm/vm.sh "${intree[@]}" --out "$OUT/hosts" -- \
		"$wire_env RDS_SUITE=hosts $(printf '%q ' selftests/run.sh "${hosts[@]}")" ||
		rc=$?
fi
if [ "${#twohost_tcp[@]}" -gt 0 ]; then
	scripts/vm/vm2.sh --timeout 900 --out "$OUT/twohost-tcp" -- \
		"$wire_env RDS_SUITE=hosts $(printf '%q ' selftests/run.sh "${twohost_tcp[@]}")" ||
		rc=$?
fi
if [ "${#twohost[@]}" -gt 0 ]; then
	scripts/vm/vmN.sh --hosts 2 --nics "$nics" --rdma --timeout 1500 --out "$OUT/twohost" -- \
		"$wire_env RDS_SUITE=hosts $(printf '%q ' selftests/run.sh "${twohost[@]}")" ||
		rc=$?
fi
echo "# make test: results in $OUT (exit $rc)"
exit "$rc"
