package index

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring"
	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"
	segment "github.com/blugelabs/bluge_segment_api"
)

// The ranker is the package's one ranking: it ranks sections by BM25F
// (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25
// and Beyond", 2009) over several fields that share one term space: for
// each query term, its occurrences in every field are weighted,
// normalized by that field's length and summed into one pseudo-frequency,
// which is saturated once. A term found in a heading, the heading path and
// the body therefore counts once, strongly, rather than three times, and a
// section matching more of the query's distinct terms wins over one
// repeating a single term in every field. Flagged sections' scores are
// then multiplied by their priors.
//
// It computes the scores the exhaustive bluge query of oracle_test.go
// computes (its test oracle, TestRankerMatchesBluge), but finds the top k
// without scoring every matching section. bluge scores every document a
// disjunction matches: on the largest libraries (38,000 sections) a
// question's common words match most of them, and that was most of a
// call's CPU. The ranker instead walks the postings document at a time
// with MaxScore (Turtle and Flood, "Query evaluation: strategies and
// optimizations", 1995): a term's contribution to a score is at most
// idf * (k1 + 1) whatever its frequency, so once k sections are held, the
// terms whose bounds sum to no more than the k-th best score cannot put a
// section into the top k alone. Only sections matching one of the other,
// rarer, terms are candidates; the common terms' postings are skipped to
// the candidates rather than read in full, and a candidate is dropped as
// soon as what it has plus what it could still gain cannot beat the k-th
// (unscored when the bounds of the terms it matches already cannot). The
// sections that match in all are counted on the postings'
// bitmaps, without reading frequencies. The result is the exhaustive
// ranking's: the same sections in the same order (ties by index order),
// with the same scores. It reads the segment's postings through
// segment.go, the package's one reach into bluge's internals.

// noDoc marks an exhausted cursor.
const noDoc = math.MaxUint64

// boundSlack widens score bounds against floating-point rounding: a
// section is skipped only when its bound, so widened, is still no better
// than the k-th score.
const boundSlack = 1 + 1e-9

// rankIndex is what ranking needs of an index that does not change while
// it is open: its one segment and its fields' statistics. It is safe for
// concurrent use.
type rankIndex struct {
	snap   search.Reader // bluge's snapshot, for typo look-ups
	seg    segment.Segment
	avgLen []float64 // per field of fields; 0 when no section has the field
	docs   float64   // sections in the index
	// flags holds, per document, bit i set when the document has the
	// flag of priors[i]; nil when no document has one.
	flags []uint8
	// maxTF holds, for terms queried recently (up to maxTFTerms), the
	// largest weighted frequency (termCursor.score's tf) the term has in
	// any section: its score bound is what that frequency scores, far
	// below idf * (k1 + 1) for most terms, so that far fewer sections are
	// candidates.
	mu    sync.Mutex
	maxTF map[string]float64
	// looseBounds makes every term's bound idf * (k1 + 1), as without
	// maxTF, and scored counts the sections scored in full, the work
	// pruning leaves: for tests.
	looseBounds   bool
	scored, steps atomic.Int64

	// records maps each document to its section record (the stored _id
	// field), read once on first need: a search looks up every section
	// it ranked, past its limit too (topK's band), and a stored-field
	// visit costs two allocations.
	recordsOnce sync.Once
	records     []uint32
	recordsErr  error
}

// maxTFTerms caps the terms whose largest frequency a rankIndex keeps, at
// about 150 KB; a new term then replaces one at random. Queries repeat
// their words: the dev questions have about 300 a library.
const maxTFTerms = 1 << 11

// newRankIndex reads what ranking needs of r. Its error wraps
// ErrUnrankable when r is not an index Write made (see openSegment).
func newRankIndex(r *bluge.Reader) (*rankIndex, error) {
	snap, seg, err := openSegment(r)
	if err != nil {
		return nil, err
	}
	ri := &rankIndex{snap: snap, seg: seg, avgLen: make([]float64, len(fields)), maxTF: map[string]float64{}}
	for i, f := range fields {
		cs, err := snap.CollectionStats(f.field)
		if err != nil {
			return nil, err
		}
		if cs == nil {
			continue
		}
		if n := cs.DocumentCount(); n > 0 {
			ri.avgLen[i] = float64(cs.SumTotalTermFrequency()) / float64(n)
		}
		ri.docs = math.Max(ri.docs, float64(cs.TotalDocumentCount()))
	}
	dict, err := ri.seg.Dictionary(FieldFlags)
	if err != nil {
		return nil, err
	}
	for i, pr := range priors {
		bm, err := bitmap(dict, pr.flag)
		if err != nil {
			return nil, err
		}
		if bm == nil {
			continue
		}
		if ri.flags == nil {
			ri.flags = make([]uint8, ri.seg.Count())
		}
		for it := bm.Iterator(); it.HasNext(); {
			if d := it.Next(); int(d) < len(ri.flags) {
				ri.flags[d] |= 1 << i
			}
		}
	}
	return ri, nil
}

