#!/usr/bin/env python3
"""seeds.py - the seed corpora of the libFuzzer harnesses (tests/fuzz/),
built from real inputs, never committed: they are rebuilt on every run.

    seeds.py OUT     writes OUT/<harness>/<seed> for every harness below

Sources: the Go binaries of every supported release that the unit tests
build ($GH_FIXTURES/gobin/1.N/{exe,pie,arm64}, tests/unit/fixtures/
gobins.sh, with `go tool nm` of each in <kind>.nm), small ELF files of this
system, the /proc files of this process, of PID 1 and of a live Go
process, and a synthetic but well-formed stream of ring-buffer records.

Each harness's seeds come from the function of the same name registered
with @harness; each builds its inputs in the format the harness's header
comment gives. Adding a harness is adding one such function.
"""
import gzip
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

FIXTURES = os.environ.get("GH_FIXTURES", "build/fixtures")
FIRST_MINOR = 18  # the release that input byte 0 names
HARNESSES = {}


def harness(fn):
    HARNESSES[fn.__name__] = fn
    return fn


# ---- the Go fixtures ----


class Binary:
    """One fixture binary: its bytes, sections and `go tool nm` symbols."""

    def __init__(self, minor, kind, path=None):
        self.minor, self.kind = minor, kind
        self.path = path or f"{FIXTURES}/gobin/1.{minor}/{kind}"
        with open(self.path, "rb") as f:
            self.data = f.read()
        self.sections = elf_sections(self.data)
        self.syms = {}
        if os.path.exists(self.path + ".nm"):
            with open(self.path + ".nm") as f:
                for line in f:
                    addr, typ, name = line.split(maxsplit=2)
                    self.syms[name.rstrip("\n")] = (int(addr, 16), typ)

    def name(self):
        return f"1.{self.minor}-{self.kind}"

    def section(self, name):
        return self.sections.get(name)

    def section_at(self, addr):
        """The file bytes from addr to the end of its section."""
        for _, typ, saddr, off, size in self.sections.values():
            if typ != 8 and saddr <= addr < saddr + size:
                return self.data[off + addr - saddr:off + size]
        return None

    def sym(self, *names):
        for n in names:
            if n in self.syms:
                return self.syms[n][0]
        return None

    def func_body(self, name):
        """A function's bytes, up to the next function's entry (assembly
        functions are named with their ABI in the symbol table only)."""
        entry = self.sym(name, name + ".abi0")
        if entry is None:
            return b""
        ends = [a for a, t in self.syms.values()
                if t in "Tt" and a > entry]
        body = self.section_at(entry) or b""
        return body[:min(ends) - entry] if ends else b""


