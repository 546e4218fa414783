# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# rds-wirecheck helpers (sourced). A message to a port that nobody has
# bound is dropped (recv_drop_no_sock), as in Linux's RDS, so senders may
# start only once the receiver is bound: it says "receiver ready" then.
# A fixed sleep is not enough on a loaded host under TCG (seen: a
# receiver not bound 0.5 s after its start lost a sender's first 8
# messages, counted as lost and reordered).

# wirecheck_wait_ready FILE PID [SECONDS]: wait (default 60 s) until the
# receiver PID, whose output goes to FILE, is bound; false if it exits
# first or takes longer.
wirecheck_wait_ready() {
	local i
	for ((i = 0; i < ${3:-60} * 10; i++)); do
		grep -q 'receiver ready' "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	echo "rds-wirecheck receiver not ready" >&2
	return 1
}
