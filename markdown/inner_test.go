package markdown

import (
	"slices"
	"testing"
)

// TestSetInnerAnchors checks the rule both readers of other formats rely
// on: a place goes to the last first chunk starting at or before it,
// places before every section and sections with a negative start take
// none, later chunks take none, and an id that is a section's anchor or
// was given already is skipped.
func TestSetInnerAnchors(t *testing.T) {
	doc := &Document{Sections: []Section{
		{Anchor: "a", Part: 0}, // starts 10
		{Anchor: "a", Part: 1}, // a later chunk: never holds places
		{Anchor: "b", Part: 0}, // not written: takes none
		{Anchor: "c", Part: 0}, // starts 20
		{Anchor: "d", Part: 0}, // starts 30
	}}
	starts := []int{10, 15, -1, 20, 30}
	places := []Place{
		{"early", 5},   // before every section: dropped
		{"in-a", 10},   // on a's first line: a's
		{"late-a", 17}, // after a's second chunk starts: still a's
		{"c", 21},      // a section's anchor: skipped
		{"in-c", 20},
		{"in-c", 31}, // given already
		{"in-d", 99},
	}
	SetInnerAnchors(doc, starts, places)
	want := [][]string{{"in-a", "late-a"}, nil, nil, {"in-c"}, {"in-d"}}
	for i, s := range doc.Sections {
		if !slices.Equal(s.InnerAnchors, want[i]) {
			t.Errorf("section %d (%s part %d): inner anchors %q, want %q", i, s.Anchor, s.Part, s.InnerAnchors, want[i])
		}
	}
}
