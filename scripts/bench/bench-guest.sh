#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest for `make bench` (scripts/bench/bench.sh): the scenario
# matrix with tools/rds-stress against whichever RDS is loaded, one CSV
# row per run in $OUT/runs.csv. A run that fails records its error instead
# of numbers.
#
#	bench-guest.sh IMPL     IMPL labels the rows (intree, ours)
cd "$(dirname "$0")/../.." || exit 1
IMPL=${1:?implementation label}
OUT=${BENCH_OUT:-/run/out}
RUNS=${BENCH_RUNS:-3}
SECONDS_MEASURED=${BENCH_SECONDS:-5}
WARMUP=${BENCH_WARMUP:-1}
TRANSPORTS=${BENCH_TRANSPORTS:-loop}
# name: rds-stress options. K/s counts every byte moved: messages plus
# RDMA (the rdma-* rows; Linux's loopback has no RDMA, so its column
# reports the error; TCP has none at all and skips them).
SCENARIOS=(
	"latency:-t 1 -d 1 -q 64 -a 64"
	"throughput-small:-t 4 -d 16 -q 512 -a 64"
	"throughput:-t 4 -d 16 -q 8192 -a 256"
	"throughput-64k:-t 2 -d 8 -q 65536 -a 64"
	"many-sockets:-t 16 -d 4 -q 256 -a 64"
	"rdma-rw:-t 1 -d 4 -q 256 -a 64 -D 65536 -M 0"
	"rdma-read:-t 1 -d 4 -q 256 -a 64 -D 65536 -M 1"
	"rdma-write:-t 1 -d 4 -q 256 -a 64 -D 65536 -M 2"
)
# many-peers (ib only): what many-sockets carries (16 tasks, each with 4
# requests of 256 bytes in flight) spread over 16 RDS connections
# instead of one: the passive side gets 16 more addresses on the
# device's interface and 16 rds-stress pairs, one task each, run at once,
# each from the active address to one of them. The row sums their rates.
MANY_PEERS=16
MANY_PEERS_OPTS="-t 1 -d 4 -q 256 -a 64"
CSV=$OUT/runs.csv
echo "impl,transport,scenario,run,status,tx_per_s,rx_per_s,kbytes_per_s,rtt_usec,tx_usec_per_call,error" > "$CSV"
port=5000

# Addresses per transport: both ends in this guest. TCP needs two hosts
# (RDS hands a local peer to loopback): two network namespaces joined by
# veth (selftests/lib/netns_pair.sh), the active side in A, the passive in B.
endpoints() {
	case "$1" in
	loop) echo "127.0.0.1 127.0.0.1" ;;
	tcp) echo "$NETNS_A_IP $NETNS_B_IP --transport tcp" ;;
	ib) echo "10.99.0.1 10.99.0.2 --transport ib" ;;
	iwarp) echo "10.98.0.1 10.98.0.2 --transport iwarp" ;;
	*) return 1 ;;
	esac
}

# JSON of active runs -> CSV fields, dropping WARM intervals of each.
# Several runs (pairs that ran at once) add up their rates; their round
# trips and times per call are averaged over the pairs. One that failed
# fails the row, with its error.
summarize() {	# WARM FILE ERRFILE RC [FILE ERRFILE RC...]
	python3 - "$@" <<'PY'
import json, sys
warm, args = int(sys.argv[1]), sys.argv[2:]
runs = [args[i:i + 3] for i in range(0, len(args), 3)]
tot = {"tx": 0.0, "rx": 0.0, "kb": 0.0}
rtt, call = [], []
for n, (path, errpath, rc) in enumerate(runs):
    rc = int(rc)
    who = "pair %d of %d: " % (n + 1, len(runs)) if len(runs) > 1 else ""
    err = open(errpath).read().strip().replace(",", ";").replace("\n", " ")
    try:
        d = json.load(open(path))
    except Exception as e:
        print("error,,,,,,%s" % (who + (err or "no JSON output (exit %d)" % rc))[:200])
        sys.exit(0)
    if d.get("status") != "ok":
        print("%s,,,,,,%s" % (d.get("status", "error"),
              (who + (d.get("error") or err or "exit %d" % rc)).replace(",", ";")[:200]))
        sys.exit(0)
    iv = d["intervals"][warm:]
    if not iv:
        print("error,,,,,,%sno intervals after the warm-up" % who)
        sys.exit(0)
    def mean(k):
        return sum(i[k] for i in iv) / len(iv)
    rtts = [i["rtt_usec"] for i in iv if i["rtt_usec"] > 0]
    # RDMA: each message this side sends (a request, or an ack serving
    # the peer's request) stands for one RDMA of rdma_bytes somewhere in
    # the pair. Not rds-stress's own RDMA columns: those count only the
    # acks this side sends, so they move with how the two sides share
    # the work.
    rdma = mean("tx_per_s") * d["options"].get("rdma_bytes", 0) / 1024
    tot["tx"] += mean("tx_per_s")
    tot["rx"] += mean("rx_per_s")
    tot["kb"] += mean("tx_rx_kbytes_per_s") + rdma
    rtt.append(sum(rtts) / len(rtts) if rtts else 0)
    call.append(mean("tx_usec_per_call"))
print("ok,%.1f,%.1f,%.1f,%.2f,%.2f," % (tot["tx"], tot["rx"], tot["kb"],
      sum(rtt) / len(rtt), sum(call) / len(call)))
PY
}

