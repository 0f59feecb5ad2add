package index

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/vellum/levenshtein"
	"github.com/blugelabs/bluge/search"
)

// typoWeight scales the score of a word found in place of a misspelled one:
// the guess may be wrong, so it counts less than a word as typed.
const typoWeight = 0.5

// maxTypos is how many terms found nowhere one query looks for typos in: a
// pasted log or stack trace has many such words (names, hashes), and each
// look costs about 0.1 ms.
const maxTypos = 3

// minTypoLen is the shortest word (in letters) a typo is looked for in:
// shorter words have too many neighbours one edit away.
const minTypoLen = 4

// oneEdit builds automata matching the words one edit (insertion, deletion,
// substitution or transposition) from a given word. Building it takes
// about 0.1 ms, once; each automaton another 0.1 ms.
var oneEdit = sync.OnceValues(func() (*levenshtein.LevenshteinAutomatonBuilder, error) {
	return levenshtein.NewLevenshteinAutomatonBuilder(1, true)
})

// correct returns the word of field that is one edit from term, starts with
// the same letter and is in the most documents, or "" when there is none.
// It is for terms found nowhere in the index ("sever" for server, "tokn"
// for token): it reads only the part of the field's dictionary that the
// automaton can match.
func correct(r search.Reader, field, term string) (string, error) {
	if utf8.RuneCountInString(term) < minTypoLen {
		return "", nil
	}
	for _, c := range term {
		if !unicode.IsLetter(c) {
			return "", nil
		}
	}
	b, err := oneEdit()
	if err != nil {
		return "", err
	}
	dfa, err := b.BuildDfa(term, 1)
	if err != nil {
		return "", err
	}
	_, size := utf8.DecodeRuneInString(term)
	start := []byte(term[:size])
	end := append([]byte(nil), start...)
	end[len(end)-1]++ // the first byte after every word starting with start
	it, err := r.DictionaryIterator(field, dfa, start, end)
	if err != nil {
		return "", err
	}
	defer it.Close()
	var best string
	var bestCount uint64
	for {
		e, err := it.Next()
		if err != nil {
			return "", err
		}
		if e == nil {
			break
		}
		if e.Count() > bestCount {
			best, bestCount = e.Term(), e.Count()
		}
	}
	return best, nil
}