// bitmap returns the documents of term in dict, nil when none. The caller
// must not modify it.
func bitmap(dict segment.Dictionary, term string) (*roaring.Bitmap, error) {
	pl, err := dict.PostingsList([]byte(term), nil, nil)
	if err != nil {
		return nil, err
	}
	if pl.Count() == 0 {
		return nil, nil
	}
	it, err := pl.Iterator(false, false, false, nil)
	if err != nil {
		return nil, err
	}
	return postingsBitmap(it)
}

// filter returns the documents that q's topics, kind and path allow, nil
// when q has none of them (every document is allowed).
func (ri *rankIndex) filter(q *Query) (*roaring.Bitmap, error) {
	var all []*roaring.Bitmap
	if len(q.Topics) > 0 {
		dict, err := ri.seg.Dictionary(FieldTopics)
		if err != nil {
			return nil, err
		}
		var any []*roaring.Bitmap
		for _, t := range q.Topics {
			bm, err := bitmap(dict, t)
			if err != nil {
				return nil, err
			}
			if bm != nil {
				any = append(any, bm)
			}
		}
		all = append(all, roaring.FastOr(any...))
	}
	for _, kv := range [][2]string{{FieldKind, q.Kind}, {FieldPath, q.Path}} {
		if kv[1] == "" {
			continue
		}
		dict, err := ri.seg.Dictionary(kv[0])
		if err != nil {
			return nil, err
		}
		bm, err := bitmap(dict, kv[1])
		if err != nil {
			return nil, err
		}
		if bm == nil {
			bm = roaring.New()
		}
		all = append(all, bm)
	}
	switch len(all) {
	case 0:
		return nil, nil
	case 1:
		return all[0], nil
	}
	return roaring.FastAnd(all...), nil
}

// filtered returns the first k sections within q's filters, in index
// order, each scored 1 (as bluge scores a filter's matches), and the
// number of sections within them. With no filter, every section is.
func (ri *rankIndex) filtered(ctx context.Context, q *Query, k int) ([]rankedDoc, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	filter, err := ri.filter(q)
	if err != nil {
		return nil, 0, err
	}
	if filter == nil {
		filter = roaring.New()
		filter.AddRange(0, ri.seg.Count())
	}
	n := int(filter.GetCardinality())
	docs := make([]rankedDoc, 0, min(k, n))
	for it := filter.Iterator(); it.HasNext() && len(docs) < k; {
		docs = append(docs, rankedDoc{doc: uint64(it.Next()), score: 1})
	}
	return docs, n, nil
}

// fieldCursor walks one term's postings in one field.
type fieldCursor struct {
	it     segment.PostingsIterator
	doc    uint64 // the current posting's document, noDoc at the end
	freq   int
	norm   float64
	weight float64
	b      float64
	avgLen float64
}

func (c *fieldCursor) set(p segment.Posting) {
	if p == nil {
		c.doc = noDoc
		return
	}
	c.doc, c.freq, c.norm = p.Number(), p.Frequency(), p.Norm()
}

func (c *fieldCursor) next() error {
	p, err := c.it.Next()
	if err != nil {
		return err
	}
	c.set(p)
	return nil
}

// advance moves to the first posting at or after doc.
func (c *fieldCursor) advance(doc uint64) error {
	if c.doc >= doc {
		return nil
	}
	p, err := c.it.Advance(doc)
	if err != nil {
		return err
	}
	c.set(p)
	return nil
}

// tf is the field's weighted, length-normalized frequency at the current
// posting: fieldTF's Score, computed the same way.
func (c *fieldCursor) tf() float64 {
	length := float64(math.Float32bits(float32(c.norm))) // bluge's norm encoding
	return c.weight * float64(c.freq) / (1 - c.b + c.b*length/c.avgLen)
}

// termCursor walks one query term's postings in every field.
type termCursor struct {
	fields []fieldCursor
	cur    uint64  // the first document any of the fields is at
	idf    float64 // the term's weight times its idf
	bound  float64 // the most the term can add to a score
	pos    int     // the term's place in the query, for summing in order
}

