#!/usr/bin/env python3
"""legacycmp.py - compare goheap-bpf's legacy text with the one the target
wrote about itself (runtime/pprof's heap profile at debug=1):

    legacycmp.py GO_MINOR THEIRS OURS

The header line must be the same to the byte. Records (a counters-and-stack
line, its frame lines, a blank line) must be the same as a multiset, each
to the byte (tabs included), after leaving out on both sides those whose
counters are all zero: writing a profile allocates, which can make new,
empty buckets. Both must be sorted by in-use bytes as the release sorts
them (ascending from go1.23, descending before); when no such bucket was
made (the same records, all-zero ones included), in the same order too:
the release's sort puts equal records in an order of its own. Ours must end with its one comment line where the
runtime writes its runtime.MemStats section. Prints the differences and
exits 1 when there are any.
"""
import collections
import re
import sys

RECORD = re.compile(rb"^(-?\d+): (-?\d+) \[(-?\d+): (-?\d+)\] @")
OUR_TAIL = (b"\n# runtime.MemStats: not shown: goheap-bpf reads the heap "
            b"profile from outside the process\n")


def parse(data, name, problems):
    """Header line, records (in-use bytes, text, all-zero) and what
    follows them."""
    lines = data.split(b"\n")
    header, records, i = lines[0], [], 1
    while i < len(lines) and RECORD.match(lines[i]):
        j = i
        while j < len(lines) and lines[j] != b"":
            j += 1
        text = b"\n".join(lines[i:j + 1]) + b"\n"
        counts = [int(x) for x in RECORD.match(lines[i]).groups()]
        records.append((counts[1], text, not any(counts)))
        i = j + 1
    tail = b"\n".join(lines[i:])
    if not tail.startswith(b"\n# runtime.MemStats"):
        problems.append("%s: no runtime.MemStats section after the records "
                        "(line %d: %r)" % (name, i + 1, tail[:80]))
    return header, records, tail


def check_order(records, ascending, name, problems):
    keys = [k for k, _, _ in records]
    want = sorted(keys) if ascending else sorted(keys, reverse=True)
    if keys != want:
        at = next(i for i, (a, b) in enumerate(zip(keys, want)) if a != b)
        problems.append("%s: records not sorted by in-use bytes (%s) at "
                        "record %d: %d" % (name, "ascending" if ascending
                                           else "descending", at + 1, keys[at]))


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: legacycmp.py GO_MINOR THEIRS OURS")
    minor = int(sys.argv[1])
    problems = []
    theirs = parse(open(sys.argv[2], "rb").read(), "theirs", problems)
    ours = parse(open(sys.argv[3], "rb").read(), "ours", problems)
    if theirs[0] != ours[0]:
        problems.append("header: theirs %r, ours %r" % (theirs[0], ours[0]))
    for side, name in ((theirs, "theirs"), (ours, "ours")):
        check_order(side[1], minor >= 23, name, problems)
    if ours[2] != OUR_TAIL:
        problems.append("ours: after the records %r, want %r" %
                        (ours[2][:200], OUR_TAIL))
    # With the same records, all-zero ones included, the same order:
    # the release's sort, step for step, from the same arrival order.
    every = [[t for _, t, _ in side[1]] for side in (theirs, ours)]
    exact = collections.Counter(every[0]) == collections.Counter(every[1])
    if exact and every[0] != every[1]:
        at = next(i for i, (a, b) in enumerate(zip(*every)) if a != b)
        problems.append("the same records in another order, from record "
                        "%d:\ntheirs:\n%s\nours:\n%s" %
                        (at + 1, every[0][at].decode("utf-8", "replace"),
                         every[1][at].decode("utf-8", "replace")))
    have = [collections.Counter(t for _, t, zero in side[1] if not zero)
            for side in (theirs, ours)]
    only = [have[0] - have[1], have[1] - have[0]]
    for diff, name in zip(only, ("theirs", "ours")):
        for text, n in sorted(diff.items())[:5]:
            problems.append("only in %s (%d time%s):\n%s" %
                            (name, n, "" if n == 1 else "s",
                             text.decode("utf-8", "replace")))
    for p in problems:
        print(p)
    kept = sum(have[1].values())
    print("%d records the same (%d all-zero left out of ours), header %s, "
          "%s" % (kept, sum(1 for r in ours[1] if r[2]),
                  "the same" if theirs[0] == ours[0] else "differs",
                  "order the same" if exact else
                  "order of equal records not compared (the target made "
                  "%d empty buckets after its text)" %
                  (len(every[1]) - len(every[0]))))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
