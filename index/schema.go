// Package index is the bluge index of one library version's sections: its
// schema (field names and analyzers), the offline writer the build uses and
// the read-only reader the server and CLI use. Writer and reader share the
// analyzers defined here; an index is only ever read with the schema version
// it was written with (the artifact's format version guards that).
package index

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/lang/en"
	"github.com/blugelabs/bluge/analysis/token"
)

// Field names of the index. Documents are identified by their record
// number in the section store (base 36), which holds metadata and text.
const (
	FieldHeading     = "heading"      // the section's plain title (en)
	FieldHeadingPath = "heading_path" // document title > ... > heading (en)
	FieldBody        = "body"         // prose (en)
	FieldCode        = "code"         // code blocks and inline code (en)
	FieldPath        = "path"         // the document path, exact (keyword)
	FieldPathText    = "path_text"    // the document path as words (en)
	FieldInbound     = "inbound"      // texts of the links to the section from others (en; see package links)
	FieldTopics      = "topics"       // topic slugs (keyword, multi-valued)
	FieldKind        = "kind"         // "info" and/or "code" (keyword)
	FieldFlags       = "flags"        // Flag* values that lower a section's rank (keyword)
)

// Kinds of section content, for the kind field.
const (
	KindInfo = "info"
	KindCode = "code"
)

// analyzer is the one analyzer of every text field and of query text, so
// that a query word is the same term in a heading, the prose, the code and
// the path: unicode words (hyphenated compounds also joined, identifiers
// also split into their parts), possessives, lower case, English stop
// words but those technical prose needs (meaningWords), snowball stemming.
// It is safe for concurrent use.
func analyzer() *analysis.Analyzer {
	a := en.NewAnalyzer()
	for i, f := range a.TokenFilters {
		if _, ok := f.(*token.StopTokensFilter); ok {
			a.TokenFilters[i] = token.NewStopTokensFilter(stopWords())
		}
	}
	a.Tokenizer = compoundTokenizer{a.Tokenizer}
	a.TokenFilters = append([]analysis.TokenFilter{partsFilter{}}, a.TokenFilters...)
	return a
}

// writeAnalyzer is analyzer with a memory of the stems it computed, for one
// index build: a version's vocabulary is small next to its text (words and
// identifiers repeat across sections), and stemming was the analyzer's
// largest cost. It gives the same terms as analyzer, and must only be used
// by one goroutine.
func writeAnalyzer() *analysis.Analyzer {
	a := analyzer()
	for i, f := range a.TokenFilters {
		if _, ok := f.(*en.EnglishStemmerFilter); ok {
			a.TokenFilters[i] = &stemCache{stem: f, stems: map[string][]byte{}}
		}
	}
	return a
}

// stemCacheMax bounds a stemCache's entries; past it, new words are
// stemmed every time.
const stemCacheMax = 1 << 18

// stemCache is writeAnalyzer's stemmer.
type stemCache struct {
	stem  analysis.TokenFilter
	stems map[string][]byte
	one   [1]*analysis.Token
}

func (c *stemCache) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, tok := range in {
		if st, ok := c.stems[string(tok.Term)]; ok {
			tok.Term = st
			continue
		}
		word := string(tok.Term)
		c.one[0] = tok
		c.stem.Filter(c.one[:])
		if len(c.stems) < stemCacheMax {
			c.stems[word] = tok.Term
		}
	}
	return in
}

// meaningWords are words of the English stop list that change what
// technical prose says: order and time (run before other plugins, close it
// after the response), the particles of phrasal verbs (set up, shut down,
// turn off, opt out), and negation and scope (is not defined, only on the
// client, all origins).
var meaningWords = strings.Fields(`before after during until once
	off out up down over under into through between above below
	not no only all`)

// stopWords returns the English stop words without meaningWords.
func stopWords() analysis.TokenMap {
	stop := en.StopWords()
	for _, w := range meaningWords {
		delete(stop, w)
	}
	return stop
}

