// Command cmpprof compares two heap profiles semantically, the way a user
// of `go tool pprof` would see them, rather than byte for byte (gzip output,
// IDs and time stamps legitimately differ):
//
//	cmpprof THEIRS OURS
//
// THEIRS is the profile a Go program wrote about itself with runtime/pprof,
// OURS the one goheap-bpf wrote from outside. They must agree on sample
// types, default sample type, period type and period, mappings (start,
// limit, offset, file, build ID, has_functions) and on the samples as a
// multiset: each sample is keyed by its stack, every location spelled out
// as its address, its mapping's file and its lines (function name, system
// name, file, start line, line; leaf first), and carries its four values
// and its "bytes" num label and string labels. Samples whose values are all zero are ignored
// on both sides: writing a profile allocates, creating new empty buckets.
//
// Prints the first 20 differences and a one-line summary; exits 0 when the
// profiles are equal, 1 when they differ, 2 when one cannot be read.
//
//	cmpprof -sum FILE...
//
// sums profiles instead (sum.go).
//
//	cmpprof -drop FUNC[,FUNC...] THEIRS OURS
//
// compares them without the samples whose leaf frame is one of those
// functions (counters the runtime bumps on its own: runtime.unlock).
//
//	cmpprof -dropstack FUNC[,FUNC...] THEIRS OURS
//
// compares them without the samples that have one of those functions
// anywhere in their stack, or no frame at all (a goroutine profile's
// goroutine serving the request, which only the target's own can hold).
//
//	cmpprof -bracket LOW OURS HIGH
//
// checks that OURS, read between LOW and HIGH, lies between them
// (bracket.go).
//
//	cmpprof -within REL THEIRS OURS
//
// the same stacks and values but the last, that one within REL (relative):
// a delay converted with a ticks per second computed a moment apart.
//
//	cmpprof -stacks [-dropstack FUNC[,FUNC...]] FILE
//
// prints FILE's samples, value and stack, as JSON (stacks.go);
// -dropstack-write FUNC[,FUNC...] FILE OUT writes FILE without them.
//
//	cmpprof -delta OUT BEFORE AFTER
//
// writes to OUT the ?seconds=N delta of two profiles as net/http/pprof
// computes it (delta.go).
//
//	cmpprof -summary FILE
//
// prints what a summary of FILE would show, as one JSON object: "totals",
// each sample type's sum over every sample (go tool pprof's total), and
// "comments", the profile's comments (go tool pprof -comments).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// maxShown bounds the differences printed; the count is always reported.
const maxShown = 20

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-dropstack-write" {
		dropWriteMain(os.Args[2:])
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "-stacks" {
		stacksMain(os.Args[2:])
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "-within" {
		withinMain(os.Args[2:])
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "-bracket" {
		bracketMain(os.Args[2:])
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "-delta" {
		deltaMain(os.Args[2:])
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "-sum" {
		sumMain(os.Args[2:])
		return
	}
	if len(os.Args) != 3 && (len(os.Args) != 5 || (os.Args[1] != "-drop" && os.Args[1] != "-dropstack")) {
		fmt.Fprintln(os.Stderr, "usage: cmpprof [-drop|-dropstack FUNC] THEIRS OURS | cmpprof -sum FILE... | cmpprof -summary FILE")
		os.Exit(2)
	}
	if os.Args[1] == "-summary" {
		p, err := load(os.Args[2])
		if err != nil {
			fmt.Fprintf(os.Stderr, "cmpprof: %v\n", err)
			os.Exit(2)
		}
		out, _ := json.Marshal(glanceAt(p))
		fmt.Println(string(out))
		return
	}
	args := os.Args[1:]
	drop, how := "", ""
	if len(args) == 4 && (args[0] == "-drop" || args[0] == "-dropstack") {
		how, drop, args = args[0], args[1], args[2:]
	}
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cmpprof [-drop FUNC] THEIRS OURS")
		os.Exit(2)
	}
	ps := mustLoad(args...)
	theirs, ours := ps[0], ps[1]
	if how == "-drop" {
		dropLeaf(theirs, drop)
		dropLeaf(ours, drop)
	} else if how == "-dropstack" {
		dropStack(theirs, drop)
		dropStack(ours, drop)
	}
	r := compare(theirs, ours)
	r.finish(r.summary())
}

// mustLoad reads each path as a profile, or exits 2 with the reason.
func mustLoad(paths ...string) []*profile.Profile {
	ps := make([]*profile.Profile, len(paths))
	for i, path := range paths {
		p, err := load(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "cmpprof: %v\n", err)
			os.Exit(2)
		}
		ps[i] = p
	}
	return ps
}

// finish prints the differences (at most maxShown, then how many more)
// and the summary line, and exits 1 when there are any.
func (r *result) finish(summary string) {
	for i, d := range r.diffs {
		if i == maxShown {
			fmt.Printf("... %d more differences\n", len(r.diffs)-maxShown)
			break
		}
		fmt.Println(d)
	}
	fmt.Println(summary)
	if len(r.diffs) > 0 {
		os.Exit(1)
	}
}

func load(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return p, nil
}

// glance is what -summary prints.
type glance struct {
	Totals   map[string]int64 `json:"totals"`
	Comments []string         `json:"comments"`
}

func glanceAt(p *profile.Profile) glance {
	s := glance{Totals: map[string]int64{}, Comments: p.Comments}
	if s.Comments == nil {
		s.Comments = []string{}
	}
	for i, st := range p.SampleType {
		s.Totals[st.Type] = 0
		for _, smp := range p.Sample {
			if i < len(smp.Value) {
				s.Totals[st.Type] += smp.Value[i]
			}
		}
	}
	return s
}

// result of a comparison: the differences found and sample counts.
type result struct {
	diffs                      []string
	theirsSamples, oursSamples int
	theirsNonzero, oursNonzero int
}

// verdict is ok when nothing differs, else how many differences.
func (r *result) verdict(ok string) string {
	if len(r.diffs) > 0 {
		return fmt.Sprintf("%d differences", len(r.diffs))
	}
	return ok
}

func (r *result) summary() string {
	return fmt.Sprintf("cmpprof: %d samples compared (%d nonzero) theirs, %d (%d nonzero) ours: %s",
		r.theirsSamples, r.theirsNonzero, r.oursSamples, r.oursNonzero, r.verdict("equal"))
}

func (r *result) addf(format string, args ...interface{}) {
	r.diffs = append(r.diffs, fmt.Sprintf(format, args...))
}

func compare(theirs, ours *profile.Profile) *result {
	r := &result{}
	compareHeader(r, theirs, ours)
	compareMappings(r, theirs, ours)
	compareSamples(r, theirs, ours)
	return r
}

func valueTypes(vts []*profile.ValueType) string {
	var s []string
	for _, vt := range vts {
		s = append(s, vt.Type+"/"+vt.Unit)
	}
	return "[" + strings.Join(s, " ") + "]"
}

func compareHeader(r *result, theirs, ours *profile.Profile) {
	if a, b := valueTypes(theirs.SampleType), valueTypes(ours.SampleType); a != b {
		r.addf("sample types differ: theirs %s, ours %s", a, b)
	}
	if theirs.DefaultSampleType != ours.DefaultSampleType {
		r.addf("default sample type differs: theirs %q, ours %q",
			theirs.DefaultSampleType, ours.DefaultSampleType)
	}
	pt := func(p *profile.Profile) string {
		if p.PeriodType == nil {
			return "none"
		}
		return valueTypes([]*profile.ValueType{p.PeriodType})
	}
	if a, b := pt(theirs), pt(ours); a != b {
		r.addf("period type differs: theirs %s, ours %s", a, b)
	}
	if theirs.Period != ours.Period {
		r.addf("period differs: theirs %d, ours %d", theirs.Period, ours.Period)
	}
}

func mappingString(m *profile.Mapping) string {
	return fmt.Sprintf("%#x-%#x off %#x %q build id %q has_functions %v",
		m.Start, m.Limit, m.Offset, m.File, m.BuildID, m.HasFunctions)
}

func sortedMappings(p *profile.Profile) []string {
	var s []*profile.Mapping
	s = append(s, p.Mapping...)
	sort.Slice(s, func(i, j int) bool { return s[i].Start < s[j].Start })
	var out []string
	for _, m := range s {
		out = append(out, mappingString(m))
	}
	return out
}

func compareMappings(r *result, theirs, ours *profile.Profile) {
	a, b := sortedMappings(theirs), sortedMappings(ours)
	if len(a) != len(b) {
		r.addf("mapping count differs: theirs %d, ours %d", len(a), len(b))
	}
	for i := 0; i < len(a) || i < len(b); i++ {
		switch {
		case i >= len(a):
			r.addf("mapping only in ours: %s", b[i])
		case i >= len(b):
			r.addf("mapping only in theirs: %s", a[i])
		case a[i] != b[i]:
			r.addf("mapping differs:\n  theirs %s\n  ours   %s", a[i], b[i])
		}
	}
}

// frame is one line of one location, with the location's address and
// mapping: what a sample's stack is compared by.
type frame struct {
	addr      uint64
	idx       int // line index within the location, leaf first
	mapping   string
	name, sys string
	file      string
	line      int64
	startLine int64
}

func (f frame) String() string {
	return fmt.Sprintf("%#x.%d [%s] %s (%s) %s:%d start %d",
		f.addr, f.idx, f.mapping, f.name, f.sys, f.file, f.line, f.startLine)
}

// brief is the frame as a reader scans a stack: function and line.
func (f frame) brief() string {
	return fmt.Sprintf("%s:%d", f.name, f.line)
}

func frames(s *profile.Sample) []frame {
	var out []frame
	for _, loc := range s.Location {
		file := ""
		if loc.Mapping != nil {
			file = loc.Mapping.File
		}
		if len(loc.Line) == 0 {
			out = append(out, frame{addr: loc.Address, idx: -1, mapping: file, name: "?", sys: "?", file: "?"})
		}
		for i, ln := range loc.Line {
			f := frame{addr: loc.Address, idx: i, mapping: file, line: ln.Line, name: "?", sys: "?", file: "?"}
			if fn := ln.Function; fn != nil {
				f.name, f.sys, f.file, f.startLine = fn.Name, fn.SystemName, fn.Filename, fn.StartLine
			}
			out = append(out, f)
		}
	}
	return out
}

func stackKey(fs []frame) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.String())
	}
	return strings.Join(s, "\n")
}

