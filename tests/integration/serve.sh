#!/usr/bin/env bash
# serve.sh - goheap-bpf serve (issue 11): the HTTP server must give each
# process's profile as its own net/http/pprof would, list the processes
# its filters expose, export their totals as metrics, and stand up to
# hostile and crowded clients. Live heapgen targets built with three Go
# releases, renamed ${tag}a..c so that --comm '^${tag}[a-z]$' exposes
# exactly this test's processes, a C host with two Go c-shared libraries
# (${tag}h), a victim (${tag}v), a program that is not Go (${tag}n), a
# program serving its own net/http/pprof (${tag}p, tests/targets/
# pprofsrv), one allocating at a known pace (${tag}r, churn) and one
# with goroutines parked in known states (${tag}g, goroutines). The
# targets but churn run with GOGC=off: no forced GC (every 2 minutes)
# changes their buckets after they wrote (or while they serve) their own
# profiles.
#
# Servers (each on 127.0.0.1, a port of its own, --comm as above):
#   A  plain: the profiles, compared with each target's own profile by
#      cmpprof (fetched with curl) and through go tool pprof -raw URL (the
#      real client); allocs likewise; HEAD; the headers net/http/pprof
#      sends; both runtimes of the host and the header naming the other;
#      /processes and /targets exactly the test's processes; /metrics
#      totals equal to each own profile's, promtool check metrics without
#      a word; hostile requests (bad, negative, huge PIDs, a non-Go PID, a
#      PID the filter hides, traversal plain and encoded, overlong
#      targets, POST and PUT, refused query options); 200 concurrent
#      scrapes (200 or 503 each, server alive, its peak RSS bounded).
#      What net/http/pprof adds, against pprofsrv's own answers for the
#      same snapshot: ?debug=1 (legacycmp.py), heap and allocs through go
#      tool pprof -raw on both URLs; ?seconds=2 on churn through go tool
#      pprof -seconds 2 (alloc bytes at churn's pace), its headers, and
#      seconds past the server's timeout refused. A real Prometheus
#      (Debian's) scraping /metrics and the targets /targets lists: its
#      HTTP API has each process's in-use series with its labels.
#   B  --token-file: 401 without or with a wrong token, 200 with it,
#      /healthz open; one log line per request, as documented.
#   C  paused between opening and reading (GOHEAP_TEST_PAUSE_MS): a target
#      killed during its scrape is 410 and the server goes on; SIGTERM
#      during a request lets it complete (200, its own profile), exit 0.
#   D  root with its bounding set cut to tools/deploy/daemonset.yaml's
#      five capabilities (CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE,
#      CAP_DAC_READ_SEARCH, CAP_CHECKPOINT_RESTORE): the heap of a
#      pprofsrv run by nobody equal to its own, and /metrics.
# Every server ends by SIGTERM with status 0 (LeakSanitizer included,
# under make test's SANITIZE=1 build).
#
#   tests/integration/serve.sh BIN      (needs root: BPF)
set -uo pipefail

NAME=serve
. "$(dirname "$0")/lib.sh"
setup "$@"
for c in curl prometheus promtool python3 gcc; do
	command -v $c >/dev/null || die "no $c: make deps installs it"
done
out=$PWD/build/serve
rm -rf "$out"
mkdir -p "$out"/{bin,own,pprof}
check=$PWD/tests/integration/servecheck.py
t0=$(date +%s)
tag=$(printf 'sv%x' $$)
# Peak RSS a server may reach through the 200 concurrent scrapes (the
# ASan build's, which make test runs, is the larger).
RSS_MAX_MB=${SERVE_RSS_MAX_MB:-400}

