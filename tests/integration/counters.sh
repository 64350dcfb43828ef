#!/usr/bin/env bash
# counters.sh - the runtime's own counters (issue 17, part 3) read from
# outside must agree with the target's runtime/metrics. tests/targets/
# counters (GOMAXPROCS 3, GOGC 150, GOMEMLIMIT 1234567890 on 1.19+, 25
# parked goroutines, some GCs, then quiet) built by each release in
# GO_VERSIONS as exe and PIE, renamed ${tag}N; one goheap-bpf serve
# (--comm '^${tag}', --refresh 1ms: each scrape sweeps) is scraped between
# the target's own reports before and after, and so is goheap-bpf --pid
# PID --format json (its "runtime" object). Per counter of its row in
# /metrics (labelled pid="PID") and of the JSON:
#   go_sched_gomaxprocs_threads, go_gc_gogc_percent, go_gc_gomemlimit_bytes:
#     equal to both reports (set once, never moved);
#   go_goroutines, go_sched_goroutines_goroutines, go_gc_cycles_total_gc_cycles_total,
#     go_gc_heap_live_bytes, go_gc_heap_goal_bytes: between the before and
#     after values (the target's polling allocates a little: a GC may end
#     in between, moving the cycles, the live heap and the goal; its
#     report's goroutine count moves nothing, but a background worker may);
#   a counter the release's runtime/metrics lacks (live heap, GOGC and
#     the limit before 1.21, GOMAXPROCS before 1.19) must be absent when
#     the release lacks its variable too, and when present is checked
#     against the value set (GOGC 150, GOMAXPROCS 3, the limit from
#     GOMEMLIMIT).
# The goroutines by state (25 parked on a channel, 3 blocked in read(2),
# the main goroutine parked in the netpoller between its reports and
# running in them): on 1.26+ each of go_sched_goroutines_{running,
# runnable,waiting,not_in_go}_goroutines against the target's own
# /sched/goroutines/* metrics, before and after; before 1.26 against the
# states of its own dump (runtime.Stack of all goroutines, the debug=2
# text), which leaves the system goroutines out: running, runnable and
# not-in-go compared as they are, waiting less the system goroutines (the
# four add up to gcount(true), NumGoroutine leaves them out). Each between
# its before and after value, the main goroutine taken out of running and
# put in waiting (it waits while we read); go_sched_goroutines_created_
# goroutines_total (1.26+) between them as it is, absent before. Each
# /metrics scrape passes promtool check metrics without a warning.
NAME=counters
. "$(dirname "$0")/lib.sh"
setup "$@"
for c in curl promtool python3; do
	command -v $c >/dev/null || die "no $c: make deps installs it"
done

out=$(mktemp -d /tmp/goheap-counters.XXXXXX)
tag=ghc$$
pass=0 fail=0 spid= target=
cleanup() {
	kill_target
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	rm -rf "$out"
}
trap cleanup EXIT

