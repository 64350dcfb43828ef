// Command goroutines is the test target of the goroutine profile: it
// parks goroutines in known states, then serves its own net/http/pprof
// (/debug/pprof/goroutine) on 127.0.0.1 at a free port, for comparing
// goheap-bpf's goroutine texts with the process's own. Once everything
// is parked nothing changes: every goroutine waits for good.
//
// It builds with every Go release from 1.18 on: no newer APIs.
//
// The goroutines, and where each waits:
//   - chan receive and chan send (two each, one stack), select, sleep
//   - sync.Mutex, sync.RWMutex (a reader and a writer), sync.Cond,
//     sync.WaitGroup
//   - a read of a pipe (in a system call: os.File of a pipe is blocking
//     when opened with syscall.Pipe), a net.Conn read (netpoll)
//   - one nested several calls deep, one locked to its thread, and two
//     with pprof labels (one with characters labels quote)
//
// With GOROUTINES_CHURN=N it is a busy target as well: N loops start
// goroutines all the time, each going a random depth down (1 to 20
// calls), then parking briefly, spinning or just returning; two spin
// forever (running whenever they are read).
//
// With GOROUTINES_PARKED=N it is a leak as well: N more goroutines wait
// for good on one channel, at 0 to 7 calls deep (eight stacks in all),
// the shape of a leak at scale for the bound tests and the benchmark.
//
// GET /grow?n=N on its own server starts N more goroutines, all on one
// stack and labelled grown=N, and answers once they are parked: a
// goroutine count that changes by a known amount when the test says
// (a ?seconds=N delta taken around it).
//
// Environment:
//
//	GOROUTINES_READY  file written (atomically) with the port once all are
//	                  parked and it serves
//	HEAPGEN_READY     the same when GOROUTINES_READY is not set: built as
//	                  a c-shared library (tests/targets/build.sh c-shared),
//	                  whose HeapgenRun sets it, each library its own
//	GOROUTINES_CHURN  loops that start goroutines all the time (default 0)
//	GOROUTINES_PARKED goroutines parked in parkDeep (default 0)
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"time"
)

var (
	never   = make(chan int)
	full    = make(chan int)
	mu      sync.Mutex
	rw      sync.RWMutex
	rwr     sync.RWMutex
	cond    = sync.NewCond(&sync.Mutex{})
	wg      sync.WaitGroup
	started sync.WaitGroup
)

//go:noinline
func recvForever() { started.Done(); <-never }

//go:noinline
func sendForever() { started.Done(); full <- 1 }

//go:noinline
func selectForever() {
	started.Done()
	select {
	case <-never:
	case full <- 2:
	}
}

//go:noinline
func sleepForever() { started.Done(); time.Sleep(1000 * time.Hour) }

//go:noinline
func lockForever() { started.Done(); mu.Lock() }

//go:noinline
func rlockForever() { started.Done(); rw.RLock() }

//go:noinline
func wlockForever() { started.Done(); rwr.Lock() }

//go:noinline
func condForever() {
	cond.L.Lock()
	started.Done()
	cond.Wait()
}

//go:noinline
func waitForever() { started.Done(); wg.Wait() }

//go:noinline
func pipeForever(fd int) {
	started.Done()
	var b [1]byte
	syscall.Read(fd, b[:])
}

//go:noinline
func connForever(c net.Conn) {
	started.Done()
	var b [1]byte
	c.Read(b[:])
}

//go:noinline
func nest1(n int) { nest2(n + 1) }

//go:noinline
func nest2(n int) { nest3(n + 1) }

//go:noinline
func nest3(n int) { nest4(n + 1) }

//go:noinline
func nest4(n int) {
	started.Done()
	if n > 0 {
		<-never
	}
}

//go:noinline
func lockedForever() {
	runtime.LockOSThread()
	started.Done()
	<-never
}

//go:noinline
func labelled(kind string) {
	pprof.Do(context.Background(), pprof.Labels("kind", kind, "job", "7"),
		func(context.Context) { started.Done(); <-never })
}

// grown: /grow's goroutines wait here for good.
var grown sync.WaitGroup

