package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blugelabs/bluge/search/searcher"

	"github.com/codex7/codex7/markdown"
)

// zipfWords returns a vocabulary of n made-up words and a function that
// draws from it with Zipf's law, as words occur in prose: a few match most
// sections, most match a few.
func zipfWords(rng *rand.Rand, n int) ([]string, func() string) {
	words := make([]string, n)
	seen := map[string]bool{}
	for i := range words {
		for {
			var b strings.Builder
			for range 4 + rng.IntN(5) {
				b.WriteByte("bcdfghjklmnprstvz"[rng.IntN(17)])
				b.WriteByte("aeiou"[rng.IntN(5)])
			}
			if w := b.String(); !seen[w] {
				seen[w] = true
				words[i] = w
				break
			}
		}
	}
	z := rand.NewZipf(rng, 1.1, 2, uint64(n-1))
	return words, func() string { return words[z.Uint64()] }
}

// randomEntries returns n sections of random words in a few folders, some
// of them changelogs, blog posts, heading-only sections and introductions,
// tagged with topics, some with code, some with the texts of links to them.
func randomEntries(rng *rand.Rand, n int, word func() string) []Entry {
	phrase := func(min, max int) string {
		ws := make([]string, min+rng.IntN(max-min+1))
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	folders := []string{"docs/guide", "docs/api", "docs/blog", "docs", "reference"}
	topicNames := []string{"alpha", "beta", "gamma", "delta", "epsilon"}
	var entries []Entry
	for i := range n {
		path := fmt.Sprintf("%s/%s-%d.md", folders[rng.IntN(len(folders))], word(), i/3)
		if rng.IntN(40) == 0 {
			path = fmt.Sprintf("docs/changelog-%d.md", i)
		}
		title := phrase(1, 4)
		prose := phrase(5, 120)
		if rng.IntN(15) == 0 {
			prose = ""
		}
		s := &markdown.Section{Anchor: fmt.Sprintf("s%d", i), Heading: title, Title: title, Level: 2, Parts: 1,
			HeadingPath: []string{"Doc " + word(), title}, Prose: title + " " + prose, Text: "## " + title + "\n\n" + prose}
		if rng.IntN(8) == 0 {
			s.Level, s.HeadingPath = 1, []string{title}
		}
		for range rng.IntN(3) {
			s.Code = append(s.Code, markdown.CodeBlock{Lang: "js", Code: strings.ReplaceAll(phrase(2, 20), " ", "_")})
		}
		s.Tokens = len(s.Text) / 4
		var topics []string
		for _, t := range topicNames {
			if rng.IntN(4) == 0 {
				topics = append(topics, t)
			}
		}
		var inbound string
		if rng.IntN(5) == 0 {
			inbound = phrase(1, 6) + "\n" + phrase(1, 3)
		}
		entries = append(entries, Entry{Path: path, Section: s, Topics: topics, Inbound: inbound})
	}
	return entries
}

// compareWithOracle checks that the ranker's hits and count for q are the
// exhaustive bluge oracle's: the same sections in the same order, the same
// scores (to the last bit where bluge sums the terms in the ranker's
// order), relevances and texts.
func compareWithOracle(t *testing.T, ctx context.Context, r *Reader, q Query) {
	t.Helper()
	want, wantN, err := oracleSearch(ctx, r, q)
	if err != nil {
		t.Fatal(err)
	}
	got, gotN, err := r.SearchCount(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if gotN != wantN {
		t.Errorf("%+v: %d match, want %d", q, gotN, wantN)
	}
	if len(got) != len(want) {
		t.Errorf("%+v: %d hits, want %d", q, len(got), len(want))
		return
	}
	for j := range want {
		g, w := got[j], want[j]
		// bluge sums more than DisjunctionHeapTakeover terms in
		// an order of its own: the last bits may differ there.
		exact := len(r.terms(q.Text)) <= searcher.DisjunctionHeapTakeover
		if g.ID != w.ID || exact && g.Score != w.Score || math.Abs(g.Score-w.Score) > 1e-12*w.Score || g.Relevance != w.Relevance && math.Abs(g.Relevance-w.Relevance) > 1e-12 || g.Text != w.Text {
			t.Errorf("%+v: hit %d is %s (score %v), want %s (score %v)", q, j, g.ID, g.Score, w.ID, w.Score)
			return
		}
	}
}

// TestRankerMatchesBluge checks the ranker against its oracle, the
// exhaustive BM25F query bluge runs (oracleSearch): for random questions
// (common and rare words, words found nowhere and misspelled, with and
// without filters, for any number of results), and for filters without
// text, the same sections in the same order with the same scores, and the
// same count of matching sections. The index is large enough that common
// words' postings span several chunks, which skipping crosses, and that
// the writer merged two batches.
func TestRankerMatchesBluge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words, word := zipfWords(rng, 800)
	entries := randomEntries(rng, batchSize+500, word)
	r, err := Open(writeIndex(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	queries := 0
	compare := func(q Query) {
		t.Helper()
		queries++
		compareWithOracle(t, ctx, r, q)
	}
	var typo = func(w string) string { return w[:1] + w[2:] } // one letter dropped
	const questions = 250
	for i := range questions {
		var ws []string
		for range 1 + rng.IntN(14) {
			switch rng.IntN(12) {
			case 0:
				ws = append(ws, "qqxq"+fmt.Sprint(i)) // found nowhere
			case 1:
				ws = append(ws, typo(words[rng.IntN(len(words))]))
			default:
				ws = append(ws, word())
			}
		}
		q := Query{Text: strings.Join(ws, " "), Limit: []int{1, 5, 10, 60, 500}[rng.IntN(5)], WithText: i%7 == 0}
		switch rng.IntN(6) {
		case 0:
			q.Topics = []string{"beta", "delta"}[:1+rng.IntN(2)]
		case 1:
			q.Kind = []string{KindInfo, KindCode}[rng.IntN(2)]
		case 2:
			q.Kind, q.Topics = KindCode, []string{"epsilon"}
		case 3:
			q.Topics = []string{"nosuchtopic"}
		}
		compare(q)
	}
	// Filters without text.
	path := entries[len(entries)/2].Path
	filters := []Query{
		{Topics: []string{"alpha"}},
		{Topics: []string{"beta", "delta"}, Limit: 500},
		{Topics: []string{"gamma"}, Kind: KindCode, Limit: 60, WithText: true},
		{Topics: []string{"nosuchtopic"}},
		{Path: path},
		{Path: path, Kind: KindInfo, Topics: []string{"alpha", "epsilon"}},
		{Path: "no/such/path.md"},
	}
	for _, q := range filters {
		compare(q)
	}
	if want := questions + len(filters); queries != want {
		t.Errorf("%d queries compared, want %d", queries, want)
	}
}

func TestRankerCancelled(t *testing.T) {
	r, err := Open(writeIndex(t, testEntries()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Search(ctx, Query{Text: "origin"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Search with a cancelled context: error %v, want context.Canceled", err)
	}
}

// BenchmarkRank compares the ranker with the exhaustive bluge query it
// replaced (oracleSearch), on 20,000 sections of Zipf-distributed words
// (as many as the larger corpora) and questions of 2 to 10 of those words:
// common words match most sections, as on tldr or withastro. One op is one search for
// the best 32 with the count of all matches, as a documentation answer
// asks.
func BenchmarkRank(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	_, word := zipfWords(rng, 5000)
	r, err := Open(writeIndex(b, randomEntries(rng, 20000, word)))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var queries []Query
	for range 200 {
		ws := make([]string, 2+rng.IntN(9))
		for i := range ws {
			ws[i] = word()
		}
		queries = append(queries, Query{Text: strings.Join(ws, " "), Limit: 32})
	}
	for _, bc := range []struct {
		name   string
		search func(context.Context, Query) ([]Hit, int, error)
	}{{"maxscore", r.SearchCount}, {"bluge", func(ctx context.Context, q Query) ([]Hit, int, error) { return oracleSearch(ctx, r, q) }}} {
		b.Run(bc.name, func(b *testing.B) {
			matched := 0
			i := 0
			for b.Loop() {
				_, n, err := bc.search(context.Background(), queries[i%len(queries)])
				if err != nil {
					b.Fatal(err)
				}
				matched += n
				i++
			}
			b.ReportMetric(float64(matched)/float64(i), "matched/op")
		})
	}
}

// TestTightBounds checks that bounding each term by its largest frequency
// (rankIndex.largestTF) rather than by idf * (k1 + 1) scores fewer
// sections for the same answers. (On the served corpora, for the dev
// questions, 16% fewer: 258,439 against 306,946.)
func TestTightBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	_, word := zipfWords(rng, 2000)
	dir := writeIndex(t, randomEntries(rng, 4000, word))
	tight, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tight.Close()
	loose, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer loose.Close()
	loose.ranker.looseBounds = true
	ctx := context.Background()
	for range 100 {
		ws := make([]string, 2+rng.IntN(8))
		for i := range ws {
			ws[i] = word()
		}
		q := Query{Text: strings.Join(ws, " "), Limit: 32}
		got, gotN, err := tight.SearchCount(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want, wantN, err := loose.SearchCount(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if gotN != wantN || len(got) != len(want) {
			t.Fatalf("%q: %d hits of %d, want %d of %d", q.Text, len(got), gotN, len(want), wantN)
		}
		for i := range want {
			if got[i].ID != want[i].ID || got[i].Score != want[i].Score {
				t.Fatalf("%q: hit %d is %s (%v), want %s (%v)", q.Text, i, got[i].ID, got[i].Score, want[i].ID, want[i].Score)
			}
		}
	}
	n, m := tight.ranker.scored.Load(), loose.ranker.scored.Load()
	t.Logf("sections scored: %d with tight bounds, %d with idf * (k1 + 1); visited %d, %d", n, m, tight.ranker.steps.Load(), loose.ranker.steps.Load())
	if n*100 > m*95 {
		t.Errorf("tight bounds scored %d sections, loose ones %d: want at least 5%% fewer", n, m)
	}
}

// TestLargestTFCap checks that the terms whose bounds an index keeps stay
// at maxTFTerms however many are asked for, new ones replacing old.
func TestLargestTFCap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	words, word := zipfWords(rng, 6000)
	r, err := Open(writeIndex(t, randomEntries(rng, 3000, word)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	asked := 0
	for _, w := range words {
		if _, n, err := r.SearchCount(ctx, Query{Text: w, Limit: 5}); err != nil {
			t.Fatal(err)
		} else if n > 0 {
			asked++
		}
	}
	r.ranker.mu.Lock()
	kept := len(r.ranker.maxTF)
	r.ranker.mu.Unlock()
	if asked <= maxTFTerms || kept != maxTFTerms {
		t.Errorf("asked for %d terms found in the index, %d kept; want more than %d asked and %d kept", asked, kept, maxTFTerms, maxTFTerms)
	}
}

// TestInboundLinkTextRanks checks that the words other pages link to a
// section with find it, as its own words do: a question in the linking
// page's words ranks the linked section first, above a section that only
// mentions them in passing once.
func TestInboundLinkTextRanks(t *testing.T) {
	sec := func(anchor, title, prose string) *markdown.Section {
		return &markdown.Section{Anchor: anchor, Heading: title, Title: title, Level: 2, Parts: 1,
			HeadingPath: []string{"Options", title}, Prose: title + " " + prose, Text: "## " + title + "\n\n" + prose, Tokens: 20}
	}
	entries := []Entry{
		{Path: "config/options.md", Section: sec("base", "base", "Public path when served in development or production."),
			Inbound: "a nested public path\ndeploying under a sub-folder"},
		{Path: "config/options.md", Section: sec("outdir", "build.outDir", "Output directory, relative to the project root.")},
		{Path: "guide/deploy.md", Section: sec("pages", "Pages", "Deploy the dist folder; a sub-folder needs its own setting, see below.")},
	}
	r, err := Open(writeIndex(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hits, err := r.Search(context.Background(), Query{Text: "deploy under a nested sub-folder", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Anchor != "base" {
		t.Fatalf("hits %v, want config/options.md#base first (its inbound link texts)", hits)
	}
}
