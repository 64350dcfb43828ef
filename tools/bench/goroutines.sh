# goroutines.sh - the goroutine section of `make bench` (issue 17),
# sourced by run.sh (its $bin, $dir, $go, $tcpu and median).
#
# tests/targets/goroutines with GOROUTINES_PARKED=N: N goroutines parked
# for good on one channel at eight stacks (a leak's shape) and the
# target's own net/http/pprof. For each N of BENCH_GOROUTINES (10k and
# 1M): goheap-bpf --profile goroutine with iter and procmem at
# debug=0 (--format pprof), debug=1 (--format legacy) and, up to
# BENCH_G_DEBUG2_MAX (10k), debug=2 (--format goroutines), file written;
# against curl of the target's own /debug/pprof/goroutine?debug=D. Each
# row: wall time, collector CPU and peak RSS (runstat), the target's
# CPU meanwhile (/proc/PID/stat, 10 ms ticks), the exit status (0, 11
# partial). Medians of BENCH_G_RUNS (3) at 10k, one run at 1M. iter
# only up to BENCH_G_ITER_MAX (200k): past it a read runs for minutes
# (each labels pass reads every copied goroutine again) and stops at its
# 1 GiB copy bound, partial (see tools/bench/README.md).

G_SIZES=${BENCH_GOROUTINES:-10000 1000000}
G_DEBUG2_MAX=${BENCH_G_DEBUG2_MAX:-10000}
G_RUNS=${BENCH_G_RUNS:-3}
G_ITER_MAX=${BENCH_G_ITER_MAX:-200000}
g_pid=

g_stop() {
	[ -z "$g_pid" ] || { kill "$g_pid" 2>/dev/null; wait "$g_pid" 2>/dev/null || true; }
	g_pid=
}

# g_measure READER DEBUG PORT: one row's figures to $dir/g.READER.DEBUG
g_measure() {
	local r=$1 d=$2 port=$3 before after f
	before=$(tcpu "$g_pid")
	if [ "$r" = pprof ]; then
		"$dir/runstat" "$dir/rs.txt" curl -sf -o "$dir/g.own" \
			"http://127.0.0.1:$port/debug/pprof/goroutine?debug=$d"
	else
		case $d in 0) f=pprof ;; 1) f=legacy ;; *) f=goroutines ;; esac
		"$dir/runstat" "$dir/rs.txt" "$bin" --pid "$g_pid" --profile goroutine \
			--backend "$r" --format $f --output "$dir/g.ours" 2>"$dir/g.err" || true
	fi
	after=$(tcpu "$g_pid")
	echo "$(awk '{printf "%s %s %.1f %s", $1, $2, $3 / 1024, $4}' "$dir/rs.txt") $((after - before))" >>"$dir/g.$r.$d"
}

bench_goroutines() {
	local n=$1 port= runs=$G_RUNS r d i ready=$dir/g.ready readers="iter procmem pprof"
	[ "$n" -le 10000 ] || runs=1
	[ "$n" -le "$G_ITER_MAX" ] || readers="procmem pprof"
	rm -f "$ready" "$dir"/g.*.[012]
	GOROUTINES_PARKED=$n GOROUTINES_READY=$ready "$dir/goroutines" >/dev/null 2>&1 &
	g_pid=$!
	for i in $(seq 1200); do [ -f "$ready" ] && break; sleep 0.1; done
	[ -f "$ready" ] || { echo "bench: the goroutines target did not get ready" >&2; exit 1; }
	port=$(cat "$ready")
	for d in 0 1 2; do
		[ "$d" -lt 2 ] || [ "$n" -le "$G_DEBUG2_MAX" ] || continue
		for i in $(seq "$runs"); do
			for r in $readers; do g_measure $r $d "$port"; done
		done
		for r in $readers; do
			printf "| %7s | %5s | %-7s | %8s | %8s | %7s | %10s | %6s |\n" "$n" "$d" "$r" \
				"$(awk '{print $1}' "$dir/g.$r.$d" | median)" \
				"$(awk '{print $2}' "$dir/g.$r.$d" | median)" \
				"$(awk '{print $3}' "$dir/g.$r.$d" | median)" \
				"$(awk '{print $5}' "$dir/g.$r.$d" | median)" \
				"$(awk '{print $4}' "$dir/g.$r.$d" | sort -u | tr '\n' ' ' | sed 's/ $//')"
		done
	done
	g_stop
}

run_goroutines_section() {
	bash tests/targets/build.sh goroutines exe "$("$go" env GOROOT)" "$dir/goroutines" >/dev/null
	echo
	echo "Goroutine profile: tests/targets/goroutines with N parked goroutines ($("$go" env GOVERSION)); ms, MiB, target CPU in ms"
	echo
	echo "| parked  | debug | reader  | e2e ms   | CPU ms   | RSS MiB | target CPU | status |"
	echo "|---------|-------|---------|----------|----------|---------|------------|--------|"
	for n in $G_SIZES; do bench_goroutines "$n"; done
}
