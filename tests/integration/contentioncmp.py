#!/usr/bin/env python3
"""contentioncmp.py - our block or mutex ?debug=1 text (runtime/pprof's
writeProfileInternal: "--- contention:" or "--- mutex:", cycles/second,
the mutex profile's sampling period, then per record "CYCLES COUNT @
PCS" and its frames) held to the target's own, written just before ours
(LOW) and just after (HIGH), once it stopped contending:

    contentioncmp.py LOW OURS HIGH [LEAF,LEAF...]

The header must be LOW's, byte for byte. Records are keyed by their PCs;
those whose leaf frame is one of the LEAFs (the runtime's own lock
contention, which grows while the program writes its profiles) are left
out of all three. Every record of ours must be LOW's with that key, line
for line (its values, PCs and every frame line as tabwriter aligned
them), or else HIGH's (an event the program's own profile writing made
after LOW: a GC it started blocked on a channel); every one of LOW's must
be in ours, and ours must list LOW's records in LOW's order. Exits 0
when it holds, 1 when not.
"""
import sys


def parse(text):
    lines = text.split("\n")
    head = []
    while lines and lines[0] and "@" not in lines[0]:
        head.append(lines.pop(0))
    recs, cur = [], []
    for l in lines:
        if l == "":
            if cur:
                recs.append(cur)
            cur = []
        else:
            cur.append(l)
    if cur:
        recs.append(cur)
    return head, recs


def key(rec):
    return rec[0].split(" @", 1)[1] if " @" in rec[0] else rec[0]


def leaf(rec):
    for l in rec[1:]:
        f = l.split("\t")
        if len(f) >= 3:
            return f[2].split("+")[0]
    return ""


def main():
    low, ours, high = (open(f).read() for f in sys.argv[1:4])
    drop = set(sys.argv[4].split(",")) if len(sys.argv) > 4 else set()
    (lh, lr), (oh, orr), (_, hr) = parse(low), parse(ours), parse(high)
    errs = []
    if oh != lh:
        errs.append("header: ours %r, theirs %r" % (oh, lh))
    keep = lambda rs: [r for r in rs if leaf(r) not in drop]
    lr, orr, hr = keep(lr), keep(orr), keep(hr)
    lo = {key(r): r for r in lr}
    hi = {key(r): r for r in hr}
    same, later = [], 0
    for r in orr:
        k = key(r)
        if lo.get(k) == r:
            same.append(k)
        elif hi.get(k) == r:
            later += 1
        else:
            errs.append("record differs from the target's own:\n  ours:\n    %s\n"
                        "  theirs:\n    %s" % ("\n    ".join(r), "\n    ".join(
                            lo.get(k) or hi.get(k) or ["(none)"])))
    ok = {key(r) for r in orr}
    for r in lr:
        if key(r) not in ok:
            errs.append("record of theirs missing from ours: %s" % r[0])
    if [k for k in (key(r) for r in lr) if k in set(same)] != same:
        errs.append("records not in the target's order")
    for e in errs[:6]:
        print(e)
    if not errs:
        print("%d records equal to the target's own (%d as its later text "
              "has them, %d of the runtime's own locks left out), header %s"
              % (len(same), later, len(parse(ours)[1]) - len(orr),
                 " | ".join(oh)))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
