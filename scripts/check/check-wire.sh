#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-wire`: RDS over a real wire transport between two RDS hosts:
# TCP in two ways, a netns pair in one guest (selftests/hosts/netns_tcp.sh)
# and two guests joined by a virtual wire (scripts/vm/vm2.sh running
# selftests/hosts/twohost_tcp.sh on both), and InfiniBand (RoCE: rxe1 on
# each guest's end of the wire, vm2.sh --rdma running
# selftests/hosts/twohost_ib.sh on both) and iWARP (siw1 there instead,
# selftests/hosts/twohost_iw.sh, ours on both). Prints TAP, then "N passed, N
# failed" and the wall time; exits non-zero on any failure.
#
#	check-wire.sh [--short] [--no-build]
#
# --short: the short variant (fewer sessions of 1 s, one two-host pair),
# the one make check calls (its wire round);
# --no-build: the caller has built everything (make check).
#
# Environment:
#   RDS_IMPL    module set of the netns boot and the default pairs: ours
#               (default) or intree (Linux's own RDS, the reference: the
#               test bed checked against itself)
#   WIRE_PAIRS  two-host pairs "A:B ..." (host a is the client, b serves);
#               default "ours:ours ours:intree intree:ours" (interop both
#               ways), or with RDS_IMPL=intree "intree:intree";
#               --short runs the first default one only (all given ones)
#   IB_PAIRS    the same for RDS over IB (twohost_ib); default as
#               WIRE_PAIRS, but --short runs none unless given (make
#               check's budget: one IB pair is ~3 min of two TCG guests)
#   IW_PAIRS    the same for RDS over iWARP (twohost_iw: siw1 on the
#               wire); only ours:ours exists; default that with
#               RDS_IMPL=ours, --short included (about 1 min), else none
#   FC_PAIRS    the first-contact outages (selftests/hosts/first_contact.sh),
#               one --rdma boot per pair A:B: RDS/TCP, IB and iWARP, every
#               scenario with 20 s outages, or with --short one scenario
#               per transport with 5 s outages (about 2 minutes); default
#               with RDS_IMPL=ours "ours:ours intree:ours ours:intree" (ours
#               sends, Linux receives, over TCP and IB), --short the first
#               only; none with RDS_IMPL=intree. The same boots run
#               liveness_ib (a quiet RDS/IB connection to a frozen peer
#               drops within 12 s; with --short without the heartbeat-off
#               control: about 40 s)
#   TWONIC_PAIRS two-port boots A:B (scripts/vm/vmN.sh --hosts 2 --nics
#               2 --rdma; issue 27: twonic_smoke, the test bed's second
#               wire; twonic_tcp, RDS/TCP streams across the loss of
#               wire0; drop_reasons, the lanes' history and drop reasons);
#               default with RDS_IMPL=ours "ours:ours", none with --short,
#               which instead runs twonic_tcp's short variant in its
#               first-contact boot (given --nics 2 for it: about 35 s);
#               the ours:ours boot also runs addr_move
#   AM_PAIRS    address-move boots A:B (selftests/hosts/addr_move.sh: the
#               failed port's address moves to the surviving port, RDS/IB
#               reconnects over it; about 80 s each); default with
#               RDS_IMPL=ours "ours:intree intree:ours ours:intree@7.2
#               intree@7.2:ours",
#               none with --short. intree@NAME: Linux's RDS on the kernel
#               NAME of scripts/kernels (vmN.sh --kernel-X; its Debian
#               root is made on first use)
#   WIRE_NETNS  1 (default) runs the netns-pair boot, 0 leaves it out
#               (make check's wire round: its guest suite's
#               tcp_lossy_wire pings and runs verified rds-stress sessions
#               over the same kind of netns pair)
#   THREE_PAIRS three-host boots A:B:C (scripts/vm/vmN.sh --hosts 3
#               --rdma; selftests/hosts/three_hog.sh and three_sndbuf.sh,
#               issue 25's items 3 and 4: c dies while a and b talk, over
#               RDS/TCP and RDS/IB); default with RDS_IMPL=ours
#               "ours:ours:ours intree:ours:ours ours:intree:ours"
#               (Linux sends to our hog's host; ours sends to Linux past
#               a dead c), none with --short or RDS_IMPL=intree
#   RXMEM_PAIRS receive memory at cluster scale A:B (selftests/hosts/
#               rx_memory.sh: host b owns 64 more addresses, host a pings
#               each on 4 TOS values, 256 RDS/IB connections, the cost
#               of each on both hosts; 2 GiB guests, about 70 s);
#               default with RDS_IMPL=ours "ours:ours", none with --short
#   HA_MODES    port failover between two of ours with two ports each
#               (selftests/hosts/ha_route.sh, vmN.sh --nics 2 --rdma),
#               one boot running the modes in turn: "on" (routes: the
#               streams go on over the second port), "off"
#               (ha_routes=0: they stop until the port returns),
#               "exclude" (routes on, host a's wire1 in ha_exclude: they
#               stop too, and no route is tried) and "rdma" (rds-stress
#               -v with RDMA both ways across the outage, about 90 s);
#               default with RDS_IMPL=ours "on off exclude rdma", none
#               with --short or RDS_IMPL=intree
#   RDS_WIRE_SECONDS  each rds-stress session (default 3, --short 1)
#   RESULTS     where TAP and logs go (default results/check-wire)
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO" || exit 1

