#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install everything the build, the QEMU test bed and the tools need on a
# Debian 12 host. Idempotent: only calls apt-get when something is missing.
set -eu

PKGS="build-essential make gcc libc6-dev pkg-config
linux-image-amd64 linux-headers-amd64 linux-source-6.1
qemu-system-x86 busybox-static cpio kmod iproute2
rdma-core ibverbs-utils rdmacm-utils libibverbs-dev librdmacm-dev
python3 sparse dkms gnuplot-nox xz-utils bc flex bison libelf-dev
libssl-dev procps util-linux trinity debootstrap nftables perftest
dpkg-dev debhelper dh-dkms lintian python3-docutils"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
	     grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "deps: all installed"
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing:$missing (run this script as root)" >&2
	exit 1
fi

echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
