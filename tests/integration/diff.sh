#!/usr/bin/env bash
# diff.sh - goheap-bpf diff (issue 12, part 3) on a real program: the
# leak target (tests/targets/leak) grows at main.leakSite and holds steady
# at its other sites. Two snapshots some time apart, taken by goheap-bpf
# and written by the target's own runtime/pprof, are diffed; checked:
# the leaking site ranks first; go tool pprof reads the diff, and its -top
# for every sample index equals its own -top -diff_base OLD NEW; the diff
# equals, sample for sample, the profile go tool pprof -proto -diff_base
# makes (cmpprof); the pprof on stdout when it is a pipe, the table then
# on stderr, and a terminal given the table alone; and the errors (a missing file, a CPU profile, garbage, a
# cut gzip, an unwritable output, bad usage): their statuses and one-line
# messages. Then goroutine profiles: tests/targets/gogrow's own
# /debug/pprof/goroutine before and after it parked 100 more goroutines
# at main.stepSite, and goheap-bpf --profile goroutine's of the same
# moments: main.stepSite first at +100, -top equal to go tool pprof's
# -top -diff_base, the samples those of -proto -diff_base (cmpprof); a
# heap profile against a goroutine one refused (2, one line). Files of
# each run are kept in build/diff/.
#
#   tests/integration/diff.sh BIN      (needs root: BPF)
set -uo pipefail

NAME=diff
. "$(dirname "$0")/lib.sh"
setup "$@"
out=$PWD/build/diff
rm -rf "$out"
mkdir -p "$out"
version=${versions[-1]}
goroot=$(tools/go-toolchains.sh goroot "$version") || die "no Go $version toolchain"
leak=build/targets/$version/exe/leak
tests/targets/build.sh leak exe "$goroot" "$leak" >"$out/build.log" 2>&1 ||
	die "building the leak target failed: $(tail -3 "$out/build.log")"
build_cmpprof "$out"

