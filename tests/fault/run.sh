#!/usr/bin/env bash
# run.sh - fault injection against live Go programs (make fault-test), in
# every backend (iter, perf, procmem), on the newest supported release:
#
#   corrupt.py  the bucket list corrupted through /proc/PID/mem (a cycle,
#               an nstk of 10^12, allnext to unmapped and to kernel
#               memory, a typ that is not 1, frees above allocs), and
#               words flipped while goheap-bpf reads: partial (11) with
#               the reason, in time, a valid pprof; the target unharmed
#               once the memory is restored
#
# Each prints its counts (faults, outcomes) for the README. Work files go
# to build/fault/.
#
#   tests/fault/run.sh BIN      (needs root)
set -uo pipefail

NAME=fault
. "$(dirname "$0")/../integration/lib.sh"
setup "$@"
start=$(date +%s)
out=$PWD/build/fault
rm -rf "$out"
mkdir -p "$out"/corrupt

newest=${versions[$((${#versions[@]} - 1))]}
versions=("$newest")
goroot=$(tools/go-toolchains.sh goroot "$newest") || die "no Go $newest toolchain"
build_targets exe
heapgen=$PWD/build/targets/$newest/exe/heapgen
build_cmpprof "$out"

fail=0
python3 tests/fault/corrupt.py "$bin" "$heapgen" "$goroot/bin/go" "$cmpprof" "$out/corrupt" || fail=1
echo "fault: $([ $fail -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start)) s"
exit $fail
