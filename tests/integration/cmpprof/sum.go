// sum.go - cmpprof -sum FILE...: each heap profile read as go tool pprof
// reads it (Parse, then CheckValid) and summed, one JSON line per file,
// for the fault-injection tests (tests/fault):
//
//	{"file": F, "error": "..."} when F is not a valid profile, else
//	{"file": F, "samples": N, "totals": [alloc_objects, alloc_space,
//	inuse_objects, inuse_space], "min": the smallest value of any sample,
//	"functions": [every function name]}
//
// Exits 0 whatever the files hold (the caller judges), 2 on a write error.
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

type summary struct {
	File      string   `json:"file"`
	Error     string   `json:"error,omitempty"`
	Samples   int      `json:"samples"`
	Totals    []int64  `json:"totals,omitempty"`
	Min       int64    `json:"min"`
	Functions []string `json:"functions,omitempty"`
}

func sumMain(paths []string) {
	enc := json.NewEncoder(os.Stdout)
	for _, path := range paths {
		if err := enc.Encode(summarize(path)); err != nil {
			fmt.Fprintln(os.Stderr, "cmpprof:", err)
			os.Exit(2)
		}
	}
}

func summarize(path string) summary {
	s := summary{File: path}
	p, err := load(path)
	if err == nil {
		err = p.CheckValid()
	}
	if err != nil {
		s.Error = err.Error()
		return s
	}
	s.Samples = len(p.Sample)
	s.Totals = make([]int64, len(p.SampleType))
	for i, smp := range p.Sample {
		for k, v := range smp.Value {
			s.Totals[k] += v
			if (i == 0 && k == 0) || v < s.Min {
				s.Min = v
			}
		}
	}
	for _, f := range p.Function {
		s.Functions = append(s.Functions, f.Name)
	}
	return s
}
