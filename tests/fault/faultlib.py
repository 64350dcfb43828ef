# faultlib.py - what the fault-injection scripts share: starting live Go
# targets, running goheap-bpf on them and judging a run (its status, its
# stderr, its output file), and the PASS/FAIL tally.
import json
import os
import subprocess
import time

# Lines a sanitizer (ASan, UBSan, LeakSanitizer) prints.
SANITIZER_MARKS = ("Sanitizer", "runtime error:")
# Seconds a goheap-bpf run may take before it is killed (and fails).
TOOL_TIMEOUT = 30


class Tally:
    """PASS/FAIL lines under a name, and their counts."""

    def __init__(self, name):
        self.name = name
        self.passed = self.failed = 0

    def check(self, what, why):
        """why: '' when what passed, else the reason it failed."""
        if why:
            self.failed += 1
            print(f"FAIL {what}: {why}", flush=True)
        else:
            self.passed += 1
        return not why

    def note(self, line):
        print(f"{self.name}: {line}", flush=True)

    def done(self):
        self.note(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


class Run:
    """One goheap-bpf run: exit status, stderr, wall seconds, output."""

    def __init__(self, status, err, secs, out):
        self.status, self.err, self.secs, self.out = status, err, secs, out

    def reason(self):
        return self.err.strip().splitlines()[-1][:300] if self.err.strip() else ""


def launch_tool(tool, pid, backend, out, env=None):
    """goheap-bpf writing pid's pprof to out, with env added to the
    environment; (process, start time)."""
    if os.path.exists(out):
        os.unlink(out)
    argv = [tool, "--pid", str(pid), "--backend", backend, "--format",
            "pprof", "--output", out]
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, errors="replace",
                         env=dict(os.environ, **(env or {})))
    return p, time.monotonic()


def finish_tool(p, t0, out):
    try:
        _, err = p.communicate(timeout=TOOL_TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        err += f"\n(killed after {TOOL_TIMEOUT} s)"
    return Run(p.returncode, err, time.monotonic() - t0, out)


def run_tool(tool, pid, backend, out):
    return finish_tool(*launch_tool(tool, pid, backend, out), out)


def leftovers(out):
    """Temporary files of out left behind (FILE.tmp.XXXXXX)."""
    d, base = os.path.split(out)
    return [f for f in os.listdir(d or ".") if f.startswith(base + ".tmp")]


def crashed(status, err):
    """'' when a process that ended with status and stderr err did not
    crash, else how it did."""
    if status < 0:
        return f"killed by signal {-status}"
    if any(m in err for m in SANITIZER_MARKS):
        return "sanitizer report: " + err[:400]
    return ""


def sanity(run):
    """'' when the run crashed nowhere and left no temporary file."""
    why = crashed(run.status, run.err)
    if not why and leftovers(run.out):
        why = f"temporary files left: {leftovers(run.out)}"
    return why


def summarize(cmpprof, files):
    """Each file read as go tool pprof reads it, and summed (cmpprof -sum),
    by path."""
    if not files:
        return {}
    res = subprocess.run([cmpprof, "-sum", *files], capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(f"cmpprof -sum failed: {res.stderr}")
    return {d["file"]: d for d in map(json.loads, res.stdout.splitlines())}


def wait_for(cond, proc, secs=60):
    """Wait until cond() while proc runs; False if it never holds."""
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if cond():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.01)
    return False


def start_heapgen(exe, workdir, name):
    """heapgen, its own profile written (workdir/name.own.pb.gz), ready,
    and spinning on a CPU (perf reads only a running target)."""
    ready = os.path.join(workdir, name + ".ready")
    env = dict(os.environ, HEAPGEN_RATE="4096", HEAPGEN_READY=ready, HEAPGEN_SPIN="1",
               HEAPGEN_PROFILE=os.path.join(workdir, name + ".own.pb.gz"))
    p = subprocess.Popen([exe], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    if not wait_for(lambda: os.path.exists(ready), p):
        stop(p)
        raise RuntimeError(f"heapgen {name} did not get ready")
    return p


def paused(p):
    """Is goheap-bpf p in GOHEAP_TEST_PAUSE_MS's sleep, the target opened
    and not read yet?"""
    try:
        with open(f"/proc/{p.pid}/syscall") as f:
            return f.read().split()[0] in ("230", "35")  # clock_nanosleep, nanosleep
    except (OSError, IndexError):
        return False


def stop(p):
    if p.poll() is None:
        p.kill()
    p.wait()
