package index

import (
	"context"
	"testing"
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
