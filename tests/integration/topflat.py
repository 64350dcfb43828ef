#!/usr/bin/env python3
"""topflat.py - check that the first row of goheap-bpf's top table has the
flat value `go tool pprof -top` gives for the same profile.

    topflat.py OURS_TOP THEIRS_TOP

OURS_TOP is goheap-bpf's default output; THEIRS_TOP is the output of
`go tool pprof -top -unit=B -sample_index=inuse_space THEIRS`, whose flat
column is exact bytes. The comparison is loose in format only: our value
may carry a unit (B, kB, MB, ... in pprof's 1024 steps) and decimals; the
exact byte count is rendered in that unit with that many decimals and must
read the same. Prints one line; exits 0 when equal, 1 otherwise.
"""
import re
import sys

UNITS = {"": 1, "B": 1, "kB": 1 << 10, "KB": 1 << 10, "KiB": 1 << 10,
         "MB": 1 << 20, "MiB": 1 << 20, "GB": 1 << 30, "GiB": 1 << 30,
         "TB": 1 << 40, "TiB": 1 << 40, "PB": 1 << 50, "PiB": 1 << 50}
VALUE = re.compile(r"^(-?\d+(?:\.(\d+))?)([A-Za-z]*)$")


def first_row(path):
    """The first data row after the header line naming flat and flat%."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        cols = line.split()
        if "flat" in cols and "flat%" in cols:
            for row in lines[i + 1:]:
                if row.strip():
                    return row
            break
    sys.exit(f"topflat: no table (header with flat, flat%) in {path}")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: topflat.py OURS_TOP THEIRS_TOP")
    ours_row, theirs_row = first_row(sys.argv[1]), first_row(sys.argv[2])
    ours, theirs = ours_row.split()[0], theirs_row.split()[0]
    m = VALUE.match(theirs)
    if not m or m.group(2) or m.group(3) not in ("", "B"):
        sys.exit(f"topflat: pprof's flat {theirs!r} is not a byte count")
    exact = int(m.group(1))
    m = VALUE.match(ours)
    if not m or m.group(3) not in UNITS:
        print(f"topflat: our first row's flat {ours!r} is not a number"
              f" (row: {ours_row.strip()!r})")
        return 1
    decimals = len(m.group(2) or "")
    want = "%.*f" % (decimals, exact / UNITS[m.group(3)])
    if want != m.group(1):
        print(f"topflat: first row flat {ours} != pprof's {exact}B ({want}{m.group(3)});"
              f" ours: {ours_row.strip()!r}; pprof: {theirs_row.strip()!r}")
        return 1
    print(f"topflat: first row flat {ours} = pprof's {exact}B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
