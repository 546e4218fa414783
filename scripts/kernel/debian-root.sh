#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make (once) a Debian root for another release's kernel, in the cache:
# debootstrap SUITE, then its linux-image-amd64 and linux-headers-amd64, a
# compiler, its kernel source (for siw), dkms, and what the guest runs
# (bash, kmod, iproute2, python3, the verbs utilities, and as on the host
# nftables for tcp_hostile_peer's DNAT and trinity for the fuzz round). The guest boots
# that root's kernel with the root itself shared read-only over 9p
# (scripts/vm/vm.sh --root); our modules for that kernel are built inside it
# (scripts/kernel/in-root.sh), since the headers' build programs are linked
# against that release's C library.
#
#	debian-root.sh SUITE    e.g. trixie; prints the root's directory
#
# The directory is $CACHE/root/SUITE-<key>, <key> a hash of the package
# list, the mirror and build(): while they are unchanged it is a cache
# hit, so the kernel stays the one the archive had on the first run
# (delete the directory for a newer one).
# Output of the build goes to <dir>.log.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

suite=${1:?usage: debian-root.sh SUITE}
mirror=${RDS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
pkgs="linux-image-amd64 linux-headers-amd64 linux-source dkms gcc make
libc6-dev kmod iproute2 python3 procps ibverbs-utils ibverbs-providers
rdmacm-utils nftables trinity"

build() {
	local dir=$1
	rm -rf "$dir"
	debootstrap --variant=minbase "$suite" "$dir" "$mirror"
	echo "debian-root: debootstrap took $SECONDS s"
	cp -L /etc/resolv.conf "$dir/etc/resolv.conf"
	# No services start in the chroot, and no initramfs is generated: the
	# test bed boots its own (scripts/vm/mkinitramfs.sh).
	printf '#!/bin/sh\nexit 101\n' > "$dir/usr/sbin/policy-rc.d"
	chmod +x "$dir/usr/sbin/policy-rc.d"
	chroot "$dir" dpkg-divert --local --rename --add /usr/sbin/update-initramfs
	ln -s /bin/true "$dir/usr/sbin/update-initramfs"
	unshare --mount --propagation private sh -c '
		mount -t proc proc "$1/proc" &&
		DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install \
			-y -q --no-install-recommends $2' sh "$dir" "$pkgs"
	chroot "$dir" apt-get clean
	echo "debian-root: $SECONDS s in all"
	ls "$dir"/boot/vmlinuz-* > /dev/null
}
if [ "${1:-}" = --build ]; then
	suite=$2
	build "$3"
	exit 0
fi

key=$( { echo "$pkgs $mirror"; declare -f build; } | sha1sum | cut -c1-12)
dir=$CACHE/root/$suite-$key

if [ -f "$dir.done" ]; then
	echo "$dir"
	exit 0
fi

command -v debootstrap > /dev/null || die "debootstrap missing (scripts/deps.sh)"
mkdir -p "$CACHE/root"
# One builder at a time; a second caller waits and then finds the cache.
exec 9> "$dir.lock"
flock 9
if [ -f "$dir.done" ]; then
	echo "$dir"
	exit 0
fi

log=$dir.log
echo "debian-root: making a $suite root in $dir (log $log); ~2 min" >&2
start=$(date +%s)
if ! "$0" --build "$suite" "$dir" > "$log" 2>&1; then
	echo "debian-root: FAILED; tail of $log:" >&2
	tail -n 40 "$log" >&2
	exit 1
fi
echo "debian-root: $suite root ready in $(($(date +%s) - start)) s" >&2
touch "$dir.done"
echo "$dir"