func sampleValues(s *profile.Sample) string {
	v := fmt.Sprintf("values %v bytes %v", s.Value, s.NumLabel["bytes"])
	if len(s.Label) == 0 {
		return v
	}
	var kv []string
	for k, vs := range s.Label {
		kv = append(kv, fmt.Sprintf("%q=%q", k, vs))
	}
	sort.Strings(kv)
	return v + " labels {" + strings.Join(kv, ", ") + "}"
}

func isZero(s *profile.Sample) bool {
	for _, v := range s.Value {
		if v != 0 {
			return false
		}
	}
	return true
}

// side holds one profile's nonzero samples as stack → multiset of values,
// remembering the order stacks were first seen for a stable report.
type side struct {
	values map[string][]string
	frames map[string][]frame
	order  []string
}

func collect(p *profile.Profile, total, nonzero *int) *side {
	sd := &side{values: map[string][]string{}, frames: map[string][]frame{}}
	for _, s := range p.Sample {
		*total++
		if isZero(s) {
			continue
		}
		*nonzero++
		f := frames(s)
		key := stackKey(f)
		if _, ok := sd.values[key]; !ok {
			sd.order = append(sd.order, key)
			sd.frames[key] = f
		}
		sd.values[key] = append(sd.values[key], sampleValues(s))
	}
	for _, v := range sd.values {
		sort.Strings(v)
	}
	return sd
}

