package rst

import (
	"strings"
)

// Cross-references written as links. A :ref:, :term: or :mod: reference
// links to the id Sphinx gives its target ("#label", "#term-WSGI",
// "#module-flask.json"), which the reader records for the section holding
// the target, in whichever file of the project it is: package links
// resolves "#id" in the same document, else in the one document of the
// version that has it. A target starting with '!' is not linked, as
// Sphinx's XRefRole creates no reference for it; a target the reader
// cannot name an id for is shown unlinked.

// xref writes the cross-reference role (name is without its domain) of
// interpreted text body, with the text show and the target target, or
// reports that role is not one it links. A body starting with '!' makes
// no link (ReferenceRole's disabled).
func (v *inl) xref(role, name, show, target, body string, explicit bool) bool {
	disabled := strings.HasPrefix(body, "!")
	if disabled {
		show = strings.TrimPrefix(show, "!")
	}
	switch {
	case name == "ref" || name == "numref" || name == "keyword":
		v.ref(name, show, unescapeRST(target), explicit, disabled)
	case role == "term" || role == "std:term":
		v.term(show, unescapeRST(target), disabled)
	case role == "mod" || role == "py:mod":
		v.module(show, unescapeRST(target), explicit, disabled)
	default:
		return false
	}
	return true
}

// ref writes a :ref: (or :numref:, :keyword:) reference to label. One
// without a title shows the title Sphinx shows for a label of the
// document (labelTitles), found in the file or in a file it includes
// (prescan reads them: Sphinx counts their labels as the document's);
// a label of the document that has none (anonLabels) is shown as
// written, unlinked, as Sphinx does when it finds no title ("A title or
// caption not found"). A label of another document shows its name and
// stays a link: Sphinx shows the title of the section it names, or, if it
// names no section nor anything titled, the name unlinked, but the reader
// sees one file and cannot tell which (package links resolves the link
// to wherever the label is).
func (v *inl) ref(name, show, label string, explicit, disabled bool) {
	if !explicit && v.labels != nil && !disabled {
		if t, ok := v.labels[normalizeName(show)]; ok {
			show = plainInline(t)
		} else if name == "ref" && v.anon[normalizeName(show)] {
			v.text(show)
			return
		}
	}
	if id := MakeID(label); name == "ref" && !disabled && id != "" && !strings.Contains(label, ":") {
		// Sphinx labels are unique in a project: the section they
		// name has the label's id as its anchor, whichever file it
		// is in (links.Inbound looks it up across documents). A
		// label without one ("安装") stays text.
		v.link(show, "#"+id)
	} else {
		v.text(show)
	}
}

// term writes a :term: reference to a glossary term. Sphinx makes the
// target's whitespace runs single spaces and links to the term written
// exactly as the target, else to the last term whose text lower-cased
// is the target's (termTable.lookup). The id of a term of this
// document's glossaries is known (converter.terms); another document's
// term is taken to be written as the reference writes it: its id keeps
// case, so a reference in other case than its term does not land. (A
// term of another document written exactly as the reference would win
// over one of this document that differs in case; the reader, seeing
// one file, links this document's.)
func (v *inl) term(show, target string, disabled bool) {
	target = strings.Join(strings.Fields(strings.TrimPrefix(target, "!")), " ")
	id, ok := v.terms.lookup(target)
	if !ok {
		id = prefixedID("term", target)
	}
	if disabled || id == "" {
		v.text(show)
		return
	}
	v.link(show, "#"+id)
}

// module writes a :mod: reference, shown as code, linked to the module's
// id. Python's domain finds a module only by its exact name (a title-less
// target's leading '~' only shortens the text); a target with a leading
// '.' is searched in the current module first, then by the end of its
// name, which the reader cannot follow, so it stays unlinked.
func (v *inl) module(show, target string, explicit, disabled bool) {
	target = strings.TrimSpace(strings.TrimPrefix(target, "!"))
	if !explicit {
		target = strings.TrimLeft(target, "~")
	}
	id := prefixedID("module", target)
	if disabled || id == "" || strings.HasPrefix(target, ".") {
		v.code(show)
		return
	}
	v.codeLink(show, "#"+id)
}

// codeLink writes a markdown link to target whose text is t in code, or
// t as code alone when not converting.
func (v *inl) codeLink(t, target string) {
	if !v.md || strings.TrimSpace(t) == "" {
		v.code(t)
		return
	}
	v.writeLink(codeSpan(t), target)
}
