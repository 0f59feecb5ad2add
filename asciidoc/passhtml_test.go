package asciidoc

import (
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
	"github.com/google/go-cmp/cmp"
)

// TestPassthroughHTMLInProse checks prose holding a raw passthrough's
// HTML against the page Asciidoctor 2.0.18 makes, which passes the HTML
// through (Substitutors#extract_passthroughs with no substitutions):
// "A pass:[<b>bold</b>] word" is a paragraph reading "A bold word",
// "bold" in bold. The markdown shows what the page does, as titles do
// (passhtml.go): emphasis and code as markdown, other tags dropped, a
// space for one that breaks the line or starts a block, entities
// decoded, in paragraphs, code spans, link texts, list items and table
// cells; no tag reaches the markdown (an h2 makes no section). A
// passthrough that escapes special characters (++x++, pass:c[x]) shows
// its tags as text, as the page does.
func TestPassthroughHTMLInProse(t *testing.T) {
	src := "= Doc\n\n== Prose\n\n" +
		"A pass:[<b>bold</b>] and +++<u>under</u>+++ word, pass:[<em>em</em>], pass:[<code>c</code>] and pass:[<strong><i>both</i></strong>].\n\n" +
		"pass:[<h2>Not a heading</h2>] line.\n\n" +
		"Spans +++<b>two\nlines</b>+++ here.\n\n" +
		"`+++<b>c</b>+++` and link:https://x.org[pass:[<b>L</b>]] and pass:[&amp; &lt;tag&gt;] and pass:[<script>x</script>].\n\n" +
		"Kept ++<b>esc</b>++ and pass:c[<i>c</i>] as text.\n\n" +
		"* item pass:[<b>bold</b>]\n\n" +
		"|===\n|cell pass:[<i>it</i>] |pass:[a<br>b]\n|===\n"
	want := []string{
		"## Prose",
		"A **bold** and under word, *em*, `c` and ***both***.",
		"Not a heading  line.",
		"Spans **two", "lines** here.",
		"`c` and [**L**](https://x.org) and & \\<tag> and .",
		`Kept \<b>esc\</b> and \<i>c\</i> as text.`,
		"- item **bold**",
		"|   |   |", "| --- | --- |", "| cell *it* | a b |",
	}
	_, md, _, err := toMarkdown("doc.adoc", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(md, "\n") {
		if l != "" && l != "---" && !strings.HasPrefix(l, "title:") {
			got = append(got, l)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
	doc, c, err := split("doc.adoc", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkWords(t, "doc.adoc", []byte(src), doc, c.hidden)
	for _, s := range doc.Sections {
		if s.Title != "Prose" {
			t.Errorf("section %q, want Prose alone", s.Title)
		}
	}
}

// TestPassthroughLinksAndImages checks a raw passthrough's links, images,
// scripts and emphasis characters against the page Asciidoctor 2.0.18
// makes of
//
//	See pass:[<a href="https://example.org/api">the API</a>] and
//	+++<a href="../other.html#x">other <b>page</b></a>+++ and
//	pass:[<img src="x.png" alt="diagram">] and
//	+++<a href="javascript:alert(1)">js</a>+++ and +++<i>*x*</i>+++ and
//	+++a_b_c+++ and +++<script>alert(1)</script>+++ end.
//
// which passes the HTML through: a link is a markdown link to its href
// (but a script URL, which is text), an image reads as its alt text, a
// script shows nothing, and "*" and "_" the page shows as written are
// escaped, not read as emphasis.
func TestPassthroughLinksAndImages(t *testing.T) {
	src := "See pass:[<a href=\"https://example.org/api\">the API</a>] and +++<a href=\"../other.html#x\">other <b>page</b></a>+++ and " +
		"pass:[<img src=\"x.png\" alt=\"diagram\">] and +++<a href=\"javascript:alert(1)\">js</a>+++ and +++<i>*x*</i>+++ and " +
		"+++a_b_c+++ and +++<script>alert(1)</script>+++ end.\n"
	c := &converter{path: "doc.adoc", attrs: newAttributes()}
	got := c.inlineMD(src, c.attrs)
	want := "See [the API](https://example.org/api) and [other **page**](../other.html#x) and diagram and js and *\\*x\\** and a\\_b\\_c and  end.\n"
	if got != want {
		t.Errorf("inlineMD:\n got %q\nwant %q", got, want)
	}
	if got := htmlText(`<a href='x'>A</a> <img alt="B &amp; C"> <script>s</script>`); got != "A B & C " {
		t.Errorf("htmlText = %q, want the text the page shows", got)
	}
	for tag, want := range map[string]string{
		`<a href="x">`:               "x",
		`<a HREF='y z' title=t>`:     "y z",
		`<a title="href=no" href=u>`: "u",
		`<a href = "spaced">`:        "spaced",
		`<a href>`:                   "",
		`<a href="&amp;q">`:          "&q",
		`<a>`:                        "",
		`<a href="unclosed>`:         "unclosed",
	} {
		if got := htmlAttr(tag, "href"); got != want {
			t.Errorf("htmlAttr(%q) = %q, want %q", tag, got, want)
		}
	}
}
