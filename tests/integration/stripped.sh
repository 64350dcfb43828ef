#!/usr/bin/env bash
# stripped.sh - the --pid equality test on stripped builds: for every
# supported Go release, tests/targets/heapgen built with -ldflags='-s -w'
# as an executable and as a PIE writes its own heap profile (runtime/pprof)
# and idles; goheap-bpf reads the process from outside and its profile
# must equal the target's (tests/integration/cmpprof, as run.sh uses it).
#
#   tests/integration/stripped.sh BIN
#
# Needs root (BPF). Environment: GO_VERSIONS="1.21.13 1.27.4" limits the
# releases, RATE (default 4096) sets the sampling rate. Files per case
# under build/integration/stripped-<version>-<mode>/.
set -uo pipefail

NAME=stripped
. "$(dirname "$0")/lib.sh"
setup "$@"
rate=${RATE:-4096}
out=$PWD/build/integration
mkdir -p "$out"
root=$PWD
src=$root/tests/targets/heapgen

build_cmpprof "$out"

# build VERSION MODE: the stripped heapgen, rebuilt when missing.
build() {
	local goroot dir=build/targets/stripped/$1/$2
	goroot=$(tools/go-toolchains.sh goroot "$1") || return 1
	mkdir -p "$dir"
	[ -x "$dir/heapgen" ] && [ "$dir/heapgen" -nt "$src/main.go" ] && return 0
	(cd "$src" && GOROOT=$goroot GOTOOLCHAIN=local GOENV=off GOFLAGS= GO111MODULE=on \
		"$goroot/bin/go" build -buildmode="$2" -ldflags='-s -w' -o "$root/$dir/heapgen" main.go) \
		>"$dir/build.log" 2>&1
}

target_pid=
cleanup() {
	if [ -n "$target_pid" ]; then
		kill -9 "$target_pid" 2>/dev/null
		wait "$target_pid" 2>/dev/null
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run_case VERSION MODE: 0 when goheap-bpf's profile equals the target's.
run_case() {
	local v=$1 m=$2 dir=$out/stripped-$1-$2 ok=0 i st
	rm -rf "$dir"
	mkdir -p "$dir"
	if ! build "$v" "$m"; then
		echo "    build failed: $(tail -3 "build/targets/stripped/$v/$m/build.log")"
		return 1
	fi
	HEAPGEN_RATE=$rate HEAPGEN_PROFILE=$dir/theirs.pb.gz HEAPGEN_READY=$dir/ready \
		"build/targets/stripped/$v/$m/heapgen" >"$dir/target.log" 2>&1 &
	target_pid=$!
	for ((i = 0; i < 300; i++)); do
		[ -e "$dir/ready" ] && break
		kill -0 "$target_pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ ! -e "$dir/ready" ]; then
		echo "    target not ready after 30 s: $(tail -3 "$dir/target.log")"
		ok=1
	else
		timeout 120 "$bin" --pid "$target_pid" --format pprof --output "$dir/ours.pb.gz" 2>"$dir/pprof.err"
		st=$?
		if [ $st -ne 0 ]; then
			echo "    --format pprof: exit $st: $(head -c 400 "$dir/pprof.err")"
			ok=1
		elif ! "$cmpprof" "$dir/theirs.pb.gz" "$dir/ours.pb.gz" >"$dir/cmpprof.txt" 2>&1; then
			sed 's/^/    /' "$dir/cmpprof.txt" | head -40
			ok=1
		else
			tail -1 "$dir/cmpprof.txt" | sed 's/^/    /'
		fi
	fi
	kill -9 "$target_pid" 2>/dev/null
	wait "$target_pid" 2>/dev/null
	target_pid=
	return $ok
}

pass=0 fail=0
for v in "${versions[@]}"; do
	for m in exe pie; do
		if run_case "$v" "$m" >"$out/stripped-report"; then
			pass=$((pass + 1))
			echo "PASS go$v stripped $m rate=$rate"
		else
			fail=$((fail + 1))
			echo "FAIL go$v stripped $m rate=$rate (files in build/integration/stripped-$v-$m)"
		fi
		cat "$out/stripped-report"
	done
done
echo "stripped: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
