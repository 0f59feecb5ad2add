// Package rst reads reStructuredText as Sphinx uses it into the same
// markdown.Document the markdown reader makes, so that Sphinx projects'
// .rst (and reStructuredText .txt) documentation is indexed like markdown.
//
// Split translates the file into markdown, remembering for every line it
// writes the line of the source it came from, splits that markdown with
// markdown.Split and sets each Section.Line back to the source. Headings
// carry the ids the published Sphinx site gives them as explicit anchors
// ("## Title {#id}"): an explicit target (".. _label:") before a section,
// else docutils' id of the title (MakeID); object descriptions
// (".. function::", ".. setting::"...) get Sphinx's ids (SphinxID). The
// ids of places inside a section (labels before anything but a section
// title, a section's labels after the first, directives' :name: options,
// inline targets, glossary terms, modules) are the section's
// markdown.Section.InnerAnchors, so that package links resolves a :ref:,
// :term: or :mod: to them (targets.go, glossary.go).
//
// What the reader handles: section titles by adornment (level by order
// of first appearance of each style); paragraphs with inline markup
// (emphasis, strong, literals, roles as their text; hyperlink references
// to a URL or file (`text <target>`_), :ref:, :term:, :mod: and :doc: as
// markdown links, to the id of the label, term or module and to the
// document's path, so that package links can give their targets the
// text (xrefs.go); substitution references as the text of
// the file's replace:: and unicode:: definitions; footnote references
// kept as text);
// literal blocks ("::" paragraphs, indented or quoted, with the file's
// ".. highlight::" language, python by default) and code directives
// (code-block, code, sourcecode, code-tab, testcode, doctest...) as
// fenced code with their language, options dropped; parsed-literal
// blocks as fenced code holding the text their inline markup renders;
// doctest blocks; admonitions and version
// notes as labelled prose ("**Note:** ..."); include and literalinclude
// resolved inside the repository, a relative path from the document's
// folder even in an included file, as Sphinx does (literalinclude with
// :language:, :lines:, :start-after:, :end-before:, :start-at:, :end-at:,
// :pyobject: for top-level and Class.method objects, :dedent:); autodoc
// directives as a line naming the object; object descriptions as
// headings one level below their section (see objectDirectives to add
// one); bullet, enumerated, definition, field and option lists as prose
// (an empty item shows nothing); grid, simple and list tables as one
// line per row (a list-table row with a cell that holds more than a
// paragraph as its cells, one after the other); tabs and other containers
// by their bodies; toctrees as a list of the documents they link (their
// titles when given, else their paths); comments, targets, substitution
// definitions, images and raw blocks dropped.
//
// What it does not handle:
//   - section titles inside directive bodies or block quotes (docutils
//     refuses them too), and titles of more than one line;
//   - nested lists keep their text but are flattened: markdown sees one
//     level of items, and an item's later paragraphs leave the list;
//   - an object description's section runs to the next heading, so text
//     after its body and before the next section joins it;
//   - ".. module::" makes no heading (Sphinx shows none; it only sets
//     the module for later ids, and gives the page its "module-" id, which
//     the reader records inside the section: see glossary.go); ".. only::"
//     and ".. ifconfig::" bodies are always kept;
//   - ":ref:" and ":doc:" without a title show the label or document name,
//     unless the label is the document's (the file's or an included
//     file's): then, as Sphinx, the title of what it names (a section, a
//     rubric, a caption, a table's title, a definition list's first term),
//     or the label unlinked when that has none (Sphinx warns). A label of
//     another document stays a link, though Sphinx shows one that names
//     nothing titled unlinked: the reader cannot see which it is;
//   - of the ids inside a section, autodoc's objects' are not recorded
//     (an automodule's module id is); a term's id that an id of another
//     kind already holds, or a module's that the document already has
//     (a module declared twice), is numbered as Sphinx does, but a :term:
//     or :mod: to it links to the id it would have had;
//   - a :term: to another document's term links to the id of the term as
//     the reference writes it: one in other case ("wsgi" for "WSGI"),
//     which Sphinx finds, does not land; a :mod: target with a leading
//     '.' (which Sphinx searches for) is not linked;
//   - substitutions other than the file's replace:: and unicode:: ones
//     (image::, Sphinx's |version|, rst_prolog's) are not expanded, nor
//     are an included file's before the include: a reference shows its
//     name, as does a replace:: text's reference to another replace::
//     substitution;
//   - automatic ids (docutils' "id1"...) count only sections, not
//     footnotes or anonymous targets, so they may differ from the site;
//     object descriptions take none of them (Sphinx numbers a taken id
//     with a counter of its own), and a :noindex: one, which has no id on
//     the site, gets an anchor no id of the document has;
//   - C, C++, JavaScript and HTTP domain ids are approximated by SphinxID
//     of the name; ".. option::" ids assume the ".. program::" in force;
//   - cells spanning columns in grid tables, and rows of simple tables
//     wrapping over lines, are read approximately;
//   - :pyobject: finds top-level and Class.member objects by indentation;
//   - autodoc directives read no docstring and make no heading or id;
//   - sections and lines of an included file all point at the include's
//     line; an absolute include path is tried against each folder of the
//     document (Sphinx's source directory is not known);
//   - csv-table rows are kept as written (quotes and commas), and its
//     :file: is not read;
//   - Python ids follow Sphinx's rule literally: a signature that repeats
//     the current module gets it twice ("flask.flask.globals.app_ctx"
//     under ".. currentmodule:: flask");
//   - :func: and :meth: get "()" as with Sphinx's default
//     add_function_parentheses, whatever the project's conf.py says;
//   - dropped includes leave no text in the Document: they are reported
//     through a *DroppedError (see Split).
package rst

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/codex7/codex7/markdown"
)

