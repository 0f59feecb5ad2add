package rst

import (
	"strings"
)

// Glossary terms and Python modules are places inside sections too (see
// targets.go), with ids Sphinx makes with sphinx.util.nodes.make_id and a
// prefix: make_id(env, document, "term", text) for each term of a
// ".. glossary::" (std.make_glossary_term), make_id(env, document,
// "module", name) for ".. module::" / ".. py:module::" (PyModule, which
// automodule runs too) unless it has :noindex:. make_id is SphinxID of
// "prefix-text" ("term-WSGI", "term-Beta-Term", "module-flask.json": case,
// '.' and '_' kept); an id that is only the prefix (a term "---") or that
// the document already has takes the prefix and the next number of a
// counter kept per prefix ("term-0"), as objectID numbers objects.
//
// Where they stand: a term's id is on its <dt>, in the section holding
// the glossary. A module's target stays where the directive is (the
// index node after it keeps docutils' PropagateTargets from moving it
// onto the next block), but Sphinx's MoveModuleTargets moves one that is
// the first thing in a section onto the section itself, where it becomes
// the section's first id ("api.html#module-flask" for Flask's ".. module::
// flask" under "API"): both are places in the section the reader writes
// the directive in. The reader keeps the title's id as the section's
// anchor, which the page still has, and records the module's as an inner
// anchor, so that links to either resolve.
//
// A :term: reference links to its term's id and a :mod: reference to its
// module's (inl.term, inl.module), as :ref: links to a label's: package
// links resolves the id in the same document, else in the one document
// of the version that has it.

// glossaryEntry is one entry of a glossary: the index of its first line
// in the glossary's content and the texts of its terms.
type glossaryEntry struct {
	start int
	terms []string
}

// glossaryEntries splits a glossary's content (glossaryContent: its
// argument and its lines but the options, dedented) into entries as
// Sphinx's Glossary directive does: an unindented line is a term, which
// starts an entry after a definition or at the start (a blank line
// between them aside) and joins the entry's terms after a term; indented
// lines are the definition; an unindented line starting ".. " and the
// indented lines after it are a comment. Lines before the first term
// belong to no entry.
func glossaryEntries(ls []srcLine) []glossaryEntry {
	var out []glossaryEntry
	inDefinition, inComment := true, false
	for i, l := range ls {
		switch {
		case l.text == "":
		case indentOf(l.text) == 0 && strings.HasPrefix(l.text, ".. "):
			inComment = true
		case indentOf(l.text) == 0:
			inComment = false
			if inDefinition {
				// The first term of an entry (inDefinition starts true).
				out = append(out, glossaryEntry{start: i})
				inDefinition = false
			}
			e := &out[len(out)-1]
			e.terms = append(e.terms, termText(l.text))
		case !inComment:
			inDefinition = true
		}
	}
	return out
}

// termText returns the text of a glossary term line as Sphinx registers
// it: the part before the first classifier (split_term_classifiers
// splits at " : ", spaces around the colon), without inline markup (the
// term node's astext).
func termText(line string) string {
	for k := 1; k+1 < len(line); k++ {
		if line[k] == ':' && line[k-1] == ' ' && line[k+1] == ' ' {
			line = strings.TrimRight(line[:k], " ")
			break
		}
	}
	return plainInline(line)
}

// prefixedID returns make_id's id for text with prefix ("term",
// "module"): SphinxID of "prefix-text", or "" when that is only the
// prefix, for which Sphinx takes a numbered id (see objectID).
func prefixedID(prefix, text string) string {
	id := SphinxID(prefix + "-" + text)
	if id == prefix {
		return ""
	}
	return id
}

// termTable holds the terms of the file's glossaries, which prescan finds
// before any :term: reference is written.
type termTable struct {
	// exact maps a term's text to its id and lower maps it lower-cased,
	// as the std domain keeps its terms: a :term: target is looked up
	// as written among the objects first (_resolve_obj_xref), and only
	// then lower-cased (_terms), so of terms "Node" and "node" each
	// gets the references written as it is, and "NODE" the one noted
	// last. A later term of the same text replaces an earlier one in
	// each map, as there.
	exact, lower map[string]string
	// taken and serial number the ids as objectID will when the terms
	// are written. They count only the terms' own ids: a term whose id
	// another id of the document holds gets another id there, and a
	// reference to it does not land.
	taken  map[string]bool
	serial int
}

