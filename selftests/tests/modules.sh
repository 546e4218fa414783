#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module lifecycle: ours are the ones loaded, transports pin the core, the
# core refuses to unload under them, everything unloads in reverse and
# reloads, AF_RDS auto-loads our core, and our rds.ko refuses cleanly to
# load next to another holder of AF_RDS (Linux's in-tree rds.ko, or a
# test module that registers the family).
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
REPO=$(cd .. && pwd)
KVER=$(uname -r)
TRANSPORTS="rds_loop rds_tcp rds_rdma rds_iwarp"

is_ours() {
	# Out-of-tree modules carry the O taint flag; in-tree ones do not.
	grep -q O "/sys/module/$1/taint"
}

loaded() {
	[ -d "/sys/module/$1" ]
}

load_all() {
	local m
	for m in rds $TRANSPORTS; do
		modprobe "$m" || return 1
	done
}

unload_all() {
	local m
	for m in rds_iwarp rds_rdma rds_tcp rds_loop rds; do
		if loaded "$m"; then rmmod "$m" || return 1; fi
	done
}

all_ours_loaded() {
	local m
	for m in rds $TRANSPORTS; do
		loaded "$m" || { echo "$m not loaded"; return 1; }
		is_ours "$m" || { echo "$m is not ours"; return 1; }
	done
}

holders_are_transports() {
	local m core
	for m in $TRANSPORTS; do
		# rds_iwarp sits on rds_rdma's verbs engine, which holds rds.
		core=rds
		[ "$m" = rds_iwarp ] && core=rds_rdma
		[ -e "/sys/module/$core/holders/$m" ] ||
			{ echo "$m does not hold $core"; ls /sys/module/$core/holders; return 1; }
	done
}

# rds_iwarp needs the engine in rds_rdma: that unload is refused.
rmmod_engine_refused() {
	if rmmod rds_rdma 2>/tmp/rmmod.err; then
		echo "rmmod rds_rdma succeeded while rds_iwarp was loaded"
		return 1
	fi
	grep -q "in use" /tmp/rmmod.err || { cat /tmp/rmmod.err; return 1; }
	loaded rds_rdma
}

rmmod_core_refused() {
	if rmmod rds 2>/tmp/rmmod.err; then
		echo "rmmod rds succeeded while transports were loaded"
		return 1
	fi
	grep -q "in use" /tmp/rmmod.err || { cat /tmp/rmmod.err; return 1; }
	loaded rds
}

none_loaded() {
	local m
	for m in rds $TRANSPORTS; do
		loaded "$m" && { echo "$m still loaded"; return 1; }
	done
	return 0
}

socket_autoloads_ours() {
	python3 -c 'import socket; socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET).close()' &&
		loaded rds && is_ours rds
}

intree_clash() {
	local intree rc=0
	# Compressed on newer kernels (Debian 13's 6.12: rds.ko.xz).
	intree=$(echo "/lib/modules/$KVER/kernel/net/rds/rds.ko"*)
	unload_all || return 1
	insmod "$intree" || { echo "cannot load in-tree $intree"; return 1; }
	if is_ours rds; then echo "in-tree rds looks out-of-tree"; rc=1; fi
	if insmod "$REPO/net/rds.ko" 2>/tmp/insmod.err; then
		echo "our rds.ko loaded next to the in-tree one"
		rc=1
	fi
	echo "insmod said: $(cat /tmp/insmod.err)"
	grep -q "File exists" /tmp/insmod.err || rc=1
	# The in-tree module is untouched and still serves sockets.
	python3 -c 'import socket; socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET).close()' || rc=1
	rmmod rds || rc=1
	return $rc
}

family_clash() {
	local mod=$REPO/selftests/modules/rds_test_pf.ko rc=0 mark
	unload_all || return 1
	insmod "$mod" || { echo "cannot load $mod"; return 1; }
	mark=$(dmesg | wc -l)
	if insmod "$REPO/net/rds.ko" 2>/tmp/insmod.err; then
		echo "our rds.ko loaded while AF_RDS was taken"
		rc=1
	fi
	dmesg | tail -n +"$((mark + 1))" |
		grep -q "address family 21 is already registered" ||
		{ echo "no clear message in the kernel log:"; dmesg; rc=1; }
	rmmod rds_test_pf || rc=1
	return $rc
}

# Under `vm.sh --intree` Linux's own RDS is loaded: nothing here applies.
if [ -e /sys/module/rds/taint ] && ! grep -q O /sys/module/rds/taint; then
	tap_plan 1
	tap_skip "module lifecycle of our modules" "in-tree RDS is loaded (vm.sh --intree)"
	exit 0
fi

tap_plan 12
tap_check "our core and all transports are loaded (out-of-tree)" all_ours_loaded
tap_check "every transport holds the core (rds_iwarp: the verbs engine)" holders_are_transports
tap_check "rmmod rds with transports loaded fails cleanly" rmmod_core_refused
tap_check "rmmod rds_rdma with rds_iwarp loaded fails cleanly" rmmod_engine_refused
tap_check "unload in reverse order" unload_all
tap_check "nothing left loaded" none_loaded
tap_check "load core + each transport again" load_all
tap_check "reloaded modules are ours" all_ours_loaded
tap_check "unload again" unload_all
tap_check "socket(AF_RDS) auto-loads our rds.ko" socket_autoloads_ours
tap_check "our rds.ko refuses to load next to in-tree rds" intree_clash
tap_check "our rds.ko explains an AF_RDS clash" family_clash
# Leave the machine as we found it for the next test.
load_all
tap_done
