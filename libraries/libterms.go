package libraries

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words and keys of library names. A library is named by its id's org and
// project, its title and its aliases, and agents spell those names many
// ways: "next.js", "nextjs", "Next JS", "NextJS". Two tools absorb that:
// nameWords splits a name into lower-case words (camelCase and punctuation
// are boundaries), and nameKeys reduces a name to the compact forms an
// exact match compares ("nextjs", "next").

// nameWords splits s into lower-case words: runs of letters and digits,
// also split at camelCase boundaries ("hugoDocs" → hugo, docs;
// "HTTPServer" → http, server). Digits stay with their letters ("es6",
// "d3").
func nameWords(s string) []string {
	var out []string
	start := -1     // byte offset of the current word, or -1
	var prev rune   // the rune before i, within the current word
	prevStart := -1 // byte offset of prev
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(s[start:end]))
		}
		start = -1
	}
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			prev = r
			continue
		}
		if start < 0 {
			start, prev, prevStart = i, r, i
			continue
		}
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i) // hugo|Docs
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && prevStart-start >= 2:
			// HTTP|Server: the upper-case run ends one letter early (but
			// two letters stay together: "JSon").
			out = append(out, strings.ToLower(s[start:prevStart]))
			start = prevStart
		}
		prev, prevStart = r, i
	}
	flush(len(s))
	return out
}

// compact is s lower-cased with everything but letters and digits removed:
// "Next.js", "next-js" and "Next JS" all give "nextjs".
func compact(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// genericWords say what a name is a name of rather than which library:
// they are dropped from the end of a name ("hugoDocs", "react.dev",
// "webpack.js.org") and never match on their own.
var genericWords = map[string]bool{
	"docs": true, "doc": true, "documentation": true, "website": true, "site": true, "www": true,
	"web": true, "wiki": true, "handbook": true, "manual": true, "guide": true, "guides": true,
	"content": true, "home": true, "homepage": true, "pages": true, "page": true,
	"js": true, "dev": true, "com": true, "org": true, "io": true, "net": true, "app": true,
}

// nameKeys returns the compact forms under which a name matches exactly:
// the whole name ("nextjs") and the name without generic trailing words
// and a glued "js" ("next" from "next.js", "webpack" from
// "webpack.js.org", "hugo" from "hugoDocs", "express" from
// "expressjs.com"). Forms that are generic words alone ("docs") are not
// keys: such a name says nothing about which library it is.
func nameKeys(s string) []string {
	var keys []string
	add := func(k string) {
		if k == "" || genericWords[k] {
			return
		}
		for _, x := range keys {
			if x == k {
				return
			}
		}
		keys = append(keys, k)
	}
	add(compact(s))
	w := nameWords(s)
	for len(w) > 1 && genericWords[w[len(w)-1]] {
		w = w[:len(w)-1]
	}
	stem := strings.Join(w, "")
	add(stem)
	if base, ok := strings.CutSuffix(stem, "js"); ok && len(base) >= 3 {
		add(base)
	}
	return keys
}

// ShortName returns the name a project goes by when its generic trailing
// words and a glued "js" are dropped ("react" for "react.dev", "keras"
// for "keras-io", "express" for "expressjs.com"), as resolving a name
// matches it; "" when that is the name itself or nothing but generic
// words.
func ShortName(project string) string {
	keys := nameKeys(project)
	if len(keys) < 2 {
		return ""
	}
	return keys[len(keys)-1]
}

// termStem folds simple English plurals so that "hooks" finds "Hook" and
// "routes" finds "route": "-ies" becomes "-y" and a final "s" goes, except
// after s, u and i ("express", "prometheus", "analysis").
func termStem(w string) string {
	if len(w) <= 3 {
		return w
	}
	if base, ok := strings.CutSuffix(w, "ies"); ok && len(base) >= 2 {
		return base + "y"
	}
	if strings.HasSuffix(w, "s") {
		switch w[len(w)-2] {
		case 's', 'u', 'i':
			return w
		}
		return w[:len(w)-1]
	}
	return w
}

// nameTerms returns the BM25 terms of a name: its words, its compact form
// when it has several words ("nextjs" beside "next" and "js"), and a glued
// "js" split off ("express" beside "expressjs"), all stemmed.
func nameTerms(s string) []string {
	w := nameWords(s)
	out := make([]string, 0, len(w)+2)
	for _, x := range w {
		out = append(out, termStem(x))
		if base, ok := strings.CutSuffix(x, "js"); ok && len(base) >= 3 {
			out = append(out, base)
		}
	}
	if len(w) > 1 {
		c := strings.Join(w, "")
		out = append(out, c)
		if base, ok := strings.CutSuffix(c, "js"); ok && len(base) >= 3 {
			out = append(out, base)
		}
	}
	return out
}

// textTerms returns the BM25 terms of prose (descriptions, topic names,
// questions): its words, stemmed, without stop words.
func textTerms(s string) []string {
	w := nameWords(s)
	out := w[:0]
	for _, x := range w {
		if !stopWords[x] {
			out = append(out, termStem(x))
		}
	}
	return out
}

// stopWords are left out of descriptions and questions: they match every
// library equally and only dilute the words that tell libraries apart.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by can do does for from get has have how i if in into
		is it its me my no not of on or our should so that the their then there these this to use using
		want was we what when where which while who why will with without would you your`) {
		stopWords[w] = true
	}
}

// truncateRunes shortens s to at most n runes, ending it with "…" when it
// was cut, and never splits a UTF-8 sequence (invalid bytes in s count as
// one rune each and are kept as they are).
func truncateRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return strings.TrimRightFunc(s[:i], unicode.IsSpace) + "…"
}
