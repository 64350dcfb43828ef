package main

// cmpprof -stacks [-dropstack FUNC[,FUNC...]] FILE
//
// prints FILE's samples as one JSON array, each sample as
// {"value": its first value, "stack": [...]}, every frame of its stack
// leaf first (a location's inlined lines innermost first) spelled as
// goheap-bpf's JSON entries spell them: "FUNCTION, FILE:LINE", or the
// address as "0x..." for a location without lines. With -dropstack, the
// samples cmpprof -dropstack leaves out are left out. For comparing
// goheap-bpf's JSON with a profile written by runtime/pprof
// (gleakcheck.py).
//
// cmpprof -dropstack-write FUNC[,FUNC...] FILE OUT
//
// writes FILE without the samples cmpprof -dropstack leaves out to OUT
// (for go tool pprof -top over the samples both sides can hold: its
// -ignore hides samples but keeps them in the total).

import (
	"encoding/json"
	"fmt"
	"os"
)

type stackOut struct {
	Value int64    `json:"value"`
	Stack []string `json:"stack"`
}

func dropWriteMain(args []string) {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cmpprof -dropstack-write FUNC[,FUNC...] FILE OUT")
		os.Exit(2)
	}
	p, err := load(args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "cmpprof: %v\n", err)
		os.Exit(2)
	}
	dropStack(p, args[0])
	f, err := os.Create(args[2])
	if err == nil {
		err = p.Write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cmpprof: %v\n", err)
		os.Exit(2)
	}
}

func stacksMain(args []string) {
	drop := ""
	if len(args) == 3 && args[0] == "-dropstack" {
		drop, args = args[1], args[2:]
	}
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: cmpprof -stacks [-dropstack FUNC[,FUNC...]] FILE")
		os.Exit(2)
	}
	p, err := load(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "cmpprof: %v\n", err)
		os.Exit(2)
	}
	if drop != "" {
		dropStack(p, drop)
	}
	out := []stackOut{}
	for _, s := range p.Sample {
		o := stackOut{Stack: []string{}}
		if len(s.Value) > 0 {
			o.Value = s.Value[0]
		}
		for _, loc := range s.Location {
			if len(loc.Line) == 0 {
				o.Stack = append(o.Stack, fmt.Sprintf("0x%x", loc.Address))
			}
			for _, ln := range loc.Line {
				name, file := "?", ""
				if ln.Function != nil {
					name, file = ln.Function.Name, ln.Function.Filename
				}
				if file != "" && ln.Line > 0 {
					o.Stack = append(o.Stack, fmt.Sprintf("%s, %s:%d", name, file, ln.Line))
				} else {
					o.Stack = append(o.Stack, name)
				}
			}
		}
		out = append(out, o)
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}