start=$(date +%s)
SHORT=0 BUILD=1
for arg in "$@"; do
	case "$arg" in
	--short) SHORT=1 ;;
	--no-build) BUILD=0 ;;
	*) die "unknown argument $arg" ;;
	esac
done
IMPL=${RDS_IMPL:-ours}
case "$IMPL" in
intree) pairs_default="intree:intree" ;;
ours) pairs_default="ours:ours ours:intree intree:ours" ;;
*) die "RDS_IMPL must be ours or intree, not $IMPL" ;;
esac
read -ra PAIRS <<< "${WIRE_PAIRS:-$pairs_default}"
[ "$SHORT" = 1 ] && [ -z "${WIRE_PAIRS:-}" ] && PAIRS=("${PAIRS[0]}")
ib_default=$pairs_default
[ "$SHORT" = 1 ] && ib_default=""
read -ra IB_PAIRS <<< "${IB_PAIRS-$ib_default}"
iw_default=""
[ "$IMPL" = ours ] && iw_default=ours:ours
read -ra IW_PAIRS <<< "${IW_PAIRS-$iw_default}"
SECS=${RDS_WIRE_SECONDS:-$([ "$SHORT" = 1 ] && echo 1 || echo 3)}
RESULTS=${RESULTS:-$REPO/results/check-wire}
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
TAP=$RESULTS/check-wire.tap
: > "$TAP"
n=0 pass=0 fail=0 skip=0
echo "TAP version 13" | tee -a "$TAP"

if [ "$BUILD" = 1 ]; then
	scripts/deps.sh || { echo "dependency install failed" >&2; exit 1; }
	step "build modules, tools, selftests and msgbench" make modules tools selftests scripts/bench/msgbench
	[ "$fail" = 0 ] || finish
fi

# merge_tap, and the merged lines on the console too.
merge_show() {	# FILE PREFIX
	local before
	before=$(wc -l < "$TAP")
	MERGE_TAP_ECHO=0 merge_tap "$1" "$2"
	tail -n +"$((before + 1))" "$TAP"
}

# The guests' command: the wire suite's program(s) through run.sh, which
# adds a kernel-log check per program (and, on ours, the object count).
guest_cmd() {	# NAME...
	printf 'RDS_WIRE_SHORT=%q RDS_WIRE_SECONDS=%q RDS_SUITE=hosts selftests/run.sh' \
		"$SHORT" "$SECS"
	printf ' =%q' "$@"
}

# One guest, both hosts in network namespaces; in the full run on ours
# also the memory cgroup tests (selftests/hosts/memcg.sh, about 30 s, and
# msg_pages_memcg.sh, 16 s; not in make check's budget; Linux's RDS
# charges no cgroup for what it receives).
netns_boot() {
	local out=$RESULTS/netns-$IMPL log=$RESULTS/netns-$IMPL.log opts=() rc t0
	local progs=(netns_tcp)
	[ "$IMPL" = intree ] && opts+=(--intree)
	[ "$IMPL" = ours ] && [ "$SHORT" = 0 ] && progs+=(memcg msg_pages_memcg)
	t0=$(date +%s)
	scripts/vm/vm.sh "${opts[@]}" --smp 1 --timeout 900 --out "$out" -- \
		"$(guest_cmd "${progs[@]}")" > "$log" 2>&1
	rc=$?
	merge_show "$out/results.tap" "netns pair ($IMPL): "
	result "$rc" "netns-pair boot ($IMPL) finished with a clean kernel log (vm.sh exit $rc)" "$log"
	emit "# netns pair ($IMPL): $(($(date +%s) - t0)) s wall for the boot and the test"
}

