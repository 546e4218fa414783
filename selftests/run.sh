#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest-side suite runner: runs every selftest program (tests/*.sh and
# the C tests built into bin/), merges their TAP into one stream, checks
# the kernel log after each program, and writes the stream to
# $RESULTS (default /run/out/results.tap).
#
#	run.sh [NAME...]    only the programs whose name contains NAME
#	                    (=NAME: only the program called NAME)
#
# RDS_SUITE=DIR runs DIR/*.sh instead (e.g. hosts: the tests between two
# RDS hosts, which make check-wire runs). RDS_SKIP_TESTS="NAME ..." leaves
# out the programs with those names (make check's in-tree boot leaves out
# the long wire tests that check-wire already runs against Linux's RDS).
cd "$(dirname "$0")" || exit 1
RESULTS=${RESULTS:-/run/out/results.tap}
TIMEOUT=${RDS_TEST_TIMEOUT:-600}
n=0 pass=0 fail=0 skip=0

progs=()
globs=(tests/*.sh bin/*)
[ -n "${RDS_SUITE:-}" ] && globs=("$RDS_SUITE"/*.sh)
for p in "${globs[@]}"; do
	[ -x "$p" ] || continue
	name=$(basename "$p" .sh)
	case " ${RDS_SKIP_TESTS:-} " in *" $name "*) continue ;; esac
	if [ $# -gt 0 ]; then
		match=0
		for want in "$@"; do
			case "$want" in
			=*) [ "$name" = "${want#=}" ] && match=1 ;;
			*) case "$p" in *"$want"*) match=1 ;; esac ;;
			esac
		done
		[ "$match" = 1 ] || continue
	fi
	progs+=("$p")
done

# No pipes here: a fork per TAP line cost the TCG guest tens of seconds.
emit() {
	printf '%s\n' "$1"
	printf '%s\n' "$1" >> "$RESULTS"
}

: > "$RESULTS"
echo "TAP version 13" | tee -a "$RESULTS"
for p in "${progs[@]}"; do
	name=$(basename "$p")
	name=${name%.sh}
	echo "# ---- $name"
	mark=$(dmesg | wc -l)
	out=$(mktemp)
	t0=$SECONDS
	timeout -k 10 "$TIMEOUT" "./$p" > "$out" 2>&1
	rc=$?
	# How long each program took: what to trim when the suite is slow.
	emit "# $name: $((SECONDS - t0)) s"
	sub_fail=0
	while IFS= read -r line; do
		case "$line" in
		"ok "*|"not ok "*)
			n=$((n + 1))
			status=${line%% [0-9]*}
			rest=$line
			[[ "$line" =~ ^(not\ )?ok\ [0-9]+\ (-\ )?(.*)$ ]] &&
				rest=${BASH_REMATCH[3]}
			if [ "$status" = "ok" ]; then
				case "$rest" in
				*"# SKIP"*|*"# skip"*) skip=$((skip + 1)) ;;
				*) pass=$((pass + 1)) ;;
				esac
			else
				fail=$((fail + 1))
				sub_fail=1
			fi
			emit "$status $n - $name: $rest"
			;;
		"TAP version"*|"1.."*) ;;
		*) emit "    $line" ;;
		esac
	done < "$out"
	rm -f "$out"
	if [ "$rc" != 0 ] && [ "$sub_fail" = 0 ]; then
		n=$((n + 1)); fail=$((fail + 1))
		emit "not ok $n - $name: exited with status $rc"
	fi
	# Our core counts its live objects: after a program exits, every
	# socket, message, incoming, memory region, zero-copy completion and
	# socket destination state must be gone (connections and congestion
	# maps live on by design until unload).
	objs=/sys/kernel/debug/rds/objects
	if [ -r "$objs" ]; then
		n=$((n + 1))
		left=""
		for i in $(seq 20); do
			left=$(awk '($1 == "sockets" || $1 == "messages" ||
				     $1 == "incoming" || $1 == "mrs" ||
				     $1 == "zcopy" || $1 == "send_dests") &&
				    $2 != 0' "$objs")
			[ -z "$left" ] && break
			sleep 0.1
		done
		if [ -z "$left" ]; then
			pass=$((pass + 1))
			emit "ok $n - $name: no rds objects leaked"
		else
			fail=$((fail + 1))
			emit "not ok $n - $name: no rds objects leaked"
			echo "$left" | sed 's/^/    # /' | tee -a "$RESULTS"
		fi
	fi
	n=$((n + 1))
	if dmesg | tail -n +"$((mark + 1))" | ../scripts/check/logscan.sh > /tmp/splat; then
		pass=$((pass + 1))
		emit "ok $n - $name: kernel log clean"
	else
		fail=$((fail + 1))
		emit "not ok $n - $name: kernel log clean"
		sed 's/^/    # /' /tmp/splat | tee -a "$RESULTS"
		# The first report whole (its task and call trace): a CI
		# log has nothing else to find its cause by.
		first=$(sed -n '1s/:.*//p' /tmp/splat)
		dmesg | tail -n +"$((mark + first))" | head -n 45 |
			sed 's/^/    #| /' | tee -a "$RESULTS"
	fi
done
emit "1..$n"
line="$pass passed, $fail failed"
[ "$skip" -gt 0 ] && line="$line, $skip skipped"
echo "# guest: $line"
[ "$fail" = 0 ]
