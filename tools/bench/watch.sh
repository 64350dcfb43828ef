# watch.sh - the watch section of `make bench` (issue 12), sourced by
# run.sh, whose $bin, $dir, $go, $ticks and median it uses.
#
# Scenario A, what watching costs: BENCH_WATCH_COUNTS (default "1 100
# 1000") idle Go processes (tools/bench/idle: a few hundred buckets,
# about 3.5 MiB of RSS each, so 1000 fit in a few GiB; started all at once
# and waited for) watched by `goheap-bpf watch --comm '^ghbench-idle$'
# --rss-above 1T --interval 1s`: a /proc trigger that never fires, so the
# figures are the watch's fixed cost (discovery's scan of /proc at each
# interval, the RSS reads), with the OOM capture on (the default: its BPF
# load, each process registered, its binary parsed and kept, the ring
# buffer drained every 100 ms) and with --no-oom. Once -v says every
# process is watched (discovery settled), BENCH_WATCH_S (15) s are
# measured: the watcher's CPU (utime+stime in /proc/PID/stat, 10 ms
# ticks) per interval and per process per interval, its RSS at the end
# and peak RSS (VmHWM: the start-up's too); and the time and CPU until
# it settled (-v speaks after a step returns: without the OOM capture's
# 100 ms wake-ups that is at the end of the first interval).
#
# Scenario B, how soon a crossing is written: tests/targets/grower in a
# cgroup v1 memory cgroup made here (256 MiB limit, removed after),
# grown 16 MiB a step while a poller (5 ms) notes when the watched value
# first passes the threshold; the delay is from then to the snapshot's
# JSON (written last) on disk (its mtime), as watchtest.py measures it.
# --cgroup-above 50 at --interval 30s (only the kernel's threshold event
# can be that quick) and --rss-above 96M at --interval 100ms (polled:
# up to an interval plus the read); median of BENCH_WATCH_RUNS (5), each
# with a new grower, cgroup and watch.

WATCH_COUNTS=${BENCH_WATCH_COUNTS:-1 100 1000}
WATCH_S=${BENCH_WATCH_S:-15}
WATCH_RUNS=${BENCH_WATCH_RUNS:-5}
wdir=$dir/watch
wt_pids=()
wt_watch=
wt_grower=
wt_cg=

watch_build() {
	mkdir -p "$wdir"
	(cd tools/bench/idle && "$go" build -o "$OLDPWD/$wdir/ghbench-idle" .)
	tests/targets/build.sh grower exe "$(dirname "$(dirname "$go")")" "$wdir/grower" \
		>"$wdir/build.log" 2>&1 || { cat "$wdir/build.log" >&2; exit 1; }
}

