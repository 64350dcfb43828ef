// Command leak is the diff test's target: a Go program that leaks at one
// allocation site and holds a steady heap at others, so that two
// snapshots some time apart differ most at the leak. Every 10 ms it adds
// 16 KiB to a slice it never frees (leakSite), replaces one of 64
// buffers it keeps (steadyRing: in-use bytes stay put), rewrites the
// values of a fixed set of map keys (steadyMap), and allocates garbage
// (churn) so that the collector cycles by itself and the published
// profile moves on.
//
// It builds with every Go release from 1.18 on: no newer APIs.
//
// Environment:
//
//	LEAK_RATE     runtime.MemProfileRate to set first thing (unset: keep)
//	LEAK_PROFILE  on SIGUSR1 its own heap profile goes to LEAK_PROFILE.N,
//	              N = 1, 2, ... (each written whole, then renamed); on
//	              SIGUSR2 a 200 ms CPU profile to LEAK_PROFILE.cpu
//	LEAK_READY    file created once the steady heap is built
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"
)

var (
	leaked [][]byte
	ring   [64][]byte
	table  = map[int][]byte{}
	sink   []byte
)

//go:noinline
func leakSite() { leaked = append(leaked, make([]byte, 16<<10)) }

//go:noinline
func steadyRing(i int) { ring[i%len(ring)] = make([]byte, 8<<10) }

//go:noinline
func steadyMap(i int) { table[i%32] = make([]byte, 4<<10) }

//go:noinline
func churn() { sink = make([]byte, 256<<10) }

// write runs f into path, whole: a temporary file renamed over it.
func write(path string, f func(*os.File) error) {
	tmp, err := os.Create(path + ".tmp")
	if err == nil {
		err = f(tmp)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = os.Rename(path+".tmp", path)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "leak:", err)
		os.Exit(1)
	}
}

func cpuProfile(f *os.File) error {
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	for end := time.Now().Add(200 * time.Millisecond); time.Now().Before(end); {
		churn()
	}
	pprof.StopCPUProfile()
	return nil
}

func main() {
	if s := os.Getenv("LEAK_RATE"); s != "" {
		r, err := strconv.Atoi(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, "leak: bad LEAK_RATE:", s)
			os.Exit(2)
		}
		runtime.MemProfileRate = r
	}
	prof := os.Getenv("LEAK_PROFILE")
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2)
	for i := 0; i < len(ring); i++ {
		steadyRing(i)
		steadyMap(i)
	}
	if ready := os.Getenv("LEAK_READY"); ready != "" {
		write(ready, func(*os.File) error { return nil })
	}
	n := 0
	tick := time.NewTicker(10 * time.Millisecond)
	for i := 0; ; i++ {
		select {
		case s := <-sigs:
			if s == syscall.SIGUSR2 {
				write(prof+".cpu", cpuProfile)
				continue
			}
			n++
			write(prof+"."+strconv.Itoa(n), func(f *os.File) error { return pprof.WriteHeapProfile(f) })
		case <-tick.C:
			leakSite()
			steadyRing(i)
			steadyMap(i)
			churn()
		}
	}
}
