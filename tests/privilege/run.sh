#!/usr/bin/env bash
# run.sh - goheap-bpf's read-only and least-privilege guarantees (make
# privilege-test), on the newest supported release:
#
#   helpers   the compiled BPF objects call only read-only helpers
#             (bpf_helpers.py, on BIN's directory's *.bpf.o)
#   strace    no backend writes to, traces or signals its target
#             (strace.py)
#
# Work files go to build/privilege/.
#
#   tests/privilege/run.sh BIN      (needs root)
set -uo pipefail

NAME=privilege
. "$(dirname "$0")/../integration/lib.sh"
setup "$@"
out=$PWD/build/privilege
rm -rf "$out"
mkdir -p "$out"/strace
newest=${versions[$((${#versions[@]} - 1))]}
versions=("$newest")
build_targets exe
heapgen=$PWD/build/targets/$newest/exe/heapgen

fail=0
python3 -B tests/privilege/bpf_helpers.py "vmlinux/$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')/vmlinux.h" \
	"$(dirname "$bin")"/*.bpf.o || fail=1
python3 -B tests/privilege/strace.py "$bin" "$heapgen" "$out/strace" || fail=1
[ "$fail" -eq 0 ]