# Two guests on one wire: both TAP streams come back, each kernel log is
# scanned by vm.sh, and the wire is captured (headers only) on the host.
twohost_boot() {	# A:B
	local a=${1%%:*} b=${1##*:} out log rc t0
	out=$RESULTS/twohost-$a-$b
	log=$out.log
	t0=$(date +%s)
	scripts/vm/vm2.sh --impl-a "$a" --impl-b "$b" --timeout 900 --out "$out" \
		--pcap "$out/wire.pcap" -- "$(guest_cmd twohost_tcp)" > "$log" 2>&1
	rc=$?
	merge_show "$out/a/results.tap" "two hosts ($a <-> $b), a: "
	merge_show "$out/b/results.tap" "two hosts ($a <-> $b), b: "
	result "$rc" "two-host boot ($a <-> $b) finished with clean kernel logs (vm2.sh exit $rc)" "$log"
	# Seen from outside both guests: the wire carried RDS/TCP both ways.
	scripts/pcap/pcap-rds.py "$out/wire.pcap" --require v4,v6 > "$out/wire.txt" 2>&1
	result $? "two hosts ($a <-> $b): the wire's capture has RDS/TCP payload over IPv4 and IPv6" \
		"$out/wire.txt"
	sed 's/^/# wire: /' "$out/wire.txt" | tee -a "$TAP"
	emit "# two hosts ($a <-> $b): $(($(date +%s) - t0)) s wall for both boots and the test"
}

# The same over an RDMA fabric: vm2.sh --rdma gives each guest rxe1 on its
# end of the wire, which twohost_iw replaces with siw1. The capture must
# show RDS headers in the fabric's SENDs over IPv4 and IPv6: RoCEv2
# (scripts/pcap/pcap-roce.py) or MPA/DDP in TCP (scripts/pcap/pcap-iwarp.py).
twohost_rdma_boot() {	# ib|iw A:B
	local kind=$1 a=${2%%:*} b=${2##*:} out log rc t0 what pcap
	case "$kind" in
	ib) what="IB" pcap=pcap-roce.py ;;
	iw) what="iWARP" pcap=pcap-iwarp.py ;;
	esac
	out=$RESULTS/twohost-$kind-$a-$b
	log=$out.log
	t0=$(date +%s)
	scripts/vm/vm2.sh --rdma --impl-a "$a" --impl-b "$b" --timeout 900 --out "$out" \
		--pcap "$out/wire.pcap" -- "$(guest_cmd "twohost_$kind")" > "$log" 2>&1
	rc=$?
	merge_show "$out/a/results.tap" "two hosts over $what ($a <-> $b), a: "
	merge_show "$out/b/results.tap" "two hosts over $what ($a <-> $b), b: "
	result "$rc" "two-host $what boot ($a <-> $b) finished with clean kernel logs (vm2.sh exit $rc)" "$log"
	scripts/pcap/$pcap "$out/wire.pcap" --require v4,v6 > "$out/wire.txt" 2>&1
	result $? "two hosts over $what ($a <-> $b): the wire's capture has RDS headers in the fabric's SENDs over IPv4 and IPv6" \
		"$out/wire.txt"
	sed 's/^/# wire: /' "$out/wire.txt" | tee -a "$TAP"
	emit "# two hosts over $what ($a <-> $b): $(($(date +%s) - t0)) s wall for both boots and the test"
}

