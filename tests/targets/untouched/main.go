// untouched - a Go program whose newest heap-profile bucket ends on a page
// the runtime never wrote: the state in which bpf_probe_read_user (the perf
// backend) cannot read a bucket that every other reader can.
//
// runtime.newBucket takes zeroed memory from persistentalloc (fresh mmap
// pages, not resident until touched) and writes the header and the stack;
// mProf_Malloc then writes one future[] slot of the bucket's memRecord, the
// other slots waiting for the collector's flushes. With the collector off
// and one cycle run, a new bucket's last slots (future[1] and future[2])
// stay unwritten: when they are all the bucket has on its last page, that
// page stays untouched until another persistentalloc lands on it.
//
// The program makes buckets with new stacks one at a time until the newest
// one is in that state (mincore says its last page is not resident, and
// it stays so for a while), then writes the page's address into the file
// UNTOUCHED_READY and spins without allocating (perf reads only a running
// target). It runs with GODEBUG=asyncpreemptoff=1 (it execs itself so):
// from Go 1.26 an asynchronous preemption saves the extended registers in
// a block persistentalloc puts next to the buckets, and would write the
// page. The bucket is found through the
// symbol runtime.mbuckets in its own ELF file (a non-PIE executable) and
// read with the layout of Go 1.19-1.27 (nstk at +40, the stack at +48, then
// the memRecord: 128 bytes, 64 from Go 1.27 on).
package main

import (
	"debug/elf"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

const (
	page        = 4096
	headerBytes = 48
	depth       = 20
	settle      = 200 * time.Millisecond
)

var sink = make([]*[16]byte, 0, 1<<20)

// chain makes one allocation at the end of a chain of calls that spells
// bits, each bit by the call site it returns to: every value of bits is a
// stack of its own, so a bucket of its own.
//
//go:noinline
func chain(bits uint32, d int) {
	if d == 0 {
		sink = append(sink, new([16]byte))
	} else if bits&1 == 0 {
		chain(bits>>1, d-1)
	} else {
		chain(bits>>1, d-1)
	}
}

// symbol returns the address of a symbol of this executable.
func symbol(name string) uintptr {
	f, err := elf.Open("/proc/self/exe")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		panic(err)
	}
	for _, s := range syms {
		if s.Name == name {
			return uintptr(s.Value)
		}
	}
	panic("no symbol " + name)
}

// lastPage is the page of the newest bucket's last byte, when the bucket
// runs onto it from the page before and it is not resident; else 0.
func lastPage(head, record uintptr, vec []byte) uintptr {
	b := *(*uintptr)(unsafe.Pointer(head))
	nstk := *(*uintptr)(unsafe.Pointer(b + 40))
	last := (b + headerBytes + 8*nstk + record - 1) &^ (page - 1)
	if last == b&^(page-1) {
		return 0
	}
	if !untouched(last, vec) {
		return 0
	}
	return last
}

// untouched says whether the page at p is not resident. A raw system call:
// one that let the scheduler hand the P to another thread could start a
// thread, and allocating its M is sampled (a new bucket, written next to
// ours).
func untouched(p uintptr, vec []byte) bool {
	_, _, e := syscall.RawSyscall(syscall.SYS_MINCORE, p, page,
		uintptr(unsafe.Pointer(&vec[0])))
	return e == 0 && vec[0]&1 == 0
}

// settled says whether the page at p stays untouched, and the newest
// bucket the one at b, for d: whatever the runtime was doing when the
// bucket was made has finished without writing the page.
func settled(p, head, b uintptr, d time.Duration, vec []byte) bool {
	for t := time.Now(); time.Since(t) < d; {
		if !untouched(p, vec) || *(*uintptr)(unsafe.Pointer(head)) != b {
			return false
		}
	}
	return true
}

// noAsyncPreempt execs the program again with asynchronous preemption off,
// unless it is off already.
func noAsyncPreempt() {
	const off = "asyncpreemptoff=1"
	if strings.Contains(os.Getenv("GODEBUG"), off) {
		return
	}
	env := []string{"GODEBUG=" + off + "," + os.Getenv("GODEBUG")}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GODEBUG=") {
			env = append(env, e)
		}
	}
	if err := syscall.Exec("/proc/self/exe", os.Args, env); err != nil {
		panic(err)
	}
}

func main() {
	noAsyncPreempt()
	runtime.MemProfileRate = 1
	// One P: no other thread wakes up to look for work.
	runtime.GOMAXPROCS(1)
	debug.SetGCPercent(-1)
	runtime.GC()
	// A call keeps runtime.MemProfile reachable: without one the linker
	// turns memory profiling off (runtime.disableMemoryProfiling).
	runtime.MemProfile(nil, true)
	head := symbol("runtime.mbuckets")
	ready, err := os.Create(os.Getenv("UNTOUCHED_READY"))
	if err != nil {
		panic(err)
	}
	vec := make([]byte, 1)
	// memRecordCycle lost its byte counts in Go 1.27 (4 words to 2).
	record := uintptr(128)
	if v := runtime.Version(); v >= "go1.27" && len(v) >= 6 {
		record = 64
	}
	var at uintptr
	for bits := uint32(0); at == 0; bits++ {
		if bits == 1<<depth {
			panic("no bucket ended on an untouched page")
		}
		chain(bits, depth)
		at = lastPage(head, record, vec)
		if at != 0 && !settled(at, head,
			*(*uintptr)(unsafe.Pointer(head)), settle, vec) {
			at = 0
		}
	}
	// From here on nothing allocates, so no bucket is made or written:
	// the address is written in hex by hand, in one raw write (the reader
	// waits for its newline).
	var msg [19]byte
	msg[0], msg[1], msg[18] = '0', 'x', '\n'
	for i := 17; i >= 2; i, at = i-1, at>>4 {
		msg[i] = "0123456789abcdef"[at&15]
	}
	syscall.RawSyscall(syscall.SYS_WRITE, ready.Fd(),
		uintptr(unsafe.Pointer(&msg[0])), uintptr(len(msg)))
	// Spin: perf reads only a running target.
	for {
		syscall.RawSyscall(syscall.SYS_GETPID, 0, 0, 0)
	}
}
