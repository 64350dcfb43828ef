#!/usr/bin/env python3
"""goroutinecmp.py - goheap-bpf's goroutine texts against the target's own
/debug/pprof/goroutine, as goroutines.sh fetched them.

  goroutinecmp.py debug1 THEIRS OURS
  goroutinecmp.py debug2 THEIRS OURS
  goroutinecmp.py busy PCS A2L OURS...

The target's own texts hold what ours cannot: the goroutine serving the
request (its stack runs through runtime/pprof.writeGoroutine, and
writeGoroutineStacks for debug=2) and the connection reader net/http
starts for that request (net/http.(*connReader).backgroundRead, created
by startBackgroundRead of the serving goroutine). Exactly those are
taken out of theirs, and the total lowered by as many; nothing of ours is
taken out. Up to 1.20 a reader created but not yet run has for its whole
debug=1 stack runtime.goexit (the go statement's wrapper it starts in is
elided, and printStackRecord never prints goexit): in debug=1 a record
without frames is taken for it (no goroutine of the target has such a
stack: all of them run and park at start).

debug1: the texts must then be identical, record by record and byte by
byte (the same counts, PCs, labels, frames, in the same order).
busy: debug=1 texts of a target whose goroutines start and end all the
time; PCS and A2L are `go tool addr2line`'s input (each PC less one and
the load bias) and output for every PC of them, in the order of the
sorted, distinct PCs. Every PC must be in a function, and every stack
whole: ending in runtime.goexit (each goroutine's stack starts there),
unless its sample is a running goroutine's ("state":"running": one PC,
its creation site) or the stack is as deep as the release records
(DEPTH, the goroutine profile's limit: 32 up to 1.22, 128 from 1.23),
where the runtime itself cuts it short.
debug2: the same goroutine IDs, each with the same header (state, wait
reason, minutes, labels) and the same frames (function, arguments,
file:line and offset), arguments not live at the PC (printed with "?")
excepted: the goroutine may have run and parked again between the two
reads (goroutine 1 accepts the request's connection), leaving other
bytes in its dead slots.
"""
import re
import sys

SERVING = ("runtime/pprof.writeGoroutine",)
READER = ("net/http.(*connReader).backgroundRead",
          "net/http.(*connReader).startBackgroundRead")


def records(text):
    """The header line, then one record per blank-line-separated block."""
    head, _, rest = text.partition("\n")
    blocks = [b for b in rest.split("\n\n") if b.strip()]
    return head, blocks


def serving(block):
    return any(s in block for s in SERVING + READER)


def frameless(block):
    return all(not l.startswith("#\t") for l in block.split("\n")[1:])


def debug1(theirs, ours):
    th, tb = records(theirs)
    oh, ob = records(ours)
    m = re.fullmatch(r"goroutine profile: total (\d+)", th)
    if not m:
        return ["theirs: no header: %r" % th]
    drop = [b for b in tb if serving(b) or frameless(b)]
    keep = [b for b in tb if b not in drop]
    gone = sum(int(b.split(" ", 1)[0]) for b in drop)
    want = "goroutine profile: total %d" % (int(m.group(1)) - gone)
    errs = []
    if oh != want:
        errs.append("header: ours %r, theirs less %d serving: %r" %
                    (oh, gone, want))
    for i in range(max(len(keep), len(ob))):
        a = keep[i] if i < len(keep) else "(none)"
        b = ob[i] if i < len(ob) else "(none)"
        if a != b:
            errs.append("record %d differs:\n  theirs:\n    %s\n  ours:\n    %s"
                        % (i, a.replace("\n", "\n    "),
                           b.replace("\n", "\n    ")))
            if len(errs) > 4:
                break
    if not errs:
        print("debug=1: %d records, %d goroutines identical (%d serving "
              "left out of theirs)" % (len(ob), int(oh.split()[-1]), gone))
    return errs


