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

// orderTies orders a text search's hits, ranked by score, so that the
// sections of one document scoring within TieShare of that document's
// best section are tied with it: they take its place in the ranking, in
// the order the page gives them (line, then part), each with the best's
// relevance. Every other hit keeps its place and its own relevance, which
// is its score over the first hit's. Documentation introduces a thing
// before it elaborates on it ("File Parameters with UploadFile" before
// "Multiple File Uploads"), so of near-tied siblings the first is more
// often the one a question is about.
//
// The order depends only on the hits' scores, paths and lines, never on
// how many were ranked, but for a tied sibling ranked just past the limit:
// it is not among the hits to move up.
func orderTies(hits []Hit) {
	if len(hits) == 0 {
		return
	}
	type tie struct {
		key   float64 // the score the hit ranks by
		group int     // the index of the hit whose score that is
	}
	ties := make([]tie, len(hits))
	best := make(map[string]int, len(hits)) // a document's first, best hit
	tied := false
	for i := range hits {
		ties[i] = tie{hits[i].Score, i}
		b, ok := best[hits[i].Path]
		if !ok {
			best[hits[i].Path] = i
			continue
		}
		if hits[i].Score >= (1-TieShare)*hits[b].Score {
			ties[i] = tie{hits[b].Score, b}
			tied = true
		}
	}
	if !tied { // the common case: the ranking as it is
		for i := range hits {
			hits[i].Relevance = relevance(hits[i].Score, hits[0].Score)
		}
		return
	}
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ta, tb := ties[a], ties[b]
		if c := cmp.Compare(tb.key, ta.key); c != 0 {
			return c
		}
		if c := cmp.Compare(ta.group, tb.group); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(hits[a].Line, hits[b].Line), cmp.Compare(hits[a].Part, hits[b].Part))
	})
	top := ties[order[0]].key
	for i := range hits {
		hits[i].Relevance = relevance(ties[i].key, top)
	}
	// hits[i] = hits[order[i]], in place, cycle by cycle (order marks
	// what it moved with -1), so a long list of candidates is not copied.
	for i := range order {
		if order[i] < 0 {
			continue
		}
		held := hits[i]
		for j := i; ; {
			k := order[j]
			order[j] = -1
			if k == i {
				hits[j] = held
				break
			}
			hits[j], j = hits[k], k
		}
	}
}

// relevance is a score over the best one, 1 when the best is not above 0.
func relevance(score, best float64) float64 {
	if best <= 0 {
		return 1
	}
	return score / best
}
