package index

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/vellum/levenshtein"
	"github.com/blugelabs/bluge/search"
	segment "github.com/blugelabs/bluge_segment_api"
)

// typoWeight scales the score of a word found in place of a misspelled one:
// the guess may be wrong, so it counts less than a word as typed.
const typoWeight = 0.5

// maxTypos is how many terms found nowhere one query looks for typos in: a
// pasted log or stack trace has many such words (names, hashes), and each
// look costs about 0.05 ms on the largest dictionaries, most of it building
// the automaton.
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
// for token): it reads only the words under term's first letter that the
// automaton can match (see prefixed).
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
	it, err := r.DictionaryIterator(field, &prefixed{aut: dfa, prefix: term[:size]}, start, end)
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

// prefixed is an automaton that matches what aut matches among the strings
// that start with prefix. A dictionary iterator given a key range checks
// it only at the words it finds, so with the one-edit automaton alone it
// explored every word one edit away whatever its first letter (a first
// letter replaced is one edit) and read ten to twenty times more of the
// dictionary than the words it could return. A state is aut's state times
// len(prefix)+1, plus how many bytes of prefix were read; -1 is dead.
type prefixed struct {
	aut    segment.Automaton
	prefix string
}

func (p *prefixed) split(s int) (state, read int) {
	n := len(p.prefix) + 1
	return s / n, s % n
}

func (p *prefixed) Start() int { return p.aut.Start() * (len(p.prefix) + 1) }

func (p *prefixed) Accept(s int, b byte) int {
	if s < 0 {
		return -1
	}
	state, read := p.split(s)
	if read < len(p.prefix) {
		if b != p.prefix[read] {
			return -1
		}
		read++
	}
	return p.aut.Accept(state, b)*(len(p.prefix)+1) + read
}

func (p *prefixed) IsMatch(s int) bool {
	state, read := p.split(s)
	return s >= 0 && read == len(p.prefix) && p.aut.IsMatch(state)
}

func (p *prefixed) CanMatch(s int) bool {
	state, _ := p.split(s)
	return s >= 0 && p.aut.CanMatch(state)
}

func (p *prefixed) WillAlwaysMatch(s int) bool {
	state, read := p.split(s)
	return s >= 0 && read == len(p.prefix) && p.aut.WillAlwaysMatch(state)
}
