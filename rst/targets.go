package rst

import (
	"strings"

	"github.com/codex7/codex7/markdown"
)

// Targets inside sections. A Sphinx label (".. _label:") before a section
// title names the section and becomes its anchor; one before anything
// else (a paragraph, a code block, a figure, a directive) names that
// place, and so do a directive's :name: option and an inline target
// (_`text`). docutils gives each the id MakeID makes of its name, the id
// a :ref: to it links to, and the reader, which writes the same id for
// the :ref: (see inl.role), records it for the section that holds the
// place (markdown.Section.InnerAnchors), so that package links resolves
// the :ref: to that section. A section's labels after the first, which
// name it too, are recorded on it the same way.
//
// Sphinx shows a :ref: without a title as the title of what its label
// names: a section's title, a rubric's text, the caption of a figure or
// of a code block, a table's title, a definition list's first term, a
// field list's first field name, a toctree's caption. A label that names
// none of these has no title, and Sphinx shows such a :ref: as the label
// it was written with, unlinked, with a warning ("A title or caption not
// found"). prescan finds which labels of the file, and of the files it
// includes, are which (noteLabels). Glossary terms and modules are
// places too (glossary.go).

// innerTarget records id, the id docutils gives an explicit target
// (MakeID of its name), as a place at the current end of the markdown.
// An id the document already gives something is not recorded, nor an
// empty one (a name without ASCII letters or digits): docutils gives the
// target an automatic id instead, which uses up a number.
func (c *converter) innerTarget(id string) {
	if id == "" || c.ids[id] {
		c.unique("", "id")
		return
	}
	c.ids[id] = true
	c.placeID(id)
}

// placeID records id, which the document already holds (innerTarget,
// objectID), as a place at the current end of the markdown: the section
// written there holds it.
func (c *converter) placeID(id string) {
	c.inner = append(c.inner, markdown.Place{ID: id, At: len(c.w.lines)})
}

// placeLabels records the labels waiting for the next block as places
// at the current end of the markdown: the block they name is not a
// section.
func (c *converter) placeLabels() {
	for _, l := range c.labels {
		c.innerTarget(l)
	}
	c.labels = nil
}

// placedHere moves the places recorded since c.inner[from] to the
// current end of the markdown: a heading written after them holds them.
func (c *converter) placedHere(from int) {
	for k := from; k < len(c.inner); k++ {
		c.inner[k].At = len(c.w.lines)
	}
}

// setInnerAnchors gives each section of doc the ids recorded inside it
// (c.inner). heads[i] is the index in the writer's lines of section i's
// heading, -1 for the level-0 section (which holds what comes before the
// first heading) and for chunks after a section's first. A place at a
// heading's line was recorded before the heading was written, so it is
// the section before's: starts are one past the heading. A place before
// every section (a label above the first title, with nothing shown
// between) goes to the first: a link to it lands at the top of the page.
func (c *converter) setInnerAnchors(doc *markdown.Document, heads []int) {
	starts := make([]int, len(doc.Sections))
	first := true
	for i, s := range doc.Sections {
		starts[i] = heads[i] + 1
		if s.Part == 0 && first {
			starts[i], first = 0, false
		}
	}
	markdown.SetInnerAnchors(doc, starts, c.inner)
}

// makesNothing lists the directives that add nothing to the document
// (they set what later ones mean): a label above one names what follows
// it, as a label above ".. currentmodule:: flask" and a title names the
// section.
var makesNothing = map[string]bool{
	"currentmodule": true, "py:currentmodule": true, "default-role": true,
	"program": true, "std:program": true,
}

// showsNothing lists makesNothing's directives and those whose nodes
// show nothing and take no label's id (index entries, a highlight
// setting, metadata): labels above them wait for the block after them.
// docutils leaves such a label's id where it stands, just above that
// block or, above a section title, just above the section: the reader
// makes it the section's anchor, where a link to it lands, though
// Sphinx gives the label no title.
var showsNothing = map[string]bool{
	"currentmodule": true, "py:currentmodule": true, "default-role": true,
	"program": true, "std:program": true, "index": true, "highlight": true,
	"highlightlang": true, "meta": true, "title": true, "tabularcolumns": true,
	"rst-class": true, "cssclass": true, "role": true, "spelling:word-list": true,
}

