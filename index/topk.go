package index

import (
	"math"
	"slices"
)

// rankedDoc is one section found by the ranker: its document number in
// the index and its score.
type rankedDoc struct {
	doc   uint64
	score float64
}

// worse says a ranks below b: a lower score, or the same score later in
// the index (bluge's order for ties).
func worse(a, b *rankedDoc) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.doc > b.doc
}

// topK keeps the k best sections seen, in a min-heap whose root is the
// worst of them; with band above 0, also the sections scoring within that
// share below the k-th (the best belowCap of them, in a second min-heap).
// The ranker prunes at threshold, so that it scores every section the
// band may hold, and no other.
type topK struct {
	k    int
	heap []rankedDoc

	band     float64
	below    []rankedDoc
	belowCap int
}

func (t *topK) full() bool { return len(t.heap) >= t.k }

// threshold is the score a section must beat to enter once the heap is
// full.
func (t *topK) threshold() float64 {
	if !t.full() {
		return math.Inf(-1)
	}
	if t.band <= 0 {
		return t.heap[0].score
	}
	// A hair below the band's floor: the ranker skips a section whose
	// bound is not above the threshold, and one exactly at the floor
	// belongs to the band.
	th := t.floor() * (1 - 1e-9)
	if len(t.below) >= t.belowCap {
		th = max(th, t.below[0].score)
	}
	return th
}

// floor is the lowest score the band holds: within band of the k-th.
func (t *topK) floor() float64 { return (1 - t.band) * t.heap[0].score }

// offer adds d if it ranks above the worst held, or (with a band) within
// the band, and says whether the threshold changed.
func (t *topK) offer(d rankedDoc) bool {
	if t.band <= 0 {
		return t.enter(d)
	}
	before := t.threshold()
	if t.full() && !worse(&t.heap[0], &d) {
		t.keepBelow(d)
	} else {
		full := t.full()
		var evicted rankedDoc // the root, which d takes the place of
		if full {
			evicted = t.heap[0]
		}
		t.enter(d)
		if full {
			t.keepBelow(evicted)
		}
	}
	return t.threshold() != before
}

// keepBelow keeps d in the band if it scores within it: the best belowCap
// of those offered.
func (t *topK) keepBelow(d rankedDoc) {
	if d.score < t.floor() {
		return
	}
	if len(t.below) < t.belowCap {
		t.below = append(t.below, d)
		siftUp(t.below, len(t.below)-1)
		return
	}
	if t.belowCap > 0 && worse(&t.below[0], &d) {
		t.below[0] = d
		siftDown(t.below, 0)
	}
}

// enter adds d to the k best if it ranks above the worst held, and says
// whether the root (the k-th) changed.
func (t *topK) enter(d rankedDoc) bool {
	if !t.full() {
		t.heap = append(t.heap, d)
		siftUp(t.heap, len(t.heap)-1)
		return t.full()
	}
	if !worse(&t.heap[0], &d) {
		return false
	}
	t.heap[0] = d
	siftDown(t.heap, 0)
	return true
}

// siftUp restores the min-heap h (worst at the root) after h[i] was
// added at the end.
func siftUp(h []rankedDoc, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !worse(&h[i], &h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// siftDown restores the min-heap h after h[i] was replaced by a better.
func siftDown(h []rankedDoc, i int) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && worse(&h[l], &h[m]) {
			m = l
		}
		if r < len(h) && worse(&h[r], &h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// sorted returns the sections held, best first.
//
// With a band, the sections of the band that still score within it of
// the final k-th follow, best first: every one of them ranks below the k
// best, whose worst only ever rose.
func (t *topK) sorted() []rankedDoc {
	out := slices.Clone(t.heap)
	slices.SortFunc(out, byRank)
	if t.band <= 0 || len(t.below) == 0 {
		return out
	}
	n := len(out)
	floor := t.floor()
	for _, d := range t.below {
		if d.score >= floor {
			out = append(out, d)
		}
	}
	slices.SortFunc(out[n:], byRank)
	return out
}

// byRank orders sections best first.
func byRank(a, b rankedDoc) int {
	switch {
	case worse(&b, &a):
		return -1
	case worse(&a, &b):
		return 1
	}
	return 0
}
