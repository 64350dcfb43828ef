#!/usr/bin/env python3
# kills.py - the target killed at a random point of goheap-bpf's run, RUNS
# times per backend, a fresh benchgen (BENCHGEN_BUCKETS stacks, so that a
# read takes tens of milliseconds) each time, SIGKILLed and reaped after a
# delay drawn uniformly over STRETCH times a typical span of that backend
# (measured first, alone: runs take longer when several go at once), so
# that some runs finish before it:
#
#   reading   3 runs in 4: goheap-bpf pauses once it has opened the target
#             (GOHEAP_TEST_PAUSE_MS); the span runs from just before the
#             pause ends to the run's end (read, build, write). Every
#             REUSE-th run then gives the PID to another Go program at
#             once (heapgen, through /proc/sys/kernel/ns_last_pid), whose
#             functions benchgen does not have.
#   opening   1 run in 4: the span runs from goheap-bpf's start to its
#             pause (/proc, the binary, the BPF object).
#
# Every run must end 0, 10 or 11 (an opening run also 3, "no process",
# when the target died before goheap-bpf first looked, or "a thread of
# process", when its PID went to another program's thread meanwhile:
# the other workers' targets start threads all along), never with
# another status, a crash or a sanitizer report; leave no temporary file;
# write nothing unless 0 or 11, and then a pprof file go tool pprof reads
# holding none of the other program's functions. WORKERS runs at once.
#
#   kills.py TOOL BENCHGEN HEAPGEN GO CMPPROF WORKDIR
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import buckets
import faultlib

BACKENDS = ("iter", "perf", "procmem")
RUNS = 100
REUSE = 4  # runs 0, 4, 8, ...: the PID reused
OPENING = 4  # runs 2, 6, 10, ...: killed while opening
WORKERS = 4
BUCKETS = 20000
# GOHEAP_TEST_PAUSE_MS: opened, not read yet; long enough to be seen.
PAUSE_MS = 100
PAUSE = PAUSE_MS / 1000
STRETCH = 3.0
STATUSES = (0, 3, 10, 11)
NO_PROCESS = r"no process with PID \d+|PID \d+ is a thread of process \d+"


