#!/usr/bin/env bash
# judge.sh - the verdicts of one VM's cases, on the host, from the files
# guest.sh kept in DIR (one directory a case): each profile compared with
# the target's own (cmpprof, go tool pprof), each refusal held to the
# kernel's version as README "Supported" states it (iter 5.18+, perf
# 5.12+, OOM capture 5.17+: below, exit 9 and a message naming the
# version). One line a case on stdout, "PASS CASE" or "FAIL CASE: WHY".
#
#   tests/vm/judge.sh DIR CMPPROF GO
set -uo pipefail
dir=${1:?usage: judge.sh DIR CMPPROF GO} cmpprof=${2:?} hostgo=${3:?}
kver=$(cat "$dir/kver" 2>/dev/null)
# at_least MAJOR.MINOR: the VM's kernel is that or newer.
at_least() {
	local want=$1 have=${kver%%-*}
	have=$(echo "$have" | cut -d. -f1,2)
	printf '%s\n%s\n' "$want" "$have" | sort -V -C
}

pass() { echo "PASS $case${1:+ ($1)}"; }
fail() { echo "FAIL $case: $*"; }

# first LINE of FILE, for a reason.
first() { head -c 300 "$1" 2>/dev/null | head -2 | tr '\n' ' '; }

# started: the case's target ran and goheap-bpf was there; else FAIL.
started() {
	if [ -e "$d/nobin" ]; then
		fail "$(cat "$d/nobin") (for arm64: make ARCH=arm64, build/arm64/goheap-bpf)"
		return 1
	fi
	if [ -e "$d/target.fail" ]; then
		fail "target: $(cat "$d/target.fail"): $(tail -2 "$d/target.log" 2>/dev/null | tr '\n' ' ')"
		return 1
	fi
}

# same THEIRS OURS [CMPPROF-FLAGS...]: cmpprof's verdict; prints the
# difference on failure.
same() {
	local out
	if out=$("$cmpprof" "${@:3}" "$1" "$2" 2>&1); then
		cmpsum=$(echo "$out" | tail -1)
		return 0
	fi
	cmpsum=$(echo "$out" | head -4 | tr '\n' ' ')
	return 1
}

# st NAME: the exit status goheap-bpf's run NAME had (none: "none").
st() { cat "$d/$1.st" 2>/dev/null || echo none; }

# clean NAME: NAME.err has no verifier log (no -v was given).
clean() { ! grep -Eq 'verifier|processed [0-9]+ insns|^libbpf:' "$d/$1.err"; }

# refused NAME VERSION: exit 9 and a message naming VERSION.
refused() {
	local s
	s=$(st "$1")
	if [ "$s" = 9 ] && grep -q "$2" "$d/$1.err"; then
		pass "refused below $2: exit 9: $(first "$d/$1.err")"
	else
		fail "want exit 9 naming $2 on $kver, got exit $s: $(first "$d/$1.err")"
	fi
}

# kernel_refuses BACKEND: the VM's kernel is older than BACKEND needs.
kernel_refuses() {
	need=
	case $1 in iter) need=5.18 ;; perf) need=5.12 ;; esac
	[ -n "$need" ] && ! at_least "$need"
}

judge_read() { # BACKEND
	local need
	if kernel_refuses "$1"; then
		refused pprof "$need"
	elif [ "$(st pprof)" != 0 ]; then
		fail "exit $(st pprof): $(first "$d/pprof.err")"
	elif same "$d/theirs.pb.gz" "$d/ours.pb.gz"; then
		pass "$cmpsum"
	else
		fail "differs from its own: $cmpsum"
	fi
}

judge_auto() {
	local want=iter got
	at_least 5.18 || want=procmem
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["backend"])' "$d/ours.json" 2>/dev/null)
	if [ "$(st pprof)" != 0 ] || [ "$(st json)" != 0 ]; then
		fail "exit $(st pprof) (pprof), $(st json) (json): $(first "$d/pprof.err")"
	elif ! clean pprof || ! clean json; then
		fail "a verifier log on stderr without -v: $(grep -Em2 'verifier|processed|libbpf:' "$d/pprof.err" "$d/json.err" | tr '\n' ' ')"
	elif [ "$got" != "$want" ]; then
		fail "backend $got, want $want on $kver"
	elif same "$d/theirs.pb.gz" "$d/ours.pb.gz"; then
		pass "$got, $cmpsum"
	else
		fail "differs from its own: $cmpsum"
	fi
}

