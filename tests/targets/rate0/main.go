// Command rate0 is a target for goheap-bpf's error tests: a Go program that
// keeps memory profiling linked in (it can write a heap profile) but turns
// sampling off itself, runtime.MemProfileRate = 0, first thing in main. It
// prints "ready rate=0" and idles forever. Builds with every Go release
// from 1.17 on.
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"
)

func main() {
	runtime.MemProfileRate = 0
	// Never true in the tests; it keeps runtime/pprof's heap profile
	// reachable, so the linker leaves profiling enabled.
	if len(os.Args) > 1 && os.Args[1] == "-write-profile" {
		if err := pprof.Lookup("heap").WriteTo(os.Stdout, 0); err != nil {
			os.Exit(1)
		}
	}
	os.Stdout.WriteString("ready rate=" + strconv.Itoa(runtime.MemProfileRate) + "\n")
	for {
		time.Sleep(time.Hour)
	}
}
