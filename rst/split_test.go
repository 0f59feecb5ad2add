package rst

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/codex7/codex7/markdown"
)

// TestMakeID checks MakeID against docutils' nodes.make_id (docutils
// 0.19 gave the wanted values).
func TestMakeID(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"The Über Guide, Part 1", "the-uber-guide-part-1"},
		{"Details & Caveats", "details-caveats"},
		{"1. Intro", "intro"},
		{"  --x--  ", "x"},
		{"Straße æther œuvre", "strasze-aether-oeuvre"},
		{"ø đ ħ", "o-d-h"},
		{"42", ""},
		{"ABC_def.ghi", "abc-def-ghi"},
		{"Ünïcödé Çafé", "unicode-cafe"},
		{"日本語 text", "text"},
		{"install_details", "install-details"},
	} {
		if got := MakeID(c.in); got != c.want {
			t.Errorf("MakeID(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSphinxID checks SphinxID against Sphinx's _make_id rule.
func TestSphinxID(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"flask.Flask.route", "flask.Flask.route"},
		{"std:setting-SESSION_COOKIE_AGE", "std-setting-SESSION_COOKIE_AGE"},
		{"cmdoption-flask-run---host", "cmdoption-flask-run-host"},
		{"_private", "private"},
		{"envvar-FLASK_APP", "envvar-FLASK_APP"},
		{"a b  c-", "a-b-c"},
	} {
		if got := SphinxID(c.in); got != c.want {
			t.Errorf("SphinxID(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSplitErrors(t *testing.T) {
	opts := markdown.DefaultOptions()
	if doc, err := Split("docs/a.rst", []byte("bad \xff"), nil, opts); !errors.Is(err, markdown.ErrInvalidUTF8) || doc != nil {
		t.Errorf("invalid UTF-8: got %v, %v, want nil, ErrInvalidUTF8", doc, err)
	}
	plain := []byte("Just some notes.\n\nNo markup here, a list:\n- one\n- two\n")
	if doc, err := Split("notes/todo.txt", plain, nil, opts); !errors.Is(err, ErrNotRST) || doc != nil {
		t.Errorf("plain .txt: got %v, %v, want nil, ErrNotRST", doc, err)
	}
	// The same text is read as reStructuredText in a .rst file.
	if _, err := Split("notes/todo.rst", plain, nil, opts); err != nil {
		t.Errorf("plain .rst: %v", err)
	}
	for _, src := range []string{
		"Title\n=====\n\nText.\n",
		"Some text.\n\n.. note:: A note.\n",
		"=====\nTitle\n=====\n",
	} {
		if _, err := Split("docs/x.txt", []byte(src), nil, opts); err != nil {
			t.Errorf("Split(%q as .txt): %v, want reStructuredText", src, err)
		}
	}
}

func TestDropped(t *testing.T) {
	repo := fstest.MapFS{
		"docs/a.rst":     {Data: []byte("A\n=\n\n.. include:: b.rst\n")},
		"docs/b.rst":     {Data: []byte("Included text.\n\n.. include:: a.rst\n")},
		"docs/bad.rst":   {Data: []byte("\xff")},
		"docs/index.rst": nil,
	}
	src := []byte("Title\n=====\n\n.. include:: ../../x.rst\n.. include:: /docs/b.rst\n.. include:: bad.rst\n.. literalinclude:: nope.py\n.. include:: <isonum.txt>\n")
	doc, err := Split("docs/index.rst", src, repo, markdown.DefaultOptions())
	var de *DroppedError
	if !errors.As(err, &de) || !errors.Is(err, ErrDropped) || doc == nil {
		t.Fatalf("got %v, %v, want a Document and a *DroppedError", doc, err)
	}
	var reasons []string
	for _, d := range de.Includes {
		reasons = append(reasons, d.Target+": "+d.Reason)
	}
	want := []string{
		"../../x.rst: outside the repository",
		"b.rst: an include cycle",
		"bad.rst: not UTF-8 text",
		"nope.py: missing from the repository",
		"<isonum.txt>: a docutils standard include, not in the repository",
	}
	if strings.Join(reasons, "\n") != strings.Join(want, "\n") {
		t.Errorf("dropped:\n%s\nwant:\n%s", strings.Join(reasons, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(doc.Sections[0].Text, "Included text.") {
		t.Errorf("the absolute include was not read: %q", doc.Sections[0].Text)
	}
	if _, err := Split("docs/index.rst", src, nil, markdown.DefaultOptions()); !errors.Is(err, ErrDropped) {
		t.Errorf("nil repo: got %v, want ErrDropped", err)
	}
}

func TestSectionsAndLines(t *testing.T) {
	src := "Intro text before any title.\n\n" +
		".. _my-label:\n\n" +
		"=======\n Title\n=======\n\n" +
		"Sub\n---\n\ntext\n\n" +
		".. envvar:: APP_ENV\n\n   Environment.\n\n" +
		"Other\n=====\n\nmore\n" // a style of its own: level 3
	doc, err := Split("docs/t.rst", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	type sec struct {
		level  int
		anchor string
		line   int
	}
	var got []sec
	for _, s := range doc.Sections {
		got = append(got, sec{s.Level, s.Anchor, s.Line})
	}
	want := []sec{{0, "", 1}, {1, "my-label", 6}, {2, "sub", 9}, {3, "envvar-APP_ENV", 14}, {3, "other", 18}}
	if len(got) != len(want) {
		t.Fatalf("sections %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("section %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if doc.Title != "Title" {
		t.Errorf("title %q, want Title", doc.Title)
	}
}

// TestMarkdownLookalikes checks that prose the markdown cleaner or parser
// would take for markup (HTML comments, shortcodes, ESM, admonition
// fences, list markers, setext underlines) keeps its words.
func TestMarkdownLookalikes(t *testing.T) {
	for _, line := range []string{
		"<!-- alpha beta",
		"{{< alpha beta >}}",
		"import alpha from 'beta'",
		"export const alpha = beta",
		"T> alpha beta",
		"::: alpha beta",
		"/// alpha | beta",
		"> alpha beta",
		"# alpha beta",
		"1986. alpha beta",
		"<script>alpha beta</script>",
		"{/* alpha beta */}",
		":alpha{title=beta}",
		"[alpha](beta)",
		"alpha &amp; beta",
		"> [!NOTE] alpha beta",
		"{!alpha/beta.md!}",
	} {
		for _, src := range []string{line + "\n", "Intro line\n" + line + "\n", "Intro\n\n- " + line + "\n"} {
			doc, err := Split("docs/x.rst", []byte(src), nil, markdown.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			var all strings.Builder
			for _, s := range doc.Sections {
				all.WriteString(s.Prose + " ")
			}
			for _, w := range []string{"alpha", "beta"} {
				if !strings.Contains(all.String(), w) {
					t.Errorf("%q: %q lost, prose %q", src, w, all.String())
				}
			}
		}
	}
}

// TestLabelNamedLikeItsTitle checks a target whose id is the one its
// title would get (".. _url-building:" over "URL Building", as Flask's
// quickstart has): the section keeps the target's id, where Sphinx's
// references link, and the title's own numbered id uses up a number, as
// docutils numbers them.
func TestLabelNamedLikeItsTitle(t *testing.T) {
	src := "Guide\n=====\n\n" +
		".. _url-building:\n\nURL Building\n------------\n\ntext\n\n" +
		"Same\n----\n\nmore\n\nSame\n----\n\nagain\n"
	doc, err := Split("docs/q.rst", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range doc.Sections {
		got = append(got, s.Anchor)
	}
	if want := []string{"guide", "url-building", "same", "id2"}; !slices.Equal(got, want) {
		t.Errorf("anchors %v, want %v", got, want)
	}
}

// TestRefToLabelWithoutID checks that a :ref: to a label docutils gives no
// id of its own (no ASCII letter: "安装", "42") stays text: a link to "#"
// is this page's top, not the label's section.
func TestRefToLabelWithoutID(t *testing.T) {
	src := "Guide\n=====\n\n.. _安装:\n\nInstall\n-------\n\nSteps.\n\nUse\n---\n\nSee :ref:`安装`, :ref:`the steps <安装>` and :ref:`42`.\n"
	doc, err := Split("docs/guide.rst", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range doc.Sections {
		if len(s.Links) > 0 || strings.Contains(s.Text, "](") {
			t.Errorf("section %q: links %q in %q", s.Title, s.Links, s.Text)
		}
	}
}

// TestLinkTargetsWithSpaces checks that a link target with spaces or
// parentheses survives into the section's links: an angle-bracketed
// markdown destination ("<first steps>") reads as an HTML tag to the
// markdown cleaner, which drops it. A URI wrapped across lines loses its
// whitespace, as docutils reads it.
func TestLinkTargetsWithSpaces(t *testing.T) {
	src := "Guide\n=====\n\nSee `the notes <https://example.com/release/\nnotes.html>`_, `Foo <https://en.wikipedia.org/wiki/Foo_(bar)>`_ and :doc:`setup <first steps>`.\n"
	doc, err := Split("docs/guide.rst", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range doc.Sections[0].Links {
		u, err := url.Parse(l.Target)
		if err != nil {
			t.Fatalf("target %q: %v", l.Target, err)
		}
		got = append(got, l.Text+" -> "+u.Path)
	}
	want := []string{
		"the notes -> /release/notes.html", "Foo -> /wiki/Foo_(bar)", "setup -> first steps",
	}
	if !slices.Equal(got, want) {
		t.Errorf("links\n got %q\nwant %q\n(text %q)", got, want, doc.Sections[0].Text)
	}
}

// TestListItemIndent checks that bullet and enumerated items strip the
// lines after their first by the column where the first line's text
// starts, as docutils does (get_known_indented from the marker's end):
// a "::" block indented deeper, as Flask's config.rst lists the instance
// folder's locations, stays a literal block, where stripping the
// smallest indentation made it option-list noise; a line indented less
// than the text ends the item (docutils 0.19 reads it as a block quote).
func TestListItemIndent(t *testing.T) {
	src := "Instance Folders\n================\n\n" +
		"-   Uninstalled module::\n\n        /myapp.py\n        /instance\n\n" +
		"-   Uninstalled package::\n\n        /myapp\n            /__init__.py\n        /instance\n\n" +
		"10. Ten::\n\n        --flag  value\n\n    after\n\n" +
		"-  foo\n  bar\n"
	doc, err := Split("docs/config.rst", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Sections[len(doc.Sections)-1]
	var code []string
	for _, c := range s.Code {
		code = append(code, c.Code)
	}
	want := []string{"/myapp.py\n/instance", "/myapp\n    /__init__.py\n/instance", "--flag  value"}
	if !slices.Equal(code, want) {
		t.Errorf("code blocks %q, want %q\n(text %q)", code, want, s.Text)
	}
	if !strings.Contains(s.Text, "- foo\n\nbar") {
		t.Errorf("\"bar\", indented less than \"foo\", is in its item: %q", s.Text)
	}
}

// TestObjectIDs checks the ids of object descriptions against Sphinx
// 5.3 (docutils 0.19): one with :noindex: has no id on the site and
// takes no docutils "idN", so a repeated section title after it is
// "id1" (Flask's templating.rst describes six such objects); a repeated
// indexed object gets a number of Sphinx's own counter ("id0",
// "envvar-0"), not docutils'. The :noindex: headings still get anchors
// of their own that no id of the document has, those that come after
// them included.
func TestObjectIDs(t *testing.T) {
	src := "Templates\n=========\n\nStandard Context\n----------------\n\n" +
		".. data:: config\n   :noindex:\n\n   The current configuration object.\n\n" +
		".. function:: url_for\n   :no-index:\n\n   The url_for function.\n\n" +
		".. function:: dup\n\n   one\n\n.. function:: dup\n\n   two\n\n" +
		".. envvar:: FOO\n\n   a\n\n.. envvar:: FOO\n\n   b\n\n" +
		"Example\n-------\n\nOne.\n\nNotes\n-----\n\nExample\n-------\n\nTwo.\n\n" +
		".. data:: config\n\n   The indexed one.\n\nNoindex 1\n---------\n\nA title like a fallback.\n"
	doc, err := Split("docs/templating.rst", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range doc.Sections {
		got = append(got, s.Title+" #"+s.Anchor)
	}
	want := []string{
		"Templates #templates", "Standard Context #standard-context",
		"config #noindex-2", "url_for #url_for", "dup #dup", "dup #id0",
		"FOO #envvar-FOO", "FOO #envvar-0", "Example #example", "Notes #notes", "Example #id1",
		"config #config", "Noindex 1 #noindex-1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n got %q\nwant %q", got, want)
	}
}

// TestNestedInclude checks an include inside an included file: Sphinx's
// include and literalinclude resolve a relative path from the folder of
// the document being built (env.relfn2path; sphinx-doc/sphinx#6345),
// not of the included file, so projects write nested paths from the
// document. Cycles and paths outside the repository are still refused.
func TestNestedInclude(t *testing.T) {
	repo := fstest.MapFS{
		"docs/guide.rst": {Data: []byte("Guide\n=====\n\n.. include:: parts/intro.rst\n")},
		"docs/parts/intro.rst": {Data: []byte("Intro text.\n\n.. include:: parts/shared.rst\n\n" +
			".. literalinclude:: examples/app.py\n\n.. include:: parts/intro.rst\n\n.. include:: ../../x.rst\n")},
		"docs/parts/shared.rst":       {Data: []byte("Shared text.\n")},
		"docs/examples/app.py":        {Data: []byte("app = Flask(__name__)\n")},
		"docs/parts/parts/shared.rst": {Data: []byte("Wrong shared text.\n")},
	}
	doc, err := Split("docs/guide.rst", repo["docs/guide.rst"].Data, repo, markdown.DefaultOptions())
	var de *DroppedError
	if !errors.As(err, &de) {
		t.Fatalf("got %v, want a *DroppedError", err)
	}
	var reasons []string
	for _, d := range de.Includes {
		reasons = append(reasons, d.Target+": "+d.Reason)
	}
	if want := []string{"parts/intro.rst: an include cycle", "../../x.rst: outside the repository"}; !slices.Equal(reasons, want) {
		t.Errorf("dropped %q, want %q", reasons, want)
	}
	text := doc.Sections[len(doc.Sections)-1].Text
	for _, want := range []string{"Intro text.", "\nShared text.", "app = Flask(__name__)"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q missing from %q", want, text)
		}
	}
	if strings.Contains(text, "Wrong") {
		t.Errorf("an include was read from the included file's folder: %q", text)
	}
}

// TestIncludedSectionSource checks that a section whose title an include
// brought into the document names the file it is written in (the
// innermost, and on every chunk), and that the document's own sections,
// and an object description written from the document, name none.
func TestIncludedSectionSource(t *testing.T) {
	long := strings.Repeat("Included words go on and on. ", 400)
	repo := fstest.MapFS{
		"docs/changes.rst": {Data: []byte("Changes\n=======\n\n.. include:: ../CHANGES.rst\n\nAfter\n-----\n\nown text\n\n.. function:: own()\n\n   Own object.\n")},
		"CHANGES.rst":      {Data: []byte("Version 2\n---------\n\n" + long + "\n\n.. include:: nested.rst\n")},
		"docs/nested.rst":  {Data: []byte("Nested\n~~~~~~\n\nnested text\n")},
	}
	doc, err := Split("docs/changes.rst", repo["docs/changes.rst"].Data, repo, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Changes": "", "After": "", "own()": "", "Version 2": "CHANGES.rst", "Nested": "docs/nested.rst"}
	checkEverySection(t, doc, "source", func(s *markdown.Section) string { return s.Source }, want, "Version 2")
}

// TestEntriesWithin: an object description is an entry of the section
// that holds it on the published page (Within), on every chunk; one
// nested in another (a method in its class) is an entry of the same
// section; real sections, before or after entries, are no entries.
func TestEntriesWithin(t *testing.T) {
	long := strings.Repeat("The value goes on and on. ", 400)
	src := "Config\n======\n\nValues\n------\n\n.. confval:: BIG\n\n   " + long + "\n\n" +
		".. class:: App\n\n   The app.\n\n   .. method:: run()\n\n      Runs it.\n\n" +
		"Later\n-----\n\nown text\n"
	doc, err := Split("docs/config.rst", []byte(src), fstest.MapFS{}, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Config": "", "Values": "", "Later": "", "BIG": "Values {#values}", "App": "Values {#values}", "run()": "Values {#values}"}
	checkEverySection(t, doc, "within", func(s *markdown.Section) string { return s.Within }, want, "BIG")
}

// checkEverySection checks what field gets of every section (every
// chunk) of doc against want, by title, and that the section titled
// chunked was split into chunks, which the test needs.
func checkEverySection(t *testing.T, doc *markdown.Document, what string, field func(*markdown.Section) string, want map[string]string, chunked string) {
	t.Helper()
	parts := 0
	for i := range doc.Sections {
		s := &doc.Sections[i]
		w, ok := want[s.Title]
		if !ok {
			t.Errorf("unexpected section %q", s.Title)
			continue
		}
		if got := field(s); got != w {
			t.Errorf("section %q part %d: %s %q, want %q", s.Title, s.Part, what, got, w)
		}
		if s.Title == chunked {
			parts++
		}
	}
	if parts < 2 {
		t.Errorf("section %q has %d chunks; the test needs several", chunked, parts)
	}
}
