#!/usr/bin/env bash
# repeat.sh - repeated snapshots of one process by one long-lived
# collector (issue 18): goheap-bpf serve keeps each process's bucket
# stacks between reads, so a repeated read walks only the buckets that
# are new and takes the others' stacks from what it kept. Its target is
# busy (tests/targets/churn: garbage at 1 MB/s with GOGC=400, a GC
# cycle every 15 s or so, longer than a read even on a loaded machine,
# and new allocation stacks appearing all the time, CHURN_GROW a second,
# so every read meets new buckets in front of the kept ones).
# The server reads it ten times through /pid/PID/debug/pprof/heap; each
# read is bracketed by the target's GC count (busy.sh's way) and
# followed by a fresh first read (goheap-bpf --pid: a new collector) and
# the target's own profile. When no GC cycle ended from before the read
# to after its own profile, the served profile must equal both the
# target's own and the fresh read's (cmpprof); reads a cycle fell into
# are counted but not compared, as are reads before the second GC (the
# runtime publishes nothing before it). At least ten compared reads, in
# at most forty. The newest release of GO_VERSIONS only: the kept stacks' path
# does not depend on the release.
#
#   tests/integration/repeat.sh BIN      (needs root: BPF)
set -uo pipefail

NAME=repeat
. "$(dirname "$0")/lib.sh"
setup "$@"
command -v curl >/dev/null || die "no curl: make deps installs it"
out=$PWD/build/repeat
rm -rf "$out"
mkdir -p "$out"
t0=$(date +%s)
v=${versions[$((${#versions[@]} - 1))]}
tag=$(printf 'rp%x' $$)
exe=$out/${tag}c
tests/targets/build.sh churn exe "$(tools/go-toolchains.sh goroot "$v")" \
	"build/targets/$v/exe/churn" >"$out/build.log" 2>&1 ||
	die "building churn with Go $v failed: $(tail -3 "$out/build.log")"
cp "build/targets/$v/exe/churn" "$exe"
build_cmpprof "$out"

pid= spid=
trap '[ -n "$pid" ] && kill -9 "$pid"; [ -n "$spid" ] && kill -9 "$spid"; wait' EXIT 2>/dev/null

GOGC=400 CHURN_PROFILE=$out/own.pb.gz CHURN_MBPS=1 CHURN_STACKS=2000 CHURN_GROW=50 \
	"$exe" >"$out/target.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
	grep -q '^ready' "$out/target.log" && break
	kill -0 "$pid" 2>/dev/null || die "churn died: $(tail -2 "$out/target.log")"
	sleep 0.1
done
grep -q '^ready' "$out/target.log" || die "churn not ready"

"$bin" serve --listen 127.0.0.1:0 --comm "^${tag}c\$" 2>"$out/serve.log" &
spid=$!
port=$(serve_port "$out/serve.log" "$spid")
[ -n "$port" ] || die "the server did not start: $(tail -3 "$out/serve.log")"

pass=0 fail=0 compared=0 reads=0 skipped=0
# Not while the runtime publishes every future cycle (lib.sh's
# churn_settle; one GC every 15 s or so, longer on a loaded machine),
# and no read made before the second GC is compared.
churn_settle "$pid" "$out/own.pb.gz" || die "no GC count from the target"
g=
while [ $compared -lt 10 ] && [ $reads -lt 40 ]; do
	# Writing its own profile turns the target's GC off for a while: the
	# cycle that may start when it is back on, over before the next read
	# (3 s at most).
	for _ in $(seq 30); do
		[ "$(churn_gc "$pid" "$out/own.pb.gz")" = "${g#* }" ] || break
		sleep 0.1
	done
	reads=$((reads + 1))
	d=$out/read$reads
	mkdir -p "$d"
	g0=$(churn_gc "$pid" "$out/own.pb.gz") || die "no GC count from the target"
	code=$(curl -sS --max-time 60 -o "$d/served.pb.gz" -w '%{http_code}' \
		"http://127.0.0.1:$port/pid/$pid/debug/pprof/heap" 2>"$d/curl.err")
	timeout 120 "$bin" --pid "$pid" --format pprof --output "$d/fresh.pb.gz" 2>"$d/fresh.err"
	st=$?
	kill -USR1 "$pid"
	g=$(await "$out/own.pb.gz.gc") || die "no profile from the target"
	mv "$out/own.pb.gz" "$d/own.pb.gz"
	if [ "$code" != 200 ] || [ $st -ne 0 ]; then
		fail=$((fail + 1))
		echo "FAIL read $reads: served $code ($(head -c 200 "$d/curl.err")), fresh exit $st ($(head -c 200 "$d/fresh.err"))"
		continue
	fi
	if [ "$g" != "$g0 $g0" ]; then
		skipped=$((skipped + 1))
		echo "     read $reads: GC count $g0 before, \"$g\" around its own profile: not compared"
		continue
	fi
	if [ "$g0" -lt 2 ]; then
		skipped=$((skipped + 1))
		echo "     read $reads: GC count $g0, nothing published yet (every future cycle counts): not compared"
		continue
	fi
	compared=$((compared + 1))
	why=
	"$cmpprof" "$d/own.pb.gz" "$d/served.pb.gz" >"$d/own.cmp" 2>&1 || why="differs from its own profile"
	"$cmpprof" "$d/fresh.pb.gz" "$d/served.pb.gz" >"$d/fresh.cmp" 2>&1 || why="${why:+$why, }differs from a fresh read"
	if [ -z "$why" ]; then
		pass=$((pass + 1))
		echo "PASS read $reads (GC cycle $g0): $(tail -1 "$d/own.cmp")"
	else
		fail=$((fail + 1))
		echo "FAIL read $reads (GC cycle $g0): $why (files in $d)"
		head -5 "$d/own.cmp" "$d/fresh.cmp" | sed 's/^/    /'
	fi
done
[ $compared -ge 10 ] || {
	fail=$((fail + 1))
	echo "FAIL only $compared of $reads reads fell within one GC cycle"
}

kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=
kill -TERM "$spid"
wait "$spid"
st=$?
spid=
if [ $st -eq 0 ]; then
	pass=$((pass + 1))
	echo "PASS server-exit (SIGTERM: exit 0)"
else
	fail=$((fail + 1))
	echo "FAIL server-exit: exit $st: $(tail -3 "$out/serve.log")"
fi
echo "repeat: $reads reads, $compared compared, $skipped with a GC cycle between ($(($(date +%s) - t0)) s)"
echo "repeat: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
