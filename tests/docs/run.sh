#!/usr/bin/env bash
# run.sh - the documentation check (make doc-test):
#
#   man      every page of tools/man/ renders with `man --warnings` and no
#            warning (at MANWIDTH 80, what a run without a terminal gets)
#   flags    every flag a command's --help lists is documented in its page
#            (a .TP item naming it), and no page documents a flag the
#            command does not have: goheap-bpf.8 against `BIN --help`,
#            goheap-bpf-serve.8 against `BIN serve --help`, and so on
#   README   README.md is at most 250 lines
#
#   tests/docs/run.sh BIN      (needs no root: only --help is run)
set -uo pipefail
cd "$(dirname "$0")/../.."

bin=${1:?usage: tests/docs/run.sh BIN}
fail=0
bad() {
	echo "docs: $*" >&2
	fail=1
}

if ! command -v man >/dev/null; then
	echo "docs: no man command: install man-db and groff-base (make deps)" >&2
	exit 1
fi

pages=(tools/man/*.[1-8])
for p in "${pages[@]}"; do
	w=$(MANWIDTH=80 man --warnings -E UTF-8 -l "$p" 2>&1 >/dev/null)
	[ -z "$w" ] || bad "$p: man --warnings says: $w"
done

# The long flags of --help's option list, one a line.
help_flags() {
	"$bin" "$@" --help | sed -n 's/^ \{1,\}\(-[^ ,], \)\{0,1\}--\([a-z][a-z0-9-]*\).*/\2/p' | sort -u
}

# The long flags a page documents: those in the tag line of a .TP item.
page_flags() {
	awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }' "$1" |
		grep -oE '\\-\\-[a-z][a-z0-9]*(\\-[a-z0-9]+)*' | sed 's/\\//g; s/^--//' | sort -u
}

check_flags() {
	local page=$1 name=$2
	shift 2
	local want have
	want=$(help_flags "$@") || { bad "$name --help failed"; return; }
	[ -n "$want" ] || { bad "$name --help lists no flag"; return; }
	have=$(page_flags "$page")
	for f in $(comm -23 <(echo "$want") <(echo "$have")); do
		bad "$page: --$f ($name --help) is not documented"
	done
	for f in $(comm -13 <(echo "$want") <(echo "$have")); do
		bad "$page: documents --$f, which $name does not have"
	done
}

check_flags tools/man/goheap-bpf.8 goheap-bpf
check_flags tools/man/goheap-bpf-serve.8 "goheap-bpf serve" serve
check_flags tools/man/goheap-bpf-diff.8 "goheap-bpf diff" diff
check_flags tools/man/goheap-bpf-watch.8 "goheap-bpf watch" watch

n=$(wc -l <README.md)
[ "$n" -le 250 ] || bad "README.md has $n lines: at most 250 (move the detail to a man page or a folder README)"

if [ "$fail" -eq 0 ]; then
	echo "docs: ${#pages[@]} man pages without a warning, every flag documented, README.md $n lines"
fi
exit $fail
