package asciidoc

import "strings"

// Natural cross references: <<Section Title>> and xref:Section Title[]
// name a section (or a discrete heading, a block with an id and a title,
// an anchor with a reftext) of the same page by the text a reference to
// it shows, as Asciidoctor 2 resolves them (Substitutors#sub_macros,
// Document#resolve_id):
//
//   - only a reference without "#" ("<<#Title>>", "xref:page.adoc#Title[]"
//     and Antora's page references take the fragment as written, as does
//     Antora for another page, whose titles it does not look up);
//   - only when no element of the page has the reference as its id, and
//     the reference has a space or an upper-case letter ("<<install>>" is
//     the id "install", whether or not a section is titled so);
//   - the text must be the element's reftext, else its title, exactly:
//     case and markup count ("<<later section>>" names no "Later
//     Section"), and a section with a reftext is not named by its title;
//   - two elements with the same text: the first in the page;
//   - the page is read first, so a reference may name a section after it.
//
// Asciidoctor compares the texts converted to HTML; the reader compares
// them as written, attributes substituted and passthroughs as their
// text, which differs only where two spellings convert alike ("*b*" and
// "**b**"). Where its replacements turn part of the reference into a
// character reference ("Tom's", "a -- b"), the "#" of that reference
// makes Asciidoctor read a page and a fragment, and nothing resolves:
// refID leaves those as written too.

// addNatural records that the text key names the element whose id is id,
// unless an earlier element has that text.
func (c *converter) addNatural(key, id string) {
	if key == "" || id == "" {
		return
	}
	if c.natural == nil {
		c.natural = map[string]string{}
	}
	if _, ok := c.natural[key]; !ok {
		c.natural[key] = id
	}
}

// refKey returns the text a natural cross reference names an element
// titled s by: s with attributes substituted and passthroughs as their
// text, trimmed.
func (c *converter) refKey(s string, attrs *attributes) string {
	in := &inliner{c: c, attrs: attrs}
	s = attrs.substitute(in.extractPasses(s))
	return strings.TrimSpace(in.passesAsWritten(s))
}

// refID returns the id a reference within the page links to, once the
// page is read: ref without its "#" when it starts with one (written so
// by xref for a reference taken as written); else ref when an element
// of the page has it as its id; else the id of the element it names by
// its text, when it may name one (see the comment above); else ref.
func (c *converter) refID(ref string) string {
	if id, ok := strings.CutPrefix(ref, "#"); ok {
		return id
	}
	if c.ids.used[ref] || !mayNameByText(ref) {
		return ref
	}
	if strings.Count(markReplacements(ref), string(tagMark)) > strings.Count(ref, string(tagMark)) {
		return ref
	}
	if id, ok := c.natural[ref]; ok {
		return id
	}
	return ref
}

// mayNameByText reports whether a reference without "#" may name an
// element by its text rather than its id: whether it has a space or an
// upper-case letter.
func mayNameByText(ref string) bool {
	return strings.Contains(ref, " ") || strings.ToLower(ref) != ref
}

// refLink writes text (markdown) as a link to the element of this page
// that ref names, once the page is read (resolveRefs, refID), or alone
// where link would write it alone.
func (in *inliner) refLink(b *strings.Builder, text, ref string) {
	if in.plain || in.inLink || strings.TrimSpace(text) == "" {
		b.WriteString(text)
		return
	}
	b.WriteString("[")
	b.WriteString(text)
	b.WriteString("](#")
	b.WriteByte(destMark)
	b.WriteString(ref)
	b.WriteByte(destMark)
	b.WriteString(")")
}

// xrefTarget splits the target of a cross reference ("<<target>>" when
// shorthand, else "xref:target[]") into the page it names, as a path
// to resolve (resolvePage), "" for none, and the fragment, reporting
// whether the target has a "#", as Asciidoctor 2.0.18 reads it
// (Substitutors#sub_macros, InlineXrefMacroRx):
//
//   - without "#", "<<x>>" is always an element of this page: the id
//     (or natural reference) "x", even "<<page.adoc>>" (a link to
//     "#page.adoc" on the page). "xref:page.adoc[]" names the page, as
//     does a target with another extension ("xref:file.html[]", a link
//     to that file); "xref:x[]" an element of this page;
//   - with "#" after the path ("<<page.adoc#>>", "<<page#id>>",
//     "xref:page#id[]"), the path names a page. A page's name without
//     its AsciiDoc extension (in "<<x#>>" any but .adoc, .asciidoc,
//     .asc, .ad and .txt; in "xref:x#[]" none at all) is the name of
//     its source: "<<page#id>>" links page.html, which Antora, setting
//     relfilesuffix to .adoc, resolves as page.adoc; so ".adoc" is
//     added. Another path is kept as written ("<<page.asciidoc#id>>",
//     "xref:file.html#x[]", a file);
//   - a "#" first ("<<#id>>") gives the fragment alone.
func xrefTarget(target string, shorthand bool) (page, frag string, hasFrag bool) {
	page, frag, hasFrag = strings.Cut(target, "#")
	switch {
	case !hasFrag && (shorthand || !hasExt(page)):
		return "", page, false
	case !hasFrag || page == "":
	case shorthand && !hasAsciiDocExt(page), !shorthand && !hasExt(page):
		page += ".adoc"
	}
	return page, frag, hasFrag
}

// hasAsciiDocExt reports whether a path ends with one of Asciidoctor's
// ASCIIDOC_EXTENSIONS.
func hasAsciiDocExt(p string) bool {
	for _, ext := range []string{".adoc", ".asciidoc", ".asc", ".ad", ".txt"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

// hasExt reports whether the last part of a path has an extension, as
// Asciidoctor's Helpers.extname? does: xref:file.html[] names a file,
// xref:Some Title[] does not.
func hasExt(p string) bool {
	i := strings.LastIndexByte(p, '.')
	return i >= 0 && !strings.Contains(p[i:], "/")
}
