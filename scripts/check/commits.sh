#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Commits a maintainer can review: checkpatch.pl over every commit
# since the base recorded in scripts/check/checkpatch-base, plus what checkpatch
# does not check: no merge commits, and a subject "subsys: summary" of at
# most 75 characters. A file in the tree, not a tag: CI's fresh clone
# has the history but no local tags. Exits non-zero on any error,
# warning or check.
#
# The base is the head of the last submission CI landed (its commits
# were checked then; the rule began at 4f0b1bf75d6e, older commits have
# no Signed-off-by): re-checking all 221 of them cost 86 s of an idle
# host, several minutes of make check's loaded one (2026-11-27).
#
#	commits.sh [BASE]    BASE overrides the file (e.g. to try the check)
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$REPO"

checkpatch=$(rds_checkpatch_pl) || die "no checkpatch.pl (linux-source: scripts/deps.sh)"
base=${1:-$(cat scripts/check/checkpatch-base)}
git rev-parse -q --verify "$base^{commit}" > /dev/null ||
	die "base $base (scripts/check/checkpatch-base) is not in this clone: a shallow clone? (git fetch --unshallow)"
git merge-base --is-ancestor "$base" HEAD ||
	die "base $base (scripts/check/checkpatch-base) is not an ancestor of HEAD: rebase onto it, or record a new base"

count=$(git rev-list --count "$base..HEAD")
bad=0
merges=$(git rev-list --merges "$base..HEAD")
if [ -n "$merges" ]; then
	echo "merge commits since the base (main takes none):"
	git log --no-walk --format='%h %s' $merges
	bad=1
fi
while IFS= read -r line; do
	subject=${line#* }
	if [ "${#subject}" -gt 75 ] || ! [[ "$subject" =~ ^[^:\ ][^:]*:\ [^\ ] ]]; then
		echo "${line%% *}: subject is not 'subsys: summary' within 75 characters: $subject"
		bad=1
	fi
done < <(git log --no-merges --format='%h %s' "$base..HEAD")

# checkpatch.pl over each commit, --strict as for the sources
# (checkpatch.sh), fed by format-patch with more context than the usual
# three lines (with three, a hunk inside a long statement or macro shows
# false reports: checkpatch never saw where it began; see check_commit).
# Ignored, as not applying here:
#   FILE_PATH_CHANGES   asks whether MAINTAINERS needs updating for added,
#                       moved or deleted files; this tree has none
#   LINUX_VERSION_CODE  the compat headers' version tests (checkpatch.sh
#                       confines them to include/net/rds/compat*.h)
#   LONG_LINE*          the 100-column limit: checkpatch.sh holds every C
#                       source to it on every run; here it would also
#                       judge the scripts' and docs' lines, whose style is
#                       not the kernel's C
# --no-tree: this is not a kernel tree (checkpatch would refuse to run).
# checkpatch's reports (blank-line separated) about the commit message
# or the files checkpatch.sh holds to kernel style; user-space programs
# (tools/, selftests/ but its modules) keep their own types and strings.
kernel_reports() {
	awk -v RS= '
		!/(ERROR|WARNING|CHECK):/ { next }
		!/FILE: / { print; next }
		/FILE: (net|transports)\/[^ :]*\.[ch]:/ { print; next }
		/FILE: include\/[^ :]*\.h:/ { print; next }
		/FILE: selftests\/modules\/[^ :]*\.[ch]:/ { print }'
}

# Whole files cost checkpatch 2 s a commit (seven minutes of make check
# at 200 commits); 30 lines of context a tenth of it, and the verdict is
# the same for every commit so far. A commit with reports at 30 lines is
# judged again with whole files, so a report a short context invents
# (a statement begun above the hunk) never fails it.
check_commit() {	# SHA CONTEXT
	git format-patch -M -U"$2" --stdout -1 "$1" |
		"$checkpatch" --strict --no-tree --show-types \
			--ignore FILE_PATH_CHANGES,LINUX_VERSION_CODE,LONG_LINE,LONG_LINE_STRING,LONG_LINE_COMMENT \
			- 2>&1 | kernel_reports
}

for sha in $(git rev-list --reverse --no-merges "$base..HEAD"); do
	out=$(check_commit "$sha" 30) || true
	if echo "$out" | grep -qE '(ERROR|WARNING|CHECK):'; then
		out=$(check_commit "$sha" 100000) || true
	fi
	if echo "$out" | grep -E '(ERROR|WARNING|CHECK):' | sed "s/^/${sha:0:12} /" | grep .; then
		git log --no-walk --format='    (%h %s)' "$sha"
		bad=1
	fi
done
[ "$bad" = 0 ] || exit 1
echo "commits since ${base:0:12}: $count, checkpatch --strict clean, no merges"
