# serve.sh - the server section of `make bench` (issue 11), sourced by
# run.sh (its $bin, $dir, $RUNS, $ticks and median) after sweep.sh, whose
# targets it uses (sweep_build, sweep_spawn, sweep_ready, sweep_stop).
#
# Scenarios, each against a `goheap-bpf serve` of its own on loopback
# (--comm '^benchgen', default flags otherwise):
# - one benchgen of BENCH_SERVE_BIG (200k) buckets: the latency (curl's
#   time_total) of the first scrape of /pid/PID/debug/pprof/heap (BPF
#   loaded, binary parsed, every stack read), of the second (the stacks
#   kept; each sample's locations built once more, and kept) and the
#   median of BENCH_SERVE_REPEATS (8) after it (the locations taken: what
#   a scraper pays every time from then on), and that one's share of the
#   first (target: at most 40 %); the target's own
#   /debug/pprof/heap for comparison.
# - BENCH_SERVE_PROCS (200) benchgens of 1k buckets: /metrics' latency on
#   the first scrape (a sweep of every process, binaries parsed), from
#   the shared sweep right after, and after --refresh (15 s) passed (a
#   sweep with the caches warm); then the server as a scraper would keep
#   it for BENCH_SERVE_IDLE_S (60) s: /metrics and every process's heap
#   every 15 s. Its CPU meanwhile (utime+stime, as a share of one CPU),
#   RSS at the end and peak RSS.

SERVE_BIG=${BENCH_SERVE_BIG:-200000}
SERVE_PROCS=${BENCH_SERVE_PROCS:-200}
SERVE_IDLE_S=${BENCH_SERVE_IDLE_S:-60}
SERVE_REPEATS=${BENCH_SERVE_REPEATS:-8}
srv_pid=

