package index

import (
	"errors"
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
// look reads part of the dictionary (tens of microseconds on the largest).
const maxTypos = 3

// minTypoLen is the shortest word (in letters) a typo is looked for in:
// shorter words have too many neighbours one edit away.
const minTypoLen = 4

// maxTypoLen is the longest: no word of prose is longer, and the
// automaton of a word of a few thousand varied letters (a pasted minified
// name, a hostile query) exceeds vellum's state limit.
const maxTypoLen = 64

// oneEdit builds automata matching the words one edit (insertion, deletion,
// substitution or transposition) from a given word, for the words
// oneEditASCII does not take. Building it takes about 0.1 ms, once; each
// automaton another 0.05 ms.
var oneEdit = sync.OnceValues(func() (*levenshtein.LevenshteinAutomatonBuilder, error) {
	return levenshtein.NewLevenshteinAutomatonBuilder(1, true)
})

// correct returns the word of field that is one edit from term, starts with
// the same letter and is in the most documents, or "" when there is none.
// It is for terms found nowhere in the index ("sever" for server, "tokn"
// for token): it reads only the words under term's first letter that the
// automaton can match (see prefixed).
func correct(r search.Reader, field, term string) (string, error) {
	if n := utf8.RuneCountInString(term); n < minTypoLen || n > maxTypoLen {
		return "", nil
	}
	for _, c := range term {
		if !unicode.IsLetter(c) {
			return "", nil
		}
	}
	var aut segment.Automaton
	if a, ok := newOneEditASCII(term); ok {
		aut = a
	} else {
		b, err := oneEdit()
		if err != nil {
			return "", err
		}
		if aut, err = b.BuildDfa(term, 1); errors.Is(err, levenshtein.ErrTooManyStates) {
			return "", nil // a guess not worth its cost: the word stays unmatched
		} else if err != nil {
			return "", err
		}
	}
	_, size := utf8.DecodeRuneInString(term)
	start := []byte(term[:size])
	end := append([]byte(nil), start...)
	end[len(end)-1]++ // the first byte after every word starting with start
	it, err := r.DictionaryIterator(field, &prefixed{aut: aut, prefix: term[:size]}, start, end)
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

// maxOneEditASCII is the longest word oneEditASCII takes: its state packs
// three masks of len+1 bits and two more bits into an int.
const maxOneEditASCII = 19

// oneEditASCII is an automaton matching the strings at most one edit
// (insertion, deletion, substitution or transposition of adjacent
// characters, counted in runes) from an ASCII word: what oneEdit's
// automata match, without building one. Building a DFA for each word took
// about 50 microseconds, most of a typo look-up once the look-up stays
// under the word's first letter. It runs the bit-parallel simulation of
// the edit-distance automaton (Wu and Manber, "Fast text searching
// allowing errors", 1992, with Hyyrö's transpositions) on the input: bit j
// of a mask says the input read so far can be aligned with the first j
// bytes of the word, exactly (r0) or with one edit (r1); bit j of t says
// an exact alignment with j-2 bytes was followed by the word's byte j-1,
// so that its byte j-2 next completes a transposition. A character outside
// ASCII matches no byte of the word; its continuation bytes only count
// down in pending.
type oneEditASCII struct {
	word  string
	masks [128]uint64 // per byte, bit j+1 set where word[j] is that byte
	full  uint64      // bits 0..len(word)
}

// newOneEditASCII returns the automaton of word, or false when word is not
// ASCII or is longer than maxOneEditASCII.
func newOneEditASCII(word string) (*oneEditASCII, bool) {
	if len(word) == 0 || len(word) > maxOneEditASCII {
		return nil, false
	}
	a := &oneEditASCII{word: word, full: 1<<(len(word)+1) - 1}
	for j := 0; j < len(word); j++ {
		if word[j] >= utf8.RuneSelf {
			return nil, false
		}
		a.masks[word[j]] |= 1 << (j + 1)
	}
	return a, true
}

// State layout: r0, r1 and t, each width bits, then pending.
const oneEditWidth = maxOneEditASCII + 1

func (a *oneEditASCII) pack(r0, r1, t, pending uint64) int {
	return int(r0 | r1<<oneEditWidth | t<<(2*oneEditWidth) | pending<<(3*oneEditWidth))
}

func (a *oneEditASCII) unpack(s int) (r0, r1, t, pending uint64) {
	const m = 1<<oneEditWidth - 1
	u := uint64(s)
	return u & m, u >> oneEditWidth & m, u >> (2 * oneEditWidth) & m, u >> (3 * oneEditWidth)
}

// Start: nothing read, the empty prefix exactly, or the word's first byte
// deleted.
func (a *oneEditASCII) Start() int { return a.pack(1, 1|2, 0, 0) }

func (a *oneEditASCII) Accept(s int, b byte) int {
	if s < 0 {
		return -1
	}
	r0, r1, t, pending := a.unpack(s)
	if pending > 0 {
		if b&0xC0 != 0x80 {
			return -1 // not UTF-8
		}
		return a.pack(r0, r1, t, pending-1)
	}
	var mask uint64
	switch {
	case b < utf8.RuneSelf:
		mask = a.masks[b]
	case b >= 0xF0:
		pending = 3
	case b >= 0xE0:
		pending = 2
	case b >= 0xC0:
		pending = 1
	default:
		return -1 // a continuation byte without its lead
	}
	n0 := r0 << 1 & mask
	// Matches after one edit, or the edit now: an inserted character, a
	// substituted one, a completed transposition, then a deleted byte of
	// the word after an exact match.
	n1 := r1<<1&mask | r0 | r0<<1 | t&(mask<<1) | n0<<1
	nt := r0 << 2 & mask
	return a.pack(n0&a.full, n1&a.full, nt&a.full, pending)
}

func (a *oneEditASCII) IsMatch(s int) bool {
	_, r1, _, pending := a.unpack(s)
	return s >= 0 && pending == 0 && r1&(1<<len(a.word)) != 0
}

func (a *oneEditASCII) CanMatch(s int) bool {
	_, r1, _, _ := a.unpack(s)
	return s >= 0 && r1 != 0
}

func (a *oneEditASCII) WillAlwaysMatch(int) bool { return false }
