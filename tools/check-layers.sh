#!/usr/bin/env bash
# check-layers.sh - the include rule of user/README.md: a file of user/
# includes headers of its own layer and of the layers before it, never of
# a later one; the command (user/cmd/) includes only the public goheap.h;
# the record format (bpf/goheap_record.h) is for target/ and later layers.
# Prints each offending include; exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."

layers=(base proc gobin target read profile write pprofin outfile collect oom watch cli compat cmd)
rank() {
	local i
	for i in "${!layers[@]}"; do
		[ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }
	done
	echo -1
}

bad=0
for f in user/*/*.[ch]; do
	layer=$(basename "$(dirname "$f")")
	r=$(rank "$layer")
	if [ "$r" -lt 0 ]; then
		echo "$f: user/$layer is not a layer of user/README.md"
		bad=1
		continue
	fi
	while IFS= read -r inc; do
		case $inc in
		*/*)
			dep=${inc%%/*}
			d=$(rank "$dep")
			if { [ "$layer" = cmd ] && [ "$dep" != cmd ] && [ "$dep" != cli ]; } || [ "$d" -lt 0 ] || [ "$d" -gt "$r" ]; then
				echo "$f: includes \"$inc\" ($layer may not include $dep/)"
				bad=1
			fi ;;
		goheap_record.h)
			if [ "$r" -lt "$(rank target)" ] || [ "$layer" = cmd ]; then
				echo "$f: includes the record format ($layer may not)"
				bad=1
			fi ;;
		goheap.h | *.skel.h) ;;
		*)
			echo "$f: includes \"$inc\": name library headers by their layer"
			bad=1 ;;
		esac
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
exit $bad