var (
	// ErrNotRST is returned (wrapped) by Split for a .txt file that shows
	// no sign of reStructuredText: no section title and no directive.
	// Callers skip such files with a log line.
	ErrNotRST = errors.New("not reStructuredText")
	// ErrDropped is wrapped by the *DroppedError Split returns, together
	// with a complete Document, when an include or literalinclude could
	// not be read. Callers log it and keep the Document.
	ErrDropped = errors.New("include dropped")
)

// DroppedInclude is one include or literalinclude Split left out.
type DroppedInclude struct {
	// Line is the directive's line in the file that was split (for a
	// directive in an included file, the line of the outermost include).
	Line int `json:"line"`
	// Directive is "include" or "literalinclude".
	Directive string `json:"directive"`
	// Target is the directive's argument as written.
	Target string `json:"target"`
	// Reason says why: outside the repository, missing, not text, too
	// deep, and so on.
	Reason string `json:"reason"`
}

// DroppedError lists the includes Split left out of a Document it
// returned anyway. It wraps ErrDropped.
type DroppedError struct {
	Path     string
	Includes []DroppedInclude
}

func (e *DroppedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "split %s: %d include(s) dropped", e.Path, len(e.Includes))
	for i, d := range e.Includes {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(e.Includes)-3)
			break
		}
		fmt.Fprintf(&b, "; line %d: %s %s: %s", d.Line, d.Directive, d.Target, d.Reason)
	}
	return b.String()
}

func (e *DroppedError) Unwrap() error { return ErrDropped }

