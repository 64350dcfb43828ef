#!/usr/bin/env bash
# run.sh - goheap-bpf's end-to-end test: every supported Go release, plain
# and PIE, at three sampling rates. A target (tests/targets/heapgen) writes
# its own heap profile with runtime/pprof and idles; goheap-bpf then reads
# the same process from outside and must produce the same profile
# (cmpprof), a JSON document with status "complete", and a top table whose
# first row agrees with `go tool pprof -top` on the target's own profile.
#
#   tests/integration/run.sh BIN
#
# Targets are built 2 at a time and cached under build/targets/<version>/
# {exe,pie}/; each case keeps its files under build/integration/<case>/.
# Needs root (BPF). Environment: GO_VERSIONS="1.21.13 1.27.4" limits the
# releases, RATES="1 4096" the sampling rates, BACKEND=procmem reads with
# that backend (and checks the JSON names it) instead of --backend auto;
# BACKEND=perf-bounded is --backend perf with the program for kernels
# without bpf_loop (the kernel's BTF, as goheap-bpf sees it, made to lack
# the helper).
set -uo pipefail

NAME=integration
. "$(dirname "$0")/lib.sh"
setup "$@"
read -r -a rates <<<"${RATES:-1 4096 524288}"
modes=(exe pie)
backend=${BACKEND:-auto}
out=$PWD/build/integration/$backend
mkdir -p "$out"
flag=$backend
if [ "$backend" = perf-bounded ]; then
	flag=perf
	# A copy of this kernel's BTF in which BPF_FUNC_loop is renamed.
	export GOHEAP_SYSFS_BTF=$out/vmlinux-without-loop
	python3 -c 'import sys
btf = open("/sys/kernel/btf/vmlinux", "rb").read()
name = b"BPF_FUNC_loop\0"
assert btf.count(name) == 1, "no BPF_FUNC_loop in the kernel BTF"
open(sys.argv[1], "wb").write(btf.replace(name, b"BPF_FUNC_lxop\0"))' "$GOHEAP_SYSFS_BTF" ||
		die "cannot make a kernel BTF without bpf_loop"
fi
start=$(date +%s)

# ---- targets ----
build_targets "${modes[@]}"
echo "integration: targets built ($(($(date +%s) - start)) s)"

# ---- the comparator, and its self-test ----
cmpprof=$out/cmpprof
(cd tests/integration/cmpprof && "$hostgo" build -o "$cmpprof" . && "$hostgo" test . >"$out/cmpprof-test.log" 2>&1) ||
	{ cat "$out/cmpprof-test.log" 2>/dev/null; die "cmpprof did not build or failed its self-test"; }
echo "integration: cmpprof self-test passed"

# ---- the matrix ----
target=
trap kill_target EXIT
trap 'exit 130' INT TERM

# field_of FILE NAME: the JSON document's top-level field NAME.
field_of() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' "$1" "$2" 2>&1
}

status_of() {
	field_of "$1" status
}

# run_case VERSION MODE RATE: 0 when every check passed; the reasons of
# failures go to stdout, indented.
run_case() {
	local v=$1 m=$2 rate=$3 dir=$out/$1-$2-$3 ok=0 st
	rm -rf "$dir"
	mkdir -p "$dir"
	# The perf backend reads a target only while it runs: keep it on a CPU.
	HEAPGEN_SPIN=$([ "$flag" = perf ] && echo 1) \
		HEAPGEN_RATE=$rate HEAPGEN_PROFILE=$dir/theirs.pb.gz HEAPGEN_READY=$dir/ready \
		"build/targets/$v/$m/heapgen" >"$dir/target.log" 2>&1 &
	target=$!
	if ! wait_file "$dir/ready" "$target"; then
		echo "    target not ready: $(tail -3 "$dir/target.log")"
		return 1
	fi

	compare "$dir/theirs.pb.gz" "$dir/ours.pb.gz" pprof --backend "$flag" -v || ok=1
	if [ "$backend" = perf-bounded ] && ! grep -q "prog 'goheap_perf': skipped loading" "$dir/pprof.err"; then
		echo "    pprof: the program with bpf_loop was loaded (see pprof.err)"
		ok=1
	fi

	timeout 120 "$bin" --backend "$flag" --pid "$target" --format json >"$dir/ours.json" 2>"$dir/json.err"
	st=$?
	if [ $st -ne 0 ]; then
		echo "    --format json: exit $st: $(head -c 400 "$dir/json.err")"
		ok=1
	elif ! python3 -m json.tool "$dir/ours.json" >/dev/null 2>"$dir/json.check"; then
		echo "    --format json: not JSON: $(head -c 300 "$dir/json.check")"
		ok=1
	elif [ "$(status_of "$dir/ours.json")" != complete ]; then
		echo "    --format json: status $(status_of "$dir/ours.json"), want complete"
		ok=1
	elif [ "$flag" != auto ] && [ "$(field_of "$dir/ours.json" backend)" != "$flag" ]; then
		echo "    --format json: backend $(field_of "$dir/ours.json" backend), want $flag"
		ok=1
	fi

	timeout 120 "$bin" --backend "$flag" --pid "$target" >"$dir/ours.top" 2>"$dir/top.err"
	st=$?
	if [ $st -ne 0 ]; then
		echo "    top: exit $st: $(head -c 400 "$dir/top.err")"
		ok=1
	elif ! "$hostgo" tool pprof -symbolize=none -top -unit=B -sample_index=inuse_space \
		"$dir/theirs.pb.gz" >"$dir/theirs.top" 2>"$dir/theirs.top.err"; then
		echo "    go tool pprof -top failed: $(head -c 300 "$dir/theirs.top.err")"
		ok=1
	elif ! python3 tests/integration/topflat.py "$dir/ours.top" "$dir/theirs.top" >"$dir/topflat.txt" 2>&1; then
		sed 's/^/    /' "$dir/topflat.txt"
		ok=1
	fi

	kill_target
	return $ok
}

pass=0 fail=0
run_matrix "$backend" "build/integration/$backend"
echo "integration: backend $backend, $(($(date +%s) - start)) s"
echo "integration: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
