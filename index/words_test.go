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

// TestTextHashKeepsCombiningMarks: combining marks (Thai tone marks,
// Devanagari vowel signs, decomposed accents) are part of words, not
// punctuation: texts that differ in them say different things.
func TestTextHashKeepsCombiningMarks(t *testing.T) {
	pairs := [][2]string{
		{"## ไม่\n\nไม่ต้องติดตั้ง", "## ไม้\n\nไม้ต้องติดตั้ง"},   // "not" / "wood": tone marks U+0E48, U+0E49
		{"## किताब\n\nकिताब पढ़ें", "## कातिब\n\nकातिब पढ़ें"},     // "book" / "scribe": vowel signs
		{"## Ba\u0300n\n\nba\u0300n", "## Ba\u0301n\n\nba\u0301n"}, // Vietnamese in NFD: bàn / bán
	}
	for _, p := range pairs {
		a, b := p[0], p[1]
		if NearDuplicate(TextHash(a), SimHash(a), 10, TextHash(b), SimHash(b), 10) {
			t.Errorf("%q and %q are taken for duplicates (words %q and %q)", a, b, words(a), words(b))
		}
	}
}