// noteLabels records, for the labels pending before ls[i] (a block that
// is not a section title) and for the :name: option of a directive at
// ls[i], the title Sphinx shows for a :ref: to them without one
// (labelTitles), or that they have none (anonLabels). It returns the
// index of the line to read next (past the block of a directive that
// shows nothing, and past code, whose lines are no labels), and whether
// the pending labels were used: a directive that adds nothing
// (makesNothing) leaves them for the block after it.
func (c *converter) noteLabels(ls []srcLine, i int, pending []string) (int, bool) {
	t := strings.TrimLeft(ls[i].text, " ")
	next := i + 1
	var names []string
	if strings.HasPrefix(t, ".. ") {
		name, _, ok := directiveName(strings.TrimLeft(t[3:], " "))
		if ok && showsNothing[name] {
			end := knownIndentedEnd(ls, i+1, indentOf(ls[i].text)+1)
			if makesNothing[name] {
				return end, false
			}
			for _, l := range pending {
				c.noteLabel(l, "")
			}
			return end, true
		}
		if ok {
			if n, ok := directiveOption(ls, i, "name"); ok && n != "" {
				names = append(names, n)
			}
			if _, code := codeDirectives[name]; code {
				next = knownIndentedEnd(ls, i+1, indentOf(ls[i].text)+1)
			}
		}
	} else if strings.HasSuffix(t, "::") {
		// A paragraph ending in "::" and its literal block.
		next = knownIndentedEnd(ls, i+1, indentOf(ls[i].text)+1)
	}
	if len(pending) == 0 && len(names) == 0 {
		return next, true
	}
	title := blockTitle(ls, i)
	for _, l := range append(pending, names...) {
		c.noteLabel(l, title)
	}
	return next, true
}

// noteLabel records the title Sphinx shows for a :ref: to label without
// one, or that it has none (title "").
func (c *converter) noteLabel(label, title string) {
	key := normalizeName(label)
	if _, ok := c.labelTitles[key]; ok {
		return // a label of the same name came first
	}
	if title != "" {
		c.labelTitles[key] = title
	} else {
		c.anonLabels[key] = true
	}
}

// noteInlineTargets records the inline targets (_`name`) of a line as
// labels without a title.
func (c *converter) noteInlineTargets(t string) {
	for {
		k := strings.Index(t, "_`")
		if k < 0 {
			return
		}
		t = t[k+2:]
		e := strings.IndexByte(t, '`')
		if e <= 0 {
			return
		}
		c.noteLabel(unescapeRST(t[:e]), "")
		t = t[e+1:]
	}
}

// blockTitle returns the title Sphinx's std domain gives a label of the
// block starting at ls[i] (which is not a section title), or "".
func blockTitle(ls []srcLine, i int) string {
	t := strings.TrimLeft(ls[i].text, " ")
	if strings.HasPrefix(t, ".. ") {
		name, arg, ok := directiveName(strings.TrimLeft(t[3:], " "))
		if !ok {
			return ""
		}
		switch name {
		case "rubric", "table", "list-table", "csv-table":
			return arg
		case "code-block", "sourcecode", "literalinclude", "toctree":
			caption, _ := directiveOption(ls, i, "caption")
			return caption
		case "figure":
			return figureCaption(ls, i)
		}
		return ""
	}
	if n, name := fieldLen(t); n > 0 {
		return name
	}
	if i+1 < len(ls) && ls[i+1].text != "" && indentOf(ls[i+1].text) > indentOf(ls[i].text) &&
		!strings.HasPrefix(t, "..") && !strings.HasSuffix(t, "::") && bulletLen(t) == 0 {
		if n, _ := enumLen(t); n == 0 {
			// A definition list: its first term, without classifiers.
			term, _, _ := strings.Cut(t, " : ")
			return term
		}
	}
	return ""
}

// maxHeadLines bounds the lines read as a directive's argument and
// options, and as a figure's caption, when looking for a label's title:
// nested directives must not make prescan quadratic.
const maxHeadLines = 100

// directiveBlock returns the end of the lines of the directive at ls[i]
// that come before its body (its argument's further lines and its
// options), which are indented more than its first line.
func directiveBlock(ls []srcLine, i int) int {
	ind := indentOf(ls[i].text)
	j := i + 1
	for j < len(ls) && j-i <= maxHeadLines && ls[j].text != "" && indentOf(ls[j].text) > ind {
		j++
	}
	return j
}

// directiveOption returns the value of the option key of the directive
// at ls[i].
func directiveOption(ls []srcLine, i int, key string) (string, bool) {
	end := directiveBlock(ls, i)
	for j := i + 1; j < end; j++ {
		t := strings.TrimLeft(ls[j].text, " ")
		if n, k := fieldLen(t); n > 0 && strings.EqualFold(k, key) {
			return strings.TrimSpace(t[n:]), true
		}
	}
	return "", false
}

// figureCaption returns the caption of the figure directive at ls[i]:
// the first paragraph of its body.
func figureCaption(ls []srcLine, i int) string {
	ind := indentOf(ls[i].text)
	j := directiveBlock(ls, i)
	for j < len(ls) && ls[j].text == "" {
		j++
	}
	var caption []string
	for k := j; j < len(ls) && j-k < maxHeadLines && ls[j].text != "" && indentOf(ls[j].text) > ind; j++ {
		caption = append(caption, strings.TrimSpace(ls[j].text))
	}
	if len(caption) > 0 && strings.HasPrefix(caption[0], "..") {
		return "" // an empty caption (a comment)
	}
	return strings.Join(caption, " ")
}
