#!/usr/bin/env python3
"""watchtest.py - the scenarios of watch.sh: goheap-bpf watch on grower
(tests/targets/grower), a Go program that grows 16 MiB at main.growSite
on each SIGUSR1 (and says "grown N" once that is done and collected) over
a steady 4 MiB at main.steadySite, in a cgroup v1 memory cgroup made here.

Each scenario checks what the watch wrote against what others say: the
kernel's counters (memory.usage_in_bytes, /proc/PID/statm) polled here
every 5 ms give the crossing time; go tool pprof reads every profile
(its -top's first row must be main.growSite, -comments must carry the
trigger); python's json reads the documents and index.jsonl; cmpprof
(github.com/google/pprof/profile) parses what a signal may have cut.
The likely leaks are checked on LEAK (tests/targets/leak), which leaks
16 KiB every 10 ms at main.leakSite and is steady at main.steadyRing and
main.steadyMap. --goroutines-above is checked on GOGROW
(tests/targets/gogrow), which parks 100 goroutines at main.stepSite on
each SIGUSR1 and writes its own runtime.NumGoroutine() after.

    watchtest.py GOHEAP_BPF GROWER BENCHGEN CMPPROF WORKDIR LEAK GOGROW
"""
import glob
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

MIB = 1 << 20
CG_ROOT = "/sys/fs/cgroup/memory"
LIMIT = 256 * MIB

bin_, grower_bin, benchgen, cmpprof, work, leak_bin, gogrow_bin = sys.argv[1:8]
procs = []
cgroups = []
failures = []


def say(msg):
    print(f"watch: {msg}", flush=True)


def check(cond, what):
    if not cond:
        failures.append(what)
        say(f"FAIL {what}")
    return cond


def make_cgroup(name, limit=LIMIT):
    path = f"{CG_ROOT}/gh-watch-{os.getpid()}-{name}"
    os.mkdir(path)
    cgroups.append(path)
    if limit:
        with open(f"{path}/memory.limit_in_bytes", "w") as f:
            f.write(str(limit))
    return path


def start_grower(cg):
    def enter():
        with open(f"{cg}/cgroup.procs", "w") as f:
            f.write(str(os.getpid()))

    g = subprocess.Popen([grower_bin], stdout=subprocess.PIPE, text=True,
                         preexec_fn=enter)
    procs.append(g)
    assert g.stdout.readline().strip() == "ready"
    return g


def grow(g, sig=signal.SIGUSR1):
    """One step, waited for: allocated, written, collected."""
    g.send_signal(sig)
    line = g.stdout.readline().split()
    assert line and line[0] == "grown", line
    return int(line[1])


def sighup_default():
    """A watch keeps a signal ignored from its start ignored (nohup's
    SIGHUP): under `nohup make test` it would ignore the test's."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def start_watch(out, args, settle=0.7):
    w = subprocess.Popen([bin_, "watch", "-d", out] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, preexec_fn=sighup_default)
    procs.append(w)
    time.sleep(settle)
    return w


def stop(w, sig=signal.SIGTERM):
    w.send_signal(sig)
    out, err = w.communicate(timeout=20)
    return w.returncode, out, err


class Crossing(threading.Thread):
    """Polls read() every 5 ms; .at is the wall time it first reached
    threshold."""

    def __init__(self, read, threshold):
        super().__init__(daemon=True)
        self.read, self.threshold, self.at, self.done = read, threshold, None, False

    def run(self):
        while not self.done and self.at is None:
            if self.read() >= self.threshold:
                self.at = time.time()
            time.sleep(0.005)


def cg_usage(cg):
    with open(f"{cg}/memory.usage_in_bytes") as f:
        return int(f.read())


def rss_of(pid):
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def wait_files(pattern, n=1, timeout=5.0):
    end = time.time() + timeout
    while time.time() < end:
        got = sorted(glob.glob(pattern))
        if len(got) >= n and all(os.path.exists(p[:-6] + ".json") for p in got):
            return got
        time.sleep(0.01)
    return sorted(glob.glob(pattern))


def pprof_top(path):
    """(function, flat bytes) of go tool pprof -top's first row."""
    out = subprocess.run(["go", "tool", "pprof", "-top", "-unit=B",
                          "-sample_index=inuse_space", path],
                         capture_output=True, text=True).stdout.splitlines()
    for i, line in enumerate(out):
        if line.split()[:2] == ["flat", "flat%"]:
            row = out[i + 1].split()
            return row[-1], int(row[0].rstrip("B"))
    return None, 0


