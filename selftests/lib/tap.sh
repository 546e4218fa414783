# SPDX-License-Identifier: GPL-2.0
# TAP helpers for shell selftests (sourced).
#	tap_plan N; tap_check "what" command...; tap_done
TAP_N=0
TAP_FAILED=0

tap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

tap_ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1"
}

tap_not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $1"
}

tap_skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

# tap_check DESC CMD...: passes when CMD exits 0; CMD's output becomes
# diagnostics on failure.
tap_check() {
	local desc=$1 out t0=$SECONDS
	shift
	if out=$("$@" 2>&1); then
		tap_ok "$desc"
	else
		tap_not_ok "$desc"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
	# What to trim when the suite runs long.
	[ $((SECONDS - t0)) -lt 3 ] || echo "# $((SECONDS - t0)) s"
}

# tap_check_fails DESC CMD...: passes when CMD exits non-zero.
tap_check_fails() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		tap_not_ok "$desc"
		printf '%s\n' "$out" | sed 's/^/# /'
	else
		tap_ok "$desc"
	fi
}

tap_done() {
	[ "$TAP_FAILED" = 0 ]
}
