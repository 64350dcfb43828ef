package main

// delta.go: cmpprof -delta OUT BEFORE AFTER writes to OUT what
// net/http/pprof's serveDeltaProfile serves for ?seconds=N, computed from
// the two profiles a program wrote about itself N seconds apart as it
// computes it: BEFORE scaled by -1 and merged with AFTER (profile.Merge),
// AFTER's time, the time between them as the duration. Exits 0 when
// written, 2 when a file cannot be read or written.

import (
	"fmt"
	"os"

	"github.com/google/pprof/profile"
)

func deltaMain(args []string) {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cmpprof -delta OUT BEFORE AFTER")
		os.Exit(2)
	}
	p0, err := load(args[1])
	if err == nil {
		var p1 *profile.Profile
		if p1, err = load(args[2]); err == nil {
			err = writeDelta(args[0], p0, p1)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cmpprof: %v\n", err)
		os.Exit(2)
	}
}

func writeDelta(path string, p0, p1 *profile.Profile) error {
	ts, dur := p1.TimeNanos, p1.TimeNanos-p0.TimeNanos
	p0.Scale(-1)
	d, err := profile.Merge([]*profile.Profile{p0, p1})
	if err != nil {
		return err
	}
	d.TimeNanos, d.DurationNanos = ts, dur
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := d.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
