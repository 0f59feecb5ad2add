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
		{"process is not defined", []string{"undefined"}},
		{"why isn't my export used? It doesn’t get called", []string{"uncalled"}},
		{"the value should not be used", []string{"unused"}},
		{"dont handle it", []string{"unhandle"}},
		{"not it, not do, no", nil},                                                               // too short: "un" makes other words
		{"not unset, never ever", []string{"unever"}},                                             // an un- word already
		{"Not Found", []string{"unfound"}},                                                        // case folded
		{"not a, not bb, not xyz", []string{"unxyz"}},                                             // an article is too short
		{"not a1 b2 c3 d4 e5 f6", nil},                                                            // letters only
		{"not aaa not bbb not ccc not ddd not eee", []string{"unaaa", "unbbb", "unccc", "unddd"}}, // bounded
	}
	for _, tt := range tests {
		if got := negated(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("negated(%q) = %q, want %q", tt.text, got, tt.want)
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
