// cmpprof_test.go - the comparator's self-test: small heap profiles built
// in code, written and parsed back through the real profile.proto
// encoding, that must compare equal or show exactly the planted difference.
package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// build makes a heap profile shaped like runtime/pprof's: three samples
// (one all zero) over an inlined location and a plain one. mutate may
// change it before it is encoded; idShift renumbers every ID so equal
// profiles never share IDs or sample order.
func build(t *testing.T, idShift uint64, mutate func(p *profile.Profile)) *profile.Profile {
	t.Helper()
	m := &profile.Mapping{ID: 1 + idShift, Start: 0x400000, Limit: 0x500000,
		File: "/bin/heapgen", BuildID: "abcd", HasFunctions: true}
	alloc := &profile.Function{ID: 1 + idShift, Name: "main.alloc", SystemName: "main.alloc",
		Filename: "/src/main.go", StartLine: 10}
	inl := &profile.Function{ID: 2 + idShift, Name: "main.newRecord", SystemName: "main.newRecord",
		Filename: "/src/main.go", StartLine: 5}
	mainFn := &profile.Function{ID: 3 + idShift, Name: "main.main", SystemName: "main.main",
		Filename: "/src/main.go", StartLine: 20}
	l1 := &profile.Location{ID: 1 + idShift, Mapping: m, Address: 0x401000,
		Line: []profile.Line{{Function: inl, Line: 6}, {Function: alloc, Line: 12}}}
	l2 := &profile.Location{ID: 2 + idShift, Mapping: m, Address: 0x402000,
		Line: []profile.Line{{Function: mainFn, Line: 22}}}
	l3 := &profile.Location{ID: 3 + idShift, Mapping: m, Address: 0x401100,
		Line: []profile.Line{{Function: alloc, Line: 14}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"},
			{Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"},
		},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
		Period:     4096,
		Mapping:    []*profile.Mapping{m},
		Function:   []*profile.Function{alloc, inl, mainFn},
		Location:   []*profile.Location{l1, l2, l3},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{l1, l2}, Value: []int64{10, 480, 4, 192},
				NumLabel: map[string][]int64{"bytes": {48}}},
			{Location: []*profile.Location{l3, l2}, Value: []int64{3, 3072, 1, 1024},
				NumLabel: map[string][]int64{"bytes": {1024}}},
			{Location: []*profile.Location{l3, l2}, Value: []int64{0, 0, 0, 0}},
		},
	}
	if mutate != nil {
		mutate(p)
	}
	if idShift != 0 {
		s := p.Sample
		s[0], s[1], s[2] = s[2], s[0], s[1]
	}
	return roundTrip(t, p)
}

// roundTrip encodes and parses p, as cmpprof sees profiles on disk.
func roundTrip(t *testing.T, p *profile.Profile) *profile.Profile {
	t.Helper()
	if err := p.CheckValid(); err != nil {
		t.Fatalf("invalid test profile: %v", err)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestCompare(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(p *profile.Profile)
		want   []string // substrings, one per expected difference
	}{
		{"equal", nil, nil},
		{"extra zero sample is ignored", func(p *profile.Profile) {
			p.Sample = append(p.Sample, &profile.Sample{
				Location: []*profile.Location{p.Location[1]}, Value: []int64{0, 0, 0, 0}})
		}, nil},
		{"value differs", func(p *profile.Profile) {
			p.Sample[0].Value[3] = 193
		}, []string{"values differ for stack main.newRecord:6 ← main.alloc:12 ← main.main:22:\n" +
			"  only theirs: values [10 480 4 192] bytes [48]\n" +
			"  only ours:   values [10 480 4 193] bytes [48]"}},
		{"bytes label differs", func(p *profile.Profile) {
			p.Sample[1].NumLabel["bytes"] = []int64{1000}
		}, []string{"values differ"}},
		{"line differs", func(p *profile.Profile) {
			p.Location[2].Line[0].Line = 15
		}, []string{"sample only in theirs", "sample only in ours"}},
		{"start line differs", func(p *profile.Profile) {
			p.Function[0].StartLine = 11
		}, []string{"sample only in theirs", "sample only in theirs", "sample only in ours", "sample only in ours"}},
		{"inline frame missing", func(p *profile.Profile) {
			p.Location[0].Line = p.Location[0].Line[1:]
		}, []string{"sample only in theirs", "sample only in ours"}},
		{"extra sample", func(p *profile.Profile) {
			p.Sample = append(p.Sample, &profile.Sample{
				Location: []*profile.Location{p.Location[1]}, Value: []int64{1, 8, 1, 8},
				NumLabel: map[string][]int64{"bytes": {8}}})
		}, []string{"sample only in ours (values [1 8 1 8] bytes [8]), stack main.main:22"}},
		{"duplicate sample", func(p *profile.Profile) {
			s := *p.Sample[1]
			p.Sample = append(p.Sample, &s)
		}, []string{"only theirs: none\n  only ours:   values [3 3072 1 1024] bytes [1024]"}},
		{"period differs", func(p *profile.Profile) { p.Period = 1 }, []string{"period differs"}},
		{"sample type differs", func(p *profile.Profile) {
			p.SampleType[3].Unit = "count"
		}, []string{"sample types differ"}},
		{"build id differs", func(p *profile.Profile) {
			p.Mapping[0].BuildID = ""
		}, []string{"mapping differs"}},
		{"has_functions differs", func(p *profile.Profile) {
			p.Mapping[0].HasFunctions = false
		}, []string{"mapping differs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			theirs := build(t, 0, nil)
			ours := build(t, 100, c.mutate)
			r := compare(theirs, ours)
			if len(r.diffs) != len(c.want) {
				t.Fatalf("got %d differences, want %d:\n%s", len(r.diffs), len(c.want),
					strings.Join(r.diffs, "\n"))
			}
			for i, w := range c.want {
				if !strings.Contains(r.diffs[i], w) {
					t.Errorf("difference %d = %q, want it to contain %q", i, r.diffs[i], w)
				}
			}
			if r.theirsNonzero != 2 {
				t.Errorf("theirs nonzero samples = %d, want 2", r.theirsNonzero)
			}
		})
	}
}

func TestSummary(t *testing.T) {
	r := compare(build(t, 0, nil), build(t, 7, nil))
	want := "cmpprof: 3 samples compared (2 nonzero) theirs, 3 (2 nonzero) ours: equal"
	if got := r.summary(); got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
}

func TestSummarize(t *testing.T) {
	p := build(t, 0, func(p *profile.Profile) { p.Comments = []string{"pid=42"} })
	s := glanceAt(p)
	want := map[string]int64{"alloc_objects": 13, "alloc_space": 3552, "inuse_objects": 5, "inuse_space": 1216}
	for k, v := range want {
		if s.Totals[k] != v {
			t.Errorf("total %s = %d, want %d", k, s.Totals[k], v)
		}
	}
	if len(s.Totals) != len(want) {
		t.Errorf("totals %v, want %v", s.Totals, want)
	}
	if len(s.Comments) != 1 || s.Comments[0] != "pid=42" {
		t.Errorf("comments %q, want [pid=42]", s.Comments)
	}
}
