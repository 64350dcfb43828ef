#!/usr/bin/env bash
# goroutines.sh - the goroutine profile (--profile goroutine) against the
# target's own /debug/pprof/goroutine. tests/targets/goroutines parks
# goroutines in known states (channels, select, sleep, the sync types, a
# pipe read in a system call, a net.Conn read in netpoll, a nested one,
# labelled ones) and serves its own endpoint; goheap-bpf reads it first,
# then the target's own profile and texts are fetched: the debug=0 pprof
# profiles compared by cmpprof (google/pprof/profile: the same samples,
# stacks, counts and labels, but the serving goroutine's), and the texts
# by goroutinecmp.py: debug=1 identical to the byte, debug=2 the same
# goroutine IDs and states, apart from the goroutine serving the request and the connection
# reader it started, which only the target's own texts can hold (they
# are taken out of theirs: goroutinecmp.py says exactly how). Every PC of
# every stack we print must be in a function of the binary, as
# `go tool addr2line` says. Every supported release, plain and PIE. Then a
# busy target (goroutines starting and ending all the time), read READS
# times (default 20) on the oldest and newest release: every PC in a
# function, every stack whole (ending in runtime.goexit) but running goroutines' samples. Last,
# goheap-bpf serve's /pid/PID/debug/pprof/goroutine on the newest release
# given: the profile and the debug=1 text against the target's own. Then
# the target built as a Go c-shared library (newest and oldest release
# given), two copies loaded by the C host (tests/targets/cshared/host.c),
# each runtime serving its own endpoint: each runtime's profile (pprof and
# debug=1 by procmem, pprof by iter; --runtime FILE) against its own;
# without --runtime one file per runtime (FILE, FILE.2), and pprof on
# stdout refused; each runtime's counters (--format json's "runtime")
# against its goroutine count; serve's /pid/PID/runtime/N/ route.
#
#   tests/integration/goroutines.sh BIN
#
# Environment: GO_VERSIONS="1.18.10 1.27.4" limits the releases;
# BACKEND=iter|procmem|auto reads with that backend (default procmem);
# MODES="exe" limits the build modes. Needs root (another process's
# memory).
set -uo pipefail

NAME=goroutines
. "$(dirname "$0")/lib.sh"
setup "$@"
read -ra modes <<<"${MODES:-exe pie}"
backend=${BACKEND:-procmem}
out=$PWD/build/integration/goroutines
mkdir -p "$out" build/targets
start=$(date +%s)

# The target built by every release in each mode, two at a time.
list=build/targets/$NAME.builds
: >"$list"
for v in "${versions[@]}"; do
	goroot=$(tools/go-toolchains.sh goroot "$v") || die "no Go $v toolchain"
	for m in "${modes[@]}"; do echo "$v $m $goroot" >>"$list"; done
done
# The c-shared case's releases: the newest and the oldest given.
read -r -a shared_versions <<<"$(printf '%s\n' "${versions[@]}" | sort -uV | sed -n '1p;$p' | sort -ruV | tr '\n' ' ')"
for v in "${shared_versions[@]}"; do
	echo "$v c-shared $(tools/go-toolchains.sh goroot "$v")" >>"$list"
done
# shellcheck disable=SC2016
xargs -P 2 -L 1 sh -c '
	dir=build/targets/$0/$1
	mkdir -p "$dir"
	tests/targets/build.sh goroutines "$1" "$2" "$dir/goroutines" >"$dir/goroutines.log" 2>&1 ||
		{ echo "goroutines: building with Go $0 ($1) failed:"; cat "$dir/goroutines.log"; exit 1; }
' <"$list" || die "target builds failed"

build_cmpprof "$out"
build_host
# What only the target's own profile holds (goroutinecmp.py's SERVING and
# READER).
SERVING_FUNCS='runtime/pprof.writeGoroutine,net/http.(*connReader).backgroundRead,net/http.(*connReader).startBackgroundRead'
newest_go=$(tools/go-toolchains.sh goroot "$(tools/go-toolchains.sh list | tail -1)")/bin/go
target=
trap kill_target EXIT
trap 'exit 130' INT TERM

