// benchgen is the benchmark's target: a Go program whose heap profile has
// about BENCHGEN_BUCKETS buckets (distinct allocation stacks), sampled at
// MemProfileRate 1, serving its own /debug/pprof/heap for comparison.
package main

import (
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"strconv"
)

var keep [][]byte

// Each level calls one of two functions chosen by a bit of id, so ids
// 0..2^depth-1 reach the allocation through 2^depth distinct stacks.
//
//go:noinline
func a(id, depth int) {
	if depth == 0 {
		keep = append(keep, make([]byte, 16))
		return
	}
	step(id, depth-1)
}

//go:noinline
func b(id, depth int) {
	if depth == 0 {
		keep = append(keep, make([]byte, 32))
		return
	}
	step(id, depth-1)
}

//go:noinline
func step(id, depth int) {
	if id>>depth&1 == 0 {
		a(id, depth)
	} else {
		b(id, depth)
	}
}

func main() {
	runtime.MemProfileRate = 1
	n, err := strconv.Atoi(os.Getenv("BENCHGEN_BUCKETS"))
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "benchgen: set BENCHGEN_BUCKETS to a positive number")
		os.Exit(2)
	}
	depth := 0
	for 1<<depth < n {
		depth++
	}
	for id := 0; id < n; id++ {
		step(id, depth)
	}
	runtime.GC()
	runtime.GC()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().String())
	http.Serve(ln, nil)
}
