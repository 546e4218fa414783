#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scan a kernel log for splats. Usage: logscan.sh [FILE] (default stdin).
# Prints every offending line and exits 1 if there is one, else 0.
PATTERNS='BUG:|BUG kmalloc|WARNING:|Oops|general protection|KASAN|UBSAN|lockdep|possible recursive locking|possible circular locking|inconsistent lock state|refcount_t|kmemleak: [0-9]+ new suspected|list_del corruption|list_add corruption|Kernel panic|INFO: task .* blocked for more than|sleeping function called from invalid context|scheduling while atomic|stack-protector|stack segment'

# Boot lines of the debug kernel that match a pattern but report nothing:
# RCU announces its lockdep checking ("RCU lockdep checking is enabled.").
BENIGN='RCU lockdep checking is enabled'

# RDS_LOGSCAN_IGNORE: an extended regex of lines some other check judges
# (check-debug's kmemleak step owns kmemleak's own summary line).
if grep -E -n -- "$PATTERNS" "${1:--}" | grep -E -v -- "$BENIGN" |
	{ if [ -n "${RDS_LOGSCAN_IGNORE:-}" ]; then grep -E -v -- "$RDS_LOGSCAN_IGNORE"; else cat; fi; } |
	grep .; then
	exit 1
fi
exit 0
