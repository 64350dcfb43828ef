#!/usr/bin/env python3
"""servecheck.py - the checks of serve.sh that read what goheap-bpf serve
answered: its JSON pages, its metrics, and `go tool pprof -raw` output.
Each prints one line saying what it checked; exits 0 when right, 1 with
the first problems otherwise.

    servecheck.py processes FILE EXPECT.json
        /processes holds exactly the processes of EXPECT (a JSON object:
        pid -> {"comm", "exe", "go_version" (null: any), "runtimes": N}),
        each with
        those labels, its runtimes and its profile paths
    servecheck.py targets FILE ADDR EXPECT.json
        /targets: one http_sd target per expected process, at ADDR, its
        __profile_path_prefix__ /pid/PID and its labels
    servecheck.py metrics FILE PID SUMMARY.json
        the runtime-1 series of PID in /metrics equal the totals of the
        process's own profile (cmpprof -summary), and its status is
        complete
    servecheck.py raw THEIRS.raw OURS.raw
        two `go tool pprof -raw` outputs hold the same profile: period,
        sample types (default one included), and the same samples (values,
        labels and stacks: each location as its address, mapping file and
        lines; IDs left out), samples of all zeros left out on both sides
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
            if r["status"] != "complete":
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


def check_raw(theirs, ours):
    th, ts = parse_raw(theirs)
    oh, os_ = parse_raw(ours)
    if th != oh:
        fail(f"raw: header {oh}, theirs {th}")
    if ts != os_:
        missing = ts - os_
        extra = os_ - ts
        fail(f"raw: {sum(missing.values())} samples missing, "
             f"{sum(extra.values())} extra; first missing "
             f"{next(iter(missing), None)}")
    print(f"go tool pprof -raw: {sum(ts.values())} nonzero samples equal, {th[-1]}")


def main():
    a = sys.argv[1:]
    if a[:1] == ["processes"] and len(a) == 3:
        check_processes(a[1], a[2])
    elif a[:1] == ["targets"] and len(a) == 4:
        check_targets(a[1], a[2], a[3])
    elif a[:1] == ["metrics"] and len(a) == 4:
        check_metrics(a[1], a[2], a[3])
    elif a[:1] == ["raw"] and len(a) == 3:
        check_raw(a[1], a[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
