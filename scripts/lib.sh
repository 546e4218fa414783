# SPDX-License-Identifier: GPL-2.0
# Shared settings for the test-bed scripts (sourced, not run).

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
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

# The test bed's kernels: scripts/kernels lists them. The host's own
# (Debian 12's 6.1) is the default; RDS_KERNEL=NAME (make's KERNEL=NAME)
# picks another Debian release's stock kernel, booted with a root of that
# release (scripts/kernel/debian-root.sh) in which its modules are also
# built (scripts/kernel/in-root.sh). See Documentation/testbed.rst.
RDS_KERNELS_FILE=$REPO/scripts/kernels
rds_kernels() {	# [host|other]: the names, all or only those kinds
	awk -v want="${1:-}" '!/^#/ && NF >= 2 {
		kind = $2 == "host" ? "host" : "other"
		if (want == "" || want == kind) print $1 }' "$RDS_KERNELS_FILE"
}
rds_kernel_suite() {	# NAME: its Debian suite, or "host"
	awk -v k="$1" '!/^#/ && $1 == k { print $2; f = 1 } END { exit !f }' \
		"$RDS_KERNELS_FILE"
}
rds_kernel_release() {	# NAME: e.g. "Debian 13"
	awk -v k="$1" '!/^#/ && $1 == k { $1 = $2 = ""; sub(/^ +/, ""); print }' \
		"$RDS_KERNELS_FILE"
}

# For RDS_KERNEL=NAME: make (or find) its root and export RDS_ROOT, KVER,
# KDIR (a path inside the root), and MODDIR and RDS_VM_KERNEL (paths on
# the host). Nothing for the host's kernel, or when already done.
rds_kernel_env() {
	local suite
	case "${RDS_KERNEL:-}" in
	""|host) return 0 ;;
	esac
	[ -n "${RDS_ROOT:-}" ] && return 0
	suite=$(rds_kernel_suite "$RDS_KERNEL") ||
		die "unknown kernel $RDS_KERNEL (known: $(rds_kernels | xargs))"
	[ "$suite" = host ] && return 0
	RDS_ROOT=$("$REPO/scripts/kernel/debian-root.sh" "$suite") ||
		die "no $suite root for kernel $RDS_KERNEL"
	KVER=$(ls "$RDS_ROOT/lib/modules" | sort -V | tail -n1)
	KDIR=/usr/src/linux-headers-$KVER
	MODDIR=$RDS_ROOT/lib/modules/$KVER
	RDS_VM_KERNEL=$RDS_ROOT/boot/vmlinuz-$KVER
	export RDS_ROOT KVER KDIR MODDIR RDS_VM_KERNEL
}

# A private copy of the tree (tracked and untracked files, not ignored
# ones) in $CACHE/NAME/, for modules built against another kernel than the
# checkout's; prints its path.
rds_private_tree() {	# NAME
	local tree
	tree=$CACHE/$1/$(echo "$REPO" | sha1sum | cut -c1-12)
	rm -rf "$tree"
	mkdir -p "$tree"
	(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -t "$tree" 2>/dev/null) ||
		die "cannot copy the tree to $tree"
	echo "$tree"
}

# Build for and boot the debug kernel in KDIR_DEBUG (debug-kernel.sh's
# output): exports KDIR, KVER, MODDIR, RDS_VM_KERNEL and RDS_VM_APPEND.
rds_debug_kernel_env() {	# KDIR_DEBUG
	KVER=$(cat "$1/release")
	KDIR=$1/linux
	MODDIR=$1/modules/lib/modules/$KVER
	RDS_VM_KERNEL=$1/linux/arch/x86/boot/bzImage
	RDS_VM_APPEND="acpi=off no5lvl"
	export KDIR KVER MODDIR RDS_VM_KERNEL RDS_VM_APPEND
}

# The kernel's checkpatch.pl (with its spelling and const-structs lists),
# taken from the linux-source package once into the cache; prints its path.
rds_checkpatch_pl() {
	local dir=$CACHE/checkpatch tarball tmp top
	if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
		tarball=$(ls /usr/src/linux-source-*.tar.xz | sort -V | tail -n1)
		tmp=$(mktemp -d)
		top=$(basename "$tarball" .tar.xz)
		tar -C "$tmp" -xJf "$tarball" "$top/scripts/checkpatch.pl" \
			"$top/scripts/spelling.txt" \
			"$top/scripts/const_structs.checkpatch" || return 1
		mkdir -p "$dir"
		rm -rf "$dir/scripts"
		mv "$tmp/$top/scripts" "$dir/scripts"
		rm -rf "$tmp"
	fi
	echo "$dir/scripts/checkpatch.pl"
}

# The two-host wire (vm.sh --wire, scripts/vm/vm2.sh): host N's NIC on it has
# this MAC prefix plus N, which is how its guest finds it.
RDS_WIRE_MAC_PREFIX=52:54:00:99:01:0
# The second wire's NIC (vm.sh --wire1, vmN.sh --nics 2): this plus N.
RDS_WIRE1_MAC_PREFIX=52:54:00:99:02:0

