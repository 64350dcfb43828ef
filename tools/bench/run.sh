#!/usr/bin/env bash
# run.sh - `make bench`: one table, every column from the same run on the
# same targets. Targets: tools/bench/benchgen with about 1k, 10k, 100k, 200k and
# 1M heap-profile buckets at MemProfileRate 1 (BENCH_SIZES overrides).
# Readers: goheap-bpf with each backend (iter, perf when this build and
# kernel have it, procmem), the two reference readers of refread.c (Huatuo's
# per-bucket reads, 64 KiB userspace blocks) and the target's own
# /debug/pprof/heap over curl. For each: read-phase time (walkonly.c: the
# backend opened and every bucket walked, nothing built; refread's own
# figure), end-to-end wall time (pprof file
# written; for refread the whole run; for curl the profile downloaded),
# collector CPU (user+sys), collector peak RSS, and the CPU the target
# itself consumed meanwhile (/proc/PID/stat utime+stime, 10 ms ticks).
# Medians of RUNS runs (default 3), readers interleaved within each run.
# Then the limit: iter's and procmem's walk (the read phase
# without its set-up) and the bytes it copied, against a memcpy of as many
# bytes from a cold source on the same machine (memcpybw.c).
# Three more tables follow, at the larger sizes: each output format (e2e,
# CPU and peak RSS of goheap-bpf writing a file; on the recursive targets
# above and on wide ones, BENCH_WIDE sizes: benchgen's BENCHGEN_WIDE
# stacks, distinct sequences of 64 functions), a library user's
# repeated snapshots of one process (repeat.c: the first, then the median
# of the next ones with every cache warm; iter, then procmem), and busy
# targets: the same benchgen allocating BUSY_MBPS of garbage a second
# meanwhile, GOGC set for a GC about every BUSY_GC_MS (0: the default
# GOGC), read BUSY_RUNS times by each backend and by its own endpoint (e2e, the target's CPU,
# its GC period measured, and how the snapshots came out: one GC
# cycle's, or mixed, with the cycles, or partial).
# Then the sweep section (sweep.sh): goheap-bpf --all over 50 and 200
# idle benchgens and over one big one among small ones, against each
# process read one at a time by goheap-bpf --pid and by curl.
# Then the server section (serve.sh): goheap-bpf serve's first and
# repeated scrape of a 200k-bucket process, /metrics over 200 processes,
# and the server's CPU and RSS while a scraper takes them every 15 s.
# Then the watch section (watch.sh): goheap-bpf watch's own CPU and RSS
# per monitored process per interval over 1, 100 and 1000 idle Go
# processes, with and without OOM capture, and the delay from a threshold
# crossing to the written snapshot (--cgroup-above's event, --rss-above
# polled).
# Then the goroutine section (goroutines.sh): the goroutine profile of a
# target with 10k and 1M parked goroutines, each backend at debug=0, 1
# (and 2 at 10k), against the target's own /debug/pprof/goroutine.
# BENCH_SECTIONS picks the sections run: "readers" (every table above),
# "sweep", "serve", "watch" and "goroutines" (default: all five), e.g.
# BENCH_SECTIONS=sweep make bench.
# Needs root (BPF, reading another process's memory).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-./goheap-bpf}
RUNS=${RUNS:-3}
SECTIONS=${BENCH_SECTIONS:-readers sweep serve watch goroutines}
for s in $SECTIONS; do
	case $s in readers | sweep | serve | watch | goroutines) ;; *) echo "bench: no section '$s' (readers, sweep, serve, watch, goroutines)" >&2; exit 2 ;; esac
done
section() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }
SIZES=${BENCH_SIZES:-1000 10000 100000 200000 1000000}
# Sizes with the format, repeated-snapshot and busy tables.
BIG=${BENCH_BIG-200000 1000000}
# Sizes of the wide targets (distinct functions, not only lines) of the
# formats table.
WIDE=${BENCH_WIDE-2000000}
BUSY_MBPS=${BENCH_BUSY_MBPS:-200}
# The busy target's GC period (benchgen sets GOGC for it), and the reads
# of each reader there.
BUSY_GC_MS=${BENCH_BUSY_GC_MS:-1000}
BUSY_RUNS=${BENCH_BUSY_RUNS:-5}
# The target is built with the newest supported release (GO overrides).
newest=$(tools/go-toolchains.sh list | tail -1)
go=${GO:-$(tools/go-toolchains.sh goroot "${newest%.*}")/bin/go}
dir=build/bench
mkdir -p "$dir"
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (BPF, process_vm_readv)" >&2; exit 1; }
command -v curl >/dev/null || { echo "bench: needs curl" >&2; exit 1; }

