# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Memory cgroup tests' set-up (sourced).
#
#	memcg_ready DIR...   cgroup v2 mounted on CG_ROOT (mounted here if
#	                     not), the memory controller on for children, and
#	                     the child cgroups DIR... made afresh; else prints
#	                     why not and fails
CG_ROOT=${CG_ROOT:-/sys/fs/cgroup}

memcg_ready() {
	# /proc/mounts: "DEVICE MOUNTPOINT TYPE ...", the device any name.
	if ! awk -v d="$CG_ROOT" '$2 == d && $3 == "cgroup2" { f = 1 } END { exit !f }' \
		/proc/mounts; then
		grep -qw cgroup2 /proc/filesystems || { echo "no cgroup2 file system"; return 1; }
		mount -t cgroup2 none "$CG_ROOT" || return 1
	fi
	grep -qw memory "$CG_ROOT/cgroup.controllers" || { echo "no memory controller"; return 1; }
	echo +memory > "$CG_ROOT/cgroup.subtree_control" || return 1
	rmdir "$@" 2>/dev/null
	mkdir "$@"
}
