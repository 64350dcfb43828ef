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
# messages. Files of each run are kept in build/diff/.
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
refused garbage 5 "garbage is not a pprof heap profile" "$out/garbage" "$out/new.pb.gz"
refused cut 5 "gzip stream is cut short" "$out/old.pb.gz" "$out/cut.pb.gz"
refused unwritable 12 "$out/nodir/d.pb.gz" -o "$out/nodir/d.pb.gz" "$out/old.pb.gz" "$out/new.pb.gz"
refused one-file 2 "want two profiles" "$out/old.pb.gz"
refused three-files 2 "unexpected argument" "$out/old.pb.gz" "$out/new.pb.gz" "$out/new.pb.gz"
[ -e "$out/nodir" ] && verdict "unwritable: nothing left behind" "$out/nodir exists"

echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
