package web

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestFilterWords bounds the work of a catalog filter: its words are
// lowered, looked for once each, and at most maxFilterWords of them, so a
// filter of a header's worth of one word costs one look-up per library.
func TestFilterWords(t *testing.T) {
	if got := filterWords("  Acme acme WIDGETS  acme "); !slices.Equal(got, []string{"acme", "widgets"}) {
		t.Errorf("filterWords = %q, want [acme widgets]", got)
	}
	if got := filterWords(strings.Repeat("a ", 30000)); len(got) != 1 {
		t.Errorf("a filter of one word repeated gave %d words, want 1", len(got))
	}
	var many []string
	for i := range 100 {
		many = append(many, fmt.Sprintf("w%d", i))
	}
	if got := filterWords(strings.Join(many, " ")); len(got) != maxFilterWords || got[0] != "w0" {
		t.Errorf("100 words gave %q, want the first %d", got, maxFilterWords)
	}
}
