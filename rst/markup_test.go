package rst

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

// toMarkdown returns the markdown the reader writes for src, trimmed.
func toMarkdown(t *testing.T, src string) string {
	t.Helper()
	c := newConverter("docs/page.rst", nil)
	ls := splitLines(src, 0)
	c.prescan(ls)
	c.blocks(ls, true, 0)
	md, _ := c.w.finish()
	return strings.TrimSpace(md)
}

// escapeDebris matches a markdown line that is nothing but an escaped
// character ("\-", "\#"): a marker or markup the reader wrote without
// the text it belongs to.
var escapeDebris = regexp.MustCompile(`(?m)^\s*\\.\s*$`)

// TestParsedLiteral checks that a parsed-literal block shows the text its
// inline markup renders, as docutils parses the block's inline markup
// and shows the result preformatted: strong text and emphasis as their
// text, a hyperlink reference as its text, roles as Sphinx shows them
// (a :ref: to a section of the file as its title, :func: with "()"),
// escapes resolved, indentation and line breaks kept.
func TestParsedLiteral(t *testing.T) {
	src := "Guide\n=====\n\n" +
		".. _setup:\n\nSetting Up\n----------\n\n" +
		".. parsed-literal::\n\n" +
		"   $ pip install **Flask**\n" +
		"   See `the docs <https://example.com/>`_ and :ref:`setup`,\n" +
		"       :ref:`the app <app-label>`: :func:`create_app` ``--debug`` *x* |version|\n" +
		"   \\*not emphasis\\* and 2 * 3 and name_ and [1]_\n" +
		"   **two\n   lines**\n"
	doc, err := Split("docs/guide.rst", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Sections[len(doc.Sections)-1]
	want := []markdown.CodeBlock{{Lang: "text", Code: "$ pip install Flask\n" +
		"See the docs and Setting Up,\n" +
		"    the app: create_app() --debug x version\n" +
		"*not emphasis* and 2 * 3 and name and [1]\n" +
		"two\nlines"}}
	if !slices.Equal(s.Code, want) {
		t.Errorf("code\n got %q\nwant %q", s.Code, want)
	}
}

// TestListTable checks list-table directives: docutils reads them as a
// table whose rows are the items of a two-level bullet list, an item
// with nothing after its bullet ("* -", "-") an empty cell. Rows are
// written one a line, their cells separated by " | ", empty cells left
// out, as grid tables are; a row with a cell that holds more than a
// paragraph (a code block, a list) has its cells written one after the
// other. Nothing is written for an empty cell: no stray "\-".
// The first table is PyTorch Lightning's FSDP comparison (an empty
// corner cell); the second has empty cells mid-row, an empty row, cells
// docutils reads as paragraphs though an option or a target starts alike
// ("-1", "__init__"), and a row holding a code block and a list.
func TestListTable(t *testing.T) {
	src := "Memory\n======\n\n" +
		".. list-table:: Comparison of FSDP and DDP memory usage\n" +
		"   :widths: 25 25 25\n   :header-rows: 1\n\n" +
		"   * -\n     - DDP\n     - FSDP\n" +
		"   * - Memory (MB)\n     - 26953\n     - 11578\n" +
		"   * - Iteration time (sec)\n     - 0.26\n     - 0.36\n\n" +
		".. list-table::\n\n" +
		"   * - All Privileges\n     -\n     -\n" +
		"   * -\n     - Datastore\n     - ``Browse``\n       datastore\n" +
		"   * -\n     -\n     -\n" +
		"   * - -1\n     - --verbose\n     - __init__ ...\n" +
		"   * - **Import**\n" +
		"     - .. code-block:: python\n\n          import pyomo\n\n" +
		"     - - one\n       - two\n"
	got := toMarkdown(t, src)
	want := "# Memory {#memory}\n\n" +
		"**Comparison of FSDP and DDP memory usage**\n\n" +
		"DDP | FSDP\nMemory (MB) | 26953 | 11578\nIteration time (sec) | 0.26 | 0.36\n\n" +
		"All Privileges\nDatastore | `Browse` datastore\n-1 | --verbose | \\_\\_init_\\_ ...\n\n" +
		"- **Import**\n\n```python\nimport pyomo\n```\n\n- one\n\n- two"
	if got != want {
		t.Errorf("markdown\n got %q\nwant %q", got, want)
	}
}

// TestNoEscapeDebris checks that list markers whose item holds no
// paragraph of its own (an empty item, an item that opens with a nested
// list, a code block or markup that shows nothing) leave no paragraph
// made of an escaped marker ("\-"): docutils shows an empty item, or the
// nested list or block alone. An enumerator keeps its number, which
// docutils shows, before a block or alone, and joins the label of a
// nested item ("* P. L. Lim", a name in
// pytest's release notes that docutils reads as two nested enumerated
// lists, was "\-", "\- P." and "- L. Lim").
func TestNoEscapeDebris(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"nested list first", "- - a\n  - b\n", "- a\n\n- b"},
		{"empty items", "- a\n-\n* \n- b\n\n#.\n", "- a\n\n- b"},
		{"empty enumerated", "1. one\n2.\n3. three\n", "1. one\n\n2\\.\n\n3. three"},
		{"code first", "- .. code-block:: python\n\n     x = 1\n", "```python\nx = 1\n```"},
		{"literal first", "- ::\n\n     literal\n", "```python\nliteral\n```"},
		{"shows nothing", "- .. _target:\n- .. image:: x.png\n- ..\n- text\n", "- text"},
		{"enumerated then list", "1. - c\n   - d\n", "1. c\n\n- d"},
		{"enumerated then code", "3. .. code-block:: sh\n\n      make\n", "3\\.\n\n```sh\nmake\n```"},
		{"letter then list", "(a) - d\n", "- (a) d"},
		{"initials", "* Olga Matoula\n* P. L. Lim\n* Ran\n", "- Olga Matoula\n\n- P. L. Lim\n\n- Ran"},
		{"empty in enumerated", "1. -\n\n   text\n", "1. text"},
		{"bullet then note", "- .. note:: Noted.\n", "- **Note:** Noted."},
		{"bullet then field", "- :Date: today\n", "- Date: today"},
		{"empty note in item", "- .. note::\n", "\\- **Note:**"},
		{"empty field", "Intro.\n\n:Field:\n:Other: x\n", "Intro.\n\nField:\n\nOther: x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := toMarkdown(t, c.src)
			if got != c.want {
				t.Errorf("markdown\n got %q\nwant %q", got, c.want)
			}
			if m := escapeDebris.FindString(got); m != "" {
				t.Errorf("debris %q in %q", m, got)
			}
		})
	}
}

