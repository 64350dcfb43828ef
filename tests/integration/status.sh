#!/usr/bin/env bash
# status.sh - one status model: the same event gives the same exit status
# in every backend (iter, perf, procmem). goheap-bpf is paused after it
# opened the target and before it reads it (GOHEAP_TEST_PAUSE_MS), and the
# test changes the target meanwhile:
#
#   exited    the target is killed and reaped            -> 10, "exited"
#   reused    ... and its PID given to another Go program -> 10, "PID now
#             (set through /proc/sys/kernel/ns_last_pid)     names another"
#   zombie    the target is killed, its parent never reaps -> 10, "zombie"
#             it; also when it is a zombie already at the start
#   not-exec  the PID is still the shell that will exec the -> 4, "not a Go"
#             Go program
#
# and nothing is written for any of them. (perf on a target that does not
# run, 13, is fallback.sh's.)
#
#   tests/integration/status.sh BIN      (needs root)
set -uo pipefail

NAME=status
. "$(dirname "$0")/lib.sh"
setup "$@"
out=$PWD/build/status
rm -rf "$out"
mkdir -p "$out"
newest=${versions[$((${#versions[@]} - 1))]}
versions=("$newest")
build_targets exe
heapgen=$PWD/build/targets/$newest/exe/heapgen

procs=()
trap 'for p in "${procs[@]}"; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null' EXIT

# start_target NAME [PARENT-KEEPS-IT]: a heapgen running on a CPU (perf
# reads only running targets), ready; sets tpid. With a second argument
# its parent is a sleep that never reaps it (it becomes a zombie).
start_target() {
	local ready=$out/$1.ready
	rm -f "$ready"
	if [ -n "${2:-}" ]; then
		HEAPGEN_SPIN=1 HEAPGEN_RATE=4096 HEAPGEN_PROFILE=$out/$1.own.pb.gz HEAPGEN_READY=$ready \
			sh -c "'$heapgen' >/dev/null 2>&1 & echo \$! >'$out/$1.pid'; exec sleep 600" &
		procs+=($!)
		wait_file "$out/$1.pid" "$!" || return 1
		tpid=$(cat "$out/$1.pid")
	else
		HEAPGEN_SPIN=1 HEAPGEN_RATE=4096 HEAPGEN_PROFILE=$out/$1.own.pb.gz HEAPGEN_READY=$ready \
			"$heapgen" >/dev/null 2>&1 &
		tpid=$!
	fi
	procs+=("$tpid")
	wait_file "$ready" "$tpid"
}

# paused_run NAME BACKEND: goheap-bpf on $tpid, paused before the read;
# returns once it sleeps in the pause (its pid in tool).
paused_run() {
	local i
	GOHEAP_TEST_PAUSE_MS=3000 "$bin" --pid "$tpid" --backend "$2" --format pprof \
		--output "$out/$1.ours.pb.gz" >/dev/null 2>"$out/$1.err" &
	tool=$!
	for ((i = 0; i < 400; i++)); do
		case $(cut -d' ' -f1 "/proc/$tool/syscall" 2>/dev/null) in
		230 | 35) return 0 ;; # clock_nanosleep, nanosleep
		esac
		kill -0 "$tool" 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}

# reuse_pid PID: start heapgen as PID again (ns_last_pid, a few tries).
reuse_pid() {
	local i p
	for i in 1 2 3 4 5; do
		echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid || return 1
		HEAPGEN_RATE=4096 HEAPGEN_PROFILE=$out/reuser.pb.gz HEAPGEN_READY=$out/reuser.ready \
			"$heapgen" >/dev/null 2>&1 &
		p=$!
		procs+=("$p")
		[ "$p" = "$1" ] && return 0
		kill -9 "$p"
		wait "$p" 2>/dev/null
	done
	return 1
}

pass=0 fail=0
# judge NAME STATUS WANT-STATUS CAUSE-RE
judge() {
	local why=
	[ "$2" -eq "$3" ] || why="exit status $2, want $3"
	[ -n "$why" ] || grep -Eq -- "$4" "$out/$1.err" || why="message does not say /$4/"
	[ -n "$why" ] || [ ! -e "$out/$1.ours.pb.gz" ] || why="an output file was written"
	[ -n "$why" ] || [ -z "$(find "$out" -name "$1.ours.pb.gz.tmp*")" ] || why="a temporary file was left"
	if [ -z "$why" ]; then
		pass=$((pass + 1))
		echo "PASS $1: $(head -c 200 "$out/$1.err")"
	else
		fail=$((fail + 1))
		echo "FAIL $1: $why: $(head -c 300 "$out/$1.err")"
	fi
}

for b in iter perf procmem; do
	# exited during the snapshot
	if start_target "exited-$b" && paused_run "exited-$b" "$b"; then
		kill -9 "$tpid"; wait "$tpid" 2>/dev/null
		wait "$tool"; judge "exited-$b" $? 10 "exited"
	else
		fail=$((fail + 1)); echo "FAIL exited-$b: could not set up"
	fi
	# its PID reused by another Go program
	if start_target "reused-$b" && paused_run "reused-$b" "$b"; then
		old=$tpid
		kill -9 "$tpid"; wait "$tpid" 2>/dev/null
		if reuse_pid "$old"; then
			wait "$tool"; judge "reused-$b" $? 10 "PID now names another"
		else
			kill -9 "$tool"; wait "$tool" 2>/dev/null
			fail=$((fail + 1)); echo "FAIL reused-$b: PID $old could not be given out again"
		fi
	else
		fail=$((fail + 1)); echo "FAIL reused-$b: could not set up"
	fi
	# a zombie: during the snapshot, and from the start
	if start_target "zombie-$b" keep && paused_run "zombie-$b" "$b"; then
		kill -9 "$tpid"
		wait "$tool"; judge "zombie-$b" $? 10 "zombie"
		"$bin" --pid "$tpid" --backend "$b" --format pprof --output "$out/zombie0-$b.ours.pb.gz" \
			>/dev/null 2>"$out/zombie0-$b.err"
		judge "zombie0-$b" $? 10 "zombie"
	else
		fail=$((fail + 1)); echo "FAIL zombie-$b: could not set up"
	fi
	# not exec'd yet: the PID is still the shell
	sh -c "sleep 2; exec '$heapgen'" >/dev/null 2>&1 &
	procs+=($!)
	"$bin" --pid "$!" --backend "$b" --format pprof --output "$out/notexec-$b.ours.pb.gz" \
		>/dev/null 2>"$out/notexec-$b.err"
	judge "notexec-$b" $? 4 "not a Go program"
done

echo "status: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
