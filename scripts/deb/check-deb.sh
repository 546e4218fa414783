#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-deb`: the packages installed as an administrator would, on
# each test-bed kernel's Debian release (scripts/kernels; the host's 6.1
# is Debian 12's), in a clean root of that release:
#
#   1. apt-get install ./rds-dkms_N_all.deb ./rds-tools_N_ARCH.deb: DKMS
#      builds and installs our modules for the root's kernel (dkms status,
#      modinfo: updates/, version N);
#   2. a second kernel's headers (the release's cloud flavour): DKMS
#      builds for it too, from the kernel's own hook;
#   3. rds-dkms N+1 and rds-tools N+1 (made by scripts/release.sh in a
#      copy of the tree) replace N: DKMS holds only N+1, the modules say
#      N+1;
#   4. apt-get purge: nothing of ours is left (source, DKMS tree, modules,
#      tools), modinfo finds Linux's rds_tcp;
#   5. one guest boots that kernel on the root as step 1 left it, with
#      nothing staged by the test bed (vm.sh --installed): modprobe
#      rds_tcp loads ours, N, and the package's rds-ping, rds-stress and
#      rds-info run on it; then, on the same kernel, in chroots of the
#      roots as steps 3 and 4 left them (saved copies of the overlay's
#      upper layer), N+1 loads and runs the same way, and after the purge
#      Linux's own RDS loads (scripts/deb/deb-guest.sh). One boot a
#      kernel, not three: guests wait for the shared VM lock.
#
#	check-deb.sh [KERNEL...]   default: every kernel of scripts/kernels
#
# The roots are debian-root.sh's (made on first use; Debian 12's too),
# each used through a private overlay, so the cached root stays clean.
# These machines do not run Debian's kernel: uname -r in the root is the
# host's, so DKMS's postinst cannot take the running kernel, and every
# step checks dkms status for the root's kernel by name. Guests run under
# flock /tmp/rds-vm.lock, one at a time. TAP and "N passed, N failed";
# logs in results/check-deb/. Cost: Documentation/packaging.rst.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

# Overlay mounts in a mount namespace of our own: they vanish with us.
if [ -z "${RDS_DEB_NS:-}" ]; then
	RDS_DEB_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

