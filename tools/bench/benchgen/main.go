// benchgen is the benchmark's target: a Go program whose heap profile has
// about BENCHGEN_BUCKETS buckets (distinct allocation stacks), sampled at
// MemProfileRate 1, serving its own /debug/pprof/heap for comparison.
// With BENCHGEN_CHURN_MBPS it then allocates that many megabytes of
// garbage a second (sampled at the default rate) for the busy rows, and
// with BENCHGEN_CHURN_GC_MS as well, sets GOGC so that the garbage
// brings a GC cycle about that often.
//
// The stacks are about as deep as those of the target the benchmark's
// issue was measured on (about 200k buckets holding 3.2M stack words): level
// calls itself from one of four call sites, chosen by two bits of the id,
// so 4^depth ids reach the allocation through distinct stacks of depth+1
// level frames, plus main's and the runtime's. With BENCHGEN_WIDE=1 the
// stacks differ in their functions instead: each of the id's base-64 digits
// picks one of the 64 functions of wide.go, each calling step, so 64^depth
// ids reach the allocation through distinct sequences of functions
// (about 70 functions and 70 locations in all).
package main

import (
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"
)

var keep [][]byte

//go:noinline
func level(id, depth int) {
	if depth == 0 {
		keep = append(keep, make([]byte, 16+id%4*16))
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

//go:noinline
func step(id, depth int) {
	if depth == 0 {
		keep = append(keep, make([]byte, 16+id%4*16))
		return
	}
	wide[id>>(6*(depth-1))&63](id, depth-1)
}

// tickOnSignal wakes the program up a hundred times a second from one
// SIGUSR1 to the next: the perf backend reads from the target's own context
// switches, which an idle program does not make, and the benchmark wants
// the program idle for every other reader.
func tickOnSignal(sig chan os.Signal) {
	var ticker *time.Ticker
	var tick <-chan time.Time
	for {
		select {
		case <-sig:
			if ticker == nil {
				ticker = time.NewTicker(10 * time.Millisecond)
				tick = ticker.C
			} else {
				ticker.Stop()
				ticker, tick = nil, nil
			}
		case <-tick:
		}
	}
}

var garbage []byte

// paceGC sets GOGC so that mbps megabytes of garbage a second reach the
// heap goal about every ms milliseconds: the goal is the live heap times
// 1+GOGC/100, and a cycle comes once the garbage has filled the gap.
func paceGC(mbps, ms int) {
	var st runtime.MemStats
	runtime.ReadMemStats(&st)
	gap := float64(mbps) * (1 << 20) * float64(ms) / 1000
	if pct := int(100 * gap / float64(st.HeapAlloc)); pct > 0 {
		debug.SetGCPercent(pct)
	}
}

// churn allocates mbps megabytes of garbage a second, in 64 KiB pieces
// paced over 10 ms slices, for the busy rows: the collector then runs by
// itself, about every live heap's worth of garbage.
func churn(mbps int) {
	const piece = 64 << 10
	perSlice := mbps << 20 / 100 / piece
	if perSlice < 1 {
		perSlice = 1
	}
	for {
		start := time.Now()
		for i := 0; i < perSlice; i++ {
			garbage = make([]byte, piece)
		}
		if d := 10*time.Millisecond - time.Since(start); d > 0 {
			time.Sleep(d)
		}
	}
}

func main() {
	runtime.MemProfileRate = 1
	n, err := strconv.Atoi(os.Getenv("BENCHGEN_BUCKETS"))
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "benchgen: set BENCHGEN_BUCKETS to a positive number")
		os.Exit(2)
	}
	bits, grow := 2, level
	if os.Getenv("BENCHGEN_WIDE") == "1" {
		bits, grow = 6, step
	}
	depth := 0
	for 1<<(bits*depth) < n {
		depth++
	}
	for id := 0; id < n; id++ {
		grow(id, depth)
	}
	runtime.GC()
	runtime.GC()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(1)
	}
	// Before the address is printed (the program's "ready"): a SIGUSR1
	// sent on it must find the handler, not the default, which ends it.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go tickOnSignal(sig)
	if mbps, err := strconv.Atoi(os.Getenv("BENCHGEN_CHURN_MBPS")); err == nil && mbps > 0 {
		// Sample the garbage as a busy service's would be, not each piece.
		runtime.MemProfileRate = 512 << 10
		if ms, err := strconv.Atoi(os.Getenv("BENCHGEN_CHURN_GC_MS")); err == nil && ms > 0 {
			paceGC(mbps, ms)
		}
		go churn(mbps)
	}
	fmt.Println(ln.Addr().String())
	http.Serve(ln, nil)
}