# TAP for the host-side drivers (check.sh, check-wire.sh): they set TAP
# (the file), RESULTS (the logs' directory), start (date +%s) and
# n=0 pass=0 fail=0 skip=0, then record each step here.
emit() { echo "$1" | tee -a "$TAP"; }
# Each result also says how long since the one before (what to trim when
# a run goes over its budget).
RESULT_T=$(date +%s)
result() {	# result RC DESC [LOGFILE [SECONDS]]: SECONDS the step's own time
	local now
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1))
		emit "ok $n - $2"
	else
		fail=$((fail + 1))
		emit "not ok $n - $2"
		[ -n "${3:-}" ] && tail -n 30 "$3" | sed 's/^/    # /' | tee -a "$TAP"
	fi
	now=$(date +%s)
	emit "    # ${4:-$((now - RESULT_T))} s"
	RESULT_T=$now
}
step() {	# step DESC CMD...: run CMD, log to a file, record the result
	local desc=$1 log
	shift
	log=$RESULTS/$(echo "$desc" | tr -c 'a-zA-Z0-9\n' '_').log
	"$@" > "$log" 2>&1
	result $? "$desc" "$log"
}

# Fold a guest TAP file into ours, renumbered, each line prefixed. The
# failures and their diagnostics go to standard output too: a CI log
# shows only that, and a boot's verdict alone does not say which test
# failed (MERGE_TAP_ECHO=0 for a caller that prints every line itself).
# A guest program prints its reason before its "not ok": the three
# diagnostic lines before a failure come with it (as failures_digest's).
merge_tap() {	# FILE PREFIX
	local line status rest echo=0 before=()
	[ -f "$1" ] || return 0
	while IFS= read -r line; do
		case "$line" in
		"ok "*|"not ok "*)
			n=$((n + 1))
			status=${line%% [0-9]*}
			rest=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ - //')
			echo=0
			if [ "$status" != ok ]; then
				fail=$((fail + 1))
				echo=${MERGE_TAP_ECHO:-1}
			elif [[ "$rest" == *"# SKIP"* ]]; then
				skip=$((skip + 1))
			else
				pass=$((pass + 1))
			fi
			echo "$status $n - $2$rest" >> "$TAP"
			if [ "$echo" = 1 ]; then
				echo "$status $n - $2$rest"
				[ ${#before[@]} -gt 0 ] && printf '%s\n' "${before[@]}"
			fi
			before=()
			;;
		"    "*)
			echo "$line" >> "$TAP"
			if [ "$echo" = 1 ]; then
				echo "$line"
			elif [[ ! "$line" =~ ^\ {4}#\ [0-9]+\ s$ ]]; then
				before+=("$line")
				[ ${#before[@]} -gt 3 ] && before=("${before[@]:1}")
			fi
			;;
		esac
	done < "$1"
	return 0
}

# Phases of a run, for the time table finish prints: `phase NAME` ends
# the one before and starts NAME; `phase_add NAME SECONDS` records one
# that ran beside the others (in the background), listed after them.
PHASES=() PHASES_BESIDE=() PHASE="" PHASE_T=0
phase() {	# NAME ("" only ends the current one)
	local now
	now=$(date +%s)
	[ -n "$PHASE" ] && PHASES+=("$PHASE"$'\t'"$((now - PHASE_T))")
	PHASE=$1 PHASE_T=$now
	[ -z "$1" ] || echo "# phase: $1"
}
phase_add() {	# NAME SECONDS
	PHASES_BESIDE+=("$1"$'\t'"$2")
}
phase_table() {
	local p
	phase ""
	[ "${#PHASES[@]}" -gt 0 ] || return 0
	printf '# %-52s %7s\n' phase seconds
	for p in "${PHASES[@]}" "${PHASES_BESIDE[@]}"; do
		printf '# %-52s %7s\n' "${p%%$'\t'*}" "${p##*$'\t'}"
	done
}

# Each failure again with the start of its diagnostics, at the end of
# the output where a CI log's tail shows it (a guest failure's details
# are otherwise hundreds of lines above): 16 lines each, 80 at most,
# enough for a kmemleak report's object and most of its backtrace.
failures_digest() {
	[ "$fail" -gt 0 ] || return 0
	echo "# failures, with the start of their diagnostics:"
	# A guest program prints its reason before its "not ok": the
	# three diagnostic lines before each failure come along too.
	awk '/^not ok / { print "# " $0
			  for (i = 0; i < nb; i++) print "# " before[i]
			  keep = 16; nb = 0; next }
	     /^    #/ && !/^    # [0-9]+ s$/ {
			  if (keep > 0) { keep--; print "# " $0; next }
			  if (nb == 3) { before[0] = before[1]; before[1] = before[2]; nb = 2 }
			  before[nb++] = $0; next }
	     { keep = 0; nb = 0 }' "$TAP" | head -n 80
}

# The plan, the per-phase times, the totals and the wall time; exits with
# the verdict.
finish() {
	emit "1..$n"
	phase_table
	failures_digest
	elapsed=$(($(date +%s) - start))
	echo "# results: $TAP"
	echo "# wall time: $((elapsed / 60))m$((elapsed % 60))s"
	summary="$pass passed, $fail failed"
	[ "$skip" -gt 0 ] && summary="$summary, $skip skipped"
	echo "$summary"
	[ "$fail" = 0 ]
	exit
}
