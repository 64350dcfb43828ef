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
# The goroutine profile on tests/targets/goroutines with 200k goroutines
# parked at eight stacks (GOROUTINES_PARKED), iter and procmem:
#
#   --max-goroutines 150000  11, "more than --max-goroutines 150000",
#                            the debug=1 total at most 150000 (and most
#                            of them: they are parked)
#   the whole read (procmem, debug=0 and debug=1) under G_RSS_MIB (80)
#                            MiB of peak RSS: the stacks are kept once,
#                            not per goroutine (each goroutine's copy
#                            took about 100 MiB at 200k)
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

# The goroutine profile's bounds (see the top).
G_RSS_MIB=${G_RSS_MIB:-80}
gdir=build/targets/bounds
mkdir -p "$gdir"
tests/targets/build.sh goroutines exe "$(tools/go-toolchains.sh goroot "$(tools/go-toolchains.sh list | tail -1)")" \
	"$gdir/goroutines" >"$out/goroutines.build" 2>&1 || die "building the goroutines target failed"
GOROUTINES_PARKED=200000 GOROUTINES_READY=$out/g.ready "$gdir/goroutines" >/dev/null 2>&1 &
gpid=$!
trap 'kill -9 $pid $gpid 2>/dev/null; wait $pid $gpid 2>/dev/null' EXIT
for _ in $(seq 600); do [ -f "$out/g.ready" ] && break; sleep 0.1; done
[ -f "$out/g.ready" ] || die "the goroutines target did not get ready"
for b in iter procmem; do
	timeout 120 "$bin" --pid "$gpid" --profile goroutine --backend "$b" --format legacy \
		--max-goroutines 150000 --output "$out/g-max-$b.txt" 2>"$out/g-max-$b.err"
	st=$?
	total=$(sed -n '1s/^goroutine profile: total \([0-9]*\)$/\1/p' "$out/g-max-$b.txt")
	if [ $st -eq 11 ] && grep -q 'more than --max-goroutines 150000' "$out/g-max-$b.err" &&
		[ -n "$total" ] && [ "$total" -le 150000 ] && [ "$total" -ge 140000 ]; then
		pass=$((pass + 1)); echo "PASS goroutines-max-$b: exit 11, $total goroutines"
	else
		fail=$((fail + 1)); echo "FAIL goroutines-max-$b: exit $st, total '$total': $(head -c 300 "$out/g-max-$b.err")"
	fi
done
for f in pprof legacy; do
	# Under AddressSanitizer (make test's build) freed memory is held in
	# its quarantine (up to 256 MiB): the bound is on what the reader
	# keeps, so the quarantine is off for this measurement.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 \
		/usr/bin/time -f %M -o "$out/g-rss-$f.kb" timeout 120 "$bin" --pid "$gpid" --profile goroutine \
		--backend procmem --format $f --output "$out/g-rss-$f.out" 2>"$out/g-rss-$f.err"
	st=$?
	kb=$(tail -1 "$out/g-rss-$f.kb")
	if [ $st -eq 0 ] && [ "$kb" -lt $((G_RSS_MIB * 1024)) ]; then
		pass=$((pass + 1)); echo "PASS goroutines-rss-$f: 200k goroutines read in $((kb / 1024)) MiB"
	else
		fail=$((fail + 1)); echo "FAIL goroutines-rss-$f: exit $st, peak RSS $kb KiB (bound $G_RSS_MIB MiB): $(head -c 300 "$out/g-rss-$f.err")"
	fi
done

echo "bounds: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
