package main

// bracket.go: cmpprof -bracket LOW OURS HIGH, for a profile whose counters
// only grow (block, mutex) read while the program kept running: OURS was
// read after the program wrote LOW and before it wrote HIGH, so each of
// its stacks' values (summed per stack) must lie between LOW's and HIGH's,
// every stack of LOW must be in OURS and every stack of OURS in HIGH; the
// headers (sample types, period type, period) must be LOW's and HIGH's.
// Exits 0 when bracketed, 1 when not, 2 when a file cannot be read.

import (
	"fmt"
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

func bracketMain(paths []string) {
	if len(paths) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cmpprof -bracket LOW OURS HIGH")
		os.Exit(2)
	}
	var ps [3]*profile.Profile
	for i, path := range paths {
		p, err := load(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "cmpprof: %v\n", err)
			os.Exit(2)
		}
		ps[i] = p
	}
	r := &result{}
	compareHeader(r, ps[0], ps[1])
	compareHeader(r, ps[2], ps[1])
	lo, ours, hi := sumByStack(ps[0]), sumByStack(ps[1]), sumByStack(ps[2])
	for _, k := range lo.order {
		if _, ok := ours.v[k]; !ok {
			r.addf("stack of LOW missing from ours: %s", lo.short[k])
		}
	}
	for _, k := range ours.order {
		h, ok := hi.v[k]
		if !ok {
			r.addf("stack of ours missing from HIGH: %s", ours.short[k])
			continue
		}
		l := lo.v[k] // nil: 0s
		for i, x := range ours.v[k] {
			var a, b int64
			if i < len(l) {
				a = l[i]
			}
			if i < len(h) {
				b = h[i]
			}
			if x < a || x > b {
				r.addf("value %d of stack %s is %d, not within [%d, %d]",
					i, ours.short[k], x, a, b)
			}
		}
	}
	for i, d := range r.diffs {
		if i == maxShown {
			fmt.Printf("... %d more differences\n", len(r.diffs)-maxShown)
			break
		}
		fmt.Println(d)
	}
	verdict := "bracketed"
	if len(r.diffs) > 0 {
		verdict = fmt.Sprintf("%d differences", len(r.diffs))
	}
	fmt.Printf("cmpprof: %d stacks low, %d ours, %d high: %s\n",
		len(lo.order), len(ours.order), len(hi.order), verdict)
	if len(r.diffs) > 0 {
		os.Exit(1)
	}
}

// withinMain: cmpprof -within REL THEIRS OURS, for OURS read before the
// program computed its ticks per second (goheap-bpf then computes it as the
// runtime would, a moment apart): the same stacks and headers, every value
// but the last equal, the last (delay) within REL of theirs, relatively.
func withinMain(args []string) {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cmpprof -within REL THEIRS OURS")
		os.Exit(2)
	}
	var rel float64
	if _, err := fmt.Sscan(args[0], &rel); err != nil || rel < 0 {
		fmt.Fprintf(os.Stderr, "cmpprof: bad REL %q\n", args[0])
		os.Exit(2)
	}
	theirs, err := load(args[1])
	if err == nil {
		var ours *profile.Profile
		if ours, err = load(args[2]); err == nil {
			within(rel, theirs, ours)
			return
		}
	}
	fmt.Fprintf(os.Stderr, "cmpprof: %v\n", err)
	os.Exit(2)
}

func within(rel float64, theirs, ours *profile.Profile) {
	r := &result{}
	compareHeader(r, theirs, ours)
	a, b := sumByStack(theirs), sumByStack(ours)
	worst := 0.0
	for _, k := range a.order {
		if _, ok := b.v[k]; !ok {
			r.addf("stack only in theirs: %s", a.short[k])
		}
	}
	for _, k := range b.order {
		t, ok := a.v[k]
		if !ok {
			r.addf("stack only in ours: %s", b.short[k])
			continue
		}
		o := b.v[k]
		for i := range o {
			if i >= len(t) {
				break
			}
			if i < len(o)-1 {
				if o[i] != t[i] {
					r.addf("value %d of stack %s: theirs %d, ours %d", i, b.short[k], t[i], o[i])
				}
				continue
			}
			d := float64(o[i] - t[i])
			if d < 0 {
				d = -d
			}
			if t[i] != 0 {
				d /= float64(t[i])
			}
			if d > worst {
				worst = d
			}
			if d > rel {
				r.addf("value %d of stack %s: theirs %d, ours %d (%.2g apart)", i, b.short[k], t[i], o[i], d)
			}
		}
	}
	for i, d := range r.diffs {
		if i == maxShown {
			break
		}
		fmt.Println(d)
	}
	verdict := "within"
	if len(r.diffs) > 0 {
		verdict = fmt.Sprintf("%d differences", len(r.diffs))
	}
	fmt.Printf("cmpprof: %d stacks, last values at most %.2g apart: %s\n", len(b.order), worst, verdict)
	if len(r.diffs) > 0 {
		os.Exit(1)
	}
}
