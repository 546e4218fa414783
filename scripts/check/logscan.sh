#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scan a kernel log for splats. Usage: logscan.sh [FILE] (default stdin).
# Prints every offending line and exits 1 if there is one, else 0.
PATTERNS='BUG:|BUG kmalloc|WARNING:|Oops|general protection|KASAN|UBSAN|lockdep|possible recursive locking|possible circular locking|inconsistent lock state|refcount_t|kmemleak: [0-9]+ new suspected|list_del corruption|list_add corruption|Kernel panic|INFO: task .* blocked for more than|sleeping function called from invalid context|scheduling while atomic|stack-protector|stack segment'

# Lines that match a pattern but report nothing: the debug kernel's boot
# line "RCU lockdep checking is enabled.", and stack-trace frames (on the
# debug kernel they name lockdep_* functions; a stack dump such as fault
# injection's is not a splat, and a real splat has its own headline).
BENIGN='RCU lockdep checking is enabled'
BENIGN="$BENIGN|^[0-9]+:(\[ *[0-9.]+\])? +(RIP: [0-9a-f]{4}:)?(\? )?[A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+( \[[A-Za-z0-9_]+\])?\$"
# A user process's own fault, as the kernel reports it ("traps: comm[pid]
# general protection fault ip:... in libc.so.6[...]"): the fuzzers' forked
# children may die that way; a kernel fault has its own Oops headline.
BENIGN="$BENIGN|^[0-9]+:(\[ *[0-9.]+\])? +traps: [^ ]+\[[0-9]+\] general protection fault ip:[0-9a-f]+ sp:[0-9a-f]+ error:[0-9a-f]+( in [^ ]+\[[0-9a-f]+\+[0-9a-f]+\])?\$"

# RDS_LOGSCAN_IGNORE: an extended regex of lines some other check judges
# (check-debug's kmemleak step owns kmemleak's own summary line).
if grep -E -n -- "$PATTERNS" "${1:--}" | grep -E -v -- "$BENIGN" |
	{ if [ -n "${RDS_LOGSCAN_IGNORE:-}" ]; then grep -E -v -- "$RDS_LOGSCAN_IGNORE"; else cat; fi; } |
	grep .; then
	exit 1
fi
exit 0