def elf_sections(data):
    """name -> (name, type, addr, offset, size) of an ELF64 LE file."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    hdrs = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    out = {}
    for name, typ, _, addr, off, size in hdrs:
        end = data.index(b"\0", stroff + name)
        n = data[stroff + name:end].decode()
        out[n] = (n, typ, addr, off, size)
    return out


def fixtures(kinds=("exe", "pie")):
    root = f"{FIXTURES}/gobin"
    if not os.path.isdir(root):
        sys.exit(f"seeds: {root} missing: run tests/unit/fixtures/gobins.sh")
    minors = sorted(int(d.split(".")[1]) for d in os.listdir(root)
                    if d.startswith("1."))
    for m in minors:
        for k in kinds:
            if os.path.exists(f"{root}/1.{m}/{k}"):
                yield Binary(m, k)


def u16(v):
    return struct.pack("<H", v)


def u32(v):
    return struct.pack("<I", v)


def u64(v):
    return struct.pack("<Q", v)


# ---- the harnesses' seeds: each yields (name, bytes) ----


@harness
def buildinfo():
    for b in fixtures(("exe", "pie", "arm64")):
        _, _, _, off, size = b.section(".go.buildinfo")
        yield b.name(), b.data[off:off + size]


@harness
def elf():
    for path in ("/usr/bin/true", "/lib/x86_64-linux-gnu/libz.so.1"):
        if os.path.exists(path):
            with open(path, "rb") as f:
                yield os.path.basename(path), f.read()
    # Go binaries cut down to their notes, build info and moduledata:
    # a Go ELF layout in a few KiB (this objcopy knows amd64 only).
    keep = [".go.buildinfo", ".note.go.buildid", ".note.gnu.build-id",
            ".go.module", ".noptrdata"]
    with tempfile.TemporaryDirectory() as tmp:
        for b in fixtures():
            out = f"{tmp}/{b.name()}"
            subprocess.run(["objcopy"] + [f"-j{s}" for s in keep] +
                           [b.path, out], check=True,
                           stderr=subprocess.DEVNULL)
            with open(out, "rb") as f:
                yield b.name(), f.read()


def selector(b):
    kinds = {"exe": 0, "pie": 1, "arm64": 2}
    return bytes([(b.minor - FIRST_MINOR) | kinds[b.kind] << 6])


@harness
def gobin():
    for b in fixtures(("exe", "pie", "arm64")):
        sel = selector(b)
        yield b.name(), sel
        # Renaming .symtab in .shstrtab opens the binary as stripped.
        _, _, _, off, size = b.section(".shstrtab")
        at = b.data.index(b"\0.symtab\0", off, off + size) + 1
        yield (b.name() + "-stripped",
               sel + u32(at) + bytes([7]) + b"_symtab")
        # Cut short in the middle: the truncated-binary check.
        yield b.name() + "-cut", sel + u32(0x80000000 | len(b.data) // 2)


MAX_PCS = 128  # a spread over the whole text


@harness
def pclntab():
    for b in fixtures():
        text = b.sym("runtime.text")
        start = b.sym("runtime.pclntab", "runtime.pcheader")
        end = b.sym("runtime.epclntab")
        pcln = b.section_at(start)[:end - start]
        gofunc = b.section_at(b.sym("go:func.*", "go.func.*"))
        with open(b.path + ".pcs") as f:
            pcs = [int(line, 16) for line in f]
        step = max(1, len(pcs) // MAX_PCS)
        offs = [u32(pc - text) for pc in pcs[::step] if pc >= text]
        yield b.name(), (bytes([b.minor - FIRST_MINOR]) + u64(text) +
                         u32(len(gofunc)) + gofunc + u16(len(offs)) +
                         b"".join(offs) + pcln)


# The functions fuzz_stripped.c rewrites, in its order.
STRIPPED_FUNCS = [
    "runtime.mProf_FlushLocked", "runtime.MemProfile",
    "runtime.memProfileInternal", "runtime.mProf_Flush",
    "runtime.mProf_Free", "runtime.schedinit", "runtime.init",
    "runtime.allocmcache", "math.archExp", "math.init",
]


@harness
def x86():
    for b in fixtures(("exe",)):
        for f in STRIPPED_FUNCS:
            body = b.func_body(f)
            if body:
                yield f"{b.name()}-{f}", body


def code_of(b):
    """Where b's function bodies are read: b, or for the gobin fixtures'
    arm64 binary (no go tool nm of its own) the same program's arm64 build
    by tests/unit/fixtures/arm64.sh."""
    if b.kind != "arm64":
        return b
    path = f"{FIXTURES}/arm64/1.{b.minor}/exe"
    return Binary(b.minor, b.kind, path) if os.path.exists(path) else None


def arm64_builds():
    """tests/unit/fixtures/arm64.sh's executables, one per release."""
    root = f"{FIXTURES}/arm64"
    for d in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        if d.startswith("1.") and os.path.exists(f"{root}/{d}/exe"):
            yield Binary(int(d.split(".")[1]), "arm64", f"{root}/{d}/exe")


@harness
def arm64():
    for b in arm64_builds():
        for f in STRIPPED_FUNCS:
            body = b.func_body(f)
            if body:
                yield f"{b.name()}-{f}", body


@harness
def stripped():
    for b in fixtures(("exe", "pie", "arm64")):
        code = code_of(b)
        if not code:
            continue
        bodies = [code.func_body(f)[:0xffff] for f in STRIPPED_FUNCS]
        yield b.name(), selector(b) + b"".join(u16(len(x)) + x
                                               for x in bodies)


# fuzz_goroutine.c's memory image: allglen, allgptr, fingStatus, then
# the goroutine list and goroutines in runtime.g's layout as the fixture's
# DWARF gives it (structrefs.sh), each parked at a return PC of main.* with
# a stack whose saved return address is another; one running.
GOROUTINE_BASE = 0x10000000


