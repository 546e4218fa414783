#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`, the main job: install what is missing, build, boot the test
# bed with rxe and siw, load our modules and show RDS working over every
# transport (scripts/vm/demo-guest.sh does the showing).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO"
scripts/deps.sh
make -s all
exec scripts/vm/vm.sh --rdma -- scripts/vm/demo-guest.sh