# Everything this section started goes, and its cgroup: run.sh's EXIT
# trap calls this whatever ends the run.
watch_stop() {
	[ -z "$wt_watch" ] || { kill -TERM "$wt_watch" 2>/dev/null; wait "$wt_watch" 2>/dev/null || true; }
	wt_watch=
	[ ${#wt_pids[@]} -eq 0 ] || kill "${wt_pids[@]}" 2>/dev/null || true
	[ ${#wt_pids[@]} -eq 0 ] || wait "${wt_pids[@]}" 2>/dev/null || true
	wt_pids=()
	[ -z "$wt_grower" ] || { kill "$wt_grower" 2>/dev/null; wait "$wt_grower" 2>/dev/null || true; }
	wt_grower=
	# A cgroup can be removed only once its last task is gone; the kill
	# above was waited for, but its exit reaches the cgroup a moment later.
	if [ -n "$wt_cg" ]; then
		for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$wt_cg" 2>/dev/null && break; sleep 0.1; done
		[ ! -d "$wt_cg" ] || echo "bench: could not remove $wt_cg" >&2
	fi
	wt_cg=
}

wmem() { awk -v k="$2:" '$1 == k {printf "%.1f\n", $2 / 1024}' "/proc/$1/status"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# watch_spawn N: N idle processes, all started before any is waited for
# (each takes a few ms of its own to build its heap); each appends
# "ready" to one file, so N lines mean all are up.
watch_spawn() {
	local n=$1 i t0
	: >"$wdir/ready"
	t0=$(now_ms)
	for ((i = 0; i < n; i++)); do
		"$wdir/ghbench-idle" >>"$wdir/ready" &
		wt_pids+=($!)
	done
	until [ "$(wc -l <"$wdir/ready")" -ge "$n" ]; do
		(($(now_ms) - t0 < 120000)) || { echo "bench: $n idle processes not ready in 120 s" >&2; exit 1; }
		sleep 0.1
	done
}

# watch_cost N OOM: one watch over the N idle processes, OOM capture on
# (on) or not (off); appends "n oom settle_ms settle_cpu cpu_per_interval
# per_proc rss hwm intervals" to $wdir/cost.txt.
watch_cost() {
	local n=$1 oom=$2 log=$wdir/watch.log t0 ts c0 c1 t1 extra=()
	[ "$oom" = on ] || extra=(--no-oom)
	rm -rf "$wdir/out"
	t0=$(now_ms)
	"$bin" watch -d "$wdir/out" --comm '^ghbench-idle$' --rss-above 1T \
		--interval 1s -v "${extra[@]}" 2>"$log" &
	wt_watch=$!
	# Settled: -v's "watching N processes" says each was found and opened.
	until grep -q "watching $n process" "$log"; do
		kill -0 "$wt_watch" 2>/dev/null || { echo "bench: watch died: $(tail -2 "$log")" >&2; exit 1; }
		(($(now_ms) - t0 < 120000)) || { echo "bench: watch did not pick up $n processes in 120 s: $(tail -1 "$log")" >&2; exit 1; }
		sleep 0.05
	done
	ts=$(($(now_ms) - t0))
	c0=$(tcpu "$wt_watch")
	t0=$(now_ms)
	sleep "$WATCH_S"
	c1=$(tcpu "$wt_watch")
	t1=$(now_ms)
	awk -v n="$n" -v oom="$oom" -v ts="$ts" -v cs="$c0" -v cpu=$((c1 - c0)) -v ms=$((t1 - t0)) \
		-v rss="$(wmem "$wt_watch" VmRSS)" -v hwm="$(wmem "$wt_watch" VmHWM)" \
		'BEGIN {iv = ms / 1000; printf "%s %s %s %s %.1f %.3f %s %s %.0f\n", n, oom, ts, cs,
			cpu / iv, cpu / iv / n, rss, hwm, iv}' >>"$wdir/cost.txt"
	grep -q "watching $n process" <(tail -1 "$log") ||
		echo "bench: watch over $n: $(tail -1 "$log")" >&2
	kill -TERM "$wt_watch"; wait "$wt_watch" 2>/dev/null || true
	wt_watch=
	rm -rf "$wdir/out"
}

bench_watch_cost() {
	local n
	: >"$wdir/cost.txt"
	# One descriptor or more per watched process (its /proc files, the
	# OOM watch's): the soft limit (often 1024) is raised to the hard one
	# for this shell and the watches it starts.
	ulimit -n "$(ulimit -Hn)"
	for n in $WATCH_COUNTS; do
		watch_spawn "$n"
		watch_cost "$n" on
		watch_cost "$n" off
		watch_stop
	done
}

# grow_until FILE THRESHOLD: grow the grower 16 MiB a step (each waited
# for: its "grown" line) until the value read from FILE (bytes; or
# "statm" pages of /proc/PID/statm) passes THRESHOLD; a poller every 5 ms
# writes the crossing's time (ns) to $wdir/at. Fails after 12 steps.
grow_until() {
	local file=$1 thr=$2 steps=0 lines poller
	rm -f "$wdir/at"
	(
		pg=$(getconf PAGESIZE)
		while :; do
			if [ "${file##*/}" = statm ]; then
				read -r _ v _ <"$file"; v=$((v * pg))
			else
				v=$(<"$file")
			fi
			((v < thr)) || { echo "${EPOCHREALTIME/./}000" >"$wdir/at"; exit 0; }
			sleep 0.005
		done
	) &
	poller=$!
	while [ ! -s "$wdir/at" ] && ((steps < 12)); do
		lines=$(wc -l <"$wdir/grower.out")
		kill -USR1 "$wt_grower"
		until [ "$(wc -l <"$wdir/grower.out")" -gt "$lines" ]; do sleep 0.01; done
		steps=$((steps + 1))
	done
	# The poller sees the last step's crossing within its 5 ms.
	sleep 0.05
	kill "$poller" 2>/dev/null || true
	wait "$poller" 2>/dev/null || true
	[ -s "$wdir/at" ]
}

# crossing TRIGGER: one run; appends the delay (ms) to $wdir/delay.TRIGGER,
# or says why there is none.
crossing() {
	local trig=$1 out=$wdir/out args thr file i json at mt
	wt_cg=/sys/fs/cgroup/memory/gh-bench-$$
	mkdir "$wt_cg"
	echo $((256 << 20)) >"$wt_cg/memory.limit_in_bytes"
	: >"$wdir/grower.out"
	(echo "$BASHPID" >"$wt_cg/cgroup.procs" && exec "$wdir/grower") >"$wdir/grower.out" &
	wt_grower=$!
	until [ -s "$wdir/grower.out" ]; do sleep 0.01; done
	if [ "$trig" = cgroup-above ]; then
		args=(--cgroup-above 50 --interval 30s)
		file=$wt_cg/memory.usage_in_bytes thr=$((128 << 20))
	else
		args=(--rss-above 96M --interval 100ms)
		file=/proc/$wt_grower/statm thr=$(((96 << 20) + 1))
	fi
	rm -rf "$out"
	# --no-oom: the OOM capture's start-up (BPF load) is not what is
	# measured, and the crossing does not wait on it.
	"$bin" watch -d "$out" --pid "$wt_grower" --no-oom "${args[@]}" >/dev/null 2>"$wdir/watch.log" &
	wt_watch=$!
	sleep 0.7
	if grow_until "$file" "$thr"; then
		for i in $(seq 100); do
			json=$(find "$out" -name "*-$trig.json" 2>/dev/null | head -1)
			[ -z "$json" ] || break
			sleep 0.05
		done
		if [ -n "$json" ]; then
			at=$(<"$wdir/at")
			mt=$(stat -c %.9Y "$json" | tr -d .)
			echo $(((mt - at) / 1000)) | awk '{printf "%.1f\n", $1 / 1000}' >>"$wdir/delay.$trig"
		else
			echo "bench: $trig: no snapshot in 5 s: $(tail -2 "$wdir/watch.log")" >&2
		fi
	else
		echo "bench: $trig: no crossing after 12 steps" >&2
	fi
	watch_stop
	rm -rf "$out"
}

bench_watch_delay() {
	local t
	rm -f "$wdir"/delay.*
	if [ ! -d /sys/fs/cgroup/memory ]; then
		echo "bench: no cgroup v1 memory controller at /sys/fs/cgroup/memory: no delays" >&2
		return 0
	fi
	for _ in $(seq "$WATCH_RUNS"); do
		for t in cgroup-above rss-above; do crossing "$t"; done
	done
}

run_watch_section() {
	watch_build
	bench_watch_cost
	bench_watch_delay
	echo
	echo "goheap-bpf watch (issue 12): its own cost over idle Go processes"
	echo "(tools/bench/idle) found by --comm, --rss-above 1T (never fires),"
	echo "--interval 1s; measured for ${WATCH_S} s once every process was watched;"
	echo "CPU: utime+stime in 10 ms ticks; settle: start to -v saying every"
	echo "process is watched (said after a step: without OOM capture, after"
	echo "the first interval), and the CPU it took; RSS at the end, peak RSS"
	echo "over the run"
	echo
	echo "| procs | OOM | settle ms | settle CPU ms | CPU ms/interval | per proc ms | RSS MiB | peak MiB | intervals |"
	echo "|-------|-----|-----------|---------------|-----------------|-------------|---------|----------|-----------|"
	awk '{printf "| %5s | %-3s | %9s | %13s | %15s | %11s | %7s | %8s | %9s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9}' "$wdir/cost.txt"
	echo
	echo "Crossing to snapshot (tests/targets/grower, 16 MiB a step, in a v1 memory"
	echo "cgroup of 256 MiB): from a 5 ms poller's first sight of the crossing to"
	echo "the snapshot's JSON on disk; median of $WATCH_RUNS"
	echo
	echo "| trigger                          | how     | median ms | min ms | max ms | runs |"
	echo "|----------------------------------|---------|-----------|--------|--------|------|"
	local t how lbl
	for t in cgroup-above rss-above; do
		case $t in
		cgroup-above) how=event; lbl="--cgroup-above 50 (interval 30s)" ;;
		*) how=polled; lbl="--rss-above 96M (interval 100ms)" ;;
		esac
		if [ -s "$wdir/delay.$t" ]; then
			printf '| %-32s | %-7s | %9s | %6s | %6s | %4s |\n' "$lbl" "$how" \
				"$(median <"$wdir/delay.$t")" "$(sort -g "$wdir/delay.$t" | head -1)" \
				"$(sort -g "$wdir/delay.$t" | tail -1)" "$(wc -l <"$wdir/delay.$t")"
		else
			printf '| %-32s | %-7s | %9s | %6s | %6s | %4s |\n' "$lbl" "$how" n/a n/a n/a 0
		fi
	done
}
