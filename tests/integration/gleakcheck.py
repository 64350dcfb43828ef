#!/usr/bin/env python3
"""gleakcheck.py - goheap-bpf's goroutine JSON, top table and leak view
against the target's own /debug/pprof/goroutine, as gleak.sh fetched
them.

  gleakcheck.py json THEIRS_STACKS OURS_JSON
  gleakcheck.py top THEIRS_TOP OURS_TOP
  gleakcheck.py leak THEIRS_DEBUG2 OURS_LEAK T0 T1 STRICT
  gleakcheck.py minwait OURS_LEAK OURS_MIN MIN_MS KEEP
  gleakcheck.py minutes THEIRS_DEBUG2 OURS_LEAK OURS_MIN1M

json: THEIRS_STACKS is `cmpprof -stacks -dropstack SERVING` of the
target's own debug=0 profile (google/pprof/profile). Summed per stack (a
JSON entry is one stack, whatever its labels), every stack must have the
same goroutines in ours as in theirs, and the totals and the states
object must add up to the goroutines.

top: THEIRS_TOP is `go tool pprof -top` of the target's own profile
less the serving goroutine's samples (cmpprof -dropstack-write), OURS_TOP goheap-bpf's --format top -n 0: the same rows
(flat, flat%, sum%, cum, cum%, name), in the same order, and the same
"Showing nodes accounting for" line.

leak: THEIRS_DEBUG2 the target's own debug=2 text, fetched after ours.
Its goroutines, but the one serving the request and its connection
reader (running, or in net/http's backgroundRead), must be exactly the
goroutines of our groups, each with the same wait reason (the header's
state; "syscall" for one in a system call); goroutines with the same
frames in theirs are in one group of ours and no group holds goroutines
whose frames differ in theirs; each group's count is its members'; the
states' wait reasons count the same goroutines theirs does. The waits:
each wait_ns is now_ns - waitsince (null when waitsince is 0), the
longest and median are the members'. Two forced GC cycles ran before
ours was read, the first between the monotonic times T0 and T1: the
stack scan of the second sets each blocked goroutine's waitsince to the
time the first cycle's mark termination began, so every goroutine of the
target's own (a frame in package main but main.main) that waited
through both has T0 <= waitsince <= T1. STRICT=1 when the target had
run no GC cycle before T0 (its MemStats.NumGC was 0): then no waitsince
can be older.

minwait: OURS_MIN read with --min-wait MIN_MS (milliseconds) after
OURS_LEAK: of the target's own goroutines (which never end), it must
hold exactly those of OURS_LEAK whose wait at OURS_MIN's now_ns is at
least MIN_MS, and no other goroutine of its own; KEEP=all: every one of
OURS_LEAK's with a waitsince, KEEP=none: none.

minutes: the target read more than a minute after two forced GC cycles
(OURS_LEAK, then OURS_MIN1M with --min-wait 1m, then its own debug=2):
every goroutine of the target's own (which nothing wakes; goroutine 1
accepts theirs' request, which clears its waitsince) has in theirs the
minutes its wait gives (wait_ns / 60 s, rounded down; none printed
below one minute or without a waitsince), at least one shows one minute
or more, and of them --min-wait 1m kept exactly those theirs shows
waiting a minute or more.
"""
import collections
import json
import re
import sys

SERVING = ("runtime/pprof.writeGoroutine",
           "net/http.(*connReader).backgroundRead",
           "net/http.(*connReader).startBackgroundRead")


def fail(msgs):
    for m in msgs[:20]:
        print("  " + m)
    if len(msgs) > 20:
        print("  ... %d more" % (len(msgs) - 20))
    return 1 if msgs else 0


