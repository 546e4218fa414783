# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by bench-guest.sh: the rows scripts/bench/msgbench measures.
#
#	ceilings TRANSPORT       RDS's one-way stream (64 B, 8 KiB, 64 KiB)
#	                         and 64 B request/response, then the same
#	                         over what bounds it: an AF_UNIX SEQPACKET
#	                         pair (loop), plain TCP between the same
#	                         namespaces (tcp). Rows stream-64 ... rr-64
#	                         and ceil:stream-64 ... in runs.csv.
#	curves                   loopback cost curves to curves.csv: per
#	                         message against its size, the receiving
#	                         sockets of one process, the sending
#	                         processes, the peers (connections); bind
#	                         and close against the sockets kept bound.
#
# Uses IMPL, OUT, RUNS, CSV and, for tcp, the namespace pair's
# NETNS_*; MB_SECONDS (2) and MB_WARMUP (0.5) per measurement.
MSGBENCH=scripts/bench/msgbench
# Socket buffers up to 32 MiB: msgbench asks for 8 MiB each way (AF_UNIX
# refuses a message above its send buffer, RDS one above its own).
sysctl -qw net.core.wmem_max=33554432 net.core.rmem_max=33554432
MB_SECONDS=${MB_SECONDS:-2}
MB_WARMUP=${MB_WARMUP:-0.5}
CURVES_CSV=$OUT/curves.csv

# One measurement: the receiving side in the background, then the
# sending side; prints the counting side's line (the receiver's for
# stream, the sender's for rr). RECV_IN/SEND_IN: a command prefix (a
# namespace) or "".
msgbench_once() {	# MODE FAMILY RECV_IN SEND_IN [msgbench options...]
	local mode=$1 fam=$2 rin=$3 sin=$4 rpid spid rc
	local limit=$((${MB_SECONDS%.*} + 60))
	shift 4
	# shellcheck disable=SC2086
	timeout "$limit" $rin "$MSGBENCH" "$mode" recv "$fam" -T "$MB_SECONDS" \
		-W "$MB_WARMUP" "$@" > /tmp/mb.recv 2>&1 &
	rpid=$!
	# RDS drops what arrives before the bind; rr would wait for ever.
	sleep 0.5
	# shellcheck disable=SC2086
	timeout "$limit" $sin "$MSGBENCH" "$mode" send "$fam" -T "$MB_SECONDS" \
		-W "$MB_WARMUP" "$@" > /tmp/mb.send 2>&1 &
	spid=$!
	if [ "$mode" = stream ]; then
		# A sender that failed (a port still taken, say) leaves the
		# receiver waiting for ever: its error is the result.
		wait -n "$rpid" "$spid"
		if kill -0 "$rpid" 2>/dev/null && ! kill -0 "$spid" 2>/dev/null &&
		   ! wait "$spid"; then
			kill "$rpid" 2>/dev/null
			wait "$rpid" 2>/dev/null
			msgbench_line /tmp/mb.send 1
			return
		fi
		wait "$rpid"
		rc=$?
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		msgbench_line /tmp/mb.recv "$rc"
	else
		wait "$spid"
		rc=$?
		kill "$rpid" 2>/dev/null
		wait "$rpid" 2>/dev/null
		msgbench_line /tmp/mb.send "$rc"
	fi
}

# "ok,OPS,KB,USEC," or "error,,,,WHY" from FILE (its last such line).
msgbench_line() {	# FILE RC
	local line
	line=$(grep -E '^(ok|error),' "$1" | tail -n1)
	[ -n "$line" ] || line="error,,,,exit $2: $(head -c 150 "$1" | tr ',\n' '; ')"
	echo "$line"
}