@harness
def goroutine():
    for b in fixtures(("exe",)):
        fields = {}
        try:
            with open(f"{FIXTURES}/gobin/1.{b.minor}/gstruct") as f:
                for line in f:
                    w = line.split()
                    if w[0] == "field":
                        fields[w[1]] = int(w[2])
        except OSError:
            continue
        with open(b.path + ".pcs") as f:
            pcs = [int(line, 16) for line in f][:64]
        if not pcs:
            continue
        img = bytearray(0x8000)
        ngs, gsz = 3, 0x200
        struct.pack_into("<QQ", img, 0, ngs, GOROUTINE_BASE + 0x40)
        for k in range(ngs):
            g = 0x400 + k * gsz
            struct.pack_into("<Q", img, 0x40 + 8 * k, GOROUTINE_BASE + g)
            lo, hi = 0x2000 + k * 0x1000, 0x3000 + k * 0x1000
            sp = hi - 0x100
            put = lambda name, v, fmt="<Q": (
                struct.pack_into(fmt, img, g + fields[name], v)
                if name in fields else None)
            put("stack.lo", GOROUTINE_BASE + lo)
            put("stack.hi", GOROUTINE_BASE + hi)
            put("sched.sp", GOROUTINE_BASE + sp)
            put("sched.pc", pcs[(7 * k) % len(pcs)])
            put("atomicstatus", 2 if k == 2 else 4, "<I")
            put("goid", k + 1)
            put("waitreason", 14, "<B")
            put("gopc", pcs[(3 * k) % len(pcs)])
            put("startpc", pcs[(5 * k) % len(pcs)])
            for j in range(0, 0x100, 8):
                struct.pack_into("<Q", img, sp + j, pcs[(k + j) % len(pcs)])
        yield b.name(), bytes([b.minor - FIRST_MINOR]) + bytes(img)