judge_busy() {
	local s
	s=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$d/ours.json" 2>/dev/null)
	if ! [ -s "$d/cycle" ]; then
		fail "no try saw both profiles within one GC cycle (last exit $(st pprof): $(first "$d/pprof.err"))"
	elif [ "$(st pprof)" != 0 ]; then
		fail "exit $(st pprof): $(first "$d/pprof.err")"
	elif [ "$s" != complete ]; then
		fail "JSON status $s, want complete"
	elif same "$d/own.pb.gz" "$d/ours.pb.gz"; then
		pass "GC cycle $(cut -d' ' -f2 "$d/cycle"), try $(cut -d' ' -f1 "$d/cycle"): $cmpsum"
	else
		fail "differs from its own within GC cycle $(cut -d' ' -f2 "$d/cycle"): $cmpsum"
	fi
}

judge_all() {
	local pid vm f why= n=0
	[ "$(st all)" = 0 ] || why="exit $(st all): $(first "$d/all.err")"
	[ -s "$d/sweep/index.jsonl" ] || why="${why:-no index.jsonl}"
	while read -r pid vm; do
		f=$(ls "$d"/sweep/*-"$pid".pb.gz 2>/dev/null | head -1)
		if [ -z "$f" ]; then
			why="${why:-no profile of $pid ($vm) in the output directory}"
		elif ! same "$d/$vm/theirs.pb.gz" "$f"; then
			why="${why:-$vm differs from its own: $cmpsum}"
		fi
		n=$((n + 1))
	done <"$d/pids"
	[ "$n" -ge 2 ] || why="${why:-$n targets started, want 2}"
	[ -z "$why" ] && pass "$n processes, each equal to its own" || fail "$why"
}

judge_serve() {
	if [ "$(st get)" != 0 ]; then
		fail "the scrape failed (exit $(st get)): $(first "$d/get.err") $(first "$d/serve.err")"
	elif ! same "$d/theirs.pb.gz" "$d/ours.pb.gz"; then
		fail "the scraped heap differs from its own: $cmpsum"
	elif [ "$(st serve)" != 0 ]; then
		fail "serve exited $(st serve) after SIGTERM, want 0"
	else
		pass "$cmpsum"
	fi
}

# top FILE: go tool pprof -top's first in-use function and its flat bytes.
top() {
	"$hostgo" tool pprof -sample_index=inuse_space -top -unit=B "$1" 2>/dev/null |
		awk '/^ *[0-9]+B / { sub("B", "", $1); print $NF, $1; exit }'
}

judge_watch() {
	local f why= t
	f=$(ls "$d"/snap/*-rss-above.pb.gz 2>/dev/null | head -1)
	if [ -z "$f" ]; then
		fail "no rss-above snapshot (watch exit $(st watch)): $(tail -2 "$d/watch.err" | tr '\n' ' ')"
		return
	fi
	t=$(top "$f")
	[ "${t%% *}" = main.growSite ] || why="largest in-use site '${t%% *}', want main.growSite"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["rss"] > 96<<20 and d["status"] == "complete", d["rss"]' \
		"${f%.pb.gz}.json" 2>/dev/null || why="${why:-its JSON: RSS not above 96M or status not complete}"
	[ "$(st watch)" = 143 ] || why="${why:-watch exited $(st watch) on SIGTERM, want 143}"
	if ! at_least 5.17 && ! grep -q '5\.17' "$d/watch.err"; then
		why="${why:-no word on stderr that OOM capture needs 5.17}"
	fi
	[ -z "$why" ] && pass "main.growSite $((${t#* } >> 20)) MiB" || fail "$why"
}

judge_oom() {
	local f why= ours own lim
	if ! at_least 5.17; then
		refused watch 5.17
		return
	fi
	if [ -s "$d/cgroup.err" ] && ! [ -s "$d/limit" ]; then
		fail "$(first "$d/cgroup.err")"
		return
	fi
	lim=$(cat "$d/limit")
	f=$(python3 - "$d/snap" "$lim" <<'PY' 2>&1
import json, os, sys
d, limit = sys.argv[1], int(sys.argv[2])
ls = [json.loads(l) for l in open(os.path.join(d, "index.jsonl"))]
assert len(ls) == 1 and ls[0]["trigger"] == "oom", ls
doc = json.load(open(os.path.join(d, ls[0]["json"])))
assert doc["status"] == "complete", doc["status"]
assert doc["oom"]["memcg_limit"] == limit, doc["oom"]
print(os.path.join(d, ls[0]["pprof"]))
PY
	) || { fail "no complete oom snapshot: $(echo "$f" | tail -1) (watch exit $(st watch): $(tail -1 "$d/watch.err"))"; return; }
	ours=$(top "$f")
	own=$("$hostgo" tool pprof -sample_index=inuse_space -top -unit=B "$d/own.pb.gz" 2>/dev/null |
		awk '$NF == "main.grow" { sub("B", "", $1); print $1; exit }')
	[ "${ours%% *}" = main.grow ] || why="largest in-use site '${ours%% *}', want main.grow"
	if [ -z "$own" ]; then
		why="${why:-no main.grow in its own last checkpoint}"
	elif ! awk -v a="${ours#* }" -v b="$own" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b / 10) }'; then
		why="${why:-main.grow in use ${ours#* } B, its own last checkpoint $own B (over 10 %)}"
	fi
	[ "$(st watch)" = 0 ] || why="${why:-watch exited $(st watch) once its process was gone, want 0}"
	[ -z "$why" ] && pass "main.grow ${ours#* } B, own $own B" || fail "$why"
}

# What only the target's own goroutine profile holds: the goroutine
# serving the request, its connection's reader, and the one accepting
# connections. busybox's wget opens a new connection for the request,
# which wakes that one: the target's profile may catch it running, or
# preempted (its stack then ends at runtime.asyncPreempt, as the
# runtime's unwinder stops there). Every other goroutine of the target
# is parked: none of ours has such a stack.
OWN_ONLY='runtime/pprof.writeGoroutine,net/http.(*connReader).backgroundRead,net/http.(*connReader).startBackgroundRead,net/http.(*Server).Serve,runtime.asyncPreempt'

judge_goroutines() { # BACKEND
	local need
	if kernel_refuses "$1"; then
		refused pprof "$need"
	elif [ "$(st pprof)" != 0 ]; then
		fail "exit $(st pprof): $(first "$d/pprof.err")"
	elif [ "$(st own)" != 0 ]; then
		fail "its own /debug/pprof/goroutine did not answer: $(first "$d/own.err")"
	elif same "$d/theirs.pb.gz" "$d/ours.pb.gz" -dropstack "$OWN_ONLY"; then
		pass "$cmpsum"
	else
		fail "differs from its own: $cmpsum"
	fi
}

judge_i386() {
	if [ "$(st pid)" = 5 ] && grep -q '32-bit' "$d/pid.err"; then
		pass "exit 5: $(first "$d/pid.err")"
	else
		fail "want exit 5 naming 32-bit, got exit $(st pid): $(first "$d/pid.err")"
	fi
}

judge_userland() {
	local why=
	[ "$(cat "$d/busybox.out" 2>/dev/null)" = aarch64 ] || why="busybox uname -m: $(first "$d/busybox.out")"
	[ -e "$d/go.ok" ] || why="${why:-the arm64 Go target did not start: $(tail -2 "$d/target.log" | tr '\n' ' ')}"
	[ -z "$why" ] && pass "busybox and an arm64 Go program run" || fail "$why"
}

# No case ran: run.sh says why (the boot, the console).
[ -n "$kver" ] || exit 0
for d in "$dir"/*/; do
	d=${d%/}
	[ -e "$d/ms" ] || continue
	case=$(basename "$d")
	kind=${case%%-*}
	if [ "$kind" != userland ]; then started || continue; fi
	case $kind in
	read) b=${case#read-}; judge_read "${b%%-*}" ;;
	goroutines) b=${case#goroutines-}; judge_goroutines "${b%%-*}" ;;
	*) "judge_$kind" ;;
	esac
done