# RUNS rows of runs.csv for scenario NAME: ops/s as tx/s and rx/s, the
# cost of one operation as the time per call (and as rtt for rr).
msgbench_rows() {	# TRANSPORT NAME MODE FAMILY RECV_IN SEND_IN [options...]
	local tr=$1 name=$2 mode=$3 run st ops kb us err rtt
	shift 2
	for run in $(seq "$RUNS"); do
		IFS=, read -r st ops kb us err <<<"$(msgbench_once "$@")"
		rtt=0
		[ "$mode" = rr ] && rtt=$us
		[ "$st" = ok ] || rtt=
		echo "$IMPL,$tr,$name,$run,$st,$ops,$ops,$kb,$rtt,$us,$err" | tee -a "$CSV"
	done
}

ceilings() {	# TRANSPORT
	local tr=$1 s name rds=() ceil=() rin="" sin=""
	case "$tr" in
	loop)
		rds=(-l 127.0.0.1 -r 127.0.0.1 -p 4000)
		ceil=(unix -r /tmp/msgbench.sock)
		;;
	tcp)
		rin=$NETNS_B_EXEC sin=$NETNS_A_EXEC
		rds=(-l "$NETNS_A_IP" -r "$NETNS_B_IP" -p 4000 --transport tcp)
		ceil=(tcp -r "$NETNS_B_IP" -p 6000)
		;;
	*) return 0 ;;
	esac
	for s in 64 8192 65536; do
		name=stream-$s
		[ "$s" = 8192 ] && name=stream-8k
		[ "$s" = 65536 ] && name=stream-64k
		msgbench_rows "$tr" "$name" stream rds "$rin" "$sin" "${rds[@]}" -s "$s"
		msgbench_rows "$tr" "ceil:$name" stream "${ceil[0]}" "$rin" "$sin" \
			"${ceil[@]:1}" -s "$s"
	done
	msgbench_rows "$tr" rr-64 rr rds "$rin" "$sin" "${rds[@]}" -s 64
	msgbench_rows "$tr" ceil:rr-64 rr "${ceil[0]}" "$rin" "$sin" "${ceil[@]:1}" -s 64
}

# RUNS rows of curves.csv: CURVE at X, one msgbench run each.
curve_point() {	# CURVE X MODE [msgbench options after the family...]
	local curve=$1 x=$2 mode=$3 run st ops kb us err
	shift 3
	for run in $(seq "$RUNS"); do
		if [ "$mode" = bind ]; then
			IFS=, read -r st ops kb us err <<<"$(timeout 120 "$MSGBENCH" bind \
				-T "$MB_SECONDS" -W "$MB_WARMUP" "$@" 2>&1 | grep -E '^(ok|error),' | tail -n1)"
			[ -n "$st" ] || st=error err="no result"
		else
			IFS=, read -r st ops kb us err <<<"$(msgbench_once "$mode" rds "" "" "$@")"
		fi
		echo "$IMPL,loop,$curve,$x,$run,$st,$ops,$kb,$us,$err" | tee -a "$CURVES_CSV"
	done
}

# Loopback only: the curves measure RDS's own costs, not a wire's.
# Sizes 0 B to 1 MiB in powers of 4; sockets and processes 1 to 4096
# and 1 to 1024 (a guest of 2 GiB holds that many sender processes);
# peers 1 to 64 addresses of 127/8, each a connection of its own.
curves() {
	local x
	echo "impl,transport,curve,x,run,status,ops_per_s,kbytes_per_s,usec_per_op,error" \
		> "$CURVES_CSV"
	for x in 0 1 4 16 64 256 1024 4096 16384 65536 262144 1048576; do
		curve_point size "$x" stream -s "$x"
	done
	for x in 1 4 16 64 256 1024 4096; do
		curve_point sockets "$x" stream -s 256 -n "$x"
	done
	for x in 1 4 16 64 256 1024; do
		curve_point processes "$x" stream -s 256 -P "$x"
	done
	for x in 1 4 16 64; do
		curve_point peers "$x" stream -s 256 -n "$x" --spread addrs -r 127.0.0.2
	done
	for x in 1 16 256 4096; do
		curve_point bind "$x" bind -l 127.0.0.1 -n "$x"
	done
}
