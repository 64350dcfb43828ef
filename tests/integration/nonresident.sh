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
#   after    the page is present but not exclusively mapped: the kernel's
#            zero page, which a read fault maps, so nothing was written
#
#   tests/integration/nonresident.sh BIN      (needs root)
set -uo pipefail
bin=$(realpath -e "${1:?usage: nonresident.sh BIN}") || exit 1
cd "$(dirname "$0")/../.." || exit 1
[ "$(id -u)" -eq 0 ] || { echo "nonresident: needs root (BPF, CAP_SYS_PTRACE)" >&2; exit 1; }

v=$(tools/go-toolchains.sh list | tail -1)
target=build/targets/$v/exe/untouched
tests/targets/build.sh untouched exe "$(tools/go-toolchains.sh goroot "$v")" "$target" || exit 1
dir=$(mktemp -d)
pid=
trap 'kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT

# start: a fresh target in the state; sets pid and page.
start() {
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	rm -f "$dir/ready"
	UNTOUCHED_READY=$dir/ready "$target" 2>"$dir/target.err" &
	pid=$!
	for _ in $(seq 300); do
		grep -q '^0x[0-9a-f]*$' "$dir/ready" 2>/dev/null && break
		sleep 0.1
	done
	page=$(cat "$dir/ready" 2>/dev/null)
	[ -n "$page" ] || { echo "nonresident: target did not get ready: $(cat "$dir/target.err")" >&2; exit 1; }
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

# totals JSON: the status, the buckets and the four totals.
totals() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
t = d["totals"]
print(d["status"], d["buckets"], *(t[k] for k in
      ("alloc_objects", "alloc_space", "inuse_objects", "inuse_space")))' "$1"
}

pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }

tested=
for try in 1 2 3; do
	start
	if [ "$(pagemap)" != none ]; then
		echo "try $try: the page was written before the read; another target"
		continue
	fi
	"$bin" --pid "$pid" --backend perf --format json -o "$dir/perf.json" 2>"$dir/perf.err"
	st=$?
	if [ $st -ne 0 ]; then
		bad perf-exit-0 "exit $st: $(cat "$dir/perf.err")"
		tested=1
		break
	fi
	if ! grep -q '"backend_notes": "[^"]*reading in a page not resident' "$dir/perf.json"; then
		echo "try $try: the target wrote the page itself during the read; another target"
		continue
	fi
	ok perf-exit-0-read-in
	"$bin" --pid "$pid" --backend iter --format json -o "$dir/iter.json" 2>"$dir/iter.err" ||
		bad iter "$(cat "$dir/iter.err")"
	p=$(totals "$dir/perf.json" 2>&1) i=$(totals "$dir/iter.json" 2>&1)
	[ "$p" = "$i" ] && [ "${p%% *}" = complete ] && ok perf-equals-iter ||
		bad perf-equals-iter "perf: $p; iter: $i"
	got=$(pagemap)
	[ "$got" = zero-page ] && ok after-zero-page || bad after-zero-page "$got"
	tested=1
	break
done
[ -n "$tested" ] || bad untouched-page "3 targets wrote their page before perf could read it"

echo "nonresident: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