// compoundTokenizer follows a hyphenated pair of words ("pre-bundling",
// "re-render") with the pair written as one word at the same position, so
// that prose which writes a compound with a hyphen and questions which write
// it without ("prebundle", "rerender") meet.
type compoundTokenizer struct{ analysis.Tokenizer }

func (t compoundTokenizer) Tokenize(input []byte) analysis.TokenStream {
	in := t.Tokenizer.Tokenize(input)
	var out analysis.TokenStream
	for i, tok := range in {
		if out != nil {
			out = append(out, tok)
		}
		if i == 0 {
			continue
		}
		prev := in[i-1]
		if prev.End+1 != tok.Start || input[prev.End] != '-' || !letters(prev.Term) || !letters(tok.Term) {
			continue
		}
		if out == nil {
			out = append(make(analysis.TokenStream, 0, len(in)+8), in[:i+1]...)
		}
		term := make([]byte, 0, len(prev.Term)+len(tok.Term))
		term = append(append(term, prev.Term...), tok.Term...)
		out = append(out, &analysis.Token{Term: term, Start: prev.Start, End: tok.End, Type: tok.Type})
	}
	if out == nil {
		return in
	}
	return out
}

func letters(b []byte) bool {
	for _, r := range string(b) {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return len(b) > 0
}

// partsFilter follows an identifier such as "Widget.destroy", "user_id",
// "CORSMiddleware" or "app.add_middleware" (kept whole by Unicode word
// breaking) with its parts at the same position: the dotted (or colon)
// pieces, and the snake_case and camelCase words of each piece.
// "app.add_middleware" gives app.add_middleware, app, add_middleware, add,
// middleware.
type partsFilter struct{}

func (partsFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	var out analysis.TokenStream // nil until a token has parts
	for i, tok := range in {
		parts := identParts(tok.Term)
		if parts == nil {
			if out != nil {
				out = append(out, tok)
			}
			continue
		}
		if out == nil {
			out = append(make(analysis.TokenStream, 0, len(in)+2*len(parts)), in[:i]...)
		}
		out = append(out, tok)
		for _, p := range parts {
			out = append(out, &analysis.Token{Term: append([]byte(nil), tok.Term[p[0]:p[1]]...), Start: tok.Start + p[0], End: tok.Start + p[1], Type: tok.Type})
		}
	}
	if out == nil {
		return in
	}
	return out
}

// identParts returns the byte ranges of term's parts: its pieces between
// dots and colons, then the snake_case and camelCase words of each piece,
// leaving out single characters and anything equal to the whole. Terms
// without a letter (version numbers) have no parts.
func identParts(term []byte) [][2]int {
	if bytes.IndexFunc(term, unicode.IsLetter) < 0 {
		return nil
	}
	var parts [][2]int
	add := func(a, b int) {
		if b-a > 1 && b-a < len(term) {
			parts = append(parts, [2]int{a, b})
		}
	}
	start := 0
	for i := 0; i <= len(term); i++ {
		if i < len(term) && term[i] != '.' && term[i] != ':' {
			continue
		}
		add(start, i)
		if words := splitIdent(term[start:i]); len(words) > 1 {
			for _, w := range words {
				add(start+w[0], start+w[1])
			}
		}
		start = i + 1
	}
	return parts
}

// splitIdent returns the byte ranges of word's parts at underscores and
// lower→Upper or UPPER→Upper-lower boundaries ("HTTPServer" → HTTP, Server).
func splitIdent(word []byte) [][2]int {
	var parts [][2]int
	start := -1
	var prev rune
	for i := 0; i < len(word); {
		r, size := utf8.DecodeRune(word[i:])
		if r == '_' {
			if start >= 0 {
				parts = append(parts, [2]int{start, i})
				start = -1
			}
			i += size
			prev = r
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			next, _ := utf8.DecodeRune(word[i+size:])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && unicode.IsLower(next)) {
				parts = append(parts, [2]int{start, i})
				start = i
			}
		}
		if start < 0 {
			start = i
		}
		prev = r
		i += size
	}
	if start >= 0 {
		parts = append(parts, [2]int{start, len(word)})
	}
	return parts
}
