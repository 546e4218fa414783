#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The core's layering, checked on the built objects: which net/*.o uses
# a symbol another defines (nm: undefined in one, defined in the other)
# gives the file dependency graph; its strongly connected components are
# the import cycles. The one allowed is the knot of send, connection and
# lanes (a connection's sender transmits, a send wakes or picks a lane);
# any other cycle fails, printed as its edges with the symbols behind
# them. Run after the build (make modules).
#
#	check-layering.sh [DIR]	objects in DIR (default net/ of this tree)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
dir=${1:-net}
# The files allowed to form the one cycle (object names without .o).
ALLOWED="send connection lanes"

objs=()
for o in "$dir"/*.o; do
	case "${o##*/}" in
	rds.o|*.mod.o) continue ;;	# the linked module, not a file of it
	esac
	objs+=("$o")
done
[ ${#objs[@]} -gt 1 ] || { echo "no objects in $dir/: build first" >&2; exit 1; }

for o in "${objs[@]}"; do
	f=${o##*/}
	nm "$o" | awk -v f="${f%.o}" '
		$1 == "U" { print "U", f, $2; next }
		NF == 3 && $2 ~ /^[A-TV-Z]$/ { print "D", f, $3 }'
done | awk -v allowed="$ALLOWED" '
	$1 == "D" { def[$3] = $2; files[$2] = 1; next }
	{ use[NR] = $2 " " $3; files[$2] = 1 }
	END {
		# Edges a -> b (a uses b), with the symbols behind each.
		for (i in use) {
			split(use[i], u, " ")
			a = u[1]; s = u[2]
			if (!(s in def) || def[s] == a)
				continue
			b = def[s]
			e = a SUBSEP b
			edge[e] = 1
			if (e in syms)
				syms[e] = syms[e] " " s
			else
				syms[e] = s
		}
		# Reachability (the graph has a few dozen nodes): r[a,b] when a
		# reaches b; a and b share a component when each reaches the other.
		for (e in edge)
			r[e] = 1
		for (k in files)
			for (i in files)
				if ((i, k) in r)
					for (j in files)
						if ((k, j) in r)
							r[i, j] = 1
		n = split(allowed, al, " ")
		for (i = 1; i <= n; i++)
			ok[al[i]] = 1
		bad = 0; knots = 0
		for (a in files) {
			if (a in seen || !((a, a) in r))
				continue
			comp = ""; m = 0; inside = 1
			for (b in files)
				if (((a, b) in r) && ((b, a) in r)) {
					seen[b] = 1; member[++m] = b
					if (!(b in ok))
						inside = 0
				}
			# sorted member list, for stable output
			for (i = 1; i <= m; i++)
				for (j = i + 1; j <= m; j++)
					if (member[j] < member[i]) {
						t = member[i]; member[i] = member[j]; member[j] = t
					}
			for (i = 1; i <= m; i++)
				comp = comp (i > 1 ? " " : "") member[i]
			if (inside && knots == 0) {
				knots = 1
				printf "allowed cycle: {%s}\n", comp
				continue
			}
			bad = 1
			printf "import cycle: {%s}\n", comp
			for (i = 1; i <= m; i++)
				for (j = 1; j <= m; j++) {
					e = member[i] SUBSEP member[j]
					if (e in edge)
						printf "  %s.o -> %s.o: %s\n",
						    member[i], member[j], syms[e]
				}
		}
		if (!bad)
			print "net/ layering: no import cycle besides send/connection/lanes"
		exit bad
	}'
