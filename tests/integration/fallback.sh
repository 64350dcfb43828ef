#!/usr/bin/env bash
# fallback.sh - the backend choice: --backend auto passes over a backend
# that cannot work here (no BTF for the iterator, no CAP_BPF for either BPF
# backend, a kernel lacking what they need, an iterator whose load fails,
# a target that never runs for perf), says why in the JSON, and
# still gives a complete profile; --backend perf on a target that does not
# run fails with status 13 (not read in time) and a message that names the
# way out. The target is stopped (SIGSTOP) while perf is asked to read it:
# an idle Go program still wakes now and then (a forced GC, the
# scavenger), and a wake-up inside perf's wait let perf read it.
#
#   tests/integration/fallback.sh BIN       (needs root)
set -uo pipefail
bin=$(realpath -e "${1:?usage: fallback.sh BIN}") || exit 1
cd "$(dirname "$0")/../.." || exit 1
[ "$(id -u)" -eq 0 ] || { echo "fallback: needs root (BPF, CAP_SYS_PTRACE)" >&2; exit 1; }

v=$(tools/go-toolchains.sh list | tail -1)
target=build/targets/$v/exe/heapgen
tests/targets/build.sh heapgen exe "$(tools/go-toolchains.sh goroot "$v")" "$target" || exit 1
dir=$(mktemp -d)
trap 'kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
HEAPGEN_RATE=4096 HEAPGEN_PROFILE=$dir/own.pb.gz HEAPGEN_READY=$dir/ready "$target" &
pid=$!
for _ in $(seq 300); do [ -e "$dir/ready" ] && break; sleep 0.1; done
[ -e "$dir/ready" ] || { echo "fallback: target did not start" >&2; exit 1; }

pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }

# check NAME JSON-FILE WANT: complete, the backend and the notes as WANT.
check() {
	local got
	got=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
n = d["backend_notes"]
print(d["status"], d["backend"], "iter:" in n, "perf:" in n)' "$2" 2>&1)
	[ "$got" = "$3" ] && ok "$1" || bad "$1" "$got, want $3"
}

# A stopped target never runs, so perf has nothing to ride on; procmem
# reads a stopped process as any other (the trap's kill -9 ends it).
kill -STOP $pid

GOHEAP_SYSFS_BTF=/nonexistent "$bin" --pid "$pid" --format json >"$dir/nobtf.json" 2>/dev/null
check auto-without-btf "$dir/nobtf.json" "complete procmem True True"

setpriv --bounding-set=-bpf,-perfmon,-sys_admin --inh-caps=-bpf,-perfmon,-sys_admin \
	"$bin" --pid "$pid" --format json >"$dir/nocap.json" 2>/dev/null
check auto-without-cap-bpf "$dir/nocap.json" "complete procmem True True"

# A kernel (its BTF, as goheap-bpf reads it) without what iter and perf
# need: both refused before their BPF is loaded, each note naming the
# release it needs, and nothing on stderr (no verifier log without -v).
python3 -c 'import sys
btf = open("/sys/kernel/btf/vmlinux", "rb").read()
for h in (b"copy_from_user_task", b"ringbuf_output"):
    name = b"BPF_FUNC_" + h + b"\0"
    assert btf.count(name) == 1, name
    btf = btf.replace(name, name[:-2] + b"x\0")
open(sys.argv[1], "wb").write(btf)' "$dir/vmlinux-lacking" || exit 1
GOHEAP_SYSFS_BTF=$dir/vmlinux-lacking "$bin" --pid "$pid" --format json >"$dir/lacking.json" 2>"$dir/lacking.err"
check auto-kernel-lacking "$dir/lacking.json" "complete procmem True True"
if [ -s "$dir/lacking.err" ]; then
	bad auto-kernel-lacking-quiet "stderr: $(head -3 "$dir/lacking.err")"
elif ! python3 -c 'import json, sys
n = json.load(open(sys.argv[1]))["backend_notes"]
sys.exit(not ("Linux 5.18+" in n and "Linux 5.12+" in n))' "$dir/lacking.json"; then
	bad auto-kernel-lacking-quiet "notes do not name 5.18 and 5.12: $(cat "$dir/lacking.json" | head -c 600)"
else
	ok auto-kernel-lacking-quiet
fi

# A load that fails after the probes passed (the iterator's CO-RE
# relocations against a BTF whose task_struct is renamed): auto moves on
# with nothing on stderr; libbpf's lines are -v's.
python3 -c 'import sys
btf = open("/sys/kernel/btf/vmlinux", "rb").read()
name = b"\0task_struct\0"
assert btf.count(name) == 1, name
open(sys.argv[1], "wb").write(btf.replace(name, b"\0task_strucx\0"))' "$dir/vmlinux-notask" || exit 1
GOHEAP_SYSFS_BTF=$dir/vmlinux-notask "$bin" --pid "$pid" --format json >"$dir/notask.json" 2>"$dir/notask.err"
GOHEAP_SYSFS_BTF=$dir/vmlinux-notask "$bin" --pid "$pid" --format json -v >/dev/null 2>"$dir/notask-v.err"
check auto-load-fails "$dir/notask.json" "complete procmem True True"
if [ -s "$dir/notask.err" ]; then
	bad auto-load-fails-quiet "stderr: $(head -3 "$dir/notask.err")"
elif ! grep -q '^libbpf: ' "$dir/notask-v.err"; then
	bad auto-load-fails-quiet "-v shows no libbpf line: $(head -3 "$dir/notask-v.err")"
else
	ok auto-load-fails-quiet
fi

"$bin" --pid "$pid" --backend perf --format pprof --output "$dir/perf.pb.gz" 2>"$dir/perf.err"
st=$?
if [ $st -eq 13 ] && [ "$(wc -l <"$dir/perf.err")" -eq 1 ] &&
	grep -q "did not run" "$dir/perf.err" && grep -q -- "--backend iter" "$dir/perf.err" &&
	[ ! -e "$dir/perf.pb.gz" ]; then
	ok perf-stopped-target
else
	bad perf-stopped-target "exit $st: $(cat "$dir/perf.err")"
fi

echo "fallback: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
