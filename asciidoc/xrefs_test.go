package asciidoc

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/codex7/codex7/markdown"
	"github.com/google/go-cmp/cmp"
)

// naturalPage is a page whose first section refers to the others by
// their titles and reftexts, and in the ways that name no title.
const naturalPage = `= Doc

== Intro

See <<Later Section>>, xref:Later Section[], <<Later Section,custom>> and xref:Later Section[its text].

Not by title: <<later section>>, <<LATER SECTION>>, <<install>>, xref:install[], <<#Later Section>>, xref:doc.adoc#Later Section[], <<Other Title>>, <<With Bold>>, <<Tom's Stuff>>.

By reftext: <<Short Name>>, <<Anchor Text>>, <<Block Ref>>, <<Macro Ref>>.
By title: <<Block Title>>, <<Discrete One>>, <<With *Bold*>>, <<Install>>, <<Same Title>>.

== Later Section

Text [[inl,Anchor Text]]here and anchor:am[Macro Ref] there.

.Block Title
[#blk]
----
code
----

[[blk2,Block Ref]]
----
more
----

[discrete]
=== Discrete One

== Install

[reftext="Short Name"]
== Other Title

== With *Bold*

== Tom's Stuff

[#first]
== Same Title

[#second]
== Same Title
`

// TestNaturalXrefs checks references that name a section, a discrete
// heading, a titled block or an anchor by its text against the links
// Asciidoctor 2.0.18 makes of naturalPage: the id of the first element
// whose reftext, else title, is the reference exactly, including
// elements after the reference; none for a reference with "#", in lower
// case without a space, in other case or markup, naming a section by
// its title when it has a reftext, or that Asciidoctor's replacements
// turn into a page and a fragment ("Tom's" holds "&#8217;"). A resolved
// reference shows the text Asciidoctor shows; the text of the others is
// not checked.
func TestNaturalXrefs(t *testing.T) {
	doc, err := Split("doc.adoc", []byte(naturalPage), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []markdown.Link{
		{Text: "Later Section", Target: "#_later_section"},
		{Text: "Later Section", Target: "#_later_section"},
		{Text: "custom", Target: "#_later_section"},
		{Text: "its text", Target: "#_later_section"},

		{Target: "#later%20section"},
		{Target: "#LATER%20SECTION"},
		{Target: "#install"},
		{Target: "#install"},
		{Target: "#Later%20Section"},
		{Target: "#Later%20Section"},
		{Target: "#Other%20Title"},
		{Target: "#With%20Bold"},
		{Target: "#Tom's%20Stuff"},

		{Text: "Short Name", Target: "#_other_title"},
		{Text: "Anchor Text", Target: "#inl"},
		{Text: "Block Ref", Target: "#blk2"},
		{Text: "Macro Ref", Target: "#am"},
		{Text: "Block Title", Target: "#blk"},
		{Text: "Discrete One", Target: "#_discrete_one"},
		{Text: "With Bold", Target: "#_with_bold"},
		{Text: "Install", Target: "#_install"},
		{Text: "Same Title", Target: "#first"},
	}
	got := doc.Sections[0].Links
	if len(got) != len(want) {
		t.Fatalf("got %d links %q, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if g := got[i]; g.Target != w.Target || w.Text != "" && g.Text != w.Text {
			t.Errorf("link %d: got %q -> %q, want %q -> %q", i, g.Text, g.Target, w.Text, w.Target)
		}
	}
}

// TestInnerAnchors checks that the ids of places inside a section (an
// inline anchor, anchor:id[], a block's id given either way, a discrete
// heading's generated id, an anchor in a section's title or in the block
// title carried into the section) are recorded on the section holding
// them, those before the first section on the text before it, and that
// a block anchor above a section is that section's own anchor, as in
// the page Asciidoctor 2.0.18 makes (an anchor in a title whose id a
// block anchor gives is in the title).
func TestInnerAnchors(t *testing.T) {
	src := `= Doc

Preamble [[pre]]text.

== First

Text [[inl]]here and anchor:am[Macro Ref] there.

[#blk]
----
code
----

[[blk2]]
* item

[discrete]
=== Discrete One

[[second]]
== Second [[not-in-title]]

== Title [[t1]]with an anchor

.Caption [[cap]]
== Third

text
`
	doc, err := Split("doc.adoc", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"":                      {"pre"},
		"_first":                {"inl", "am", "blk", "blk2", "_discrete_one"},
		"second":                {"not-in-title"},
		"_title_with_an_anchor": {"t1"},
		"_third":                {"cap"},
	}
	got := map[string][]string{}
	for _, s := range doc.Sections {
		got[s.Anchor] = s.InnerAnchors
	}
	for anchor, w := range want {
		if g, ok := got[anchor]; !ok || !slices.Equal(g, w) {
			t.Errorf("section #%s: inner anchors %q, want %q (sections %q)", anchor, g, w, got)
		}
	}
}

// TestAnchorReftexts checks the text a reference without text shows for
// an id given by anchor:id[reftext] and by a block anchor with a
// reftext, as Asciidoctor 2.0.18 shows them; anchor:id[reftext] itself
// shows nothing.
func TestAnchorReftexts(t *testing.T) {
	src := "= Doc\n\n== S\n\nBefore anchor:am[Macro Ref] after.\n\n[[blk,Block Ref]]\n----\ncode\n----\n\nSee <<am>> and <<blk>>.\n"
	doc, err := Split("doc.adoc", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Sections[len(doc.Sections)-1]
	want := []markdown.Link{{Text: "Macro Ref", Target: "#am"}, {Text: "Block Ref", Target: "#blk"}}
	if !slices.Equal(s.Links, want) {
		t.Errorf("links %q, want %q", s.Links, want)
	}
	if strings.Contains(s.Prose, "Before Macro Ref") {
		t.Errorf("anchor:id[reftext] shows its text: %q", s.Prose)
	}
}

// TestXrefTargets checks which cross references name another page and
// which an element of this page, against the links Asciidoctor 2.0.18
// makes (xrefTarget): without "#", "<<x>>" is an id even when it names
// a file ("<<page.adoc>>" links "#page.adoc"), while "xref:page.adoc[]"
// names the page; with "#", the path before it names a page, ".adoc"
// added to a name without its AsciiDoc extension ("<<page#id>>" links
// page.html, the page made of page.adoc), and a page that is this one
// leaves its fragment.
func TestXrefTargets(t *testing.T) {
	repo := fstest.MapFS{"docs/page.adoc": {Data: []byte("= Other Page\n\ntext\n")}}
	src := "= Doc\n\n== Sec\n\n" +
		"<<page.adoc>> <<page.adoc,text>> <<page>> <<doc.adoc>>\n" +
		"<<page.adoc#,text>> <<page.adoc#>> <<page#id>> <<page#id,text>> <<page.asciidoc#id>>\n" +
		"<<doc#_sec>> <<doc.adoc#_sec,here>>\n" +
		"xref:page.adoc[] xref:page[] xref:page#id[] xref:file.html[] xref:file.html#x[]\n"
	doc, err := Split("docs/doc.adoc", []byte(src), repo, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []markdown.Link{
		{Text: "page.adoc", Target: "#page.adoc"},
		{Text: "text", Target: "#page.adoc"},
		{Text: "page", Target: "#page"},
		{Text: "doc.adoc", Target: "#doc.adoc"},

		{Text: "text", Target: "/docs/page.adoc"},
		{Text: "Other Page", Target: "/docs/page.adoc"},
		{Text: "Other Page", Target: "/docs/page.adoc#id"},
		{Text: "text", Target: "/docs/page.adoc#id"},
		{Text: "page", Target: "/docs/page.asciidoc#id"},

		{Text: "Sec", Target: "#_sec"},
		{Text: "here", Target: "#_sec"},

		{Text: "Other Page", Target: "/docs/page.adoc"},
		{Text: "page", Target: "#page"},
		{Text: "Other Page", Target: "/docs/page.adoc#id"},
		{Text: "file", Target: "/docs/file.html"},
		{Text: "file", Target: "/docs/file.html#x"},
	}
	got := doc.Sections[len(doc.Sections)-1].Links
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
}

// TestBlockTargetsRecordedOnce checks the text <<id>> shows for a
// block and a discrete heading, and the title a natural reference names
// them by, against Asciidoctor 2.0.18: a block's reftext, else the title
// it has (the last of its title lines: "First", replaced, names
// nothing), an admonition block's included; a discrete heading's
// reftext, else its own title (the block title above it is dropped).
// blockID and discrete each record their element once, in one place
// (nameTarget), and its place once.
func TestBlockTargetsRecordedOnce(t *testing.T) {
	src := "= Doc\n\n== S\n\n" +
		"[#two]\n.First\n.Second\n----\ncode\n----\n\n" +
		"[#adm]\n.Adm Title\n[NOTE]\n====\nx\n====\n\n" +
		"[#dsc,reftext=Disc Ref]\n.Dropped\n[discrete]\n=== Disc Head\n\n" +
		"[discrete]\n=== Plain Disc\n\n" +
		"<<two>> <<First>> <<Second>> <<adm>> <<Adm Title>> <<dsc>> <<Disc Ref>> <<Dropped>> <<Plain Disc>>\n"
	doc, c, err := split("doc.adoc", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []markdown.Link{
		{Text: "Second", Target: "#two"},
		{Text: "First", Target: "#First"},
		{Text: "Second", Target: "#two"},
		{Text: "Adm Title", Target: "#adm"},
		{Text: "Adm Title", Target: "#adm"},
		{Text: "Disc Ref", Target: "#dsc"},
		{Text: "Disc Ref", Target: "#dsc"},
		{Text: "Dropped", Target: "#Dropped"},
		{Text: "Plain Disc", Target: "#_plain_disc"},
	}
	if diff := cmp.Diff(want, doc.Sections[len(doc.Sections)-1].Links); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	var ids []string
	for _, pl := range c.inner {
		ids = append(ids, pl.ID)
	}
	if w := []string{"two", "adm", "dsc", "_plain_disc"}; !slices.Equal(ids, w) {
		t.Errorf("places recorded %q, want %q, each once", ids, w)
	}
}

// TestXrefToIncludedFile checks that a cross reference to a file the page
// includes (a book's chapter files) stays in the page, as Asciidoctor's
// catalog[:includes] check makes it: book.adoc including ch1.adoc and
// ch2.adoc, ch1's "<<ch2.adoc#_chapter_two,the second>>",
// "xref:ch2.adoc#_chapter_two[]" and "<<ch2#_chapter_two>>" are all
// links to #_chapter_two, the last two reading "Chapter Two".
func TestXrefToIncludedFile(t *testing.T) {
	repo := fstest.MapFS{
		"docs/ch1.adoc":   {Data: []byte("== Chapter One\n\nSee <<ch2.adoc#_chapter_two,the second>>, xref:ch2.adoc#_chapter_two[] and <<ch2#_chapter_two>>.\n")},
		"docs/ch2.adoc":   {Data: []byte("== Chapter Two\n\nText.\n")},
		"docs/other.adoc": {Data: []byte("= Other\n")},
	}
	src := "= Book\n\ninclude::ch1.adoc[]\n\ninclude::ch2.adoc[]\n\n== Last\n\nxref:other.adoc#x[elsewhere]\n"
	doc, err := Split("docs/book.adoc", []byte(src), repo, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, s := range doc.Sections {
		text += s.Text + "\n"
	}
	for _, want := range []string{"[the second](#_chapter_two)", "[Chapter Two](#_chapter_two) and [Chapter Two](#_chapter_two).", "[elsewhere](/docs/other.adoc#x)"} {
		if !strings.Contains(text, want) {
			t.Errorf("want %q in\n%s", want, text)
		}
	}
}
