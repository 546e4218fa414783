#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sparse over every source file of our modules; any report fails.
. "$(dirname "$0")/../lib.sh"
cd "$REPO" || exit 1
out=$(make -s -C "$(rds_kdir)" M="$REPO" C=2 modules 2>&1 | grep -v 'Skipping BTF')
if [ -n "$out" ]; then
	echo "$out"
	exit 1
fi
echo "sparse: clean"
