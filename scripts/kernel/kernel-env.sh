#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# For the Makefile: make (or find) the root of test-bed kernel NAME and
# print "KDIR KVER ROOT" (see rds_kernel_env in lib.sh).
#
#	kernel-env.sh NAME
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

RDS_KERNEL=${1:?usage: kernel-env.sh NAME}
unset RDS_ROOT
rds_kernel_env
[ -n "${RDS_ROOT:-}" ] || die "kernel $RDS_KERNEL is the host's own: no root"
echo "$KDIR $KVER $RDS_ROOT"