class Suite:
    def __init__(self, argv):
        self.tool, self.benchgen, self.heapgen, go, self.cmpprof, self.dir = argv
        self.t = faultlib.Tally("kills")
        self.lock = threading.Lock()  # ns_last_pid and the tallies
        self.counts = {b: dict.fromkeys(STATUSES, 0) for b in BACKENDS}
        self.reused = dict.fromkeys(BACKENDS, 0)
        self.reasons = {}  # (status, reason without numbers): runs

        def mains(exe):
            return {n for n in buckets.symbols(go, exe) if n.startswith("main.")}

        # What only the PID's next owner could put in a profile.
        self.foreign = mains(self.heapgen) - mains(self.benchgen)
        seed = int(os.environ.get("FAULT_SEED", time.time_ns() % 1000000))
        self.t.note(f"FAULT_SEED={seed}")
        self.rng = random.Random(seed)

    def start_benchgen(self, tag):
        ready = os.path.join(self.dir, f"{tag}.addr")
        with open(ready, "w") as out:
            p = subprocess.Popen([self.benchgen], stdout=out, stderr=subprocess.DEVNULL,
                                 env=dict(os.environ, BENCHGEN_BUCKETS=str(BUCKETS)))
        if not faultlib.wait_for(lambda: os.path.getsize(ready) > 0, p):
            faultlib.stop(p)
            raise RuntimeError("benchgen did not get ready")
        os.kill(p.pid, signal.SIGUSR1)  # ticks: perf reads a running target
        return p

    def reuse(self, pid, tag):
        """heapgen started as pid (a few tries), or None."""
        env = dict(os.environ, HEAPGEN_RATE="1",
                   HEAPGEN_PROFILE=os.path.join(self.dir, f"{tag}.reuser.pb.gz"),
                   HEAPGEN_READY=os.path.join(self.dir, f"{tag}.reuser.ready"))
        with self.lock:
            for _ in range(5):
                with open("/proc/sys/kernel/ns_last_pid", "w") as f:
                    f.write(str(pid - 1))
                p = subprocess.Popen([self.heapgen], env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
                if p.pid == pid:
                    return p
                faultlib.stop(p)
        return None

    def launch(self, backend, pid, out):
        """goheap-bpf on pid, to pause once it is opened; (process, start)."""
        return faultlib.launch_tool(self.tool, pid, backend, out,
                                    env={"GOHEAP_TEST_PAUSE_MS": str(PAUSE_MS)})

    def until_paused(self, tool):
        """Wait for the pause; the time it was seen."""
        if not faultlib.wait_for(lambda: faultlib.paused(tool), tool, 30):
            raise RuntimeError(f"goheap-bpf never reached its pause: status {tool.wait()}")
        return time.monotonic()

    def typical(self, backend):
        """Median spans of three undisturbed runs: (start to pause, pause's
        end to exit)."""
        target = self.start_benchgen(f"measure-{backend}")
        out = os.path.join(self.dir, f"measure-{backend}.pb.gz")
        opening, reading = [], []
        try:
            for _ in range(3):
                tool, t0 = self.launch(backend, target.pid, out)
                opening.append(self.until_paused(tool) - t0)
                run = faultlib.finish_tool(tool, t0, out)
                if run.status:
                    raise RuntimeError(f"{backend} on benchgen: {run.status} {run.reason()}")
                reading.append(run.secs - opening[-1] - PAUSE)
        finally:
            faultlib.stop(target)
        return statistics.median(opening), statistics.median(reading)

    def one(self, backend, i, spans):
        tag = f"{backend}-{i}"
        out = os.path.join(self.dir, tag + ".pb.gz")
        target = self.start_benchgen(tag)
        reuser, live = None, False
        try:
            tool, t0 = self.launch(backend, target.pid, out)
            if i % OPENING == 2:
                time.sleep(self.rng.uniform(0, STRETCH * spans[0]))
            else:
                self.until_paused(tool)
                time.sleep(self.rng.uniform(PAUSE - 0.01, PAUSE + STRETCH * spans[1]))
            faultlib.stop(target)
            if i % REUSE == 0:
                reuser = self.reuse(target.pid, tag)
                live = reuser is not None and tool.poll() is None
            run = faultlib.finish_tool(tool, t0, out)
        finally:
            faultlib.stop(target)
            if reuser:
                faultlib.stop(reuser)
        self.judge(backend, tag, run, i % OPENING == 2, live)

    def judge(self, backend, tag, run, opening, reused):
        why = faultlib.sanity(run)
        if not why and (run.status not in STATUSES or
                        (run.status == 3 and not (opening and re.search(NO_PROCESS, run.err)))):
            why = f"exit status {run.status}: {run.reason()}"
        written = os.path.exists(run.out)
        if not why and run.status in (3, 10) and written:
            why = f"status {run.status}, yet a profile was written"
        if not why and run.status in (0, 11):
            why = self.profile_ok(run.out)
        with self.lock:
            if run.status in STATUSES:
                self.counts[backend][run.status] += 1
            self.reused[backend] += reused
            key = (run.status, re.sub(r"\d+", "N", run.reason()))
            self.reasons[key] = self.reasons.get(key, 0) + 1
        self.t.check(tag, why)

    def profile_ok(self, path):
        s = faultlib.summarize(self.cmpprof, [path]).get(path)
        if not s or s.get("error"):
            return f"not a profile go tool pprof reads: {s and s.get('error')}"
        if s["min"] < 0:
            return f"a negative sample value ({s['min']})"
        other = self.foreign.intersection(s.get("functions", []))
        return f"holds the other program's functions: {sorted(other)[:5]}" if other else ""

    def main(self):
        spans = {b: self.typical(b) for b in BACKENDS}
        self.t.note("typical spans (opening, reading), s: " + ", ".join(
            f"{b} {o:.3f} {r:.3f}" for b, (o, r) in spans.items()))
        jobs = [(b, i) for i in range(RUNS) for b in BACKENDS]
        with ThreadPoolExecutor(WORKERS) as pool:
            for f in [pool.submit(self.one, b, i, spans[b]) for b, i in jobs]:
                f.result()
        for b in BACKENDS:
            c = self.counts[b]
            self.t.note(f"{b}: {sum(c.values())} kills ({RUNS // OPENING} while opening): "
                        f"{c[0]} ended 0, {c[3]} 3, {c[10]} 10, {c[11]} 11; "
                        f"{self.reused[b]} with the PID reused while it ran")
        for (st, why), n in sorted(self.reasons.items()):
            self.t.note(f"{n:4} x {st}: {why}")
        return self.t.done()


if __name__ == "__main__":
    sys.exit(Suite(sys.argv[1:]).main())