// refresh sets cur after fields moved.
func (t *termCursor) refresh() {
	d := uint64(noDoc)
	for i := range t.fields {
		d = min(d, t.fields[i].doc)
	}
	t.cur = d
}

// next moves the fields at document d past it.
func (t *termCursor) next(d uint64) error {
	if t.cur != d {
		return nil
	}
	for i := range t.fields {
		if c := &t.fields[i]; c.doc == d {
			if err := c.next(); err != nil {
				return err
			}
		}
	}
	t.refresh()
	return nil
}

// advance moves every field to its first posting at or after d.
func (t *termCursor) advance(d uint64) error {
	if t.cur >= d {
		// The fields behind cur are all at or after it.
		return nil
	}
	for i := range t.fields {
		if err := t.fields[i].advance(d); err != nil {
			return err
		}
	}
	t.refresh()
	return nil
}

// score returns the term's contribution to document doc, which none of
// its cursors is past: saturate's score of the summed field frequencies.
func (t *termCursor) score(doc uint64) (float64, bool) {
	var tf float64
	found := false
	for i := range t.fields {
		if c := &t.fields[i]; c.doc == doc {
			tf += c.tf()
			found = true
		}
	}
	if !found {
		return 0, false
	}
	return t.idf * tf * (k1 + 1) / (tf + k1), true
}

// queryTerm is a term of the query with its postings lists.
type queryTerm struct {
	term   string
	weight float64
	idf    float64
	lists  []segment.PostingsList // per field of fields, nil when absent
	// counts are the term's postings per field; count is their sum.
	counts []uint64
	count  uint64
	// order lists the fields the term is in, in the order bluge sums them.
	order []int
}

// rank returns the k best sections for terms (the analyzed query text)
// within q's filters, best first, and the number of sections that match.
//
// With band above 0, the sections scoring within that share below the
// k-th are returned too, after the k best (see topK.band): Reader.SearchCount
// needs them for the sections tied with its hits (tieOrder).
func (ri *rankIndex) rank(ctx context.Context, terms []queryWord, q *Query, k int, band float64) ([]rankedDoc, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	dicts := make([]segment.Dictionary, len(fields))
	for fi, f := range fields {
		if ri.avgLen[fi] == 0 {
			continue
		}
		d, err := ri.seg.Dictionary(f.field)
		if err != nil {
			return nil, 0, err
		}
		dicts[fi] = d
	}
	// lookup returns term's postings, nil when no field has it.
	lookup := func(term string, weight float64) (*queryTerm, error) {
		qt := &queryTerm{term: term, weight: weight, lists: make([]segment.PostingsList, len(fields)), counts: make([]uint64, len(fields))}
		var df uint64
		for fi, d := range dicts {
			if d == nil {
				continue
			}
			pl, err := d.PostingsList([]byte(term), nil, nil)
			if err != nil {
				return nil, err
			}
			n := pl.Count()
			if n == 0 {
				continue
			}
			qt.lists[fi], qt.counts[fi] = pl, n
			qt.count += n
			qt.order = append(qt.order, fi)
			df = max(df, n)
		}
		if df == 0 {
			return nil, nil
		}
		slices.SortStableFunc(qt.order, func(a, b int) int { return cmp.Compare(qt.counts[b], qt.counts[a]) })
		// As the oracle's bm25fQuery: the term's document frequency over
		// all fields is at least its largest per-field one.
		idf := math.Log(1 + (ri.docs-float64(df)+0.5)/(float64(df)+0.5))
		qt.idf = weight * idf
		return qt, nil
	}
	var qterms []*queryTerm
	corrections := 0
	for _, w := range terms {
		qt, err := lookup(w.term, w.weight)
		if err == nil && qt == nil && !w.implied && corrections < maxTypos {
			corrections++
			var alt string
			if alt, err = correct(ri.snap, FieldBody, w.term); err == nil && alt != "" {
				qt, err = lookup(alt, typoWeight)
			}
		}
		if err != nil {
			return nil, 0, err
		}
		if qt != nil {
			qterms = append(qterms, qt)
		}
	}
	if len(qterms) == 0 {
		return nil, 0, nil
	}
	if len(qterms) <= searcher.DisjunctionHeapTakeover {
		// The order bluge sums the terms in, so that scores are the same
		// to the last bit (and ties between sections stay ties).
		slices.SortStableFunc(qterms, func(a, b *queryTerm) int { return cmp.Compare(b.count, a.count) })
	}
	top := &topK{k: k}
	if band > 0 {
		top.band, top.belowCap = band, (tieReach-1)*k
	}
	matched, err := ri.collect(ctx, qterms, q, top)
	if err != nil {
		return nil, 0, err
	}
	return top.sorted(), matched, nil
}

