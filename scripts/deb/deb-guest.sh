#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In a guest booted on a root where the packages were installed (or
# purged) by scripts/deb/check-deb.sh, with nothing staged by the test
# bed (vm.sh --installed): what modprobe finds is what the packages left.
#
#	deb-guest.sh VERSION   rds-dkms VERSION's modules load from updates/
#	                       and the /usr/bin tools of rds-tools run on them
#	deb-guest.sh intree    after the purge: Linux's own RDS loads again,
#	                       and no tool of ours is left
#	deb-guest.sh states VERSION NEXT
#	                       VERSION on this root, then NEXT and intree in
#	                       the roots of the later states, which
#	                       check-deb.sh mounts at /mnt/rds-deb/next and
#	                       /mnt/rds-deb/purged: each in a chroot (its own
#	                       /lib/modules and /usr/bin) on this same kernel,
#	                       with everything unloaded in between. One boot
#	                       instead of three.
# TAP on stdout.
cd "$(dirname "$0")/../../selftests" || exit 1
. lib/tap.sh
want=${1:?usage: deb-guest.sh VERSION|intree|states VERSION NEXT}
if [ "$want" = states ]; then
	self=$(cd .. && pwd)/scripts/deb/deb-guest.sh
	repo=$(cd .. && pwd)
	in_state() {	# ROOT ARGS...: this script in ROOT, fresh mounts
		local root=$1 rc
		shift
		mount -t proc proc "$root/proc" && mount -t sysfs sysfs "$root/sys" &&
			mount --bind /dev "$root/dev" && mount -t tmpfs tmpfs "$root/tmp" &&
			mount --bind "$repo" "$root$repo" || return 1
		chroot "$root" /bin/bash "$self" "$@"
		rc=$?
		umount "$root$repo" "$root/tmp" "$root/dev" "$root/sys" "$root/proc"
		return $rc
	}
	unload() { modprobe -r rds_tcp rds_loop rds_iwarp rds_rdma rds 2>/dev/null; :; }
	rc=0
	"$self" "$2" || rc=1
	unload
	in_state /mnt/rds-deb/next "$3" || rc=1
	unload
	in_state /mnt/rds-deb/purged intree || rc=1
	exit $rc
fi
KVER=$(uname -r)
WORK=$(mktemp -d /tmp/rds-deb.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# modinfo: where modprobe takes MODULE from and which version it says.
from_updates() {	# MODULE
	local f v
	f=$(modinfo -F filename "$1") || return 1
	v=$(modinfo -F version "$1")
	echo "$1: $f, version '$v'"
	[[ "$f" == "/lib/modules/$KVER/updates/"* ]] && [ "$v" = "$want" ]
}
from_kernel() {	# MODULE
	local f
	f=$(modinfo -F filename "$1") || return 1
	echo "$1: $f"
	[[ "$f" == "/lib/modules/$KVER/kernel/net/rds/"* ]]
}
# The loaded module itself: its version in sysfs, the out-of-tree taint.
loaded_ours() {	# MODULE
	local v
	v=$(cat "/sys/module/$1/version" 2>/dev/null)
	echo "$1: loaded version '$v', taint '$(cat "/sys/module/$1/taint")'"
	[ "$v" = "$want" ] && grep -q O "/sys/module/$1/taint"
}
# Linux's rds.ko has a MODULE_VERSION of its own ("4.0"): the taint tells.
loaded_intree() {	# MODULE
	echo "$1: taint '$(cat "/sys/module/$1/taint")'"
	[ -d "/sys/module/$1" ] && ! grep -q O "/sys/module/$1/taint"
}
unload_all() {
	local m
	for m in rds_tcp rds_loop rds; do
		[ ! -d "/sys/module/$m" ] || rmmod "$m" || return 1
	done
}

tools_from_package() {
	local t
	for t in rds-stress rds-ping rds-info; do
		[ "$(command -v "$t")" = "/usr/bin/$t" ] || { echo "$t: $(command -v "$t")"; return 1; }
		dpkg -S "/usr/bin/$t" || return 1
	done
	ls /usr/share/man/man1/rds-stress.1.gz /usr/share/man/man1/rds-ping.1.gz \
		/usr/share/man/man1/rds-info.1.gz /usr/share/man/man7/rds.7.gz \
		/usr/share/man/man7/rds-rdma.7.gz
}
ping_loop() {
	timeout 60 rds-ping -c 3 -i 0.2 127.0.0.1
}
# rds-stress asking for TCP (SO_RDS_TRANSPORT) between the guest's two
# addresses, verified payloads; rds-info then lists that connection. Both
# ends are local, so rds_tcp hands it to loopback, as Linux's does
# (t_prefer_loopback): what crosses a wire is make check-wire's.
stress_tcp() {
	local prc arc
	timeout 60 rds-stress -r 10.99.0.2 -p 4700 > "$WORK/passive" 2>&1 &
	timeout 60 rds-stress -r 10.99.0.1 -s 10.99.0.2 -p 4700 --transport tcp \
		-Q 1 -t 2 -d 2 -T 2 -v > "$WORK/active" 2>&1
	arc=$?
	wait $!
	prc=$?
	cat "$WORK/active" "$WORK/passive"
	[ "$arc" = 0 ] && [ "$prc" = 0 ] && grep -q '(average)' "$WORK/active"
}
info_conn() {
	rds-info -n 2>&1 | tee "$WORK/info"
	grep -q '10.99.0.1 *10.99.0.2 .*loopback' "$WORK/info"
}
no_tools() {
	local t
	for t in rds-stress rds-ping rds-info; do
		[ ! -e "/usr/bin/$t" ] || { echo "/usr/bin/$t left"; return 1; }
	done
	[ ! -e /usr/share/man/man7/rds.7.gz ] || { echo "rds.7 left"; return 1; }
}
no_updates() {
	ls -R "/lib/modules/$KVER/updates" 2>/dev/null | grep '\.ko' && return 1
	return 0
}

# Every line says which state it checks.
check() {	# DESC CMD...
	local d=$1
	shift
	tap_check "$want: $d" "$@"
}
echo "# kernel $KVER; expecting $want"
if [ "$want" = intree ]; then
	tap_plan 5
	check "no rds module left under updates/" no_updates
	check "modinfo rds_tcp: Linux's, kernel/net/rds/" from_kernel rds_tcp
	check "modprobe rds_tcp" modprobe rds_tcp
	check "loaded rds and rds_tcp are Linux's (no out-of-tree taint)" \
		eval 'loaded_intree rds && loaded_intree rds_tcp'
	check "purge left no tool or man page" no_tools
else
	tap_plan 8
	check "modinfo rds, rds_tcp: updates/, version $want" \
		eval 'from_updates rds && from_updates rds_tcp'
	check "modprobe rds_tcp" modprobe rds_tcp
	check "loaded rds, rds_tcp: ours, version $want" \
		eval 'loaded_ours rds && loaded_ours rds_tcp'
	check "the tools are rds-tools' in /usr/bin, with man pages" tools_from_package
	check "rds-ping 127.0.0.1: 3 replies" ping_loop
	check "rds-stress --transport tcp 10.99.0.1 <-> 10.99.0.2, verified" stress_tcp
	check "rds-info -n lists that connection (local: loopback)" info_conn
	check "rds_tcp, rds_loop, rds unload" unload_all
fi
tap_done
