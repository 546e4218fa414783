#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two guests joined by one virtual wire: vmN.sh --hosts 2, whose header
# has the options (-a CMD, -b CMD or -- CMD, --impl-a/-b, --intree-a/-b,
# --intree, --rdma, --timeout, --mem, --pcap, --out).
exec "$(dirname "$0")/vmN.sh" --hosts 2 "$@"