def goroutines(text):
    """{id: (header, block)} of a debug=2 text."""
    out = {}
    for b in text.split("\n\n"):
        m = re.match(r"goroutine (\d+) (\[[^\]]*\][^:]*):", b.strip("\n"))
        if m:
            out[int(m.group(1))] = (m.group(2), b)
    return out


def frames(block):
    """Each frame's line and its file:line +off line; an argument the
    traceback marks not live ("0x..?": a dead spill slot, whose memory
    may change while the goroutine waits) as "?"."""
    return [re.sub(r"0x[0-9a-f]+\?", "?", l)
            for l in block.strip("\n").split("\n")[1:]]


def debug2(theirs, ours):
    tg, og = goroutines(theirs), goroutines(ours)
    serve = {i for i, (_, b) in tg.items() if serving(b) and
             "writeGoroutineStacks" in b}
    for i, (_, b) in list(tg.items()):
        m = re.search(r"created by (\S+)(?: in goroutine (\d+))?", b)
        if m and (m.group(1) in READER[1:] or
                  (m.group(2) and int(m.group(2)) in serve)):
            serve.add(i)
    keep = {i: h for i, (h, _) in tg.items() if i not in serve}
    errs = []
    for i in sorted(set(keep) | set(og)):
        a = keep.get(i, ("(absent)",))
        a = a if isinstance(a, str) else a[0]
        b = og[i][0] if i in og else "(absent)"
        if a != b:
            errs.append("goroutine %d: theirs %s, ours %s" % (i, a, b))
        elif frames(tg[i][1]) != frames(og[i][1]):
            errs.append("goroutine %d: frames differ:\n  theirs:\n    %s\n"
                        "  ours:\n    %s" % (
                            i, "\n    ".join(frames(tg[i][1])),
                            "\n    ".join(frames(og[i][1]))))
    if not errs:
        print("debug=2: %d goroutines, the same IDs, states, frames and "
              "arguments (%d "
              "serving left out of theirs)" % (len(og), len(serve)))
    return errs


def busy(pcs_file, a2l_file, depth, texts):
    pcs = sorted({int(p, 16) for t in texts for p in re.findall(
        r" (0x[0-9a-f]+)", "\n".join(l for l in t.split("\n")
                                     if re.match(r"\d+ @", l)))})
    lines = open(a2l_file).read().split("\n")
    fn = dict(zip(pcs, lines[0::2]))
    if len(open(pcs_file).read().split()) != len(pcs):
        return ["the PCs given addr2line are not the texts' PCs"]
    errs, n, running = [], 0, 0
    for t in texts:
        for b in records(t)[1]:
            head = b.split("\n")
            stk = [int(p, 16) for p in head[0].split(" @ ")[1].split()]
            n += 1
            bad = [hex(p) for p in stk if fn.get(p, "?") == "?"]
            if bad:
                errs.append("PCs in no function: %s" % " ".join(bad))
            if len(head) > 1 and '"state":"running"' in head[1]:
                running += 1
                if len(stk) != 1:
                    errs.append("a running sample of %d PCs" % len(stk))
            elif len(stk) < depth and fn.get(stk[-1]) != "runtime.goexit":
                errs.append("a stack ending in %s, not runtime.goexit: %s"
                            % (fn.get(stk[-1]), head[0]))
            if len(errs) > 5:
                return errs
    if not errs:
        print("busy: %d texts, %d records (%d running), %d PCs: every PC "
              "in a function, every stack whole" %
              (len(texts), n, running, len(pcs)))
    return errs


def main():
    if sys.argv[1] == "busy":
        errs = busy(sys.argv[2], sys.argv[3], int(sys.argv[4]),
                    [open(f).read() for f in sys.argv[5:]])
        for e in errs:
            print(e)
        return 1 if errs else 0
    kind, theirs, ours = sys.argv[1:4]
    t = open(theirs).read()
    o = open(ours).read()
    errs = (debug1 if kind == "debug1" else debug2)(t, o)
    for e in errs:
        print(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
