#!/usr/bin/env bash
# gleak.sh - the goroutine profile's top table, JSON and leak view
# (--profile goroutine --format top, json, leak, leak-json, --min-wait)
# against the target's own /debug/pprof/goroutine. tests/targets/goroutines
# parks goroutines in known states and serves its own endpoint; per
# release plain, and PIE on the oldest and newest (gleakcheck.py says
# each check exactly):
#
#   json  the goroutines per stack of our JSON equal those of the
#         target's own debug=0 profile (cmpprof -stacks: google/pprof's
#         parser), but the goroutine serving that request;
#   top   our top table (-n 0) is `go tool pprof -top` of the target's own
#         profile without the serving goroutine's samples (cmpprof
#         -dropstack-write): every row, flat and cum, in the same order;
#   leak  two GC cycles forced through the target's own
#         /debug/pprof/heap?gc=1, the first between two monotonic times
#         T0 and T1 (the runtime sets g.waitsince at the second cycle's
#         stack scan to the time the first one's mark termination began);
#         then our leak view (JSON) against the target's debug=2: the same
#         goroutines, wait reasons and stacks, groups as its stacks, and
#         the target's own goroutines with waitsince within [T0, T1];
#         the text view's counts as the JSON's;
#   min-wait  --min-wait just below the shortest possible wait keeps every
#         goroutine of the target's own with a wait, and just above the
#         longest possible keeps none, each as its own waitsince says.
#
# Then once, on the newest release given (MINUTES=0: not), the minutes:
# a target started, and two GC cycles forced in it, before the cases
# above, read once they are done and at least 65 s have passed (away
# from a minute's boundary): our waits against the "N minutes" of its
# own debug=2 headers, goroutine by goroutine, and --min-wait 1m keeping
# exactly the goroutines it shows at a minute or more.
#
#   tests/integration/gleak.sh BIN
#
# Environment: GO_VERSIONS="1.18.10 1.27.4" limits the releases;
# BACKEND=iter|procmem|auto reads with that backend (default procmem);
# MODES="exe" limits the build modes. Needs root (another process's
# memory).
set -uo pipefail

NAME=gleak
. "$(dirname "$0")/lib.sh"
setup "$@"
read -ra modes <<<"${MODES:-exe pie}"
backend=${BACKEND:-procmem}
out=$PWD/build/integration/gleak
mkdir -p "$out" build/targets
start=$(date +%s)

# wanted VERSION MODE: whether the case runs: PIE on the oldest and
# newest release only (goroutines.sh checks PIE's mappings on every one).
wanted() {
	[ "$2" != pie ] || [ "$1" = "${versions[0]}" ] || [ "$1" = "${versions[$((${#versions[@]} - 1))]}" ]
}

# The target built by every release in each mode (tests/targets/build.sh
# skips a build already made: goroutines.sh builds the same ones).
list=$out/builds
: >"$list"
for v in "${versions[@]}"; do
	goroot=$(tools/go-toolchains.sh goroot "$v") || die "no Go $v toolchain"
	for m in "${modes[@]}"; do wanted "$v" "$m" && echo "$v $m $goroot" >>"$list"; done
done
# shellcheck disable=SC2016
xargs -P 2 -L 1 sh -c '
	dir=build/targets/$0/$1
	mkdir -p "$dir"
	tests/targets/build.sh goroutines "$1" "$2" "$dir/goroutines" >"$dir/goroutines.log" 2>&1 ||
		{ echo "goroutines: building with Go $0 ($1) failed:"; cat "$dir/goroutines.log"; exit 1; }
' <"$list" || die "target builds failed"

build_cmpprof "$out"
# What only the target's own profile holds: the goroutine serving the
# request and its connection reader (goroutinecmp.py's SERVING, READER).
SERVING_FUNCS='runtime/pprof.writeGoroutine,net/http.(*connReader).backgroundRead,net/http.(*connReader).startBackgroundRead'
target= mtarget=
trap 'kill_target; target=$mtarget; kill_target' EXIT
trap 'exit 130' INT TERM

# mono: CLOCK_MONOTONIC in nanoseconds, the clock of the runtime's
# nanotime and of g.waitsince.
mono() { python3 -c 'import time; print(time.monotonic_ns())'; }

