// Command heapgen is the integration tests' target: a Go program whose heap
// profile exercises everything goheap-bpf has to reproduce. It allocates
// through varied stacks (inlined calls, generic shape instantiations,
// closures, method values, goroutines, maps, strings, every size class,
// large objects, recursion deeper than any stack-depth limit), keeps some
// objects alive and frees others, then reaches quiescence, writes its own
// heap profile with runtime/pprof (the reference answer) and idles forever
// without allocating, so an outside reader must see the same buckets.
//
// It builds with every Go release from 1.18 on: no newer APIs.
//
// Environment:
//
//	HEAPGEN_RATE     runtime.MemProfileRate to set first thing (unset: keep)
//	HEAPGEN_PROFILE  where to write the heap profile (required)
//	HEAPGEN_TEXT     where to write its legacy text (runtime/pprof's debug=1,
//	                 net/http/pprof's ?debug=1) as well, just before the
//	                 profile, both written once before that; unset: none
//	HEAPGEN_READY    file created (atomically) once the profile is written
//	HEAPGEN_SPIN     if set, keep running on a CPU afterwards (no allocation)
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"
)

// kept holds everything that must stay in use until the profile is read.
var kept []interface{}

//go:noinline
func keep(x interface{}) { kept = append(kept, x) }

// ---- inlined calls ----

type record struct {
	id   int
	data []byte
}

// newRecord and wrapRecord are small enough to be inlined, so the
// allocations carry inline-tree frames (virtual PCs) in their stacks.
func newRecord(id, n int) *record { return &record{id: id, data: make([]byte, n)} }

func wrapRecord(id int) *record { return newRecord(id, 40+id%3*24) }

//go:noinline
func inlinedAllocs() {
	for i := 0; i < 300; i++ {
		r := wrapRecord(i)
		if i%3 == 0 {
			keep(r)
		}
	}
}

// ---- generics: shape-instantiated functions and methods ----

type point struct{ x, y int }

type pair[K comparable, V any] struct {
	k K
	v V
}

//go:noinline
func mkPairs[K comparable, V any](n int, k func(int) K, v func(int) V) []pair[K, V] {
	out := make([]pair[K, V], 0, 4)
	for i := 0; i < n; i++ {
		out = append(out, pair[K, V]{k(i), v(i)})
	}
	return out
}

type stack[T any] struct{ items []T }

//go:noinline
func (s *stack[T]) push(v T) { s.items = append(s.items, v) }

//go:noinline
func index[K comparable, V any](vs []V, key func(V) K) map[K]V {
	m := make(map[K]V)
	for _, v := range vs {
		m[key(v)] = v
	}
	return m
}

//go:noinline
func genericAllocs() {
	keep(mkPairs(200, func(i int) int { return i }, func(i int) point { return point{i, -i} }))
	keep(mkPairs(150, strconv.Itoa, func(i int) int { return i * i }))
	keep(mkPairs(100, func(i int) int { return i }, func(i int) *point { return &point{i, i} }))
	anon := mkPairs(80, func(i int) string { return "k" + strconv.Itoa(i) },
		func(i int) struct {
			a int
			b string
		} {
			return struct {
				a int
				b string
			}{i, strconv.Itoa(i)}
		})
	keep(anon[:40])
	s := &stack[point]{}
	t := &stack[string]{}
	for i := 0; i < 500; i++ {
		s.push(point{i, i})
		t.push(strings.Repeat("x", i%50))
	}
	keep(s)
	pts := make([]point, 300)
	for i := range pts {
		pts[i] = point{i, i % 7}
	}
	keep(index(pts, func(p point) int { return p.x }))
	_ = index(pts, func(p point) string { return strconv.Itoa(p.y) })
}

// ---- closures ----

//go:noinline
func counter() func() *int {
	c := 0
	return func() *int {
		c++
		p := new(int)
		*p = c
		return p
	}
}

//go:noinline
func closureAllocs() {
	next := counter()
	for i := 0; i < 200; i++ {
		p := next()
		if i%2 == 0 {
			keep(p)
		}
	}
	mk := func(n int) []int { return make([]int, n) }
	for i := 1; i <= 40; i++ {
		v := mk(i * 17)
		if i%4 == 0 {
			keep(v)
		}
	}
	func() {
		for i := 0; i < 50; i++ {
			keep(&point{i, 2 * i})
		}
	}()
}

// ---- method values, method expressions, interface calls ----