# The many-peers row (MANY_PEERS above) on TRANSPORT: 16 more addresses
# PREFIX.101... on DEV for the passive sides, one rds-stress pair to each
# from LADDR, all at once. The connections are made first, by a ping
# from LADDR to each: with both rds-stress sides sending at once, both
# ends of a new connection connect, and Linux's RDS/IB resolves that
# race by rejecting and retrying (seconds, for one of 16 more than a
# run lasted). One more second is dropped than in the other rows: the
# pairs start one after another. The addresses go again afterwards.
many_peers() {	# TRANSPORT DEV PREFIX LADDR [rds-stress options...]
	local tr=$1 dev=$2 prefix=$3 laddr=$4 run k p warm=$((WARMUP + 1))
	local apids ppids fields rc files
	shift 4
	for k in $(seq "$MANY_PEERS"); do
		ip addr add "$prefix.$((100 + k))/24" dev "$dev" || {
			echo "$IMPL,$tr,many-peers,1,error,,,,,,cannot add $prefix.$((100 + k)) to $dev" |
				tee -a "$CSV"
			return 1
		}
	done
	ppids=()
	for k in $(seq "$MANY_PEERS"); do
		(for _ in 1 2 3 4 5 6; do
			tools/rds-ping -c 1 -W 5 -I "$laddr" --transport "$tr" \
				"$prefix.$((100 + k))" > /dev/null 2>&1 && break
		 done) &
		ppids+=($!)
	done
	wait "${ppids[@]}"
	for run in $(seq "$RUNS"); do
		port=$((port + 200))
		apids=() ppids=() files=()
		for k in $(seq "$MANY_PEERS"); do
			tools/rds-stress -r "$prefix.$((100 + k))" -p $((port + 4 * k)) \
				> "/tmp/peer$k.passive.log" 2>&1 &
			ppids+=($!)
		done
		for k in $(seq "$MANY_PEERS"); do
			# shellcheck disable=SC2086
			timeout $((SECONDS_MEASURED + warm + 60)) tools/rds-stress \
				-r "$laddr" -s "$prefix.$((100 + k))" -p $((port + 4 * k)) \
				$MANY_PEERS_OPTS "$@" -T $((SECONDS_MEASURED + warm)) --json \
				> "/tmp/peer$k.json" 2> "/tmp/peer$k.err" &
			apids+=($!)
		done
		for k in $(seq "$MANY_PEERS"); do
			wait "${apids[k - 1]}"
			rc=$?
			files+=("/tmp/peer$k.json" "/tmp/peer$k.err" "$rc")
		done
		# As above: a passive whose active failed early waits for ever.
		for p in "${ppids[@]}"; do
			for _ in $(seq 50); do
				kill -0 "$p" 2>/dev/null || break
				sleep 0.1
			done
			kill "$p" 2>/dev/null
			wait "$p"
		done
		fields=$(summarize "$warm" "${files[@]}")
		echo "$IMPL,$tr,many-peers,$run,$fields" | tee -a "$CSV"
	done
	for k in $(seq "$MANY_PEERS"); do
		ip addr del "$prefix.$((100 + k))/24" dev "$dev"
	done
}

