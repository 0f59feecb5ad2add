package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	segment "github.com/blugelabs/bluge_segment_api"
)

func TestTypos(t *testing.T) {
	entries := []Entry{
		{Path: "docs/jwt.md", Section: sec("tokens", "Handle JWT tokens", "Create and verify an access token.")},
		{Path: "docs/token.md", Section: sec("tokn", "Tokn", "A section whose word is spelled tokn on purpose.")},
		{Path: "docs/server.md", Section: sec("server", "Server options", "Configure the server and the proxy.")},
		{Path: "docs/serve.md", Section: sec("serve", "Serve", "Serve files.")},
		{Path: "docs/dev.md", Section: sec("dev", "Dev", "The dev server reloads.")},
	}
	r, err := Open(writeIndex(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tests := []struct {
		name, query string
		want        []string
	}{
		{"one letter wrong", "tokon", []string{"docs/jwt.md#tokens", "docs/token.md#tokn"}},
		{"two letters swapped", "confiugre", []string{"docs/server.md#server"}},
		{"a word that is there is not corrected", "tokn", []string{"docs/token.md#tokn"}},
		{"the most common neighbour wins", "servr", []string{"docs/server.md#server", "docs/dev.md#dev"}},
		{"short words are left alone", "srv", nil},
		{"the first letter must match", "xerver", nil},
		{"two edits are too many", "sevrr", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := r.Search(context.Background(), Query{Text: tt.query})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(hits); len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
				t.Errorf("Search(%q) = %v, want %v", tt.query, got, tt.want)
			}
		})
	}
}