# 256 RDS/IB connections from one host to 64 addresses of the other,
# and what each costs (selftests/hosts/rx_memory.sh).
rxmem_boot() {	# A:B
	local a=${1%%:*} b=${1##*:} out log rc t0
	out=$RESULTS/rx-memory-$a-$b
	log=$out.log
	t0=$(date +%s)
	scripts/vm/vm2.sh --rdma --mem 2048 --impl-a "$a" --impl-b "$b" --timeout 900 \
		--out "$out" -- "$(guest_cmd rx_memory)" > "$log" 2>&1
	rc=$?
	merge_show "$out/a/results.tap" "receive memory ($a <-> $b), a: "
	merge_show "$out/b/results.tap" "receive memory ($a <-> $b), b: "
	result "$rc" "receive-memory boot ($a <-> $b) finished with clean kernel logs (vm2.sh exit $rc)" "$log"
	emit "# receive memory ($a <-> $b): $(($(date +%s) - t0)) s wall for both boots and the test"
}

# Messages queued while the peer is unreachable, their sockets closed,
# arrive once it is back: both hosts take turns losing their link (QEMU's
# set_link, served by vm2.sh), over every transport.
# The short run (make check) adds its one failover, RDS/TCP across the
# loss of one of two wires (twonic_tcp), to this boot: a second port
# costs the boot nothing measurable, a boot of its own over a minute.
first_contact_boot() {	# A:B
	local a=${1%%:*} b=${1##*:} out log rc t0 progs=(first_contact liveness_ib) nics=1
	out=$RESULTS/first-contact-$a-$b
	log=$out.log
	t0=$(date +%s)
	[ "$SHORT" = 1 ] && progs+=(twonic_tcp) nics=2
	scripts/vm/vmN.sh --hosts 2 --nics "$nics" --rdma --impl-a "$a" --impl-b "$b" \
		--timeout 1500 --out "$out" -- "$(guest_cmd "${progs[@]}")" > "$log" 2>&1
	rc=$?
	merge_show "$out/a/results.tap" "first contact ($a <-> $b), a: "
	merge_show "$out/b/results.tap" "first contact ($a <-> $b), b: "
	result "$rc" "first-contact boot ($a <-> $b) finished with clean kernel logs (vm2.sh exit $rc)" "$log"
	emit "# first contact ($a <-> $b): $(($(date +%s) - t0)) s wall for both boots and the test"
}

# The two-host runner checks itself (full run only; make check's own
# runner self-tests cover vm.sh): host a's exit status comes back, a splat
# on host b fails a run whose commands both succeeded, and a host waiting
# for a marker of a peer that has finished gives up at once.
vm2_status() {
	scripts/vm/vm2.sh --intree -a 'exit 7' -b 'exit 0'
	[ $? = 7 ]
}
# The capture check can fail: a wire that carried no RDS shows none.
vm2_pcap_empty() {
	local pcap=$RESULTS/no-rds.pcap
	scripts/vm/vm2.sh --intree --pcap "$pcap" -a 'exit 0' -b 'exit 0' || return 1
	[ -s "$pcap" ] && ! scripts/pcap/pcap-rds.py "$pcap" --require v4
}
vm2_splat() {
	scripts/vm/vm2.sh --intree -a 'exit 0' \
		-b 'insmod selftests/modules/rds_test_warn.ko; exit 0'
	[ $? = 99 ]
}
vm2_peer_gone() {
	local t0=$SECONDS
	scripts/vm/vm2.sh --intree -b 'exit 0' \
		-a '. selftests/lib/wire.sh; ! wire_wait never 300' &&
		[ $((SECONDS - t0)) -lt 120 ]
}
if [ "$SHORT" = 0 ]; then
	[ "$BUILD" = 1 ] && step "build test-only modules" make test-modules
	step "two-host runner returns host a's exit status" vm2_status
	step "a capture of a wire without RDS traffic shows no RDS/TCP" vm2_pcap_empty
	step "two-host runner fails a run whose host b logged a WARNING" vm2_splat
	step "a host waiting for a finished peer gives up at once" vm2_peer_gone
fi

echo "# module set $IMPL; pairs ${PAIRS[*]}; IB pairs ${IB_PAIRS[*]:-none}; iWARP pairs ${IW_PAIRS[*]:-none}; first-contact pairs ${FC_PAIRS-default}; sessions of $SECS s$([ "$SHORT" = 1 ] && echo ', short')"
[ "${WIRE_NETNS:-1}" = 1 ] && netns_boot
for pair in "${PAIRS[@]}"; do
	case "$pair" in
	ours:ours|ours:intree|intree:ours|intree:intree) twohost_boot "$pair" ;;
	*) result 1 "pair '$pair' is A:B with A and B ours or intree" ;;
	esac