// Split reads one reStructuredText file of a repository into the same
// Document the markdown reader makes. repo is the repository's tree, read
// for include and literalinclude (it may be nil: includes are then
// dropped); p is the file's slash-separated repository path. Split is
// safe for concurrent use when repo is.
//
// Errors: markdown.ErrInvalidUTF8 (wrapped) for a file that is not UTF-8,
// ErrNotRST (wrapped) for a .txt file that is not reStructuredText; both
// with a nil Document. When includes were dropped Split returns the
// Document and a *DroppedError wrapping ErrDropped, which callers log:
// test it with errors.Is(err, rst.ErrDropped) and keep the Document.
func Split(p string, src []byte, repo fs.FS, opts markdown.Options) (*markdown.Document, error) {
	if !utf8.Valid(src) {
		return nil, fmt.Errorf("split %s: %w", p, markdown.ErrInvalidUTF8)
	}
	lines := splitLines(string(src), 0)
	if strings.EqualFold(path.Ext(p), ".txt") && !looksRST(lines) {
		return nil, fmt.Errorf("split %s: %w", p, ErrNotRST)
	}
	c := newConverter(p, repo)
	c.prescan(lines)
	c.blocks(lines, true, 0)
	c.placeLabels()
	c.anchorNoindex()
	text, lineMap := c.w.finish()
	doc, err := markdown.Split(p, []byte(text), opts)
	if err != nil {
		return nil, fmt.Errorf("split %s: %w", p, err)
	}
	// heads holds the index in the writer's lines of each section's
	// heading: the markdown starts with a blank line of its own.
	heads := make([]int, len(doc.Sections))
	source := "" // the included file the current section's heading is in
	within := "" // the section of the source the current entry is in
	for i := range doc.Sections {
		s := &doc.Sections[i]
		heads[i] = -1
		if s.Part == 0 {
			source, within = "", ""
		}
		if s.Level > 0 && s.Part == 0 {
			heads[i] = s.Line - 2
			source = c.w.headFiles[heads[i]]
			if c.w.entries[heads[i]] {
				within = enclosingSection(doc, heads, i, c.w.entries)
			}
		}
		s.Source = source
		s.Within = within
		if s.Line >= 1 && s.Line <= len(lineMap) {
			s.Line = lineMap[s.Line-1]
		} else if len(lineMap) > 0 {
			s.Line = lineMap[len(lineMap)-1]
		}
	}
	c.setInnerAnchors(doc, heads)
	if len(c.dropped) > 0 {
		return doc, &DroppedError{Path: p, Includes: c.dropped}
	}
	return doc, nil
}

// enclosingSection returns the Heading of the nearest section enclosing
// the entry doc.Sections[i] that is not an entry itself (a method's class
// is one), or "" when there is none. heads holds the writer's line of each
// earlier section's heading.
func enclosingSection(doc *markdown.Document, heads []int, i int, entries map[int]bool) string {
	for p := doc.Sections[i].Parent; p >= 0; p = doc.Sections[p].Parent {
		if !entries[heads[p]] {
			return doc.Sections[p].Heading
		}
	}
	return ""
}

// looksRST reports whether a .txt file's lines show reStructuredText: a
// section title (an underlined line, or an over- and underlined one) or
// an explicit markup line naming a directive.
func looksRST(ls []srcLine) bool {
	for i, l := range ls {
		t := l.text
		if b := strings.TrimLeft(t, " "); strings.HasPrefix(b, ".. ") {
			if _, _, ok := directiveName(strings.TrimLeft(b[2:], " ")); ok {
				return true
			}
		}
		if i+1 < len(ls) && indentOf(t) == 0 && t != "" && !isAdornment(t) && isAdornment(ls[i+1].text) &&
			underlineFits(t, ls[i+1].text) && (i == 0 || ls[i-1].text == "" || isAdornment(ls[i-1].text)) {
			return true
		}
	}
	return false
}

// srcLine is one line of reStructuredText: its text with tabs expanded
// and trailing whitespace removed, and the line of the split file it
// stands for.
type srcLine struct {
	text string
	n    int
}

// splitLines splits s into lines, expanding tabs to 8-column stops as
// docutils does. Lines are numbered from 1, or all given line fixed when
// fixed > 0 (the lines of an included file stand for the include).
func splitLines(s string, fixed int) []srcLine {
	s = strings.TrimPrefix(s, "\ufeff")
	raw := strings.Split(s, "\n")
	if len(raw) > 0 && raw[len(raw)-1] == "" {
		raw = raw[:len(raw)-1]
	}
	out := make([]srcLine, len(raw))
	for i, r := range raw {
		r = strings.TrimRight(r, " \t\r\f\v")
		if strings.IndexByte(r, '\t') >= 0 {
			r = expandTabs(r)
		}
		n := i + 1
		if fixed > 0 {
			n = fixed
		}
		out[i] = srcLine{text: r, n: n}
	}
	return out
}