def comments(path):
    return subprocess.run(["go", "tool", "pprof", "-comments", path],
                          capture_output=True, text=True).stdout.splitlines()


def check_snapshot(pprof, trigger, name):
    doc = json.load(open(pprof[:-6] + ".json"))
    check(doc["trigger"] == trigger, f"{name}: JSON trigger {doc['trigger']}")
    fn, flat = pprof_top(pprof)
    check(fn == "main.growSite", f"{name}: largest in-use stack {fn}, not main.growSite")
    check(f"trigger: {trigger}" in comments(pprof), f"{name}: no trigger comment")
    check(doc["rss"] > 0 and doc["pss"] > 0, f"{name}: RSS/PSS missing")
    check(doc["pressure"].startswith("some avg10=") or
          not os.path.exists("/proc/pressure/memory"), f"{name}: pressure {doc['pressure']!r}")
    return doc, flat


def crossed(name, g, w, mon, out, trigger):
    """Grow g until mon sees the crossing, then end the watch: the
    snapshot it wrote, checked, and how long after the crossing it was
    whole on disk; None when there is none."""
    mon.start()
    steps = 0
    while mon.at is None and steps < 12:
        grow(g)
        steps += 1
    files = wait_files(f"{out}/*-{trigger}.pb.gz")
    rc, _, err = stop(w)
    check(rc == -signal.SIGTERM, f"{name}: exit {rc}")
    if not check(files and mon.at, f"{name}: no snapshot: {err}"):
        return None
    check(len(files) == 1, f"{name}: {len(files)} snapshots of one crossing")
    delay = os.stat(files[0][:-6] + ".json").st_mtime - mon.at
    check(delay < 1.0, f"{name}: written {delay:.3f} s after the crossing")
    doc, flat = check_snapshot(files[0], trigger, name)
    return doc, flat, delay, steps


