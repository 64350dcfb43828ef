package main

// bracket.go: two comparisons of profiles whose counters only grow
// (block, mutex), value by value per stack (summed per stack):
//
//	cmpprof -bracket LOW OURS HIGH: OURS was read after the program wrote
//	LOW and before it wrote HIGH, so each value must lie between LOW's and
//	HIGH's, every stack of LOW must be in OURS and every stack of OURS in
//	HIGH; the headers (sample types, period type, period) must be LOW's
//	and HIGH's.
//
//	cmpprof -within REL [-drop FUNC[,FUNC...]] THEIRS OURS: OURS read
//	before the program computed its ticks per second (goheap-bpf then
//	computes it as the runtime would, a moment apart): the same stacks and
//	headers, every value but the last equal, the last (delay) within REL
//	of theirs, relatively; samples whose leaf is one of FUNC left out of
//	both (as -drop does).
//
// Exit 0 when they hold, 1 when not, 2 when a file cannot be read.

import (
	"fmt"
	"math"
	"os"

	"github.com/google/pprof/profile"
)

// sums holds one profile's values summed per stack.
type sums struct {
	v     map[string][]int64
	order []string
	short map[string]string
}

func sumByStack(p *profile.Profile) *sums {
	s := &sums{v: map[string][]int64{}, short: map[string]string{}}
	for _, smp := range p.Sample {
		f := frames(smp)
		k := stackKey(f)
		acc, ok := s.v[k]
		if !ok {
			acc = make([]int64, len(smp.Value))
			s.order = append(s.order, k)
			s.short[k] = short(f)
		}
		for i, x := range smp.Value {
			if i < len(acc) {
				acc[i] += x
			}
		}
		s.v[k] = acc
	}
	return s
}

// at is v[i], 0 past its end (a stack a side does not have: nil).
func at(v []int64, i int) int64 {
	if i < len(v) {
		return v[i]
	}
	return 0
}

// missing records each stack of a that b lacks, as what says.
func (r *result) missing(a, b *sums, what string) {
	for _, k := range a.order {
		if _, ok := b.v[k]; !ok {
			r.addf("%s: %s", what, a.short[k])
		}
	}
}

// eachValue calls check for every value of every stack of ours that other
// has too (the rest: missing).
func eachValue(ours, other *sums, check func(k string, i int, x int64)) {
	for _, k := range ours.order {
		if _, ok := other.v[k]; ok {
			for i, x := range ours.v[k] {
				check(k, i, x)
			}
		}
	}
}

func bracketMain(paths []string) {
	if len(paths) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cmpprof -bracket LOW OURS HIGH")
		os.Exit(2)
	}
	ps := mustLoad(paths...)
	r := &result{}
	compareHeader(r, ps[0], ps[1])
	compareHeader(r, ps[2], ps[1])
	lo, ours, hi := sumByStack(ps[0]), sumByStack(ps[1]), sumByStack(ps[2])
	r.missing(lo, ours, "stack of LOW missing from ours")
	r.missing(ours, hi, "stack of ours missing from HIGH")
	eachValue(ours, hi, func(k string, i int, x int64) {
		a, b := at(lo.v[k], i), at(hi.v[k], i)
		if x < a || x > b {
			r.addf("value %d of stack %s is %d, not within [%d, %d]",
				i, ours.short[k], x, a, b)
		}
	})
	r.finish(fmt.Sprintf("cmpprof: %d stacks low, %d ours, %d high: %s",
		len(lo.order), len(ours.order), len(hi.order), r.verdict("bracketed")))
}

func withinMain(args []string) {
	drop := ""
	if len(args) == 5 && args[1] == "-drop" {
		drop, args = args[2], []string{args[0], args[3], args[4]}
	}
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cmpprof -within REL [-drop FUNC[,FUNC...]] THEIRS OURS")
		os.Exit(2)
	}
	var rel float64
	if _, err := fmt.Sscan(args[0], &rel); err != nil || rel < 0 {
		fmt.Fprintf(os.Stderr, "cmpprof: bad REL %q\n", args[0])
		os.Exit(2)
	}
	ps := mustLoad(args[1:]...)
	if drop != "" {
		dropLeaf(ps[0], drop)
		dropLeaf(ps[1], drop)
	}
	r := &result{}
	compareHeader(r, ps[0], ps[1])
	theirs, ours := sumByStack(ps[0]), sumByStack(ps[1])
	r.missing(theirs, ours, "stack only in theirs")
	r.missing(ours, theirs, "stack only in ours")
	worst := 0.0
	eachValue(ours, theirs, func(k string, i int, x int64) {
		t := theirs.v[k]
		if i >= len(t) {
			return
		}
		if i < len(ours.v[k])-1 {
			if x != t[i] {
				r.addf("value %d of stack %s: theirs %d, ours %d", i, ours.short[k], t[i], x)
			}
			return
		}
		d := math.Abs(float64(x - t[i]))
		if t[i] != 0 {
			d /= float64(t[i])
		}
		worst = math.Max(worst, d)
		if d > rel {
			r.addf("value %d of stack %s: theirs %d, ours %d (%.2g apart)", i, ours.short[k], t[i], x, d)
		}
	})
	r.finish(fmt.Sprintf("cmpprof: %d stacks, last values at most %.2g apart: %s",
		len(ours.order), worst, r.verdict("within")))
}
