#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of check-fault: run the whole selftest suite (selftests/run.sh,
# so tests added later are covered without touching this file) once per
# (module, probability) with slab and page allocations failing only on
# call paths through that module's text, then prove every failure path
# unwound: no kernel-log splat, no hang, and all our modules unload. A
# kmemleak scan at the end looks for leaks. Tests may fail functionally
# under injection; those failures are counted, not judged.
#
# Scoping: failslab and fail_page_alloc with the stack-trace filter
# (require-start/-end = the module's core allocation from /proc/modules),
# no task filter, so the module's own kernel threads and work items are
# covered too. A watcher follows the module when the suite reloads it.
#
# Writes TAP to $OUT/fault.tap, the kernel-log slice of each round to
# $OUT/fault-MODULE-P.dmesg, the suite's output of each round to
# $OUT/fault-MODULE-P.log, and ends with the closing numbers.
#
#	fault-inject.sh [NAME...]   programs of selftests/run.sh, exact names
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# Not rds_iwarp: its ops table points straight into rds_rdma.ko's verbs
# engine, so no allocation has its text on the stack (its round injected
# nothing at 100 % and cost five minutes of CI); rds_rdma's rounds drive
# siw through the same engine.
MODULES=${RDS_FAULT_MODULES:-rds rds_loop rds_tcp rds_rdma}
# Highest first: if a module's paths allocate nothing at 100 %, lower
# probabilities cannot inject anything either, and its other rounds are
# skipped (they would only cost time).
# 10 % reaches rarer paths (two orders of magnitude more failures). It
# once ended with rds_loop "in use" at unload: rdma's free_mr_races_rdma
# forked a helper that outlived its test when RDS_GET_MR failed, holding
# loopback sockets; helpers now die with their test (PR_SET_PDEATHSIG, and
# the harness kills each test's process group).
PROBS=${RDS_FAULT_PROBS:-100 10}
# RDS_FAULT_SKIP: MODULE:PROBABILITY rounds left out (CI's shorter boot:
# rds_rdma at 100 % took 208 s to fail its first allocations at one
# site, which its 10 % round hits too).
SKIP=" ${RDS_FAULT_SKIP:-} "
# A misspelt entry would leave its round in without a word: refuse it.
for s in ${RDS_FAULT_SKIP:-}; do
	known=0
	for m in $MODULES; do
		for p in $PROBS; do
			[ "$s" = "$m:$p" ] && known=1
		done
	done
	if [ "$known" = 0 ]; then
		echo "fault-inject: RDS_FAULT_SKIP entry '$s' names no round (MODULE:PROBABILITY of: $MODULES; $PROBS)" >&2
		exit 2
	fi
done
# Without NAME arguments: the programs that drive the core's and the
# transports' allocation paths; the long ones (stress, tools, python,
# and the waiting congestion, poll and netns tests) add time, not sites.
# RDS_FAULT_TESTS=all runs everything.
DEFAULT_TESTS="socket_create bind connect sendmsg recvmsg sockopt info ping lifecycle loop_unload rdma"
if [ $# = 0 ] && [ "${RDS_FAULT_TESTS:-}" != all ]; then
	# shellcheck disable=SC2086
	set -- ${RDS_FAULT_TESTS:-$DEFAULT_TESTS}
fi
# Exact program names: run.sh matches substrings, and "rdma" would also
# run rdma_adapters and rdma_devices, minutes of rds-stress that under
# injection only wait out their timeouts (they once tripled CI's rounds).
# The verbs engine's allocations (device setup, registration queue pairs,
# connections over rxe and siw) are reached only by the tests that drive
# a real adapter: its modules' rounds add them.
RDMA_TESTS=${RDS_FAULT_RDMA_TESTS:-rdma_devices rdma_adapters}
exact() {	# NAME...: as run.sh's exact-name arguments
	local a
	for a in "$@"; do
		case "$a" in =*) echo "$a" ;; *) echo "=$a" ;; esac
	done
}
mapfile -t names < <(exact "$@")
# shellcheck disable=SC2086
mapfile -t rdma_names < <(exact $RDMA_TESTS)
LOAD_ORDER="rds rds_loop rds_tcp rds_rdma rds_iwarp"
OUT=${OUT:-/run/out}
TAP=$OUT/fault.tap
DBG=/sys/kernel/debug
TIMES=1000000	# a budget we never exhaust; what is left tells how many fired
ATTRS="failslab fail_page_alloc"

