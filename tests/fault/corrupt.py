#!/usr/bin/env python3
# corrupt.py - goheap-bpf on a live Go program (heapgen) whose bucket list
# the test corrupts through /proc/PID/mem, in every backend:
#
#   cycle      a bucket's allnext points back up the list
#   deep       a bucket's nstk is 10^12
#   unmapped   a bucket's allnext leads to an address no mapping covers
#   straddle   ... to a header that runs off a readable page into none
#   kernel     ... to a kernel address (0xffff888000000000)
#   type       a bucket's typ is 2 (a block-profile bucket's)
#   counters   a bucket's active frees exceed all its allocs
#
# each must end partial (status 11) within LIMIT seconds, with the reason
# naming what was seen and a pprof file go tool pprof reads; then, while
# a thread flips a bucket's typ (or its allnext, back up the list) to and
# fro, each run ends 0 or 11 with such a reason. Every change is undone
# after its runs; a clean run then exits 0, and at the end the target's
# profile still equals its own (cmpprof): it ran on unharmed.
#
#   corrupt.py TOOL HEAPGEN GO CMPPROF WORKDIR
import os
import re
import subprocess
import sys
import threading

import buckets
import faultlib

BACKENDS = ("iter", "perf", "procmem")
LIMIT = 5.0  # seconds a run may take
FLIP_RUNS = 10  # runs while one word flips
KERNEL = 0xFFFF888000000000

# What a partial run's reason says, by kind.
KINDS = {
    "cyclic": r"allnext list is cyclic at 0x",
    "too deep": r"bucket at 0x[0-9a-f]+ has a stack deeper than nstk_max",
    "read failed": r"reading the bucket at 0x[0-9a-f]+ failed",
    "not heap": r"bucket at 0x[0-9a-f]+ is not a heap-profile bucket",
    "counters": r"the counters of \d+ buckets changed while they were read",
}
# The kind each corruption must give.
REASONS = {"cycle": "cyclic", "deep": "too deep", "unmapped": "read failed",
           "straddle": "read failed", "kernel": "read failed",
           "type": "not heap", "counters": "counters"}
ANY_REASON = "|".join(f"({r})" for r in KINDS.values())


def fault_patches(bl, chain):
    """Each corruption as the (address, value) words it writes."""
    k = len(chain) // 2
    b, back = chain[k], chain[k - 5]
    # A bucket that has allocated: its frees are made to exceed that.
    c = next(x for x in chain[k:] if allocs_of(bl, x))
    return {
        "cycle": [(b + buckets.ALLNEXT, back)],
        "deep": [(b + buckets.NSTK, 10**12)],
        "unmapped": [(b + buckets.ALLNEXT, bl.unmapped_after(b))],
        "straddle": [(b + buckets.ALLNEXT, bl.before_gap())],
        "kernel": [(b + buckets.ALLNEXT, KERNEL)],
        "type": [(b + buckets.TYP, 2)],
        "counters": [(bl.record(c) + 8, allocs_of(bl, c) + 1000)],
    }


def allocs_of(bl, b):
    """Every allocs counter of bucket b's memRecord, summed."""
    rec, step = bl.record(b), bl.rec_bytes // 4
    return sum(bl.word(rec + i * step) for i in range(4))


def patch(bl, words):
    """Write words; the (address, value) list that undoes it."""
    return [(a, bl.put(a, v)) for a, v in words][::-1]


class Flipper(threading.Thread):
    """Writes bad and good into one word, one after the other, until
    stopped, leaving good there."""

    def __init__(self, bl, addr, bad):
        super().__init__()
        self.bl, self.addr, self.bad = bl, addr, bad
        self.good = bl.word(addr)
        self.halt = threading.Event()
        self.flips = 0

    def run(self):
        while not self.halt.is_set():
            self.bl.put(self.addr, self.bad)
            self.bl.put(self.addr, self.good)
            self.flips += 1

    def stop(self):
        self.halt.set()
        self.join()