"$bin" serve --listen 127.0.0.1:0 --comm "^$tag" --refresh 1ms 2>"$out/serve.log" &
spid=$!
for ((i = 0; i < 300; i++)); do
	port=$(sed -n 's|^goheap-bpf: serving on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$out/serve.log")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || die "serve did not start: $(tail -3 "$out/serve.log")"

n=0
for v in "${versions[@]}"; do
	goroot=$(tools/go-toolchains.sh goroot "$v") || die "no Go $v toolchain"
	minor=${v#1.}
	minor=${minor%%.*}
	for mode in exe pie; do
		n=$((n + 1))
		dir=build/targets/$v/$mode
		mkdir -p "$dir"
		tests/targets/build.sh counters "$mode" "$goroot" "$dir/counters" >"$dir/counters.log" 2>&1 ||
			die "building counters with Go $v ($mode) failed: $(tail -3 "$dir/counters.log")"
		cp "$dir/counters" "$out/$tag$n"
		d=$out/case$n
		mkdir -p "$d"
		mkfifo "$d/req"
		COUNTERS_DIR=$d GOMEMLIMIT=1234567890 "$out/$tag$n" &
		target=$!
		exec 7<>"$d/req"
		wait_file "$d/ready" "$target" || { verdict "go$v-$mode" "the target did not start"; exec 7>&-; kill_target; continue; }
		echo >&7
		wait_file "$d/rep1" "$target"
		curl -sS --max-time 60 -o "$d/metrics" "http://127.0.0.1:$port/metrics" 2>"$d/curl.err"
		"$bin" --pid "$target" --format json --output "$d/ours.json" 2>"$d/json.err"
		echo >&7
		wait_file "$d/rep2" "$target"
		exec 7>&-
		why=$(python3 - "$d" "$target" "$minor" <<'PY'
import json, re, sys
d, pid, minor = sys.argv[1], sys.argv[2], int(sys.argv[3])
def rep(p):
    return {k: int(v) for k, v in (l.split() for l in open(p))}
b, a = rep(d + "/rep1"), rep(d + "/rep2")
got = {}
for l in open(d + "/metrics"):
    m = re.match(r'^(go_\w+)\{pid="' + pid + r'",[^}]*\} (-?\d+)$', l)
    if m:
        got[m.group(1)] = int(m.group(2))
# The JSON document's runtime object, under the same names.
json_names = {"gomaxprocs": "go_sched_gomaxprocs_threads",
              "gogc_percent": "go_gc_gogc_percent",
              "memory_limit_bytes": "go_gc_gomemlimit_bytes",
              "goroutines": "go_goroutines",
              "sched_goroutines": "go_sched_goroutines_goroutines",
              "gc_cycles": "go_gc_cycles_total_gc_cycles_total",
              "heap_live_bytes": "go_gc_heap_live_bytes",
              "heap_goal_bytes": "go_gc_heap_goal_bytes",
              "goroutines_running": "go_sched_goroutines_running_goroutines",
              "goroutines_runnable": "go_sched_goroutines_runnable_goroutines",
              "goroutines_waiting": "go_sched_goroutines_waiting_goroutines",
              "goroutines_not_in_go": "go_sched_goroutines_not_in_go_goroutines",
              "goroutines_created": "go_sched_goroutines_created_goroutines_total"}
try:
    rt = json.load(open(d + "/ours.json"))["runtime"]
except (OSError, ValueError, KeyError) as e:
    rt = {"available": False, "reason": f"no runtime object: {e!r}"}
jgot = {json_names[k]: v for k, v in rt.items() if k in json_names}
limit = 1234567890 if minor >= 19 else None
rules = [  # name, report key, rule, fallback when the metric is absent
    ("go_sched_gomaxprocs_threads", "gomaxprocs", "eq", 3),
    ("go_gc_gogc_percent", "gogc", "eq", 150),
    ("go_gc_gomemlimit_bytes", "memory_limit", "eq", limit),
    ("go_goroutines", "goroutines", "between", None),
    ("go_sched_goroutines_goroutines", "sched_goroutines", "between", None),
    ("go_gc_cycles_total_gc_cycles_total", "gc_cycles", "between", None),
    ("go_gc_heap_live_bytes", "heap_live", "between", None),
    ("go_gc_heap_goal_bytes", "heap_goal", "between", None),
]
bad, ok = [], 0
if not rt.get("available"):
    bad.append(f"JSON runtime unavailable: {rt.get('reason')}")
for (src, got), (name, key, rule, fb) in (
        ((src, g), r) for src, g in (("/metrics", got), ("JSON", jgot))
        for r in rules):
    if key in b and key in a:
        lo, hi = min(b[key], a[key]), max(b[key], a[key])
        if rule == "eq" and not (b[key] == a[key]):
            bad.append(f"{key} moved in the target ({b[key]} -> {a[key]})")
            continue
    elif fb is not None:
        lo = hi = fb
    else:
        if name in got:
            bad.append(f"{src}: {name} is {got[name]}, the release has no such counter")
        else:
            ok += 1
        continue
    if name not in got:
        bad.append(f"{src}: {name} missing")
    elif not lo <= got[name] <= hi:
        bad.append(f"{src}: {name} is {got[name]}, the target said {lo}..{hi}")
    else:
        ok += 1
# The goroutines by state: (name, report key, the main goroutine's part).
states = [("running", "running", -1), ("runnable", "runnable", 0),
          ("waiting", "waiting", +1), ("not_in_go", "not_in_go", 0)]
if minor < 26:
    states = [(n, {"not_in_go": "st_syscall"}.get(k, "st_" + k), adj)
              for n, k, adj in states]
for src, g in (("/metrics", got), ("JSON", jgot)):
    name = lambda s: f"go_sched_goroutines_{s}_goroutines"
    if any(name(s) not in g for s, _, _ in states):
        bad.append(f"{src}: a goroutine state is missing")
        continue
    if minor >= 26:
        c = "go_sched_goroutines_created_goroutines_total"
        lo, hi = min(b["created"], a["created"]), max(b["created"], a["created"])
        if not lo <= g.get(c, -1) <= hi:
            bad.append(f"{src}: {c} is {g.get(c)}, the target said {lo}..{hi}")
        else:
            ok += 1
    elif "go_sched_goroutines_created_goroutines_total" in g:
        bad.append(f"{src}: goroutines created is there before 1.26")
    system = sum(g[name(s)] for s, _, _ in states) - g["go_goroutines"]
    for s, key, adj in states:
        v = g[name(s)] - (system if minor < 26 and s == "waiting" else 0)
        lo = min(b[key], a[key]) + adj
        hi = max(b[key], a[key]) + adj
        if not lo <= v <= hi:
            bad.append(f"{src}: {name(s)} is {g[name(s)]} ({v} compared), "
                       f"the target said {lo}..{hi} (its main goroutine "
                       f"taken as waiting)")
        else:
            ok += 1
print("; ".join(bad) if bad else "")
print(f"{ok} counters agree", file=sys.stderr)
PY
		)
		# The exposition with the new families: as serve.sh checks it.
		if ! promtool check metrics <"$d/metrics" >"$d/promtool.out" 2>&1 || [ -s "$d/promtool.out" ]; then
			why="${why:+$why; }promtool: $(head -3 "$d/promtool.out" | tr '\n' ' ')"
		fi
		verdict "go$v-$mode" "$why"
		kill_target
	done
done
echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
