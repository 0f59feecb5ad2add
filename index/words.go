package index

import (
	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/analysis"
)

// headingField returns a text field of value analyzed by a whose length,
// for BM25's length normalization, counts words rather than terms: an
// identifier and the parts indexed with it ("CORSMiddleware", cors,
// middleware) are one word, as is a hyphenated compound and its joined form.
// Counting its parts made a heading naming an identifier look longer than
// one in plain words, and match less. Body and code keep bluge's term
// count: there, identifiers are what a section is made of, and measuring
// them in words ranked worse on both question sets.
func headingField(name, value string, a *analysis.Analyzer) bluge.Field {
	c := &wordCounter{a: a}
	return wordsField{TermField: bluge.NewTextField(name, value).WithAnalyzer(c), c: c}
}

// wordCounter analyzes with a and counts the words of the last text, the
// tokens that advance the position.
type wordCounter struct {
	a     *analysis.Analyzer
	words int
}

func (c *wordCounter) Analyze(input []byte) analysis.TokenStream {
	toks := c.a.Analyze(input)
	c.words = 0
	for _, t := range toks {
		if t.PositionIncr != 0 {
			c.words++
		}
	}
	return toks
}

// wordsField is a text field whose length is its word count.
type wordsField struct {
	*bluge.TermField
	c *wordCounter
}

func (f wordsField) Length() int { return f.c.words }
