#!/usr/bin/env bash
# busy.sh - snapshots of busy programs, whose garbage collector runs on its
# own while they are read (tests/targets/churn: a live heap through many
# stacks, garbage allocated at a rate the test sets, so the GC period is
# the test's choice).
#
#   slow GC (a cycle every second or so, longer than a read): for every
#   supported release (and every backend on the newest), goheap-bpf's
#   profile must be one GC cycle's, equal to the target's own: the test
#   notes the target's GC count, reads it, then has it write its own
#   profile noting its GC count before and after; when no cycle ended
#   from the first note to the last, published data did not change, and
#   the two profiles must be equal (cmpprof). The JSON status must be
#   "complete".
#   fast GC (cycles every few milliseconds, shorter than any read of a
#   200k-bucket heap): the result is usable and says so: exit status 0,
#   JSON status "mixed" naming how many cycles the counters come from, a
#   pprof file go tool pprof reads.
#
#   tests/integration/busy.sh BIN      (needs root)
set -uo pipefail

NAME=busy
. "$(dirname "$0")/lib.sh"
setup "$@"
out=$PWD/build/busy
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
newest=${versions[$((${#versions[@]} - 1))]}

# build_targets builds heapgen; churn the same way, two at a time.
for v in "${versions[@]}"; do echo "$v"; done | xargs -P 2 -I{} sh -c '
	tests/targets/build.sh churn exe "$(tools/go-toolchains.sh goroot {})" \
		build/targets/{}/exe/churn >build/busy/build-{}.log 2>&1 ||
		{ echo "busy: building churn with Go {} failed:"; cat build/busy/build-{}.log; exit 1; }
' || die "target builds failed"
build_cmpprof "$out"

pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; wait 2>/dev/null' EXIT

# start_churn VERSION MBPS STACKS: run it, wait until ready; sets pid, dir.
start_churn() {
	dir=$out/$1-$2
	mkdir -p "$dir"
	CHURN_PROFILE=$dir/own.pb.gz CHURN_MBPS=$2 CHURN_STACKS=$3 \
		"build/targets/$1/exe/churn" >"$dir/target.log" 2>&1 &
	pid=$!
	for _ in $(seq 600); do
		grep -q '^ready' "$dir/target.log" && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

stop_churn() {
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
}

# one_cycle BACKEND: up to 10 tries to see goheap-bpf's profile and the
# target's own within one GC cycle; 0 when they were, and equal. Not
# while the runtime publishes every future cycle (lib.sh's churn_settle).
one_cycle() {
	local flag=$1 try g0 g st
	churn_settle "$pid" "$dir/own.pb.gz" || { echo "    no GC count from the target"; return 1; }
	for try in $(seq 10); do
		g0=$(churn_gc "$pid" "$dir/own.pb.gz") || { echo "    no GC count from the target"; return 1; }
		timeout 120 "$bin" --pid "$pid" --backend "$flag" --format pprof \
			--output "$dir/ours.pb.gz" 2>"$dir/ours.err"
		st=$?
		kill -USR1 "$pid"
		g=$(await "$dir/own.pb.gz.gc") || { echo "    no profile from the target"; return 1; }
		if [ $st -ne 0 ]; then
			echo "    exit $st: $(head -c 300 "$dir/ours.err")"
			return 1
		fi
		# A cycle ended somewhere in between: no common cycle to compare.
		[ "$g" = "$g0 $g0" ] || continue
		if "$cmpprof" "$dir/own.pb.gz" "$dir/ours.pb.gz" >"$dir/cmp.txt" 2>&1; then
			echo "    $(tail -1 "$dir/cmp.txt") (GC cycle $g0, try $try)"
			return 0
		fi
		echo "    GC counts: before $g0, theirs $g"
		sed 's/^/    /' "$dir/cmp.txt" | head -20
		return 1
	done
	echo "    no try saw both profiles within one GC cycle"
	return 1
}

pass=0 fail=0
verdict() { # NAME REPORT-FILE STATUS
	if [ "$3" -eq 0 ]; then
		pass=$((pass + 1)) && echo "PASS $1"
	else
		fail=$((fail + 1)) && echo "FAIL $1"
	fi
	cat "$2"
}

field_of() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' "$1" "$2" 2>&1
}

# ---- slow GC: one cycle's profile, equal to the target's own ----
for v in "${versions[@]}"; do
	backends=(iter)
	[ "$v" = "$newest" ] && backends=(iter perf procmem)
	for b in "${backends[@]}"; do
		if ! start_churn "$v" 4 2000; then
			echo "    target not ready: $(tail -2 "$dir/target.log")" >"$out/report"
			verdict "go$v slow-gc $b" "$out/report" 1
			continue
		fi
		ok=0
		one_cycle "$b" >"$out/report" || ok=1
		timeout 120 "$bin" --pid "$pid" --backend "$b" --format json >"$dir/ours.json" 2>/dev/null
		s=$(field_of "$dir/ours.json" status)
		[ "$s" = complete ] || { echo "    JSON status $s, want complete" >>"$out/report"; ok=1; }
		stop_churn
		verdict "go$v slow-gc $b" "$out/report" $ok
	done
done

# ---- fast GC: usable, and saying so ----
if start_churn "$newest" 3000 200000; then
	ok=0
	: >"$out/report"
	timeout 120 "$bin" --pid "$pid" --format json --top 5 >"$dir/ours.json" 2>"$dir/json.err"
	st=$?
	s=$(field_of "$dir/ours.json" status)
	r=$(field_of "$dir/ours.json" status_reason)
	if [ $st -ne 0 ] || [ "$s" != mixed ] || ! grep -Eq '[0-9]+ GC cycles' <<<"$r"; then
		echo "    json: exit $st, status $s ($r), want 0 and mixed naming the cycles" >>"$out/report"
		ok=1
	else
		echo "    json: $r" >>"$out/report"
	fi
	timeout 120 "$bin" --pid "$pid" --format pprof --output "$dir/ours.pb.gz" 2>"$dir/pprof.err"
	st=$?
	if [ $st -ne 0 ] || ! "$hostgo" tool pprof -raw "$dir/ours.pb.gz" >/dev/null 2>&1; then
		echo "    pprof: exit $st ($(head -c 200 "$dir/pprof.err")) or unreadable" >>"$out/report"
		ok=1
	fi
	stop_churn
	verdict "go$newest fast-gc" "$out/report" $ok
else
	echo "    target not ready: $(tail -2 "$dir/target.log")" >"$out/report"
	verdict "go$newest fast-gc" "$out/report" 1
fi

echo "busy: $(($(date +%s) - start)) s"
echo "busy: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
