package index

import (
	"context"
	"slices"
	"testing"
)

func TestNegated(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"omit fields that were never set", []string{"unset"}},
		{"process is NOT DEFINED", []string{"undefined"}},
		{"why isn't my export used? It doesn’t get called", []string{"uncalled"}},
		{"the value should not be used", []string{"unused"}},
		{"should not have been used", []string{"unused"}},
		{"the callback is not even called, not yet defined, not explicitly set", []string{"uncalled", "undefined", "unset"}},
		{"why is it 'not set'", []string{"unset"}},
		{"it hadn’t been defined, shouldnt be used, mustn't be changed", []string{"undefined", "unused", "unchanged"}},
		{"don`t get cached, don‘t get cached", []string{"uncached", "uncached"}},
		{"the page isn't reachable or available", []string{"unreachable"}},
		// Before a verb, un- is the opposite action, not the state.
		{"my plugin does not install, doesn't marshal, won't load", nil},
		{"the plugin is not installed", []string{"uninstalled"}},
		// Flags, identifiers and numbers are not words.
		{"apt-get --no-install-recommends, NO_PROXY, not 3 set", nil},
		// "un" before other words makes unrelated ones.
		{"must not be less than 1, not like this, not it, not né", nil},
		{"not a, not bb, never known", []string{"unknown"}},
		{"not one two set", nil},                                                                           // too far
		{"not aaed not bbed not cced not dded not eeed", []string{"unaaed", "unbbed", "uncced", "undded"}}, // bounded
	}
	for _, tt := range tests {
		if got := negated(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("negated(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestNegatedAllocatesNothingWithoutNegation: negated runs on every query.
func TestNegatedAllocatesNothingWithoutNegation(t *testing.T) {
	for _, q := range []string{"How do I configure the Dev Server proxy for my API?", "Never mind: Shouldn't   it WORK, e.g. --no-cache"} {
		if n := testing.AllocsPerRun(100, func() { negated(q) }); n != 0 {
			t.Errorf("negated(%q): %v allocations, want none", q, n)
		}
	}
}

// TestNegatedWordsRank checks that a negated word finds the section
// that names the state by its un- word, and that an un- word the index
// lacks is not taken for a typo of another word.
func TestNegatedWordsRank(t *testing.T) {
	entries := []Entry{
		{Path: "docs/include.md", Section: sec("include", "Include fields", "Choose the fields to include in the response with include.")},
		{Path: "docs/unset.md", Section: sec("unset", "Leave out unset values", "Fields left unset are left out of the response.")},
		{Path: "docs/bound.md", Section: sec("unbound", "Unbound methods", "An unbound method has no receiver.")},
		{Path: "docs/found.md", Section: sec("found", "Found pages", "Pages found by the crawler.")},
	}
	r, err := Open(writeIndex(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for query, want := range map[string][]string{
		// "include" and "fields" lead the section without the answer's word.
		"include fields that were never set": {"docs/include.md#include", "docs/unset.md#unset"},
		"fields never set":                   {"docs/unset.md#unset", "docs/include.md#include"},
		// "unfound" is nowhere: no typo look-up makes it "unbound".
		"pages not found": {"docs/found.md#found"},
	} {
		hits, err := r.Search(context.Background(), Query{Text: query})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(hits); !slices.Equal(got, want) {
			t.Errorf("Search(%q) = %q, want %q", query, got, want)
		}
	}
}

// BenchmarkNegated measures what every query pays for negated words: a
// question without a negation, and one with.
func BenchmarkNegated(b *testing.B) {
	for name, q := range map[string]string{
		"none":    "How do I configure the Dev Server proxy for my API routes in production?",
		"negated": "omit fields that were never set (defaults) from the JSON response",
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				negated(q)
			}
		})
	}
}