class Suite:
    def __init__(self, argv):
        self.tool, self.heapgen, self.go, self.cmpprof, self.dir = argv
        self.t = faultlib.Tally("corrupt")
        # backend -> "fault" or "flip" -> "STATUS [kind]" -> runs
        self.outcomes = {b: {"fault": {}, "flip": {}} for b in BACKENDS}

    def judge(self, name, backend, run, want):
        """want: a status, or a set of them; the reason must match when
        the run is partial."""
        want = want if isinstance(want, set) else {want}
        why = faultlib.sanity(run)
        if not why and run.status not in want:
            why = f"exit status {run.status}, want {sorted(want)}: {run.reason()}"
        if not why and run.secs > LIMIT:
            why = f"took {run.secs:.1f} s"
        if not why and run.status == 11:
            why = self.partial_ok(name, run)
        if not why and run.status == 0:
            why = self.pprof_ok(run.out)
        kind = "fault" if name in REASONS else "flip"
        key = f"{run.status} {self.label(run)}".strip()
        self.outcomes[backend][kind][key] = self.outcomes[backend][kind].get(key, 0) + 1
        return self.t.check(f"{name}-{backend}", why)

    @staticmethod
    def label(run):
        if run.status != 11:
            return ""
        return next((k for k, r in KINDS.items() if re.search(r, run.err)), "?")

    def partial_ok(self, name, run):
        want = KINDS[REASONS[name]] if name in REASONS else ANY_REASON
        if not re.search(want, run.err):
            return f"reason does not match /{want}/: {run.reason()}"
        return self.pprof_ok(run.out)

    def pprof_ok(self, path):
        s = faultlib.summarize(self.cmpprof, [path]).get(path)
        if not s:
            return f"no profile written at {path}"
        if s.get("error"):
            return f"go tool pprof could not read it: {s['error']}"
        if s["min"] < 0:
            return f"a negative sample value ({s['min']})"
        return ""

    def run(self, backend, name):
        out = os.path.join(self.dir, f"{name}-{backend}.pb.gz")
        return faultlib.run_tool(self.tool, self.pid, backend, out)

    def healthy(self, backend, name):
        run = self.run(backend, f"after-{name}")
        alive = self.target.poll() is None
        return self.t.check(f"after-{name}-{backend}",
                            "" if alive and run.status == 0 and not faultlib.sanity(run)
                            else f"target alive {alive}, clean run: {run.status} {run.reason()}")

    def faults(self, backend, bl, chain):
        for name, words in fault_patches(bl, chain).items():
            undo = patch(bl, words)
            try:
                run = self.run(backend, name)
            finally:
                patch(bl, undo)
            if self.judge(name, backend, run, 11):
                self.t.note(f"{backend} {name}: 11 in {run.secs:.2f} s: {run.reason()}")
            self.healthy(backend, name)

    def flips(self, backend, bl, chain):
        k = len(chain) // 2
        b = chain[k]
        for name, addr, bad in (("flip-type", b + buckets.TYP, 2),
                                ("flip-allnext", b + buckets.ALLNEXT, chain[k - 5])):
            f = Flipper(bl, addr, bad)
            f.start()
            try:
                runs = [self.run(backend, f"{name}{i}") for i in range(FLIP_RUNS)]
            finally:
                f.stop()
            for i, run in enumerate(runs):
                self.judge(f"{name}{i}", backend, run, {0, 11})
            self.t.note(f"{backend} {name}: {f.flips} flips, statuses "
                        f"{[r.status for r in runs]}")
            self.healthy(backend, name)

    def main(self):
        self.target = faultlib.start_heapgen(self.heapgen, self.dir, "target")
        self.pid = self.target.pid
        try:
            bl = buckets.Buckets(self.pid, buckets.symbol(self.go, self.heapgen, "runtime.mbuckets"),
                                 buckets.record_bytes(self.go, self.heapgen))
            chain = bl.walk()
            self.t.note(f"target {self.pid}: {len(chain)} buckets")
            for backend in BACKENDS:
                self.faults(backend, bl, chain)
                self.flips(backend, bl, chain)
            self.unharmed(bl, chain)
        finally:
            faultlib.stop(self.target)
        for b in BACKENDS:
            self.t.note(f"{b}: " + "; ".join(
                f"{sum(o.values())} runs with a {kind}: " + ", ".join(
                    f"{n} x {k}" for k, n in sorted(o.items()))
                for kind, o in self.outcomes[b].items()))
        return self.t.done()

    def unharmed(self, bl, chain):
        """The list is as it was, and the profile equals the target's own."""
        run = self.run("iter", "final")
        own = os.path.join(self.dir, "target.own.pb.gz")
        cmp = subprocess.run([self.cmpprof, own, run.out], capture_output=True, text=True)
        same = bl.walk() == chain and run.status == 0 and cmp.returncode == 0
        self.t.check("unharmed", "" if same else
                     f"status {run.status}: {(cmp.stdout + cmp.stderr)[-300:]}")


if __name__ == "__main__":
    sys.exit(Suite(sys.argv[1:]).main())
