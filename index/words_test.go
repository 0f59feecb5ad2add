package index

import (
	"testing"

	"github.com/codex7/codex7/markdown"
)

// TestIdentifierHeadingLength checks that an identifier's parts do not make
// a heading longer: "Use CORSMiddleware" is two words, not four terms, and
// is shorter than "CORS preflight requests".
func TestIdentifierHeadingLength(t *testing.T) {
	section := func(anchor, title string) *markdown.Section {
		return &markdown.Section{Anchor: anchor, Title: title, Level: 2, Parts: 1,
			HeadingPath: []string{"Doc", title}, Prose: "Browsers send requests to other origins."}
	}
	entries := []Entry{
		{Path: "docs/a.md", Section: section("preflight", "CORS preflight requests")},
		{Path: "docs/b.md", Section: section("use", "Use CORSMiddleware")},
	}
	r, err := Open(writeIndex(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := rank(t, r, "cors", "docs/b.md#use"); got != 1 {
		t.Errorf("Use CORSMiddleware ranks %d for cors, want 1", got)
	}
}