type builder struct{ buf [][]byte }

//go:noinline
func (b *builder) grow(n int) { b.buf = append(b.buf, make([]byte, n)) }

type grower interface{ grow(n int) }

//go:noinline
func methodAllocs() {
	b := &builder{}
	f := b.grow // method value: calls go through a -fm wrapper
	for i := 0; i < 60; i++ {
		f(64 + i*8)
	}
	g := (*builder).grow // method expression
	for i := 0; i < 30; i++ {
		g(b, 1000+i)
	}
	var gi grower = b
	for i := 0; i < 30; i++ {
		gi.grow(3000 + i)
	}
	keep(b)
	tmp := &builder{}
	h := tmp.grow
	for i := 0; i < 40; i++ {
		h(500) // freed: tmp is dropped
	}
}

// ---- goroutines: some finish, some stay parked holding memory ----

var never = make(chan struct{})

//go:noinline
func worker(id int, wg *sync.WaitGroup, out chan<- []byte) {
	defer wg.Done()
	local := make([][]byte, 0)
	for i := 0; i < 50; i++ {
		local = append(local, make([]byte, 128+id*16))
	}
	out <- local[id%len(local)]
}

//go:noinline
func parked(id int, ready chan<- struct{}) {
	held := make([]byte, 4096*(id+1))
	ptrs := make([]*point, 100)
	for i := range ptrs {
		ptrs[i] = &point{id, i}
	}
	ready <- struct{}{}
	<-never
	runtime.KeepAlive(held)
	runtime.KeepAlive(ptrs)
}

//go:noinline
func goroutineAllocs() {
	var wg sync.WaitGroup
	out := make(chan []byte, 8)
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go worker(i, &wg, out)
	}
	wg.Wait()
	close(out)
	for b := range out {
		keep(b)
	}
	ready := make(chan struct{})
	for i := 0; i < 4; i++ {
		go parked(i, ready)
	}
	for i := 0; i < 4; i++ {
		<-ready
	}
	done := make(chan *point)
	go func() { done <- &point{7, 7} }()
	keep(<-done)
}

// ---- maps ----

//go:noinline
func mapAllocs() {
	m := make(map[string][]int)
	for i := 0; i < 1000; i++ {
		m["key-"+strconv.Itoa(i)] = make([]int, i%9+1)
	}
	for i := 0; i < 1000; i += 2 {
		delete(m, "key-"+strconv.Itoa(i))
	}
	keep(m)
	big := make(map[int][200]byte) // values too big to store inline
	for i := 0; i < 100; i++ {
		big[i] = [200]byte{byte(i)}
	}
	keep(big)
	tmp := make(map[point]*point)
	for i := 0; i < 500; i++ {
		tmp[point{i, i}] = &point{i, 0}
	}
}

// ---- strings ----

//go:noinline
func stringAllocs() {
	s := ""
	for i := 0; i < 200; i++ {
		s += strconv.Itoa(i) + ","
	}
	keep(s)
	b := []byte(s)
	keep(string(b[:len(b)/2]))
	var sb strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&sb, "%d:%s;", i, strings.Repeat("y", i%13))
	}
	keep(sb.String())
	keep(strings.Split(s, ","))
	keep(fmt.Sprintf("%v %v %q", point{1, 2}, []int{1, 2, 3}, s[:20]))
	r := []rune(s[:100])
	keep(string(r))
	var boxed []interface{}
	for i := 0; i < 100; i++ {
		boxed = append(boxed, 1000+i, strconv.Itoa(i)) // convT64, convTstring
	}
	keep(boxed)
}

// ---- every size class, and large objects ----

//go:noinline
func sizedAllocs() {
	for sz := 1; sz <= 40000; sz = sz*9/8 + 1 {
		b := make([]byte, sz)
		p := make([]*byte, sz/8+1)
		if sz%2 == 0 {
			keep(b)
		} else {
			keep(p)
		}
	}
	for _, sz := range []int{32 << 10, 33 << 10, 64 << 10, 100 << 10, 1 << 20, 3<<20 + 17} {
		b := make([]byte, sz)
		keep(b)
		_ = make([]byte, sz+1) // freed
	}
	for i := 0; i < 200; i++ {
		_ = make([]byte, 24) // small objects, all freed
	}
}

// ---- recursion deeper than every depth limit (32, 128, 128+2) ----

//go:noinline
func recurse(n int) []byte {
	if n == 0 {
		return make([]byte, 256)
	}
	b := recurse(n - 1)
	return b[:len(b)-n%2]
}

