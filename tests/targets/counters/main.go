// counters sets the runtime's counters to known values (GOMAXPROCS 3,
// GOGC 150 by debug.SetGCPercent, the memory limit from GOMEMLIMIT on
// 1.19+), starts 25 goroutines that park for good on a channel and 3
// that block for good in read(2) of a pipe of their own (in a system
// call: not in Go), runs some GCs over a retained heap, and then goes
// quiet: its main goroutine waits for a line on the FIFO D/req (parked
// in the netpoller: waiting, woken by nothing else) and answers each
// with its own runtime/metrics values and the states of its own
// goroutine dump (runtime.Stack of all goroutines: the debug=2 text,
// system goroutines left out), so that the
// test can compare what goheap-bpf read from outside with what the
// runtime said just before and just after.
//
//	COUNTERS_DIR=D counters: opens the FIFO D/req, writes D/ready, then
//	for the Nth line read from D/req (N = 1, 2, ...) writes D/repN
//	("name value" lines).
//
// A metric the release lacks is not written. In its reports the main
// goroutine itself is running (st_running, and /sched/goroutines/
// running from 1.26); between them it waits.
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"syscall"
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
		// 1.26+
		"/sched/goroutines/running:goroutines":   "running",
		"/sched/goroutines/runnable:goroutines":  "runnable",
		"/sched/goroutines/waiting:goroutines":   "waiting",
		"/sched/goroutines/not-in-go:goroutines": "not_in_go",
		"/sched/goroutines-created:goroutines":   "created",
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
	dumpStates(&b)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		panic(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		panic(err)
	}
}

// A header: "goroutine 7 [syscall, 2 minutes, locked to thread]:", with
// gp=, m= and labels between the number and the state at some levels.
var header = regexp.MustCompile(`(?m)^goroutine \d+[^\[\n]*\[([^,\]]+)`)

// dumpStates counts the goroutines of the runtime's own dump (the world
// stopped) by the state each header names: running, runnable, syscall,
// and the rest waiting (chan receive, IO wait, GC worker (idle), ...).
func dumpStates(b *strings.Builder) {
	buf := make([]byte, 1<<20)
	n := map[string]int{"running": 0, "runnable": 0, "syscall": 0, "waiting": 0}
	for _, m := range header.FindAllSubmatch(buf[:runtime.Stack(buf, true)], -1) {
		st := string(m[1])
		if _, ok := n[st]; !ok {
			st = "waiting"
		}
		n[st]++
	}
	for _, k := range []string{"running", "runnable", "syscall", "waiting"} {
		fmt.Fprintf(b, "st_%s %d\n", k, n[k])
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
	for i := 0; i < 3; i++ {
		var p [2]int
		if err := syscall.Pipe(p[:]); err != nil {
			panic(err)
		}
		go func() {
			var one [1]byte
			syscall.Read(p[0], one[:])
			panic("the pipe was written")
		}()
	}
	for i := 0; i < 2000; i++ {
		keep = append(keep, make([]byte, 4096))
		if i%500 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	req, err := os.OpenFile(filepath.Join(dir, "req"), os.O_RDONLY, 0)
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644); err != nil {
		panic(err)
	}
	in := bufio.NewScanner(req)
	for n := 1; in.Scan(); n++ {
		report(filepath.Join(dir, fmt.Sprintf("rep%d", n)))
	}
}
