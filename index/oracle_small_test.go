package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

// TestRankerMatchesBlugeOnSmallCorpora compares the ranker with the exhaustive
// bluge oracle on many small corpora drawn from a tiny vocabulary: exact
// ties (duplicated sections), repeated query words, words only in one
// field, empty prose, path filters combined with text, limits above the
// matches, typos.
func TestRankerMatchesBlugeOnSmallCorpora(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 12))
	vocab := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "boxed", "unboxed", "charted", "uncharted", "ungulf"}
	codeOnly := []string{"zulu_xray", "yankee", "whiskeyValue"}
	inboundOnly := []string{"victor", "uniform"}
	compare := func(r *Reader, q Query) {
		t.Helper()
		compareWithOracle(t, ctx, r, q)
	}
	for c := range 40 {
		n := 3 + rng.IntN(60)
		var entries []Entry
		pick := func(k int) string {
			ws := make([]string, k)
			for i := range ws {
				ws[i] = vocab[rng.IntN(len(vocab))]
			}
			return strings.Join(ws, " ")
		}
		for i := range n {
			if i > 0 && rng.IntN(4) == 0 {
				// An exact duplicate of an earlier section, in another place.
				prev := entries[rng.IntN(len(entries))]
				s := *prev.Section
				s.Anchor = fmt.Sprintf("dup%d", i)
				entries = append(entries, Entry{Path: prev.Path, Section: &s, Topics: prev.Topics, Inbound: prev.Inbound, Translation: prev.Translation})
				continue
			}
			title := pick(1 + rng.IntN(2))
			prose := pick(rng.IntN(8))
			if rng.IntN(5) == 0 {
				prose = ""
			}
			s := &markdown.Section{Anchor: fmt.Sprintf("s%d", i), Heading: title, Title: title, Level: 2, Parts: 1,
				HeadingPath: []string{"Doc", title}, Prose: title + " " + prose, Text: "## " + title + "\n\n" + prose}
			if rng.IntN(3) == 0 {
				s.Level, s.HeadingPath = 1, []string{title}
			}
			if rng.IntN(3) == 0 {
				s.Code = append(s.Code, markdown.CodeBlock{Lang: "go", Code: codeOnly[rng.IntN(len(codeOnly))] + " " + pick(2)})
			}
			s.Tokens = len(s.Text) / 4
			path := []string{"docs/a.md", "docs/b.md", "blog/c.md", "docs/changelog.md"}[rng.IntN(4)]
			var topics []string
			if rng.IntN(2) == 0 {
				topics = []string{"t1"}
			}
			if rng.IntN(3) == 0 {
				topics = append(topics, "t2")
			}
			var inbound string
			if rng.IntN(4) == 0 {
				inbound = inboundOnly[rng.IntN(len(inboundOnly))] + " " + pick(1)
			}
			entries = append(entries, Entry{Path: path, Section: s, Topics: topics, Inbound: inbound, Translation: rng.IntN(6) == 0})
		}
		r, err := Open(writeIndex(t, entries))
		if err != nil {
			t.Fatal(err)
		}
		for range 60 {
			var ws []string
			for range 1 + rng.IntN(6) {
				switch rng.IntN(10) {
				case 0:
					ws = append(ws, codeOnly[rng.IntN(len(codeOnly))])
				case 1:
					ws = append(ws, inboundOnly[rng.IntN(len(inboundOnly))])
				case 2:
					w := vocab[rng.IntN(len(vocab))]
					ws = append(ws, w[:1]+w[2:]) // typo
				case 3:
					ws = append(ws, "the", "of") // stop words
				case 4:
					// A negated word, whose un- word may be there: "ungolf"
					// is not, and is one edit from "ungulf", which a typo
					// look-up would find.
					ws = append(ws, []string{"not", "never", "isn't"}[rng.IntN(3)], []string{"boxed", "charted", "golfed"}[rng.IntN(3)])
				default:
					ws = append(ws, vocab[rng.IntN(len(vocab))])
				}
			}
			if rng.IntN(4) == 0 {
				ws = append(ws, ws...) // repeated words
			}
			q := Query{Text: strings.Join(ws, " "), Limit: []int{1, 2, 3, 5, 10, 100, 1000}[rng.IntN(7)]}
			switch rng.IntN(6) {
			case 0:
				q.Path = []string{"docs/a.md", "docs/b.md", "blog/c.md", "nope.md"}[rng.IntN(4)]
			case 1:
				q.Path, q.Kind = "docs/a.md", KindCode
			case 2:
				q.Topics = []string{"t2", "t1", "zz"}[:1+rng.IntN(3)]
			case 3:
				q.Path, q.Topics = "docs/b.md", []string{"t2"}
			}
			compare(r, q)
		}
		r.Close()
		if t.Failed() {
			t.Fatalf("corpus %d", c)
		}
	}
}