func compareSamples(r *result, theirs, ours *profile.Profile) {
	a := collect(theirs, &r.theirsSamples, &r.theirsNonzero)
	b := collect(ours, &r.oursSamples, &r.oursNonzero)
	var onlyA, onlyB []string
	for _, k := range a.order {
		bv, ok := b.values[k]
		if !ok {
			onlyA = append(onlyA, k)
			continue
		}
		if onlyA, onlyB := minus(a.values[k], bv), minus(bv, a.values[k]); len(onlyA)+len(onlyB) > 0 {
			r.addf("values differ for stack %s:\n  only theirs: %s\n  only ours:   %s",
				short(a.frames[k]), list(onlyA), list(onlyB))
		}
	}
	for _, k := range b.order {
		if _, ok := a.values[k]; !ok {
			onlyB = append(onlyB, k)
		}
	}
	for _, k := range onlyA {
		r.addf("sample only in theirs (%s), stack %s%s", list(a.values[k]),
			short(a.frames[k]), nearest(a.frames[k], onlyB, b))
	}
	for _, k := range onlyB {
		r.addf("sample only in ours (%s), stack %s%s", list(b.values[k]),
			short(b.frames[k]), nearest(b.frames[k], onlyA, a))
	}
}

// minus returns the sorted multiset a without the elements of sorted b.
func minus(a, b []string) []string {
	var out []string
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			j++
			continue
		}
		out = append(out, x)
	}
	return out
}

