// Command noprof is a target for goheap-bpf's error tests: a Go program
// that reaches nothing of runtime/pprof or runtime.MemProfile, so the
// linker sets runtime.disableMemoryProfiling and the runtime turns heap
// sampling off at start. It prints "ready rate=N" (N = the
// runtime.MemProfileRate it sees, 0 when the runtime disabled profiling)
// and idles forever. Builds with every Go release from 1.17 on.
package main

import (
	"os"
	"runtime"
	"strconv"
	"time"
)

func main() {
	os.Stdout.WriteString("ready rate=" + strconv.Itoa(runtime.MemProfileRate) + "\n")
	for {
		time.Sleep(time.Hour)
	}
}