# theirs PORT DEBUG...: the target's own /debug/pprof/goroutine?debug=N
# into $dir/theirsN.txt, over one connection after a first request (the
# goroutine accepting connections is parked again by then).
theirs() {
	local url=http://127.0.0.1:$1/debug/pprof/goroutine d args=()
	shift
	for d in "$@"; do args+=(-o "$dir/theirs$d.txt" "$url?debug=$d"); done
	curl -sf -o /dev/null "$url?debug=1" "${args[@]}" ||
		{ echo "    the target's own /debug/pprof/goroutine did not answer"; return 1; }
}

# ours NAME ARGS...: goheap-bpf --profile goroutine ARGS into $dir/NAME;
# 0 when it exits 0, else the reason on stdout.
ours() {
	local name=$1 st
	shift
	timeout 60 "$bin" --pid "$target" --backend "$backend" --profile goroutine "$@" \
		--output "$dir/$name" 2>"$dir/$name.err"
	st=$?
	[ $st -eq 0 ] && return 0
	echo "    $*: exit $st: $(head -c 300 "$dir/$name.err")"
	return 1
}

# check WHAT ARGS...: gleakcheck.py WHAT ARGS, its lines indented.
check() {
	python3 tests/integration/gleakcheck.py "$@" >"$dir/check-$1.txt" 2>&1
	local st=$?
	sed 's/^/    /' "$dir/check-$1.txt" | head -24
	return $st
}

# profile_checks PORT: our JSON and top against the target's debug=0.
profile_checks() {
	local ok=0
	ours ours.json --format json || ok=1
	ours ours.top --format top -n 0 || ok=1
	theirs "$1" 0 || return 1
	[ $ok -eq 0 ] || return 1
	"$cmpprof" -stacks -dropstack "$SERVING_FUNCS" "$dir/theirs0.txt" >"$dir/theirs.stacks" ||
		{ echo "    cmpprof -stacks: the target's profile did not parse"; return 1; }
	"$cmpprof" -dropstack-write "$SERVING_FUNCS" "$dir/theirs0.txt" "$dir/theirs0.kept.pb.gz" ||
		{ echo "    cmpprof -dropstack-write: the target's profile did not parse"; return 1; }
	"$hostgo" tool pprof -top "$dir/theirs0.kept.pb.gz" >"$dir/theirs.top" 2>"$dir/theirs.top.err" ||
		{ echo "    go tool pprof -top: $(head -c 300 "$dir/theirs.top.err")"; return 1; }
	check json "$dir/theirs.stacks" "$dir/ours.json" || ok=1
	check top "$dir/theirs.top" "$dir/ours.top" || ok=1
	return $ok
}

# leak_checks PORT: two GC cycles forced, then the leak view against the
# target's debug=2, and --min-wait either side of every possible wait.
leak_checks() {
	local port=$1 ok=0 numgc strict=0 t0 t1 now lo hi waiting groups
	local heap=http://127.0.0.1:$port/debug/pprof/heap
	numgc=$(curl -sf "$heap?debug=1" | sed -n 's/^# NumGC = //p')
	[ "$numgc" = 0 ] && strict=1
	t0=$(mono)
	curl -sf -o /dev/null "$heap?gc=1" || { echo "    $heap?gc=1 did not answer"; return 1; }
	t1=$(mono)
	curl -sf -o /dev/null "$heap?gc=1" || { echo "    $heap?gc=1 did not answer"; return 1; }
	sleep 1.5
	ours leak.json --format leak-json || return 1
	ours leak.txt --format leak || ok=1
	theirs "$port" 2 || return 1
	check leak "$dir/theirs2.txt" "$dir/leak.json" "$t0" "$t1" "$strict" || ok=1
	# The text says what the JSON does.
	waiting=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["waiting"], d["groups_total"])' "$dir/leak.json")
	groups=$(sed -n 's/^\([0-9]*\) goroutines waiting, at \([0-9]*\) stacks$/\1 \2/p' "$dir/leak.txt")
	if [ "$waiting" != "$groups" ] || ! grep -q "^goroutine leak view: process $target " "$dir/leak.txt"; then
		echo "    --format leak: '$groups' goroutines and stacks, the JSON's '$waiting'"
		ok=1
	else
		echo "    leak text: goroutines waiting and stacks ($groups), as its JSON"
	fi
	# A wait now is at least now - T1: 200 ms under it keeps them all.
	now=$(mono)
	lo=$(((now - t1) / 1000000 - 200))
	ours leak-lo.json --format leak-json --min-wait "${lo}ms" || ok=1
	[ -s "$dir/leak-lo.json" ] && { check minwait "$dir/leak.json" "$dir/leak-lo.json" "$lo" all || ok=1; }
	# ... and at most now - T0: 2 s over it (the read's own time) keeps none.
	now=$(mono)
	hi=$(((now - t0) / 1000000 + 2000))
	ours leak-hi.json --format leak-json --min-wait "${hi}ms" || ok=1
	[ -s "$dir/leak-hi.json" ] && { check minwait "$dir/leak.json" "$dir/leak-hi.json" "$hi" none || ok=1; }
	return $ok
}