// descend and hop recurse mutually; hop is inlined into descend, so a
// truncated stack can end in the middle of an inlined frame.
//
//go:noinline
func descend(n int, leaf func() []byte) []byte {
	if n == 0 {
		return leaf()
	}
	return hop(n, leaf)
}

func hop(n int, leaf func() []byte) []byte { return descend(n-1, leaf) }

//go:noinline
func leafAlloc() []byte { return make([]byte, 512) }

//go:noinline
func deepAllocs() {
	for i := 0; i < 3; i++ {
		keep(recurse(150 + i))
	}
	// Stacks that truncate at either frame of the descend/hop pair: the
	// closure adds one frame at the leaf.
	keep(descend(150, leafAlloc))
	keep(descend(151, func() []byte { return leafAlloc() }))
	keep(descend(152, func() []byte { return make([]byte, 768) }))
	_ = descend(149, leafAlloc) // freed
}

func main() {
	if v := os.Getenv("HEAPGEN_RATE"); v != "" {
		rate, err := strconv.Atoi(v)
		if err != nil {
			fail("HEAPGEN_RATE: %v", err)
		}
		runtime.MemProfileRate = rate
	}
	profile := os.Getenv("HEAPGEN_PROFILE")
	ready := os.Getenv("HEAPGEN_READY")
	if profile == "" || ready == "" {
		fail("set HEAPGEN_PROFILE and HEAPGEN_READY")
	}

	inlinedAllocs()
	genericAllocs()
	closureAllocs()
	methodAllocs()
	goroutineAllocs()
	mapAllocs()
	stringAllocs()
	sizedAllocs()
	deepAllocs()

	// Allocate the sleep timer before the profile, so idling allocates
	// nothing; two collections publish every allocation and free.
	time.Sleep(time.Millisecond)
	runtime.GC()
	runtime.GC()

	if text := os.Getenv("HEAPGEN_TEXT"); text != "" {
		// Write both once before, and publish what that allocated:
		// writing them again then allocates in buckets that exist
		// already (mostly), so that a reader afterwards sees the
		// records of the text and no others, in the same order.
		writeHeap(text, 1)
		writeHeap(profile, 0)
		runtime.GC()
		runtime.GC()
		writeHeap(text, 1)
	}
	writeHeap(profile, 0)
	tmp := ready + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		fail("%v", err)
	}
	if err := os.Rename(tmp, ready); err != nil {
		fail("%v", err)
	}
	if os.Getenv("HEAPGEN_SPIN") != "" {
		prefault()
		spin()
	}
	for {
		time.Sleep(time.Hour)
	}
}

// writeHeap writes the heap profile to file: the proto (debug 0) or the
// legacy text (debug 1).
func writeHeap(file string, debug int) {
	f, err := os.Create(file)
	if err != nil {
		fail("%v", err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, debug); err != nil {
		fail("write profile: %v", err)
	}
	if err := f.Close(); err != nil {
		fail("%v", err)
	}
}

// prefault reads every writable mapping of the process once, through
// /proc/self/mem, so that no page of it is left unmapped. The runtime never
// touches some tails of its profile buckets (future cycles that a small
// program does not reach), and a reader that cannot fault pages in (the
// perf backend) stops at such a page: the equality tests of that backend
// need a process whose buckets are all mapped. It runs after the profile
// is written, so what it allocates shows in no published counter.
func prefault() {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		fail("%v", err)
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		fail("%v", err)
	}
	buf := make([]byte, 64<<10)
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[1], "rw") {
			continue
		}
		r := strings.SplitN(f[0], "-", 2)
		lo, err1 := strconv.ParseUint(r[0], 16, 64)
		hi, err2 := strconv.ParseUint(r[len(r)-1], 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		for a := lo; a < hi; a += uint64(len(buf)) {
			n := hi - a
			if n > uint64(len(buf)) {
				n = uint64(len(buf))
			}
			mem.ReadAt(buf[:n], int64(a)) // unreadable ranges are skipped
		}
	}
	mem.Close()
}

// spinCount keeps spin's loop observable, so it is not compiled away.
var spinCount uint64

// spin keeps the process on a CPU without allocating, for readers that
// can only look at a process while it runs (goheap-bpf --backend perf).
func spin() {
	for {
		spinCount++
	}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "heapgen: "+format+"\n", args...)
	os.Exit(1)
}