(cd tools/bench/benchgen && "$go" build -o "$OLDPWD/$dir/benchgen" .)
# The C tools (refread, runstat, memcpybw; walkonly and repeat, the
# library's users), as make test builds them.
make --no-print-directory all bench-bins >/dev/null
# benchgen is not PIE: runtime.mbuckets is at its link-time address.
mbuckets=0x$("$go" tool nm "$dir/benchgen" | awk '$3 == "runtime.mbuckets" {print $1}')
[ "$mbuckets" != 0x ] || { echo "bench: no runtime.mbuckets in benchgen" >&2; exit 1; }
# memRecord is 128 bytes in go1.18-1.26, 64 from go1.27 (active + future[3]).
gover=$("$go" env GOVERSION)
case "$gover" in go1.1[89]* | go1.2[0-6]*) rec=128 ;; *) rec=64 ;; esac

ticks=$(getconf CLK_TCK)
tcpu() { awk -v t="$ticks" '{sub(/.*\) /, ""); printf "%.0f\n", ($12 + $13) * 1000 / t}' "/proc/$1/stat"; }
median() { sort -g | awk '{v[NR]=$1} END {print NR ? v[int((NR+1)/2)] : "n/a"}'; }

readers="iter perf procmem huatuo block pprof"
target=
. tools/bench/sweep.sh
. tools/bench/serve.sh
. tools/bench/watch.sh
. tools/bench/goroutines.sh
# Every target, server, watch and cgroup this script started goes with
# it, however it ends.
trap '[ -z "$target" ] || kill "$target" 2>/dev/null; serve_stop; sweep_stop; watch_stop; g_stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# --backend perf is measured only if this build has it and it reads. It
# reads from the target's own context switches: benchgen makes some (100/s)
# from one SIGUSR1 to the next, and idles otherwise.
ticking() { kill -USR1 "$1"; }
has_perf() {
	local rc=0
	ticking "$1"
	"$bin" --pid "$1" -v --backend perf --format pprof --output "$dir/probe.pb.gz" 2>"$dir/probe.txt" &&
		grep -q 'by backend perf' "$dir/probe.txt" || rc=1
	ticking "$1"
	return $rc
}

# measure READER PID ADDR: append "read e2e cpu rss tcpu buckets walk
# bytes" to $dir/m.READER (walk and bytes: the walk alone, and the bytes it
# copied, for our backends)
measure() {
	local r=$1 pid=$2 addr=$3 before after read buckets walk= bytes= out=$dir/out.txt
	[ "$r" != perf ] || ticking "$pid"
	before=$(tcpu "$pid")
	case $r in
	iter | perf | procmem)
		# The read phase (backend set-up included) alone, then the whole run.
		"$dir/walkonly" "$r" "$pid" >"$dir/walk.txt" 2>/dev/null || true
		read=$(sed -n 's/.*read in \([0-9.]*\) ms.*/\1/p' "$dir/walk.txt")
		walk=$(sed -n 's/.*read in \([0-9.]*\) ms (open \([0-9.]*\) ms.*/\1 \2/p' \
			"$dir/walk.txt" | awk '{printf "%.1f", $1 - $2}')
		bytes=$(sed -n 's/.* \([0-9]*\) bytes.*/\1/p' "$dir/walk.txt")
		"$dir/runstat" "$dir/rs.txt" "$bin" --pid "$pid" -v --backend "$r" \
			--format pprof --output "$dir/heap.$r.pb.gz" 2>"$out" || true
		buckets=$(sed -n 's/.*: \([0-9]*\) buckets.*/\1/p' "$out") ;;
	huatuo | block)
		"$dir/runstat" "$dir/rs.txt" "$dir/refread" "$r" "$pid" "$mbuckets" "$rec" >"$out"
		read=$(sed -n 's/.*read in \([0-9.]*\) ms.*/\1/p' "$out")
		buckets=$(sed -n 's/.*: \([0-9]*\) buckets.*/\1/p' "$out") ;;
	pprof)
		"$dir/runstat" "$dir/rs.txt" curl -sf -o "$dir/heap.pprof.pb.gz" \
			"http://$addr/debug/pprof/heap"
		read=n/a; buckets=n/a ;;
	esac
	after=$(tcpu "$pid")
	[ "$r" != perf ] || ticking "$pid"
	[ "$(awk '{print $4}' "$dir/rs.txt")" = 0 ] || { echo "bench: $r failed on $pid: $(tail -1 "$out")" >&2; return 0; }
	echo "${read:-n/a} $(awk '{print $1, $2, $3}' "$dir/rs.txt") $((after - before)) ${buckets:-n/a}" \
		"${walk:-n/a} ${bytes:-n/a}" >>"$dir/m.$r"
}

