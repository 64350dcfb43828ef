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

build_targets exe-stripped pie-stripped
build_cmpprof "$out"

target=
trap 'kill -9 $target 2>/dev/null; wait $target 2>/dev/null' EXIT
trap 'exit 130' INT TERM

# run_case VERSION MODE: 0 when goheap-bpf's profile equals the target's.
run_case() {
	local v=$1 m=$2 dir=$out/stripped-$1-$2 ok=0
	rm -rf "$dir"
	mkdir -p "$dir"
	HEAPGEN_RATE=$rate HEAPGEN_PROFILE=$dir/theirs.pb.gz HEAPGEN_READY=$dir/ready \
		"build/targets/$v/$m-stripped/heapgen" >"$dir/target.log" 2>&1 &
	target=$!
	if ! wait_file "$dir/ready" "$target"; then
		echo "    target not ready: $(tail -3 "$dir/target.log")"
		ok=1
	else
		compare "$dir/theirs.pb.gz" "$dir/ours.pb.gz" pprof || ok=1
	fi
	kill -9 "$target" 2>/dev/null
	wait "$target" 2>/dev/null
	target=
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