done
for pair in "${IB_PAIRS[@]}"; do
	case "$pair" in
	ours:ours|ours:intree|intree:ours|intree:intree) twohost_rdma_boot ib "$pair" ;;
	*) result 1 "IB pair '$pair' is A:B with A and B ours or intree" ;;
	esac
done
for pair in "${IW_PAIRS[@]}"; do
	case "$pair" in
	ours:ours) twohost_rdma_boot iw "$pair" ;;
	*) result 1 "iWARP pair '$pair': only ours:ours (Linux has no RDS over iWARP)" ;;
	esac
done
rxmem_default=""
[ "$IMPL" = ours ] && [ "$SHORT" = 0 ] && rxmem_default="ours:ours"
read -ra RXMEM_PAIRS <<< "${RXMEM_PAIRS-$rxmem_default}"
for pair in "${RXMEM_PAIRS[@]}"; do
	case "$pair" in
	ours:ours|ours:intree|intree:ours) rxmem_boot "$pair" ;;
	*) result 1 "receive memory pair '$pair' is A:B with A and B ours or intree" ;;
	esac
done
fc_default=""
[ "$IMPL" = ours ] && fc_default="ours:ours intree:ours ours:intree"
[ "$IMPL" = ours ] && [ "$SHORT" = 1 ] && fc_default="ours:ours"
read -ra FC_PAIRS <<< "${FC_PAIRS-$fc_default}"
for pair in "${FC_PAIRS[@]}"; do
	case "$pair" in
	ours:ours|ours:intree|intree:ours) first_contact_boot "$pair" ;;
	*) result 1 "first-contact pair '$pair': ours:ours, ours:intree or intree:ours" ;;
	esac
done

# Two ports per guest (issue 27): the bed's second wire, RDS/TCP across
# the loss of wire0 with SHA-checked streams both ways, and each lane's
# history and drop reasons when the peer's transport unloads and a link
# dies.
twonic_boot() {	# A:B
	local a=${1%%:*} b=${1##*:} out log rc t0
	out=$RESULTS/twonic-$a-$b
	log=$out.log
	t0=$(date +%s)
	scripts/vm/vmN.sh --hosts 2 --nics 2 --rdma --impl-a "$a" --impl-b "$b" \
		--timeout 1500 --out "$out" -- \
		"$(guest_cmd twonic_smoke twonic_tcp drop_reasons addr_move)" > "$log" 2>&1
	rc=$?
	merge_show "$out/a/results.tap" "two ports ($a <-> $b), a: "
	merge_show "$out/b/results.tap" "two ports ($a <-> $b), b: "
	result "$rc" "two-port boot ($a <-> $b) finished with clean kernel logs (vmN.sh exit $rc)" "$log"
	emit "# two ports ($a <-> $b): $(($(date +%s) - t0)) s wall for both boots and the tests"
}
twonic_default=""
[ "$IMPL" = ours ] && [ "$SHORT" = 0 ] && twonic_default="ours:ours"
read -ra TWONIC_PAIRS <<< "${TWONIC_PAIRS-$twonic_default}"
for pair in "${TWONIC_PAIRS[@]}"; do
	case "$pair" in
	ours:ours|ours:intree|intree:ours) twonic_boot "$pair" ;;
	*) result 1 "two-port pair '$pair': ours:ours, ours:intree or intree:ours" ;;
	esac
done

# The failed port's address moves to the surviving port (addr_move.sh)
# with Linux's RDS on one host: what a Linux peer gets instead of routes.
am_boot() {	# A:B, each ours, intree or intree@KERNEL
	local a=${1%%:*} b=${1##*:} out log rc t0 h x opts=()
	out=$RESULTS/addr-move-${a/@/-}-${b/@/-}
	log=$out.log
	t0=$(date +%s)
	for h in a b; do
		x=$a
		[ "$h" = b ] && x=$b
		opts+=("--impl-$h" "${x%%@*}")
		[[ "$x" == *@* ]] && opts+=("--kernel-$h" "${x#*@}")
	done
	scripts/vm/vmN.sh --hosts 2 --nics 2 --rdma "${opts[@]}" \
		--timeout 900 --out "$out" -- "$(guest_cmd addr_move)" > "$log" 2>&1
	rc=$?
	merge_show "$out/a/results.tap" "address move ($a <-> $b), a: "
	merge_show "$out/b/results.tap" "address move ($a <-> $b), b: "
	result "$rc" "address-move boot ($a <-> $b) finished with clean kernel logs (vmN.sh exit $rc)" "$log"
	emit "# address move ($a <-> $b): $(($(date +%s) - t0)) s wall for both boots and the test"
}
am_default=""
[ "$IMPL" = ours ] && [ "$SHORT" = 0 ] &&
	am_default="ours:intree intree:ours ours:intree@7.2 intree@7.2:ours"
read -ra AM_PAIRS <<< "${AM_PAIRS-$am_default}"
for pair in "${AM_PAIRS[@]}"; do
	case "$pair" in
	ours:ours|ours:intree|intree:ours|ours:intree@[0-9]*|intree@[0-9]*:ours)
		am_boot "$pair" ;;
	*) result 1 "address-move pair '$pair': ours:ours, ours:intree, intree:ours (intree@KERNEL for another kernel)" ;;
	esac
