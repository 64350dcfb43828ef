#!/usr/bin/env bash
# oom.sh - OOM-kill capture (issue 12, part 2) on real OOM kills: oomgrow
# targets (tests/targets/oomgrow) grow in v1 memory cgroups of their own
# with a small limit until the kernel kills them, watched through the
# public API by oomcatch (tests/integration/oomcatch.c). Checked: a
# victim's profile is complete and symbolized, its largest in-use site is
# main.grow with in-use bytes within 10 % of the target's own last
# checkpoint; two targets killed within a second of each other are both
# captured; a Python process, refused by the watcher (not Go) and
# OOM-killed beside them, yields nothing. The cgroups are removed after.
# Files of the run are kept in build/oom/.
#
#   tests/integration/oom.sh OOMCATCH      (needs root: BPF, cgroups)
set -uo pipefail

NAME=oom
. "$(dirname "$0")/lib.sh"
setup "$@"
catch=$bin
out=$PWD/build/oom
rm -rf "$out"
mkdir -p "$out"
cgroot=/sys/fs/cgroup/memory
[ -w "$cgroot" ] || die "no v1 memory cgroup hierarchy at $cgroot"
version=${versions[-1]}
goroot=$(tools/go-toolchains.sh goroot "$version") || die "no Go $version toolchain"
grow=build/targets/$version/exe/oomgrow
tests/targets/build.sh oomgrow exe "$goroot" "$grow" >"$out/build.log" 2>&1 ||
	die "building the oomgrow target failed: $(tail -3 "$out/build.log")"
LIMIT=$((96 << 20))

pids=() cgs=() wpid=
cleanup() {
	local p c
	for p in "${pids[@]}" $wpid; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	for c in "${cgs[@]}"; do rmdir "$c" 2>/dev/null; done
}
trap cleanup EXIT

# spawn NAME CMD...: CMD in a new memory cgroup limited to LIMIT (no swap
# either), in the background, under a shell that outlives it (so that its
# kill is not reported as a job's); CMD writes its PID to $out/NAME.ready.
spawn() {
	local cg=$cgroot/goheap-oom-$$-$1
	shift
	mkdir "$cg" || die "cannot make cgroup $cg"
	cgs+=("$cg")
	echo "$LIMIT" >"$cg/memory.limit_in_bytes"
	echo "$LIMIT" >"$cg/memory.memsw.limit_in_bytes" 2>/dev/null
	sh -c 'echo $$ >"$0/cgroup.procs" && "$@"; true' "$cg" "$@" >"$out/$(basename "$cg").log" 2>&1 &
	pids+=($!)
}

# ready NAME: wait for NAME's ready file; sets pid to the PID in it.
ready() {
	wait_file "$out/$1.ready" "${pids[-1]}" || die "$1 not ready"
	pid=$(cat "$out/$1.ready")
	pids+=("$pid")
}

# target NAME: an oomgrow in its own cgroup, ready; sets pid.
target() {
	OOMGROW_RATE=4096 OOMGROW_PROFILE=$out/$1.own OOMGROW_READY=$out/$1.ready \
		OOMGROW_GO=$out/$1.go spawn "$1" "$PWD/$grow"
	ready "$1"
}

target a
a=$pid
target b
b=$pid
target c
c=$pid
spawn py python3 -c '
import os, time
open("'"$out"'/py.ready", "w").write(str(os.getpid()))
while not os.path.exists("'"$out"'/py.go"): time.sleep(0.005)
held = []
while True: held.append(b"x" * (1 << 20))'
ready py
py=$pid

timeout 60 "$catch" "$out" 50 "$a" "$b" "$c" "$py" >"$out/catch.log" 2>"$out/catch.err" &
wpid=$!
for ((i = 0; i < 300; i++)); do
	grep -q '^ready' "$out/catch.log" && break
	kill -0 "$wpid" 2>/dev/null || die "oomcatch ended: $(head -3 "$out/catch.err")"
	sleep 0.1
done

pass=0 fail=0
# killed PID: wait (30 s at most) for the kernel to have killed PID.
killed() {
	local i
	for ((i = 0; i < 300; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# One target, then two at once and Python beside them.
touch "$out/a.go"
killed "$a" || die "target a was not OOM-killed"
t0=$(date +%s.%N)
touch "$out/b.go" "$out/c.go" "$out/py.go"
killed "$b" && killed "$c" && killed "$py" || die "b, c and python were not all OOM-killed"
{ wait "$wpid"; } 2>/dev/null
st=$? wpid=
t1=$(date +%s.%N)
echo "    oomcatch exit $st; b, c and python killed within $(echo "$t1 - $t0" | bc) s"
sed 's/^/    /' "$out/catch.log"
dmesg | grep -E "Killed process ($a|$b|$c|$py)" | sed 's/^/    kernel: /' | tail -4

why=
grep -q "^watch $py 4 " "$out/catch.log" || why="python was not refused as not Go"
grep -q "^victim $py " "$out/catch.log" && why="python's kill was captured"
ls "$out/oom-$py.pb.gz" 2>/dev/null && why="python's kill has a profile"
verdict "non-Go victim ignored" "$why"

pprof() {
	"$hostgo" tool pprof -sample_index=inuse_space -top -unit=B "$@" 2>/dev/null
}

# grow_bytes FILE: main.grow's flat in-use bytes in FILE; the top row's
# function in top.
grow_bytes() {
	pprof "$1" | awk '/^ *[0-9]+B / {
		if (!t) { t = $NF; print "top " t }
		if ($NF == "main.grow") { sub("B", "", $1); print "grow " $1 } }'
}

# check NAME PID: the victim's profile against its own last checkpoint.
check() {
	local name=$1 pid=$2 why= line ours own top
	line=$(grep "^victim $pid " "$out/catch.log")
	if [ -z "$line" ]; then
		verdict "$name captured" "no victim line for $pid"
		return
	fi
	set -- $line
	[ "$3" = 0 ] && [ "$4" = 0 ] || why="status $3, snapshot status $4: ${*:12}"
	[ -s "$out/oom-$pid.pb.gz" ] || why="no profile written"
	verdict "$name captured, complete" "$why"
	why=
	grow_bytes "$out/oom-$pid.pb.gz" >"$out/$name.ours"
	grow_bytes "$out/$name.own" >"$out/$name.theirs"
	top=$(awk '$1 == "top" { print $2 }' "$out/$name.ours")
	ours=$(awk '$1 == "grow" { print $2 }' "$out/$name.ours")
	own=$(awk '$1 == "grow" { print $2 }' "$out/$name.theirs")
	[ "$top" = main.grow ] || why="largest in-use site is '$top', not main.grow"
	if [ -z "$ours" ] || [ -z "$own" ]; then
		why="main.grow missing (ours '$ours', own '$own')"
	elif ! awk -v a="$ours" -v b="$own" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b / 10) }'; then
		why="main.grow in use: $ours B, its own last checkpoint $own B (over 10 %)"
	fi
	echo "    $name: main.grow in use $ours B; own last checkpoint $own B"
	verdict "$name: main.grow largest, within 10 % of its own" "$why"
}

check a "$a"
check b "$b"
check c "$c"
"$hostgo" tool pprof -comments "$out/oom-$a.pb.gz" 2>/dev/null | grep -q '^trigger: oom-kill' &&
	why= || why="no trigger comment"
verdict "labelled with the OOM context" "$why"
[ "$st" = 0 ] && why= || why="oomcatch exited $st"
verdict "watcher exits cleanly" "$why"

echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
