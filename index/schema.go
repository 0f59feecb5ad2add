// Package index is the bluge index of one library version's sections: its
// schema (field names and analyzers), the offline writer the build uses and
// the read-only reader the server and CLI use. Writer and reader share the
// analyzers defined here; an index is only ever read with the schema version
// it was written with (the artifact's format version guards that).
package index

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/lang/en"
)

// Field names of the index. Documents are identified by their record
// number in the section store (base 36), which holds metadata and text.
const (
	FieldHeading     = "heading"      // the section's plain title (en)
	FieldHeadingPath = "heading_path" // document title > ... > heading (en)
	FieldBody        = "body"         // prose (en)
	FieldCode        = "code"         // code blocks and inline code (identifiers)
	FieldPath        = "path"         // the document path, exact (keyword)
	FieldPathText    = "path_text"    // the document path as words (identifiers)
	FieldTopics      = "topics"       // topic slugs (keyword, multi-valued)
	FieldKind        = "kind"         // "info" and/or "code" (keyword)
)

// Kinds of section content, for the kind field.
const (
	KindInfo = "info"
	KindCode = "code"
)

// proseAnalyzer handles English technical prose: unicode words (with dotted
// and snake_case identifiers also split into their parts), possessives,
// lower case, English stop words, snowball stemming.
func proseAnalyzer() *analysis.Analyzer {
	a := en.NewAnalyzer()
	a.TokenFilters = append([]analysis.TokenFilter{partsFilter{}}, a.TokenFilters...)
	return a
}

// partsFilter follows a token such as "Widget.destroy" or "user_id" (kept
// whole by Unicode word breaking) with its parts at the same position.
type partsFilter struct{}

func (partsFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(in))
	for _, tok := range in {
		out = append(out, tok)
		if bytes.IndexAny(tok.Term, "._:") < 0 {
			continue
		}
		start := 0
		for i := 0; i <= len(tok.Term); i++ {
			if i == len(tok.Term) || tok.Term[i] == '.' || tok.Term[i] == '_' || tok.Term[i] == ':' {
				if i > start {
					out = append(out, &analysis.Token{Term: append([]byte(nil), tok.Term[start:i]...), Start: tok.Start + start, End: tok.Start + i, Type: tok.Type})
				}
				start = i + 1
			}
		}
	}
	return out
}

// codeAnalyzer indexes identifiers whole and in parts: "CORSMiddleware" gives
// corsmiddleware, cors, middleware; "add_middleware" gives add_middleware,
// add, middleware; "app.use" gives app, use. No stemming, no stop words.
func codeAnalyzer() *analysis.Analyzer {
	return &analysis.Analyzer{Tokenizer: identTokenizer{}}
}

// identTokenizer splits input into identifiers ([\p{L}\p{N}_]+), emitting
// each lower-cased, followed at the same position by its camelCase and
// snake_case parts when it has more than one.
type identTokenizer struct{}

func (identTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	pos := 0
	for i := 0; i < len(input); {
		r, size := utf8.DecodeRune(input[i:])
		if !isIdent(r) {
			i += size
			continue
		}
		start := i
		for i < len(input) {
			r, size = utf8.DecodeRune(input[i:])
			if !isIdent(r) {
				break
			}
			i += size
		}
		word := input[start:i]
		pos++
		out = append(out, &analysis.Token{Term: lower(word), Start: start, End: i, PositionIncr: 1, Type: analysis.AlphaNumeric})
		parts := splitIdent(word)
		if len(parts) > 1 {
			for _, p := range parts {
				out = append(out, &analysis.Token{Term: lower(word[p[0]:p[1]]), Start: start + p[0], End: start + p[1], PositionIncr: 0, Type: analysis.AlphaNumeric})
			}
		}
	}
	return out
}

func isIdent(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

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

func lower(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		out = utf8.AppendRune(out, unicode.ToLower(r))
		i += size
	}
	return out
}
