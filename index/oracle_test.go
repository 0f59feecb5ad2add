package index

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"
)

// This file is the ranker's test oracle: the same ranking written as a
// bluge query that bluge runs exhaustively, scoring every section a
// question matches through bluge's public API alone. It was the
// production ranking before the ranker (rank.go) replaced it for speed;
// the ranker must give the same sections in the same order with the same
// scores (TestRankerMatchesBluge), and BenchmarkRank measures the two.

// oracleSearch is Reader.SearchCount computed by bluge: oracleQuery
// searched with bluge's top-N collector.
func oracleSearch(ctx context.Context, r *Reader, q Query) ([]Hit, int, error) {
	text := strings.TrimSpace(q.Text)
	if text == "" && len(q.Topics) == 0 && q.Path == "" {
		return nil, 0, ErrEmptyQuery
	}
	if r.r == nil {
		return nil, 0, nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	top := func(n int) ([]Hit, int, error) {
		it, err := r.r.Search(ctx, bluge.NewTopNSearch(n, oracleQuery(r, text, q)).WithStandardAggregations())
		if err != nil {
			return nil, 0, fmt.Errorf("search: %w", err)
		}
		var hits []Hit
		for {
			m, err := it.Next()
			if err != nil {
				return nil, 0, fmt.Errorf("search: %w", err)
			}
			if m == nil {
				break
			}
			h, err := oracleHit(r, m, q.WithText)
			if err != nil {
				return nil, 0, err
			}
			hits = append(hits, h)
		}
		return hits, int(it.Aggregations().Count()), nil
	}
	n := limit
	if text != "" {
		n = tieReach * limit // the ranker's band (topK), cut below
	}
	hits, count, err := top(n)
	if err != nil {
		return nil, 0, err
	}
	for i := range hits {
		hits[i].Relevance = 1
	}
	if text != "" {
		// The ranker's rule after its ranking, not the ranking: the
		// sections within TieShare below the limit-th, ordered, cut.
		if len(hits) > limit {
			floor := (1 - TieShare) * hits[limit-1].Score
			i := limit
			for i < len(hits) && hits[i].Score >= floor {
				i++
			}
			hits = hits[:i]
		}
		orderTies(hits)
		hits = hits[:min(limit, len(hits))]
	}
	return hits, count, nil
}

// oracleHit returns the hit of a bluge match.
func oracleHit(r *Reader, m *search.DocumentMatch, withText bool) (Hit, error) {
	var id []byte
	err := m.VisitStoredFields(func(field string, value []byte) bool {
		if field == "_id" {
			id = value
			return false
		}
		return true
	})
	if err != nil {
		return Hit{}, fmt.Errorf("read stored fields: %w", err)
	}
	record, err := parseRecord(id)
	if err != nil {
		return Hit{}, err
	}
	return r.hitOf(record, m.Score, withText, nil)
}

// bm25fQuery ranks documents by BM25F (Robertson and Zaragoza, "The
// Probabilistic Relevance Framework: BM25 and Beyond", 2009) over several
// fields that share one term space: for each query term, its occurrences
// in every field are weighted, normalized by that field's length and summed
// into one pseudo-frequency, which is saturated once. A term found in a
// heading, the heading path and the body therefore counts once, strongly,
// rather than three times, and a section matching more of the query's
// distinct terms wins over one repeating a single term in every field.
type bm25fQuery struct {
	terms  []queryWord // analyzed, without duplicates
	fields []weightedField
	k1     float64
}

// Searcher implements bluge.Query.
func (q *bm25fQuery) Searcher(r search.Reader, options search.SearcherOptions) (search.Searcher, error) {
	type stats struct {
		avgLen float64
	}
	fieldStats := make([]stats, len(q.fields))
	var docs float64
	for i, f := range q.fields {
		cs, err := r.CollectionStats(f.field)
		if err != nil {
			return nil, err
		}
		if cs == nil {
			continue
		}
		if n := cs.DocumentCount(); n > 0 {
			fieldStats[i].avgLen = float64(cs.SumTotalTermFrequency()) / float64(n)
		}
		docs = math.Max(docs, float64(cs.TotalDocumentCount()))
	}
	var perTerm []search.Searcher
	closeAll := func() {
		for _, s := range perTerm {
			_ = s.Close()
		}
	}
	// termSearcher returns the searcher of one term over the fields, nil
	// when no field has it.
	termSearcher := func(term string, weight float64) (search.Searcher, error) {
		var inFields []search.Searcher
		var df uint64
		for i, f := range q.fields {
			if fieldStats[i].avgLen == 0 {
				continue
			}
			sc := &fieldTF{weight: f.weight, b: f.b, avgLen: fieldStats[i].avgLen}
			ts, err := searcher.NewTermSearcher(r, term, f.field, 1, sc, options)
			if err != nil {
				for _, s := range inFields {
					_ = s.Close()
				}
				return nil, err
			}
			if ts.Count() == 0 {
				_ = ts.Close()
				continue
			}
			df = max(df, ts.Count())
			inFields = append(inFields, ts)
		}
		if len(inFields) == 0 {
			return nil, nil
		}
		// The document frequency of the term over all fields is at least
		// its largest per-field one; the body, which holds the heading
		// too, usually has it.
		idf := math.Log(1 + (docs-float64(df)+0.5)/(float64(df)+0.5))
		s, err := searcher.NewDisjunctionSearcher(r, inFields, 1, &saturate{idf: weight * idf, k1: q.k1}, options)
		if err != nil {
			for _, s := range inFields {
				_ = s.Close()
			}
			return nil, err
		}
		return s, nil
	}
	corrections := 0
	for _, w := range q.terms {
		s, err := termSearcher(w.term, w.weight)
		if err == nil && s == nil && !w.implied && corrections < maxTypos {
			// Found nowhere: maybe a typo of a word that is there.
			corrections++
			var alt string
			if alt, err = correct(r, FieldBody, w.term); err == nil && alt != "" {
				s, err = termSearcher(alt, typoWeight)
			}
		}
		if err != nil {
			closeAll()
			return nil, err
		}
		if s != nil {
			perTerm = append(perTerm, s)
		}
	}
	if len(perTerm) == 0 {
		return searcher.NewMatchNoneSearcher(r, options)
	}
	s, err := searcher.NewDisjunctionSearcher(r, perTerm, 1, sumScorer{}, options)
	if err != nil {
		closeAll()
		return nil, err
	}
	return s, nil
}

// fieldTF scores one term in one field as its weighted, length-normalized
// frequency: BM25F's contribution of that field before saturation.
type fieldTF struct {
	weight, b, avgLen float64
}

func (s *fieldTF) Score(freq int, norm float64) float64 {
	length := float64(math.Float32bits(float32(norm))) // bluge's norm encoding
	return s.weight * float64(freq) / (1 - s.b + s.b*length/s.avgLen)
}

func (s *fieldTF) Explain(freq int, norm float64) *search.Explanation {
	length := float64(math.Float32bits(float32(norm)))
	return search.NewExplanation(s.Score(freq, norm),
		fmt.Sprintf("weight %g * freq %d / (1 - b %g + b * len %g / avg %.1f)", s.weight, freq, s.b, length, s.avgLen))
}

// saturate turns the summed pseudo-frequency of one term over the fields
// into its BM25 score: idf * tf * (k1 + 1) / (tf + k1).
type saturate struct {
	idf, k1 float64
}

func (s *saturate) ScoreComposite(constituents []*search.DocumentMatch) float64 {
	var tf float64
	for _, c := range constituents {
		tf += c.Score
	}
	return s.idf * tf * (s.k1 + 1) / (tf + s.k1)
}

func (s *saturate) ExplainComposite(constituents []*search.DocumentMatch) *search.Explanation {
	var children []*search.Explanation
	for _, c := range constituents {
		children = append(children, c.Explanation)
	}
	return search.NewExplanation(s.ScoreComposite(constituents),
		fmt.Sprintf("idf %.3f * tf * (k1 + 1) / (tf + k1), tf the sum of:", s.idf), children...)
}

// sumScorer adds the scores of the terms a document matches.
type sumScorer struct{}

func (sumScorer) ScoreComposite(constituents []*search.DocumentMatch) float64 {
	var sum float64
	for _, c := range constituents {
		sum += c.Score
	}
	return sum
}

func (s sumScorer) ExplainComposite(constituents []*search.DocumentMatch) *search.Explanation {
	var children []*search.Explanation
	for _, c := range constituents {
		children = append(children, c.Explanation)
	}
	return search.NewExplanation(s.ScoreComposite(constituents), "sum of:", children...)
}

// priorQuery ranks by q with the priors of flagged sections applied.
type priorQuery struct{ q bluge.Query }

// Searcher implements bluge.Query.
func (p priorQuery) Searcher(r search.Reader, options search.SearcherOptions) (search.Searcher, error) {
	s, err := p.q.Searcher(r, options)
	if err != nil {
		return nil, err
	}
	return withPriors(r, s, options)
}

// withPriors wraps s so that the score of each document it matches is
// multiplied by the factor of each flag the document has. It reads one
// postings list per flag alongside s, so it costs about as much as one
// more query term.
func withPriors(r search.Reader, s search.Searcher, options search.SearcherOptions) (search.Searcher, error) {
	p := &priorSearcher{Searcher: s}
	for _, pr := range priors {
		fs, err := searcher.NewTermSearcher(r, pr.flag, FieldFlags, 1, constant{}, options)
		if err != nil {
			p.Close()
			return nil, err
		}
		if fs.Count() == 0 {
			_ = fs.Close()
			continue
		}
		p.flags = append(p.flags, flagCursor{s: fs, flag: pr.flag, factor: pr.factor})
	}
	if len(p.flags) == 0 {
		return s, nil
	}
	return p, nil
}

// priorSearcher is withPriors' searcher. Like every bluge searcher it is
// used by one goroutine.
type priorSearcher struct {
	search.Searcher
	flags []flagCursor
}

// flagCursor walks the documents of one flag in order.
type flagCursor struct {
	s      search.Searcher
	flag   string
	factor float64
	cur    *search.DocumentMatch
	done   bool
}

func (p *priorSearcher) Next(ctx *search.Context) (*search.DocumentMatch, error) {
	m, err := p.Searcher.Next(ctx)
	if err != nil || m == nil {
		return m, err
	}
	return m, p.apply(ctx, m)
}

func (p *priorSearcher) Advance(ctx *search.Context, number uint64) (*search.DocumentMatch, error) {
	m, err := p.Searcher.Advance(ctx, number)
	if err != nil || m == nil {
		return m, err
	}
	return m, p.apply(ctx, m)
}

// apply multiplies m's score by the factors of the flags m has. Documents
// come in increasing number, so each flag's cursor only moves forward.
func (p *priorSearcher) apply(ctx *search.Context, m *search.DocumentMatch) error {
	for i := range p.flags {
		f := &p.flags[i]
		if f.done || (f.cur != nil && f.cur.Number > m.Number) {
			continue
		}
		if f.cur == nil || f.cur.Number < m.Number {
			if f.cur != nil {
				ctx.DocumentMatchPool.Put(f.cur)
			}
			next, err := f.s.Advance(ctx, m.Number)
			if err != nil {
				return err
			}
			f.cur = next
			if next == nil {
				f.done = true
				continue
			}
		}
		if f.cur.Number == m.Number {
			m.Score *= f.factor
			if m.Explanation != nil {
				m.Explanation = search.NewExplanation(m.Score, "prior "+f.flag, m.Explanation)
			}
		}
	}
	return nil
}

func (p *priorSearcher) Close() error {
	err := p.Searcher.Close()
	for _, f := range p.flags {
		if cerr := f.s.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

func (p *priorSearcher) DocumentMatchPoolSize() int {
	return p.Searcher.DocumentMatchPoolSize() + len(p.flags)
}

// constant scores a flag's postings: only their document numbers matter.
type constant struct{}

func (constant) Score(int, float64) float64 { return 0 }

func (constant) Explain(int, float64) *search.Explanation {
	return search.NewExplanation(0, "flag")
}

// oracleQuery builds the bluge query for q: BM25F over the weighted
// fields for text (trimmed, may be empty), lowered for flagged sections
// (changelogs, blog posts, empty headings), with topics, kind and path as
// filters that do not score.
func oracleQuery(r *Reader, text string, q Query) bluge.Query {
	top := bluge.NewBooleanQuery()
	if text != "" {
		top.AddMust(priorQuery{&bm25fQuery{terms: r.terms(text), fields: fields, k1: k1}})
	} else {
		top.AddMust(bluge.NewMatchAllQuery())
	}
	if len(q.Topics) > 0 {
		topics := bluge.NewBooleanQuery()
		for _, t := range q.Topics {
			topics.AddShould(bluge.NewTermQuery(t).SetField(FieldTopics))
		}
		top.AddMust(topics.SetBoost(0))
	}
	if q.Kind != "" {
		top.AddMust(bluge.NewTermQuery(q.Kind).SetField(FieldKind).SetBoost(0))
	}
	if q.Path != "" {
		top.AddMust(bluge.NewTermQuery(q.Path).SetField(FieldPath).SetBoost(0))
	}
	return top
}

// orderTies applies tieOrder to hits ranked by score, in place, and gives
// each its relevance: its key over the first hit's (a tied section has
// its document's best's). The oracle orders bluge's ranking with it, as
// SearchCount orders the ranker's.
func orderTies(hits []Hit) {
	if len(hits) == 0 {
		return
	}
	scores := make([]float64, len(hits))
	places := make([]tiePlace, len(hits))
	for i, h := range hits {
		scores[i], places[i] = h.Score, tiePlace{h.Path, h.Line, h.Part}
	}
	order, keys := tieOrder(scores, places)
	sorted := make([]Hit, len(hits))
	for i, j := range order {
		sorted[i] = hits[j]
		sorted[i].Relevance = relevance(keys[j], keys[order[0]])
	}
	copy(hits, sorted)
}
