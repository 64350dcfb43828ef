// Command oomgrow is the OOM test's target: a Go program that grows at
// one allocation site (main.grow, 1 MiB a step, every page written so
// that it is resident) until the kernel OOM-kills it, and writes its own
// heap profile at every checkpoint, so that the profile taken at its
// death can be compared with the last one it wrote.
//
// It builds with every Go release from 1.18 on: no newer APIs.
//
// Environment:
//
//	OOMGROW_RATE     runtime.MemProfileRate to set first thing (unset: keep)
//	OOMGROW_PROFILE  its heap profile, rewritten whole (a temporary file
//	                 renamed over it) every OOMGROW_STEP_MB MiB (default 4)
//	OOMGROW_READY    file created once it runs, before it grows, holding
//	                 its PID
//	OOMGROW_GO       file it waits for before it grows
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"
)

var held [][]byte

// grow holds one more MiB, every page of it written.
//
//go:noinline
func grow() {
	b := make([]byte, 1<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	held = append(held, b)
}

// checkpoint writes the heap profile to path, whole, after a GC of its
// own. The heap profile is the last completed GC cycle's: without one here,
// the cycle an automatic GC completes between two checkpoints (its trigger
// is reached near the cgroup's limit, and the kill often follows it)
// would be in the victim's profile and in no checkpoint. After
// runtime.GC the last completed cycle is the checkpoint's, and the next
// automatic one is a doubling of the live heap away, so the victim's
// profile is the last checkpoint's cycle, or the one being collected for
// the next checkpoint (one step more).
func checkpoint(path string) {
	runtime.GC()
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return
	}
	if pprof.WriteHeapProfile(f) == nil && f.Close() == nil {
		os.Rename(path+".tmp", path)
	}
}

func waitFor(path string) {
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func main() {
	if r, err := strconv.Atoi(os.Getenv("OOMGROW_RATE")); err == nil {
		runtime.MemProfileRate = r
	}
	step := 4
	if s, err := strconv.Atoi(os.Getenv("OOMGROW_STEP_MB")); err == nil && s > 0 {
		step = s
	}
	profile := os.Getenv("OOMGROW_PROFILE")
	if ready := os.Getenv("OOMGROW_READY"); ready != "" {
		os.WriteFile(ready, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	if g := os.Getenv("OOMGROW_GO"); g != "" {
		waitFor(g)
	}
	for n := 1; ; n++ {
		grow()
		if profile != "" && n%step == 0 {
			checkpoint(profile)
		}
		time.Sleep(time.Millisecond)
	}
}
