package search

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/codex7/codex7/internal/gittest"
)

// TestEvaluateMissListsEveryHitAboveTheAnswer: Miss.Top holds every hit
// ranked above the answer (the top 5 when none is in the top 10), also
// for an answer at rank 7 to 10.
func TestEvaluateMissListsEveryHitAboveTheAnswer(t *testing.T) {
	w := gittest.New(t, "main")
	var b strings.Builder
	b.WriteString("# Zoo\n\n")
	for k := range 10 {
		fmt.Fprintf(&b, "## Section %c\n\n%s other words here %d.\n\n", 'a'+k, strings.Repeat("zebra ", 10-k), k)
	}
	w.Write(map[string]string{"docs/zoo.md": b.String()})
	w.Commit("zoo")
	e := openCatalog(t, "  - id: /acme/zoo\n    repo: "+w.Dir+"\n")
	ctx := context.Background()
	res, err := e.Search(ctx, Request{Library: "/acme/zoo", Query: "zebra", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	rank := 0
	var want Expected
	for i, h := range res.Hits {
		if i >= 7 {
			rank, want = i+1, Expected{Path: h.Path, Heading: h.Heading}
			break
		}
	}
	if rank == 0 { // want an answer at rank 8 or below
		t.Fatalf("fewer than 8 hits: %d", len(res.Hits))
	}
	rep, err := Evaluate(ctx, e, []Question{{Library: "/acme/zoo", Query: "zebra", Expected: []Expected{want}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Misses) != 1 || rep.Misses[0].Rank != rank {
		t.Fatalf("misses %+v, want one at rank %d", rep.Misses, rank)
	}
	if got := len(rep.Misses[0].Top); got != rank-1 {
		t.Errorf("answer at rank %d: Top lists %d hits, want the %d ranked above it: %q", rank, got, rank-1, rep.Misses[0].Top)
	}
}
