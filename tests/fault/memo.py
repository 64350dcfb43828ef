#!/usr/bin/env python3
# memo.py - a server's repeated reads of one process (goheap-bpf serve
# keeps its bucket stacks and, from its second read on, each sample's
# locations: profile/locmemo.h) while the test changes the process's
# bucket list under it in the middle, where Go never changes it: one
# bucket's allnext made to skip the next bucket (the Go program is not
# harmed: only profile readers follow allnext), then put back. A kept
# read then takes the kept locations up to the change and builds the
# buckets after it on the kept tables; each served profile must equal a
# fresh read's (goheap-bpf --pid, nothing kept) and, once the list is
# whole again, the target's own (cmpprof).
#
#   memo.py TOOL HEAPGEN GO CMPPROF WORKDIR
import os
import re
import subprocess
import sys
import time
import urllib.request

import buckets
import faultlib


class Server:
    """goheap-bpf serve for processes named like heapgen."""

    def __init__(self, tool, workdir):
        self.log = open(os.path.join(workdir, "serve.log"), "w+")
        self.p = subprocess.Popen([tool, "serve", "--listen", "127.0.0.1:0",
                                   "--comm", "^heapgen$"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=self.log)
        self.port = None
        for _ in range(300):
            self.log.seek(0)
            m = re.search(r"serving on http://127\.0\.0\.1:(\d+)/", self.log.read())
            if m:
                self.port = m.group(1)
                return
            if self.p.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("the server did not start")

    def heap(self, pid, out):
        """pid's heap profile, served, into out: '' or why it failed."""
        url = f"http://127.0.0.1:{self.port}/pid/{pid}/debug/pprof/heap"
        try:
            with urllib.request.urlopen(url, timeout=60) as r, open(out, "wb") as f:
                f.write(r.read())
        except OSError as e:
            return f"GET {url}: {e}"
        return ""

    def stop(self):
        faultlib.stop(self.p)
        self.log.close()


class Suite:
    def __init__(self, argv):
        self.tool, self.heapgen, self.go, self.cmpprof, self.dir = argv
        self.t = faultlib.Tally("memo")

    def same(self, a, b):
        """'' when cmpprof finds profiles a and b equal."""
        r = subprocess.run([self.cmpprof, a, b], capture_output=True, text=True)
        return "" if r.returncode == 0 else (r.stdout + r.stderr)[-400:]

    def read(self, name, own=False):
        """A served read against a fresh one (and the target's own)."""
        served = os.path.join(self.dir, name + ".served.pb.gz")
        why = self.srv.heap(self.pid, served)
        fresh = faultlib.run_tool(self.tool, self.pid, "iter",
                                  os.path.join(self.dir, name + ".fresh.pb.gz"))
        why = why or faultlib.sanity(fresh)
        if not why and fresh.status:
            why = f"fresh read: exit {fresh.status}: {fresh.reason()}"
        why = why or self.same(fresh.out, served)
        if not why and own:
            why = self.same(os.path.join(self.dir, "target.own.pb.gz"), served)
        self.t.check(name, why)

    def main(self):
        target = faultlib.start_heapgen(self.heapgen, self.dir, "target")
        self.pid = target.pid
        self.srv = None
        try:
            self.srv = Server(self.tool, self.dir)
            bl = buckets.Buckets(self.pid, buckets.symbol(self.go, self.heapgen, "runtime.mbuckets"),
                                 buckets.record_bytes(self.go, self.heapgen))
            chain = bl.walk()
            k = len(chain) // 2
            self.t.note(f"target {self.pid}: {len(chain)} buckets, bucket {k} skips bucket {k + 1}")
            self.read("first", own=True)     # stacks kept
            self.read("second", own=True)    # locations recorded
            self.read("followed", own=True)  # locations taken
            undo = [(chain[k] + buckets.ALLNEXT, bl.put(chain[k] + buckets.ALLNEXT, chain[k + 2]))]
            try:
                self.read("skipped")          # taken up to bucket k, then built
                self.read("skipped-again")    # all taken
            finally:
                for a, v in undo:
                    bl.put(a, v)
            self.read("restored", own=True)  # bucket k + 1 built, the rest taken
            self.t.check("unharmed", "" if bl.walk() == chain and target.poll() is None
                         else "the target's list or the target itself did not survive")
        finally:
            if self.srv:
                self.srv.stop()
            faultlib.stop(target)
        return self.t.done()


if __name__ == "__main__":
    sys.exit(Suite(sys.argv[1:]).main())