read -r -a all <<<"$(tools/go-toolchains.sh list | tr '\n' ' ')"
n=${#all[@]}
rel=("${all[1]}" "${all[$((n / 2))]}" "${all[$((n - 1))]}")
versions=("${rel[@]}")
build_targets exe
versions=("${rel[1]}" "${rel[2]}")
build_targets c-shared
build_host
build_cmpprof "$out"
# One release each for the two programs of one shape.
for t in "pprofsrv ${rel[2]}" "churn ${rel[1]}" "goroutines ${rel[2]}"; do
	set -- $t
	tests/targets/build.sh "$1" exe "$(tools/go-toolchains.sh goroot "$2")" \
		"build/targets/$2/exe/$1" >"$out/$1.build" 2>&1 || die "building $1 failed: $(tail -3 "$out/$1.build")"
done

procs=() servers=()
cleanup() {
	local p
	for p in "${servers[@]}" "${procs[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }

# ---- targets ----
letters=(a b c)
declare -A own comm ver
start_heapgen() { # LETTER VERSION RATE: a heapgen named ${tag}LETTER
	local l=$1 exe=$out/bin/$tag$1
	cp "build/targets/$2/exe/heapgen" "$exe"
	GOGC=off HEAPGEN_RATE=$3 HEAPGEN_PROFILE=$out/own/$l.pb.gz HEAPGEN_READY=$out/own/$l.ready \
		"$exe" >"$out/own/$l.log" 2>&1 &
	procs+=($!)
	gp=$!
	own[$gp]=$out/own/$l.pb.gz
	comm[$gp]=$tag$l
	ver[$gp]=go$2
}
gopids=()
for i in 0 1 2; do
	start_heapgen "${letters[$i]}" "${rel[$i]}" $((4096 + 512 * i))
	gopids+=("$gp")
done
start_heapgen v "${rel[2]}" 8192
victim=$gp
cp "$host" "$out/bin/${tag}h"
liba=$PWD/build/targets/${rel[1]}/c-shared/heapgen
libb=$out/bin/libnext.so
cp "build/targets/${rel[2]}/c-shared/heapgen" "$libb"
GOGC=off HEAPGEN_RATE=4096 "$out/bin/${tag}h" "$out/own/h.ready" "$liba" "$out/own/ha.pb.gz" "$out/own/ha.ready" \
	"$libb" "$out/own/hb.pb.gz" "$out/own/hb.ready" >"$out/own/h.log" 2>&1 &
procs+=($!)
hostpid=$!
cp "$(command -v sleep)" "$out/bin/${tag}n"
"$out/bin/${tag}n" 600 &
procs+=($!)
nongo=$!
cp "build/targets/${rel[2]}/exe/pprofsrv" "$out/bin/${tag}p"
GOGC=off PPROFSRV_RATE=4096 PPROFSRV_READY=$out/own/p.port "$out/bin/${tag}p" >"$out/own/p.log" 2>&1 &
procs+=($!)
psrv=$!
# churn: 25 MiB/s of 64 KiB objects (its pace is a whole number of them
# per 10 ms), collected by itself every few MiB.
CHURN_RATE=$((25 << 20))
cp "build/targets/${rel[1]}/exe/churn" "$out/bin/${tag}r"
CHURN_MBPS=25 CHURN_PROFILE=$out/own/r.pb.gz "$out/bin/${tag}r" >"$out/own/r.log" 2>&1 &
procs+=($!)
churn=$!
cp "build/targets/${rel[2]}/exe/goroutines" "$out/bin/${tag}g"
GOROUTINES_READY=$out/own/g.port "$out/bin/${tag}g" >"$out/own/g.log" 2>&1 &
procs+=($!)
gorpid=$!
for p in "${gopids[@]}" "$victim"; do
	wait_file "${own[$p]%.pb.gz}.ready" "$p" || die "target $p not ready: $(tail -2 "${own[$p]%.pb.gz}.log")"
done
wait_file "$out/own/h.ready" "$hostpid" || die "the C host is not ready: $(tail -2 "$out/own/h.log")"
wait_file "$out/own/p.port" "$psrv" || die "pprofsrv is not ready: $(tail -2 "$out/own/p.log")"
psrvurl=http://127.0.0.1:$(cat "$out/own/p.port")/debug/pprof
wait_file "$out/own/g.port" "$gorpid" || die "the goroutines target is not ready: $(tail -2 "$out/own/g.log")"
gorurl=http://127.0.0.1:$(cat "$out/own/g.port")
echo "serve: targets of Go ${rel[*]} ready ($(($(date +%s) - t0)) s)"

# ---- servers ----
# start_server NAME [ENV=V...] -- [FLAGS...]: goheap-bpf serve in the
# background (under the command in wrap, when set), its log in
# $out/NAME.log; sets spid and port.
wrap=()
start_server() {
	local name=$1 envs=() i
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" "${wrap[@]}" "$bin" serve --listen 127.0.0.1:0 --comm "^$tag[a-z]\$" "$@" \
		2>"$out/$name.log" &
	spid=$!
	servers+=("$spid")
	for ((i = 0; i < 300; i++)); do
		port=$(sed -n 's|^goheap-bpf: serving on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$out/$name.log")
		[ -n "$port" ] && return 0
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	die "server $name did not start: $(tail -3 "$out/$name.log")"
}

# req NAME URL [CURL-ARGS...]: the status in code, the body in
# $out/NAME.body, the headers in $out/NAME.hdr.
req() {
	local name=$1 url=$2
	shift 2
	code=$(curl -sS --max-time 60 -o "$out/$name.body" -D "$out/$name.hdr" -w '%{http_code}' \
		"$@" "$url" 2>"$out/$name.curl")
}
body() { head -c 300 "$out/$1.body" | tr '\n' ' '; }
hdr() { tr -d '\r' <"$out/$1.hdr" | grep -i "^$2: " | head -1 | cut -d' ' -f2-; }

# stop_server NAME PID: SIGTERM, and its exit status.
stop_server() {
	local st
	kill -TERM "$2"
	wait "$2"
	st=$?
	if [ $st -eq 0 ] && grep -q '^goheap-bpf: stopped$' "$out/$1.log"; then
		ok "$1-exit (SIGTERM: exit 0, \"stopped\")"
	else
		bad "$1-exit" "exit $st: $(grep -v '^goheap-bpf: [A-Z-]* "' "$out/$1.log" | tail -3)"
	fi
}

start_server A --
pa=$spid a=http://127.0.0.1:$port

# ---- A: profiles ----
# only_default NAME ENDPOINT: allocs, and cmpprof found it to differ from
# the own heap profile in its default sample type alone (alloc_space), as
# runtime/pprof's allocs profile does.
only_default() {
	[ "$2" = allocs ] && [ "$(grep -c . "$out/$1.cmp")" = 2 ] &&
		grep -q '^default sample type differs: theirs "", ours "alloc_space"$' "$out/$1.cmp" &&
		sed -i '$ s/: 1 differences$/: equal but the default sample type (alloc_space)/' "$out/$1.cmp"
}

# profile LETTER-OR-NAME PID ENDPOINT: 200, net/http/pprof's headers, and
# the target's own profile.
profile() {
	local name=$1 p=$2 ep=$3 why=
	req "$name" "$a/pid/$p/debug/pprof/$ep"
	[ "$code" = 200 ] || { bad "$name" "status $code: $(body "$name")"; return; }
	[ "$(hdr "$name" content-type)" = application/octet-stream ] || why+=" Content-Type '$(hdr "$name" content-type)'"
	[ "$(hdr "$name" content-disposition)" = "attachment; filename=\"$ep\"" ] ||
		why+=" Content-Disposition '$(hdr "$name" content-disposition)'"
	[ "$(hdr "$name" x-content-type-options)" = nosniff ] || why+=" no nosniff"
	"$cmpprof" "${own[$p]}" "$out/$name.body" >"$out/$name.cmp" 2>&1 || only_default "$name" "$ep" ||
		why+=" not its own profile: $(head -3 "$out/$name.cmp" | tr '\n' ' ')"
	[ -z "$why" ] && ok "$name ($(tail -1 "$out/$name.cmp" | sed 's/^cmpprof: //'))" || bad "$name" "$why"
}

# pprof_raw OUT SOURCE [FLAGS...]: go tool pprof -raw of SOURCE (a URL or
# a file) into OUT; its errors in OUT.err.
pprof_raw() {
	local o=$1 src=$2
	shift 2
	PPROF_TMPDIR=$out/pprof "$hostgo" tool pprof -symbolize=none -raw "$@" "$src" >"$o" 2>"$o.err"
}

# raw NAME PID ENDPOINT: go tool pprof -raw of the URL = of the own file
# (the own heap profile: allocs is the same with alloc_space its default).
raw() {
	local name=$1 p=$2 why dflt=
	[ "$3" = allocs ] && dflt=alloc_space
	pprof_raw "$out/$name.raw" "$a/pid/$p/debug/pprof/$3" || { bad "$name" "go tool pprof: $(tail -2 "$out/$name.raw.err")"; return; }
	pprof_raw "$out/$name.own.raw" "${own[$p]}"
	if why=$("$check" raw "$out/$name.own.raw" "$out/$name.raw" $dflt); then ok "$name ($why)"; else bad "$name" "$why"; fi
}

for i in 0 1 2; do
	p=${gopids[$i]}
	profile "heap-go${rel[$i]}" "$p" heap
	# allocs: the heap profile's samples (cmpprof), with alloc_space
	# as the default sample type (raw)
	profile "allocs-go${rel[$i]}" "$p" allocs
	raw "pprof-raw-heap-go${rel[$i]}" "$p" heap
	raw "pprof-raw-allocs-go${rel[$i]}" "$p" allocs
done
# HEAD: GET's headers, no body. Its Content-Length is that of a profile
# taken anew, whose gzip size may differ from the GET's by a byte (its
# time_nanos), so only its presence is checked.
req head "$a/pid/${gopids[0]}/debug/pprof/heap" -I -w '%{http_code} %{size_download}'
got=${code#* } code=${code% *}
[ "$code" = 200 ] && [ "$got" = 0 ] && [ "$(hdr head content-length)" -gt 0 ] &&
	[ "$(hdr head content-disposition)" = 'attachment; filename="heap"' ] &&
	ok "head (200, no body, Content-Length $(hdr head content-length), the GET's headers)" ||
	bad head "status $code, $got body bytes, length '$(hdr head content-length)'"

# ---- A: two Go runtimes in one process ----
check_runtimes() {
	local h=$hostpid why= m1= m2= f
	req rt-plain "$a/pid/$h/debug/pprof/heap"
	[ "$code" = 200 ] || why+=" plain: $code $(body rt-plain)"
	[ "$(hdr rt-plain x-goheap-runtime)" = "1 of 2" ] || why+=" X-Goheap-Runtime '$(hdr rt-plain x-goheap-runtime)'"
	[ "$(hdr rt-plain x-goheap-other-runtimes)" = "/pid/$h/runtime/2/debug/pprof/heap" ] ||
		why+=" X-Goheap-Other-Runtimes '$(hdr rt-plain x-goheap-other-runtimes)'"
	req rt-1 "$a/pid/$h/runtime/1/debug/pprof/heap"
	req rt-2 "$a/pid/$h/runtime/2/debug/pprof/heap"
	for f in ha hb; do
		"$cmpprof" "$out/own/$f.pb.gz" "$out/rt-1.body" >/dev/null 2>&1 && m1+=$f
		"$cmpprof" "$out/own/$f.pb.gz" "$out/rt-2.body" >/dev/null 2>&1 && m2+=$f
	done
	"$cmpprof" "$out/rt-1.body" "$out/rt-plain.body" >/dev/null 2>&1 || why+=" the plain path is not runtime 1"
	{ [ "$m1$m2" = hahb ] || [ "$m1$m2" = hbha ]; } || why+=" runtimes match own profiles as '$m1' '$m2'"
	req rt-3 "$a/pid/$h/runtime/3/debug/pprof/heap"
	[ "$code" = 404 ] || why+=" runtime 3: $code"
	req rt-g "$a/pid/$h/debug/pprof/goroutine"
	[ "$code" = 200 ] && [ "$(hdr rt-g x-goheap-runtime)" = "1 of 2" ] &&
		[ "$(hdr rt-g x-goheap-other-runtimes)" = "/pid/$h/runtime/2/debug/pprof/goroutine" ] ||
		why+=" goroutine: $code, X-Goheap-Runtime '$(hdr rt-g x-goheap-runtime)', others '$(hdr rt-g x-goheap-other-runtimes)'"
	[ -z "$why" ] && ok "runtimes (plain = runtime 1 of 2, header names runtime 2, each its library's own; 3: 404; the goroutine profile's headers too)" ||
		bad runtimes "$why"
}
check_runtimes

# ---- A: /processes, /targets, /metrics ----
# What /processes must hold: pid -> labels (the host's Go version is its
# first runtime's, which address order picks: either).
{
	printf '{'
	for p in "${gopids[@]}" "$victim"; do
		printf '"%s": {"comm": "%s", "exe": "%s", "go_version": "%s", "runtimes": 1},\n' \
			"$p" "${comm[$p]}" "$out/bin/${comm[$p]}" "${ver[$p]}"
	done
	printf '"%s": {"comm": "%sp", "exe": "%s", "go_version": "go%s", "runtimes": 1},\n' \
		"$psrv" "$tag" "$out/bin/${tag}p" "${rel[2]}"
	# churn's counters move: its GC runs all along
	printf '"%s": {"comm": "%sr", "exe": "%s", "go_version": "go%s", "runtimes": 1, "moving": true},\n' \
		"$churn" "$tag" "$out/bin/${tag}r" "${rel[1]}"
	# the goroutines target runs with its GC on
	printf '"%s": {"comm": "%sg", "exe": "%s", "go_version": "go%s", "runtimes": 1, "moving": true},\n' \
		"$gorpid" "$tag" "$out/bin/${tag}g" "${rel[2]}"
	printf '"%s": {"comm": "%sh", "exe": "%s", "go_version": null, "runtimes": 2}}\n' \
		"$hostpid" "$tag" "$out/bin/${tag}h"
} >"$out/expect.json"

req processes "$a/processes"
if [ "$code" != 200 ] || [ "$(hdr processes content-type)" != application/json ]; then
	bad processes "status $code, type '$(hdr processes content-type)': $(body processes)"
elif why=$("$check" processes "$out/processes.body" "$out/expect.json"); then
	ok "processes ($why)"
else
	bad processes "$why"
fi
req targets "$a/targets"
if [ "$code" != 200 ]; then
	bad targets "status $code: $(body targets)"
elif why=$("$check" targets "$out/targets.body" "127.0.0.1:${a##*:}" "$out/expect.json"); then
	ok "targets ($why)"
else
	bad targets "$why"
fi

req metrics "$a/metrics"
if [ "$code" != 200 ]; then
	bad metrics "status $code: $(body metrics)"
else
	for i in 0 1 2; do
		p=${gopids[$i]}
		"$cmpprof" -summary "${own[$p]}" >"$out/own.$p.json" || die "cmpprof -summary failed"
		if why=$("$check" metrics "$out/metrics.body" "$p" "$out/own.$p.json"); then
			ok "metrics-go${rel[$i]} ($why)"
		else
			bad "metrics-go${rel[$i]}" "$why"
		fi
	done
	promtool check metrics <"$out/metrics.body" >"$out/promtool.out" 2>&1
	st=$?
	if [ $st -eq 0 ] && [ ! -s "$out/promtool.out" ]; then
		ok "promtool (check metrics: no error, no warning; $(grep -c '^goheap_' "$out/metrics.body") series)"
	else
		bad promtool "exit $st: $(head -5 "$out/promtool.out")"
	fi
fi
req index "$a/"
[ "$code" = 200 ] && grep -q "href=\"/pid/${gopids[0]}/debug/pprof/heap\"" "$out/index.body" &&
	ok "index (HTML linking each process's profiles)" || bad index "status $code: $(body index)"

# ---- A: hostile requests ----
# hostile NAME WANT URL [CURL-ARGS...]: status WANT and a one-line reason.
hostile() {
	local name=$1 want=$2 url=$3
	shift 3
	req "h-$name" "$url" "$@"
	if [[ " $want " == *" $code "* ]] && { [ "$code" = 000 ] || [ "$(wc -l <"$out/h-$name.body")" -le 1 ]; }; then
		ok "hostile-$name ($code: $(body "h-$name"))"
	else
		bad "hostile-$name" "status $code, want $want: $(body "h-$name")"
	fi
}
p=${gopids[0]}
long=$(head -c 5000 /dev/zero | tr '\0' a)
huge=$(head -c 100000 /dev/zero | tr '\0' a)
hostile pid-letters 400 "$a/pid/abc/debug/pprof/heap"
hostile pid-negative 400 "$a/pid/-5/debug/pprof/heap"
hostile pid-huge 400 "$a/pid/99999999999/debug/pprof/heap"
hostile pid-zero 400 "$a/pid/0/debug/pprof/heap"
hostile pid-past-max 400 "$a/pid/4194305/debug/pprof/heap"
hostile pid-not-go 404 "$a/pid/$nongo/debug/pprof/heap"
hostile pid-filtered 404 "$a/pid/1/debug/pprof/heap"
hostile pid-none 404 "$a/pid/4194304/debug/pprof/heap"
hostile traversal 404 "$a/pid/$p/../../../etc/passwd" --path-as-is
hostile traversal-root 404 "$a/../../etc/passwd" --path-as-is
hostile traversal-encoded 400 "$a/pid/%2e%2e/%2e%2e/etc/passwd"
hostile traversal-slash 404 "$a/..%2f..%2fetc%2fpasswd"
hostile bad-escape 400 "$a/pid/$p/debug/pprof/heap%zz"
hostile nul 400 "$a/metrics%00"
hostile unknown 404 "$a/debug/pprof/heap"
hostile other-profile 404 "$a/pid/$p/debug/pprof/threadcreate"
hostile url-5000 414 "$a/$long"
hostile url-100000 "414 000" "$a/$huge"
hostile post 405 "$a/metrics" -X POST -d x=1
hostile put 405 "$a/pid/$p/debug/pprof/heap" -X PUT
hostile gc 400 "$a/pid/$p/debug/pprof/heap?gc=1"
hostile seconds 400 "$a/pid/$p/debug/pprof/heap?seconds=30"
hostile seconds-bad 400 "$a/pid/$p/debug/pprof/heap?seconds=-1"
hostile seconds-debug 400 "$a/pid/$p/debug/pprof/allocs?seconds=1&debug=1"
grep -q "^profile duration exceeds server's WriteTimeout" "$out/h-seconds.body" &&
	ok "hostile-seconds-timeout (net/http/pprof's words)" || bad hostile-seconds-timeout "$(body h-seconds)"
[ "$(hdr h-post allow)" = "GET, HEAD" ] && ok "hostile-allow (405 names GET, HEAD)" || bad hostile-allow "Allow '$(hdr h-post allow)'"
[ "$(hdr h-seconds x-go-pprof)" = 1 ] && ok "hostile-x-go-pprof (a profile's error is marked for go tool pprof)" ||
	bad hostile-x-go-pprof "X-Go-Pprof '$(hdr h-seconds x-go-pprof)'"

# ---- A: what net/http/pprof adds, against a process's own ----
# legacy_text: ?debug=1 equal to the process's own /debug/pprof/heap?debug=1
# (GOGC=off: the same snapshot), with net/http/pprof's headers.
legacy_text() {
	local why
	curl -sS --max-time 30 -o "$out/debug.own" "$psrvurl/heap?debug=1" 2>"$out/debug.own.err" ||
		{ bad debug "its own: $(cat "$out/debug.own.err")"; return; }
	req debug "$a/pid/$psrv/debug/pprof/heap?debug=1"
	[ "$code" = 200 ] || { bad debug "status $code: $(body debug)"; return; }
	if [ "$(hdr debug content-type)" != "text/plain; charset=utf-8" ] || [ -n "$(hdr debug content-disposition)" ]; then
		bad debug "Content-Type '$(hdr debug content-type)', Content-Disposition '$(hdr debug content-disposition)'"
	elif why=$(python3 tests/integration/legacycmp.py "$(echo "${rel[2]}" | cut -d. -f2)" "$out/debug.own" "$out/debug.body"); then
		ok "debug-go${rel[2]} ($(echo "$why" | tail -1))"
	else
		bad debug "$(echo "$why" | head -12)"
	fi
}
# own_raw NAME: go tool pprof -raw of /pid/PID/debug/pprof/NAME = of the
# process's own /debug/pprof/NAME, both through their URLs.
own_raw() {
	local why
	pprof_raw "$out/own-$1.raw" "$psrvurl/$1" && pprof_raw "$out/ours-$1.raw" "$a/pid/$psrv/debug/pprof/$1" ||
		{ bad "own-$1" "go tool pprof: $(tail -2 "$out/own-$1.raw.err" "$out/ours-$1.raw.err")"; return; }
	if why=$("$check" raw "$out/own-$1.raw" "$out/ours-$1.raw"); then ok "own-$1-go${rel[2]} ($why)"; else bad "own-$1" "$why"; fi
}
# delta: go tool pprof -seconds 2 on allocs while churn allocates at its
# pace: the delta's headers, duration and alloc bytes.
delta() {
	local why
	pprof_raw "$out/delta.raw" "$a/pid/$churn/debug/pprof/allocs" -seconds 2 ||
		{ bad delta "go tool pprof: $(tail -2 "$out/delta.raw.err")"; return; }
	req delta-hdr "$a/pid/$churn/debug/pprof/heap?seconds=1"
	if [ "$code" != 200 ] || [ "$(hdr delta-hdr content-disposition)" != 'attachment; filename="heap-delta"' ]; then
		bad delta "heap?seconds=1: $code, Content-Disposition '$(hdr delta-hdr content-disposition)'"
	elif why=$("$check" delta "$out/delta.raw" 2 $((2 * CHURN_RATE))); then
		ok "delta-go${rel[1]} (go tool pprof -seconds 2: $why; heap-delta named)"
	else
		bad delta "$why"
	fi
}
# goroutine_delta: ?seconds=4 while the goroutines target starts 7 more
# goroutines (/grow, a second in): our delta equals the one computed from
# its own goroutine profiles taken before and after ours (nothing else
# moves in it; the goroutines serving its own endpoint, which only its
# profiles hold, are left out of both: its handler's, its connection
# reader's, and its listener's, which each of its profiles may catch in
# accept4 or parked), totals 7, and is named as net/http/pprof names
# it. Then go tool pprof -seconds 2, nothing started.
GOR_SERVING='runtime/pprof.writeGoroutine,net/http.(*connReader).backgroundRead,net/http.(*connReader).startBackgroundRead,net/http.(*Server).Serve'
goroutine_delta() {
	local why= dpid tot
	curl -sS --max-time 30 -o "$out/gd.own0" "$gorurl/debug/pprof/goroutine" ||
		{ bad goroutine-delta "its own profile: curl failed"; return; }
	sleep 0.5 # its connection's goroutine ends
	curl -sS --max-time 60 -o "$out/gd.body" -D "$out/gd.hdr" -w '%{http_code}' \
		"$a/pid/$gorpid/debug/pprof/goroutine?seconds=4" >"$out/gd.code" 2>"$out/gd.curl" &
	dpid=$!
	sleep 1
	curl -sS --max-time 30 -o "$out/gd.grow" "$gorurl/grow?n=7" 2>&1
	wait $dpid
	curl -sS --max-time 30 -o "$out/gd.own1" "$gorurl/debug/pprof/goroutine" ||
		{ bad goroutine-delta "its own profile: curl failed"; return; }
	[ "$(cat "$out/gd.code")" = 200 ] || { bad goroutine-delta "status $(cat "$out/gd.code"): $(body gd)"; return; }
	[ "$(hdr gd content-disposition)" = 'attachment; filename="goroutine-delta"' ] ||
		why+=" Content-Disposition '$(hdr gd content-disposition)'"
	"$cmpprof" -delta "$out/gd.owndelta" "$out/gd.own0" "$out/gd.own1" 2>"$out/gd.cmp" ||
		{ bad goroutine-delta "cmpprof -delta: $(cat "$out/gd.cmp")"; return; }
	"$cmpprof" -dropstack "$GOR_SERVING" "$out/gd.owndelta" "$out/gd.body" >"$out/gd.cmp" 2>&1 ||
		why+=" not its own profiles' delta: $(head -4 "$out/gd.cmp" | tr '\n' ' ')"
	tot=$("$cmpprof" -summary "$out/gd.body" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"].get("goroutine"))')
	[ "$tot" = 7 ] || why+=" totals $tot goroutines, want the 7 started"
	[ -z "$why" ] && ok "goroutine-delta-go${rel[2]} (?seconds=4 around 7 started: $(tail -1 "$out/gd.cmp" | sed 's/^cmpprof: //'), totals 7)" ||
		bad goroutine-delta "$why"
	# go tool pprof -seconds 2: nothing started, so no sample; its
	# duration is the delta's
	sleep 0.5
	if ! pprof_raw "$out/gd2.raw" "$a/pid/$gorpid/debug/pprof/goroutine" -seconds 2; then
		bad goroutine-delta-pprof "go tool pprof: $(tail -2 "$out/gd2.raw.err")"
	elif grep -q '^PeriodType: goroutine count' "$out/gd2.raw" && grep -q '^Duration: 2\.' "$out/gd2.raw" &&
		! sed -n '/^Samples:/,/^Locations/p' "$out/gd2.raw" | grep -q '^ *-\{0,1\}[0-9][0-9]*: '; then
		ok "goroutine-delta-pprof (go tool pprof -seconds 2: goroutine/count, $(grep '^Duration' "$out/gd2.raw"), no sample)"
	else
		bad goroutine-delta-pprof "$(head -12 "$out/gd2.raw" | tr '\n' ' ')"
	fi
}
legacy_text
own_raw heap
own_raw allocs
delta
goroutine_delta

# ---- A: a real Prometheus ----
# prom: Debian's prometheus on a free loopback port, scraping /metrics
# (job goheap) and every target /targets lists (job goheap-discovered)
# each second; then its HTTP API, polled until both are in (30 s).
prom() {
	local pport i why=
	pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat >"$out/prom.yml" <<-EOF
		global: {scrape_interval: 1s, evaluation_interval: 1s}
		scrape_configs:
		  - job_name: goheap
		    static_configs: [{targets: ["127.0.0.1:${a##*:}"]}]
		  - job_name: goheap-discovered
		    http_sd_configs: [{url: "$a/targets", refresh_interval: 1s}]
	EOF
	prometheus --config.file="$out/prom.yml" --storage.tsdb.path="$out/prom-data" \
		--web.listen-address="127.0.0.1:$pport" >"$out/prom.log" 2>&1 &
	servers+=($!)
	local ppid=$! api=http://127.0.0.1:$pport/api/v1 good=
	for ((i = 0; i < 60; i++)); do
		sleep 0.5
		curl -sf -o "$out/prom-query.json" "$api/query?query=goheap_process_inuse_bytes" &&
			curl -sf -o "$out/prom-targets.json" "$api/targets?state=active" &&
			why=$("$check" prometheus "$out/prom-query.json" "$out/prom-targets.json" \
				"$out/metrics.body" "$out/expect.json") && good=1 && break
		kill -0 "$ppid" 2>/dev/null || { why="prometheus exited: $(tail -3 "$out/prom.log")"; break; }
	done
	kill -TERM "$ppid"
	wait "$ppid" 2>/dev/null
	[ -n "$good" ] && ok "prometheus ($why)" || bad prometheus "${why:-no answer in 30 s}"
}
prom

# ---- A: 200 concurrent scrapes ----
concurrent() {
	local i urls=() codes
	for ((i = 0; i < 200; i++)); do
		case $((i % 4)) in
		0) urls+=("$a/metrics") ;;
		1) urls+=("$a/processes") ;;
		*) urls+=("$a/pid/${gopids[$((i % 3))]}/debug/pprof/heap") ;;
		esac
	done
	printf '%s\n' "${urls[@]}" |
		xargs -P 200 -I{} curl -sS --max-time 120 -o /dev/null -w '%{http_code}\n' {} \
		>"$out/concurrent.codes" 2>"$out/concurrent.err"
	codes=$(sort "$out/concurrent.codes" | uniq -c | awk '{ printf "%s %s, ", $1, $2 }')
	rss=$(awk '/^VmHWM:/ { print int($2 / 1024) }' /proc/"$pa"/status)
	req after "$a/healthz"
	if [ "$(wc -l <"$out/concurrent.codes")" != 200 ] || grep -qv '^\(200\|503\)$' "$out/concurrent.codes"; then
		bad concurrent "answers: ${codes%, } (want 200 of 200 or 503)"
	elif [ "$code" != 200 ]; then
		bad concurrent "the server does not answer after: $code"
	elif [ "$rss" -gt "$RSS_MAX_MB" ]; then
		bad concurrent "peak RSS $rss MiB > $RSS_MAX_MB"
	else
		ok "concurrent (200 at once: ${codes%, }; server alive, peak RSS $rss MiB)"
	fi
}
concurrent
stop_server A "$pa"

# ---- B: the token ----
printf '%s\n' "tok-$tag-0123456789abcdef" >"$out/token"
start_server B -- --token-file "$out/token"
b=http://127.0.0.1:$port pb=$spid nb=0
auth() { # NAME WANT PATH [CURL-ARGS]
	local name=$1 want=$2
	req "b-$1" "$b$3" "${@:4}"
	nb=$((nb + 1))
	[ "$code" = "$want" ] && ok "token-$name ($code)" || bad "token-$name" "status $code, want $want: $(body "b-$name")"
}
auth none 401 /metrics
auth wrong 401 /processes -H "Authorization: Bearer tok-$tag-0123456789abcdeX"
auth short 401 "/pid/${gopids[0]}/debug/pprof/heap" -H "Authorization: Bearer tok"
auth right 200 /metrics -H "Authorization: Bearer tok-$tag-0123456789abcdef"
auth scheme-case 200 "/pid/${gopids[0]}/debug/pprof/heap" -H "Authorization: bearer tok-$tag-0123456789abcdef"
auth healthz 200 /healthz
[ "$(hdr b-none www-authenticate)" = 'Bearer realm="goheap-bpf"' ] && ok "token-challenge (WWW-Authenticate)" ||
	bad token-challenge "'$(hdr b-none www-authenticate)'"
stop_server B "$pb"
logre='^goheap-bpf: (GET|HEAD) "/[^"]*" [0-9]{3} [0-9]+ B [0-9]+\.[0-9] ms$'
nl=$(grep -Ec "$logre" "$out/B.log")
[ "$nl" = "$nb" ] && ok "log ($nb requests, $nl lines: method, path, status, bytes, ms)" ||
	bad log "$nl request lines for $nb requests: $(grep '^goheap-bpf: [A-Z]' "$out/B.log" | head -3)"

# ---- C: a target killed during its scrape; SIGTERM during a request ----
start_server C GOHEAP_TEST_PAUSE_MS=2000 --
c=http://127.0.0.1:$port pc=$spid
req killed "$c/pid/$victim/debug/pprof/heap" &
rq=$!
sleep 1
kill -9 "$victim"
wait "$rq"
req alive "$c/pid/${gopids[1]}/debug/pprof/heap"
if [ "$(head -1 "$out/killed.hdr" | awk '{ print $2 }')" != 410 ]; then
	bad killed "status $(head -1 "$out/killed.hdr"): $(body killed)"
elif [ "$code" != 200 ] || ! "$cmpprof" "${own[${gopids[1]}]}" "$out/alive.body" >/dev/null 2>&1; then
	bad killed "the server did not go on: $code $(body alive)"
else
	ok "killed (410: $(body killed); the next profile 200, its own)"
fi
req term "$c/pid/${gopids[2]}/debug/pprof/heap" &
rq=$!
sleep 1
kill -TERM "$pc"
wait "$rq"
wait "$pc"
st=$?
if [ "$(head -1 "$out/term.hdr" | awk '{ print $2 }')" != 200 ] ||
	! "$cmpprof" "${own[${gopids[2]}]}" "$out/term.body" >/dev/null 2>&1; then
	bad sigterm "the request in flight got $(head -1 "$out/term.hdr"): $(body term)"
elif [ $st -ne 0 ] || ! grep -q '^goheap-bpf: stopped$' "$out/C.log"; then
	bad sigterm "exit $st: $(tail -3 "$out/C.log")"
else
	ok "sigterm (the request in flight completed: 200, its own profile; exit 0)"
fi

# ---- D: the DaemonSet's capabilities, on another user's process ----
least_caps() {
	# The last two read /proc/PID/map_files of another user's process:
	# without them the profile's mappings have no build IDs.
	local caps=-all,+bpf,+perfmon,+sys_ptrace,+dac_read_search,+checkpoint_restore d=$out/nobody why
	mkdir -p "$d" && chmod 0777 "$d"
	cp "build/targets/${rel[2]}/exe/pprofsrv" "$out/bin/${tag}u"
	GOGC=off PPROFSRV_READY=$d/port setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$out/bin/${tag}u" >"$d/log" 2>&1 &
	procs+=($!)
	local u=$!
	wait_file "$d/port" "$u" || { bad least-caps "pprofsrv as nobody: $(tail -2 "$d/log")"; return; }
	wrap=(setpriv --bounding-set "$caps" --inh-caps "$caps")
	start_server D --
	wrap=()
	local pd=$spid url=http://127.0.0.1:$port
	pprof_raw "$d/own.raw" "http://127.0.0.1:$(cat "$d/port")/debug/pprof/heap"
	pprof_raw "$d/ours.raw" "$url/pid/$u/debug/pprof/heap"
	req caps-metrics "$url/metrics"
	if ! why=$("$check" raw "$d/own.raw" "$d/ours.raw"); then
		bad least-caps "$why $(tail -1 "$d/ours.raw.err")"
	elif [ "$code" != 200 ] || ! grep -q "^goheap_process_inuse_bytes{pid=\"$u\"" "$out/caps-metrics.body"; then
		bad least-caps "/metrics: $code $(body caps-metrics)"
	else
		ok "least-caps (CapEff $(awk '/^CapEff/ { print $2 }' /proc/"$pd"/status): nobody's process, $why; /metrics)"
	fi
	stop_server D "$pd"
}
least_caps

echo "serve: $(($(date +%s) - t0)) s"
echo "serve: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