def live_go_process():
    """A running Go program (the newest fixture, waiting on its stdin)."""
    b = list(fixtures(("exe",)))[-1]
    p = subprocess.Popen([b.path, "-symbolize", "0x0"],
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    # Its runtime has started once it has more than one thread.
    for _ in range(100):
        with open(f"/proc/{p.pid}/status") as f:
            if "Threads:\t1\n" not in f.read():
                break
        time.sleep(0.02)
    return p


def live_proc_files(files):
    """("who-file", text) of these /proc files of this process, init and a
    live Go program."""
    go = live_go_process()
    try:
        for who, pid in (("self", os.getpid()), ("init", 1), ("go", go.pid)):
            for f in files:
                try:
                    with open(f"/proc/{pid}/{f}", "rb") as fh:
                        yield f"{who}-{f}", fh.read()
                except OSError:
                    pass
    finally:
        go.kill()
        go.wait()


@harness
def proc():
    yield from live_proc_files(("maps", "stat", "status", "cgroup"))


# ---- memory files and trigger specs (fuzz_memstat.c) ----


@harness
def memstat():
    """smaps_rollup of this process, init and a live Go one; this
    machine's mounts; cgroup memory values (v1's no-limit, v2's max);
    pressure specs, sizes and durations as the watch's flags take them."""
    yield from live_proc_files(("smaps_rollup",))
    with open("/proc/self/mounts", "rb") as fh:
        yield "mounts", fh.read()
    for i, text in enumerate((b"123\n", b"max\n", b"9223372036854771712\n",
                              b"some:150ms/1s", b"full:2s/10s", b"1.5GiB",
                              b"64M", b"500ms", b"250us")):
        yield f"string-{i}", text


# ---- cgroup paths and filters (fuzz_cgroup.c) ----

CONTAINER_ID = "3f4b8c1d2e5a6f7081920a1b2c3d4e5f60718293a4b5c6d7e8f9012345678abc"
POD_UID = "0e1a6d2c-4b4f-4f7c-9a55-3c1d2f8e9b10"
CGROUP_SHAPES = [
    f"/docker/{CONTAINER_ID}",
    f"/system.slice/docker-{CONTAINER_ID}.scope",
    "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
    f"{POD_UID.replace('-', '_')}.slice/cri-containerd-{CONTAINER_ID}.scope",
    "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
    f"{POD_UID.replace('-', '_')}.slice/crio-{CONTAINER_ID}.scope",
    f"/kubepods/burstable/pod{POD_UID}/{CONTAINER_ID}",
    f"/machine.slice/libpod-{CONTAINER_ID}.scope/container",
    "/machine.slice/systemd-nspawn@debian-test.service/payload",
    "/user.slice/user-0.slice/session-1.scope",
]


@harness
def cgroup():
    """Real cgroup path shapes (docker, containerd, cri-o, podman, nspawn,
    Kubernetes v1 and v2, this machine's), each with the filters a sweep
    is given."""
    paths = list(CGROUP_SHAPES)
    for pid in ("self", "1"):
        try:
            with open(f"/proc/{pid}/cgroup") as fh:
                paths += [l.split(":", 2)[2].strip() for l in fh if l.count(":") >= 2]
        except OSError:
            pass
    filters = [(1, "^api(-v[0-9]+)?$", "", "", "api-v2"),
               (2, "", "/kubepods", "", "app"),
               (4, "", "", CONTAINER_ID[:12], "app"),
               (7, "heap", "/", CONTAINER_ID[:4], "heapgen")]
    for i, path in enumerate(paths):
        which, re, cg, ct, comm = filters[i % len(filters)]
        data = bytes([which]) + b"\0".join(
            x.encode() for x in (re, cg, ct, comm, path))
        yield f"path{i}", data


# ---- HTTP requests to goheap-bpf serve (fuzz_route.c) ----

TOKEN = "s3cr3t-Token_0123456789"
ROUTE_TARGETS = [
    "/", "/healthz", "/metrics", "/processes", "/targets",
    "/pid/1234/debug/pprof/heap", "/pid/1234/debug/pprof/allocs",
    "/pid/1234/runtime/2/debug/pprof/heap",
    "/pid/4194304/debug/pprof/allocs?debug=0&gc=0",
    "/pid/1234/debug/pprof/heap?seconds=30",
    "/pid/1234/debug/pprof/allocs?seconds=2", "/pid/1234/debug/pprof/heap?seconds=29",
    "/pid/1234/debug/pprof/allocs?debug=1", "/pid/1234/debug/pprof/heap?debug=-1&seconds=",
    "/pid/1234/debug/pprof/heap?seconds=-1",
    "/pid/1234/debug/pprof/heap?seconds=5&debug=1",
    "/pid/1234/debug/pprof/heap?gc=1",
    "/pid/1234/debug/pprof/heap?gc=99999999999999999999",
    "/pid/1234/debug/pprof/heap?debug=%2B1;x=1&debug=2",
    "/pid/1234/debug/pprof/allocs?gc=1&a+b=%zz",
    "/pid/0/debug/pprof/heap", "/pid/-1/debug/pprof/heap",
    "/pid/99999999999/debug/pprof/heap", "/pid/0123/debug/pprof/heap",
    "/pid/12%33/debug/pprof/heap", "/pid/1234/runtime/0/debug/pprof/heap",
    "/pid/1234/../../etc/passwd", "/pid/1234/%2e%2e/%2e%2e/etc/passwd",
    "/pid/1234/debug/pprof/goroutine", "/pid/1234/debug/pprof/heap/",
    "//metrics", "/%00", "/%", "*", "http://host/metrics",
]


@harness
def route():
    """The server's endpoints, real query options, hostile paths, with and
    without the token, in the harness's input format."""
    methods = [(0, ""), (1, ""), (2, ""), (3, "OPTIONS")]
    for i, target in enumerate(ROUTE_TARGETS):
        code, name = methods[i % len(methods)]
        for auth in (None, "Bearer " + TOKEN, "bearer wrong"):
            which = code << 2 | 1 | (auth is not None) << 1
            yield (f"t{i}-{0 if auth is None else auth[:6].strip()}",
                   bytes([which]) + b"\0".join(
                       x.encode() for x in (name, auth or "", TOKEN)) +
                   b"\0" + target.encode())


# ---- ring-buffer records (bpf/goheap_record.h), tgid 0: the harness's ----

EV_BEGIN, EV_BUCKETS, EV_END, EV_KNOWN = 1, 2, 3, 4
WALK_DONE, WALK_RESUME, WALK_FAULT, WALK_BAD_NSTK = 0, 1, 2, 3


def rec(data):
    return u16(len(data)) + data


PASS_END = u16(0)


def ev_begin(head):
    return rec(u32(EV_BEGIN) + u32(0) + u64(head) +
               u64(4096) + u64(7) + u64(0) + u64(1) + u32(0) + u32(0))


def ev_end(status, nbuckets, resume=0, err=0):
    return rec(u32(EV_END) + u32(0) + u32(status) + u32(nbuckets) +
               u64(resume) + struct.pack("<q", err) +
               u64(4096) + u64(9) + u64(0) + u64(1) + u32(0) + u32(0))


def bucket_words(allnext, nstk, size, rec_bytes, seed):
    hdr = [0, allnext, 1, 0x9e3779b97f4a7c15 * seed % 2**64, size, nstk]
    stk = [0x401000 + 0x40 * (seed + i) for i in range(nstk)]
    mem = [seed + i for i in range(rec_bytes // 8)]
    return hdr + stk + mem


def ev_buckets(addr, stacks, rec_bytes, leads_on=0):
    """Buckets back to back from addr upwards, each one's allnext the one
    below it, the lowest one's leads_on; returns the record and the
    buckets' (addr, header words) in list order."""
    words, at, below, out = [], addr, leads_on, []
    for i, nstk in enumerate(stacks):
        w = bucket_words(below, nstk, 16 * (i + 1), rec_bytes, i + 1)
        out.append((at, w))
        words += w
        below, at = at, at + 8 * len(w)
    body = b"".join(u64(w) for w in words)
    return rec(u32(EV_BUCKETS) + u32(0) + u64(addr) + body), out[::-1]


def ev_known(addr, words, rec_bytes):
    nstk = words[5]
    mem = words[6 + nstk:6 + nstk + rec_bytes // 8]
    return rec(u32(EV_KNOWN) + u32(0) + u64(addr) +
               b"".join(u64(w) for w in words[:6] + mem))


def flags(rec_bytes, keep, deep):
    return bytes([(rec_bytes == 64) | keep << 1 | deep << 2])


@harness
def stream():
    for rb in (128, 64):
        name = f"rec{rb}"
        bk, listed = ev_buckets(0x10000, [3, 0, 5], rb)
        one = ev_begin(listed[0][0]) + bk + ev_end(WALK_DONE, 3) + PASS_END
        yield name + "-one-pass", flags(rb, 0, 0) + u16(0) + one
        # A second read sends the kept buckets without their stacks.
        again = ev_begin(listed[0][0]) + b"".join(
            ev_known(a, w, rb) for a, w in listed) + \
            ev_end(WALK_DONE, 3) + PASS_END
        yield name + "-kept", flags(rb, 1, 0) + u16(0) + one + again
        # Two passes: the ring buffer filled after the first bucket.
        b1, l1 = ev_buckets(0x20000, [2], rb, leads_on=0x10000)
        passes = (ev_begin(l1[0][0]) + b1 +
                  ev_end(WALK_RESUME, 1, resume=0x10000) + PASS_END +
                  ev_begin(0x10000) + bk + ev_end(WALK_DONE, 3) + PASS_END)
        yield name + "-two-passes", flags(rb, 1, 1) + u16(0) + passes
        # Walks that stop at a bad bucket, with a budget of two buckets.
        for status in (WALK_FAULT, WALK_BAD_NSTK):
            bad = (ev_begin(0x10000) + bk +
                   ev_end(status, 3, resume=0x30000, err=-14) + PASS_END)
            yield f"{name}-stop{status}", flags(rb, 0, 1) + u16(2) + bad


# ---- pprof profiles (fuzz_pprof.c) ----


@harness
def pprof():
    """google/pprof's profiles of the unit tests' diff fixture (two heap
    profiles, go tool pprof -diff_base's answer for them, a CPU profile,
    the same for two goroutine profiles) and a heap and a goroutine
    profile runtime/pprof wrote, each gzip and plain."""
    subprocess.run(["bash", "tests/unit/fixtures/diff.sh", FIXTURES],
                   check=True)
    for name in ("old", "new", "ref", "cpu", "self", "gold", "gnew", "gref",
                 "gself"):
        with open(f"{FIXTURES}/diff/{name}.pb.gz", "rb") as f:
            data = f.read()
        yield name + ".pb.gz", data
        yield name + ".pb", gzip.decompress(data)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: seeds.py OUT")
    for name, build in HARNESSES.items():
        out = os.path.join(sys.argv[1], name)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        n = 0
        for seed, data in build():
            with open(os.path.join(out, seed), "wb") as f:
                f.write(data)
            n += 1
        print(f"seeds: {name}: {n}")


if __name__ == "__main__":
    main()