# run_case VERSION MODE: 0 when every check passes; reasons on stdout.
run_case() {
	local v=$1 m=$2 ok=0 port exe
	dir=$out/$v-$m
	exe=build/targets/$v/$m/goroutines
	rm -rf "$dir"
	mkdir -p "$dir"
	GOROUTINES_READY=$dir/ready "$exe" >"$dir/target.log" 2>&1 &
	target=$!
	if ! wait_file "$dir/ready" "$target"; then
		echo "    target not ready: $(tail -3 "$dir/target.log")"
		return 1
	fi
	port=$(cat "$dir/ready")
	profile_checks "$port" || ok=1
	leak_checks "$port" || ok=1
	kill_target
	return $ok
}

# minutes_start VERSION: the minutes target started and two GC cycles
# forced before the other cases, so that its minute passes while they
# run; mtarget its PID, mt0 the monotonic time before the first GC, and
# a failure's reason in $mdir/start.err.
minutes_start() {
	local v=$1 heap
	mdir=$out/$v-minutes
	rm -rf "$mdir"
	mkdir -p "$mdir"
	GOROUTINES_READY=$mdir/ready build/targets/$v/exe/goroutines >"$mdir/target.log" 2>&1 &
	mtarget=$!
	if ! wait_file "$mdir/ready" "$mtarget"; then
		echo "    target not ready: $(tail -3 "$mdir/target.log")" >"$mdir/start.err"
		return
	fi
	mport=$(cat "$mdir/ready")
	heap=http://127.0.0.1:$mport/debug/pprof/heap
	mt0=$(mono)
	curl -sf -o /dev/null "$heap?gc=1" && curl -sf -o /dev/null "$heap?gc=1" ||
		echo "    $heap?gc=1 did not answer" >"$mdir/start.err"
}

# minutes_wait: until at least 65 s have passed since before the GCs, 5 s
# or more past a minute's boundary and 10 s or more before the next: a
# wait lies between that time less the GCs' and that time, and the
# target's own "N minutes" is read a moment after ours, so both floor
# alike.
minutes_wait() {
	local s
	while :; do
		s=$((($(mono) - mt0) / 1000000000))
		[ $s -ge 65 ] && [ $((s % 60)) -ge 5 ] && [ $((s % 60)) -le 50 ] && return
		sleep 1
	done
}

# minutes_case: the minutes target's waits, a minute or more after its
# GCs, against its own debug=2 minutes.
minutes_case() {
	local ok=0
	dir=$mdir
	target=$mtarget
	mtarget=
	[ -s "$dir/start.err" ] && { cat "$dir/start.err"; kill_target; return 1; }
	minutes_wait
	ours leak.json --format leak-json || ok=1
	ours leak-1m.json --format leak-json --min-wait 1m || ok=1
	theirs "$mport" 2 || ok=1
	[ $ok -eq 0 ] && { check minutes "$dir/theirs2.txt" "$dir/leak.json" "$dir/leak-1m.json" || ok=1; }
	kill_target
	return $ok
}

pass=0 fail=0
if [ "${MINUTES:-1}" != 0 ]; then
	mv=${versions[0]}
	for w in "${versions[@]}"; do [ "$(printf '%s\n' "$mv" "$w" | sort -V | tail -1)" = "$w" ] && mv=$w; done
	minutes_start "$mv"
fi
for v in "${versions[@]}"; do
	for m in "${modes[@]}"; do
		wanted "$v" "$m" && timed_case "go$v $m" "$out/$v-$m" run_case "$v" "$m"
	done
done
[ -n "$mtarget" ] && timed_case "go$mv minutes" "$mdir" minutes_case
echo "gleak: $(($(date +%s) - start)) s"
echo "gleak: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
