package index

import (
	"fmt"
	"math"

	"github.com/blugelabs/bluge/search"
	"github.com/blugelabs/bluge/search/searcher"
)

// weightedField is one field of a BM25F query: how much one occurrence
// there counts against one in the body, and how much its length matters
// (BM25's b: 0 ignores length, 1 divides by it relative to the average).
type weightedField struct {
	field  string
	weight float64
	b      float64
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
	terms  []string // analyzed, without duplicates
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
	for _, term := range q.terms {
		s, err := termSearcher(term, 1)
		if err == nil && s == nil && corrections < maxTypos {
			// Found nowhere: maybe a typo of a word that is there.
			corrections++
			var alt string
			if alt, err = correct(r, FieldBody, term); err == nil && alt != "" {
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
