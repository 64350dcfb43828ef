#!/usr/bin/env bash
# bounds.sh - the resource bounds: each one met on a 200k-bucket target
# (tools/bench/benchgen) ends the read partial (status 11) with a reason
# naming it, in every backend it applies to, within the bound:
#
#   --max-buckets 1000      "bucket budget", exactly 1000 buckets read
#   --max-stack-depth 3     "deeper than the bound of 3 frames"
#   --max-read-mb 1         "read budget", at most ~1 MiB received
#   --max-target-ms 2       perf: "CPU budget", the target's CPU for the
#                           walk (reported with -v) at most ~2 ms + a slice
#   --timeout 1ms           13, "deadline" (the request cannot even start)
#
# and perf under a low descriptor limit: the soft limit raised to the hard
# one; under a low hard limit, the threads that fit watched, and said so.
#
#   tests/integration/bounds.sh BIN      (needs root)
set -uo pipefail

NAME=bounds
. "$(dirname "$0")/lib.sh"
setup "$@"
out=$PWD/build/bounds
rm -rf "$out"
mkdir -p "$out"
build_benchgen "$out"

BENCHGEN_BUCKETS=200000 "$benchgen" >"$out/target.out" &
pid=$!
trap 'kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 600); do [ -s "$out/target.out" ] && break; sleep 0.1; done
[ -s "$out/target.out" ] || die "benchgen did not start"
kill -USR1 "$pid" # tick: perf reads only a target that runs

pass=0 fail=0
field_of() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' "$1" "$2" 2>&1
}

# check NAME WANT-STATUS REASON-RE PYTHON-CONDITION ARGS...: run with ARGS,
# JSON out; the condition sees d (the document) and err (stderr).
check() {
	local name=$1 want=$2 re=$3 cond=$4 st why=
	shift 4
	timeout 60 "$bin" --pid "$pid" --format json --top 1 -v "$@" >"$out/$name.json" 2>"$out/$name.err"
	st=$?
	[ $st -eq "$want" ] || why="exit status $st, want $want"
	[ -n "$why" ] || grep -Eq -- "$re" <<<"$(field_of "$out/$name.json" status_reason)" ||
		why="reason '$(field_of "$out/$name.json" status_reason)' does not match /$re/"
	[ -n "$why" ] || python3 -c "import json, re, sys
d = json.load(open(sys.argv[1])); err = open(sys.argv[2]).read()
sys.exit(0 if ($cond) else 1)" "$out/$name.json" "$out/$name.err" || why="not within the bound: $cond"
	if [ -z "$why" ]; then
		pass=$((pass + 1)); echo "PASS $name: $(field_of "$out/$name.json" status_reason)"
	else
		fail=$((fail + 1)); echo "FAIL $name: $why"
	fi
}

for b in iter perf procmem; do
	check "buckets-$b" 11 "bucket budget" 'd["buckets"] == 1000' --backend "$b" --max-buckets 1000
	check "stack-$b" 11 "deeper than the bound of 3 frames" 'd["buckets"] == 0' --backend "$b" --max-stack-depth 3
	check "bytes-$b" 11 "read budget" \
		'int(re.search(r"(\d+) bytes received", err).group(1)) < 2 << 20' \
		--backend "$b" --max-read-mb 1
done
# perf's walk runs in the target: bounded by --max-target-ms, and reported.
check target-cpu 11 "CPU budget of 2 ms" \
	'float(re.search(r"([0-9.]+) ms of the target.s CPU", err).group(1)) <= 2.5' \
	--backend perf --max-target-ms 2
check timeout 13 "deadline" 'd["buckets"] == 0' --timeout 1ms

# perf needs four descriptors a thread: it raises a low soft limit to the
# hard one, and under a low hard limit watches what fits and says so.
lim() { # NAME SOFT HARD(- = as is) WANT-STATUS RE
	(ulimit -Sn "$2" && { [ "$3" = - ] || ulimit -Hn "$3"; } &&
		exec "$bin" --pid "$pid" --backend perf --format json --top 1) \
		>"$out/$1.json" 2>"$out/$1.err"
	local st=$?
	if [ $st -eq "$4" ] && grep -Eq -- "$5" "$out/$1.json" "$out/$1.err"; then
		pass=$((pass + 1)); echo "PASS $1: exit $st"
	else
		fail=$((fail + 1)); echo "FAIL $1: exit $st, want $4 and /$5/: $(head -c 300 "$out/$1.err")"
	fi
}
lim fd-soft 70 - 0 '"status": "complete"'
lim fd-hard 70 70 13 "watched 0 of the process's [0-9]+ threads"

echo "bounds: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