func expandTabs(s string) string {
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			k := 8 - col%8
			b.WriteString(strings.Repeat(" ", k))
			col += k
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// writer collects the markdown and, for each of its lines, the source
// line it stands for.
type writer struct {
	b     strings.Builder
	lines []int
	// prefix is a label to put before the next paragraph (a list bullet,
	// an admonition's "**Note:**"); it is written on a line of its own if
	// code comes first.
	prefix     string
	prefixLine int
	// marker tells that prefix is only list markers (bullets and
	// enumerators, see setMarker), which carry no text of their own;
	// marks holds, for each list item being written, the length of
	// prefix before its marker.
	marker bool
	marks  []int
	// blank tells that the last line written is blank (or nothing is).
	blank bool
	// late are the anchors of headings written before their anchor is
	// known (lateHeading), in order; finish writes them in.
	late []lateAnchor
	// file is the repository path of the included file being written,
	// "" for the document's own text; headFiles maps the indexes in lines
	// of headings written from an included file to that file.
	file      string
	headFiles map[int]string
	// entries holds the indexes in lines of the headings written for
	// object descriptions (markEntry): entries of their section on the
	// published page, not sections (markdown.Section.Within).
	entries map[int]bool
}

// lateAnchor is an anchor finish writes (" {#id}") at byte at of the
// markdown.
type lateAnchor struct {
	at int
	id string
}

func (w *writer) line(s string, n int) {
	w.b.WriteString(s)
	w.b.WriteByte('\n')
	w.lines = append(w.lines, n)
	w.blank = strings.TrimSpace(s) == ""
}

// sep writes a blank line unless the last line is blank.
func (w *writer) sep(n int) {
	if !w.blank {
		w.line("", n)
	}
}

// setPrefix sets the label for the next paragraph. A pending label is
// written as a paragraph of its own first, unless it is only list
// markers: a list item that opens with a labelled block ("- .. note::")
// keeps its marker before the label.
func (w *writer) setPrefix(p string, n int) {
	if w.marker {
		w.prefix, w.marker = w.prefix+p, false
		return
	}
	w.flushPrefix()
	w.prefix, w.prefixLine = p, n
}

// setMarker sets a list item's marker ("- ", "1. ") as the label for the
// next paragraph; endItem ends the item. A pending bullet (an item that
// opens with a nested list) is replaced by the marker, as nested lists
// are flattened; a pending enumerator is joined by it, without its
// bullet: "* P. L. Lim", which docutils reads as items in items, is
// "- P. L. Lim".
func (w *writer) setMarker(p string, n int) {
	switch {
	case w.marker && strings.Trim(w.prefix, "- ") == "":
		w.marks = append(w.marks, 0)
		w.prefix = p
	case w.marker:
		w.marks = append(w.marks, len(w.prefix))
		w.prefix += strings.TrimPrefix(p, "- ")
	default:
		w.flushPrefix()
		w.marks = append(w.marks, 0)
		w.prefix, w.prefixLine = p, n
	}
	w.marker = true
}

// endItem ends the list item setMarker began. Its marker, still pending
// when the item wrote nothing (an empty item, or one that holds only
// markup that shows no text), is dropped if it is a bullet, as docutils
// shows an empty item: written alone it would be a stray "\-". An
// enumerator is written, as its number shows; so is any other pending
// label.
func (w *writer) endItem() {
	at := w.marks[len(w.marks)-1]
	w.marks = w.marks[:len(w.marks)-1]
	if w.marker && at <= len(w.prefix) && strings.Trim(w.prefix[at:], "- ") == "" {
		w.prefix = w.prefix[:at]
		w.marker = at > 0
		return
	}
	w.flushPrefix()
}

// flushPrefix writes a pending label as a paragraph of its own. Of a
// pending marker only enumerators are written, before the block that
// opens their item (a code block, a heading): bullets alone would be
// stray "\-" paragraphs.
func (w *writer) flushPrefix() {
	if w.prefix == "" {
		return
	}
	p, n := w.prefix, w.prefixLine
	w.prefix = ""
	if w.marker {
		w.marker = false
		for strings.HasSuffix(p, "- ") {
			p = p[:len(p)-2]
		}
		if strings.TrimSpace(p) == "" {
			return
		}
	}
	w.sep(n)
	w.line(escapeLineStart(strings.TrimRight(p, " ")), n)
	w.line("", n)
}

// para writes a paragraph of markdown lines (already converted), with the
// pending label before its first line.
func (w *writer) para(md []string, ns []int) {
	if len(md) == 0 {
		return
	}
	w.sep(ns[0])
	for i, l := range md {
		l = escapeLineStart(l)
		if i == 0 && w.prefix != "" {
			l = w.prefix + l
			w.prefix, w.marker = "", false
		}
		w.line(l, ns[i])
	}
	w.line("", ns[len(ns)-1])
}

// list writes markdown lines as the items of a bullet list.
func (w *writer) list(items []string, ns []int) {
	if len(items) == 0 {
		return
	}
	w.flushPrefix()
	w.sep(ns[0])
	for i, it := range items {
		w.line("- "+escapeLineStart(it), ns[i])
	}
	w.line("", ns[len(ns)-1])
}

// heading writes a heading line with its explicit anchor.
func (w *writer) heading(level int, title, anchor string, n int) {
	w.flushPrefix()
	w.sep(n)
	level = max(1, min(level, 6))
	if w.file != "" {
		if w.headFiles == nil {
			w.headFiles = map[int]string{}
		}
		w.headFiles[len(w.lines)] = w.file
	}
	h := strings.Repeat("#", level) + " " + escapeHeading(title)
	if anchor != "" {
		h += " {#" + anchor + "}"
	}
	w.line(h, n)
	w.line("", n)
}

// markEntry records the heading just written (by heading or
// lateHeading) as an object description's: an entry of its section.
func (w *writer) markEntry() {
	if w.entries == nil {
		w.entries = map[int]bool{}
	}
	// The heading's line and a blank line end the markdown.
	w.entries[len(w.lines)-2] = true
}

// lateHeading writes a heading whose anchor is chosen later: want until
// then (see lateAnchor).
func (w *writer) lateHeading(level int, title, want string, n int) {
	w.heading(level, title, "", n)
	// The heading's line and a blank line end the markdown: the anchor
	// goes before the former's line break.
	w.late = append(w.late, lateAnchor{at: w.b.Len() - len("\n\n"), id: want})
}

// code writes a fenced code block.
func (w *writer) code(lang string, body []string, ns []int, n int) {
	w.flushPrefix()
	// Leading and trailing blank lines are no code.
	for len(body) > 0 && strings.TrimSpace(body[0]) == "" {
		body, ns = body[1:], ns[1:]
	}
	for len(body) > 0 && strings.TrimSpace(body[len(body)-1]) == "" {
		body, ns = body[:len(body)-1], ns[:len(ns)-1]
	}
	if len(body) == 0 {
		return
	}
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	w.sep(n)
	w.line(fence+fenceLang(lang), n)
	for i, l := range body {
		w.line(l, ns[i])
	}
	w.line(fence, ns[len(ns)-1])
	w.line("", ns[len(ns)-1])
}

// finish returns the markdown and its line map. The markdown starts with
// a blank line so that nothing reads as front matter.
func (w *writer) finish() (string, []int) {
	w.flushPrefix()
	first := 1
	if len(w.lines) > 0 {
		first = w.lines[0]
	}
	md := w.b.String()
	if len(w.late) > 0 {
		var b strings.Builder
		prev := 0
		for _, a := range w.late {
			b.WriteString(md[prev:a.at])
			b.WriteString(" {#" + a.id + "}")
			prev = a.at
		}
		b.WriteString(md[prev:])
		md = b.String()
	}
	return "\n" + md, append([]int{first}, w.lines...)
}

// fenceLang keeps the first word of a language, without characters a
// fence info string would misread.
func fenceLang(lang string) string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if i := strings.IndexAny(lang, " \t"); i >= 0 {
		lang = lang[:i]
	}
	return strings.Map(func(r rune) rune {
		if r == '`' || r == '{' || r == '}' {
			return -1
		}
		return r
	}, lang)
}

// longestRun returns the longest run of ch in the lines.
func longestRun(ls []string, ch byte) int {
	best := 0
	for _, l := range ls {
		n := 0
		for i := 0; i < len(l); i++ {
			if l[i] == ch {
				n++
				best = max(best, n)
			} else {
				n = 0
			}
		}
	}
	return best
}