def check_json(theirs_path, ours_path):
    theirs = collections.Counter()
    for s in json.load(open(theirs_path)):
        theirs[tuple(s["stack"])] += s["value"]
    doc = json.load(open(ours_path))
    ours = collections.Counter()
    bad = []
    for e in doc["entries"]:
        if e["kind"] != "goroutine":
            bad.append("entry kind %r" % e["kind"])
        ours[tuple(e["stack"])] += e["goroutines"]
    # Ours holds no serving goroutine; nothing of ours is dropped.
    for st in sorted(set(theirs) | set(ours)):
        if theirs[st] != ours[st]:
            bad.append("stack %s: theirs %d goroutines, ours %d" %
                       (" <- ".join(f.split(",")[0] for f in st[:6]),
                        theirs[st], ours[st]))
    total = doc["totals"]["goroutine"]
    if doc.get("kind") != "goroutine" or doc.get("sample_index") != "goroutine":
        bad.append("kind %r, sample_index %r" %
                   (doc.get("kind"), doc.get("sample_index")))
    if sum(ours.values()) != total:
        bad.append("entries sum to %d, totals.goroutine %d" %
                   (sum(ours.values()), total))
    st = doc["states"]
    n = st["running"] + st["runnable"] + st["waiting"] + st["syscall"] + st["other"]
    if n != total or sum(st["wait_reasons"].values()) != st["waiting"]:
        bad.append("states %s do not add up to %d goroutines" % (st, total))
    if not bad:
        print("json: %d stacks, %d goroutines, as the target's own profile"
              % (len(ours), total))
    return fail(bad)


ROW = re.compile(r"^\s*(\S+)\s+(\S+)%\s+(\S+)%\s+(\S+)\s+(\S+)%\s+(.*\S)\s*$")


def top_rows(path):
    rows, showing = [], None
    for line in open(path):
        if line.startswith("Showing nodes accounting for"):
            showing = line.strip()
        m = ROW.match(line)
        if m and m.group(1) != "flat":
            rows.append(m.groups())
    return showing, rows


def check_top(theirs_path, ours_path):
    ts, tr = top_rows(theirs_path)
    os_, orows = top_rows(ours_path)
    bad = []
    if ts != os_:
        bad.append("theirs %r, ours %r" % (ts, os_))
    if not tr:
        bad.append("no rows in pprof's table")
    for i in range(max(len(tr), len(orows))):
        t = tr[i] if i < len(tr) else None
        o = orows[i] if i < len(orows) else None
        if t != o:
            bad.append("row %d: theirs %s, ours %s" % (i + 1, t, o))
    if not bad:
        print("top: %d rows as go tool pprof -top (%s)" % (len(tr), ts))
    return fail(bad)


HEADER = re.compile(r"^goroutine (\d+) \[([^\]]*)\]")
MINUTES = re.compile(r", (\d+) minutes")


def minutes_of(path):
    """goroutine ID -> the minutes its debug=2 header says (0: none)."""
    out = {}
    for line in open(path):
        m = HEADER.match(line)
        if m:
            n = MINUTES.search(m.group(2))
            out[int(m.group(1))] = int(n.group(1)) if n else 0
    return out


def debug2(path):
    """goroutine ID -> (state or wait reason, frames)."""
    out = {}
    for block in open(path).read().split("\n\n"):
        lines = block.strip("\n").split("\n")
        m = HEADER.match(lines[0]) if lines else None
        if not m:
            continue
        state = m.group(2).split(", ")[0]
        state = re.sub(r" \((scan|leaked)\)$", "", state)
        frames = []
        for i in range(1, len(lines) - 1, 2):
            if lines[i].startswith("created by"):
                break
            name = lines[i][:lines[i].rfind("(")] if "(" in lines[i] else lines[i]
            frames.append(name + " " + lines[i + 1].strip())
        out[int(m.group(1))] = (state, tuple(frames))
    return out


def target_own(group):
    return any(f["function"].startswith("main.") and f["function"] != "main.main"
               for f in group["stack"] if "function" in f)