// TestTyposAreCapped checks that only the first maxTypos unknown words of a
// query are corrected.
func TestTyposAreCapped(t *testing.T) {
	r, err := Open(writeIndex(t, []Entry{
		{Path: "docs/a.md", Section: sec("a", "Alpha", "alpha bravo charlie delta")},
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tests := []struct {
		query string
		hits  int
	}{
		{"xxxxx yyyyy zzzzz delte", 0}, // three unknown words before the typo
		{"xxxxx yyyyy delte", 1},
	}
	for _, tt := range tests {
		hits, err := r.Search(context.Background(), Query{Text: tt.query})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != tt.hits {
			t.Errorf("Search(%q) = %d hits, want %d", tt.query, len(hits), tt.hits)
		}
	}
}

// countingAutomaton counts the first bytes other than first that an
// automaton is asked to read.
type countingAutomaton struct {
	segment.Automaton
	first      byte
	otherFirst int
}

func (c *countingAutomaton) Accept(s int, b byte) int {
	if s == c.Start() && b != c.first {
		c.otherFirst++
	}
	return c.Automaton.Accept(s, b)
}

// TestTypoLookupStaysInItsLetter checks that the one-edit look-up finds
// the same words as the one-edit automaton within the first letter's key
// range, while exploring only the words that start with that letter: a
// dictionary iterator checks its key range only at the words it finds, so
// the automaton alone explored every other first letter (one edit).
func TestTypoLookupStaysInItsLetter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words, _ := zipfWords(rng, 3000)
	var entries []Entry
	for i := 0; i < len(words); i += 10 {
		entries = append(entries, Entry{Path: fmt.Sprintf("d%d.md", i), Section: sec("s", "S", strings.Join(words[i:i+10], " ")+" tökn tokan")})
	}
	r, err := Open(writeIndex(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := oneEdit()
	if err != nil {
		t.Fatal(err)
	}
	list := func(aut segment.Automaton, term string) []string {
		_, size := utf8.DecodeRuneInString(term)
		start := []byte(term[:size])
		end := append([]byte(nil), start...)
		end[len(end)-1]++
		it, err := r.ranker.snap.DictionaryIterator(FieldBody, aut, start, end)
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		var out []string
		for {
			e, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if e == nil {
				return out
			}
			out = append(out, e.Term())
		}
	}
	plainOther, found := 0, 0
	queries := append([]string{"tokn", "tokam", "ökn"}, words[:200]...)
	for i, q := range queries {
		if i >= 3 {
			q = q[:1] + q[2:] // one letter dropped
		}
		dfa, err := b.BuildDfa(q, 1)
		if err != nil {
			t.Fatal(err)
		}
		plain, inner := &countingAutomaton{Automaton: dfa, first: q[0]}, &countingAutomaton{Automaton: dfa, first: q[0]}
		_, size := utf8.DecodeRuneInString(q)
		want, got := list(plain, q), list(&prefixed{aut: inner, prefix: q[:size]}, q)
		if !slices.Equal(got, want) {
			t.Errorf("%q: prefixed automaton finds %v, want %v", q, got, want)
		}
		if inner.otherFirst > 0 {
			t.Errorf("%q: the prefixed look-up explored %d other first letters", q, inner.otherFirst)
		}
		plainOther += plain.otherFirst
		found += len(got)
	}
	if plainOther == 0 || found == 0 {
		t.Errorf("the plain look-ups explored %d other first letters and found %d words: the test shows nothing", plainOther, found)
	}
}

// TestOneEditASCII checks the automaton against vellum's one-edit DFA on
// words near random ASCII words (few letters, so that they repeat and
// transpose), with characters outside ASCII among the edits: at every
// prefix both must agree on whether a match can still be reached, and at
// the end on whether it is one.
func TestOneEditASCII(t *testing.T) {
	b, err := oneEdit()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "b", "c", "é", "日", "x"}
	edit := func(w []string) []string {
		w = slices.Clone(w)
		i := rng.IntN(len(w) + 1)
		c := alphabet[rng.IntN(len(alphabet))]
		switch rng.IntN(4) {
		case 0:
			return slices.Insert(w, i, c)
		case 1:
			if i < len(w) {
				return slices.Delete(w, i, i+1)
			}
		case 2:
			if i < len(w) {
				w[i] = c
			}
		case 3:
			if i+1 < len(w) {
				w[i], w[i+1] = w[i+1], w[i]
			}
		}
		return w
	}
	matches, checked := 0, 0
	for range 3000 {
		var word []string
		for range 1 + rng.IntN(maxOneEditASCII) {
			word = append(word, alphabet[rng.IntN(3)])
		}
		term := strings.Join(word, "")
		mine, ok := newOneEditASCII(term)
		if !ok {
			t.Fatalf("%q: no automaton", term)
		}
		dfa, err := b.BuildDfa(term, 1)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			cand := word
			for range rng.IntN(4) {
				cand = edit(cand)
			}
			in := strings.Join(cand, "")
			s, d := mine.Start(), dfa.Start()
			for i := 0; i < len(in); i++ {
				s, d = mine.Accept(s, in[i]), dfa.Accept(d, in[i])
				// Mid-rune, only the state after the rune matters.
				if (i+1 == len(in) || utf8.RuneStart(in[i+1])) && mine.CanMatch(s) != dfa.CanMatch(d) {
					t.Fatalf("%q after %q: CanMatch %v, vellum %v", term, in[:i+1], mine.CanMatch(s), dfa.CanMatch(d))
				}
			}
			if mine.IsMatch(s) != dfa.IsMatch(d) {
				t.Fatalf("%q, %q: IsMatch %v, vellum %v", term, in, mine.IsMatch(s), dfa.IsMatch(d))
			}
			checked++
			if mine.IsMatch(s) {
				matches++
			}
		}
	}
	if matches < checked/10 || checked-matches < checked/10 {
		t.Errorf("%d of %d words matched: want a mix", matches, checked)
	}
	for _, w := range []string{"", "héllo", strings.Repeat("a", maxOneEditASCII+1)} {
		if _, ok := newOneEditASCII(w); ok {
			t.Errorf("%q: an automaton, want none (vellum's DFA)", w)
		}
	}
}
