#!/usr/bin/env python3
"""servecheck.py - the checks of serve.sh that read what goheap-bpf serve
answered: its JSON pages, its metrics, and `go tool pprof -raw` output.
Each prints one line saying what it checked; exits 0 when right, 1 with
the first problems otherwise.

    servecheck.py processes FILE EXPECT.json
        /processes holds exactly the processes of EXPECT (a JSON object:
        pid -> {"comm", "exe", "go_version" (null: any), "runtimes": N,
        "moving": true when its counters change: no value compared}),
        each with
        those labels, its runtimes and its profile paths
    servecheck.py targets FILE ADDR EXPECT.json
        /targets: one http_sd target per expected process, at ADDR, its
        __profile_path_prefix__ /pid/PID and its labels
    servecheck.py metrics FILE PID SUMMARY.json
        the runtime-1 series of PID in /metrics equal the totals of the
        process's own profile (cmpprof -summary), and its status is
        complete
    servecheck.py raw THEIRS.raw OURS.raw [DEFAULT]
        two `go tool pprof -raw` outputs hold the same profile: period,
        sample types (default one included), and the same samples (values,
        labels and stacks: each location as its address, mapping file and
        lines; IDs left out), samples of all zeros left out on both sides.
        DEFAULT (alloc_space): THEIRS is a heap profile, OURS must be its
        allocs profile, which differs only in that default sample type
    servecheck.py delta OURS.raw SECONDS BYTES
        a `go tool pprof -raw` of a ?seconds=SECONDS delta of allocs: its
        duration SECONDS, alloc_space its default, and the alloc_space it
        sums within -40 % .. +25 % of BYTES (what the target allocated
        meanwhile: publication at GC boundaries and sampling make it an
        estimate, and a loaded machine slows the target's pace)
    servecheck.py prometheus QUERY.json TARGETS.json METRICS EXPECT.json
        Prometheus's answers (/api/v1/query of goheap_process_inuse_bytes,
        /api/v1/targets): a series for each expected process's first
        runtime from the job "goheap" (/metrics), with its labels and the
        value /metrics gave; an active target, up, for each process in the
        job "goheap-discovered" (from /targets), its prefix and labels
"""
import collections
import json
import re
import sys


def fail(msg):
    print(msg)
    sys.exit(1)


def load_expect(path):
    with open(path) as f:
        return {int(k): v for k, v in json.load(f).items()}


def check_processes(path, expect_path):
    expect = load_expect(expect_path)
    with open(path) as f:
        procs = json.load(f)
    got = {p["pid"]: p for p in procs}
    if len(got) != len(procs) or set(got) != set(expect):
        fail(f"processes: PIDs {sorted(got)}, want {sorted(expect)}")
    for pid, want in expect.items():
        p = got[pid]
        for k in ("comm", "exe", "go_version"):
            if want[k] is not None and p.get(k) != want[k]:
                fail(f"processes: pid {pid}: {k} {p.get(k)!r}, want {want[k]!r}")
        for k in ("build_id", "cgroup", "container_id", "container_runtime",
                  "pod_uid", "status", "status_reason"):
            if not isinstance(p.get(k), str):
                fail(f"processes: pid {pid}: no {k}")
        if p["heap"] != f"/pid/{pid}/debug/pprof/heap" or \
                p["allocs"] != f"/pid/{pid}/debug/pprof/allocs":
            fail(f"processes: pid {pid}: paths {p['heap']} {p['allocs']}")
        rts = p["runtimes"]
        if [r["runtime"] for r in rts] != list(range(1, want["runtimes"] + 1)):
            fail(f"processes: pid {pid}: runtimes {rts}")
        for r in rts:
            if r["heap"] != f"/pid/{pid}/runtime/{r['runtime']}/debug/pprof/heap":
                fail(f"processes: pid {pid}: runtime path {r['heap']}")
            # a process whose GC runs all along may be read across
            # cycles: mixed, yet served
            if r["status"] not in (("complete", "mixed")
                                   if want.get("moving") else ("complete",)):
                fail(f"processes: pid {pid}: runtime {r['runtime']} {r['status']}")
    print(f"{len(got)} processes, labels and paths as expected")


