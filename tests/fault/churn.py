#!/usr/bin/env python3
# churn.py - snapshots back to back of a program allocating and freeing at
# full speed, its collector running all the while (tests/targets/churn,
# CHURN_MBPS of garbage through CHURN_STACKS live stacks): SNAPSHOTS per
# backend, through the public API (churnloop.c, the target's own profile
# written between groups of GROUP). Each must be complete or mixed (status
# 0; a partial one is reported and fails), hold no negative value, and
# have alloc_objects and alloc_space totals between those of the target's
# own profiles taken just before and just after its group: allocation
# counters only grow, at cycle boundaries.
#
#   churn.py CHURNLOOP CHURN CMPPROF WORKDIR
import collections
import os
import signal
import subprocess
import sys
import time

import faultlib

BACKENDS = ("iter", "perf", "procmem")
SNAPSHOTS = 1000
GROUP = 20
MBPS = 400
STACKS = 4000
SNAP_STATUS = {0: "complete", 1: "partial", 2: "unavailable", 3: "failed", 4: "mixed"}


class Suite:
    def __init__(self, argv):
        self.loop, self.churn, self.cmpprof, self.dir = argv
        self.t = faultlib.Tally("churn")

    def start(self):
        log = os.path.join(self.dir, "churn.log")
        with open(log, "w") as f:
            p = subprocess.Popen([self.churn], stdout=f, stderr=subprocess.STDOUT,
                                 env=dict(os.environ, CHURN_MBPS=str(MBPS),
                                          CHURN_STACKS=str(STACKS),
                                          CHURN_PROFILE=os.path.join(self.dir, "own.pb.gz")))
        if not faultlib.wait_for(lambda: "ready" in open(log).read(), p):
            faultlib.stop(p)
            raise RuntimeError("churn did not get ready")
        return p

    def gc_count(self, target):
        """The target's GC count now (SIGUSR2: it writes own.pb.gc0)."""
        path = os.path.join(self.dir, "own.pb.gz.gc0")
        if os.path.exists(path):
            os.unlink(path)
        os.kill(target.pid, signal.SIGUSR2)
        if not faultlib.wait_for(lambda: os.path.exists(path), target):
            raise RuntimeError("churn wrote no GC count")
        return int(open(path).read())

    def backend(self, target, b):
        d = os.path.join(self.dir, b)
        os.makedirs(d, exist_ok=True)
        gc0, t0 = self.gc_count(target), time.monotonic()
        res = subprocess.run([self.loop, str(target.pid), b, str(SNAPSHOTS), str(GROUP),
                              os.path.join(self.dir, "own.pb.gz"), d],
                             capture_output=True, text=True, errors="replace")
        secs, gcs = time.monotonic() - t0, self.gc_count(target) - gc0
        self.t.note(f"{b}: {gcs} GC cycles in {secs:.1f} s ({gcs / secs:.0f}/s)")
        why = faultlib.crashed(res.returncode, res.stderr)
        if not why and res.returncode:
            why = f"exit status {res.returncode}: {res.stderr[-300:]}"
        if not self.t.check(f"{b}-loop", why):
            return
        own = faultlib.summarize(self.cmpprof, [os.path.join(d, f"own-{g}.pb.gz")
                                                 for g in range(SNAPSHOTS // GROUP + 1)])
        own = [own[os.path.join(d, f"own-{g}.pb.gz")] for g in range(len(own))]
        self.judge(b, res.stdout.splitlines(), own)

    def judge(self, b, lines, own):
        seen, cycles = collections.Counter(), collections.Counter()
        snaps = [ln.split(maxsplit=9) for ln in lines if ln.startswith("snap ")]
        for i, f in enumerate(snaps):
            g, st, snap, ncyc = map(int, f[1:5])
            objects, space, low = map(int, f[5:8])
            seen[SNAP_STATUS.get(snap, snap)] += 1
            cycles[ncyc] += 1
            lo, hi = own[g]["totals"], own[g + 1]["totals"]
            why = ""
            if st != 0 or snap not in (0, 4):
                why = f"status {st}, {SNAP_STATUS.get(snap, snap)}: {f[9:]}"
            elif low < 0:
                why = f"a negative sample value ({low})"
            elif not (lo[0] <= objects <= hi[0] and lo[1] <= space <= hi[1]):
                why = (f"alloc totals {objects} objects, {space} bytes not within the "
                       f"target's own {lo[:2]} .. {hi[:2]}")
            self.t.check(f"{b}-snapshot-{i}", why)
        self.t.check(f"{b}-count", "" if len(snaps) == SNAPSHOTS else f"{len(snaps)} snapshots")
        self.t.note(f"{b}: {len(snaps)} snapshots: " +
                    ", ".join(f"{n} {k}" for k, n in sorted(seen.items())) +
                    "; GC cycles per snapshot: " +
                    ", ".join(f"{n} x {k}" for k, n in sorted(cycles.items())) +
                    f"; alloc_objects {own[0]['totals'][0]} -> {own[-1]['totals'][0]}")

    def main(self):
        target = self.start()
        try:
            for b in BACKENDS:
                self.backend(target, b)
            alive = target.poll() is None
        finally:
            faultlib.stop(target)
        self.t.check("target-alive", "" if alive else "churn died")
        return self.t.done()


if __name__ == "__main__":
    sys.exit(Suite(sys.argv[1:]).main())
