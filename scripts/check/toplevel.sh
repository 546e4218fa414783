#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Nothing lands at the top of the tree by accident (a stray file named
# "0" sat there for weeks): every top-level file and directory that git
# tracks or would add (untracked, not ignored) must be on the list below.
# Adding one on purpose means adding it here, in the same commit.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO"

allowed=" .ci .gitignore Documentation Kbuild Makefile debian
README.md dkms.conf include man net scripts selftests tools transports "
allowed=$(echo $allowed)

bad=0
while IFS= read -r top; do
	case " $allowed " in
	*" $top "*) ;;
	*) echo "not on the top-level allow-list ($0): $top"; bad=1 ;;
	esac
done < <(git ls-files --cached --others --exclude-standard | cut -d/ -f1 | sort -u)
[ "$bad" = 0 ] || exit 1
echo "top level: only allowed entries ($allowed)"
