package index

import (
	"github.com/blugelabs/bluge"
)

// fields are the fields free text is ranked over, with their BM25F weights
// (one occurrence in the body counts 1) and length normalization. The
// heading path holds the section's own title too, so a heading word counts
// in both; headings are short and vary little in length, so their length
// matters less than the body's. Code counts half: examples repeat their
// variable and function names (item, user, app) whatever they show, while
// an identifier a question names is rare and weighs by its idf anyway.
var fields = []weightedField{
	{FieldHeading, 3, 0.5},
	{FieldHeadingPath, 1.5, 0.5},
	{FieldBody, 1, 0.75},
	{FieldCode, 0.5, 0.75},
	{FieldPathText, 1.5, 0.5},
}

// k1 is the term frequency saturation. It is higher than plain BM25's usual
// 1.2 because a BM25F frequency sums weighted fields: a word in a heading
// alone already counts 4.5 occurrences.
const k1 = 2.0

// query builds the bluge query for q: BM25F over the weighted fields for
// text (trimmed, may be empty), lowered for flagged sections (changelogs,
// blog posts, empty headings), with topics, kind and path as filters that
// do not score.
func (r *Reader) query(text string, q Query) bluge.Query {
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

// terms analyzes text as the fields are, keeping each term once.
func (r *Reader) terms(text string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, tok := range r.prose.Analyze([]byte(text)) {
		t := string(tok.Term)
		if !seen[t] {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	return terms
}