mountpoint -q $DBG || mount -t debugfs debugfs $DBG
for a in $ATTRS; do
	[ -d "$DBG/$a" ] || { echo "fault: no $DBG/$a (kernel without fault injection)"; exit 1; }
	[ -e "$DBG/$a/require-start" ] ||
		{ echo "fault: no stack-trace filter in $DBG/$a"; exit 1; }
done

fi_set() {	# ATTRIBUTE-FILE VALUE, on every capability
	local a
	for a in $ATTRS; do
		echo "$2" > "$DBG/$a/$1" || return 1
	done
}

# No failure anywhere: an empty required range matches no stack.
disarm() {
	fi_set probability 0
	fi_set require-end 0
	fi_set require-start 0
}

fi_set interval 1
fi_set space 0
fi_set verbose 2	# a stack per failure: that is how sites are counted
fi_set task-filter N
fi_set ignore-gfp-wait N	# GFP_KERNEL allocations too, not only atomic
fi_set stacktrace-depth 32
echo N > $DBG/fail_page_alloc/ignore-gfp-highmem
echo 0 > $DBG/fail_page_alloc/min-order
disarm

# Point the filter at MODULE's text whenever it is (re)loaded; close it
# while the module is gone. The range is the module's core allocation
# (text, then data): a return address in it is a call from MODULE. Runs until STOPFILE appears.
follow_module() {	# MODULE STOPFILE
	local m=$1 stop=$2 last="" cur base size
	while [ ! -e "$stop" ]; do
		# Ours only: the suite also loads Linux's in-tree rds.ko,
		# which has the same name but no O (out-of-tree) taint.
		cur=$(awk -v m="$m" '$1 == m && $5 == "Live" && $7 ~ /O/ { print $6, $2 }' /proc/modules)
		if [ "$cur" != "$last" ]; then
			fi_set require-end 0
			if [ -n "$cur" ]; then
				read -r base size <<< "$cur"
				fi_set require-start "$base"
				fi_set require-end "$(printf '0x%x' $((base + size)))"
			fi
			last=$cur
		fi
		sleep 0.1
	done
}

load_all() {
	local m
	for m in $LOAD_ORDER; do
		modprobe "$m" || return 1
	done
}

unload_all() {
	local m
	for m in rds_iwarp rds_rdma rds_tcp rds_loop rds; do
		if [ -d "/sys/module/$m" ]; then
			rmmod "$m" || return 1
		fi
	done
}

# The distinct call sites in MODULE that a failure was injected through:
# the first frame of each failure's stack that lies in MODULE.
sites_of() {	# MODULE DMESG-SLICE
	awk -v tag="[$1]" '
		/FAULT_INJECTION: forcing a failure/ { want = 1; next }
		want && index($0, tag) {
			for (i = 1; i <= NF; i++)
				if ($i ~ /\+0x[0-9a-f]+\/0x/) { print $i; break }
			want = 0
		}' "$2" | sort -u
}

