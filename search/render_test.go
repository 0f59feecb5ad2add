package search

import (
	"testing"

	"github.com/codex7/codex7/tokens"
)

// TestDocumentPageTokensWhenTextStartsIndented: a document page that
// starts inside an indented block (a fence in a list, an indented code
// block, continued from the page before) says the size it renders to: the
// blank line ending the head and the indentation are one run of
// whitespace, which costs less than the two counted apart.
func TestDocumentPageTokensWhenTextStartsIndented(t *testing.T) {
	for _, text := range []string{
		"   ```\n   zebra line\n   ```",
		"    indented code\n    more code",
		"\tx := 1",
		"Zebras.",
	} {
		for _, kind := range []string{KindDocument, KindSearch} {
			a := &Answer{Library: "/acme/zoo", Version: "main", Commit: "0123456789abcdef", Kind: kind, Path: "docs/z.md", Title: "Zebras",
				Sections: []Section{{Path: "docs/z.md", HeadingPath: []string{"Zebras"}, Text: text, Tokens: tokens.Count(text)}},
				Page:     1, Pages: 2, Budget: 200}
			a.finish()
			if n := tokens.Count(a.Markdown()); a.Tokens != n {
				t.Errorf("%s page starting %q: Tokens %d, renders to %d:\n%s", kind, text, a.Tokens, n, a.Markdown())
			}
		}
	}
}