# load_bias PID EXE: the load bias of EXE in process PID.
load_bias() {
	python3 - "$1" "$2" <<'PY'
import subprocess, sys
pid, exe = sys.argv[1:3]
real = subprocess.run(["readlink", "-f", "/proc/%s/exe" % pid],
                      capture_output=True, text=True).stdout.strip()
start = None
for line in open("/proc/%s/maps" % pid):
    f = line.split()
    if len(f) >= 6 and f[5] == real and int(f[2], 16) == 0:
        start = int(f[0].split("-")[0], 16)
        break
hdr = subprocess.run(["readelf", "-lW", exe], capture_output=True,
                     text=True).stdout
vaddr = min(int(l.split()[2], 16) for l in hdr.splitlines()
            if l.strip().startswith("LOAD"))
print(start - vaddr)
PY
}

# every_pc_resolves GO EXE PID TEXT: each PC of TEXT's "@" lines, less the
# load bias, is in a function by go tool addr2line (PC-1: return PCs).
# The newest release's addr2line reads every release's binaries; 1.18's
# answers "?" for every address of a PIE.
every_pc_resolves() {
	local go=$1 exe=$2 pid=$3 text=$4 bias
	bias=$(load_bias "$pid" "$exe") || return 1
	grep -o ' 0x[0-9a-f]*' <(grep '^[0-9]* @' "$text") | sort -u |
		while read -r pc; do printf '0x%x\n' $((pc - 1 - bias)); done >"$dir/pcs"
	"$go" tool addr2line "$exe" <"$dir/pcs" >"$dir/a2l" || return 1
	if awk 'NR % 2 == 1 && $0 == "?"' "$dir/a2l" | grep -q .; then
		echo "    a PC in no function: $(paste - - <"$dir/a2l" | grep -m1 '^?')"
		return 1
	fi
	echo "    addr2line: $(wc -l <"$dir/pcs") PCs, each in a function"
}

# bounded DIR: --max-goroutines 5 reads the first 5 of allgs, says why on
# stderr and ends partial (11); at most 5 goroutines in the text.
bounded() {
	local st total
	timeout 60 "$bin" --pid "$target" --backend "$backend" --profile goroutine --format legacy \
		--max-goroutines 5 --output "$1/bounded.txt" 2>"$1/bounded.err"
	st=$?
	total=$(sed -n '1s/^goroutine profile: total //p' "$1/bounded.txt")
	if [ $st -ne 11 ] || ! grep -q 'partial profile written: more than --max-goroutines 5' "$1/bounded.err" ||
		[ -z "$total" ] || [ "$total" -gt 5 ]; then
		echo "    --max-goroutines 5: exit $st, total '$total': $(head -c 300 "$1/bounded.err")"
		return 1
	fi
	echo "    --max-goroutines 5: partial (11), $total goroutines"
}

# theirs PORT DEBUG...: the target's own /debug/pprof/goroutine?debug=N
# into $dir/theirsN.txt, each N, over one connection after a first
# request: the goroutine accepting connections wakes for a new one, and
# would be caught by the target's own profile before it parks again.
theirs() {
	local url=http://127.0.0.1:$1/debug/pprof/goroutine d args=()
	shift
	for d in "$@"; do args+=(-o "$dir/theirs$d.txt" "$url?debug=$d"); done
	curl -sf -o /dev/null "$url?debug=1" "${args[@]}" ||
		{ echo "    the target's own /debug/pprof/goroutine did not answer"; return 1; }
}

# start_target CASE EXE [VAR=VALUE...]: EXE started in a fresh
# dir=$out/CASE with the variables and GOROUTINES_READY=$dir/ready, as
# $target; 1, saying why, when it never got ready.
start_target() {
	dir=$out/$1
	local exe=$2
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	env "$@" GOROUTINES_READY="$dir/ready" "$exe" >"$dir/target.log" 2>&1 &
	target=$!
	wait_file "$dir/ready" "$target" && return 0
	echo "    target not ready: $(tail -3 "$dir/target.log")"
	return 1
}

