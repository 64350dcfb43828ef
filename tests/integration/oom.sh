#!/usr/bin/env bash
# oom.sh - OOM-kill capture (issue 12, part 2) on real OOM kills: oomgrow
# targets (tests/targets/oomgrow) grow in v1 memory cgroups of their own
# with a small limit until the kernel kills them, watched through the
# public API by oomcatch (tests/integration/oomcatch.c). Checked: a
# victim's profile is complete and symbolized, its largest in-use site is
# main.grow with in-use bytes within 10 % of the target's own last
# checkpoint; two targets killed within a second of each other are both
# captured; a Python process, refused by the watcher (not Go) and
# OOM-killed beside them, yields nothing. Then the command: `goheap-bpf
# watch` (GOHEAP_BPF, else the goheap-bpf beside OOMCATCH's directory)
# with no trigger but its default OOM one, over two more targets killed
# together: each gets a complete oom snapshot (pprof and JSON, index line
# with trigger oom and the kill's context) held to the same checks. The
# cgroups are removed after. Files of the run are kept in build/oom/.
# MARK_VICTIM=pid runs it all as on a kernel whose oom:mark_victim passes
# only a PID: this kernel's BTF, as goheap-bpf reads it, made so by mkbtf
# (beside OOMCATCH); files in build/oom-pid/.
#
#   tests/integration/oom.sh OOMCATCH      (needs root: BPF, cgroups)
set -uo pipefail

NAME=oom
. "$(dirname "$0")/lib.sh"
setup "$@"
catch=$bin
cmd=$(realpath -e "${GOHEAP_BPF:-$(dirname "$catch")/../goheap-bpf}") ||
	die "no goheap-bpf beside $catch: set GOHEAP_BPF"
out=$PWD/build/oom${MARK_VICTIM:+-$MARK_VICTIM}
rm -rf "$out"
mkdir -p "$out"
if [ "${MARK_VICTIM:-}" = pid ]; then
	export GOHEAP_SYSFS_BTF=$out/vmlinux-mark-victim-pid
	"$(dirname "$catch")/mkbtf" "$GOHEAP_SYSFS_BTF" ||
		die "cannot make a kernel BTF with mark_victim(int pid)"
elif [ -n "${MARK_VICTIM:-}" ]; then
	die "MARK_VICTIM=$MARK_VICTIM: only pid is known"
fi
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

# watching WHO LOG ERR PATTERN: wait (30 s at most) for PATTERN in LOG,
# the sign that the watcher WHO (wpid) watches; die if it ended.
watching() {
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q "$4" "$2" && return
		kill -0 "$wpid" 2>/dev/null || die "$1 ended: $(head -3 "$3")"
		sleep 0.1
	done
}

timeout 60 "$catch" "$out" 50 "$a" "$b" "$c" "$py" >"$out/catch.log" 2>"$out/catch.err" &
wpid=$!
watching oomcatch "$out/catch.log" "$out/catch.err" '^ready'

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
	local name=$1 pid=$2 why= line
	line=$(grep "^victim $pid " "$out/catch.log")
	if [ -z "$line" ]; then
		verdict "$name captured" "no victim line for $pid"
		return
	fi
	set -- $line
	[ "$3" = 0 ] && [ "$4" = 0 ] || why="status $3, snapshot status $4: ${*:12}"
	[ -s "$out/oom-$pid.pb.gz" ] || why="no profile written"
	verdict "$name captured, complete" "$why"
	against_own "$name" "$out/oom-$pid.pb.gz"
}

# against_own NAME FILE [WHO]: target NAME's profile FILE (taken by WHO)
# against its own last checkpoint: main.grow the largest in-use site,
# within 10 %.
against_own() {
	local name=$1 why= ours own top
	grow_bytes "$2" >"$out/$name.ours"
	grow_bytes "$out/$name.own" >"$out/$name.theirs"
	top=$(awk '$1 == "top" { print $2 }' "$out/$name.ours")
	ours=$(awk '$1 == "grow" { print $2 }' "$out/$name.ours")
	own=$(awk '$1 == "grow" { print $2 }' "$out/$name.theirs")
	name="${3:+$3: }$name"
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

# The command: two more targets, watched by goheap-bpf watch with its
# default OOM trigger alone and a ring of 1 MiB (--oom-ring, a 32nd of the
# default, still room for both lists), killed together.
target d
d=$pid
target e
e=$pid
"$cmd" watch -v -d "$out/watch" --pid "$d,$e" --oom-ring 1M >"$out/watch.log" 2>"$out/watch.err" &
wpid=$!
watching "goheap-bpf watch" "$out/watch.err" "$out/watch.err" 'watching 2 processes'
touch "$out/d.go" "$out/e.go"
killed "$d" && killed "$e" || die "d and e were not both OOM-killed"
for ((i = 0; i < 100; i++)); do
	kill -0 "$wpid" 2>/dev/null || break
	sleep 0.1
done
kill "$wpid" 2>/dev/null
{ wait "$wpid"; } 2>/dev/null
st=$? wpid=
sed 's/^/    /' "$out/watch.log" "$out/watch.err"
[ "$st" = 0 ] && why= || why="goheap-bpf watch exited $st, not 0 once both were gone"
verdict "watch ends once its processes are gone" "$why"

# watched NAME PID: PID's oom snapshot, its index line and JSON document;
# its pprof compared with its own checkpoint.
watched() {
	local name=$1 pid=$2 why= file
	file=$(python3 - "$out/watch" "$pid" "$LIMIT" <<'PY'
import json, os, sys
d, pid, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ls = [json.loads(l) for l in open(os.path.join(d, "index.jsonl"))]
ls = [l for l in ls if l["pid"] == pid]
assert len(ls) == 1 and ls[0]["trigger"] == "oom", ls
l = ls[0]
doc = json.load(open(os.path.join(d, l["json"])))
assert doc["trigger"] == "oom" and doc["fired"] == ["oom"], doc["fired"]
assert doc["status"] == "complete" and doc["rss"] is None, doc["status"]
assert doc["oom"]["comm"] and doc["oom"]["memcg_limit"] == limit, doc["oom"]
assert doc["cgroup_limit"] == limit and doc["cgroup_dir"], doc["cgroup_dir"]
assert doc["profile"]["pid"] == pid and doc["profile"]["backend"] == "oom"
print(os.path.join(d, l["pprof"]))
PY
	) || why="no complete oom snapshot in the index (build/oom/watch)"
	verdict "watch: $name's oom snapshot, index line and context" "$why"
	[ -n "$file" ] || return
	"$hostgo" tool pprof -comments "$file" 2>/dev/null | grep -q '^trigger: oom$' &&
		why= || why="no 'trigger: oom' comment"
	verdict "watch: $name's pprof carries the kill as comments" "$why"
	grep -q "pid $pid (oomgrow) OOM-killed" "$out/watch.err" && why= || why="no line on stderr"
	verdict "watch: $name's kill said on stderr" "$why"
	against_own "$name" "$file" watch
}

watched d "$d"
watched e "$e"

echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
