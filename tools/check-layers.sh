#!/usr/bin/env bash
# check-layers.sh - every folder under user/ (user/cmd/serve/ too) keeps to
# its README.md:
#   - the README exists and has exactly one "may include:" line (in any
#     case, so that an old "May include:" sentence counts too): the
#     folders (paths from user/) and the tokens goheap.h (the public API),
#     goheap_record.h (bpf/'s record format) and skel (generated *.skel.h)
#     that the folder's files may include besides its own headers;
#     "nothing" for none;
#   - each #include "x" of the folder's .c and .h files is of its own
#     folder or a listed one (x's directory: "cmd/serve/http.h" is
#     cmd/serve), or a listed token; any other bare name must be named by
#     its folder;
#   - each .c and .h of the folder is named in the README (`name.c`);
#   - no circle of includes among the folder's files (a.c and a.h are the
#     one stem a), found with tsort.
# Prints each problem as "path: problem"; exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."

bad=0
problem() {
	echo "$1: $2"
	bad=1
}

# The includes of file $1, one a line.
includes() {
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"
}

# Folder $1: its README's rules, its files' includes, its circles.
check_folder() {
	local dir=$1 own=${1#user/} readme=$1/README.md
	local n allowed tok f inc dep edges="" loop

	if [ ! -f "$readme" ]; then
		problem "$dir" "no README.md"
		return
	fi
	n=$(grep -ci '^may include:' "$readme" || true)
	if [ "$n" -ne 1 ]; then
		problem "$readme" "$n \"may include:\" lines, want exactly one"
		return
	fi
	allowed=" $(sed -n 's/^may include://Ip' "$readme" | tr -d '`' | tr ',' ' ') "
	for tok in $allowed; do
		case $tok in
		nothing | goheap.h | goheap_record.h | skel) ;;
		*) [ -d "user/$tok" ] ||
			problem "$readme" "may include names no folder user/$tok" ;;
		esac
	done
	for f in "$dir"/*.[ch]; do
		[ -e "$f" ] || continue
		grep -qF "\`$(basename "$f")\`" "$readme" ||
			problem "$f" "not named in $readme"
		while IFS= read -r inc; do
			case $inc in
			*/*) dep=${inc%/*} ;;
			*.skel.h) dep=skel ;;
			goheap.h | goheap_record.h) dep=$inc ;;
			*)
				problem "$f" "includes \"$inc\": name library headers by their folder"
				continue ;;
			esac
			if [ "$dep" = "$own" ]; then
				edges+="$(basename "${f%.?}") $(basename "${inc%.h}")"$'\n'
			elif [[ $allowed != *" $dep "* ]]; then
				problem "$f" "includes \"$inc\": $own/README.md does not list $dep"
			fi
		done < <(includes "$f")
	done
	# tsort names each circle on stderr, after "input contains a loop:",
	# a stem a line, in the circle's order.
	while IFS= read -r loop; do
		problem "$dir" "include circle: $loop"
	done < <(printf '%s' "$edges" | tsort 2>&1 >/dev/null | awk '
		/input contains a loop/ { if (c) print c " -> " first; c = ""; next }
		{ sub(/^tsort: /, ""); if (c) c = c " -> " $0; else c = first = $0 }
		END { if (c) print c " -> " first }')
}

while IFS= read -r dir; do
	check_folder "$dir"
done < <(find user -mindepth 1 -type d | sort)
exit $bad
