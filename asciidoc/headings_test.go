package asciidoc

import (
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
	"github.com/google/go-cmp/cmp"
)

// TestDiscreteHeadings checks [discrete] and [float] headings against
// Asciidoctor 2.0.18: a heading that starts no section (its text stays
// in the enclosing one), with an id of its own that uses up the
// generated id a later section of the same title would have had, and
// that <<id>> names by its title.
func TestDiscreteHeadings(t *testing.T) {
	type sec struct{ Anchor, Title, Text string }
	tests := []struct {
		name, body string
		want       []sec
	}{
		{"discrete", "== Intro\n\ntext\n\n[discrete]\n=== Aside\n\nmore text\n\n== Next\n\nend\n",
			[]sec{{"_intro", "Intro", "## Intro\n\ntext\n\n**Aside**\n\nmore text"}, {"_next", "Next", "## Next\n\nend"}}},
		{"float, markdown style", "== Intro\n\n[float]\n## Aside\n\nmore\n",
			[]sec{{"_intro", "Intro", "## Intro\n\n**Aside**\n\nmore"}}},
		{"ids used up", "== Intro\n\n[discrete]\n== Intro\n\n[discrete#own]\n=== Own id\n\n[discrete]\n=== Anchored [[anch]]\n\n== Intro\n\nSee <<_intro_2>>, <<own>> and <<anch>>.\n",
			[]sec{{"_intro", "Intro", "## Intro\n\n**Intro**\n\n**Own id**\n\n**Anchored**"},
				{"_intro_3", "Intro", "## Intro\n\nSee [Intro](#_intro_2), [Own id](#own) and [Anchored](#anch)."}}},
		{"before the first section", "[discrete]\n== Lead\n\ntext\n\n== First\n\nx\n",
			[]sec{{"", "Doc", "**Lead**\n\ntext"}, {"_first", "First", "## First\n\nx"}}},
		{"in a block", "== Intro\n\n====\n[discrete]\n=== Inside\n\ntext\n====\n",
			[]sec{{"_intro", "Intro", "## Intro\n\n**Inside**\n\ntext"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Split("doc.adoc", []byte("= Doc\n\n"+tt.body), nil, markdown.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			var got []sec
			for _, s := range doc.Sections {
				got = append(got, sec{s.Anchor, s.Title, strings.TrimSpace(s.Text)})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("sections of %q (-want +got):\n%s", tt.body, diff)
			}
		})
	}
}
