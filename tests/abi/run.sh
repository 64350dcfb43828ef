#!/usr/bin/env bash
# run.sh - the ABI test: a program built against 0.2.0 runs against this
# libgoheap.so (the soname policy of include/goheap.h).
#
#   tests/abi/run.sh build/rel/libgoheap.so.VERSION     (as root)
#
# 1. Layout: layout.c, built against 0.2.0's header (goheap-0.2.0.h, main's
#    include/goheap.h at 0.2.0) and against today's, prints the same
#    offsets, sizes and enum values (no root needed for this part).
# 2. Binding: top5-0.2.0.c (0.2.0's tools/examples/top5.c) is built
#    against that header and linked against a stand-in for 0.2.0's
#    libgoheap.so (its functions, empty, under goheap-0.2.0.map's node),
#    so it requires GOHEAP_0 as a real 0.2.0 program does; it must need
#    nothing else. The command's helpers (cli/cli.h) that 0.2.0 exported
#    must be there for it under GOHEAP_0 alone, never as a default.
#    calls-0.2.0.c, built the same way, calls every 0.2.0 entry point
#    whose structs changed with values only their 0.2.0 places explain
#    (no BPF, no target), run against the library.
# 3. Run: with that library as libgoheap.so.0, that binary and today's
#    top5 (built against include/) read the same live, idle Go target and
#    must print the same stacks, at least one.
# Needs root (BPF), as tests/library/run.sh.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
die() { echo "abi: $*" >&2; exit 1; }
[ $# -eq 1 ] || die "usage: tests/abi/run.sh LIBGOHEAP_SO"
so=$1
[ -f "$so" ] || die "no $so"
[ "$(id -u)" -eq 0 ] || die "needs root (BPF)"
tmp=$(mktemp -d) || exit 1
pid=
trap '[ -n "$pid" ] && { kill -9 $pid; wait $pid; } 2>/dev/null; rm -rf "$tmp"' EXIT
cc=(cc -std=c11 -Wall -Wextra -Werror)

mkdir -p "$tmp/0.2.0" "$tmp/old" "$tmp/new"
cp tests/abi/goheap-0.2.0.h "$tmp/0.2.0/goheap.h"
"${cc[@]}" -I"$tmp/0.2.0" -o "$tmp/layout-0.2.0" tests/abi/layout.c &&
	"${cc[@]}" -Iinclude -o "$tmp/layout" tests/abi/layout.c ||
	die "layout.c does not build"
"$tmp/layout-0.2.0" >"$tmp/layout-0.2.0.txt" && "$tmp/layout" >"$tmp/layout.txt" ||
	die "layout.c failed"
diff "$tmp/layout-0.2.0.txt" "$tmp/layout.txt" >&2 ||
	die "a struct or enum of 0.2.0 changed (- 0.2.0, + today)"

grep -oE '\bgh_[a-z0-9_]+\(' tests/abi/goheap-0.2.0.h | tr -d '(' | sort -u |
	sed 's/.*/void &(void) {}/' >"$tmp/old/stub.c"
cc -shared -fPIC -w -Wl,-soname,libgoheap.so.0 \
	-Wl,--version-script=tests/abi/goheap-0.2.0.map \
	-o "$tmp/old/libgoheap.so" "$tmp/old/stub.c" || die "the 0.2.0 stand-in does not build"
"${cc[@]}" -I"$tmp/0.2.0" -o "$tmp/top5-0.2.0" tests/abi/top5-0.2.0.c \
	-L"$tmp/old" -lgoheap || die "0.2.0's top5 does not build against 0.2.0's header"
needs=$(readelf -V "$tmp/top5-0.2.0" | sed -n 's/.*Name: \(GOHEAP[^ ]*\).*/\1/p' | sort -u | tr '\n' ' ')
[ "$needs" = "GOHEAP_0 " ] || die "0.2.0's top5 requires '$needs', not GOHEAP_0 alone"
cli=$(nm -D --defined-only "$so" | awk '$3 ~ /^gh_(size|duration|json|cgroup|output)__.*@@/ {print $3}')
[ -z "$cli" ] || die "the command's helpers are exported for new programs: $cli"
ln -s "$(realpath "$so")" "$tmp/new/libgoheap.so.0"
ln -s "$(realpath "$so")" "$tmp/new/libgoheap.so"
"${cc[@]}" -I"$tmp/0.2.0" -o "$tmp/calls-0.2.0" tests/abi/calls-0.2.0.c \
	-L"$tmp/old" -lgoheap || die "calls-0.2.0.c does not build against 0.2.0's header"
LD_LIBRARY_PATH=$tmp/new "$tmp/calls-0.2.0" || die "0.2.0's calls do not reach the library as made"
"${cc[@]}" -Iinclude -o "$tmp/top5" tools/examples/top5.c -L"$tmp/new" -lgoheap ||
	die "today's top5 does not build"

# shellcheck source=tests/library/heapgen.sh
. tests/library/heapgen.sh

export LD_LIBRARY_PATH=$tmp/new
"$tmp/top5-0.2.0" "$pid" >"$tmp/old.txt" 2>&1 ||
	die "0.2.0's top5 fails against $so: $(head -3 "$tmp/old.txt")"
"$tmp/top5" "$pid" >"$tmp/new.txt" 2>&1 || die "today's top5 fails: $(head -3 "$tmp/new.txt")"
grep -q '^[0-9]' "$tmp/new.txt" || die "today's top5 printed no stack"
diff "$tmp/new.txt" "$tmp/old.txt" >&2 || die "0.2.0's top5 prints otherwise (- today's, + 0.2.0's)"
echo "abi: 0.2.0's layouts unchanged; 0.2.0's top5 (GOHEAP_0) against $(basename "$so") prints today's $(grep -c '^[0-9]' "$tmp/new.txt") stacks"
echo "abi: 1 passed, 0 failed"
