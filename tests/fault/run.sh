#!/usr/bin/env bash
# run.sh - fault injection against live Go programs (make fault-test), in
# every backend (iter, perf, procmem), on the newest supported release:
#
#   corrupt.py  the bucket list corrupted through /proc/PID/mem (a cycle,
#               an nstk of 10^12, allnext to unmapped and to kernel
#               memory and to a header running off its page into none,
#               a typ that is not 1, frees above allocs), and
#               words flipped while goheap-bpf reads: partial (11) with
#               the reason, in time, a valid pprof; the target unharmed
#               once the memory is restored
#   kills.py    the target SIGKILLed at random points of a run (opening,
#               reading, building, writing), its PID sometimes reused by
#               another Go program: 0, 10 or 11 and nothing half-written,
#               never the other program's profile
#   memo.py     a server's repeated reads of one process while one
#               bucket's allnext skips the next and is put back: each
#               served profile equals a fresh read's (the kept locations
#               taken up to the change, built on from there)
#   churn.py    snapshots back to back of a program allocating at full
#               speed with its collector running, through the public API
#               (churnloop.c): complete or mixed, no negative value, alloc
#               totals between the target's own profiles around them
#
# Each prints its counts (faults, outcomes, kills, reuses, snapshots) for
# the README. Work files go to build/fault/.
#
#   tests/fault/run.sh BIN      (needs root; BIN's directory holds
#                                tests/churnloop, built by make fault-test)
set -uo pipefail

NAME=fault
. "$(dirname "$0")/../integration/lib.sh"
setup "$@"
start=$(date +%s)
out=$PWD/build/fault
rm -rf "$out"
mkdir -p "$out"/{corrupt,kills,memo,churn}
churnloop=$(dirname "$bin")/tests/churnloop
[ -x "$churnloop" ] || die "no $churnloop: build it with make fault-test"

newest=${versions[$((${#versions[@]} - 1))]}
versions=("$newest")
goroot=$(tools/go-toolchains.sh goroot "$newest") || die "no Go $newest toolchain"
build_targets exe
heapgen=$PWD/build/targets/$newest/exe/heapgen
churn=$PWD/build/targets/$newest/exe/churn
tests/targets/build.sh churn exe "$goroot" "$churn" >"$out/churn-build.log" 2>&1 ||
	die "building churn failed: $(cat "$out/churn-build.log")"
build_benchgen "$out"
build_cmpprof "$out"

fail=0
python3 -B tests/fault/corrupt.py "$bin" "$heapgen" "$goroot/bin/go" "$cmpprof" "$out/corrupt" || fail=1
python3 -B tests/fault/kills.py "$bin" "$benchgen" "$heapgen" "$goroot/bin/go" "$cmpprof" \
	"$out/kills" || fail=1
python3 -B tests/fault/memo.py "$bin" "$heapgen" "$goroot/bin/go" "$cmpprof" "$out/memo" || fail=1
python3 -B tests/fault/churn.py "$churnloop" "$churn" "$cmpprof" "$out/churn" || fail=1
echo "fault: $([ $fail -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start)) s"
exit $fail