col() { awk -v c="$2" '$c != "n/a" {print $c}' "$dir/m.$1" 2>/dev/null | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.1fx", a / b; else print "n/a"}'; }

# bench_formats N SHAPE PID: the formats table's rows of a target,
# appended to $dir/formats.txt.
bench_formats() {
	local n=$1 shape=$2 pid=$3 f i
	for f in pprof top json; do
		: >"$dir/m.fmt"
		for i in $(seq "$RUNS"); do
			"$dir/runstat" "$dir/rs.txt" "$bin" --pid "$pid" --format "$f" \
				--output "$dir/out.$f" 2>/dev/null || true
			awk '{print $1, $2, $3}' "$dir/rs.txt" >>"$dir/m.fmt"
		done
		printf '| %7s | %-9s | %-6s | %8s | %8s | %7s | %9s |\n' "$n" "$shape" "$f" \
			"$(awk '{print $1}' "$dir/m.fmt" | median)" "$(awk '{print $2}' "$dir/m.fmt" | median)" \
			"$(awk '{print $3}' "$dir/m.fmt" | median | awk '{printf "%.1f", $1 / 1024}')" \
			"$(du -m "$dir/out.$f" | cut -f1)" >>"$dir/formats.txt"
		rm -f "$dir/out.$f"
	done
}

# bench_big N PID: the formats table and the repeated snapshots, appended
# to $dir/formats.txt and $dir/repeat.txt.
bench_big() {
	local n=$1 pid=$2
	bench_formats "$n" recursive "$pid"
	for b in iter procmem; do
		"$dir/repeat" "$pid" 5 "$b" | awk -v n="$n" -v b="$b" '{
			gsub(/[(),]/, ""); first = $2; fb = $4; rep = $8; rb = $10; fc = $15; rc = $18
			printf "| %7s | %-7s | %8.1f | %9.1f | %4.0f%% | %9.1f | %10.1f | %8.1f | %9.1f |\n", n, b,
				first, rep, 100 * rep / first, fc, rc, fb / 1048576, rb / 1048576 }' >>"$dir/repeat.txt"
	done
}

# start_benchgen OUT VAR=VALUE...: benchgen started with those variables,
# its output to OUT, once it is ready (its address printed); sets pid and
# target to its PID.
start_benchgen() {
	local out=$1
	shift
	: >"$out"
	env "$@" "$dir/benchgen" >"$out" 2>"$out.err" &
	pid=$!
	target=$pid
	until [ -s "$out" ]; do
		kill -0 "$pid" 2>/dev/null || { echo "bench: benchgen $* died: $(tail -1 "$out.err")" >&2; exit 1; }
		sleep 0.05
	done
}

# bench_wide N: the formats table's rows of a wide benchgen of N buckets.
bench_wide() {
	local n=$1 pid
	start_benchgen "$dir/wide.out" BENCHGEN_BUCKETS="$n" BENCHGEN_WIDE=1
	bench_formats "$n" wide "$pid"
	kill "$pid"; wait "$pid" 2>/dev/null || true
	target=
}

# gc_count: the GC cycles the busy target has ended (its gctrace lines).
gc_count() { grep -c '^gc ' "$dir/busy.out.err" || true; }