: > "$TAP"
n=0 bad=0 total_inj=0 total_surv=0 total_testfail=0 rounds=0
declare -A allsites
emit() { echo "$1" | tee -a "$TAP"; }
echo "TAP version 13" | tee -a "$TAP"
for m in $MODULES; do
	idle=0
	for p in $PROBS; do
		n=$((n + 1))
		if [ "$idle" = 1 ]; then
			emit "ok $n - $m p=$p%: # SKIP nothing allocated on $m's paths at 100%"
			continue
		fi
		if [[ "$SKIP" == *" $m:$p "* ]]; then
			emit "ok $n - $m p=$p%: # SKIP left out by RDS_FAULT_SKIP"
			continue
		fi
		rounds=$((rounds + 1))
		tests=("${names[@]}")
		# With no names at all run.sh runs everything already.
		if [ ${#names[@]} -gt 0 ]; then
			case "$m" in
			rds_rdma|rds_iwarp) tests+=("${rdma_names[@]}") ;;
			esac
		fi
		tag="$m p=$p%"
		problems=""
		load_all || problems="$problems modules-did-not-load"
		mark=$(dmesg | wc -l)
		fi_set times $TIMES
		stop=/tmp/fault.stop
		rm -f "$stop"
		follow_module "$m" "$stop" &
		watcher=$!
		sleep 0.3
		fi_set probability "$p"
		t0=$(date +%s)
		RESULTS=/tmp/fault-run.tap RDS_TEST_TIMEOUT=${RDS_FAULT_TEST_TIMEOUT:-180} \
			timeout -k 10 "${RDS_FAULT_ROUND_TIMEOUT:-900}" selftests/run.sh "${tests[@]}" \
			> /tmp/fault-run.log 2>&1
		rrc=$?
		disarm
		touch "$stop"
		wait "$watcher"
		inj=0
		for a in $ATTRS; do
			inj=$((inj + TIMES - $(cat "$DBG/$a/times")))
		done
		testfail=$(grep -c '^not ok' /tmp/fault-run.tap 2>/dev/null)
		# A hang: the round or one of its programs hit its timeout.
		if [ "$rrc" = 124 ] || [ "$rrc" = 137 ] ||
		   grep -Eq 'exited with status (124|137)' /tmp/fault-run.tap; then
			problems="$problems hang"
		fi
		# Let deferred teardown (RCU, work items) finish, then unload.
		sleep 1
		unload_all > /tmp/fault-unload.log 2>&1 ||
			problems="$problems unload-failed($(tr '\n' ' ' < /tmp/fault-unload.log))"
		cp /tmp/fault-run.log "$OUT/fault-$m-$p.log"
		slice=$OUT/fault-$m-$p.dmesg
		dmesg | tail -n +"$((mark + 1))" > "$slice"
		# kmemleak's periodic scan reports in whichever round it runs;
		# the check after the last round judges leaks, naming Linux's.
		if ! RDS_LOGSCAN_IGNORE='kmemleak: [0-9]+ new suspected' \
			scripts/check/logscan.sh "$slice" > /tmp/fault-splat; then
			problems="$problems splat"
		fi
		sites=$(sites_of "$m" "$slice")
		nsites=$(echo -n "$sites" | grep -c .)
		for s in $sites; do allsites["$m:$s"]=1; done
		total_inj=$((total_inj + inj))
		total_testfail=$((total_testfail + testfail))
		[ "$p" = 100 ] && [ "$inj" = 0 ] && idle=1
		desc="$tag: $inj failures injected at $nsites site(s), $testfail test(s) failed functionally, $(($(date +%s) - t0)) s"
		if [ -z "$problems" ]; then
			total_surv=$((total_surv + inj))
			emit "ok $n - $desc"
		else
			bad=$((bad + 1))
			emit "not ok $n - $desc"
			emit "    # problems:$problems"
			sed 's/^/    # /' /tmp/fault-splat | head -n 40 | tee -a "$TAP"
		fi
		[ -n "$sites" ] && echo "$sites" | sed "s/^/    # site $m: /"
	done
done

# Every path above ran and unwound: nothing of ours may be left behind.
n=$((n + 1))
if scripts/check/kmemleak-check.sh "$OUT/fault-kmemleak.txt" > /tmp/fault-kmemleak.log 2>&1; then
	emit "ok $n - kmemleak after injection: $(head -n 1 /tmp/fault-kmemleak.log)"
else
	bad=$((bad + 1))
	emit "not ok $n - kmemleak after injection"
	sed 's/^/    # /' /tmp/fault-kmemleak.log | head -n 60 | tee -a "$TAP"
fi
load_all	# leave the machine as the runner found it
emit "1..$n"
echo "# fault: $rounds rounds over [$MODULES] at [$PROBS]%: ${#allsites[@]} allocation site(s) hit, $total_inj failures injected, $total_surv survived, $total_testfail functional test failure(s) under injection"
[ "$bad" = 0 ]
