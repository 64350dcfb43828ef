#!/usr/bin/env python3
"""sweepcheck.py - the JSON and table side of sweep.sh's checks.

    sweepcheck.py binaries PID...       distinct binaries the PIDs map
    sweepcheck.py tsv FILE KEY...       JSON Lines FILE as rows of KEYs
    sweepcheck.py jsonl FILE TOPN       --format jsonl output, entries bound
    sweepcheck.py table TABLE INDEX     the summary table against index.jsonl
    sweepcheck.py kindtable KIND SAMPLE_INDEX TABLE INDEX
                                        the same for --profile KIND (block,
                                        mutex, goroutine), ranked by
                                        SAMPLE_INDEX
    sweepcheck.py summaries INDEX DIR   index totals and pprof labels against
                                        cmpprof -summary outputs in DIR

Each check prints what is wrong, one line each, and exits 1 if anything
is; binaries and tsv print their answer.
"""
import json
import os
import sys

# ---- binaries ----


def file_id(path):
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def binaries_of(pid):
    """The files goheap-bpf parses to find pid's Go runtimes: its
    executable and every file it maps executable (not [vdso], not
    anonymous), as user/target/target.c picks them."""
    ids = {file_id(f"/proc/{pid}/exe")}
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            cols = line.split(None, 5)
            if len(cols) < 6 or cols[1][2] != "x":
                continue
            path = cols[5].rstrip("\n")
            if cols[4] == "0" or not path.startswith("/"):
                continue
            lo, hi = (int(x, 16) for x in cols[0].split("-"))
            ids.add(file_id(f"/proc/{pid}/map_files/{lo:x}-{hi:x}"))
    return ids


def cmd_binaries(pids):
    """Prints the number of distinct files, and the number of files a
    reader that parses every process's files anew would parse."""
    union, total = set(), 0
    for pid in pids:
        ids = binaries_of(pid)
        union |= ids
        total += len(ids)
    print(len(union), total)
    return 0


# ---- JSON Lines ----


def load_lines(path):
    """Every line of path as one JSON object; SystemExit naming the first
    line that is not exactly one."""
    docs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                doc = json.loads(line)
            except ValueError as e:
                sys.exit(f"{path}:{n}: not one JSON document: {e}: {line[:120]!r}")
            if not isinstance(doc, dict):
                sys.exit(f"{path}:{n}: not a JSON object: {line[:120]!r}")
            docs.append(doc)
    return docs


def get(doc, key):
    for k in key.split("."):
        if not isinstance(doc, dict) or k not in doc:
            return "<missing>"
        doc = doc[k]
    return doc


def cmd_tsv(path, keys):
    """One row per document: the keys' values, separated by US (0x1f) so
    that empty values survive bash's read."""
    for doc in load_lines(path):
        print("\x1f".join(str(get(doc, k)) for k in keys))
    return 0


def cmd_jsonl(path, topn):
    docs, bad, cut = load_lines(path), 0, 0
    for d in docs:
        entries = d.get("entries")
        if not isinstance(entries, list):
            print(f"pid {d.get('pid')}: no entries list")
            bad += 1
            continue
        if len(entries) > topn:
            print(f"pid {d.get('pid')}: {len(entries)} entries, --top {topn}")
            bad += 1
        if d.get("output_truncated"):
            cut += 1
            if len(entries) != topn:
                print(f"pid {d.get('pid')}: truncated to {len(entries)} entries, not {topn}")
                bad += 1
    if docs and not cut:
        print(f"no document was truncated to {topn} entries: the bound was never met")
        bad += 1
    return 1 if bad else 0


# ---- the summary table ----

HEADER = "PID COMM CONTAINER GO INUSE OBJECTS ALLOC BUCKETS GOROUTINES STATUS TOP SITE".split()
GOROUTINES = 8  # the column the index has no number for (sweep.sh checks it)
DATA = ("complete", "partial", "mixed")


def bytes_text(v):
    """As the table (and go tool pprof) shows bytes: 1024-based units."""
    units = ["B", "kB", "MB", "GB", "TB", "PB"]
    x, u = float(v), 0
    while (x >= 1024 or x <= -1024) and u + 1 < len(units):
        x /= 1024
        u += 1
    return f"{v}B" if u == 0 else f"{x:.2f}{units[u]}"


def expected_cells(d):
    data = d["status"] in DATA
    t = d["totals"]
    cells = [str(d["pid"]), d["comm"] or "?", d["container_id"][:12] or "-",
             d["runtime_version"] or "-"]
    if data:
        cells += [bytes_text(t["inuse_space"]), str(t["inuse_objects"]),
                  bytes_text(t["alloc_space"]), str(d["buckets"])]
    else:
        cells += ["-"] * 4
    cells += [d["status"], d["top_site"] if data else ""]
    return cells