// list shows a few sample values and how many there are in all.
func list(vs []string) string {
	if len(vs) == 0 {
		return "none"
	}
	if len(vs) <= 3 {
		return strings.Join(vs, "; ")
	}
	return fmt.Sprintf("%s; … %d samples in all", strings.Join(vs[:3], "; "), len(vs))
}

// short names a stack by its first frames' functions and lines.
func short(f []frame) string {
	var s []string
	for i, fr := range f {
		if i == 4 {
			s = append(s, fmt.Sprintf("… (%d frames)", len(f)))
			break
		}
		s = append(s, fr.brief())
	}
	return strings.Join(s, " ← ")
}

// nearest explains how a stack found on one side only differs from the
// most similar stack the other side has alone: the first differing frame.
func nearest(f []frame, others []string, o *side) string {
	best, bestN := "", -1
	for _, k := range others {
		g := o.frames[k]
		n := 0
		for n < len(f) && n < len(g) && f[n] == g[n] {
			n++
		}
		if n > bestN {
			best, bestN = k, n
		}
	}
	if bestN < 0 {
		return ""
	}
	g := o.frames[best]
	at := func(s []frame, i int) string {
		if i < len(s) {
			return s[i].String()
		}
		return fmt.Sprintf("(stack ends, %d frames)", len(s))
	}
	return fmt.Sprintf("\n  closest other stack first differs at frame %d:\n    this  %s\n    other %s",
		bestN, at(f, bestN), at(g, bestN))
}

// dropLeaf removes p's samples whose leaf frame is one of the functions
// of the comma-separated list fns.
func dropLeaf(p *profile.Profile, fns string) {
	drop := map[string]bool{}
	for _, fn := range strings.Split(fns, ",") {
		drop[fn] = true
	}
	kept := p.Sample[:0]
	for _, s := range p.Sample {
		if f := frames(s); len(f) > 0 && drop[f[0].name] {
			continue
		}
		kept = append(kept, s)
	}
	p.Sample = kept
}

// dropStack removes p's samples with a frame of one of the functions of
// the comma-separated list fns, and those without a frame.
func dropStack(p *profile.Profile, fns string) {
	drop := map[string]bool{}
	for _, fn := range strings.Split(fns, ",") {
		drop[fn] = true
	}
	kept := p.Sample[:0]
	for _, s := range p.Sample {
		f := frames(s)
		gone := len(f) == 0
		for _, fr := range f {
			gone = gone || drop[fr.name]
		}
		if !gone {
			kept = append(kept, s)
		}
	}
	p.Sample = kept
}