def scenario_cgroup_above():
    """--cgroup-above 50 at a 30 s interval: only the v1 threshold event
    can explain a snapshot within a second of the crossing."""
    cg = make_cgroup("cg")
    g = start_grower(cg)
    out = f"{work}/cgroup"
    w = start_watch(out, ["--pid", str(g.pid), "--cgroup-above", "50",
                          "--interval", "30s"])
    got = crossed("cgroup-above", g, w, Crossing(lambda: cg_usage(cg), LIMIT // 2),
                  out, "cgroup-above")
    if not got:
        return
    doc, flat, delay, steps = got
    check(doc["cgroup_limit"] == LIMIT and doc["cgroup_usage"] >= LIMIT // 2
          and doc["cgroup_version"] == 1, f"cgroup-above: context {doc}")
    say(f"cgroup-above: crossed after {steps} steps, written {delay * 1000:.0f} ms "
        f"later (interval 30 s: the event), growSite {flat / MIB:.0f} MiB in use")


def scenario_already_above():
    """A cgroup above its share before the watch starts: no crossing will
    come, the snapshot is taken at once (interval 30 s)."""
    cg = make_cgroup("above")
    g = start_grower(cg)
    for _ in range(9):
        grow(g)
    out = f"{work}/above"
    t0 = time.time()
    w = start_watch(out, ["--pid", str(g.pid), "--cgroup-above", "50",
                          "--interval", "30s"], settle=0)
    files = wait_files(f"{out}/*-cgroup-above.pb.gz")
    delay = time.time() - t0
    stop(w)
    if check(files and delay < 3, f"already above: no snapshot in {delay:.1f} s"):
        check_snapshot(files[0], "cgroup-above", "already above")
        say(f"already above: snapshot {delay * 1000:.0f} ms after the watch started")


def scenario_cooldown():
    """--cooldown 2s: a second crossing within it (event-driven, interval
    30 s) is snapshot when the cooldown ends, not before, not never."""
    cg = make_cgroup("cool")
    g = start_grower(cg)
    out = f"{work}/cool"
    w = start_watch(out, ["--pid", str(g.pid), "--cgroup-above", "50",
                          "--cooldown", "2s", "--interval", "30s"])
    for _ in range(9):
        grow(g)
    first = wait_files(f"{out}/*-cgroup-above.pb.gz")
    grow(g, signal.SIGUSR2)
    for _ in range(9):
        grow(g)
    both = wait_files(f"{out}/*-cgroup-above.pb.gz", n=2, timeout=4)
    stop(w)
    if not check(len(first) == 1 and len(both) == 2, f"cooldown: snapshots {both}"):
        return
    t = [json.load(open(f[:-6] + ".json"))["time_nanos"] / 1e9 for f in both]
    gap = t[1] - t[0]
    check(2.0 <= gap < 2.5, f"cooldown: second snapshot {gap:.2f} s after the first")
    say(f"cooldown: a crossing within a 2 s cooldown snapshot {gap:.2f} s after the first")


def scenario_rss_above():
    cg = make_cgroup("rss")
    g = start_grower(cg)
    out = f"{work}/rss"
    w = start_watch(out, ["--pid", str(g.pid), "--rss-above", "96M",
                          "--interval", "100ms"])
    got = crossed("rss-above", g, w, Crossing(lambda: rss_of(g.pid), 96 * MIB + 1),
                  out, "rss-above")
    if not got:
        return
    doc, flat, delay, _ = got
    check(doc["rss"] > 96 * MIB, f"rss-above: RSS {doc['rss']}")
    say(f"rss-above: written {delay * 1000:.0f} ms after the crossing, "
        f"growSite {flat / MIB:.0f} MiB")


def scenario_growth():
    cg = make_cgroup("growth")
    g = start_grower(cg)
    out = f"{work}/growth"
    w = start_watch(out, ["--pid", str(g.pid), "--growth", "48M/2s",
                          "--interval", "100ms"], settle=1.2)
    check(not glob.glob(f"{out}/*.pb.gz"), "growth: a snapshot while steady")
    t0 = time.time()
    for _ in range(4):
        grow(g)
    files = wait_files(f"{out}/*-growth.pb.gz")
    stop(w)
    if not check(files, "growth: no snapshot"):
        return
    doc, flat = check_snapshot(files[0], "growth", "growth")
    delay = os.stat(files[0][:-6] + ".json").st_mtime - t0
    say(f"growth: 64 MiB in {len(files)} snapshot(s), the first {delay * 1000:.0f} ms "
        f"after growing began: {doc['reason']}")


def scenario_at_peak():
    """Up to 96 MiB, down to nothing, up to 32 MiB: the kept snapshot is
    the maximum's."""
    cg = make_cgroup("peak")
    g = start_grower(cg)
    out = f"{work}/peak"
    w = start_watch(out, ["--pid", str(g.pid), "--at-peak", "--interval", "200ms"])
    for _ in range(6):
        grow(g)
    time.sleep(1.0)
    grow(g, signal.SIGUSR2)
    time.sleep(0.6)
    for _ in range(2):
        grow(g)
    time.sleep(1.0)
    _, stdout, _ = stop(w)
    files = glob.glob(f"{out}/*.pb.gz")
    if not check(len(files) == 1 and files[0].endswith("-peak.pb.gz"),
                 f"at-peak: files {files}"):
        return
    doc, flat = check_snapshot(files[0], "at-peak", "at-peak")
    check(flat >= 90 * MIB, f"at-peak: growSite {flat} in the kept snapshot, not the 96 MiB maximum")
    index = [json.loads(l) for l in open(f"{out}/index.jsonl")]
    check(len(index) == 1 and index[0]["inuse_space"] == doc["inuse_space"],
          f"at-peak: index {index}")
    writes = stdout.count("at-peak pid")
    say(f"at-peak: written {writes} times, kept the maximum: growSite "
        f"{flat / MIB:.1f} MiB (later 32 MiB not kept)")


def check_dir(out, name, allow_unpaired=False):
    """No temporary file; every pprof parses; every JSON parses; index
    names only files that are there. Returns the index."""
    left = [f for f in os.listdir(out) if ".tmp." in f or f.startswith(".goheap-")]
    check(not left, f"{name}: temporary files left {left}")
    pprofs = glob.glob(f"{out}/*.pb.gz")
    if pprofs:
        r = subprocess.run([cmpprof, "-sum"] + pprofs, capture_output=True, text=True)
        check(r.returncode == 0, f"{name}: a profile does not parse: {r.stderr[:300]}")
    for j in glob.glob(f"{out}/*.json"):
        json.load(open(j))
    index = []
    if os.path.exists(f"{out}/index.jsonl"):
        index = [json.loads(l) for l in open(f"{out}/index.jsonl")]
    for e in index:
        check(os.path.exists(f"{out}/{e['pprof']}") and os.path.exists(f"{out}/{e['json']}"),
              f"{name}: index names a missing file {e['pprof']}")
    if not allow_unpaired:
        check(len(pprofs) == len(index), f"{name}: {len(pprofs)} files, {len(index)} indexed")
    return index


def scenario_retention():
    """--every 50ms, --keep 3, until 100 snapshots were written: never more
    than 3 (+1 being written) on disk, exactly 3 at the end, the index
    naming them; then --keep-bytes 1: only the newest."""
    cg = make_cgroup("keep")
    g = start_grower(cg)
    grow(g)
    out = f"{work}/keep"
    w = start_watch(out, ["--pid", str(g.pid), "--every", "50ms",
                          "--interval", "50ms", "--keep", "3"], settle=0)
    lines, most, t0 = 0, 0, time.time()
    fd = w.stdout.fileno()
    os.set_blocking(fd, False)
    while lines < 100 and time.time() - t0 < 40:
        most = max(most, len(glob.glob(f"{out}/*-every.pb.gz")))
        try:
            lines += os.read(fd, 1 << 16).count(b"\n")
        except BlockingIOError:
            pass
        time.sleep(0.01)
    secs = time.time() - t0
    stop(w)
    index = check_dir(out, "retention")
    check(lines >= 100, f"retention: only {lines} snapshots in {secs:.0f} s")
    check(most <= 4, f"retention: {most} snapshots on disk at once")
    check(len(index) == 3, f"retention: {len(index)} kept at the end")
    say(f"retention: {lines} snapshots in {secs:.1f} s, at most {most} on disk "
        f"(3 kept + 1 being written), 3 at the end")
    out = f"{work}/keepbytes"
    w = start_watch(out, ["--pid", str(g.pid), "--every", "100ms", "--interval",
                          "100ms", "--keep", "0", "--keep-bytes", "1"], settle=1.5)
    _, stdout, _ = stop(w)
    index = check_dir(out, "keep-bytes")
    check(len(index) == 1 and stdout.count("\n") >= 5,
          f"keep-bytes: {len(index)} kept of {stdout.count(chr(10))}")


def writing(out, timeout=10.0):
    """Wait until a temporary file is in out: a snapshot being written."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            if any(".tmp." in f or f.startswith(".goheap-") for f in os.listdir(out)):
                return True
        except FileNotFoundError:
            pass
        time.sleep(0.001)
    return False


def scenario_signals():
    """SIGTERM while a snapshot is being written: one signal lets it
    finish, then ends the watch; two at once end it at once, the
    temporary files removed. Six runs on benchgen (20k stacks: 20 MB JSON
    documents), each signalled the moment a temporary file is seen; six
    at random moments on grower. Never a partial file."""
    cg = make_cgroup("sig")
    g = start_grower(cg)
    grow(g)
    bg = subprocess.Popen([benchgen], stdout=subprocess.PIPE, text=True,
                          env=dict(os.environ, BENCHGEN_BUCKETS="20000"))
    procs.append(bg)
    bg.stdout.readline()  # its address: ready
    rng = random.Random(12)
    counts, mid = [], 0
    for i in range(12):
        out = f"{work}/sig{i}"
        big = i < 6
        w = start_watch(out, ["--pid", str(bg.pid if big else g.pid), "--every",
                              "50ms", "--interval", "50ms", "--keep", "0"],
                        settle=0 if big else rng.uniform(0.3, 1.2))
        caught = big and writing(out)
        mid += caught
        w.send_signal(signal.SIGTERM)
        if i % 2:
            w.send_signal(signal.SIGTERM)
        stdout, _ = w.communicate(timeout=30)
        # one signal: the snapshot it caught being written was finished
        check(not caught or i % 2 or stdout.count("\n") >= 1,
              f"signals {i}: the snapshot being written was not finished")
        check(w.returncode == -signal.SIGTERM, f"signals {i}: exit {w.returncode}")
        check_dir(out, f"signals {i}", allow_unpaired=bool(i % 2))
        counts.append(stdout.count("\n"))
    check(mid == 6, f"signals: only {mid} of 6 benchgen runs caught writing")
    say(f"signals: 12 runs ended by SIGTERM (6 with a second at once; {mid} "
        f"signalled mid-write of a 20 MB document) after {min(counts)}-"
        f"{max(counts)} snapshots: no temporary file, every file whole")


def scenario_discovery():
    """Processes that start later: found at the next interval, and at once
    on SIGHUP (interval 30 s)."""
    cg = make_cgroup("disc")
    rel = cg[len(CG_ROOT):]
    out = f"{work}/hup"
    w = start_watch(out, ["--comm", "^grower$", "--cgroup", rel,
                          "--rss-above", "1M", "--interval", "30s"])
    g = start_grower(cg)
    t0 = time.time()
    w.send_signal(signal.SIGHUP)
    files = wait_files(f"{out}/*-rss-above.pb.gz", timeout=5)
    delay = time.time() - t0
    rc, _, _ = stop(w)
    check(files and delay < 3, f"SIGHUP: no snapshot of the new process ({delay:.1f} s)")
    check(rc == -signal.SIGTERM, f"SIGHUP: exit {rc}")
    out = f"{work}/interval"
    w = start_watch(out, ["--comm", "^grower$", "--cgroup", rel,
                          "--rss-above", "1M", "--interval", "300ms"])
    g2 = start_grower(cg)
    t1 = time.time()
    files2 = wait_files(f"{out}/*-{g2.pid}-*-rss-above.pb.gz", timeout=5)
    stop(w)
    check(files2, "interval: the new process not found")
    check(glob.glob(f"{out}/*-{g.pid}-*-rss-above.pb.gz"), "interval: the first process not watched")
    say(f"discovery: a new process's snapshot {delay * 1000:.0f} ms after SIGHUP "
        f"(interval 30 s), {(time.time() - t1) * 1000:.0f} ms or less at a 300 ms interval")


def scenario_filter_path():
    """--cgroup given as the directory a shell shows (under the mount): taken
    as the cgroup path; matching no process at start, said once, naming
    the filters, and the process that starts later still found."""
    cg = make_cgroup("fspath")
    rel = cg[len(CG_ROOT):]
    out = f"{work}/fspath"
    w = start_watch(out, ["--comm", "^grower$", "--cgroup", cg,
                          "--rss-above", "1M", "--interval", "100ms"], settle=1.0)
    g = start_grower(cg)
    files = wait_files(f"{out}/*-{g.pid}-*-rss-above.pb.gz", timeout=5)
    rc, _, err = stop(w)
    said = f"goheap-bpf: no Go process matches --comm '^grower$' --cgroup {rel}; "
    check(files, f"filter path: --cgroup {cg} did not find the process in it")
    check(rc == -signal.SIGTERM and err.count(said) == 1 and
          err.count("no Go process matches") == 1,
          f"filter path: exit {rc}, stderr {err!r}")
    say(f"filter path: --cgroup {cg} watched {rel}; matching none at start said once")


def scenario_no_limit():
    """--cgroup-above on a cgroup without a limit: said once, the watch
    going on."""
    cg = make_cgroup("nolimit", limit=0)
    g = start_grower(cg)
    w = start_watch(f"{work}/nolimit", ["--pid", str(g.pid), "--cgroup-above", "50",
                                        "--interval", "100ms"], settle=1.0)
    rc, _, err = stop(w)
    check(rc == -signal.SIGTERM and err.count("has no limit") == 1,
          f"no limit: exit {rc}, stderr {err!r}")
    say("no limit: --cgroup-above on a cgroup without one said so once, and went on")


def eventfds(pid):
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            n += os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:[eventfd]"
        except OSError:
            pass
    return n


def scenario_sources():
    """One threshold per cgroup, closed once no watched process is in it:
    a node's watch does not gather descriptors as containers come and go."""
    a, b = make_cgroup("srca"), make_cgroup("srcb")
    start_grower(a)
    gb = start_grower(b)
    prefix = f"/gh-watch-{os.getpid()}-src"
    w = start_watch(f"{work}/sources", ["--comm", "^grower$", "--cgroup", prefix,
                                        "--cgroup-above", "90", "--interval", "200ms"])
    two = eventfds(w.pid)
    gb.kill()
    gb.wait()
    time.sleep(0.6)
    one = eventfds(w.pid)
    start_grower(a)
    time.sleep(0.6)
    same = eventfds(w.pid)
    stop(w)
    check((two, one, same) == (2, 1, 1),
          f"sources: eventfds {two}, then {one}, then {same}; want 2, 1, 1")
    say(f"sources: thresholds of 2 cgroups: {two} eventfds; one emptied: {one}; "
        f"a second process in the other: {same}")


def scenario_exit():
    """--pid alone: the watch ends, 0, once its process exited."""
    cg = make_cgroup("exit")
    g = start_grower(cg)
    w = start_watch(f"{work}/exit", ["--pid", str(g.pid), "--every", "1s",
                                     "--interval", "100ms"])
    g.kill()
    g.wait()
    try:
        w.wait(timeout=3)
    except subprocess.TimeoutExpired:
        pass
    check(w.returncode == 0, f"exit: the watch of an exited process: {w.returncode}")
    say("exit: the watch of one --pid ended 0 once it exited")


def scenario_pressure():
    """A PSI trigger is taken (system-wide: no v2 memory controller here)
    and the watch runs; a spec the kernel would refuse is refused with the
    bounds named."""
    cg = make_cgroup("psi")
    g = start_grower(cg)
    w = start_watch(f"{work}/psi", ["--pid", str(g.pid), "--pressure", "some:150ms/2s"])
    check(w.poll() is None, "pressure: the watch ended: " + (w.stderr.read() if w.poll() is not None else ""))
    stop(w)
    r = subprocess.run([bin_, "watch", "-d", f"{work}/psi2", "--pid", str(g.pid),
                        "--pressure", "some:150ms/100ms"], capture_output=True, text=True)
    check(r.returncode == 2 and "500ms to 10s" in r.stderr, f"pressure: bad spec: {r.returncode} {r.stderr}")
    # Without CAP_SYS_RESOURCE the kernel takes only 2 s multiples.
    w = start_watch(f"{work}/psi3", ["--pid", str(g.pid), "--pressure", "some:150ms/1s"])
    if w.poll() is None:
        stop(w)
        how = "taken"
    else:
        err = w.stderr.read()
        check(w.returncode == 8 and "multiple of 2s" in err, f"pressure: 1s window: {err}")
        how = "refused (8: no CAP_SYS_RESOURCE, the message says so)"
    say(f"pressure: a trigger on /proc/pressure/memory taken; a 100 ms window "
        f"refused (2); a 1 s window {how}")


def scenario_no_oom():
    """Without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (setpriv drops them
    from root's bounding set), the OOM trigger cannot load: the watch goes
    on with its others, saying so once; alone, it fails (8)."""
    cg = make_cgroup("nooom")
    g = start_grower(cg)
    drop = ["setpriv", "--bounding-set", "-bpf,-perfmon,-sys_admin", bin_, "watch",
            "-b", "procmem", "-d", f"{work}/nooom", "--pid", str(g.pid)]
    w = subprocess.Popen(drop + ["--every", "200ms", "--interval", "100ms"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    procs.append(w)
    time.sleep(1)
    _, out, err = stop(w)
    said = err.count("OOM kills will not be captured")
    check(said == 1 and out.count("every pid") >= 2,
          f"no oom: said {said} times, {out.count('every pid')} snapshots: {err}")
    r = subprocess.run(drop, capture_output=True, text=True)
    check(r.returncode == 8 and "the only trigger" in r.stderr,
          f"no oom: alone: exit {r.returncode}: {r.stderr.strip()}")
    say(f"no oom: without CAP_BPF the watch went on ({out.count('every pid')} "
        f"snapshots), said so once; the OOM trigger alone: 8")


def pprof_diff_top(base, path):
    """The function of go tool pprof -top -diff_base's first row."""
    out = subprocess.run(["go", "tool", "pprof", "-top", "-sample_index=inuse_space",
                          "-diff_base", base, path],
                         capture_output=True, text=True).stdout.splitlines()
    for i, line in enumerate(out):
        if line.split()[:2] == ["flat", "flat%"]:
            return out[i + 1].split()[-1]
    return None


def scenario_leaks():
    """--every 300ms, --leak-window 3 on the leak target: the first 3
    snapshots name no leak; from the 4th on, main.leakSite first, no
    steady site, as go tool pprof -diff_base ranks the snapshots, and a
    stderr line says so."""
    out = f"{work}/leaks"
    ready = f"{work}/leak-ready"
    g = subprocess.Popen([leak_bin], env=dict(os.environ, LEAK_RATE="1024",
                                               LEAK_READY=ready,
                                               LEAK_PROFILE=f"{work}/leak-own"))
    procs.append(g)
    end = time.time() + 10
    while not os.path.exists(ready) and time.time() < end:
        time.sleep(0.05)
    w = start_watch(out, ["--pid", str(g.pid), "--every", "300ms", "--interval", "100ms",
                          "--leak-window", "3", "--no-oom"], settle=0)
    wait_files(f"{out}/*-every.pb.gz", n=5)
    rc, _, err = stop(w)
    g.kill()
    index = [json.loads(line) for line in open(f"{out}/index.jsonl")]
    check(rc == -signal.SIGTERM and len(index) >= 5, f"leaks: exit {rc}, {len(index)} snapshots")
    docs = [json.load(open(f"{out}/{e['json']}")) for e in index]
    named = [[k["site"] for k in d["likely_leaks"]] for d in docs]
    check(named[:3] == [[], [], []], f"leaks: named before 4 snapshots: {named[:3]}")
    first_pprof = f"{out}/{index[0]['pprof']}"
    for e, d, sites in list(zip(index, docs, named))[3:]:
        top = pprof_diff_top(first_pprof, f"{out}/{e['pprof']}")
        check(sites[:1] == ["main.leakSite"] and top == "main.leakSite",
              f"leaks: {e['json']}: named {sites}, pprof -diff_base's top {top}")
        check(not [s for s in sites if s.startswith("main.steady")],
              f"leaks: {e['json']}: a steady site named: {sites}")
        k = d["likely_leaks"][0] if d["likely_leaks"] else {}
        check(k.get("snapshots") == 4 and 0 < k.get("growth_bytes", 0) <= k.get("inuse_bytes", 0)
              and k.get("file", "").endswith("main.go"), f"leaks: {e['json']}: {k}")
    said = err.count("likely leak #1: main.leakSite")
    check(said == len(index) - 3, f"leaks: {said} stderr lines for {len(index) - 3} snapshots")
    k = docs[3]["likely_leaks"][0] if docs[3]["likely_leaks"] else {}
    say(f"leaks: {len(index)} snapshots, none named in the first 3, then main.leakSite "
        f"first (grew {k.get('growth_bytes', 0) // 1024} KiB over 4 snapshots), "
        f"as go tool pprof -diff_base ranks them; no steady site")


def gogrow_count(d):
    """(goroutines, steps) the target last wrote of itself."""
    with open(f"{d}/count") as f:
        words = f.read().split()
    return int(words[1]), int(words[3])


def goroutine_top(path):
    """go tool pprof -top of a goroutine profile: (total, {function: cum})."""
    out = subprocess.run(["go", "tool", "pprof", "-top", "-symbolize=none", path],
                         capture_output=True, text=True).stdout.splitlines()
    total, cum = None, {}
    for line in out:
        w = line.split()
        if line.startswith("Showing nodes accounting for"):
            total = int(w[-2])
        elif len(w) >= 6 and w[0].isdigit() and w[3].isdigit():
            cum[" ".join(w[5:])] = int(w[3])
    return total, cum


def scenario_goroutines():
    """--goroutines-above 150 on gogrow: nothing at its 103 goroutines,
    then, once a signal parked 100 more, one snapshot (the heap one and
    the goroutine profile beside it, named in index.jsonl) whose count is
    what the target wrote of itself; none more while it stays above, even
    when it grows again (an edge)."""
    d = f"{work}/gogrow"
    out = f"{work}/goroutines"
    os.makedirs(d, exist_ok=True)
    env = dict(os.environ, GOGROW_DIR=d, GOGROW_START="100", GOGROW_STEP="100")
    g = subprocess.Popen([gogrow_bin], env=env)
    procs.append(g)
    end = time.time() + 10
    while not os.path.exists(f"{d}/port") and time.time() < end:
        time.sleep(0.02)
    before, _ = gogrow_count(d)
    w = start_watch(out, ["--pid", str(g.pid), "--goroutines-above", "150",
                          "--interval", "100ms", "--no-oom"])
    time.sleep(0.8)
    pattern = f"{out}/*-goroutines-above.pb.gz"
    check(before < 150 and not glob.glob(pattern),
          f"goroutines: a snapshot at {before} goroutines, below 150")

    def step(n):
        g.send_signal(signal.SIGUSR1)
        end = time.time() + 10
        while gogrow_count(d)[1] < n and time.time() < end:
            time.sleep(0.01)
        return time.time()

    at = step(1)
    after, _ = gogrow_count(d)
    files = wait_files(pattern)
    if not check(len(files) == 1, f"goroutines: {len(files)} snapshots once above"):
        stop(w)
        return
    delay = os.stat(files[0][:-6] + ".json").st_mtime - at
    doc = json.load(open(files[0][:-6] + ".json"))
    check(doc["trigger"] == "goroutines-above" and
          doc["reason"] == f"goroutines {after} went above 150",
          f"goroutines: trigger {doc['trigger']!r}, reason {doc['reason']!r}, "
          f"the target says {after}")
    check("trigger: goroutines-above" in comments(files[0]),
          "goroutines: no trigger comment in the heap pprof")
    gfile = files[0][:-6] + ".goroutine.pb.gz"
    total, cum = goroutine_top(gfile) if os.path.exists(gfile) else (None, {})
    check(total == after and cum.get("main.stepSite") == 100 and
          cum.get("main.parkSite") == 100,
          f"goroutines: its goroutine profile holds {total} (want {after}), "
          f"main.stepSite {cum.get('main.stepSite')}, main.parkSite "
          f"{cum.get('main.parkSite')} (want 100 each)")
    index = [json.loads(line) for line in open(f"{out}/index.jsonl")]
    check(len(index) == 1 and
          index[0].get("goroutine_pprof") == os.path.basename(gfile),
          f"goroutines: index.jsonl {index}")
    step(2)
    time.sleep(0.8)
    check(len(glob.glob(pattern)) == 1,
          f"goroutines: {len(glob.glob(pattern))} snapshots while it stayed above")
    rc, _, err = stop(w)
    check(rc == -signal.SIGTERM, f"goroutines: exit {rc}: {err}")
    say(f"goroutines: none at {before}, one {delay:.3f} s after {after} "
        f"(its goroutine profile {total}: main.stepSite 100), none more above")


def scenario_errors():
    cases = [
        (["--pid", "1", "--no-oom"], 2, "no trigger"),
        (["--pid", "1", "--rss-above", "12Q"], 2, "invalid --rss-above"),
        (["--pid", "1", "--growth", "10M"], 2, "invalid --growth"),
        (["--pid", "1", "--cgroup-above", "120"], 2, "invalid --cgroup-above"),
        (["--pid", "1", "--every", "1s", "--leak-window", "17"], 2, "invalid --leak-window"),
        (["--pid", "1", "--oom-ring", "3M"], 2, "invalid --oom-ring"),
        (["--pid", str(os.getpid()), "--rss-above", "1M"], 4, "Go"),
        (["--pid", "2147483646", "--rss-above", "1M"], 3, "2147483646"),
    ]
    for args, want, text in cases:
        r = subprocess.run([bin_, "watch", "-d", f"{work}/err"] + args,
                           capture_output=True, text=True)
        check(r.returncode == want and text in r.stderr,
              f"errors {args}: exit {r.returncode}, want {want}: {r.stderr.strip()}")
    say(f"errors: {len(cases)} bad invocations, each its status and message")


def main():
    t0 = time.time()
    scenarios = [scenario_errors, scenario_cgroup_above, scenario_already_above,
                 scenario_cooldown, scenario_rss_above, scenario_no_oom,
                 scenario_growth, scenario_at_peak, scenario_retention,
                 scenario_signals, scenario_discovery, scenario_filter_path,
                 scenario_no_limit, scenario_sources,
                 scenario_exit,
                 scenario_pressure, scenario_leaks, scenario_goroutines]
    try:
        for s in scenarios:
            try:
                s()
            except Exception as e:  # a scenario that broke is a failure
                check(False, f"{s.__name__}: {e!r}")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for cg in cgroups:
            for _ in range(50):
                try:
                    os.rmdir(cg)
                    break
                except OSError:
                    time.sleep(0.1)
    if os.path.exists("/sys/fs/cgroup/unified/cgroup.controllers") and \
            "memory" not in open("/sys/fs/cgroup/unified/cgroup.controllers").read():
        say("cgroup v2: no memory controller on this host's v2 hierarchy: v2 not tested")
    say(f"{len(failures)} failures in {time.time() - t0:.0f} s")
    sys.exit(1 if failures else 0)


main()
