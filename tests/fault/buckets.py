# buckets.py - a live Go program's heap-profile bucket list, read and
# patched through /proc/PID/mem, for the fault-injection tests (never for
# goheap-bpf, which only reads). Layout (Go 1.18-1.27, amd64): b+0 next,
# b+8 allnext, b+16 typ (1 = heap profile), b+24 hash, b+32 size, b+40
# nstk, b+48 stack[nstk], then the memRecord: active and future[3], each
# {allocs, frees} (go1.27, 64 bytes) or {allocs, frees, alloc_bytes,
# free_bytes} (<= go1.26, 128 bytes). runtime.mbuckets holds the newest
# bucket; allnext leads to older ones.
import re
import struct
import subprocess

HDR_BYTES = 48
ALLNEXT, TYP, NSTK = 8, 16, 40
PAGE = 4096


def symbols(go, binary):
    """A binary's symbols and their addresses (go tool nm)."""
    out = subprocess.run([go, "tool", "nm", binary], capture_output=True,
                         text=True, check=True).stdout
    return {f[2]: int(f[0], 16) for f in map(str.split, out.splitlines())
            if len(f) == 3}


def symbol(go, binary, name):
    """The address of symbol name in a non-PIE binary."""
    try:
        return symbols(go, binary)[name]
    except KeyError:
        raise LookupError(f"{binary} has no symbol {name}") from None


def record_bytes(go, binary):
    """sizeof(memRecord) of the Go release that built binary."""
    out = subprocess.run([go, "version", binary], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"go1\.(\d+)", out)
    if not m:
        raise LookupError(f"no Go version in {out!r}")
    return 64 if int(m.group(1)) >= 27 else 128


class Buckets:
    """The bucket list of process pid, whose runtime.mbuckets is at head."""

    def __init__(self, pid, head, rec_bytes):
        self.pid = pid
        self.head = head
        self.rec_bytes = rec_bytes
        self.mem = open(f"/proc/{pid}/mem", "r+b", buffering=0)

    def close(self):
        self.mem.close()

    def read(self, addr, n):
        self.mem.seek(addr)
        return self.mem.read(n)

    def word(self, addr):
        return struct.unpack("<Q", self.read(addr, 8))[0]

    def put(self, addr, value):
        """Write one word; returns the word it replaced."""
        old = self.word(addr)
        self.mem.seek(addr)
        self.mem.write(struct.pack("<Q", value))
        return old

    def walk(self, limit=1 << 20):
        """The bucket addresses in allnext order."""
        out, b = [], self.word(self.head)
        while b and len(out) < limit:
            out.append(b)
            b = self.word(b + ALLNEXT)
        return out

    def record(self, b):
        """The address of bucket b's memRecord."""
        return b + HDR_BYTES + 8 * self.word(b + NSTK)

    def spans(self):
        """The target's mappings as sorted (start, end, perms)."""
        out = []
        with open(f"/proc/{self.pid}/maps") as f:
            for line in f:
                rng, perms = line.split()[:2]
                lo, hi = rng.split("-")
                out.append((int(lo, 16), int(hi, 16), perms))
        return sorted(out)

    def before_gap(self):
        """An address 16 bytes before the end of a readable mapping that no
        mapping follows: a bucket header there runs into unmapped memory."""
        spans = self.spans()
        for (lo, hi, perms), nxt in zip(spans, spans[1:]):
            if perms.startswith("r") and nxt[0] > hi and hi < 1 << 47:
                return hi - 16
        raise RuntimeError("no readable mapping before a gap")

    def unmapped_after(self, addr):
        """A page-aligned address above addr that no mapping covers."""
        a = (addr + PAGE) & ~(PAGE - 1)
        for lo, hi, _ in self.spans():
            if lo <= a < hi:
                a = hi
        return a
