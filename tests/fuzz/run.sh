#!/usr/bin/env bash
# run.sh - run the libFuzzer harnesses of tests/fuzz/:
#
#   run.sh SECONDS build/fuzz/fuzz_<name>...
#
# First the seed corpora are rebuilt from real inputs (seeds.py, after the
# unit tests' Go fixtures, amd64 and arm64). Then, for each harness, FUZZ_JOBS (2) at a
# time: its regression inputs, tests/fuzz/regressions/<name>/*, are
# replayed, and it fuzzes for SECONDS from build/fuzz/corpus/<name> (what
# earlier runs found: kept, and trimmed past TRIM_MB) and
# build/fuzz/seeds/<name>. One line per harness gives libFuzzer's final
# stats: executions, coverage (cov: edges, ft: features), corpus. A crash, leak, hang (-timeout), allocation over
# -malloc_limit_mb or regression that fails fails the run; the input is
# left in build/fuzz/crashes/<name>/, to be fixed and then committed under
# tests/fuzz/regressions/<name>/.
set -uo pipefail
shopt -s nullglob
cd "$(dirname "$0")/../.."

secs=${1:?usage: run.sh SECONDS HARNESS...}
shift
jobs=${FUZZ_JOBS:-2}
out=build/fuzz
export GH_FIXTURES=${GH_FIXTURES:-$PWD/build/fixtures}
export UBSAN_OPTIONS=print_stacktrace=1

{ bash tests/unit/fixtures/gobins.sh "$GH_FIXTURES" &&
	bash tests/unit/fixtures/arm64.sh "$GH_FIXTURES"; } ||
	{ echo "fuzz: the Go fixtures could not be built" >&2; exit 1; }
python3 tests/fuzz/seeds.py "$out/seeds" ||
	{ echo "fuzz: the seed corpora could not be built" >&2; exit 1; }

# A kept corpus past TRIM_MB (512; pclntab's inputs are whole tables of
# ~1 MB) is cut to the inputs that still add coverage (libFuzzer's merge),
# so that nightly runs do not grow it without end.
trim() {
	local bin=$1 dir=$2
	(($(du -sm "$dir" | cut -f1) > ${TRIM_MB:-512})) || return 0
	rm -rf "$dir.new" && mkdir "$dir.new" &&
		"$bin" -merge=1 "$dir.new" "$dir" && rm -rf "$dir" &&
		mv "$dir.new" "$dir"
}

# One harness: replay, fuzz, summarise; its whole output goes to a log.
one() {
	local bin=$1 name=${1##*/fuzz_} log=$out/logs/${1##*/}.log
	local reg=(tests/fuzz/regressions/"$name"/*) stats
	mkdir -p "$out/corpus/$name" "$out/seeds/$name" "$out/crashes/$name" "$out/logs"
	: >"$log"
	if ((${#reg[@]})) && ! "$bin" "${reg[@]}" >>"$log" 2>&1; then
		echo "fuzz: $name: FAIL: a regression input crashes it (see $log)"
		return 1
	fi
	trim "$bin" "$out/corpus/$name" >>"$log" 2>&1
	if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-malloc_limit_mb=256 -print_final_stats=1 \
		-artifact_prefix="$out/crashes/$name/" \
		"$out/corpus/$name" "$out/seeds/$name" >>"$log" 2>&1; then
		echo "fuzz: $name: FAIL: input left in $out/crashes/$name/ (see $log):"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -5
		return 1
	fi
	# "#N DONE cov: ..." -> "N executions, cov: ...".
	stats=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 |
		sed -E 's/^#([0-9]+)[[:space:]]+DONE[[:space:]]+/\1 executions, /')
	echo "fuzz: $name: ${stats:-no final stats}; ${#reg[@]} regressions replayed"
}

fail=0 running=0
for bin in "$@"; do
	if ((running == jobs)); then
		wait -n || fail=1
		running=$((running - 1))
	fi
	one "$bin" &
	running=$((running + 1))
done
while ((running)); do
	wait -n || fail=1
	running=$((running - 1))
done
[ "$fail" -eq 0 ] && echo "fuzz: $# harnesses, ${secs} s each, no crash"
exit "$fail"
