#!/usr/bin/env bash
# run.sh - the library as a program outside this tree uses it: installed
# into a temporary prefix (make install), tools/examples/top5.c built with
# nothing but that prefix's goheap.h and `pkg-config --cflags --libs
# goheap`, and its five largest in-use stacks compared with the first five
# entries of `goheap-bpf --pid PID --format json` on the same live target
# (an idle one: both read the same buckets). The shared library must
# export only gh_ symbols. Needs root (BPF).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
[ "$(id -u)" -eq 0 ] || { echo "library: needs root (BPF)" >&2; exit 1; }

die() { echo "library: $*" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
pid=
trap '[ -n "$pid" ] && { kill -9 $pid; wait $pid; } 2>/dev/null; rm -rf "$tmp"' EXIT

make --no-print-directory install PREFIX="$tmp/prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; die "make install failed"; }
lib=$tmp/prefix/lib
export PKG_CONFIG_PATH=$lib/pkgconfig
flags=$(pkg-config --cflags --libs goheap) || die "pkg-config knows no goheap"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/top5" tools/examples/top5.c $flags \
	-Wl,-rpath,"$lib" || die "the example does not build against the installed library"
other=$(nm -D --defined-only "$lib/libgoheap.so" | awk '$3 !~ /^gh_/ && $3 !~ /^GOHEAP_/ {print $3}')
[ -z "$other" ] || die "libgoheap.so exports more than gh_ symbols: $other"

# shellcheck source=tests/library/heapgen.sh
. tests/library/heapgen.sh

"$tmp/top5" "$pid" >"$tmp/top5.txt" || die "top5 failed: $(cat "$tmp/top5.txt")"
"$tmp/prefix/sbin/goheap-bpf" --pid "$pid" --format json --top 5 >"$tmp/ours.json" ||
	die "goheap-bpf failed"
# The same five: bytes, objects, and each frame "function file:line".
python3 - "$tmp/ours.json" "$tmp/top5.txt" <<'PY' || die "top5 and goheap-bpf disagree (files in $tmp)"
import json, sys
doc = json.load(open(sys.argv[1]))
want = []
for e in doc["entries"]:
    want.append("%d %d" % (e["bytes"], e["objects"]))
    for f in e["stack"]:
        fn, _, where = f.partition(", ")
        want.append("\t%s %s" % (fn, where))
got = open(sys.argv[2]).read().splitlines()
if got != want:
    print("\n".join(["want:"] + want[:20] + ["got:"] + got[:20]))
    sys.exit(1)
print("library: top5 (installed, pkg-config) equals goheap-bpf's 5 largest stacks: %d lines" % len(got))
PY
echo "library: 1 passed, 0 failed"