# run_case VERSION MODE: 0 when the texts agree; reasons on stdout.
run_case() {
	local v=$1 m=$2 ok=0 st port exe
	exe=build/targets/$v/$m/goroutines
	start_target "$v-$m" "$exe" || return 1
	port=$(cat "$dir/ready")
	for d in 0 1 2; do
		fmt=legacy
		[ $d = 0 ] && fmt=pprof
		[ $d = 2 ] && fmt=goroutines
		timeout 60 "$bin" --pid "$target" --backend "$backend" --profile goroutine --format $fmt \
			--output "$dir/ours$d.txt" -v 2>"$dir/ours$d.err"
		st=$?
		if [ $st -ne 0 ]; then
			echo "    --format $fmt: exit $st: $(head -c 400 "$dir/ours$d.err")"
			ok=1
		fi
	done
	theirs "$port" 0 1 2 || ok=1
	if [ $ok -eq 0 ]; then
		for d in 1 2; do
			python3 tests/integration/goroutinecmp.py debug$d "$dir/theirs$d.txt" \
				"$dir/ours$d.txt" >"$dir/cmp$d.txt" 2>&1 || ok=1
			sed 's/^/    /' "$dir/cmp$d.txt" | head -40
		done
		# debug=0: the same samples (stacks, counts, labels) but the
		# serving goroutine's and its connection reader's (and, as
		# goroutinecmp.py leaves out, frameless ones).
		"$cmpprof" -dropstack "$SERVING_FUNCS" "$dir/theirs0.txt" "$dir/ours0.txt" \
			>"$dir/cmp0.txt" 2>&1 || ok=1
		sed 's/^/    debug=0: /' "$dir/cmp0.txt" | tail -22
		sed 's/^goheap-bpf: /    /' "$dir/ours1.err"
		every_pc_resolves "$newest_go" "$exe" \
			"$target" "$dir/ours1.txt" || ok=1
		bounded "$dir" || ok=1
	fi
	kill_target
	return $ok
}

# busy_case VERSION: the target with GOROUTINES_CHURN=16 (goroutines
# starting and ending all the time, two spinning) read READS times: each
# read must succeed, every PC of every stack be in a function and every
# stack be whole (goroutinecmp.py busy).
busy_case() {
	local v=$1 ok=0 st i bias exe depth
	exe=build/targets/$v/exe/goroutines
	start_target "$v-busy" "$exe" GOROUTINES_CHURN="${CHURN:-16}" || return 1
	for ((i = 1; i <= READS; i++)); do
		timeout 60 "$bin" --pid "$target" --backend "$backend" --profile goroutine --format legacy \
			--output "$dir/ours$i.txt" -v 2>>"$dir/ours.err"
		st=$?
		[ $st -eq 0 ] || { echo "    read $i: exit $st: $(tail -c 400 "$dir/ours.err")"; ok=1; }
	done
	bias=$(load_bias "$target" "$exe") || ok=1
	kill_target
	[ $ok -eq 0 ] || return 1
	cat "$dir"/ours*.txt | grep '^[0-9]* @' | grep -o ' 0x[0-9a-f]*' | sort -u |
		while read -r pc; do printf '0x%x\n' $((pc - 1 - bias)); done >"$dir/pcs"
	# The same PCs, in the order goroutinecmp.py sorts them (numerically).
	python3 -c 'import sys; print("\n".join(hex(p) for p in sorted(int(l, 16) for l in open(sys.argv[1]))))' \
		"$dir/pcs" >"$dir/pcs.sorted"
	"$newest_go" tool addr2line "$exe" <"$dir/pcs.sorted" >"$dir/a2l" || return 1
	# The goroutine profile keeps 32 frames up to 1.22, 128 from 1.23: a
	# deeper stack is cut there, by the runtime as by us.
	case $v in 1.1[89].* | 1.2[012].*) depth=32 ;; *) depth=128 ;; esac
	python3 tests/integration/goroutinecmp.py busy "$dir/pcs.sorted" "$dir/a2l" \
		"$depth" "$dir"/ours*.txt >"$dir/cmp.txt" 2>&1 || ok=1
	sed 's/^/    /' "$dir/cmp.txt" | head -20
	awk '{ for (i = 1; i <= NF; i++) if ($i == "moved") m += $(i-1) } END { print "    moved while read, left out: " m+0 }' "$dir/ours.err"
	return $ok
}

