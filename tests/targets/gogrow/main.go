// Command gogrow is the test target of the goroutine front ends (the
// sweep's GOROUTINES column, watch --goroutines-above, diff of two
// goroutine profiles): it parks GOGROW_START goroutines at main.parkSite,
// serves its own net/http/pprof on 127.0.0.1 at a free port, and at each
// SIGUSR1 parks GOGROW_STEP more at main.stepSite. After each change, once
// every new goroutine is parked, it writes runtime.NumGoroutine() and the
// number of steps taken to GOGROW_DIR/count ("goroutines N steps S",
// atomically): nothing else starts or ends a goroutine, so the count holds
// until the next signal (a connection to its endpoint adds its own while
// it is open).
//
// It builds with every Go release from 1.18 on: no newer APIs.
//
// Environment:
//
//	GOGROW_DIR    where port (written once it serves) and count go
//	GOGROW_START  goroutines parked at the start (default 10)
//	GOGROW_STEP   goroutines parked at each SIGUSR1 (default 100)
package main

import (
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

var block = make(chan struct{})

//go:noinline
func parkSite(wg *sync.WaitGroup) {
	wg.Done()
	<-block
}

//go:noinline
func stepSite(wg *sync.WaitGroup) {
	wg.Done()
	<-block
}

func env(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
		return v
	}
	return def
}

func write(dir, name, text string) {
	tmp := filepath.Join(dir, name+".tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		panic(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		panic(err)
	}
}

// park starts n goroutines at site and returns once each has run up to
// its channel receive; a short sleep after lets the last one's receive
// park it.
func park(n int, site func(*sync.WaitGroup)) {
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		go site(&wg)
	}
	wg.Wait()
	time.Sleep(50 * time.Millisecond)
}

func main() {
	dir := os.Getenv("GOGROW_DIR")
	step := env("GOGROW_STEP", 100)
	sig := make(chan os.Signal, 16)
	signal.Notify(sig, syscall.SIGUSR1)
	park(env("GOGROW_START", 10), parkSite)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go http.Serve(ln, nil)
	time.Sleep(50 * time.Millisecond)
	write(dir, "count", fmt.Sprintf("goroutines %d steps 0\n", runtime.NumGoroutine()))
	write(dir, "port", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	for steps := 1; ; steps++ {
		<-sig
		park(step, stepSite)
		write(dir, "count", fmt.Sprintf("goroutines %d steps %d\n", runtime.NumGoroutine(), steps))
	}
}
