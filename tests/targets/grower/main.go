// Command grower is the watch tests' target: a Go program whose heap grows
// at one allocation site (main.growSite) when told to, over a small steady
// heap at another (main.steadySite), so that the largest in-use stack of a
// snapshot taken after it grew is known.
//
// Signals: SIGUSR1 allocates GROWER_STEP_MB (default 16) more MiB at
// main.growSite, every page written (so RSS and the cgroup's usage grow
// with it), then collects twice so the heap profile publishes it; SIGUSR2
// drops everything grown, collects and returns the memory to the kernel.
// After each it prints "grown N" (MiB held at growSite) on stdout. It
// prints "ready" once its handlers are installed.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"syscall"
)

var grown, steady [][]byte

//go:noinline
func growSite(mb int) {
	for i := 0; i < mb; i++ {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		grown = append(grown, b)
	}
}

//go:noinline
func steadySite() {
	for i := 0; i < 64; i++ {
		steady = append(steady, make([]byte, 64<<10))
	}
}

func main() {
	// Every allocation of 4 KiB on average sampled: the sizes are exact
	// enough to compare.
	runtime.MemProfileRate = 4096
	// Keep runtime/pprof linked in: without it the linker turns memory
	// profiling off.
	_ = pprof.Lookup("heap")
	step := 16
	if s, err := strconv.Atoi(os.Getenv("GROWER_STEP_MB")); err == nil && s > 0 {
		step = s
	}
	steadySite()
	sig := make(chan os.Signal, 16)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2)
	runtime.GC()
	runtime.GC()
	fmt.Println("ready")
	for s := range sig {
		if s == syscall.SIGUSR1 {
			growSite(step)
		} else {
			grown = nil
		}
		runtime.GC()
		runtime.GC()
		if s == syscall.SIGUSR2 {
			debug.FreeOSMemory()
		}
		fmt.Println("grown", len(grown))
	}
}
