// Command pprofsrv is the test target of a program that serves its own
// net/http/pprof, for comparing goheap-bpf serve's answers with the
// process's own for the same snapshot. It builds a live heap under a few
// allocation stacks, publishes it with two collections, then serves
// /debug/pprof/ on 127.0.0.1 at a free port. Run it with GOGC=off: no
// collection then runs, so the published profile, which only a
// collection changes, stays the snapshot both answer from (the buckets
// that serving requests creates hold zeros until one would).
//
// It builds with every Go release from 1.18 on: no newer APIs.
//
// Environment:
//
//	PPROFSRV_READY  file written (atomically) with the port once it serves
//	PPROFSRV_RATE   runtime.MemProfileRate to set first thing (unset: keep)
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

var live [][]byte

//go:noinline
func small(i int) { live = append(live, make([]byte, 64+i%7*32)) }

//go:noinline
func medium(i int) { live = append(live, make([]byte, 4096+i%5*1024)) }

//go:noinline
func large(i int) { live = append(live, make([]byte, 256<<10)) }

//go:noinline
func dropped(i int) { _ = append([]byte(nil), make([]byte, 1024+i)...) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pprofsrv:", err)
	os.Exit(1)
}

func main() {
	if r, err := strconv.Atoi(os.Getenv("PPROFSRV_RATE")); err == nil {
		runtime.MemProfileRate = r
	}
	ready := os.Getenv("PPROFSRV_READY")
	if ready == "" {
		fmt.Fprintln(os.Stderr, "pprofsrv: set PPROFSRV_READY")
		os.Exit(2)
	}
	for i := 0; i < 4000; i++ {
		small(i)
		if i%4 == 0 {
			medium(i)
		}
		if i%400 == 0 {
			large(i)
		}
		dropped(i)
	}
	runtime.GC()
	runtime.GC()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	if err := os.WriteFile(ready+".tmp", []byte(port+"\n"), 0o644); err != nil {
		fail(err)
	}
	if err := os.Rename(ready+".tmp", ready); err != nil {
		fail(err)
	}
	fail(http.Serve(ln, nil))
}