def check_targets(path, addr, expect_path):
    expect = load_expect(expect_path)
    with open(path) as f:
        groups = json.load(f)
    seen = {}
    for g in groups:
        lab = g["labels"]
        pid = int(lab["pid"])
        if g["targets"] != [addr]:
            fail(f"targets: pid {pid}: targets {g['targets']}, want [{addr}]")
        if lab["__profile_path_prefix__"] != f"/pid/{pid}":
            fail(f"targets: pid {pid}: prefix {lab['__profile_path_prefix__']}")
        if pid in seen:
            fail(f"targets: pid {pid} twice")
        seen[pid] = lab
    if set(seen) != set(expect):
        fail(f"targets: PIDs {sorted(seen)}, want {sorted(expect)}")
    for pid, want in expect.items():
        for k in ("comm", "exe", "go_version"):
            if want[k] is not None and seen[pid].get(k) != want[k]:
                fail(f"targets: pid {pid}: {k} {seen[pid].get(k)!r}")
        if seen[pid].get("service_name") != want["comm"]:
            fail(f"targets: pid {pid}: service_name {seen[pid].get('service_name')!r}")
        if not all(isinstance(v, str) for v in seen[pid].values()):
            fail(f"targets: pid {pid}: a label value is not a string")
    print(f"{len(seen)} targets at {addr}, one per process, prefix /pid/PID")


SERIES = re.compile(r'^([a-z_]+)\{(.*)\} (\S+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')


def check_metrics(path, pid, summary_path):
    with open(summary_path) as f:
        totals = json.load(f)["totals"]
    want = {"goheap_process_inuse_bytes": totals["inuse_space"],
            "goheap_process_inuse_objects": totals["inuse_objects"],
            "goheap_process_alloc_bytes_total": totals["alloc_space"],
            "goheap_process_alloc_objects_total": totals["alloc_objects"]}
    got, status = {}, None
    with open(path) as f:
        for line in f:
            m = SERIES.match(line.rstrip("\n"))
            if not m:
                continue
            labels = dict(LABEL.findall(m.group(2)))
            if labels.get("pid") != pid or labels.get("runtime") != "1":
                continue
            if m.group(1) == "goheap_process_snapshot_status":
                if m.group(3) == "1":
                    status = labels.get("status")
            else:
                got[m.group(1)] = int(m.group(3))
    for k, v in want.items():
        if got.get(k) != v:
            fail(f"metrics: pid {pid}: {k} {got.get(k)}, own profile {v}")
    if status != "complete":
        fail(f"metrics: pid {pid}: snapshot status {status}")
    print(f"pid {pid}: in use {want['goheap_process_inuse_bytes']} B "
          f"{want['goheap_process_inuse_objects']} objects, alloc as own")


def parse_raw(path):
    """(header lines, Counter of sample keys) of a -raw output."""
    with open(path) as f:
        lines = f.read().split("\n")
    header, samples, locs, maps = [], [], {}, {}
    section, cur = "head", None
    for line in lines:
        if line == "Samples:":
            section = "types"
            continue
        if line == "Locations":
            section = "locs"
            continue
        if line == "Mappings":
            section = "maps"
            continue
        if section == "head":
            if line.startswith(("PeriodType:", "Period:")):
                header.append(line)
        elif section == "types":
            header.append(line)
            section = "samples"
        elif section == "samples":
            if line.startswith(" " * 16) and samples:
                samples[-1][2].append(line.strip())
            elif ":" in line:
                vals, ids = line.split(":", 1)
                samples.append((tuple(int(v) for v in vals.split()),
                                [int(i) for i in ids.split()], []))
        elif section == "locs":
            m = re.match(r'^\s*(\d+): (0x[0-9a-f]+) (?:M=(\d+) )?(\[F\] )?(.*)$', line)
            if m:
                cur = int(m.group(1))
                locs[cur] = [m.group(2), m.group(3), m.group(5)]
            elif line.strip() and cur is not None:
                locs[cur].append(line.strip())
        elif section == "maps":
            m = re.match(r'^(\d+): (\S+) (.*)$', line)
            if m:
                maps[m.group(1)] = m.group(2) + " " + m.group(3)
    counted = collections.Counter()
    for vals, ids, labels in samples:
        if not any(vals):
            continue
        stack = tuple((locs[i][0], maps.get(locs[i][1], ""),
                       tuple(locs[i][2:])) for i in ids)
        counted[(vals, stack, tuple(labels))] += 1
    return header, counted


def check_raw(theirs, ours, default=None):
    th, ts = parse_raw(theirs)
    oh, os_ = parse_raw(ours)
    if default:
        th[-1] = th[-1].replace(f"{default}/bytes", f"{default}/bytes[dflt]")
    if th != oh:
        fail(f"raw: header {oh}, theirs {th}")
    if ts != os_:
        missing = ts - os_
        extra = os_ - ts
        fail(f"raw: {sum(missing.values())} samples missing, "
             f"{sum(extra.values())} extra; first missing "
             f"{next(iter(missing), None)}")
    print(f"go tool pprof -raw: {sum(ts.values())} nonzero samples equal, {th[-1]}")