# start_serve: goheap-bpf serve on a free port (its log in $dir), as
# $spid on $sport; 1, saying why, when it does not start.
start_serve() {
	"$bin" serve --listen 127.0.0.1:0 --backend "$backend" 2>"$dir/serve.log" &
	spid=$!
	sport=$(serve_port "$dir/serve.log" "$spid") && return 0
	echo "    serve did not start: $(tail -3 "$dir/serve.log")"
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	return 1
}

# serve_case VERSION: goheap-bpf serve's /pid/PID/debug/pprof/goroutine
# against the target's own: the profile (a file named goroutine) by
# cmpprof and go tool pprof -raw, ?debug=1 by goroutinecmp.py, ?debug=2
# a text of every goroutine.
serve_case() {
	local v=$1 ok=0 exe tport code url
	exe=build/targets/$v/exe/goroutines
	start_target "$v-serve" "$exe" || return 1
	tport=$(cat "$dir/ready")
	start_serve || { kill_target; return 1; }
	url=http://127.0.0.1:$sport/pid/$target/debug/pprof/goroutine
	for d in 0 1 2; do
		code=$(curl -sS --max-time 60 -o "$dir/served$d.txt" -D "$dir/served$d.hdr" \
			-w '%{http_code}' "$url?debug=$d" 2>&1)
		[ "$code" = 200 ] || { echo "    ?debug=$d: status $code: $(head -c 300 "$dir/served$d.txt")"; ok=1; }
	done
	grep -qi '^content-disposition: attachment; filename="goroutine"' "$dir/served0.hdr" ||
		{ echo "    ?debug=0: no Content-Disposition filename goroutine"; ok=1; }
	"$hostgo" tool pprof -raw "$url" >"$dir/raw.txt" 2>"$dir/raw.err" &&
		grep -q '^goroutine/count$' "$dir/raw.txt" ||
		{ echo "    go tool pprof -raw $url: $(head -c 300 "$dir/raw.err")"; ok=1; }
	kill -TERM "$spid"
	wait "$spid"
	theirs "$tport" 0 1 || ok=1
	if [ $ok -eq 0 ]; then
		"$cmpprof" -dropstack "$SERVING_FUNCS" "$dir/theirs0.txt" "$dir/served0.txt" \
			>"$dir/cmp0.txt" 2>&1 || ok=1
		sed 's/^/    served: /' "$dir/cmp0.txt" | tail -22
		python3 tests/integration/goroutinecmp.py debug1 "$dir/theirs1.txt" \
			"$dir/served1.txt" >"$dir/cmp1.txt" 2>&1 || ok=1
		sed 's/^/    served /' "$dir/cmp1.txt" | head -20
		grep -q "^goroutine [0-9]* \[" "$dir/served2.txt" ||
			{ echo "    ?debug=2: not the stacks' text: $(head -c 200 "$dir/served2.txt")"; ok=1; }
		echo "    go tool pprof -raw: $(grep -c '^ *[0-9]*: ' "$dir/raw.txt") lines of samples and locations"
	fi
	kill_target
	return $ok
}

# cshared_check NAME THEIRS OURS.pb.gz [OURS.txt]: one runtime's profile
# (cmpprof, but the serving goroutines) and debug=1 text (goroutinecmp.py)
# against its own, THEIRS0.txt and THEIRS1.txt.
cshared_check() {
	local name=$1 ok=0
	"$cmpprof" -dropstack "$SERVING_FUNCS" "${2}0.txt" "$3" >"$dir/$name.cmp0" 2>&1 || ok=1
	: >"$dir/$name.cmp1"
	[ -z "${4:-}" ] || python3 tests/integration/goroutinecmp.py debug1 "${2}1.txt" "$4" >"$dir/$name.cmp1" 2>&1 || ok=1
	echo "    $name: $(tail -1 "$dir/$name.cmp0" | sed 's/^cmpprof: //')${4:+; $(tail -1 "$dir/$name.cmp1")}"
	[ $ok -eq 0 ] || head -20 "$dir/$name.cmp0" "$dir/$name.cmp1" | sed 's/^/      /'
	return $ok
}

