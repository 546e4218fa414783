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

# JSON of one active run -> CSV fields, dropping the warm-up intervals.
summarize() {	# FILE ERRFILE RC
	python3 - "$@" "$WARMUP" <<'PY'
import json, sys
path, errpath, rc, warm = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
err = open(errpath).read().strip().replace(",", ";").replace("\n", " ")
try:
    d = json.load(open(path))
except Exception as e:
    print("error,,,,,,%s" % (err or "no JSON output (exit %d)" % rc)[:200])
    sys.exit(0)
if d.get("status") != "ok":
    print("%s,,,,,,%s" % (d.get("status", "error"),
          (d.get("error") or err or "exit %d" % rc).replace(",", ";")[:200]))
    sys.exit(0)
iv = d["intervals"][warm:]
if not iv:
    print("error,,,,,,no intervals after the warm-up")
    sys.exit(0)
def mean(k):
    return sum(i[k] for i in iv) / len(iv)
rtts = [i["rtt_usec"] for i in iv if i["rtt_usec"] > 0]
# RDMA: each message this side sends (a request, or an ack serving the
# peer's request) stands for one RDMA of rdma_bytes somewhere in the
# pair. Not rds-stress's own RDMA columns: those count only the acks this
# side sends, so they move with how the two sides share the work.
rdma = mean("tx_per_s") * d["options"].get("rdma_bytes", 0) / 1024
print("ok,%.1f,%.1f,%.1f,%.2f,%.2f," % (mean("tx_per_s"), mean("rx_per_s"),
      mean("tx_rx_kbytes_per_s") + rdma, sum(rtts) / len(rtts) if rtts else 0,
      mean("tx_usec_per_call")))
PY
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
			fields=$(summarize /tmp/active.json /tmp/active.err $rc)
			echo "$IMPL,$tr,$name,$run,$fields" | tee -a "$CSV"
		done
	done
	[ "$tr" = tcp ] && netns_pair_down
	[ "$tr" = ib ] && perftest_write ib rxe0 "$laddr" "$faddr"
	[ "$tr" = iwarp ] && perftest_write iwarp siw0 "$laddr" "$faddr"
done
exit 0
