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

// sec is a section as the heading tests compare it.
type sec struct{ Anchor, Title, Text string }

// splitSections splits src and returns its document title and sections.
func splitSections(t *testing.T, src string) (string, []sec) {
	t.Helper()
	doc, err := Split("doc.adoc", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []sec
	for _, s := range doc.Sections {
		got = append(got, sec{s.Anchor, s.Title, strings.TrimSpace(s.Text)})
	}
	return doc.Title, got
}

// TestPassthroughHTMLInTitles checks titles holding a raw passthrough's
// HTML against the page Asciidoctor 2.0.18 makes: "== pass:[<b>Bold</b>]
// title" is an h2 reading "Bold title", "Bold" in bold. The heading's
// markdown shows what the page does (bold, italic and code as markdown,
// other tags' text, a space for a line break, entities decoded), and so
// do its plain title, <<id>> text, block titles and the document title
// (and prose: TestPassthroughHTMLInProse); a passthrough that escapes
// special characters (++x++) shows its tags as text, as the page does.
func TestPassthroughHTMLInTitles(t *testing.T) {
	src := "= pass:[<b>Doc</b>] title\n\n" +
		"== pass:[<b>Bold</b>] title\n\n" +
		".pass:[<code>x</code>] listing\n----\ncode\n----\n\n" +
		"== +++<i>x</i>+++ y and +++<code>c</code>+++\n\n" +
		"[discrete]\n=== pass:[<em>Disc</em>]\n\n" +
		"== pass:[<span class=\"x\">Span</span>] and pass:[a<br>b]\n\n" +
		"== pass:[a &amp; b] and ++<b>kept</b>++\n\n" +
		"See <<_bold_title>> and pass:[<b>prose</b>].\n"
	title, got := splitSections(t, src)
	if title != "Doc title" {
		t.Errorf("document title %q, want %q", title, "Doc title")
	}
	want := []sec{
		{"_bold_title", "Bold title", "## **Bold** title\n\n**`x` listing**\n\n```\ncode\n```"},
		{"_x_y_and_c", "x y and c", "## *x* y and `c`\n\n***Disc***"},
		{"_span_and_ab", "Span and a b", "## Span and a b"},
		{"_a_b_and_bkeptb", "a & b and <b>kept</b>",
			"## a & b and \\<b>kept\\</b>\n\nSee [Bold title](#_bold_title) and **prose**."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
}

// TestBlockAnchorLines checks block anchor lines against Asciidoctor
// 2.0.18's BlockAnchorRx: "[[]]" is consumed (and clears an id set above
// it), "[[id, reftext]]" may have spaces in its reftext, which <<id>>
// then shows; neither is text, nor hides the section title after it,
// and either ends a paragraph.
func TestBlockAnchorLines(t *testing.T) {
	src := "= Doc\n\n== One\n\n[[]]\ntext after\n\npara\n[[]]\nmore\n\n[[foo]]\n[[]]\n== Two\n\n" +
		"[[bar, Bar text]]\n== Three\n\n[[baz,x[y]z]]\npara\n\nSee <<bar>>.\n"
	_, got := splitSections(t, src)
	want := []sec{
		{"_one", "One", "## One\n\ntext after\n\npara\n\nmore"},
		{"_two", "Two", "## Two"},
		{"bar", "Three", "## Three\n\npara\n\nSee [Bar text](#bar)."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sections of %q (-want +got):\n%s", src, diff)
	}
}

// TestSectIDsUnset checks sections with sectids unset against
// Asciidoctor 2.0.18, which gives them (and discrete headings) no id:
// they use up none, so a section after sectids is set again gets the
// id as if they were not there. In the Document each still has an
// anchor, the id it would have had, numbered past the ids the page uses.
func TestSectIDsUnset(t *testing.T) {
	src := "= Doc\n:sectids!:\n\n== One\n\n[discrete]\n=== Four\n\n== Two\n\n:sectids:\n\n" +
		"== One\n\n== Four\n\n<<_one>>\n"
	_, got := splitSections(t, src)
	want := []sec{
		{"_one_2", "One", "## One\n\n**Four**"},
		{"_two", "Two", "## Two"},
		{"_one", "One", "## One"},
		{"_four", "Four", "## Four\n\n[One](#_one)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sections of %q (-want +got):\n%s", src, diff)
	}
}

// TestSectionTitleAnchors checks anchors at the end of section titles
// against Asciidoctor 2.0.18's InlineSectionAnchorRx: one after a space
// is the section's id (the leftmost that runs to the end, its reftext
// what <<id>> shows); without the space ("Title[[id]]") it is an inline
// anchor in the title, the section's id generated; escaped it is text.
// An inline anchor's reftext may hold spaces.
func TestSectionTitleAnchors(t *testing.T) {
	src := "= Doc\n\n== Title[[id1]]\n\n== Third[[id3,Ref]]\n\n== Esc \\[[e1]]\n\n" +
		"== T [[a,x]] [[b]]\n\nPara [[in1, Some text]] here.\n\n<<in1>> <<a>>\n"
	_, got := splitSections(t, src)
	want := []sec{
		{"_title", "Title", "## Title"},
		{"_third", "Third", "## Third"},
		{"_esc_e1", "Esc [[e1]]", "## Esc [[e1]]"},
		{"a", "T", "## T\n\nPara  here.\n\n[Some text](#in1) [x\\]\\] \\[\\[b](#a)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sections of %q (-want +got):\n%s", src, diff)
	}
}

// TestBlockTitlesAtHeadings checks block titles above headings against
// Asciidoctor 2.0.18: above a discrete heading it is dropped; above a
// section title it is the title of the section's first block.
func TestBlockTitlesAtHeadings(t *testing.T) {
	src := "= Doc\n\n== One\n\n.Dropped\n[discrete]\n=== Disc\n\ntext\n\n" +
		"[discrete]\n.Dropped too\n=== Disc2\n\n.Carried\n== Two\n\nx\n"
	_, got := splitSections(t, src)
	want := []sec{
		{"_one", "One", "## One\n\n**Disc**\n\ntext\n\n**Disc2**"},
		{"_two", "Two", "## Two\n\n**Carried**\n\nx"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sections of %q (-want +got):\n%s", src, diff)
	}
}
