#!/usr/bin/env bash
# blockmutex.sh - the block and mutex profiles (--profile block, mutex)
# equal to the target's own. tests/targets/contend turns both on and
# contends from several call sites (channels, select, sync.Mutex through
# inlined helpers, Cond, WaitGroup); it writes its own profiles
# (runtime/pprof, debug=0) when asked through a file, which adds no event
# to them. For every release, plain (exe), and for the oldest and newest
# also PIE:
#
#   live   while it contends: its own profile, then ours with each backend
#          (iter, procmem, perf), then its own again. Counters only grow,
#          so each stack of ours must lie between its two
#          (cmpprof -bracket): same sample types, period type and period,
#          no stack of ours missing from the later one, none of the
#          earlier one missing from ours, every value within.
#   exact  once it stopped contending (every worker returned): its own
#          profile and ours (iter, procmem; perf needs a running target)
#          must be equal (cmpprof: same stacks, values, scaling, mappings).
#          This is the check that cannot pass falsely: nothing of the
#          program moves between the reads, so any difference is ours.
#          Some stacks are the runtime's own: its internal lock contention
#          (1.22+: leaf runtime._LostContendedRuntimeLock, or from 1.25
#          runtime.unlock with the runtime's stack) grows while the
#          program writes its profiles and collects (seen: 1-2 events
#          between two reads). Ours must equal its own written just
#          before without those (cmpprof -drop), and every stack, those
#          too, lie between that one and one written just after
#          (-bracket).
#          The ?debug=1 text too (--format legacy, iter and procmem):
#          the target's own (WriteTo(w, 1), written with each profile)
#          header byte for byte and each record line for line, frames
#          and tabwriter alignment included (contentioncmp.py; a record
#          the program's own writing made meanwhile as its next text has
#          it, the runtime's own lock records left out).
#   lazy   (exe) ours read before the program computed its ticks per
#          second, then its own: same stacks and counts, delays within
#          1e-4, and the notes saying the ticks were computed.
#
# Then, for the newest release: serve's /pid/PID/debug/pprof/block and
# /mutex of a stopped target equal to its own (as exact), ?debug=1 its
# own text (as exact), ?seconds=1 a delta named block-delta, mutex-delta,
# and 404 naming the call for a target that never turned them on; a
# target that never turned them on ends 6,
# naming runtime.SetBlockProfileRate / SetMutexProfileFraction, its JSON
# document status unavailable; a stripped one ends 5 naming the cause.
#
#   tests/integration/blockmutex.sh BIN      (needs root)
set -uo pipefail

