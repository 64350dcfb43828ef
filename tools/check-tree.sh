#!/usr/bin/env bash
# check-tree.sh - the rules of user/'s shape that no folder README states
# (issue 16): no base name twice under user/ (so that a name says which
# file), no struct type defined twice, no library file over 600 lines
# (one job each), and the folders' "may include:" lines forming layers,
# not a circle. Prints each problem; exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."

bad=0
problem() {
	echo "$1"
	bad=1
}

while IFS= read -r name; do
	problem "base name $name twice: $(find user -name "$name" | tr '\n' ' ')"
done < <(find user -name '*.[ch]' -printf '%f\n' | sort | uniq -d)

while IFS= read -r s; do
	problem "struct $s defined twice: $(grep -rlE "^struct $s \{" user | tr '\n' ' ')"
done < <(grep -rhoE '^struct [a-z_0-9]+ \{' user | awk '{print $2}' | sort | uniq -d)

while read -r n f; do
	[ "$f" = total ] || [ "$n" -le 600 ] || problem "$f: $n lines, over 600"
done < <(find user -path user/cmd -prune -o -name '*.c' -print | xargs wc -l)

# One edge per listed folder: the listing folder after the listed one.
loop=$(for r in $(find user -mindepth 2 -name README.md); do
	d=$(dirname "${r#user/}")
	for t in $(sed -n 's/^may include://Ip' "$r" | tr -d '`' | tr ',' ' '); do
		[ -d "user/$t" ] && echo "$t $d"
	done
done | tsort 2>&1 >/dev/null | grep -v 'input contains a loop' | sed 's/^tsort: //' | paste -sd' ' || true)
[ -z "$loop" ] || problem "folders include each other in a circle: $loop"
exit $bad