def raw_duration(path):
    with open(path) as f:
        for line in f:
            if line.startswith("Duration:"):
                return float(line.split()[1])
    return None


def check_delta(path, seconds, want):
    header, samples = parse_raw(path)
    types = header[-1].split()
    if "alloc_space/bytes[dflt]" not in types:
        fail(f"delta: sample types {header[-1]!r}: alloc_space not the default")
    col = types.index("alloc_space/bytes[dflt]")
    got = sum(vals[col] * n for (vals, _, _), n in samples.items())
    dur = raw_duration(path)
    if dur is None or abs(dur - seconds) > 0.5:
        fail(f"delta: duration {dur}, want {seconds} s")
    if not 0.6 * want <= got <= 1.25 * want:
        fail(f"delta: {got} bytes allocated in {dur} s, want about {want}")
    print(f"alloc_space {got} B over {dur} s, {got / want:.2f} of the "
          f"target's pace ({want} B)")


def metric_values(path, name):
    """pid -> value of NAME's runtime-1 series in a /metrics text."""
    out = {}
    with open(path) as f:
        for line in f:
            m = SERIES.match(line.rstrip("\n"))
            if m and m.group(1) == name:
                lab = dict(LABEL.findall(m.group(2)))
                if lab.get("runtime") == "1":
                    out[lab["pid"]] = float(m.group(3))
    return out


def check_prom_series(query, metrics, expect):
    with open(query) as f:
        res = json.load(f)["data"]["result"]
    mine = metric_values(metrics, "goheap_process_inuse_bytes")
    got = {r["metric"].get("pid"): r for r in res
           if r["metric"].get("job") == "goheap"
           and r["metric"].get("runtime") == "1"}
    for pid, want in expect.items():
        r = got.get(str(pid))
        if not r:
            fail(f"prometheus: no goheap_process_inuse_bytes of pid {pid}")
        lab = r["metric"]
        for k in ("comm", "exe", "go_version"):
            if want[k] is not None and lab.get(k) != want[k]:
                fail(f"prometheus: pid {pid}: {k} {lab.get(k)!r}, want {want[k]!r}")
        if not lab.get("cgroup", "").startswith("/"):
            fail(f"prometheus: pid {pid}: cgroup {lab.get('cgroup')!r}")
        if not want.get("moving") and \
                float(r["value"][1]) != mine.get(str(pid)):
            fail(f"prometheus: pid {pid}: {r['value'][1]}, /metrics {mine.get(str(pid))}")


def check_prom_targets(targets, expect):
    with open(targets) as f:
        active = json.load(f)["data"]["activeTargets"]
    seen = {}
    for t in active:
        if t["labels"].get("job") == "goheap-discovered":
            seen[t["labels"].get("pid")] = t
    for pid, want in expect.items():
        t = seen.get(str(pid))
        if not t:
            fail(f"prometheus: no discovered target for pid {pid}")
        if t["discoveredLabels"].get("__profile_path_prefix__") != f"/pid/{pid}":
            fail(f"prometheus: pid {pid}: prefix {t['discoveredLabels']}")
        if t["labels"].get("comm") != want["comm"] or t["health"] != "up":
            fail(f"prometheus: pid {pid}: comm {t['labels'].get('comm')!r}, "
                 f"health {t['health']} {t.get('lastError')}")
    return len(seen)


def check_prometheus(query, targets, metrics, expect_path):
    expect = load_expect(expect_path)
    check_prom_series(query, metrics, expect)
    n = check_prom_targets(targets, expect)
    print(f"{len(expect)} processes' in-use series with their labels and "
          f"/metrics' values; {n} targets discovered from /targets, up")


def main():
    a = sys.argv[1:]
    if a[:1] == ["processes"] and len(a) == 3:
        check_processes(a[1], a[2])
    elif a[:1] == ["targets"] and len(a) == 4:
        check_targets(a[1], a[2], a[3])
    elif a[:1] == ["metrics"] and len(a) == 4:
        check_metrics(a[1], a[2], a[3])
    elif a[:1] == ["raw"] and len(a) in (3, 4):
        check_raw(a[1], a[2], a[3] if len(a) == 4 else None)
    elif a[:1] == ["delta"] and len(a) == 4:
        check_delta(a[1], float(a[2]), int(a[3]))
    elif a[:1] == ["prometheus"] and len(a) == 5:
        check_prometheus(a[1], a[2], a[3], a[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
