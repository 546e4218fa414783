# SPDX-License-Identifier: GPL-2.0
# Shared settings for the test-bed scripts (sourced, not run).

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${RDS_CACHE:-/var/cache/rds-testbed}

# The kernel we build for and boot: KDIR's release, else the newest one
# with headers installed (Debian 12's 6.1).
rds_kdir() {
	if [ -n "${KDIR:-}" ]; then
		echo "$KDIR"
	elif [ -d "/lib/modules/$(uname -r)/build" ]; then
		echo "/lib/modules/$(uname -r)/build"
	else
		ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n1
	fi
}

rds_kver() {
	if [ -n "${KVER:-}" ]; then
		echo "$KVER"
	else
		local kdir
		kdir=$(rds_kdir)
		case "$kdir" in
		# Debian's headers report the upstream version; the modules
		# dir has the real release name.
		/lib/modules/*/build) basename "$(dirname "$kdir")" ;;
		*) cat "$kdir/include/config/kernel.release" ;;
		esac
	fi
}

die() {
	echo "error: $*" >&2
	exit 1
}
