#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make debug-kernel`: build (once) a 6.1 kernel with KASAN, lockdep,
# kmemleak, UBSAN and fault injection from Debian's linux-source-6.1,
# allnoconfig plus our complete config (scripts/kernel/debug-kernel.config), into
# the cache, outside the clone:
#
#   $CACHE/debug-kernel/<key>/linux     source + build tree (KDIR for
#                                       out-of-tree modules)
#   $CACHE/debug-kernel/<key>/modules   INSTALL_MOD_PATH: lib/modules/<release>
#   $CACHE/debug-kernel/<key>/release   the kernel release string
#
# <key> hashes the fragment, the source package version and the tree patch
# below, so changing any of them builds a new kernel; an unchanged one is a
# cache hit and returns at once. Prints the directory on stdout; build
# output goes to <dir>.log.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/siw-fix.sh"

fragment=$REPO/scripts/kernel/debug-kernel.config
series=6.1
tarball=/usr/src/linux-source-$series.tar.xz
[ -f "$tarball" ] || die "$tarball missing (apt-get install linux-source-$series)"
srcver=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null ||
	 stat -c %s-%Y "$tarball")

# 6.1 refuses the fault-injection stack-trace filter on x86_64 (a leftover
# from before reliable unwinders; later kernels dropped the restriction).
# With ORC, stack_trace_save() is exact, and the filter is what scopes
# failslab to one module's text, so lift it.
#
# 6.1's rxe tears a half-made queue pair down with del_timer_sync() on
# timers it set up only at the end of rxe_qp_init_req(): when an earlier
# step fails (the fault-injection round fails its sock_create_kern()),
# lockdep reports "trying to register non-static key" in
# rxe_qp_do_cleanup(), a driver bug that later kernels fixed. Skip the
# timers that were never set up, as they do; our error path (an
# rdma_create_qp() failure) is still exercised.
#
# siw gets the fix we carry for it (siw-fix.sh).
tree_patch() {
	sed -i '/^config FAULT_INJECTION_STACKTRACE_FILTER$/,/^config /{/^\tdepends on !X86_64$/d}' \
		lib/Kconfig.debug
	sed -i '/^static void rxe_qp_do_cleanup(/,/^}/s/if (qp_type(qp) == IB_QPT_RC) {/if (qp_type(qp) == IB_QPT_RC \&\& qp->retrans_timer.function) {/' \
		drivers/infiniband/sw/rxe/rxe_qp.c
	grep -q 'IB_QPT_RC && qp->retrans_timer.function' drivers/infiniband/sw/rxe/rxe_qp.c
	siw_fix_data_ready drivers/infiniband/sw/siw/siw_cm.c
}

build() {
	local dir=$1 bad=0 line want sym got
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -C "$dir" -xJf "$tarball"
	mv "$dir/linux-source-$series" "$dir/linux"
	cd "$dir/linux"
	tree_patch
	# allnoconfig with the fragment forced on: only what it names (and
	# what that selects) is built, ~4x fewer objects than defconfig.
	make allnoconfig KCONFIG_ALLCONFIG="$fragment"
	make olddefconfig
	# Kconfig only warns when a symbol does not take: fail instead.
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*|"# CONFIG_"*" is not set") want=$line ;;
		*) continue ;;
		esac
		sym=$(echo "$want" | sed -E 's/^# //; s/[= ].*//')
		got=$(grep -E "^$sym=|^# $sym is not set" .config || echo "$sym undefined")
		if [ "$got" != "$want" ]; then
			echo "debug-kernel: wanted '$want', got '$got'" >&2
			bad=1
		fi
	done < "$fragment"
	[ "$bad" = 0 ]
	make -j"${JOBS:-2}" bzImage modules
	make -s modules_install INSTALL_MOD_PATH="$dir/modules"
	make -s kernelrelease > "$dir/release"
}
if [ "${1:-}" = --build ]; then
	build "$2"
	exit 0
fi

key=$( { cat "$fragment"; echo "$srcver"; declare -f tree_patch siw_fix_data_ready; } | sha1sum | cut -c1-12)
dir=$CACHE/debug-kernel/$key

if [ -f "$dir/done" ]; then
	echo "$dir"
	exit 0
fi

mkdir -p "$CACHE/debug-kernel"
# One builder at a time; a second caller waits and then finds the cache.
exec 9> "$dir.lock"
flock 9
if [ -f "$dir/done" ]; then
	echo "$dir"
	exit 0
fi

log=$dir.log
echo "debug-kernel: building in $dir (log $log); ~7 min on 2 idle cores" >&2
start=$(date +%s)
# The build runs in a child so that `set -e` holds inside it.
if ! "$0" --build "$dir" > "$log" 2>&1; then
	echo "debug-kernel: build FAILED; tail of $log:" >&2
	tail -n 40 "$log" >&2
	exit 1
fi
echo "$(($(date +%s) - start))" > "$dir/build-seconds"
touch "$dir/done"
echo "debug-kernel: built $(cat "$dir/release") in $(( $(cat "$dir/build-seconds") / 60 )) min" >&2
echo "$dir"
