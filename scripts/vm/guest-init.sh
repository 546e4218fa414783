#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 in the guest after switch_root. Reads its job from the "out" share
# (/run/out/job.env, written by vm.sh), sets the machine up, runs the job,
# and leaves rc + the kernel log in /run/out for the host.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux}
OUT=/run/out

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devpts devpts /dev/pts 2>/dev/null || { mkdir -p /dev/pts; mount -t devpts devpts /dev/pts; }
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
ln -sf /proc/self/fd /dev/fd

. "$OUT/job.env"
# The kernel got this far: vm.sh boots again only a guest that did not.
: > "$OUT/started"

finish() {
	dmesg > "$OUT/dmesg"
	echo "$1" > "$OUT/rc"
	sync
	# Without ACPI (the debug kernel boots acpi=off) there is no way to
	# power off: reboot instead, which QEMU's -no-reboot turns into an
	# exit. Power-off stays the rule where it works.
	if grep -qw acpi=off /proc/cmdline; then
		echo b > /proc/sysrq-trigger
	else
		echo o > /proc/sysrq-trigger
	fi
	# Asynchronous, and the root may vanish under us: spin in a builtin
	# rather than exec anything.
	while :; do :; done
}

say() { echo "[guest] $*"; }

# vm.sh staged our modules under updates/ with a fresh depmod, as a DKMS
# install would leave them: stacked over /lib/modules/$KVER, modprobe and
# the kernel's own request_module() load ours and not Linux's in-tree RDS.
# MODDIR is the kernel's own modules dir as the host sees it (the guest
# sees the same path): /lib/modules/$KVER for Debian's kernel, a cache dir
# for one built elsewhere (the debug kernel). In that case the read-only
# root has no /lib/modules/$KVER to mount on, so a tmpfs over /lib/modules
# provides the mount point (the guest needs no other release's modules).
setup_modules() {
	local kver moddir
	# vm.sh --installed: the root's own modules, as its packages left them.
	[ "${STAGED:-1}" = 0 ] && return 0
	kver=$(uname -r)
	moddir=${MODDIR:-/lib/modules/$kver}
	if [ ! -d "/lib/modules/$kver" ]; then
		mount -t tmpfs -o mode=755 tmpfs /lib/modules || return 1
		mkdir "/lib/modules/$kver" || return 1
	fi
	mount -t overlay overlay -o "lowerdir=$OUT/modules:$moddir" \
		"/lib/modules/$kver"
}

# Two NICs, so each soft RDMA device owns its addresses and the RDMA CM
# never has to choose: eth0 carries rxe0 (RoCE), eth1 carries siw0
# (iWARP). Two addresses each make one VM a pair of RDS nodes.
setup_net() {
	local i
	ip link set lo up
	modprobe virtio_net 2>/dev/null
	for i in $(seq 50); do
		[ -e /sys/class/net/eth1 ] && break
		sleep 0.1
	done
	ip link set eth0 up && ip link set eth1 up || return 1
	ip addr add 10.99.0.1/24 dev eth0
	ip addr add 10.99.0.2/24 dev eth0
	ip addr add 10.98.0.1/24 dev eth1
	ip addr add 10.98.0.2/24 dev eth1
	ip -6 addr add fd99::1/64 dev eth0 nodad
	ip -6 addr add fd99::2/64 dev eth0 nodad
	ip -6 addr add fd98::1/64 dev eth1 nodad
	ip -6 addr add fd98::2/64 dev eth1 nodad
}

