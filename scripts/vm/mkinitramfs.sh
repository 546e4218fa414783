#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once per kernel release and script version) the tiny busybox
# initramfs that mounts the host's root over 9p and switch_roots into it.
# Usage: mkinitramfs.sh KVER MODDIR   (MODDIR: the kernel's /lib/modules/KVER)
# Prints the path of the cpio archive.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

kver=$1
moddir=$2
key=$(cat "$0" "$REPO/scripts/vm/initramfs-init" | sha1sum | cut -c1-12)
out="$CACHE/initramfs/$kver-$key.cpio.gz"

if [ -f "$out" ]; then
	echo "$out"
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,dev,proc,sys,newroot,lib/modules}
cp /usr/bin/busybox "$work/bin/busybox"
cp "$REPO/scripts/vm/initramfs-init" "$work/init"
chmod +x "$work/init"

# The 9p-over-virtio stack, in dependency order; some kernels build parts
# of it in ("builtin" lines), and some compress their modules.
: > "$work/lib/modules/order"
for m in virtio_pci 9pnet_virtio 9p; do
	modprobe -d "${moddir%/lib/modules/$kver}" -S "$kver" --show-depends "$m" 2>/dev/null |
		awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
	name=$(basename "$ko")
	case "$name" in
	*.ko.xz)  xz -dc "$ko" > "$work/lib/modules/${name%.xz}"; name=${name%.xz} ;;
	*.ko.zst) zstd -qdc "$ko" > "$work/lib/modules/${name%.zst}"; name=${name%.zst} ;;
	*.ko.gz)  gzip -dc "$ko" > "$work/lib/modules/${name%.gz}"; name=${name%.gz} ;;
	*)        cp "$ko" "$work/lib/modules/$name" ;;
	esac
	echo "$name" >> "$work/lib/modules/order"
done

mkdir -p "$(dirname "$out")"
# A name of its own: two guests may boot at once (make check).
(cd "$work" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
echo "$out"