// note records the terms of a glossary's entries.
func (tt *termTable) note(entries []glossaryEntry) {
	if tt.exact == nil {
		tt.exact, tt.lower, tt.taken = map[string]string{}, map[string]string{}, map[string]bool{}
	}
	for _, e := range entries {
		for _, t := range e.terms {
			id := prefixedID("term", t)
			for id == "" || tt.taken[id] {
				id = "term-" + itoa(tt.serial)
				tt.serial++
			}
			tt.taken[id] = true
			tt.exact[t] = id
			tt.lower[strings.ToLower(t)] = id
		}
	}
}

// lookup returns the id of the term a :term: reference to target (its
// whitespace runs made single spaces) links to, as Sphinx resolves it:
// the term written exactly so, else the last whose text lower-cased is
// target's. tt may be nil (no glossary read).
func (tt *termTable) lookup(target string) (string, bool) {
	if tt == nil {
		return "", false
	}
	if id, ok := tt.exact[target]; ok {
		return id, true
	}
	id, ok := tt.lower[strings.ToLower(target)]
	return id, ok
}

// glossaryContent returns the content of the glossary directive d as
// docutils gives it to the directive, blank lines aside: Glossary takes
// no argument, so text on the directive's own line is the first line of
// the content (an unindented line, so a term: ".. glossary:: Arg Term"
// makes the term "Arg Term", with a warning from Sphinx), followed by the
// lines up to its options and those after them.
func glossaryContent(d *directive) []srcLine {
	var ls []srcLine
	if d.arg != "" {
		ls = append(ls, srcLine{text: d.arg, n: d.n})
	}
	ls = append(ls, d.more...)
	return append(ls, d.body...)
}

// noteGlossary records the terms of the glossary directive at ls[i], if
// it is one.
func (c *converter) noteGlossary(ls []srcLine, i int) {
	if d, _, ok := directiveAt(ls, i, "glossary", "std:glossary"); ok {
		c.terms.note(glossaryEntries(glossaryContent(d)))
	}
}

// directiveAt parses the directive at ls[i] when it is one of names, and
// returns it and the index after its block.
func directiveAt(ls []srcLine, i int, names ...string) (*directive, int, bool) {
	t := strings.TrimLeft(ls[i].text, " ")
	if !strings.HasPrefix(t, ".. ") {
		return nil, 0, false
	}
	name, arg, ok := directiveName(strings.TrimLeft(t[3:], " "))
	if !ok {
		return nil, 0, false
	}
	for _, n := range names {
		if n == name {
			end := knownIndentedEnd(ls, i+1, indentOf(ls[i].text)+1)
			return parseDirective(name, arg, ls[i].n, dedent(ls[i+1:end])), end, true
		}
	}
	return nil, 0, false
}

// glossary writes a glossary's content entry by entry, recording the id
// of each term as a place just before the entry's text. The text is
// written as before: a one-line term as a definition list item, the
// terms of an entry with several as a paragraph.
func (c *converter) glossary(ls []srcLine, depth int) {
	from := 0
	for _, e := range glossaryEntries(ls) {
		c.blocks(ls[from:e.start], false, depth+1)
		for _, t := range e.terms {
			c.placeID(c.objectID(prefixedID("term", t), "term-"))
		}
		from = e.start
	}
	c.blocks(ls[from:], false, depth+1)
}

// moduleTarget records the id of the target ".. module::" (or automodule)
// d makes, unless it has :noindex: (":no-index:" since Sphinx 7.2). The
// directive takes one argument, which may go on over the lines after its
// first: with more, docutils reports an error and Sphinx makes no target.
func (c *converter) moduleTarget(d *directive) {
	name := strings.Fields(d.arg)
	for _, l := range d.more {
		name = append(name, strings.Fields(l.text)...)
	}
	if len(name) != 1 || hasOpt(d, "noindex") || hasOpt(d, "no-index") {
		return
	}
	c.placeID(c.objectID(prefixedID("module", name[0]), "module-"))
}