# The raw verbs ceiling for the rdma-write row: perftest's ib_write_bw,
# 64 KiB writes over the RDMA CM (-R, which iWARP needs) on the
# transport's device between the same two addresses (one QP, the device
# looping back as RDS does). Its MiB/s becomes K/s; tx/s counts the
# writes.
perftest_write() {	# TRANSPORT DEVICE LOCAL PEER (the CM picks the local one)
	local tr=$1 dev=$2 run out err rc
	shift 2
	for run in $(seq "$RUNS"); do
		out=/tmp/perftest.out err=/tmp/perftest.err
		if ! command -v ib_write_bw > /dev/null; then
			echo "$IMPL,$tr,perftest-write,$run,error,,,,,,ib_write_bw not installed (perftest)" |
				tee -a "$CSV"
			continue
		fi
		ib_write_bw -d "$dev" -R -F -s 65536 -D "$SECONDS_MEASURED" \
			> /tmp/perftest.srv 2>&1 &
		local spid=$!
		# The server may take a while to listen: try again.
		for _ in 1 2 3 4 5; do
			sleep 1
			timeout $((SECONDS_MEASURED + 60)) ib_write_bw -d "$dev" -R -F \
				-s 65536 -D "$SECONDS_MEASURED" "$2" > "$out" 2> "$err"
			rc=$?
			[ "$rc" = 0 ] && break
			kill -0 "$spid" 2>/dev/null || break
		done
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		# "65536  ITERS  PEAK  AVERAGE  MSGRATE" (MiB/s, Mpps)
		awk -v impl="$IMPL" -v tr="$tr" -v run="$run" -v rc="$rc" '
			$1 == 65536 && NF >= 5 { avg = $4; ok = 1 }
			END {
				if (ok && rc == 0)
					printf "%s,%s,perftest-write,%s,ok,%.1f,%.1f,%.1f,0,0,\n",
					       impl, tr, run, avg * 16, avg * 16, avg * 1024
				else
					printf "%s,%s,perftest-write,%s,error,,,,,,ib_write_bw exit %s\n",
					       impl, tr, run, rc
			}' "$out" | tee -a "$CSV"
	done
}

. selftests/lib/netns_pair.sh
. scripts/bench/bench-msgbench.sh
for tr in $TRANSPORTS; do
	read -r laddr faddr extra <<<"$(endpoints "$tr")"
	[ -n "$laddr" ] || { echo "bench: unknown transport $tr" >&2; continue; }
	# Linux has had no iWARP RDS since 4.6: ours only, said once per row.
	if [ "$tr" = iwarp ] && ! modprobe rds_iwarp 2>/dev/null; then
		for sc in "${SCENARIOS[@]}"; do
			echo "$IMPL,$tr,${sc%%:*},1,unsupported,,,,,,no rds_iwarp in this RDS" |
				tee -a "$CSV"
		done
		continue
	fi
	in_a=() in_b=()
	if [ "$tr" = tcp ]; then
		netns_pair_up || { echo "bench: no namespace pair" >&2; continue; }
		modprobe rds_tcp
		read -r -a in_a <<<"$NETNS_A_EXEC"
		read -r -a in_b <<<"$NETNS_B_EXEC"
	fi
	for sc in "${SCENARIOS[@]}"; do
		name=${sc%%:*}
		opts=${sc#*:}
		[ "$tr" = tcp ] && [[ $name == rdma-* ]] && continue
		for run in $(seq "$RUNS"); do
			port=$((port + 40))
			"${in_b[@]}" tools/rds-stress -r "$faddr" -p $port > /tmp/passive.log 2>&1 &
			ppid=$!
			# shellcheck disable=SC2086
			timeout $((SECONDS_MEASURED + WARMUP + 60)) "${in_a[@]}" tools/rds-stress \
				-r "$laddr" -s "$faddr" -p $port $opts $extra \
				-T $((SECONDS_MEASURED + WARMUP)) --json \
				> /tmp/active.json 2> /tmp/active.err
			rc=$?
			# A passive whose active failed before the control
			# connection waits in accept() for ever: end it.
			for _ in $(seq 50); do
				kill -0 "$ppid" 2>/dev/null || break
				sleep 0.1
			done
			kill "$ppid" 2>/dev/null
			wait "$ppid"
			fields=$(summarize "$WARMUP" /tmp/active.json /tmp/active.err $rc)
			echo "$IMPL,$tr,$name,$run,$fields" | tee -a "$CSV"
		done
	done
	ceilings "$tr"
	[ "$tr" = tcp ] && netns_pair_down
	# shellcheck disable=SC2086
	[ "$tr" = ib ] && many_peers ib eth0 10.99.0 "$laddr" $extra
	[ "$tr" = ib ] && perftest_write ib rxe0 "$laddr" "$faddr"
	[ "$tr" = iwarp ] && perftest_write iwarp siw0 "$laddr" "$faddr"
done
[[ " $TRANSPORTS " == *" loop "* ]] && [ "${BENCH_CURVES:-1}" = 1 ] && curves
exit 0