def row_line(by_pid, pid, g, problems):
    """The index line of pid's row (None when there is none) and the
    goroutines its GOROUTINES cell g adds to the total; what is wrong
    into problems."""
    if g != "-" and not g.isdigit():
        problems.append(f"row of pid {pid}: GOROUTINES {g!r} is neither a count nor -")
    d = by_pid.get(pid)
    if d is None:
        problems.append(f"row of pid {pid} not in the index")
    return d, int(g) if g.isdigit() else 0


def cmd_table(table_path, index_path):
    with open(table_path, encoding="utf-8") as f:
        lines = [ln.rstrip("\n") for ln in f if ln.strip()]
    index = load_lines(index_path)
    problems = []
    if not lines or lines[0].split() != HEADER:
        return print_problems([f"no header line {' '.join(HEADER)!r}"])
    rows, total = lines[1:-1], lines[-1].split() if len(lines) > 1 else []
    if len(rows) != len(index):
        problems.append(f"{len(rows)} rows, {len(index)} index lines")
    by_pid = {str(d["pid"]): d for d in index}
    order = []
    goroutines = 0
    for row in rows:
        cells = row.split(None, 10)
        cells += [""] * (11 - len(cells))
        g = cells.pop(GOROUTINES)
        d, n = row_line(by_pid, cells[0], g, problems)
        goroutines += n
        if d is None:
            continue
        if cells != expected_cells(d):
            problems.append(f"row {cells} != index {expected_cells(d)}")
        order.append(d)
    # Rows with a profile first, most in-use bytes first (ties by PID),
    # then the rest by PID.
    key = [(d["status"] not in DATA,
            -d["totals"]["inuse_space"] if d["status"] in DATA else 0, d["pid"])
           for d in order]
    if key != sorted(key):
        problems.append("rows not ranked by in-use bytes: "
                        + " ".join(f"{d['pid']}:{d['totals']['inuse_space']}" for d in order))
    data = [d for d in index if d["status"] in DATA]
    if data and order and order[0]["totals"]["inuse_space"] != max(
            d["totals"]["inuse_space"] for d in data):
        problems.append(f"first row (pid {order[0]['pid']}) does not hold the most in-use bytes")
    want = ["total", str(len(data)), "of", str(len(index)),
            bytes_text(sum(d["totals"]["inuse_space"] for d in data)),
            str(sum(d["totals"]["inuse_objects"] for d in data)),
            bytes_text(sum(d["totals"]["alloc_space"] for d in data)),
            str(sum(d["buckets"] for d in data)), str(goroutines)]
    if total != want:
        problems.append(f"total row {total} != sums of the index {want}")
    if not problems:
        print(f"{len(rows)} rows ranked, total row = index sums ({' '.join(want[1:])})")
    return print_problems(problems)


# ---- the tables of the other kinds ----

KIND_HEADER = {
    "block": "PID COMM CONTAINER GO DELAY CONTENTIONS BUCKETS GOROUTINES STATUS".split(),
    "goroutine": "PID COMM CONTAINER GO GOROUTINES STACKS STATUS".split(),
}
KIND_HEADER["mutex"] = KIND_HEADER["block"]


def nanos_text(v):
    """As the table (and go tool pprof) shows nanoseconds."""
    units = [("ns", 1), ("us", 1e3), ("ms", 1e6), ("s", 1e9), ("hrs", 3.6e12)]
    name, div = units[0]
    for n, d in units[1:]:
        if abs(v) / d >= 1.0:
            name, div = n, d
    t = f"{v / div:.2f}"
    if len(t) > 3 and t.endswith(".00"):
        t = t[:-3]
    return t if t == "0" else t + name


def status_word(d):
    """The table's STATUS: the JSON status, "disabled" for a profile the
    program never turned on."""
    if d["status"] == "unavailable" and "is not enabled" in d["status_reason"]:
        return "disabled"
    return d["status"]


def kind_cells(kind, d, goroutines):
    """A row's cells from its index line; goroutines: the row's own
    GOROUTINES cell (block, mutex: the runtime's count, not in the index)."""
    data = d["status"] in DATA
    t = d["totals"]
    cells = [str(d["pid"]), d["comm"] or "?", d["container_id"][:12] or "-",
             d["runtime_version"] or "-"]
    if kind == "goroutine":
        cells += [str(t["goroutine"]), str(d["buckets"])] if data else ["-", "-"]
    else:
        cells += ([nanos_text(t["delay"]), str(t["contentions"]), str(d["buckets"])]
                  if data else ["-"] * 3)
        cells.append(goroutines)
    return cells + [status_word(d)]


