package index

// weightedField is one field of the BM25F ranking: how much one
// occurrence there counts against one in the body, and how much its length
// matters (BM25's b: 0 ignores length, 1 divides by it relative to the
// average).
type weightedField struct {
	field  string
	weight float64
	b      float64
}

// fields are the fields free text is ranked over, with their BM25F weights
// (one occurrence in the body counts 1) and length normalization. The
// heading path holds the section's own title too, so a heading word counts
// in both; headings are short and vary little in length, so their length
// matters less than the body's. Code counts half: examples repeat their
// variable and function names (item, user, app) whatever they show, while
// an identifier a question names is rare and weighs by its idf anyway.
// The texts other pages link to a section with name it as a heading does,
// in other words: they count as much as the body, with a heading's length
// normalization (docs/RETRIEVAL.md: every question set gains from 0.6 to
// 1; from 1.5 the dev set loses a first answer).
var fields = []weightedField{
	{FieldHeading, 3, 0.5},
	{FieldHeadingPath, 1.5, 0.5},
	{FieldBody, 1, 0.75},
	{FieldCode, 0.5, 0.75},
	{FieldPathText, 1.5, 0.5},
	{FieldInbound, 1, 0.5},
}

// k1 is the term frequency saturation. It is higher than plain BM25's usual
// 1.2 because a BM25F frequency sums weighted fields: a word in a heading
// alone already counts 4.5 occurrences.
const k1 = 2.0

// queryWord is a term of the query and its weight. An implied word (the
// un- word of a negated one, see negated) is looked for as it is: a typo
// is looked for only in a word as typed.
type queryWord struct {
	term    string
	weight  float64
	implied bool
}

// terms analyzes text as the fields are, keeping each term once, then
// adds the words it implies.
func (r *Reader) terms(text string) []queryWord {
	var terms []queryWord
	seen := map[string]bool{}
	for _, tok := range r.prose.Analyze([]byte(text)) {
		t := string(tok.Term)
		if !seen[t] {
			seen[t] = true
			terms = append(terms, queryWord{term: t, weight: 1})
		}
	}
	for _, w := range negated(text) {
		for _, tok := range r.prose.Analyze([]byte(w)) {
			t := string(tok.Term)
			if !seen[t] {
				seen[t] = true
				terms = append(terms, queryWord{term: t, weight: impliedWeight, implied: true})
			}
		}
	}
	return terms
}
