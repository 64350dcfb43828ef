// counters sets the runtime's counters to known values (GOMAXPROCS 3,
// GOGC 150 by debug.SetGCPercent, the memory limit from GOMEMLIMIT on
// 1.19+), starts 25 goroutines that park for good, runs some GCs over a
// retained heap, and then goes quiet: a goroutine polls for request files
// and answers each with its own runtime/metrics values, so that the test
// can compare what goheap-bpf read from outside with what the runtime
// said just before and just after.
//
//	COUNTERS_DIR=D counters: writes D/ready, then on D/reqN (N = 1, 2,
//	...) writes D/repN ("name value" lines) and removes D/reqN.
//
// A metric the release lacks is not written.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"time"
)

var keep [][]byte

func report(path string) {
	var b strings.Builder
	names := map[string]string{
		"/sched/goroutines:goroutines": "sched_goroutines",
		"/gc/cycles/total:gc-cycles":   "gc_cycles",
		"/gc/heap/live:bytes":          "heap_live",
		"/gc/heap/goal:bytes":          "heap_goal",
		"/sched/gomaxprocs:threads":    "gomaxprocs",
		"/gc/gogc:percent":             "gogc",
		"/gc/gomemlimit:bytes":         "memory_limit",
	}
	var ss []metrics.Sample
	for _, d := range metrics.All() {
		if _, ok := names[d.Name]; ok {
			ss = append(ss, metrics.Sample{Name: d.Name})
		}
	}
	// NumGoroutine first, then the metrics, then MemStats' NumGC and
	// NextGC (for releases whose metrics lack them: the same variables).
	fmt.Fprintf(&b, "goroutines %d\n", runtime.NumGoroutine())
	metrics.Read(ss)
	for _, s := range ss {
		fmt.Fprintf(&b, "%s %d\n", names[s.Name], s.Value.Uint64())
	}
	fmt.Fprintf(&b, "procs %d\n", runtime.GOMAXPROCS(0))
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		panic(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		panic(err)
	}
}

func main() {
	dir := os.Getenv("COUNTERS_DIR")
	runtime.GOMAXPROCS(3)
	debug.SetGCPercent(150)
	block := make(chan struct{})
	for i := 0; i < 25; i++ {
		go func() { <-block }()
	}
	for i := 0; i < 2000; i++ {
		keep = append(keep, make([]byte, 4096))
		if i%500 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	if err := os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644); err != nil {
		panic(err)
	}
	for n := 1; ; {
		req := filepath.Join(dir, fmt.Sprintf("req%d", n))
		if _, err := os.Stat(req); err == nil {
			report(filepath.Join(dir, fmt.Sprintf("rep%d", n)))
			os.Remove(req)
			n++
		}
		time.Sleep(5 * time.Millisecond)
	}
}
