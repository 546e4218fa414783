#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: install what is missing, build everything, run the host
# checks (warnings, sparse, checkpatch, ABI, DKMS) and the test-bed
# self-tests, then boot the guest with rxe and siw and run the selftest
# suite in it, and boot once more with Linux's in-tree RDS to run the tool
# tests (selftests/tests/tools.sh) against it. Prints TAP, then "N passed, N failed[, N skipped]" and the
# wall time; exits non-zero on any failure.
#
#	check.sh [NAME...]   only the guest selftests whose name has NAME
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$REPO" || exit 1

start=$(date +%s)
RESULTS=$REPO/results/check
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
TAP=$RESULTS/check.tap
: > "$TAP"
n=0 pass=0 fail=0 skip=0

emit() { echo "$1" | tee -a "$TAP"; }
result() {	# result RC DESC [LOGFILE]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1))
		emit "ok $n - $2"
	else
		fail=$((fail + 1))
		emit "not ok $n - $2"
		[ -n "${3:-}" ] && tail -n 30 "$3" | sed 's/^/    # /' | tee -a "$TAP"
	fi
}
step() {	# step DESC CMD...: run CMD, log to a file, record the result
	local desc=$1 log
	shift
	log=$RESULTS/$(echo "$desc" | tr -c 'a-zA-Z0-9\n' '_').log
	"$@" > "$log" 2>&1
	result $? "$desc" "$log"
}

scripts/deps.sh || { echo "dependency install failed" >&2; exit 1; }
KDIR=$(rds_kdir)
KVER=$(rds_kver)
export KDIR KVER
echo "# kernel $KVER ($KDIR)"

echo "TAP version 13" | tee -a "$TAP"

# Host side: the build itself, then static checks.
step "build modules with W=1 and no warnings" \
	make modules W=1 KCFLAGS=-Werror
step "build tools, selftests and test-only modules" \
	make tools selftests test-modules
if [ "$fail" != 0 ]; then
	echo "build failed; see $RESULTS" >&2
	emit "1..$n"
	echo "$pass passed, $fail failed"
	exit 1
fi
step "sparse (make C=2) reports nothing" scripts/sparse.sh
step "checkpatch --strict clean" scripts/checkpatch.sh
step "uapi rds.h matches Linux's ABI" selftests/abi/check_abi.sh
step "dkms add/build/remove against $KVER headers" scripts/dkms-check.sh

# The test bed checks itself: a guest command's status comes back, and a
# kernel splat fails a run whose command succeeded.
vm_status() {
	scripts/vm.sh -- 'exit 7'
	[ $? = 7 ]
}
vm_splat() {
	scripts/vm.sh --no-load -- 'insmod selftests/modules/rds_test_warn.ko'
	[ $? = 99 ]
}
step "runner returns the guest command's exit status" vm_status
step "runner fails a run whose kernel log has a WARNING" vm_splat

# merge_guest_tap FILE LABEL: fold a guest's TAP stream into ours,
# renumbered, each description prefixed with LABEL.
merge_guest_tap() {
	local file=$1 label=$2 line status rest
	[ -f "$file" ] || return 0
	while IFS= read -r line; do
		case "$line" in
		"ok "*|"not ok "*)
			n=$((n + 1))
			status=${line%% [0-9]*}
			rest=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ - //')
			if [ "$status" != ok ]; then
				fail=$((fail + 1))
			elif [[ "$rest" == *"# SKIP"* ]]; then
				skip=$((skip + 1))
			else
				pass=$((pass + 1))
			fi
			echo "$status $n - $label: $rest" >> "$TAP"
			;;
		"    "*) echo "$line" >> "$TAP" ;;
		esac
	done < "$file"
}

# The suite, in one boot with rxe and siw.
guest_log=$RESULTS/guest.log
scripts/vm.sh --rdma --out "$RESULTS/guest" -- selftests/run.sh "$@" 2>&1 | tee "$guest_log"
vmrc=${PIPESTATUS[0]}
merge_guest_tap "$RESULTS/guest/results.tap" guest
result "$vmrc" "guest suite finished with a clean kernel log (vm.sh exit $vmrc)" "$guest_log"

# The same suite against Linux's in-tree RDS, the reference: every test
# that states upstream behaviour must pass there too (the ones for what we
# do better skip there, saying so), and the tools must work with both.
intree_log=$RESULTS/guest-intree.log
scripts/vm.sh --intree --rdma --out "$RESULTS/guest-intree" -- \
	selftests/run.sh "$@" 2>&1 | tee "$intree_log"
vmrc=${PIPESTATUS[0]}
merge_guest_tap "$RESULTS/guest-intree/results.tap" "in-tree rds"
result "$vmrc" "in-tree RDS suite finished with a clean kernel log (vm.sh exit $vmrc)" \
	"$intree_log"

emit "1..$n"
elapsed=$(($(date +%s) - start))
echo "# results: $TAP"
echo "# wall time: $((elapsed / 60))m$((elapsed % 60))s"
summary="$pass passed, $fail failed"
[ "$skip" -gt 0 ] && summary="$summary, $skip skipped"
echo "$summary"
[ "$fail" = 0 ]