// TestQuotedLiteralBlock checks a "::" paragraph followed by unindented
// lines that start with one punctuation character, as docutils'
// demo.rst quotes a mail ("> "): docutils reads them as a literal block
// up to a blank line or a line that starts otherwise, where the reader
// wrote them as a paragraph with a stray "\>" line.
func TestQuotedLiteralBlock(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"mail", "Quoted::\n\n>> Great idea!\n>\n> Why not?\n\nAfter.\n",
			"Quoted:\n\n```python\n>> Great idea!\n>\n> Why not?\n```\n\nAfter."},
		{"list", "List::\n\n- a\n- b\nc\n",
			"List:\n\n```python\n- a\n- b\n```\n\nc"},
		{"none", "No block::\n\nText.\n", "No block:\n\nText."},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := toMarkdown(t, c.src); got != c.want {
				t.Errorf("markdown\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestRoleNamesIgnoreCase checks that roles are found whatever their
// case, as docutils looks them up lower-cased: ":RFC:`2396`" shows "RFC
// 2396" (docutils' todo.rst starts a line with it, which the reader
// wrote as an escaped "2396\.").
func TestRoleNamesIgnoreCase(t *testing.T) {
	src := "See Appendix E of\n:RFC:`2396`. Also :PEP:`387`, :Func:`run` and `x`:Strong:.\n"
	want := "See Appendix E of\nRFC 2396. Also PEP 387, `run()` and **x**."
	if got := toMarkdown(t, src); got != want {
		t.Errorf("markdown\n got %q\nwant %q", got, want)
	}
}

// TestSubstitutions checks that references to the file's replace:: and
// unicode:: substitutions show their text, as docutils substitutes them
// wherever the definition is: docutils' todo-lists.rst defines "|-|" as
// a ballot box and uses it as a definition list's term, which the reader
// wrote as a stray "\-". A definition's own references to unicode::
// substitutions are replaced too; unknown ones (Sphinx's |version|) show
// their name.
func TestSubstitutions(t *testing.T) {
	src := ".. |-| unicode:: U+2610\n.. |x| unicode:: U+2611 .. checked\n" +
		".. |codes| unicode:: 0x41 x42 &#x43; 68 U+45 u46 text\n\n" +
		"|x| Done.\n\n|-|\n    Not done.\n\n|codes|\n\n" +
		"Use |Flask| and |version|, |flask|_.\n\n" +
		".. |Flask| replace:: **Flask**,\n   the framework |x|\n"
	want := "☑ Done.\n\n☐\n\nNot done.\n\nABCDEFtext\n\n" +
		"Use **Flask**, the framework ☑ and version, **Flask**, the framework ☑."
	if got := toMarkdown(t, src); got != want {
		t.Errorf("markdown\n got %q\nwant %q", got, want)
	}
}

// TestLineBlockInline checks that a line block's lines have their inline
// markup read, as docutils reads each line with the lines that continue
// it. The reader wrote them as they were: a reference as "`x <url>`_",
// a substitution reference at a line's start as "\|x|".
func TestLineBlockInline(t *testing.T) {
	src := "| |x| Line **one**, see `x <https://x.org>`_\n|     indented *two*\n| cont\n  inues ``code``\n|\n| end\n"
	want := "x Line **one**, see [x](https://x.org)\nindented *two*\ncont\ninues `code`\nend"
	if got := toMarkdown(t, src); got != want {
		t.Errorf("markdown\n got %q\nwant %q", got, want)
	}
}