def check_leak(theirs_path, ours_path, t0, t1, strict):
    theirs = {g: v for g, v in debug2(theirs_path).items()
              if v[0] != "running" and not any(s + " " in f or f.startswith(s)
                                               for f in v[1] for s in SERVING)}
    doc = json.load(open(ours_path))
    bad, where = [], {}
    now = doc["now_ns"]
    for k, g in enumerate(doc["groups"]):
        if g["goroutines"] != len(g["members"]):
            bad.append("group %d: %d goroutines, %d members" %
                       (k, g["goroutines"], len(g["members"])))
        waits = sorted((m["wait_ns"] for m in g["members"]
                        if m["wait_ns"] is not None), reverse=True)
        if g["waits_known"] != len(waits) or \
                g["longest_wait_ns"] != (waits[0] if waits else None) or \
                g["median_wait_ns"] != (waits[len(waits) // 2] if waits else None):
            bad.append("group %d: longest/median/known %s/%s/%s, members' %s" %
                       (k, g["longest_wait_ns"], g["median_wait_ns"],
                        g["waits_known"], waits))
        for m in g["members"]:
            where[m["id"]] = k
            ws = m["waitsince"]
            if m["wait_ns"] != (max(now - ws, 0) if ws else None):
                bad.append("goroutine %d: wait_ns %s, now_ns - waitsince %d"
                           % (m["id"], m["wait_ns"], now - ws))
            if target_own(g) and not (t0 <= ws <= t1) and \
                    (strict or not 0 < ws <= t1):
                bad.append("goroutine %d [%s]: waitsince %d outside the first "
                           "forced GC [%d, %d]" % (m["id"], g["wait_reason"],
                                                   ws, t0, t1))
            t = theirs.get(m["id"])
            if t is None:
                bad.append("goroutine %d [%s] of ours is not waiting in theirs"
                           % (m["id"], g["wait_reason"]))
            elif t[0] != g["wait_reason"]:
                bad.append("goroutine %d: theirs [%s], ours [%s]" %
                           (m["id"], t[0], g["wait_reason"]))
            elif g["top"] and not any(f.startswith(g["top"] + " ") for f in t[1]):
                bad.append("goroutine %d: our top frame %s is not in theirs"
                           % (m["id"], g["top"]))
    for gid in sorted(set(theirs) - set(where)):
        bad.append("goroutine %d [%s] of theirs is in no group of ours" %
                   (gid, theirs[gid][0]))
    by_key = collections.defaultdict(set)
    for gid, k in where.items():
        if gid in theirs:
            by_key[theirs[gid]].add(k)
    for key, ks in by_key.items():
        if len(ks) != 1:
            bad.append("[%s] %s: one stack in theirs, groups %s of ours" %
                       (key[0], key[1][:1], sorted(ks)))
    for k, g in enumerate(doc["groups"]):
        keys = {theirs[m["id"]] for m in g["members"] if m["id"] in theirs}
        if len(keys) > 1:
            bad.append("group %d: %d different stacks in theirs" % (k, len(keys)))
    reasons = collections.Counter(theirs[g][0] for g in where if g in theirs
                                  and theirs[g][0] != "syscall")
    ours_reasons = collections.Counter(doc["states"]["wait_reasons"])
    if reasons != ours_reasons:
        bad.append("wait reasons: theirs %s, ours %s" %
                   (dict(reasons), dict(ours_reasons)))
    own = sum(len(g["members"]) for g in doc["groups"] if target_own(g))
    if not own:
        bad.append("no goroutine of the target's own in any group")
    if not bad:
        print("leak: %d groups, %d goroutines, as theirs (IDs, wait reasons, "
              "stacks); %d of the target's own with waitsince in the first "
              "forced GC (%.1f ms wide%s)" %
              (len(doc["groups"]), len(where), own, (t1 - t0) / 1e6,
               "" if strict else ", or before: it had run a GC cycle"))
    return fail(bad)


def members(doc):
    """The target's own goroutines (which never end) and their waitsince."""
    return {m["id"]: m["waitsince"] for g in doc["groups"] if target_own(g)
            for m in g["members"]}


def check_minwait(all_path, min_path, min_ms, keep):
    a = json.load(open(all_path))
    b = json.load(open(min_path))
    ma, mb = members(a), members(b)
    now, lim = b["now_ns"], int(min_ms) * 1000000
    bad = []
    if b["min_wait_ns"] != lim:
        bad.append("min_wait_ns %d, want %d" % (b["min_wait_ns"], lim))
    for gid, ws in ma.items():
        want = ws != 0 and now - ws >= lim
        if want != (gid in mb):
            bad.append("goroutine %d: waitsince %d, wait %s ms at now_ns: %s "
                       "with --min-wait %sms" %
                       (gid, ws, (now - ws) // 1000000 if ws else "-",
                        "kept" if gid in mb else "left out", min_ms))
    for gid in set(mb) - set(ma):
        bad.append("goroutine %d kept, not in the first read" % gid)
    if keep == "none" and b["groups"]:
        bad.append("--min-wait %sms kept %d groups" % (min_ms, len(b["groups"])))
    known = {g for g, ws in ma.items() if ws}
    if keep == "all" and set(mb) != known:
        bad.append("--min-wait %sms kept %d of the %d goroutines with a wait"
                   % (min_ms, len(mb), len(known)))
    if keep == "none" and mb:
        bad.append("--min-wait %sms kept %d goroutines" % (min_ms, len(mb)))
    if keep == "all" and not known:
        bad.append("no goroutine has a waitsince")
    if not bad:
        print("--min-wait %sms: %d of %d goroutines kept, as their waits say"
              % (min_ms, len(mb), len(ma)))
    return fail(bad)


def check_minutes(theirs_path, all_path, min_path):
    theirs = minutes_of(theirs_path)
    a = json.load(open(all_path))
    own = {m["id"] for g in a["groups"] if target_own(g) for m in g["members"]}
    kept = {m["id"] for g in json.load(open(min_path))["groups"]
            for m in g["members"]} & own
    bad, shown = [], 0
    for g in a["groups"]:
        if not target_own(g):
            continue
        for m in g["members"]:
            want = m["wait_ns"] // 60000000000 if m["wait_ns"] is not None else 0
            if m["id"] not in theirs:
                bad.append("goroutine %d: not in theirs" % m["id"])
                continue
            if theirs[m["id"]] != want:
                bad.append("goroutine %d [%s]: theirs %d minutes, our wait "
                           "%s ns gives %d" % (m["id"], g["wait_reason"],
                                               theirs[m["id"]], m["wait_ns"], want))
            if theirs[m["id"]] >= 1:
                shown += 1
    long = {gid for gid, n in theirs.items() if n >= 1} & own
    if kept != long:
        bad.append("--min-wait 1m kept %s, theirs waiting a minute or more %s"
                   % (sorted(kept), sorted(long)))
    if not shown:
        bad.append("no goroutine of the target's own shows a minute in theirs")
    if not bad:
        print("minutes: %d goroutines of the target's own, each with the "
              "minutes theirs prints (%d at 1 or more); --min-wait 1m kept "
              "exactly those" % (len(own), shown))
    return fail(bad)


def main():
    a = sys.argv[1:]
    if a[:1] == ["json"] and len(a) == 3:
        return check_json(a[1], a[2])
    if a[:1] == ["top"] and len(a) == 3:
        return check_top(a[1], a[2])
    if a[:1] == ["leak"] and len(a) == 6:
        return check_leak(a[1], a[2], int(a[3]), int(a[4]), a[5] == "1")
    if a[:1] == ["minwait"] and len(a) == 5:
        return check_minwait(a[1], a[2], a[3], a[4])
    if a[:1] == ["minutes"] and len(a) == 4:
        return check_minutes(a[1], a[2], a[3])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