//go:noinline
func grownForever(n string) {
	pprof.Do(context.Background(), pprof.Labels("grown", n),
		func(context.Context) { grown.Done(); <-never })
}

func grow(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.FormValue("n"))
	if err != nil || n <= 0 || n > 100000 {
		http.Error(w, "want ?n= a count from 1 to 100000", http.StatusBadRequest)
		return
	}
	grown.Add(n)
	for i := 0; i < n; i++ {
		go grownForever(r.FormValue("n"))
	}
	grown.Wait()
	// as main does: let each reach its wait
	for i := 0; i < 20; i++ {
		runtime.Gosched()
		time.Sleep(2 * time.Millisecond)
	}
	fmt.Fprintf(w, "%d started\n", n)
}

var sink int

//go:noinline
func down(n, how int) int {
	if n > 0 {
		return down(n-1, how) + 1
	}
	switch how % 4 {
	case 0:
		time.Sleep(time.Duration(how%3) * time.Millisecond)
	case 1:
		select {
		case <-never:
		case <-time.After(time.Millisecond):
		}
	case 2:
		for i := 0; i < 10000*how; i++ {
			sink += i
		}
	}
	return 0
}

func churn(loops int) {
	for i := 0; i < loops; i++ {
		go func(seed int) {
			for {
				var wg sync.WaitGroup
				for k := 0; k < 20; k++ {
					seed = seed*1103515245 + 12345
					wg.Add(1)
					go func(s int) {
						defer wg.Done()
						down(s%20+1, s/20%7)
					}(seed & 0x7fffffff)
				}
				wg.Wait()
			}
		}(i + 1)
	}
	for i := 0; i < 2; i++ {
		go func() {
			for {
				sink++
			}
		}()
	}
}

// parkDeep waits on never d calls down.
//
//go:noinline
func parkDeep(d int, ready *sync.WaitGroup) {
	if d > 0 {
		parkDeep(d-1, ready)
		return
	}
	ready.Done()
	<-never
}

func park(n int) {
	var ready sync.WaitGroup
	ready.Add(n)
	for i := 0; i < n; i++ {
		go parkDeep(i%8, &ready)
	}
	ready.Wait()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "goroutines:", err)
	os.Exit(1)
}

func main() {
	mu.Lock()
	rw.Lock()
	rwr.RLock()
	wg.Add(1)
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	peer, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		fail(err)
	}
	conn, err := ln.Accept()
	if err != nil {
		fail(err)
	}
	_ = peer
	ln.Close()

	fns := []func(){recvForever, recvForever, sendForever, sendForever,
		selectForever, sleepForever, lockForever, rlockForever,
		wlockForever, condForever, waitForever,
		func() { pipeForever(p[0]) }, func() { connForever(conn) },
		func() { nest1(1) }, lockedForever, func() { labelled("a") },
		func() { labelled("b") }, func() { labelled("c d\"é\t") }}
	started.Add(len(fns))
	for _, f := range fns {
		go f()
	}
	started.Wait()
	// Let each reach its wait: the last steps after Done are short.
	for i := 0; i < 50; i++ {
		runtime.Gosched()
		time.Sleep(2 * time.Millisecond)
	}

	if n, _ := strconv.Atoi(os.Getenv("GOROUTINES_PARKED")); n > 0 {
		park(n)
	}
	if n, _ := strconv.Atoi(os.Getenv("GOROUTINES_CHURN")); n > 0 {
		churn(n)
	}
	srv, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	port := srv.Addr().(*net.TCPAddr).Port
	ready := os.Getenv("GOROUTINES_READY")
	if ready == "" {
		ready = os.Getenv("HEAPGEN_READY")
	}
	if ready != "" {
		tmp := ready + ".tmp"
		if err := os.WriteFile(tmp, []byte(strconv.Itoa(port)), 0o644); err != nil {
			fail(err)
		}
		if err := os.Rename(tmp, ready); err != nil {
			fail(err)
		}
	}
	http.HandleFunc("/grow", grow)
	fail(http.Serve(srv, nil))
}