done

# Two ports per guest: host a's first port fails mid-stream and returns
# (ha_route.sh); with routes the streams move to the second port and
# back, without them they wait for the first; RDMA moves with them.
ha_boot() {	# "on off exclude rdma"
	local mode=$1 out log rc t0 h
	out=$RESULTS/ha-route
	log=$out.log
	t0=$(date +%s)
	scripts/vm/vmN.sh --hosts 2 --nics 2 --rdma --timeout 1200 --out "$out" -- \
		"RDS_HA_MODE='$mode' $(guest_cmd ha_route)" > "$log" 2>&1
	rc=$?
	for h in a b; do
		merge_show "$out/$h/results.tap" "port failover, routes $mode, $h: "
	done
	result "$rc" "port-failover boot (routes $mode) finished with clean kernel logs (vmN.sh exit $rc)" "$log"
	grep -h "longest gap\|fail-back\|arrive again\|nothing new\|gave up\|per second while" \
		"$out"/[ab]/results.tap 2>/dev/null |
		sed "s/^#* */# port failover, routes $mode: /" | tee -a "$TAP"
	emit "# port failover (routes $mode): $(($(date +%s) - t0)) s wall for both boots and the test"
}
ha_default=""
[ "$IMPL" = ours ] && [ "$SHORT" = 0 ] && ha_default="on off exclude rdma"
read -ra HA_MODES <<< "${HA_MODES-$ha_default}"
for mode in "${HA_MODES[@]}"; do
	case "$mode" in
	on|off|exclude|rdma) ;;
	*) result 1 "HA mode '$mode': on, off, exclude or rdma"; HA_MODES=() ;;
	esac
done
[ ${#HA_MODES[@]} = 0 ] || ha_boot "${HA_MODES[*]}"

# Three hosts, c dies (frozen, link down) while a and b go on: a hog on b
# must not stop a's other traffic to b, at full rate (three_hog), and c
# must not stop a socket's sends to b (three_sndbuf).
three_boot() {	# A:B:C
	local a b c out log rc t0 h
	IFS=: read -r a b c <<< "$1"
	out=$RESULTS/three-$a-$b-$c
	log=$out.log
	t0=$(date +%s)
	scripts/vm/vmN.sh --hosts 3 --rdma --impl-a "$a" --impl-b "$b" --impl-c "$c" \
		--timeout 1500 --out "$out" -- \
		"$(guest_cmd "=three_hog") =three_sndbuf" > "$log" 2>&1
	rc=$?
	for h in a b c; do
		merge_show "$out/$h/results.tap" "three hosts ($a, $b, $c), $h: "
	done
	result "$rc" "three-host boot ($a, $b, $c) finished with clean kernel logs (vmN.sh exit $rc)" "$log"
	emit "# three hosts ($a, $b, $c): $(($(date +%s) - t0)) s wall for the boots and the tests"
}
three_default=""
[ "$IMPL" = ours ] && [ "$SHORT" = 0 ] && three_default="ours:ours:ours intree:ours:ours ours:intree:ours"
read -ra THREE_PAIRS <<< "${THREE_PAIRS-$three_default}"
for pair in "${THREE_PAIRS[@]}"; do
	case "$pair" in
	ours:ours:ours|intree:ours:ours|ours:intree:ours) three_boot "$pair" ;;
	*) result 1 "three-host boot '$pair': ours:ours:ours, intree:ours:ours or ours:intree:ours" ;;
	esac
done
finish