# Host N of the hosts on a wire (vm.sh --wire): the NIC with WIRE_MAC
# becomes wire0 with 10.99.1.N/24 and fd99:1::N/64 (a subnet of its own:
# eth0's 10.99.0.0/24 and fd99::/64 exist on every host). No DAD anywhere
# on it, link-local included, so IPv6 works at once. With a second port
# (vm.sh --wire1, WIRE_NICS=2) the NIC with WIRE1_MAC becomes wire1 with
# 10.99.2.N/24 and fd99:2::N/64 on a wire of its own. Each subnet is
# on-link on its own NIC only, and with two ports each NIC answers ARP
# only for its own addresses (arp_ignore=1, arp_announce=2): 10.99.1.x is
# reached over wire0 alone unless a test moves an address. The markers'
# share goes on /run/wire (no cache: each guest must see the others'
# files at once). The job sees the plan in RDS_WIRE_* (selftests/lib/
# wire.sh uses them); the peer of host a is b, of every other host a
# (host c's tests name their hosts themselves).
wire_nic() {	# MAC NAME IPV4-PREFIX IPV6-PREFIX
	local dev="" f i
	for i in $(seq 50); do
		for f in /sys/class/net/*/address; do
			[ "$(cat "$f")" = "$1" ] && dev=$(basename "$(dirname "$f")")
		done
		[ -n "$dev" ] && break
		sleep 0.1
	done
	[ -n "$dev" ] || { say "no NIC with MAC $1"; return 1; }
	ip link set "$dev" name "$2" || return 1
	sysctl -qw "net.ipv6.conf.$2.accept_dad=0" || return 1
	if [ "${WIRE_NICS:-1}" -gt 1 ]; then
		sysctl -qw "net.ipv4.conf.$2.arp_ignore=1" \
			"net.ipv4.conf.$2.arp_announce=2" || return 1
	fi
	ip link set "$2" up || return 1
	ip addr add "$3.$WIRE/24" dev "$2" || return 1
	ip -6 addr add "$4::$WIRE/64" dev "$2" nodad
}

setup_wire() {
	local peer=1
	[ "$WIRE" = 1 ] && peer=2
	wire_nic "$WIRE_MAC" wire0 10.99.1 fd99:1 || return 1
	if [ "${WIRE_NICS:-1}" -gt 1 ]; then
		wire_nic "$WIRE1_MAC" wire1 10.99.2 fd99:2 || return 1
	fi
	mkdir -p /run/wire &&
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 wire /run/wire ||
		return 1
	export RDS_WIRE_HOST=$WIRE RDS_WIRE_HOSTS=${WIRE_HOSTS:-2} RDS_WIRE_DIR=/run/wire
	export RDS_WIRE_NICS=${WIRE_NICS:-1}
	export RDS_WIRE_SELF=10.99.1.$WIRE RDS_WIRE_PEER=10.99.1.$peer
	export RDS_WIRE_SELF6=fd99:1::$WIRE RDS_WIRE_PEER6=fd99:1::$peer
	if [ "$RDS_WIRE_NICS" -gt 1 ]; then
		export RDS_WIRE1_SELF=10.99.2.$WIRE RDS_WIRE1_PEER=10.99.2.$peer
		export RDS_WIRE1_SELF6=fd99:2::$WIRE RDS_WIRE1_PEER6=fd99:2::$peer
	fi
}

# On a wire, wire0 carries rxe1 too (RoCE between the hosts), and a
# second port wire1 carries rxe2; one soft device per NIC, so the RDMA
# CM never chooses between two.
setup_rdma() {
	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0 || return 1
	modprobe siw && rdma link add siw0 type siw netdev eth1 || return 1
	if [ -n "${WIRE:-}" ]; then
		rdma link add rxe1 type rxe netdev wire0 || return 1
	fi
	if [ "${WIRE_NICS:-1}" -gt 1 ]; then
		rdma link add rxe2 type rxe netdev wire1 || return 1
	fi
}

if [ -n "${WIRE:-}" ]; then hostname "rds-host$WIRE"; else hostname rds-vm; fi
if ! setup_modules; then say "module overlay failed"; finish 97; fi
if ! setup_net; then say "network setup failed"; finish 97; fi
if [ -n "${WIRE:-}" ] && ! setup_wire; then say "wire setup failed"; finish 97; fi
# Which RDS the job runs on (ours or intree), for tests that compare.
export RDS_IMPL
if [ "$RDMA" = 1 ] && ! setup_rdma; then say "soft RDMA setup failed"; finish 97; fi
if [ "$LOAD" = 1 ]; then
	for m in $RDS_LOAD; do
		modprobe "$m" || { say "modprobe $m failed"; finish 97; }
	done
fi

cd "$REPO" || finish 97
if [ "$INTERACTIVE" = 1 ]; then
	say "interactive shell; exit it to power off"
	setsid -c bash -l </dev/console >/dev/console 2>&1
	finish $?
fi

bash -c "$JOB"
finish $?
