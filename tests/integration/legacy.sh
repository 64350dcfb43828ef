#!/usr/bin/env bash
# legacy.sh - the legacy text (--format legacy: runtime/pprof's heap
# profile at debug=1, net/http/pprof's /debug/pprof/heap?debug=1) against
# the target's own. heapgen writes its own legacy text (HEAPGEN_TEXT), then
# idles; goheap-bpf reads it from outside, and the two must have the same
# header line and the same records, each to the byte, sorted as the
# release sorts them, in the same order when the target's writing made
# no new bucket (legacycmp.py). Every supported release, plain and
# PIE, at two sampling rates. GOGC=off keeps the runtime from collecting
# after the target's own snapshot (heapgen's explicit collections still
# run): the counters a collection publishes would differ.
#
#   tests/integration/legacy.sh BIN
#
# Environment: GO_VERSIONS="1.19.13 1.27.4" limits the releases, RATES the
# sampling rates (default "1 4096"). Needs root (BPF).
set -uo pipefail

NAME=legacy
. "$(dirname "$0")/lib.sh"
setup "$@"
read -r -a rates <<<"${RATES:-1 4096}"
modes=(exe pie)
out=$PWD/build/integration/legacy
mkdir -p "$out"
start=$(date +%s)
build_targets "${modes[@]}"

target=
trap kill_target EXIT
trap 'exit 130' INT TERM

# run_case VERSION MODE RATE: 0 when the texts agree; reasons on stdout.
run_case() {
	local v=$1 m=$2 rate=$3 dir=$out/$1-$2-$3 ok=0 st minor
	rm -rf "$dir"
	mkdir -p "$dir"
	GOGC=off HEAPGEN_RATE=$rate HEAPGEN_TEXT=$dir/theirs.txt \
		HEAPGEN_PROFILE=$dir/theirs.pb.gz HEAPGEN_READY=$dir/ready \
		"build/targets/$v/$m/heapgen" >"$dir/target.log" 2>&1 &
	target=$!
	if ! wait_file "$dir/ready" "$target"; then
		echo "    target not ready: $(tail -3 "$dir/target.log")"
		return 1
	fi
	timeout 120 "$bin" --pid "$target" --format legacy --output "$dir/ours.txt" 2>"$dir/ours.err"
	st=$?
	if [ $st -ne 0 ]; then
		echo "    --format legacy: exit $st: $(head -c 400 "$dir/ours.err")"
		ok=1
	else
		minor=$(echo "$v" | cut -d. -f2)
		python3 tests/integration/legacycmp.py "$minor" "$dir/theirs.txt" "$dir/ours.txt" >"$dir/cmp.txt" 2>&1 || ok=1
		if [ $ok -ne 0 ]; then
			head -40 "$dir/cmp.txt" | sed 's/^/    /'
		else
			tail -1 "$dir/cmp.txt" | sed 's/^/    /'
		fi
	fi
	kill_target
	return $ok
}

pass=0 fail=0
run_matrix "legacy" "build/integration/legacy"
echo "legacy: $(($(date +%s) - start)) s"
echo "legacy: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