# cshared_case VERSION: the C host with two copies of the target built as
# a c-shared library, each runtime read by file (--runtime), with procmem
# (the profile and the text) and iter (the profile: its BPF load is the
# slow part), then without --runtime, a sweep (--all: a file per
# runtime), its counters and serve's route;
# every read before the runtimes' own profiles are fetched.
cshared_case() {
	local v=$1 ok=0 b l st f g found file n want got libs
	dir=$out/$v-cshared
	rm -rf "$dir"
	mkdir -p "$dir"
	declare -A lib
	lib[a]=$(realpath "build/targets/$v/c-shared/goroutines")
	lib[b]=$dir/libb.so
	cp "${lib[a]}" "${lib[b]}"
	"$host" "$dir/host.ready" "${lib[a]}" "$dir/a.unused" "$dir/a.ready" \
		"${lib[b]}" "$dir/b.unused" "$dir/b.ready" >"$dir/target.log" 2>&1 &
	target=$!
	wait_file "$dir/host.ready" "$target" || { echo "    host not ready: $(tail -3 "$dir/target.log")"; return 1; }
	for b in procmem iter; do
		for l in a b; do
			for f in pprof legacy; do
				[ $b$f != iterlegacy ] || continue
				timeout 60 "$bin" --pid "$target" --backend $b --profile goroutine --runtime "${lib[$l]}" \
					--format $f --output "$dir/ours-$b-$l.$f" 2>"$dir/ours-$b-$l.$f.err" ||
					{ echo "    $b $l --format $f: exit $?: $(head -c 300 "$dir/ours-$b-$l.$f.err")"; ok=1; }
			done
		done
	done
	timeout 60 "$bin" --pid "$target" --backend "$backend" --profile goroutine --format pprof \
		--output "$dir/all.pb.gz" 2>"$dir/all.err" ||
		{ echo "    without --runtime: exit $?: $(head -c 300 "$dir/all.err")"; ok=1; }
	timeout 60 "$bin" --all --comm "$(cat "/proc/$target/comm")" --backend procmem --profile goroutine \
		--output-dir "$dir/sweep" >"$dir/sweep.out" 2>"$dir/sweep.err" ||
		{ echo "    --all: exit $?: $(head -c 300 "$dir/sweep.err")"; ok=1; }
	timeout 60 "$bin" --pid "$target" --profile goroutine --format pprof >/dev/null 2>"$dir/stdout.err"
	st=$?
	[ $st -eq 2 ] && grep -q "holds 2 Go runtimes" "$dir/stdout.err" ||
		{ echo "    pprof on stdout: exit $st, not refused: $(head -c 300 "$dir/stdout.err")"; ok=1; }
	timeout 60 "$bin" --pid "$target" --backend procmem --format json --output "$dir/heap.json" 2>"$dir/heap.err" ||
		{ echo "    --format json: exit $?: $(head -c 300 "$dir/heap.err")"; ok=1; }
	start_serve || { kill_target; return 1; }
	for n in 1 2; do
		curl -sS --max-time 60 -o "$dir/served$n.pb.gz" -w '%{http_code}' \
			"http://127.0.0.1:$sport/pid/$target/runtime/$n/debug/pprof/goroutine" >"$dir/served$n.code" 2>&1
	done
	kill -TERM "$spid"
	wait "$spid"
	for l in a b; do
		theirs "$(cat "$dir/$l.ready")" 0 1 || ok=1
		mv "$dir/theirs0.txt" "$dir/theirs-${l}0.txt"
		mv "$dir/theirs1.txt" "$dir/theirs-${l}1.txt"
	done
	kill_target
	[ $ok -eq 0 ] || return 1
	for l in a b; do
		cshared_check "procmem-$l" "$dir/theirs-$l" "$dir/ours-procmem-$l.pprof" "$dir/ours-procmem-$l.legacy" || ok=1
		cshared_check "iter-$l" "$dir/theirs-$l" "$dir/ours-iter-$l.pprof" || ok=1
	done
	# Without --runtime, and served: each runtime's own, one of each.
	sweep=$(cd "$dir" && ls sweep/*.pb.gz 2>/dev/null | tr '\n' ' ')
	for f in all.pb.gz all.pb.gz.2 served1.pb.gz served2.pb.gz $sweep; do
		found=
		for l in a b; do
			"$cmpprof" -dropstack "$SERVING_FUNCS" "$dir/theirs-${l}0.txt" "$dir/$f" >/dev/null 2>&1 && found+=$l
		done
		echo "$found" >"$dir/$f.found"
		[ ${#found} = 1 ] || { echo "    $f equals not exactly one runtime's own: '$found'"; ok=1; }
	done
	[ "$(cat "$dir/all.pb.gz.found" "$dir/all.pb.gz.2.found" | sort | tr -d '\n')" = ab ] ||
		{ echo "    FILE and FILE.2 are not one runtime each"; ok=1; }
	[ "$(cat "$dir/served1.code" "$dir/served2.code" | tr -d '\n')" = 200200 ] &&
		[ "$(cat "$dir/served1.pb.gz.found" "$dir/served2.pb.gz.found" | sort | tr -d '\n')" = ab ] ||
		{ echo "    served /runtime/1 and /runtime/2: status $(cat "$dir/served1.code") $(cat "$dir/served2.code"), not one runtime each"; ok=1; }
	[ ! -e "$dir/all.pb.gz.3" ] || { echo "    a third profile was written"; ok=1; }
	[ "$(cat "$dir"/sweep/*.pb.gz.found 2>/dev/null | sort | tr -d '\n')" = ab ] ||
		{ echo "    --all: not one file per runtime ($sweep)"; ok=1; }
	# Each runtime's counters: its goroutines, as our debug=1 counted them
	# (the same total as its own, the serving ones aside).
	for f in heap.json heap.json.2; do
		[ -e "$dir/$f" ] || { echo "    no $f"; ok=1; continue; }
		file=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runtime_file"])' "$dir/$f")
		l=a
		[ "$file" = "${lib[b]}" ] && l=b
		want=$(sed -n '1s/^goroutine profile: total //p' "$dir/ours-procmem-$l.legacy")
		got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runtime"]["goroutines"])' "$dir/$f")
		[ "$got" = "$want" ] || { echo "    $f ($file): goroutines $got, its profile $want"; ok=1; }
		libs+="$l"
	done
	[ "$libs" = ab ] || [ "$libs" = ba ] || { echo "    the JSON's runtimes: $libs"; ok=1; }
	echo "    counters: each runtime's goroutines as its profile counts them; served and FILE.2 checked"
	return $ok
}

READS=${READS:-20}
pass=0 fail=0
for v in "${versions[@]}"; do
	for m in "${modes[@]}"; do
		timed_case "go$v $m" "$out/$v-$m" run_case "$v" "$m"
	done
done
# Busy on the oldest and newest release: the layouts a read needs are the
# exact cases' above, on every release.
for v in $(printf '%s\n' "${versions[@]}" | sort -V | sed -n '1p;$p' | uniq); do
	timed_case "go$v busy" "$out/$v-busy" busy_case "$v"
done
# The server, on the newest release given.
v=$(printf '%s\n' "${versions[@]}" | sort -V | tail -1)
timed_case "go$v serve" "$out/$v-serve" serve_case "$v"
for v in "${shared_versions[@]}"; do
	timed_case "go$v c-shared" "$out/$v-cshared" cshared_case "$v"
done
echo "goroutines: $(($(date +%s) - start)) s"
echo "goroutines: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