# serve_start: the server in the background; sets srv_pid and srv_url.
serve_start() {
	local log=$sdir/serve.log port=
	"$bin" serve --listen 127.0.0.1:0 --comm '^benchgen' 2>"$log" &
	srv_pid=$!
	until [ -n "$port" ]; do
		kill -0 "$srv_pid" 2>/dev/null || { echo "bench: serve died: $(tail -2 "$log")" >&2; exit 1; }
		sleep 0.05
		port=$(sed -n 's|^goheap-bpf: serving on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$log")
	done
	srv_url=http://127.0.0.1:$port
}

serve_stop() {
	[ -z "$srv_pid" ] || { kill -TERM "$srv_pid"; wait "$srv_pid" 2>/dev/null || true; }
	srv_pid=
}

# scrape_ms URL: its latency in ms; fails unless it answers 200.
scrape_ms() {
	local r
	r=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$1")
	[ "${r% *}" = 200 ] || { echo "bench: $1 answered ${r% *}" >&2; return 1; }
	awk -v t="${r#* }" 'BEGIN {printf "%.1f\n", t * 1000}'
}

# The server's CPU (ms) so far, and its RSS and peak RSS (MiB).
srv_cpu() { awk -v t="$ticks" '{sub(/.*\) /, ""); printf "%.0f\n", ($12 + $13) * 1000 / t}' "/proc/$srv_pid/stat"; }
srv_rss() { awk -v k="$1:" '$1 == k {printf "%.1f\n", $2 / 1024}' "/proc/$srv_pid/status"; }

bench_serve_big() {
	local pid url first second rep own
	sweep_spawn 1 "$SERVE_BIG"
	sweep_ready
	pid=${sw_pids[0]}
	serve_start
	url=$srv_url/pid/$pid/debug/pprof/heap
	first=$(scrape_ms "$url")
	second=$(scrape_ms "$url")
	rep=$(for _ in $(seq "$SERVE_REPEATS"); do scrape_ms "$url"; done | median)
	own=$(for _ in $(seq "$RUNS"); do scrape_ms "http://${sw_addrs[0]}/debug/pprof/heap"; done | median)
	echo "$SERVE_BIG $first $rep $own $(srv_rss VmHWM) $second" >"$sdir/serve-big.txt"
	serve_stop
	sweep_stop
}

# One scraper round: /metrics (its latency to $sdir/metrics.ms), then
# every process's heap, four at a time.
scrape_round() {
	local p
	scrape_ms "$srv_url/metrics" >>"$sdir/metrics.ms"
	for p in "${sw_pids[@]}"; do echo "$srv_url/pid/$p/debug/pprof/heap"; done |
		xargs -P 4 -I{} curl -s -o /dev/null {}
}

bench_serve_many() {
	local cold shared c0 t0 rounds=0 warm
	sweep_spawn "$SERVE_PROCS" 1000
	sweep_ready
	serve_start
	cold=$(scrape_ms "$srv_url/metrics")
	shared=$(scrape_ms "$srv_url/metrics")
	: >"$sdir/metrics.ms"
	c0=$(srv_cpu)
	t0=$(date +%s%N)
	while (($(date +%s%N) - t0 < SERVE_IDLE_S * 1000000000)); do
		scrape_round
		rounds=$((rounds + 1))
		sleep 15
	done
	# The rounds after the first: /metrics found the sweep older than
	# --refresh, and swept again with warm caches.
	warm=$(tail -n +2 "$sdir/metrics.ms" | median)
	awk -v n="$SERVE_PROCS" -v cold="$cold" -v shared="$shared" -v warm="$warm" \
		-v cpu=$(($(srv_cpu) - c0)) -v ns=$(($(date +%s%N) - t0)) -v rounds="$rounds" \
		-v rss="$(srv_rss VmRSS)" -v hwm="$(srv_rss VmHWM)" \
		'BEGIN {printf "%s %s %s %s %.2f %s %s %s %.0f\n", n, cold, shared, warm, cpu / (ns / 1e6) * 100, rss, hwm, rounds, ns / 1e9}' \
		>"$sdir/serve-many.txt"
	serve_stop
	sweep_stop
}

run_serve_section() {
	sweep_build
	bench_serve_big
	bench_serve_many
	echo
	echo "goheap-bpf serve (issue 11): latency as curl sees it (time_total),"
	echo "on loopback; second: the scrape that keeps each sample's locations;"
	echo "repeated: median of the $SERVE_REPEATS after it; own: the target's own"
	echo "/debug/pprof/heap; RSS: the server's peak"
	echo
	echo "| target  | first ms | second ms | repeated ms | repeated/first | own ms  | RSS MiB |"
	echo "|---------|----------|-----------|-------------|----------------|---------|---------|"
	awk '{printf "| %7s | %8s | %9s | %11s | %13.0f%% | %7s | %7s |\n", $1, $2, $6, $3, $3 / $2 * 100, $4, $5}' "$sdir/serve-big.txt"
	echo
	echo "/metrics over many processes of 1k buckets (cold: the first scrape, a"
	echo "sweep with binaries parsed; shared: right after, from that sweep; warm:"
	echo "once --refresh passed, a new sweep with the caches warm, median of the"
	echo "rounds); then /metrics and every process's heap every 15 s: the"
	echo "server's CPU over that time (share of one CPU), RSS at its end, peak RSS"
	echo
	echo "| procs | cold ms | shared ms | warm ms | CPU % | RSS MiB | peak MiB | rounds | s  |"
	echo "|-------|---------|-----------|---------|-------|---------|----------|--------|----|"
	awk '{printf "| %5s | %7s | %9s | %7s | %5s | %7s | %8s | %6s | %2s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9}' "$sdir/serve-many.txt"
	echo
	echo "Targets (issue 11):"
	awk '{printf "- a repeated scrape at most 40 %% of the first: %.0f %%: %s\n", $3 / $2 * 100, $3 <= 0.4 * $2 ? "met" : "NOT MET"}' "$sdir/serve-big.txt"
}
