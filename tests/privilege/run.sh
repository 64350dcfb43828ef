#!/usr/bin/env bash
# run.sh - goheap-bpf's read-only and least-privilege guarantees (make
# privilege-test):
#
#   helpers   the compiled BPF objects call only read-only helpers
#             (bpf_helpers.py, on BIN's directory's *.bpf.o)
#
#   tests/privilege/run.sh BIN      (needs root)
set -uo pipefail

NAME=privilege
. "$(dirname "$0")/../integration/lib.sh"
setup "$@"

fail=0
python3 -B tests/privilege/bpf_helpers.py "vmlinux/$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')/vmlinux.h" \
	"$(dirname "$bin")"/*.bpf.o || fail=1
[ "$fail" -eq 0 ]
