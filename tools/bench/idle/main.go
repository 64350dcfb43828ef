// Command idle is the watch bench's monitored process: a Go program with a
// small heap (a few hundred profile buckets) that does nothing once
// started, so that what is measured is the watcher, not its targets, and
// a thousand of them fit in a few GiB. It prints "ready" once its heap is
// built and then waits for SIGTERM.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
)

var keep [][]byte

//go:noinline
func site(n int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, 512))
	}
}

func main() {
	// Every allocation sampled, as benchgen's: a heap profile to find.
	runtime.MemProfileRate = 1
	// Keep runtime/pprof linked in: without it the linker turns memory
	// profiling off, and the watch would have nothing to read.
	_ = pprof.Lookup("heap")
	site(256)
	runtime.GC()
	runtime.GC()
	// Waiting on a signal, not select {}: a Go program with every
	// goroutine blocked and no signal handler is a deadlock, and dies.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	fmt.Println("ready")
	<-sig
}
