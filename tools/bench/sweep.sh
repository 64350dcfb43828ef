# sweep.sh - the sweep section of `make bench` (issue 10), sourced by
# run.sh, whose $bin, $dir, $RUNS, $ticks, median and ratio it uses.
#
# Scenarios: BENCH_SWEEP_SMALL (default 50) and BENCH_SWEEP_LARGE (200) benchgens of
# about 1k buckets each, and one of 200k buckets among 49 of 1k. The
# targets are built from four distinct binaries (benchgen built with the
# four newest supported Go releases, BENCH_SWEEP_GOS overrides), handed out
# in turn. They idle while measured (BENCH_SWEEP_MBPS > 0 makes each
# allocate that many MB/s of garbage instead).
#
# Readers, each over the same targets: goheap-bpf --all restricted to the
# scenario's targets with --pid LIST (the other processes of the host are
# not examined at all) writing --output-dir, with the default backend (iter)
# and with --backend procmem; one `goheap-bpf --pid P -f pprof -o F` run
# per target, one at a time; one curl of each target's /debug/pprof/heap,
# one at a time. For each: end-to-end wall time (for one-at-a-time readers
# the sum of the runs' own times, none of the shell's in between),
# collector CPU (user+sys from wait4, summed), collector peak RSS (the
# largest run's) and the CPU all the targets used meanwhile (their
# utime+stime deltas in /proc/PID/stat, 10 ms ticks, summed). Where a
# sweep's time goes: its -v summary (opening, reading, iterator passes,
# binaries parsed), and the same sweep writing its files to /dev/shm
# (tmpfs: no fsync costs anything) and writing none (the summary only).
#
# Before measuring, every target is curled once and swept once, unmeasured:
# serving /debug/pprof/heap at MemProfileRate 1 adds the handler's own
# allocation stacks to the profile, after which every reader sees the same
# buckets; and the binaries are in the page cache.

SWEEP_SMALL=${BENCH_SWEEP_SMALL:-50}
SWEEP_LARGE=${BENCH_SWEEP_LARGE:-200}
SWEEP_MBPS=${BENCH_SWEEP_MBPS:-0}
sdir=$dir/sweep
# A directory in memory, if the host has one: the same sweep written there
# shows what the files' fsyncs cost on $dir's file system.
shm=
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" != tmpfs ] || shm=/dev/shm/goheap-bench.$$
sw_pids=()
sw_addrs=()

# The four benchgen binaries, built with distinct Go releases.
sweep_build() {
	local v g gos
	gos=${BENCH_SWEEP_GOS:-$(tools/go-toolchains.sh list | tail -4 | sed 's/\.[0-9]*$//')}
	sweep_bins=()
	mkdir -p "$sdir"
	for v in $gos; do
		g=$(tools/go-toolchains.sh goroot "$v")/bin/go
		(cd tools/bench/benchgen && "$g" build -o "$OLDPWD/$sdir/benchgen-$v" .)
		sweep_bins+=("$sdir/benchgen-$v")
	done
}

