#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The soft RDMA devices the transports run on: rxe (RoCE) and siw (iWARP).
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh

link_active() {	# DEV NETDEV
	rdma link show | grep -E "^link $1/1 state ACTIVE .* netdev $2" ||
		{ rdma link show; return 1; }
}

node_type() {
	ibv_devinfo -d "$1" | grep -E "transport:.*$2" ||
		{ ibv_devinfo -d "$1"; return 1; }
}

tap_plan 4
tap_check "rxe0 is ACTIVE on eth0" link_active rxe0 eth0
tap_check "siw0 is ACTIVE on eth1" link_active siw0 eth1
tap_check "rxe0 is an InfiniBand-transport (RoCE) device" node_type rxe0 InfiniBand
tap_check "siw0 is an iWARP device" node_type siw0 iWARP
tap_done
