package index

import (
	"cmp"
	"slices"
)

// TieShare is how close to its document's best section another section
// of that document must score to be tied with it: within 4% of the best's
// score. Sibling sections that share a question's words score within a
// few percent of each other, closer than BM25F's statistics can tell which
// one the question is about (docs/RETRIEVAL.md, "Kept: near-tied siblings
// in page order", has the sweep this share comes from).
const TieShare = 0.04

// tieReach bounds the sections a text search ranks past its limit to find
// those tied with its hits: at most this many times the limit, the best
// of those within TieShare below the last hit (topK's band). A page whose
// tied sibling lies further (more than that many other sections within 4%
// of one score) may then differ between a search's limits.
const tieReach = 8

// tiePlace is where a ranked section is: its document and its place in it.
type tiePlace struct {
	page       string
	line, part int
}

// tieOrder orders sections ranked by score (scores, best first; places,
// where each is) so that the sections of one document scoring within
// TieShare of that document's best section are tied with it: they take
// its place in the ranking, in the order the page gives them (line, then
// part), and rank by its score. Every other section ranks by its own
// score, in its order among the others. It returns the indexes in the new
// order and each section's key, the score it ranks by. Documentation
// introduces a thing before it elaborates on it ("File Parameters with
// UploadFile" before "Multiple File Uploads"), so of near-tied siblings
// the first is more often the one a question is about.
//
// The order depends only on the sections' scores and places, so the first
// n are the same whatever the number ranked, as long as the sections given
// hold every one scoring within TieShare of the n-th: Reader.SearchCount
// ranks them past its limit (topK's band), orders, then cuts.
func tieOrder(scores []float64, places []tiePlace) (order []int, keys []float64) {
	type tie struct {
		key   float64 // the score the section ranks by
		group int     // the index of the section whose score that is
	}
	ties := make([]tie, len(scores))
	keys = make([]float64, len(scores))
	order = make([]int, len(scores))
	best := make(map[string]int, len(scores)) // a document's first, best section
	tied := false
	for i, s := range scores {
		ties[i], order[i] = tie{s, i}, i
		b, ok := best[places[i].page]
		if !ok {
			best[places[i].page] = i
		} else if s >= (1-TieShare)*scores[b] {
			ties[i] = tie{scores[b], b}
			tied = true
		}
		keys[i] = ties[i].key
	}
	if !tied { // the common case: the ranking as it is
		return order, keys
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ta, tb := ties[a], ties[b]
		if c := cmp.Compare(tb.key, ta.key); c != 0 {
			return c
		}
		if c := cmp.Compare(ta.group, tb.group); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(places[a].line, places[b].line), cmp.Compare(places[a].part, places[b].part))
	})
	return order, keys
}

// relevance is a score over the best one, 1 when the best is not above 0.
func relevance(score, best float64) float64 {
	if best <= 0 {
		return 1
	}
	return score / best
}