# bench_busy N: a busy benchgen of N buckets, read by every reader
# BUSY_RUNS times; rows appended to $dir/busy.txt, with the target's GC
# period measured over each reader's reads.
bench_busy() {
	local n=$1 out=$dir/busy.out pid addr r i before after st outcome g0 t0
	start_benchgen "$out" BENCHGEN_BUCKETS="$n" BENCHGEN_CHURN_MBPS="$BUSY_MBPS" \
		BENCHGEN_CHURN_GC_MS="$BUSY_GC_MS" GODEBUG=gctrace=1
	addr=$(head -1 "$out")
	# Settle: the pacing's first cycle, then a few at its period.
	sleep $((BUSY_GC_MS * 3 / 1000 + 1))
	for r in iter perf procmem pprof; do
		: >"$dir/m.busy"
		: >"$dir/o.busy"
		g0=$(gc_count) t0=$(date +%s%N)
		for i in $(seq "$BUSY_RUNS"); do
			before=$(tcpu "$pid")
			if [ "$r" = pprof ]; then
				"$dir/runstat" "$dir/rs.txt" curl -sf -o "$dir/busy.pb.gz" \
					"http://$addr/debug/pprof/heap"
				outcome=own
			else
				"$dir/runstat" "$dir/rs.txt" "$bin" --pid "$pid" --backend "$r" \
					--format pprof --output "$dir/busy.pb.gz" 2>"$dir/busy.err"
				st=$(awk '{print $4}' "$dir/rs.txt")
				outcome=$(sed -n 's/.*come from \([0-9]*\) GC cycles.*/mixed(\1)/p' "$dir/busy.err")
				case $st in
				0) outcome=${outcome:-one-cycle} ;;
				11) outcome=partial ;;
				*) outcome=exit$st ;;
				esac
			fi
			after=$(tcpu "$pid")
			echo "$(awk '{print $1, $2}' "$dir/rs.txt") $((after - before))" >>"$dir/m.busy"
			echo "$outcome" >>"$dir/o.busy"
		done
		printf '| %7s | %-8s | %8s | %8s | %10s | %8s | %-24s |\n' "$n" "$r" \
			"$(awk '{print $1}' "$dir/m.busy" | median)" "$(awk '{print $2}' "$dir/m.busy" | median)" \
			"$(awk '{print $3}' "$dir/m.busy" | median)" \
			"$(awk -v t="$(($(date +%s%N) - t0))" -v g="$(($(gc_count) - g0))" \
				'BEGIN { print g ? int(t / g / 1e6) : "none" }')" \
			"$(sort "$dir/o.busy" | uniq -c | awk '{printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1}')" \
			>>"$dir/busy.txt"
	done
	kill "$pid"; wait "$pid" 2>/dev/null || true
	target=
}

bench_one() {
	local n=$1 out=$dir/benchgen.out pid addr t0 r perf=0
	t0=$(date +%s%N)
	start_benchgen "$out" BENCHGEN_BUCKETS="$n"
	addr=$(head -1 "$out")
	echo "target ~$n buckets: pid $pid, heap built in $((($(date +%s%N) - t0) / 1000000)) ms" >&2
	rm -f "$dir"/m.*
	has_perf "$pid" && perf=1
	# One unmeasured read warms the binary's page cache and symbol files.
	"$bin" --pid "$pid" --backend procmem --format pprof --output "$dir/warm.pb.gz" 2>/dev/null || true
	for _ in $(seq "$RUNS"); do
		for r in $readers; do
			[ "$r" = perf ] && [ "$perf" = 0 ] && continue
			measure "$r" "$pid" "$addr"
		done
	done
	case " $BIG " in *" $n "*) bench_big "$n" "$pid" ;; esac
	kill "$pid"; wait "$pid" 2>/dev/null || true
	target=
	local hr hb pe
	hr=$(col huatuo 1); hb=$(col block 1); pe=$(col pprof 2)
	for r in $readers; do
		if [ ! -s "$dir/m.$r" ]; then
			printf '| %7s | %-8s | %7s | %8s | %8s | %8s | %7s | %10s | %8s | %8s | %8s |\n' \
				"$n" "$r" n/a n/a n/a n/a n/a n/a n/a n/a n/a
			continue
		fi
		local rd e2 cpu rss tc bk
		rd=$(col "$r" 1); e2=$(col "$r" 2); cpu=$(col "$r" 3)
		rss=$(col "$r" 4); tc=$(col "$r" 5); bk=$(col "$r" 6)
		printf '| %7s | %-8s | %7s | %8s | %8s | %8s | %7s | %10s | %8s | %8s | %8s |\n' \
			"$n" "$r" "$bk" "$rd" "$e2" "$cpu" "$(awk -v k="$rss" 'BEGIN {printf "%.1f", k / 1024}')" \
			"$tc" "$(ratio "$hr" "$rd")" "$(ratio "$hb" "$rd")" "$(ratio "$pe" "$e2")"
	done
	for r in iter procmem; do bench_limit "$n" "$r"; done
}