// collect offers the best sections matching qterms within q's filters to
// top and returns how many sections match.
func (ri *rankIndex) collect(ctx context.Context, qterms []*queryTerm, q *Query, top *topK) (int, error) {
	filter, err := ri.filter(q)
	if err != nil {
		return 0, err
	}
	if filter != nil && filter.IsEmpty() {
		return 0, nil
	}
	terms := make([]termCursor, len(qterms))
	var bitmaps []*roaring.Bitmap
	for pos, qt := range qterms {
		if bitmaps, err = ri.cursor(&terms[pos], qt, pos, bitmaps); err != nil {
			return 0, err
		}
		m, err := ri.largestTF(ctx, qt)
		if err != nil {
			return 0, err
		}
		if m > 0 {
			terms[pos].bound = qt.idf * m * (k1 + 1) / (m + k1)
		}
	}
	matching := roaring.FastOr(bitmaps...)
	var matched int
	if filter != nil {
		matched = int(matching.AndCardinality(filter))
	} else {
		matched = int(matching.GetCardinality())
	}
	if matched == 0 {
		return 0, nil
	}
	return matched, ri.maxScore(ctx, terms, len(qterms), filter, top)
}

// cursor sets t to walk qt's postings from the start, and returns bitmaps
// with the postings' bitmaps appended.
func (ri *rankIndex) cursor(t *termCursor, qt *queryTerm, pos int, bitmaps []*roaring.Bitmap) ([]*roaring.Bitmap, error) {
	*t = termCursor{idf: qt.idf, bound: qt.idf * (k1 + 1), pos: pos, fields: make([]fieldCursor, 0, len(qt.order))}
	for _, fi := range qt.order {
		it, err := qt.lists[fi].Iterator(true, true, false, nil)
		if err != nil {
			return nil, err
		}
		bm, err := postingsBitmap(it)
		if err != nil {
			return nil, err
		}
		bitmaps = append(bitmaps, bm)
		c := fieldCursor{it: it, weight: fields[fi].weight, b: fields[fi].b, avgLen: ri.avgLen[fi]}
		if err := c.next(); err != nil {
			return nil, err
		}
		t.fields = append(t.fields, c)
	}
	t.refresh()
	return bitmaps, nil
}

// largestTF returns the largest weighted frequency qt has in any section,
// walking its postings the first time a term is asked for (again if it
// was dropped since), or 0 when the index keeps no bounds (the bound is
// then idf * (k1 + 1)).
func (ri *rankIndex) largestTF(ctx context.Context, qt *queryTerm) (float64, error) {
	if ri.looseBounds {
		return 0, nil
	}
	ri.mu.Lock()
	m, ok := ri.maxTF[qt.term]
	ri.mu.Unlock()
	if ok {
		return m, nil
	}
	var t termCursor
	if _, err := ri.cursor(&t, qt, 0, nil); err != nil {
		return 0, err
	}
	for n := 0; t.cur != noDoc; n++ {
		if n&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		var tf float64
		for i := range t.fields {
			if c := &t.fields[i]; c.doc == t.cur {
				tf += c.tf()
			}
		}
		m = max(m, tf)
		if err := t.next(t.cur); err != nil {
			return 0, err
		}
	}
	ri.mu.Lock()
	if len(ri.maxTF) >= maxTFTerms {
		for k := range ri.maxTF { // map order: one at random
			delete(ri.maxTF, k)
			break
		}
	}
	ri.maxTF[qt.term] = m
	ri.mu.Unlock()
	return m, nil
}

// priorOf returns the product of the factors of document d's flags.
func (ri *rankIndex) priorOf(d uint64) float64 {
	prior := 1.0
	if d < uint64(len(ri.flags)) {
		for i, pr := range priors {
			if ri.flags[d]&(1<<i) != 0 {
				prior *= pr.factor
			}
		}
	}
	return prior
}