pid=
cleanup() {
	[ -z "$pid" ] || { kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
}
trap cleanup EXIT
LEAK_RATE=1024 LEAK_PROFILE=$out/own LEAK_READY=$out/ready "$leak" >"$out/leak.log" 2>&1 &
pid=$!
wait_file "$out/ready" "$pid" || die "target not ready: $(tail -2 "$out/leak.log")"

pass=0 fail=0

# snapshot N: goheap-bpf's profile into $out/N.pb.gz, then the target's
# own into $out/own.N (the signal's count).
snapshot() {
	timeout 60 "$bin" --pid "$pid" --format pprof --output "$out/$1.pb.gz" 2>"$out/$1.err" ||
		die "snapshot $1 failed: $(head -c 300 "$out/$1.err")"
	kill -USR1 "$pid"
	wait_file "$out/own.$2" "$pid" || die "the target wrote no own.$2"
}
sleep 0.5
snapshot old 1
sleep 2
snapshot new 2
kill -USR2 "$pid"
wait_file "$out/own.cpu" "$pid" || die "the target wrote no CPU profile"

pprof() {
	"$hostgo" tool pprof -symbolize=none "$@" 2>/dev/null
}

# The report lines, headers but Type: left out (the file names, times).
report() {
	grep -vE '^(File|Build ID|Time|Duration|Comment):'
}

# check NAME OLD NEW: diff OLD NEW and compare it with go tool pprof's.
check() {
	local name=$1 old=$2 new=$3 st first why= i
	timeout 60 "$bin" diff "$old" "$new" -o "$out/$name.pb.gz" -n 5 \
		>"$out/$name.table" 2>"$out/$name.err"
	st=$?
	if [ $st -ne 0 ]; then
		verdict "$name" "exit $st: $(head -c 300 "$out/$name.err")"
		return
	fi
	first=$(sed -n 3p "$out/$name.table" | awk '{print $4}')
	[ "$first" = main.leakSite ] ||
		why="first row's site is '$first', want main.leakSite"
	verdict "$name: the leak ranks first" "$why"
	for i in inuse_space inuse_objects alloc_space alloc_objects; do
		pprof -top -sample_index=$i "$out/$name.pb.gz" | report >"$out/$name.$i.ours"
		pprof -top -sample_index=$i -diff_base "$old" "$new" | report >"$out/$name.$i.theirs"
		why=
		if ! [ -s "$out/$name.$i.ours" ] || ! grep -q flat "$out/$name.$i.ours"; then
			why="go tool pprof -top did not read it"
		elif ! cmp -s "$out/$name.$i.ours" "$out/$name.$i.theirs"; then
			why="-top differs from -diff_base's: $(diff "$out/$name.$i.theirs" "$out/$name.$i.ours" | head -5 | tr '\n' ' ')"
		fi
		verdict "$name: -top -sample_index=$i" "$why"
	done
	pprof -proto -diff_base "$old" "$new" >"$out/$name.ref.pb.gz"
	why=
	"$cmpprof" "$out/$name.ref.pb.gz" "$out/$name.pb.gz" >"$out/$name.cmp" 2>&1 ||
		why=$(head -5 "$out/$name.cmp" | tr '\n' ' ')
	verdict "$name: the samples of go tool pprof -proto -diff_base" "$why"
}
check goheap "$out/old.pb.gz" "$out/new.pb.gz"
check own "$out/own.1" "$out/own.2"

# A pipe takes the pprof, stderr the table.
"$bin" diff "$out/old.pb.gz" "$out/new.pb.gz" -n 5 >"$out/piped.pb.gz" 2>"$out/piped.table"
st=$?
why=
if [ $st -ne 0 ]; then why="exit $st"
elif ! cmp -s "$out/piped.pb.gz" "$out/goheap.pb.gz"; then why="the pprof on stdout is not -o's"
elif ! cmp -s "$out/piped.table" "$out/goheap.table"; then why="the table on stderr is not the one -o gives"
fi
verdict "stdout a pipe: pprof there, table on stderr" "$why"

# A terminal (script(1)'s) gets the table alone, no binary.
script -qec "$bin diff $out/old.pb.gz $out/new.pb.gz -n 5" /dev/null </dev/null |
	tr -d '\r' >"$out/tty.table"
why=
if ! cmp -s "$out/tty.table" "$out/goheap.table"; then
	why="the terminal got other than the table: $(head -c 200 "$out/tty.table" | tr -c '[:print:]\n' '?')"
fi
verdict "stdout a terminal: the table alone" "$why"

# refused NAME STATUS RE ARGS...: the status and one stderr line
# matching RE.
refused() {
	local name=$1 want=$2 re=$3 st n why=
	shift 3
	timeout 60 "$bin" diff "$@" >/dev/null 2>"$out/$name.err"
	st=$?
	n=$(wc -l <"$out/$name.err")
	if [ $st -ne "$want" ]; then why="exit $st, want $want"
	elif [ "$want" -ne 2 ] && [ "$n" -ne 1 ]; then why="stderr has $n lines, want 1"
	elif ! grep -qE "$re" "$out/$name.err"; then why="stderr does not say '$re': $(head -c 200 "$out/$name.err")"
	fi
	verdict "$name: status $want" "$why"
}
head -c 4096 /dev/urandom >"$out/garbage"
head -c 200 "$out/new.pb.gz" >"$out/cut.pb.gz"
refused missing 2 "cannot open $out/nope" "$out/nope" "$out/new.pb.gz"
refused cpu 5 "samples/count, cpu/nanoseconds" "$out/own.1" "$out/own.cpu"
refused garbage 5 "garbage is not a pprof heap or goroutine profile" "$out/garbage" "$out/new.pb.gz"
refused cut 5 "gzip stream is cut short" "$out/old.pb.gz" "$out/cut.pb.gz"
refused unwritable 12 "$out/nodir/d.pb.gz" -o "$out/nodir/d.pb.gz" "$out/old.pb.gz" "$out/new.pb.gz"
refused one-file 2 "want two profiles" "$out/old.pb.gz"
refused three-files 2 "unexpected argument" "$out/old.pb.gz" "$out/new.pb.gz" "$out/new.pb.gz"
[ -e "$out/nodir" ] && verdict "unwritable: nothing left behind" "$out/nodir exists"

# ---- goroutine profiles ----
gogrow=build/targets/$version/exe/gogrow
tests/targets/build.sh gogrow exe "$goroot" "$gogrow" >"$out/gogrow.build.log" 2>&1 ||
	die "building gogrow failed: $(tail -3 "$out/gogrow.build.log")"
mkdir -p "$out/gogrow"
cleanup
GOGROW_DIR=$out/gogrow GOGROW_START=20 GOGROW_STEP=100 "$gogrow" >"$out/gogrow.log" 2>&1 &
pid=$!
wait_file "$out/gogrow/port" "$pid" || die "gogrow not ready: $(tail -2 "$out/gogrow.log")"
port=$(cat "$out/gogrow/port")

# gsnap NAME: the target's own goroutine profile into $out/NAME.own.pb.gz,
# goheap-bpf's into $out/NAME.ours.pb.gz.
gsnap() {
	curl -sf -o "$out/$1.own.pb.gz" "http://127.0.0.1:$port/debug/pprof/goroutine" ||
		die "no goroutine profile from the target's endpoint"
	timeout 60 "$bin" --pid "$pid" --profile goroutine --format pprof \
		--output "$out/$1.ours.pb.gz" 2>"$out/$1.ours.err" ||
		die "goheap-bpf --profile goroutine failed: $(head -c 300 "$out/$1.ours.err")"
}
gsnap gold
kill -USR1 "$pid"
for ((i = 0; i < 100; i++)); do
	grep -q "steps 1" "$out/gogrow/count" 2>/dev/null && break
	sleep 0.05
done
grep -q "steps 1" "$out/gogrow/count" || die "gogrow parked no more goroutines"
gsnap gnew

# gcheck NAME OLD NEW: diff two goroutine profiles, against go tool pprof.
gcheck() {
	local name=$1 old=$2 new=$3 st row why=
	timeout 60 "$bin" diff "$old" "$new" -o "$out/$name.pb.gz" -n 5 \
		>"$out/$name.table" 2>"$out/$name.err"
	st=$?
	if [ $st -ne 0 ]; then
		verdict "$name" "exit $st: $(head -c 300 "$out/$name.err")"
		return
	fi
	row=$(sed -n 3p "$out/$name.table" | awk '{print $1, $2, $3}')
	[ "$row" = "+100 100 main.stepSite" ] ||
		why="first row '$row', want '+100 100 main.stepSite'"
	head -1 "$out/$name.table" | grep -q '^Goroutine growth, NEW minus OLD: +100 goroutines' ||
		why+=" header: $(head -1 "$out/$name.table")"
	verdict "$name: main.stepSite first, +100 goroutines" "$why"
	pprof -top "$out/$name.pb.gz" | report >"$out/$name.ours"
	pprof -top -diff_base "$old" "$new" | report >"$out/$name.theirs"
	why=
	if ! grep -q 'Type: goroutine' "$out/$name.ours"; then
		why="go tool pprof -top did not read it as a goroutine profile"
	elif ! cmp -s "$out/$name.ours" "$out/$name.theirs"; then
		why="-top differs from -diff_base's: $(diff "$out/$name.theirs" "$out/$name.ours" | head -5 | tr '\n' ' ')"
	fi
	verdict "$name: -top equals -top -diff_base" "$why"
	pprof -proto -diff_base "$old" "$new" >"$out/$name.ref.pb.gz"
	why=
	"$cmpprof" "$out/$name.ref.pb.gz" "$out/$name.pb.gz" >"$out/$name.cmp" 2>&1 ||
		why=$(head -5 "$out/$name.cmp" | tr '\n' ' ')
	verdict "$name: the samples of go tool pprof -proto -diff_base" "$why"
}
gcheck goroutine-own "$out/gold.own.pb.gz" "$out/gnew.own.pb.gz"
gcheck goroutine-ours "$out/gold.ours.pb.gz" "$out/gnew.ours.pb.gz"
refused kinds 2 "OLD is a heap profile and NEW a goroutine one: diff two profiles of one kind" \
	"$out/old.pb.gz" "$out/gnew.own.pb.gz"

echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