RESULTS=${RESULTS:-$REPO/results/check-deb}
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
TAP=$RESULTS/check-deb.tap
: > "$TAP"
start=$(date +%s) n=0 pass=0 fail=0 skip=0
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <(rds_kernels)
# Everything is in the cache, never in the cached roots themselves; a
# directory per run, so two runs (two kernels) may share the machine.
mkdir -p "$CACHE/check-deb"
WORK=$(mktemp -d "$CACHE/check-deb/run.XXXXXX")
mnt=""
cleanup() {
	[ -n "$mnt" ] && { umount -R "$WORK/$k/boot" 2>/dev/null; umount "$mnt/proc" 2>/dev/null; umount "$mnt" 2>/dev/null; }
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The packages: N from this tree, N+1 from a copy whose version the
# release step raised.
phase "packages N and N+1 (make deb)"
ver=$(dpkg-parsechangelog -l "$REPO/debian/changelog" -S Version)
next=$ver+check1
arch=$(dpkg --print-architecture)
step "make deb: rds-dkms and rds-tools $ver, lintian clean" \
	env DEB_OUT="$WORK/debs-$ver" "$REPO/scripts/deb/build.sh"
next_debs() {
	local tree=$WORK/tree-next
	mkdir -p "$tree" &&
	(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -t "$tree") &&
	git -C "$tree" init -q && git -C "$tree" add -A &&
	"$tree/scripts/release.sh" "$next" "Test release of make check-deb (upgrade)." &&
	DEB_OUT=$WORK/debs-$next "$tree/scripts/deb/build.sh"
}
step "release.sh $next in a copy, make deb there" next_debs
debs() {	# VERSION: the two .deb files
	echo "$WORK/debs-$1/rds-dkms_$1_all.deb $WORK/debs-$1/rds-tools_$1_$arch.deb"
}
for f in $(debs "$ver") $(debs "$next"); do
	[ -f "$f" ] || { emit "Bail out! no package $f"; finish; }
done

# In the root: proc mounted, apt noninteractive.
in_root() {
	chroot "$mnt" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
apt_install() {	# ARGS...: apt-get install in the root
	in_root apt-get install -y -q --no-install-recommends "$@"
}
dkms_has() {	# VERSION KVER: dkms says rds/VERSION is installed for KVER
	local s
	s=$(in_root dkms status -m rds -v "$1" -k "$2")
	echo "dkms status -m rds -v $1 -k $2: $s"
	in_root dkms status
	[[ "$s" == *": installed"* ]]
}
modinfo_is() {	# KVER VERSION: rds and every transport, from updates/
	local m f v
	for m in rds rds_loop rds_tcp rds_rdma rds_iwarp; do
		if [ -e "$mnt/lib/modules/$1/modules.dep" ]; then
			f=$(in_root modinfo -k "$1" -F filename "$m") || return 1
		else
			# DKMS 3.2 (sid) runs no depmod for a kernel whose
			# image is not installed (headers only): there is no
			# index to look a name up in until the image's own
			# depmod, so the file DKMS installed is checked.
			f=$(in_root find "/lib/modules/$1/updates" -name "$m.ko*")
			[ "$(echo "$f" | grep -c .)" = 1 ] ||
				{ echo "$m: not one file in updates/: $f"; return 1; }
		fi
		v=$(in_root modinfo -F version "$f")
		echo "$m: $f $v"
		[[ "$f" == "/lib/modules/$1/updates/"* ]] && [ "$v" = "$2" ] || return 1
	done
}
install_n() {	# KVER
	cp $(debs "$ver") "$mnt/tmp/" &&
	apt_install /tmp/rds-dkms_"$ver"_all.deb /tmp/rds-tools_"$ver"_"$arch".deb &&
	dkms_has "$ver" "$1" && modinfo_is "$1" "$ver" &&
	in_root rds-stress --help > /dev/null
}
# The release's cloud flavour: another kernel release, headers only, the
# kernel's own header hook runs DKMS.
second_headers() {	# KVER: prints the other kernel's release last
	local pkg k2
	# The mirror may be older than this machine's clock (sid's Release
	# "expired" here): its lists are taken as they are.
	in_root apt-get -o Acquire::Check-Valid-Until=false update -q || return 1
	pkg=$(in_root apt-cache depends linux-headers-cloud-amd64 |
		awk '/Depends: linux-headers-.*-cloud-amd64/ { print $2; exit }')
	[ -n "$pkg" ] || { echo "no cloud headers package"; return 1; }
	k2=${pkg#linux-headers-}
	[ "$k2" != "$1" ] || { echo "$k2 is the root's kernel"; return 1; }
	apt_install "$pkg" || return 1
	dkms_has "$ver" "$k2" && modinfo_is "$k2" "$ver" && echo "$k2" > "$WORK/k2"
}
upgrade() {	# KVER
	cp $(debs "$next") "$mnt/tmp/" &&
	apt_install /tmp/rds-dkms_"$next"_all.deb /tmp/rds-tools_"$next"_"$arch".deb || return 1
	dkms_has "$next" "$1" && modinfo_is "$1" "$next" || return 1
	in_root dkms status | grep "rds/${ver}[,:]" && { echo "rds/$ver left in DKMS"; return 1; }
	[ ! -e "$mnt/usr/src/rds-$ver" ] || { echo "/usr/src/rds-$ver left"; return 1; }
	[ "$(in_root dpkg-query -W -f='${Version}' rds-tools)" = "$next" ]
}
purge() {	# KVER
	local left
	in_root apt-get purge -y -q rds-dkms rds-tools || return 1
	left=$(cd "$mnt" && ls -d usr/src/rds-* var/lib/dkms/rds usr/bin/rds-* \
		usr/share/man/man7/rds.7.gz 2>/dev/null
		find lib/modules -path '*/updates/*' -name 'rds*.ko*')
	[ -z "$left" ] || { echo "left after purge: $left"; return 1; }
	in_root dpkg -l rds-dkms rds-tools 2>&1 | grep '^[a-z][a-z] ' | grep -v '^un ' &&
		{ echo "still known to dpkg"; return 1; }
	f=$(in_root modinfo -k "$1" -F filename rds_tcp) || return 1
	echo "rds_tcp: $f"
	[[ "$f" == "/lib/modules/$1/kernel/net/rds/"* ]]
}
# The overlay's upper layer as it is now, for the guest's later look at
# this state (the merged view gets its own overlay then).
save_state() {	# NAME
	cp -a "$WORK/$k/upper" "$WORK/$k/state-$1"
}
mount_state() {	# NAME DIR
	mkdir -p "$WORK/$k/work-$1" "$2" &&
	mount -t overlay overlay -o "lowerdir=$root,upperdir=$WORK/$k/state-$1,workdir=$WORK/$k/work-$1" "$2"
}
# One guest on that kernel, its root the state after the install, the
# later states under /mnt/rds-deb/ (QEMU's 9p follows the mounts); its
# TAP joins ours.
guest() {	# KVER
	local out=$RESULTS/$k/guest boot=$WORK/$k/boot rc
	mkdir -p "$out"
	mount_state installed "$boot" && mount_state next "$boot/mnt/rds-deb/next" &&
		mkdir -p "$boot/mnt/rds-deb/purged" &&
		mount --bind "$mnt" "$boot/mnt/rds-deb/purged" &&
		mkdir -p "$boot/mnt/rds-deb/next$REPO" "$mnt$REPO" ||
		{ result 1 "$k: the three states' roots for the guest"; return; }
	umount "$mnt/proc"
	flock /tmp/rds-vm.lock env -u RDS_KERNEL -u RDS_ROOT -u KDIR KVER="$1" \
		MODDIR="$boot/lib/modules/$1" "$REPO/scripts/vm/vm.sh" --installed \
		--root "$boot" --out "$out" --timeout 900 -- \
		"scripts/deb/deb-guest.sh states $ver $next" > "$out/console.log" 2>&1
	rc=$?
	tr -d '\r' < "$out/console.log" | grep -E '^(not )?ok |^    |^# ' | grep -v '^# kernel' > "$out/tap" || :
	merge_tap "$out/tap" "$k guest: "
	result "$rc" "$k guest: finished, clean kernel log" "$out/console.log"
	umount "$boot/mnt/rds-deb/purged" "$boot/mnt/rds-deb/next" "$boot"
}

for k in "${kernels[@]}"; do
	suite=$(rds_kernel_suite "$k") || { emit "Bail out! unknown kernel $k"; finish; }
	# The host's own kernel is Debian 12's: its root is a bookworm one.
	[ "$suite" = host ] && suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
	phase "$k ($suite): root"
	root=$("$REPO/scripts/kernel/debian-root.sh" "$suite") ||
		{ result 1 "$k: a $suite root"; continue; }
	kver=$(ls "$root/lib/modules" | sort -V | tail -n1)
	mnt=$WORK/$k/root
	mkdir -p "$WORK/$k/upper" "$WORK/$k/work" "$mnt"
	mount -t overlay overlay -o "lowerdir=$root,upperdir=$WORK/$k/upper,workdir=$WORK/$k/work" "$mnt" &&
		mount -t proc proc "$mnt/proc" ||
		{ result 1 "$k: an overlay over the $suite root"; continue; }
	echo "# $k: $suite root $root, kernel $kver, overlay $mnt"
	phase "$k ($suite): install $ver"
	step "$k: apt-get install rds-dkms and rds-tools $ver: DKMS installed for $kver" install_n "$kver"
	save_state installed
	phase "$k ($suite): second kernel's headers"
	step "$k: a second kernel's headers (cloud flavour): DKMS built for it too" second_headers "$kver"
	phase "$k ($suite): upgrade to $next"
	step "$k: upgrade to $next: DKMS holds only $next, modules say $next" upgrade "$kver"
	save_state next
	phase "$k ($suite): purge"
	step "$k: apt-get purge: nothing of ours left, modinfo finds Linux's rds_tcp" purge "$kver"
	phase "$k ($suite): guest on the three states"
	guest "$kver"
	umount "$mnt/proc" 2>/dev/null
	umount "$mnt"
	mnt=""
	rm -rf "${WORK:?}/$k"
done
finish