def kind_total(kind, data, index, goroutines):
    want = ["total", str(len(data)), "of", str(len(index))]
    if kind == "goroutine":
        return want + [str(sum(d["totals"]["goroutine"] for d in data)),
                       str(sum(d["buckets"] for d in data))]
    return want + [nanos_text(sum(d["totals"]["delay"] for d in data)),
                   str(sum(d["totals"]["contentions"] for d in data)),
                   str(sum(d["buckets"] for d in data)), str(goroutines)]


def cmd_kind_table(kind, sample_index, table_path, index_path):
    """The table of a --profile KIND sweep against its index: a row per
    line, each cell the index's, ranked by SAMPLE_INDEX (the rows with a
    profile first, largest first, ties by PID; then the rest by PID), the
    total row the sums."""
    with open(table_path, encoding="utf-8") as f:
        lines = [ln.rstrip("\n") for ln in f if ln.strip()]
    index = load_lines(index_path)
    head = KIND_HEADER[kind]
    if not lines or lines[0].split() != head:
        return print_problems([f"no header line {' '.join(head)!r}"])
    rows, total = lines[1:-1], lines[-1].split() if len(lines) > 1 else []
    problems = []
    if len(rows) != len(index):
        problems.append(f"{len(rows)} rows, {len(index)} index lines")
    by_pid = {str(d["pid"]): d for d in index}
    order, goroutines = [], 0
    for row in rows:
        cells = row.split()
        g = cells[7] if kind != "goroutine" and len(cells) > 7 else "-"
        d, n = row_line(by_pid, cells[0], g, problems)
        goroutines += n
        if d is None:
            continue
        if d.get("kind") != kind:
            problems.append(f"pid {d['pid']}: index kind {d.get('kind')!r}, want {kind}")
        if cells != kind_cells(kind, d, g):
            problems.append(f"row {cells} != index {kind_cells(kind, d, g)}")
        order.append(d)
    key = [(d["status"] not in DATA,
            -d["totals"][sample_index] if d["status"] in DATA else 0, d["pid"])
           for d in order]
    if key != sorted(key):
        problems.append(f"rows not ranked by {sample_index}: "
                        + " ".join(f"{d['pid']}:{d['totals'][sample_index]}" for d in order))
    data = [d for d in index if d["status"] in DATA]
    want = kind_total(kind, data, index, goroutines)
    if total != want:
        problems.append(f"total row {total} != sums of the index {want}")
    if not problems:
        print(f"{len(rows)} rows ranked by {sample_index}, cells and total row = index")
    return print_problems(problems)


def print_problems(problems):
    for p in problems:
        print(p)
    return 1 if problems else 0


# ---- totals and labels ----

LABELS = ("comm", "exe", "runtime_file", "cgroup", "container_id",
          "container_runtime", "pod_uid")


def cmd_summaries(index_path, sumdir):
    """For every profile file: its own profile's totals (runtime/pprof's),
    the index's and the file's are the same numbers; the file's comments
    name the process as the index does."""
    problems, n = [], 0
    for d in load_lines(index_path):
        if not d.get("file"):
            continue
        pid = d["pid"]
        try:
            with open(os.path.join(sumdir, f"own.{pid}.json")) as f:
                own = json.load(f)
            with open(os.path.join(sumdir, f"ours.{pid}.json")) as f:
                ours = json.load(f)
        except (OSError, ValueError) as e:
            problems.append(f"pid {pid}: {e}")
            continue
        n += 1
        if not (own["totals"] == d["totals"] == ours["totals"]):
            problems.append(f"pid {pid}: totals: own profile {own['totals']}, "
                            f"index {d['totals']}, our file {ours['totals']}")
        want = [f"pid: {pid}", f"go_version: {d['runtime_version']}"]
        want += [f"{k}: {d[k]}" for k in LABELS if d[k]]
        if d["build_id"]:
            want.append(f"build_id: {d['build_id']}")
        if sorted(ours["comments"]) != sorted(want):
            problems.append(f"pid {pid}: comments {ours['comments']}, want {want}")
    if not problems:
        print(f"{n} profiles: own totals = index totals = file totals; labels as the index")
    return print_problems(problems)


def main():
    a = sys.argv[1:]
    if len(a) >= 2 and a[0] == "binaries":
        return cmd_binaries(a[1:])
    if len(a) >= 3 and a[0] == "tsv":
        return cmd_tsv(a[1], a[2:])
    if len(a) == 3 and a[0] == "jsonl":
        return cmd_jsonl(a[1], int(a[2]))
    if len(a) == 3 and a[0] == "table":
        return cmd_table(a[1], a[2])
    if len(a) == 5 and a[0] == "kindtable":
        return cmd_kind_table(*a[1:])
    if len(a) == 3 and a[0] == "summaries":
        return cmd_summaries(a[1], a[2])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
