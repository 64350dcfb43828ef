// Command contend is blockmutex.sh's target: a Go program whose block and
// mutex profiles exercise what goheap-bpf has to reproduce. It turns both
// profiles on (runtime.SetBlockProfileRate(1), SetMutexProfileFraction(1))
// unless CONTEND_OFF is set, then makes real contention from several call
// sites: channel sends and receives, selects, a sync.Mutex fought over by
// goroutines at three sites (one through an inlined helper, one through
// two), sync.WaitGroup and sync.Cond waits. It keeps contending until asked
// to stop, and writes its own profiles (runtime/pprof, debug=0: the
// reference answer) whenever asked.
//
// Requests are files in CONTEND_DIR, polled with time.Sleep (which records
// no block event), so that asking for a profile adds nothing to it:
//
//	req-N    write block-N.pb.gz and mutex-N.pb.gz, and their debug=1
//	         texts block-N.txt and mutex-N.txt, then done-N
//	stop     stop contending: every worker returns; then stopped
//
// It builds with every Go release from 1.18 on: no newer APIs.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

var stop int32

func stopped() bool { return atomic.LoadInt32(&stop) != 0 }

// ---- channels ----

//go:noinline
func producer(c chan<- int) {
	for i := 0; !stopped(); i++ {
		c <- i
	}
	close(c)
}

//go:noinline
func slowConsumer(c <-chan int) {
	for range c {
		time.Sleep(50 * time.Microsecond)
	}
}

// recvOne is small enough to be inlined into its callers: its receive
// carries an inline-tree frame.
func recvOne(c <-chan int) int { return <-c }

//go:noinline
func pingPong(ping, pong chan int) {
	for !stopped() {
		ping <- 1
		recvOne(pong)
	}
	close(ping)
}

//go:noinline
func ponger(ping, pong chan int) {
	for range ping {
		time.Sleep(20 * time.Microsecond)
		pong <- 1
	}
}

//go:noinline
func selector(a, b chan int, done chan struct{}) {
	for {
		select {
		case <-a:
		case <-b:
		case <-done:
			return
		}
	}
}

//go:noinline
func ticker(a, b chan int) {
	for i := 0; !stopped(); i++ {
		time.Sleep(100 * time.Microsecond)
		if i%2 == 0 {
			a <- i
		} else {
			b <- i
		}
	}
}

// ---- mutexes ----

var mu sync.Mutex
var shared int

// lockWork and lockTwice are inlined: the Unlock that records the mutex
// event sits in inlined code.
func lockWork(n int) {
	mu.Lock()
	for i := 0; i < n; i++ {
		shared += i
	}
	mu.Unlock()
}

func lockTwice(n int) { lockWork(n); lockWork(n / 2) }

//go:noinline
func mutexSiteA() {
	for !stopped() {
		lockWork(2000)
	}
}

//go:noinline
func mutexSiteB() {
	for !stopped() {
		lockTwice(3000)
	}
}

//go:noinline
func mutexSiteC() {
	for !stopped() {
		mu.Lock()
		time.Sleep(10 * time.Microsecond)
		mu.Unlock()
	}
}

// ---- sync.Cond and WaitGroup ----

//go:noinline
func condPair() {
	var m sync.Mutex
	c := sync.NewCond(&m)
	ready := false
	go func() {
		for !stopped() {
			time.Sleep(200 * time.Microsecond)
			m.Lock()
			ready = true
			m.Unlock()
			c.Signal()
		}
		m.Lock()
		ready = true
		m.Unlock()
		c.Signal()
	}()
	for !stopped() {
		m.Lock()
		for !ready {
			c.Wait()
		}
		ready = false
		m.Unlock()
	}
}

//go:noinline
func waitGroups() {
	for !stopped() {
		var wg sync.WaitGroup
		for i := 0; i < 3; i++ {
			wg.Add(1)
			go func(i int) {
				time.Sleep(time.Duration(50*(i+1)) * time.Microsecond)
				wg.Done()
			}(i)
		}
		wg.Wait()
	}
}

func write(dir, name string, n int) {
	writeAs(dir, name, n, 0, ".pb.gz")
	writeAs(dir, name, n, 1, ".txt")
}

func writeAs(dir, name string, n, debug int, ext string) {
	path := filepath.Join(dir, name+"-"+strconv.Itoa(n)+ext)
	f, err := os.Create(path + ".tmp")
	if err == nil {
		err = pprof.Lookup(name).WriteTo(f, debug)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = os.Rename(path+".tmp", path)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "contend:", err)
		os.Exit(1)
	}
}

func touch(path string) {
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "contend:", err)
		os.Exit(1)
	}
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

func main() {
	dir := os.Getenv("CONTEND_DIR")
	if dir == "" {
		fmt.Fprintln(os.Stderr, "contend: CONTEND_DIR is required")
		os.Exit(2)
	}
	if os.Getenv("CONTEND_OFF") == "" {
		runtime.SetBlockProfileRate(1)
		runtime.SetMutexProfileFraction(1)
	}
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	c := make(chan int)
	run(func() { producer(c) })
	run(func() { slowConsumer(c) })
	ping, pong := make(chan int), make(chan int)
	run(func() { pingPong(ping, pong) })
	run(func() { ponger(ping, pong) })
	a, b, done := make(chan int), make(chan int), make(chan struct{})
	run(func() { selector(a, b, done) })
	run(func() { ticker(a, b); close(done) })
	for i := 0; i < 2; i++ {
		run(mutexSiteA)
		run(mutexSiteB)
		run(mutexSiteC)
	}
	run(condPair)
	run(waitGroups)
	touch(filepath.Join(dir, "ready"))

	halted := false
	for n := 1; ; {
		if !halted && exists(filepath.Join(dir, "stop")) {
			atomic.StoreInt32(&stop, 1)
			wg.Wait()
			halted = true
			touch(filepath.Join(dir, "stopped"))
		}
		if exists(filepath.Join(dir, "req-"+strconv.Itoa(n))) {
			write(dir, "block", n)
			write(dir, "mutex", n)
			touch(filepath.Join(dir, "done-"+strconv.Itoa(n)))
			n++
			continue
		}
		time.Sleep(10 * time.Millisecond)
	}
}