// maxScore offers to top the sections of terms' postings (nq query terms
// in all) within filter whose scores can beat the k-th best held.
func (ri *rankIndex) maxScore(ctx context.Context, terms []termCursor, nq int, filter *roaring.Bitmap, top *topK) error {
	var fit roaring.IntPeekable
	if filter != nil {
		fit = filter.Iterator()
	}
	// Terms in increasing bound; cum[i] is the sum of the first i+1
	// bounds. Terms below ess are non-essential: together they cannot
	// beat the threshold.
	slices.SortStableFunc(terms, func(a, b termCursor) int { return cmp.Compare(a.bound, b.bound) })
	cum := make([]float64, len(terms))
	for i := range terms {
		cum[i] = terms[i].bound
		if i > 0 {
			cum[i] += cum[i-1]
		}
	}
	theta := top.threshold()
	ess := 0
	essential := func() {
		for ess < len(terms) && cum[ess]*boundSlack <= theta {
			ess++
		}
	}
	essential()
	contrib := make([]float64, nq)
	matchedTerm := make([]bool, nq)
	scored, steps := 0, 0
	defer func() { ri.scored.Add(int64(scored)); ri.steps.Add(int64(steps)) }()
	for ; ess < len(terms); steps++ {
		if steps&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		d := uint64(noDoc)
		for i := ess; i < len(terms); i++ {
			d = min(d, terms[i].cur)
		}
		if d == noDoc {
			break
		}
		if fit != nil && !filter.Contains(uint32(d)) {
			fit.AdvanceIfNeeded(uint32(d))
			if !fit.HasNext() {
				break
			}
			next := uint64(fit.PeekNext())
			for i := ess; i < len(terms); i++ {
				if err := terms[i].advance(next); err != nil {
					return err
				}
			}
			continue
		}
		var flags uint8
		if d < uint64(len(ri.flags)) {
			flags = ri.flags[d]
		}
		prior := ri.priorOf(d)
		// What the essential terms at d could add, with everything the
		// others could: when that cannot beat theta, d is not scored.
		var bound float64
		if ess > 0 {
			bound = cum[ess-1]
		}
		for i := ess; i < len(terms); i++ {
			if terms[i].cur == d {
				bound += terms[i].bound
			}
		}
		if prior*bound*boundSlack <= theta {
			for i := ess; i < len(terms); i++ {
				if err := terms[i].next(d); err != nil {
					return err
				}
			}
			continue
		}
		clear(matchedTerm)
		var partial float64
		for i := len(terms) - 1; i >= ess; i-- {
			if s, ok := terms[i].score(d); ok {
				contrib[terms[i].pos], matchedTerm[terms[i].pos] = s, true
				partial += s
			}
		}
		pruned := false
		for i := ess - 1; i >= 0; i-- {
			if prior*(partial+cum[i])*boundSlack <= theta {
				pruned = true
				break
			}
			t := &terms[i]
			if err := t.advance(d); err != nil {
				return err
			}
			if s, ok := t.score(d); ok {
				contrib[t.pos], matchedTerm[t.pos] = s, true
				partial += s
			}
		}
		for i := ess; i < len(terms); i++ {
			if err := terms[i].next(d); err != nil {
				return err
			}
		}
		if pruned {
			continue
		}
		// The score as bluge sums it: terms in query order, then the
		// flags' factors one after the other.
		scored++
		var score float64
		for pos, ok := range matchedTerm {
			if ok {
				score += contrib[pos]
			}
		}
		for i, pr := range priors {
			if flags&(1<<i) != 0 {
				score *= pr.factor
			}
		}
		if top.offer(rankedDoc{doc: d, score: score}) {
			theta = top.threshold()
			essential()
		}
	}
	return nil
}

// idOf returns the section record number stored with document doc.
func (ri *rankIndex) idOf(doc uint64) (uint32, error) {
	ri.recordsOnce.Do(ri.readRecords)
	if ri.recordsErr != nil {
		return 0, ri.recordsErr
	}
	if doc >= uint64(len(ri.records)) {
		return 0, fmt.Errorf("%w: document %d of %d", ErrCorruptStore, doc, len(ri.records))
	}
	return ri.records[doc], nil
}

// readRecords fills records from every document's stored _id field.
func (ri *rankIndex) readRecords() {
	n := ri.seg.Count()
	ri.records = make([]uint32, n)
	// One visitor for every document: a closure made per document would
	// be an allocation each.
	var id []byte
	visit := func(field string, value []byte) bool {
		if field == "_id" {
			id = value
			return false
		}
		return true
	}
	for d := range n {
		id = nil
		if err := ri.seg.VisitStoredFields(d, visit); err != nil {
			ri.records, ri.recordsErr = nil, fmt.Errorf("read stored fields: %w", err)
			return
		}
		if ri.records[d], ri.recordsErr = parseRecord(id); ri.recordsErr != nil {
			ri.records = nil
			return
		}
	}
}