# bench_limit N READER: the limit table's row of a reader (its median walk
# against a memcpy of as many bytes), appended to $dir/limit.txt.
bench_limit() {
	local n=$1 r=$2 walk bytes mc
	walk=$(col "$r" 7); bytes=$(col "$r" 8)
	case "$walk$bytes" in *n/a* | "") return 0 ;; esac
	mc=$("$dir/memcpybw" "$bytes" | sed -n 's/.* in \([0-9.]*\) ms.*/\1/p')
	awk -v n="$n" -v r="$r" -v w="$walk" -v b="$bytes" -v m="$mc" 'BEGIN {
		if (w + 0 <= 0 || m + 0 <= 0) exit
		printf "| %7s | %-7s | %9.1f | %7.1f | %7.0f | %9.3f | %7.0f | %8.1fx |\n", n, r,
			b / 1e6, w, b / 1e3 / w, m, b / 1e3 / m, w / m }' >>"$dir/limit.txt"
}

# The readers tables: every reader on each size, then the formats, the
# repeated snapshots and the busy targets.
run_readers_section() {
	echo "(read: read phase; e2e: whole run, pprof written; CPU/RSS: the collector's;"
	echo " target CPU: consumed by the target meanwhile; x huatuo / x block: their read"
	echo " time over this one's; x pprof: /debug/pprof/heap's e2e over this one's)"
	echo
	echo "| target  | reader   | buckets | read ms  | e2e ms   | CPU ms   | RSS MiB | target CPU | x huatuo | x block  | x pprof  |"
	echo "|---------|----------|---------|----------|----------|----------|---------|------------|----------|----------|----------|"
	: >"$dir/formats.txt"; : >"$dir/repeat.txt"; : >"$dir/busy.txt"; : >"$dir/limit.txt"
	for n in $SIZES; do bench_one "$n"; done
	for n in $WIDE; do bench_wide "$n"; done
	for n in $BIG; do bench_busy "$n"; done
	echo
	echo "The limit (walk: the read phase without its set-up, bytes: what it copied"
	echo "out of the target; memcpy: memcpybw.c, as many bytes from a cold source):"
	echo
	echo "| target  | reader  | copied MB | walk ms | MB/s    | memcpy ms | MB/s    | x memcpy  |"
	echo "|---------|---------|-----------|---------|---------|-----------|---------|-----------|"
	cat "$dir/limit.txt"
	echo
	echo "Output formats (goheap-bpf --format F --output FILE, backend auto):"
	echo
	echo "(shape: recursive, one function through 4 call sites; wide, 64 functions)"
	echo
	echo "| target  | shape     | format | e2e ms   | CPU ms   | RSS MiB | output MB |"
	echo "|---------|-----------|--------|----------|----------|---------|-----------|"
	cat "$dir/formats.txt"
	echo
	echo "Repeated snapshots (repeat.c: one collector, stacks kept, pprof built and written):"
	echo
	echo "| target  | backend | first ms | repeat ms | ratio | first CPU | repeat CPU | first MB | repeat MB |"
	echo "|---------|---------|----------|-----------|-------|-----------|------------|----------|-----------|"
	cat "$dir/repeat.txt"
	echo
	echo "Busy targets (benchgen allocating $BUSY_MBPS MB/s of garbage, GOGC set for a GC"
	echo "about every $BUSY_GC_MS ms; GC ms: the period measured over the row's $BUSY_RUNS reads;"
	echo "medians; pprof = its own endpoint):"
	echo
	echo "| target  | reader   | e2e ms   | CPU ms   | target CPU | GC ms    | snapshots                |"
	echo "|---------|----------|----------|----------|------------|----------|--------------------------|"
	cat "$dir/busy.txt"
}

echo "bench: $(nproc) cores, kernel $(uname -r), target built with $gover, median of $RUNS runs"
if section readers; then run_readers_section; fi
if section sweep; then run_sweep_section; fi
if section serve; then run_serve_section; fi
if section watch; then run_watch_section; fi
if section goroutines; then run_goroutines_section; fi
