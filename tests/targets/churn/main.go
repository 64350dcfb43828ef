// Command churn is the test target of a busy program: it keeps a live heap
// reached through CHURN_STACKS distinct allocation stacks, then allocates
// garbage continuously at CHURN_MBPS megabytes a second, so that the
// garbage collector runs by itself, about every live-heap's worth of
// garbage (GOGC=100): the test chooses the GC period through the rate.
// It never calls runtime.GC, whose post-sweep flush would change the
// published profile within a cycle.
//
// It builds with every Go release from 1.18 on: no newer APIs.
//
// Environment:
//
//	CHURN_STACKS   distinct stacks holding the live heap (default 2000)
//	CHURN_MBPS     garbage allocation rate in MB/s (default 20)
//	CHURN_PROFILE  where to write its own heap profile on SIGUSR1
//	CHURN_GROW     new live stacks a second, each allocating once, the
//	               profile rate kept at 1 so that each is sampled (default
//	               0: the live heap's stacks are all made before "ready")
//
// It prints "ready" once the live heap is built. On SIGUSR2 it writes its
// GC count to CHURN_PROFILE.gc0; on SIGUSR1 it writes "G1 G2" to
// CHURN_PROFILE.gc, the GC counts just before and just after it wrote its
// heap profile to CHURN_PROFILE, the collector off meanwhile (each file
// written whole, then renamed).
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
	"time"
)

var live [][]byte

//go:noinline
func level(id, depth int) {
	if depth == 0 {
		live = append(live, make([]byte, 64+id%8*64))
		return
	}
	switch id >> (2 * (depth - 1)) & 3 {
	case 0:
		level(id, depth-1)
	case 1:
		level(id, depth-1)
	case 2:
		level(id, depth-1)
	default:
		level(id, depth-1)
	}
}

var sink []byte

//go:noinline
func garbage(n int) { sink = make([]byte, n) }

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// numGC is the number of completed GC cycles. ReadMemStats stops the
// world, but not for a GC.
func numGC() uint32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.NumGC
}

// writeFile writes data to path whole: a temporary file, then a rename.
func writeFile(path string, data []byte) {
	if err := os.WriteFile(path+".tmp", data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "churn:", err)
		os.Exit(1)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		fmt.Fprintln(os.Stderr, "churn:", err)
		os.Exit(1)
	}
}

// ownProfile writes the heap profile with the collector off: writing it
// allocates, and a GC it triggered would move the GC count past the
// records it wrote (no GC changes them once MemProfile copied them, but
// the test could not tell).
func ownProfile(path string) {
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	g1 := numGC()
	f, err := os.Create(path + ".part")
	if err == nil {
		err = pprof.WriteHeapProfile(f)
		f.Close()
	}
	g2 := numGC()
	if err == nil {
		err = os.Rename(path+".part", path)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "churn:", err)
		os.Exit(1)
	}
	writeFile(path+".gc", []byte(fmt.Sprintf("%d %d\n", g1, g2)))
}

func signals(profile string, sig chan os.Signal) {
	for s := range sig {
		if s == syscall.SIGUSR2 {
			writeFile(profile+".gc0", []byte(fmt.Sprintf("%d\n", numGC())))
		} else {
			ownProfile(profile)
		}
	}
}

func main() {
	stacks := envInt("CHURN_STACKS", 2000)
	mbps := envInt("CHURN_MBPS", 20)
	grow := envInt("CHURN_GROW", 0)
	profile := os.Getenv("CHURN_PROFILE")
	if profile == "" {
		fmt.Fprintln(os.Stderr, "churn: set CHURN_PROFILE")
		os.Exit(2)
	}
	// Every stack of the live heap sampled; the garbage far less often.
	runtime.MemProfileRate = 1
	// Room for ten minutes of growth.
	depth := 0
	for 1<<(2*depth) < stacks+grow*600 {
		depth++
	}
	for id := 0; id < stacks; id++ {
		level(id, depth)
	}
	if grow == 0 {
		runtime.MemProfileRate = 64 << 10
	}
	// Before "ready": a signal sent on it must find the handler, not
	// SIGUSR2's default, which ends the process.
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2)
	go signals(profile, sig)
	fmt.Println("ready")
	// 64 KiB of garbage a step, paced to mbps in 10 ms slices (slices
	// of one step, longer, below 6.4 MB/s).
	const chunk = 64 << 10
	perSlice := mbps << 20 / 100 / chunk
	slice := 10 * time.Millisecond
	if perSlice < 1 {
		perSlice = 1
		slice = time.Second * chunk / time.Duration(mbps<<20)
	}
	next, made := stacks, 0
	begun := time.Now()
	for {
		start := time.Now()
		for i := 0; i < perSlice; i++ {
			garbage(chunk)
		}
		// The stacks due by now, while the ids last.
		for due := int(time.Since(begun).Seconds() * float64(grow)); made < due && next < 1<<(2*depth); made++ {
			level(next, depth)
			next++
		}
		if d := slice - time.Since(start); d > 0 {
			time.Sleep(d)
		}
	}
}
