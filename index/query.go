package index

import (
	"github.com/blugelabs/bluge"
)

// Field boosts: a match in the heading says more than one in the body; code
// and path matches are exact identifiers and weigh more than prose.
var boosts = []struct {
	field string
	boost float64
	code  bool
}{
	{FieldHeading, 2, false},
	{FieldHeadingPath, 1.5, false},
	{FieldBody, 1, false},
	{FieldCode, 1.5, true},
	{FieldPathText, 1.5, true},
}

// query builds the bluge query for q: BM25 over the weighted fields for
// text (trimmed, may be empty), with topics, kind and path as filters that
// do not score.
func (r *Reader) query(text string, q Query) bluge.Query {
	top := bluge.NewBooleanQuery()
	if text != "" {
		fields := bluge.NewBooleanQuery()
		for _, b := range boosts {
			a := r.prose
			if b.code {
				a = r.code
			}
			fields.AddShould(bluge.NewMatchQuery(text).SetField(b.field).SetAnalyzer(a).SetBoost(b.boost))
		}
		top.AddMust(fields)
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