NAME=blockmutex
. "$(dirname "$0")/lib.sh"
setup "$@"
out=$PWD/build/blockmutex
rm -rf "$out"
mkdir -p "$out"
build_cmpprof "$out"
modes=(exe pie)
newest=${versions[$((${#versions[@]} - 1))]}
live_backends=(iter procmem perf)
exact_backends=(iter procmem)
# Leaves of the runtime's own lock contention in the mutex profile (1.22+):
# stacks through runtime.unlock, or this placeholder without them.
runtime_locks=runtime._LostContendedRuntimeLock,runtime.unlock
pass=0 fail=0
target=
trap kill_target EXIT

# build MODE VERSION: tests/targets/contend built into
# build/targets/VERSION/MODE/contend (cached by build.sh); sets exe.
build() {
	local goroot dir=build/targets/$2/$1
	goroot=$(tools/go-toolchains.sh goroot "$2") || die "no Go $2 toolchain"
	mkdir -p "$dir"
	tests/targets/build.sh contend "$1" "$goroot" "$dir/contend" >"$dir/contend.log" 2>&1 ||
		{ cat "$dir/contend.log"; die "building contend with Go $2 ($1) failed"; }
	exe=$dir/contend
}

# start NAME [ENV...]: contend running with its files in $out/NAME (dir).
start() {
	dir=$out/$1
	shift
	mkdir -p "$dir"
	env CONTEND_DIR="$dir" "$@" "$exe" >"$dir/target.log" 2>&1 &
	target=$!
	wait_file "$dir/ready" "$target" || die "contend did not start ($dir/target.log)"
	req=0
}

# ask: its own block and mutex profiles, numbered req.
ask() {
	req=$((req + 1))
	touch "$dir/req-$req"
	wait_file "$dir/done-$req" "$target" || die "contend wrote no profile $req"
}

# ours KIND BACKEND FILE: our profile of $target into FILE; 0 or the exit.
ours() {
	timeout 120 "$bin" --pid "$target" --profile "$1" --backend "$2" \
		--format pprof --output "$3" 2>"$3.err"
}

# legacy KIND BACKEND FILE: our ?debug=1 text (--format legacy) of
# $target into FILE; 0 or the exit.
legacy() {
	timeout 120 "$bin" --pid "$target" --profile "$1" --backend "$2" \
		--format legacy --output "$3" 2>"$3.err"
}

# textcheck NAME LOW OURS HIGH: verdict NAME from contentioncmp.py: our
# debug=1 text the target's own, written just before (LOW; a record
# written since as in HIGH), the runtime's own lock records left out.
textcheck() {
	local name=$1 why=
	if ! python3 tests/integration/contentioncmp.py "$2" "$3" "$4" "$runtime_locks" >"$dir/$name.cmp" 2>&1; then
		why=$(head -6 "$dir/$name.cmp" | tr '\n' ' ')
	fi
	verdict "$name" "$why"
	[ -n "$why" ] || echo "    $(tail -1 "$dir/$name.cmp")"
}

# check NAME FILE...: verdict NAME from cmpprof ARGS (its last line).
check() {
	local name=$1 why=
	shift
	if ! "$cmpprof" "$@" >"$dir/$name.cmp" 2>&1; then
		why=$(grep -v '^cmpprof:' "$dir/$name.cmp" | head -3 | tr '\n' ' ')
		why=${why:-$(tail -1 "$dir/$name.cmp")}
	fi
	verdict "$name" "$why"
	[ -n "$why" ] || echo "    $(tail -1 "$dir/$name.cmp")"
}

run_case() {
	local v=$1 m=$2 k b lo st
	build "$m" "$v"
	start "$v-$m"
	sleep 0.3
	for b in "${live_backends[@]}"; do
		ask
		lo=$req
		for k in block mutex; do
			ours "$k" "$b" "$dir/ours-$k-$b-live.pb.gz"
			st=$?
			eval "st_$k=$st"
		done
		ask
		for k in block mutex; do
			eval "st=\$st_$k"
			if [ "$st" -ne 0 ]; then
				verdict "go$v-$m-$k-$b-live" "exit $st: $(head -c 300 "$dir/ours-$k-$b-live.pb.gz.err")"
				continue
			fi
			check "go$v-$m-$k-$b-live" -bracket "$dir/$k-$lo.pb.gz" \
				"$dir/ours-$k-$b-live.pb.gz" "$dir/$k-$req.pb.gz"
		done
	done
	touch "$dir/stop"
	wait_file "$dir/stopped" "$target" || die "contend did not stop"
	for b in "${exact_backends[@]}"; do
		ask
		lo=$req
		for k in block mutex; do
			ours "$k" "$b" "$dir/ours-$k-$b.pb.gz"
			eval "st_$k=$?"
			legacy "$k" "$b" "$dir/ours-$k-$b.txt"
			eval "lst_$k=$?"
		done
		ask
		for k in block mutex; do
			eval "st=\$st_$k"
			if [ "$st" -ne 0 ]; then
				verdict "go$v-$m-$k-$b-exact" "exit $st: $(head -c 300 "$dir/ours-$k-$b.pb.gz.err")"
				continue
			fi
			# Equal to the one before but for the stacks of the
			# runtime's own lock contention (1.22+), which grow as
			# the program writes its profiles and collects; every
			# stack, those too, between the two.
			check "go$v-$m-$k-$b-exact" -drop "$runtime_locks" \
				"$dir/$k-$lo.pb.gz" "$dir/ours-$k-$b.pb.gz"
			check "go$v-$m-$k-$b-exact-bracket" -bracket "$dir/$k-$lo.pb.gz" \
				"$dir/ours-$k-$b.pb.gz" "$dir/$k-$req.pb.gz"
			eval "st=\$lst_$k"
			if [ "$st" -ne 0 ]; then
				verdict "go$v-$m-$k-$b-debug1" "exit $st: $(head -c 300 "$dir/ours-$k-$b.txt.err")"
				continue
			fi
			textcheck "go$v-$m-$k-$b-debug1" "$dir/$k-$lo.txt" \
				"$dir/ours-$k-$b.txt" "$dir/$k-$req.txt"
		done
	done
	kill_target
	lazy_case "$v" "$m"
}

# lazy_case VERSION MODE: ours read before the program ever computed its
# ticks per second (runtime.ticks.val 0: SetBlockProfileRate(1) and the
# mutex fraction never ask for it), so goheap-bpf computes it as the
# runtime would (1.22+: from ticks' start and the host's clocks; before:
# by 100 ms of them) and says so; the program's own profile, written
# after, must have the same stacks and counts and the delays within 1e-4
# (the two computations are a moment apart) from 1.22, within 2e-3 before
# (two measurements of 100 ms each, ours and its own, seen 3.5e-4 apart
# on a loaded machine). exe only.
lazy_case() {
	local v=$1 k tol=0.0001
	case $v in 1.1[89].* | 1.2[01].*) tol=0.002 ;; esac
	[ "$2" = exe ] || return 0
	start "$v-lazy"
	sleep 0.3
	touch "$dir/stop"
	wait_file "$dir/stopped" "$target" || die "contend did not stop"
	for k in block mutex; do
		"$bin" --pid "$target" --profile "$k" --format json --output "$dir/ours-$k.json" 2>"$dir/ours-$k.json.err"
		ours "$k" procmem "$dir/ours-$k.pb.gz"
	done
	ask
	for k in block mutex; do
		if ! grep -q '"backend_notes": "[^"]*not computed by the target yet' "$dir/ours-$k.json"; then
			verdict "go$v-lazy-ticks-$k" "the notes do not say the ticks were computed: $(grep -o '"backend_notes": "[^"]*"' "$dir/ours-$k.json")"
			continue
		fi
		# The runtime's own locks keep contending meanwhile: left out,
		# as in the exact cases.
		check "go$v-lazy-ticks-$k" -within "$tol" -drop "$runtime_locks" "$dir/$k-$req.pb.gz" "$dir/ours-$k.pb.gz"
	done
	kill_target
}

# PIE on the oldest and newest release: the profiles' buckets are read
# alike in both modes, and run.sh checks PIE's mappings on every release.
for v in "${versions[@]}"; do
	for m in "${modes[@]}"; do
		[ "$m" = pie ] && [ "$v" != "${versions[0]}" ] && [ "$v" != "$newest" ] && continue
		run_case "$v" "$m"
	done
done

# serve_start: goheap-bpf serve for the contend targets, in the background;
# sets spid and port.
serve_start() {
	local i
	"$bin" serve --listen 127.0.0.1:0 --comm '^contend$' 2>"$dir/serve.log" &
	spid=$!
	for ((i = 0; i < 300; i++)); do
		port=$(sed -n 's|^goheap-bpf: serving on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$dir/serve.log")
		[ -n "$port" ] && return 0
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	die "serve did not start: $(tail -3 "$dir/serve.log")"
}

# scrape KIND FILE: serve's /pid/$target/debug/pprof/KIND[?QUERY] into
# FILE; sets code.
scrape() {
	code=$(curl -sS --max-time 60 -o "$2" -w '%{http_code}' \
		"http://127.0.0.1:$port/pid/$target/debug/pprof/$1" 2>"$2.curl")
}

# serve's block and mutex endpoints, newest release, exe: once the target
# stopped contending, each equal to its own (as the exact case above);
# ?debug=1 is its own text; ?seconds=1 a delta; a program that never turned the
# profiles on is 404 naming the call that does.
serve_case() {
	local k why
	build exe "$newest"
	start "serve"
	sleep 0.3
	touch "$dir/stop"
	wait_file "$dir/stopped" "$target" || die "contend did not stop"
	serve_start
	ask
	lo=$req
	for k in block mutex; do
		scrape "$k" "$dir/served-$k.pb.gz"
		if [ "$code" != 200 ]; then
			verdict "serve-$k" "HTTP $code: $(head -c 300 "$dir/served-$k.pb.gz")"
			continue
		fi
		check "serve-$k" -drop "$runtime_locks" "$dir/$k-$lo.pb.gz" "$dir/served-$k.pb.gz"
	done
	# ?debug=1: the text, as its own, served as text
	for k in block mutex; do
		scrape "$k?debug=1" "$dir/served-$k.txt"
		if [ "$code" != 200 ]; then
			verdict "serve-$k-debug1" "HTTP $code: $(head -c 300 "$dir/served-$k.txt")"
			continue
		fi
		ask
		textcheck "serve-$k-debug1" "$dir/$k-$lo.txt" "$dir/served-$k.txt" "$dir/$k-$req.txt"
		lo=$req
	done
	# ?seconds=1: the delta of two reads, named as net/http/pprof names
	# it; nothing of the program contends, so no record of its changed:
	# no sample
	for k in block mutex; do
		code=$(curl -sS --max-time 60 -o "$dir/served-$k-delta.pb.gz" -D "$dir/served-$k-delta.hdr" \
			-w '%{http_code}' "http://127.0.0.1:$port/pid/$target/debug/pprof/$k?seconds=1" 2>/dev/null)
		why=
		[ "$code" = 200 ] || why="HTTP $code: $(head -c 300 "$dir/served-$k-delta.pb.gz")"
		[ -n "$why" ] || grep -qi "^content-disposition: attachment; filename=\"$k-delta\"" "$dir/served-$k-delta.hdr" ||
			why="Content-Disposition: $(grep -i '^content-disposition' "$dir/served-$k-delta.hdr")"
		# The runtime's own locks may contend meanwhile (the server
		# answering in the target): they are left out, as in the
		# exact cases.
		[ -n "$why" ] || "$cmpprof" -dropstack-write "$runtime_locks" "$dir/served-$k-delta.pb.gz" \
			"$dir/served-$k-delta.own.pb.gz" ||
			why="cmpprof -dropstack-write failed"
		[ -n "$why" ] || "$cmpprof" -summary "$dir/served-$k-delta.own.pb.gz" >"$dir/served-$k-delta.sum" ||
			why="cmpprof -summary failed"
		[ -n "$why" ] || python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; sys.exit(sorted(t) != ["contentions", "delay"] or any(t.values()))' \
			"$dir/served-$k-delta.sum" || why="want contentions and delay of total 0: $(cat "$dir/served-$k-delta.sum")"
		verdict "serve-$k-seconds" "$why"
	done
	kill_target
	start "serve-off" CONTEND_OFF=1
	scrape mutex "$dir/served-off"
	why=
	[ "$code" = 404 ] || why="HTTP $code, want 404"
	grep -q SetMutexProfileFraction "$dir/served-off" || why="${why:+$why; }the body does not name runtime.SetMutexProfileFraction"
	verdict "serve-mutex-not-enabled" "$why"
	kill_target
	kill -TERM "$spid"
	wait "$spid" 2>/dev/null
}

# A program that never turned them on, and a stripped one.
serve_case
build exe "$newest"
start off CONTEND_OFF=1
for k in block mutex; do
	want=SetBlockProfileRate
	[ $k = mutex ] && want=SetMutexProfileFraction
	"$bin" --pid "$target" --profile $k --format json --output "$dir/$k.json" 2>"$dir/$k.err"
	st=$?
	why=
	[ $st -eq 6 ] || why="exit $st, want 6"
	grep -q "runtime.$want" "$dir/$k.err" || why="${why:+$why; }stderr does not name runtime.$want"
	grep -q '"status": "unavailable"' "$dir/$k.json" 2>/dev/null ||
		why="${why:+$why; }the JSON document's status is not unavailable"
	grep -q "\"kind\": \"$k\"" "$dir/$k.json" 2>/dev/null ||
		why="${why:+$why; }the JSON document has no kind $k"
	verdict "go$newest-not-enabled-$k" "$why"
done
kill_target
build exe-stripped "$newest"
start stripped
"$bin" --pid "$target" --profile block --output "$dir/block.txt" 2>"$dir/block.err"
st=$?
why=
[ $st -eq 5 ] || why="exit $st, want 5"
grep -q "stripped" "$dir/block.err" || why="${why:+$why; }stderr does not say stripped"
verdict "go$newest-stripped-block" "$why"
kill_target

echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
