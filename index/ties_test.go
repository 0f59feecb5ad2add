package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

func tieHit(path string, line, part int, score float64) Hit {
	return Hit{ID: fmt.Sprintf("%s:%d.%d", path, line, part), Meta: Meta{Path: path, Line: line, Part: part}, Score: score}
}

// TestOrderTies: sections of one document within TieShare of its best take
// the best's place in page order, with its relevance; other documents'
// hits and sections further behind keep their places and their own
// relevance.
func TestOrderTies(t *testing.T) {
	tests := []struct {
		name string
		hits []Hit
		want []string  // ids in order
		rel  []float64 // relevances in that order
	}{
		{"earlier sibling within the share moves up",
			[]Hit{tieHit("a.md", 20, 1, 10), tieHit("b.md", 1, 1, 9.8), tieHit("a.md", 5, 1, 9.7), tieHit("a.md", 30, 1, 9.0)},
			[]string{"a.md:5.1", "a.md:20.1", "b.md:1.1", "a.md:30.1"}, []float64{1, 1, 0.98, 0.9}},
		{"other documents are never reordered",
			[]Hit{tieHit("b.md", 9, 1, 10), tieHit("a.md", 1, 1, 9.9)},
			[]string{"b.md:9.1", "a.md:1.1"}, []float64{1, 0.99}},
		{"past the share, the page's order does not count",
			[]Hit{tieHit("a.md", 20, 1, 10), tieHit("a.md", 5, 1, 9.5)},
			[]string{"a.md:20.1", "a.md:5.1"}, []float64{1, 0.95}},
		{"parts of one section in order",
			[]Hit{tieHit("a.md", 5, 2, 10), tieHit("a.md", 5, 1, 9.9)},
			[]string{"a.md:5.1", "a.md:5.2"}, []float64{1, 1}},
		{"a tie below the first hit stays below it",
			[]Hit{tieHit("b.md", 1, 1, 12), tieHit("a.md", 20, 1, 10), tieHit("a.md", 5, 1, 9.7)},
			[]string{"b.md:1.1", "a.md:5.1", "a.md:20.1"}, []float64{1, 10.0 / 12, 10.0 / 12}},
		{"no tie: the ranking as it is",
			[]Hit{tieHit("a.md", 20, 1, 10), tieHit("b.md", 1, 1, 5)},
			[]string{"a.md:20.1", "b.md:1.1"}, []float64{1, 0.5}},
		{"no hits", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orderTies(tt.hits)
			if got := ids(tt.hits); strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("order %v, want %v", got, tt.want)
			}
			for i, h := range tt.hits {
				if d := h.Relevance - tt.rel[i]; d > 1e-12 || d < -1e-12 {
					t.Errorf("%s: relevance %v, want %v", h.ID, h.Relevance, tt.rel[i])
				}
			}
		})
	}
}

// TestSearchOrdersTiedSiblings: the reader applies tieOrder to a text
// search: of two near-tied sections of one page, the earlier ranks first
// although it scores a little lower; a search without text keeps index
// order.
func TestSearchOrdersTiedSiblings(t *testing.T) {
	at := func(line int, s *markdown.Section) *markdown.Section { s.Line = line; return s }
	entries := []Entry{
		{Path: "guide.md", Section: at(3, sec("intro", "Widgets", "A widget shows a value. Configure each widget with options."))},
		{Path: "guide.md", Section: at(20, sec("more", "More widgets", "Configure a widget, then another widget."))},
		{Path: "other.md", Section: at(1, sec("gadget", "Gadgets", "Gadgets are not configured."))},
	}
	r, err := Open(writeIndex(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hits, err := r.Search(context.Background(), Query{Text: "configure widget"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) < 2 || hits[0].Anchor != "intro" || hits[1].Anchor != "more" {
		t.Fatalf("hits %v, want guide.md#intro then guide.md#more", ids(hits))
	}
	if !(hits[0].Score < hits[1].Score && hits[0].Score >= (1-TieShare)*hits[1].Score) {
		t.Fatalf("scores %v and %v: the test wants the earlier section a little behind the later", hits[0].Score, hits[1].Score)
	}
	if hits[0].Relevance != 1 || hits[1].Relevance != 1 {
		t.Errorf("relevances %v, %v; want 1 for both (tied)", hits[0].Relevance, hits[1].Relevance)
	}
}

// TestTiesIndependentOfCut: a search's first n hits are the same whatever
// its limit (the first n of a search for 500), although tied sections
// move up past others: SearchCount ranks past its limit for them. Random
// pages of three sections, the later ones written first in the page (so
// that page order moves hits), over random questions.
func TestTiesIndependentOfCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	_, word := zipfWords(rng, 300)
	entries := randomEntries(rng, 900, word)
	for i := range entries {
		entries[i].Section.Line = 100 - 10*(i%3) // a page's sections in reverse
	}
	r, err := Open(writeIndex(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	moved := 0
	for i := range 150 {
		var ws []string
		for range 1 + rng.IntN(6) {
			ws = append(ws, word())
		}
		text := strings.Join(ws, " ")
		full, _, err := r.SearchCount(ctx, Query{Text: text, Limit: 500})
		if err != nil {
			t.Fatal(err)
		}
		for j := 1; j < len(full); j++ {
			if full[j].Score > full[j-1].Score {
				moved++
				break
			}
		}
		for _, n := range []int{1, 2, 3, 5, 10, 15, 32} {
			hits, _, err := r.SearchCount(ctx, Query{Text: text, Limit: n})
			if err != nil {
				t.Fatal(err)
			}
			want := full[:min(n, len(full))]
			if strings.Join(ids(hits), " ") != strings.Join(ids(want), " ") {
				t.Fatalf("question %d %q, limit %d: %v, want the first %d of limit 500: %v", i, text, n, ids(hits), n, ids(want))
			}
		}
	}
	if moved == 0 {
		t.Fatal("no question moved a tied section up: the test exercises nothing")
	}
	t.Logf("%d of 150 questions moved a tied section up", moved)
}
