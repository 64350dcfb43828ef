#!/usr/bin/env python3
# strace.py - goheap-bpf never writes to, traces or signals its target:
# each backend (iter, perf, procmem) profiles a live heapgen under
# strace -f, and the trace must hold no open of a /proc/PID/mem for
# writing, no process_vm_writev, ptrace, pidfd_send_signal, pidfd_getfd,
# process_madvise or process_mrelease at all, and no kill, tkill, tgkill,
# rt_sigqueueinfo or rt_tgsigqueueinfo aimed at the target's PID or
# threads, or at a process group (a PID <= 0). Prints what each backend
# called of those it may (opens of the target's /proc files,
# process_vm_readv).
#
#   strace.py TOOL HEAPGEN WORKDIR
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fault"))
import faultlib  # noqa: E402

BACKENDS = ("iter", "perf", "procmem")
NEVER = ("process_vm_writev", "ptrace", "pidfd_send_signal", "pidfd_getfd",
         "process_madvise", "process_mrelease")
SIGNALS = ("kill", "tkill", "rt_sigqueueinfo")  # first argument: a PID
THREAD_SIGNALS = ("tgkill", "rt_tgsigqueueinfo")  # TGID, TID
OPENS = ("open", "openat", "openat2")
TRACED = NEVER + SIGNALS + THREAD_SIGNALS + OPENS + ("process_vm_readv",)
CALL = re.compile(r"^\d+\s+(\w+)\((.*)")


def forbidden(name, args, targets):
    """Why the call name(args...) is forbidden, or ''."""
    if name in NEVER:
        return f"calls {name}"
    nums = [int(x) for x in re.findall(r"-?\d+", args)[:2]]
    aims = nums[:1] if name in SIGNALS else nums[:2] if name in THREAD_SIGNALS else []
    if any(n in targets or n <= 0 for n in aims):
        return f"{name} aimed at the target or a process group"
    m = re.search(r'"((?:[^"]*/)?mem)"', args)
    if name in OPENS and m and re.search(r"O_WRONLY|O_RDWR", args):
        return f"opens {m.group(1)} for writing"
    return ""


def check(trace, pid, targets):
    """(forbidden calls, counts of what was allowed) in a strace file."""
    bad, seen = [], collections.Counter()
    with open(trace) as f:
        for line in f:
            m = CALL.match(line)
            if not m:
                continue
            name, args = m.groups()
            why = forbidden(name, args, targets)
            if why:
                bad.append(f"{why}: {line.strip()[:200]}")
            elif name == "process_vm_readv" and args.startswith(f"{pid},"):
                seen["process_vm_readv"] += 1
            elif name in OPENS and f'"/proc/{pid}/' in args:
                seen["opens of /proc/PID/*"] += 1
    return bad, seen


def main(tool, heapgen, workdir):
    t = faultlib.Tally("strace")
    target = faultlib.start_heapgen(heapgen, workdir, "traced")
    try:
        for b in BACKENDS:
            trace = os.path.join(workdir, f"{b}.strace")
            out = os.path.join(workdir, f"{b}.pb.gz")
            # LeakSanitizer cannot run under ptrace; the rest of ASan can.
            res = subprocess.run(["strace", "-f", "-qq", "-o", trace, "-e",
                                  "trace=" + ",".join(TRACED), tool, "--pid",
                                  str(target.pid), "--backend", b, "--format", "pprof",
                                  "--output", out], capture_output=True, text=True,
                                 env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
            targets = {int(x) for x in os.listdir(f"/proc/{target.pid}/task")}
            bad, seen = check(trace, target.pid, targets)
            why = f"exit status {res.returncode}: {res.stderr[-300:]}" if res.returncode else ""
            t.check(b, why or "; ".join(bad[:5]))
            t.note(f"{b}: {len(bad)} forbidden calls; allowed on the target: "
                   + ", ".join(f"{n} {k}" for k, n in sorted(seen.items())))
    finally:
        faultlib.stop(target)
    return t.done()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: strace.py TOOL HEAPGEN WORKDIR")
    sys.exit(main(*sys.argv[1:]))
