#!/usr/bin/env bash
# nonresident.sh - the perf backend reads a bucket that runs onto a page the
# target never wrote (tests/targets/untouched): bpf_probe_read_user cannot
# fault such a page in, so perf reads it in with one process_vm_readv of a
# byte (a read fault maps the kernel's shared zero page) and walks again.
#
#   before   the page is not present (/proc/PID/pagemap; else the case is
#            not being tested, and another target is started, 3 at most)
#   perf     exit 0, complete, backend_notes saying it read a page in, the
#            same buckets and totals as the iter backend
#   after    the page is as a read fault leaves one on this kernel (the
#            kernel's shared zero page; a private zeroed page where the
#            kernel maps none, as a guest booted with pvm_no_zero_page
#            does: readfault says which) and still all zeros, so nothing
#            was written
#
#   tests/integration/nonresident.sh BIN      (needs root)
set -uo pipefail

NAME=nonresident
. "$(dirname "$0")/lib.sh"
setup "$@"
v=${versions[-1]}
target=build/targets/$v/exe/untouched
tests/targets/build.sh untouched exe "$(tools/go-toolchains.sh goroot "$v")" "$target" ||
	die "building the untouched target failed"
out=$(mktemp -d)
pid=
trap 'kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$out"' EXIT

# start: a fresh target in the state; sets pid and page.
start() {
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	rm -f "$out/ready"
	UNTOUCHED_READY=$out/ready "$target" 2>"$out/target.err" &
	pid=$!
	for _ in $(seq 300); do
		grep -q '^0x[0-9a-f]*$' "$out/ready" 2>/dev/null && break
		sleep 0.1
	done
	page=$(cat "$out/ready" 2>/dev/null)
	[ -n "$page" ] || die "target did not get ready: $(cat "$out/target.err")"
}

# pagemap: "none", "zero-page" (present, not exclusively mapped) or
# "private" (present and the target's own) for the page.
pagemap() {
	python3 -c 'import struct, sys
with open("/proc/%s/pagemap" % sys.argv[1], "rb") as f:
    f.seek(int(sys.argv[2], 16) // 4096 * 8)
    e = struct.unpack("<Q", f.read(8))[0]
print("none" if not e >> 63 & 1 else "private" if e >> 56 & 1 else "zero-page")' "$pid" "$page"
}

# readfault: what a read fault on a fresh private anonymous page (as the
# Go heap's) maps on this kernel, asked of a page of our own ("zero-page"
# or "private"). MAP_PRIVATE: Python maps MAP_SHARED by default, shmem,
# whose read faults always allocate a page.
readfault() {
	python3 -c 'import ctypes, mmap, struct
m = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
assert m[0] == 0
a = ctypes.addressof(ctypes.c_char.from_buffer(m))
with open("/proc/self/pagemap", "rb") as f:
    f.seek(a // 4096 * 8)
    e = struct.unpack("<Q", f.read(8))[0]
print("none" if not e >> 63 & 1 else "private" if e >> 56 & 1 else "zero-page")'
}

# zeros: the target's page reads as zeros only.
zeros() {
	python3 -c 'import sys
with open("/proc/%s/mem" % sys.argv[1], "rb") as f:
    f.seek(int(sys.argv[2], 16) // 4096 * 4096)
    sys.exit(any(f.read(4096)))' "$pid" "$page"
}

# totals JSON: the status, the buckets and the four totals.
totals() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
t = d["totals"]
print(d["status"], d["buckets"], *(t[k] for k in
      ("alloc_objects", "alloc_space", "inuse_objects", "inuse_space")))' "$1"
}

pass=0 fail=0
tested=
for try in 1 2 3; do
	start
	if [ "$(pagemap)" != none ]; then
		echo "try $try: the page was written before the read; another target"
		continue
	fi
	"$bin" --pid "$pid" --backend perf --format json -o "$out/perf.json" 2>"$out/perf.err"
	st=$?
	if [ $st -ne 0 ]; then
		verdict perf-exit-0 "exit $st: $(cat "$out/perf.err")"
		tested=1
		break
	fi
	if ! grep -q '"backend_notes": "[^"]*reading in a page not resident' "$out/perf.json"; then
		echo "try $try: the target wrote the page itself during the read; another target"
		continue
	fi
	verdict perf-exit-0-read-in ""
	"$bin" --pid "$pid" --backend iter --format json -o "$out/iter.json" 2>"$out/iter.err" ||
		verdict iter "$(cat "$out/iter.err")"
	p=$(totals "$out/perf.json" 2>&1) i=$(totals "$out/iter.json" 2>&1)
	[ "$p" = "$i" ] && [ "${p%% *}" = complete ] && why= || why="perf: $p; iter: $i"
	verdict perf-equals-iter "$why"
	got=$(pagemap) want=$(readfault)
	if [ "$got" != "$want" ]; then
		why="the page is $got, a read fault here maps $want"
	elif ! zeros; then
		why="the page no longer reads as zeros"
	else
		why=
	fi
	verdict after-read-only "$why"
	tested=1
	break
done
[ -n "$tested" ] || verdict untouched-page "3 targets wrote their page before perf could read it"

echo "nonresident: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