sweep_stop() {
	[ ${#sw_pids[@]} -eq 0 ] || kill "${sw_pids[@]}" 2>/dev/null || true
	[ ${#sw_pids[@]} -eq 0 ] || wait "${sw_pids[@]}" 2>/dev/null || true
	sw_pids=()
	sw_addrs=()
	rm -rf "$sdir"/t.* "$sdir/out" ${shm:+"$shm"}
}

# sweep_spawn COUNT BUCKETS: COUNT more targets, binaries in turn.
sweep_spawn() {
	local count=$1 n=$2 i k
	for ((i = 0; i < count; i++)); do
		k=${#sw_pids[@]}
		: >"$sdir/t.$k"
		BENCHGEN_BUCKETS=$n BENCHGEN_CHURN_MBPS=$SWEEP_MBPS \
			"${sweep_bins[$((k % ${#sweep_bins[@]}))]}" >"$sdir/t.$k" &
		sw_pids+=($!)
	done
}

# Wait until every target serves (its heap built), note its address.
sweep_ready() {
	local k
	for k in "${!sw_pids[@]}"; do
		until [ -s "$sdir/t.$k" ]; do
			kill -0 "${sw_pids[$k]}" 2>/dev/null ||
				{ echo "bench: sweep target ${sw_pids[$k]} died" >&2; exit 1; }
			sleep 0.05
		done
		sw_addrs[$k]=$(head -1 "$sdir/t.$k")
	done
}

# The CPU (ms) every target has used so far; fails if one is gone.
sweep_tcpu() {
	local p stats=()
	for p in "${sw_pids[@]}"; do stats+=("/proc/$p/stat"); done
	awk -v t="$ticks" '{sub(/.*\) /, ""); s += $12 + $13} END {printf "%.0f\n", s * 1000 / t}' "${stats[@]}"
}

# sweep_run TAG OUT ARGS...: one sweep of the targets, its files written
# to the directory OUT (- for none: the summary only); appends "e2e cpu
# rss tcpu total open read passes parsed loads buckets other" to
# $sdir/m.TAG (other: total - open - read).
sweep_run() {
	local tag=$1 out=$2 before after n list st
	shift 2
	list=$(IFS=,; echo "${sw_pids[*]}")
	[ "$out" = - ] || { rm -rf "$out"; set -- "$@" --output-dir "$out"; }
	before=$(sweep_tcpu)
	"$dir/runstat" "$dir/rs.txt" "$bin" --all --pid "$list" -v "$@" >/dev/null 2>"$sdir/err.$tag"
	after=$(sweep_tcpu)
	st=$(awk '{print $4}' "$dir/rs.txt")
	[ "$st" = 0 ] || { echo "bench: sweep $tag exited $st: $(grep -v libbpf "$sdir/err.$tag" | tail -3)" >&2; return 0; }
	n=${#sw_pids[@]}
	if [ "$out" != - ]; then
		[ "$(find "$out" -name '*.pb.gz' | wc -l)" = "$n" ] &&
			[ "$(grep -Ec '"status": "(complete|mixed)"' "$out/index.jsonl")" = "$n" ] ||
			{ echo "bench: sweep $tag: not $n whole profiles" >&2; return 0; }
		rm -rf "$out"
	fi
	echo "$(awk '{print $1, $2, $3}' "$dir/rs.txt") $((after - before))" \
		"$(sed -n 's/.* results* in \([0-9.]*\) ms (opening \([0-9.]*\) ms, reading \([0-9.]*\) ms): \([0-9]*\) BPF loads*, \([0-9]*\) iterator pass.*, \([0-9]*\) binar.*/\1 \2 \3 \5 \6 \4/p' "$sdir/err.$tag")" \
		"$(sed -n 's/.*: \([0-9]*\) buckets (.*/\1/p' "$sdir/err.$tag" | awk '{s += $1} END {print s + 0}')" \
		>"$sdir/m.line"
	awk -v tag="$tag" 'NF != 11 {print "bench: sweep " tag ": no -v summary" > "/dev/stderr"; next}
		{printf "%s %.1f\n", $0, $5 - $6 - $7}' "$sdir/m.line" >>"$sdir/m.$tag"
}

# sweep_each TAG: every target read one at a time, by goheap-bpf --pid
# (TAG pid) or by curl of its endpoint (TAG curl); appends "e2e cpu rss
# tcpu" (e2e and cpu summed over the runs, rss the largest) to $sdir/m.TAG.
sweep_each() {
	local tag=$1 before after k
	: >"$sdir/each.txt"
	before=$(sweep_tcpu)
	for k in "${!sw_pids[@]}"; do
		if [ "$tag" = curl ]; then
			"$dir/runstat" "$dir/rs.txt" curl -sf -o "$sdir/one.pb.gz" \
				"http://${sw_addrs[$k]}/debug/pprof/heap"
		else
			"$dir/runstat" "$dir/rs.txt" "$bin" --pid "${sw_pids[$k]}" \
				-f pprof -o "$sdir/one.pb.gz"
		fi
		cat "$dir/rs.txt" >>"$sdir/each.txt"
	done
	after=$(sweep_tcpu)
	awk -v t=$((after - before)) -v tag="$tag" '
		$4 != 0 {bad++} {e += $1; c += $2; if ($3 > r) r = $3}
		END {if (bad) print "bench: sweep " tag ": " bad " runs failed" > "/dev/stderr"
		     else printf "%.1f %.1f %d %d\n", e, c, r, t}' "$sdir/each.txt" >>"$sdir/m.$tag"
}

sw_col() { awk -v c="$2" 'NF >= c {print $c}' "$sdir/m.$1" 2>/dev/null | median; }

# bench_sweep NAME: measure the running targets RUNS times, readers
# interleaved; rows appended to $sdir/table.txt and $sdir/where.txt, the
# figures the verdicts need to $sdir/verdict.txt.
bench_sweep() {
	local name=$1 n=${#sw_pids[@]} k tag e2 cpu rss tc bk base
	echo "sweep $name: $n targets ready" >&2
	rm -f "$sdir"/m.*
	for k in "${!sw_pids[@]}"; do
		curl -sf -o /dev/null "http://${sw_addrs[$k]}/debug/pprof/heap"
	done
	"$bin" --all --pid "$(IFS=,; echo "${sw_pids[*]}")" --output-dir "$sdir/out" >/dev/null 2>&1 || true
	for _ in $(seq "$RUNS"); do
		sweep_run iter "$sdir/out"
		sweep_run procmem "$sdir/out" --backend procmem
		[ -z "$shm" ] || sweep_run tmpfs "$shm"
		sweep_run nofiles -
		sweep_each pid
		sweep_each curl
	done
	rm -f "$sdir/one.pb.gz"
	base=$(sw_col iter 1)
	bk=$(sw_col iter 11)
	for tag in iter procmem pid curl; do
		if [ ! -s "$sdir/m.$tag" ]; then
			printf '| %-18s | %5s | %7s | %-13s | %8s | %8s | %7s | %10s | %7s |\n' \
				"$name" "$n" "$bk" "$tag" n/a n/a n/a n/a n/a >>"$sdir/table.txt"
			continue
		fi
		e2=$(sw_col "$tag" 1); cpu=$(sw_col "$tag" 2); rss=$(sw_col "$tag" 3); tc=$(sw_col "$tag" 4)
		printf '| %-18s | %5s | %7s | %-13s | %8s | %8s | %7s | %10s | %7s |\n' \
			"$name" "$n" "$bk" "$(case $tag in iter) echo "sweep" ;; procmem) echo "sweep procmem" ;;
				pid) echo "--pid each" ;; curl) echo "curl each" ;; esac)" \
			"$e2" "$cpu" "$(awk -v k="$rss" 'BEGIN {printf "%.1f", k / 1024}')" "$tc" \
			"$(ratio "$e2" "$base")" >>"$sdir/table.txt"
		echo "$name;$n;$tag;$e2;$rss;$tc;$(ratio "$e2" "$base")" >>"$sdir/verdict.txt"
	done
	for tag in iter tmpfs nofiles procmem; do
		[ -s "$sdir/m.$tag" ] || continue
		printf '| %-18s | %-17s | %8s | %8s | %8s | %8s | %8s | %6s | %6s |\n' "$name" \
			"$(case $tag in iter) echo "iter, files" ;; tmpfs) echo "iter, tmpfs files" ;;
				nofiles) echo "iter, no files" ;; procmem) echo "procmem, files" ;; esac)" \
			"$(sw_col "$tag" 1)" "$(sw_col "$tag" 5)" "$(sw_col "$tag" 6)" "$(sw_col "$tag" 7)" \
			"$(sw_col "$tag" 12)" "$(sw_col "$tag" 8)" "$(sw_col "$tag" 9)" >>"$sdir/where.txt"
	done
}

# CPU time (ms) used so far by the whole host (user, nice, system, irq,
# softirq of every CPU); and by this script's reaped children, from the
# output of `times`, which must run in this shell, not in a subshell (a
# subshell has reaped none of them).
host_cpu() { awk -v t="$ticks" '/^cpu / {printf "%.0f\n", ($2 + $3 + $4 + $7 + $8) * 1000 / t; exit}' /proc/stat; }
own_cpu() { awk 'NR == 2 {split($0, v, /[ms]+/); printf "%.0f\n", (v[1] * 60 + v[2] + v[3] * 60 + v[4]) * 1000}' "$1"; }

run_sweep_section() {
	local t0 h0 o0 secs others
	sweep_build
	t0=$(date +%s%N)
	h0=$(host_cpu)
	times >"$sdir/times.txt"
	o0=$(own_cpu "$sdir/times.txt")
	rm -f "$sdir/table.txt" "$sdir/where.txt" "$sdir/verdict.txt"
	sweep_spawn "$SWEEP_SMALL" 1000; sweep_ready
	bench_sweep "$SWEEP_SMALL x 1k"
	sweep_stop
	sweep_spawn "$SWEEP_LARGE" 1000; sweep_ready
	bench_sweep "$SWEEP_LARGE x 1k"
	sweep_stop
	sweep_spawn 1 200000; sweep_spawn 49 1000; sweep_ready
	bench_sweep "200k + 49 x 1k"
	sweep_stop
	secs=$((($(date +%s%N) - t0) / 1000000000))
	# Other work on the host meanwhile, as CPUs' worth: neither this
	# script's nor its children's (collectors, curl, the targets).
	times >"$sdir/times.txt"
	others=$(awk -v h=$(($(host_cpu) - h0)) -v o=$(($(own_cpu "$sdir/times.txt") - o0)) -v s="$secs" \
		'BEGIN {printf "%.2f", s ? (h - o) / (s * 1000) : 0}')
	echo
	echo "Sweep (issue 10): goheap-bpf --all --pid LIST --output-dir DIR -v, the"
	echo "scenario's targets only, from ${#sweep_bins[@]} binaries ($(cd "$sdir" && echo benchgen-* | sed 's/benchgen-/go/g'));"
	echo "against each target read one at a time. Medians of $RUNS runs, in ${secs} s, while"
	echo "other work on the host took $others of its $(nproc) CPUs"
	echo "(e2e: wall time, summed over the runs one at a time; CPU/RSS: the"
	echo " collector's, CPU summed, RSS the largest; target CPU: all targets',"
	echo " meanwhile; x sweep: e2e over the sweep's)"
	echo
	echo "| scenario           | procs | buckets | reader        | e2e ms   | CPU ms   | RSS MiB | target CPU | x sweep |"
	echo "|--------------------|-------|---------|---------------|----------|----------|---------|------------|---------|"
	cat "$sdir/table.txt"
	echo
	echo "Where a sweep's time goes (-v: total = the request, from the first"
	echo "process opened to the last result; opening = /proc, binaries found and"
	echo "parsed; reading = the backend set up and every process walked; other ="
	echo "profiles finished, compressed and written; e2e - total = start-up,"
	echo "index and exit; files: to $sdir, tmpfs files: to /dev/shm, no files:"
	echo "without --output-dir, the summary only):"
	echo
	echo "| scenario           | sweep             | e2e ms   | total ms | open ms  | read ms  | other ms | passes | parsed |"
	echo "|--------------------|-------------------|----------|----------|----------|----------|----------|--------|--------|"
	cat "$sdir/where.txt"
	echo
	echo "Targets (issue 10):"
	awk -F';' -v large="$SWEEP_LARGE" '
		function verdict(ok) { return ok ? "met" : "NOT MET" }
		$3 == "iter" && $2 == large && $1 ~ /x 1k$/ { wall = $4 }
		$3 == "pid" { order[++ns] = $1; x[$1] = $7 + 0 }
		$3 == "iter" || $3 == "procmem" { if ($5 > rss) rss = $5; tc[$3] += $6 }
		END {
			printf "- sweep of %d processes under 1 s wall: %s ms: %s\n", large, wall, verdict(wall != "" && wall < 1000)
			for (i = 1; i <= ns; i++) { s = order[i]; printf "- %s: sweep %.1fx as fast as --pid each (target 10x): %s\n", s, x[s], verdict(x[s] >= 10) }
			printf "- collector peak RSS under 128 MiB: %.1f MiB at most: %s\n", rss / 1024, verdict(rss < 128 * 1024)
			printf "- zero CPU in the targets: sweep (iter) %d ms, sweep procmem %d ms, all scenarios together: %s\n", tc["iter"], tc["procmem"], verdict(tc["iter"] == 0 && tc["procmem"] == 0)
		}' "$sdir/verdict.txt"
}
