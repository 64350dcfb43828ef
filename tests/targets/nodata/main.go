// Command nodata is a target for goheap-bpf's error tests: a Go program
// with memory profiling enabled that has published no heap-profile data,
// runtime.mbuckets still nil. Run it with GODEBUG=profstackdepth=0 (Go
// 1.23+): the runtime then records no stack and creates no bucket for any
// sampled allocation. (GODEBUG=memprofilerate is not enough: the first P
// draws its first sampling point before GODEBUG is parsed, and 1.18–1.19
// reset MemProfileRate in the runtime's package init.) The program asks
// its own runtime how many buckets exist, prints "ready buckets=N" — a
// test needs N = 0 — then allocates nothing and idles forever. Builds
// with every Go release from 1.17 on.
package main

import (
	"os"
	"runtime"
	"strconv"
	"time"
)

func main() {
	line := make([]byte, 0, 64)
	// MemProfile(nil, true) counts every bucket without copying any; using
	// it also keeps memory profiling linked in.
	n, _ := runtime.MemProfile(nil, true)
	line = append(line, "ready buckets="...)
	line = strconv.AppendInt(line, int64(n), 10)
	line = append(line, '\n')
	os.Stdout.Write(line)
	for {
		time.Sleep(time.Hour)
	}
}
