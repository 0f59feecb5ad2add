package asciidoc

import "strings"

// sectionTitle reads "== Title" (or "## Title") and returns its level
// (0 for "=").
func sectionTitle(t string) (int, string, bool) {
	if t == "" || (t[0] != '=' && t[0] != '#') {
		return 0, "", false
	}
	ch := t[0]
	n := 0
	for n < len(t) && t[n] == ch {
		n++
	}
	if n > 6 || n >= len(t) || (t[n] != ' ' && t[n] != '\t') {
		return 0, "", false
	}
	title := strings.TrimSpace(t[n:])
	if title == "" {
		return 0, "", false
	}
	// A symmetric closing sequence.
	if suf := " " + t[:n]; strings.HasSuffix(title, suf) {
		title = strings.TrimSpace(strings.TrimSuffix(title, suf))
	}
	return n - 1, title, true
}

// headingID returns the id of a section or discrete heading titled
// title, and the title without the anchor that may end it: the
// attributes' id, else the anchor's ("== Title [[id]]", see
// sectionAnchor), else one generated from the title. The id is recorded
// as used, and the title (or the reftext) as the one <<id>> shows. With
// sectids unset Asciidoctor generates no id: the heading has none, and
// the id returned is "".
func (p *parser) headingID(title string, pend *blockAttrs) (id, rest string) {
	id, reftext := strings.TrimSpace(pend.id), pend.reftext
	if id == "" {
		if a, ref, t, ok := sectionAnchor(title); ok {
			id, reftext, title = a, ref, t
		}
	}
	switch {
	case id != "":
		p.c.ids.register(id)
	case !p.attrs.defined("sectids"):
		return "", title
	default:
		id = p.c.ids.generate(p.c.inlineID(title, p.attrs), p.attrs)
	}
	p.nameTarget(id, firstNonEmpty(reftext, title))
	return id, title
}

// heading writes a section title as a markdown heading and records its
// id. A section Asciidoctor gives no id (sectids unset) still needs an
// anchor in the Document, unique within it: it gets the id Asciidoctor
// would have generated, numbered past the ids the page does use once
// they are all known (anchorUnidentified), so that it takes none of
// theirs; no link into the site reaches such a section but by its page.
func (p *parser) heading(level int, title string, l line, prefix string, pend *blockAttrs) {
	src := l.src
	level = max(0, min(level, 5))
	id, title := p.headingID(title, pend)
	inner := len(p.c.inner)
	md := strings.TrimSpace(p.c.inlineMD(title, p.attrs))
	if strings.HasSuffix(md, "#") {
		md = md[:len(md)-1] + `\#`
	}
	md = strings.ReplaceAll(md, "{", `\{`)
	if md == "" {
		md = `\-`
	}
	p.blank(prefix, src)
	if id == "" {
		base, sep := p.c.ids.base(p.c.inlineID(title, p.attrs), p.attrs)
		p.c.unidentified = append(p.c.unidentified, unidentified{len(p.c.out), base, sep})
	}
	p.c.heads[len(p.c.out)] = id
	if l.file != "" {
		p.c.headFiles[len(p.c.out)] = l.file
	}
	p.emit(prefix, strings.Repeat("#", level+1)+" "+md, src)
	// Anchors in the title are in the section it starts.
	for k := inner; k < len(p.c.inner); k++ {
		p.c.inner[k].At = len(p.c.out) - 1
	}
	p.blank(prefix, src)
}

// unidentified is a section heading Asciidoctor gives no id: its index
// in out, the id it would have had and the separator to number it with.
type unidentified struct {
	out       int
	base, sep string
}

// anchorUnidentified sets the anchors of the sections Asciidoctor gives
// no id, once every id the page uses is known: each the id it would
// have had, numbered (as a repeated id is) when that is taken.
func (c *converter) anchorUnidentified() {
	for _, u := range c.unidentified {
		c.heads[u.out] = c.ids.unique(u.base, u.sep)
	}
}

// discrete writes a discrete (or float) heading: a heading Asciidoctor
// gives an id but that starts no section, its content staying in the
// enclosing section (or the text before the first). It is written as a
// bold line, as block titles are: package markdown makes a section of
// every markdown heading, nested in quotes and lists too, and of HTML
// headings, so no heading syntax keeps the text where the site shows
// it; the bold line keeps the title readable in that text. Its id stays
// taken, so later ids are numbered as the site's, and <<id>> shows its
// title; the id names no section of the Document, whose anchors are
// its sections'.
func (p *parser) discrete(title string, src int, prefix string, pend *blockAttrs) {
	id, title := p.headingID(title, pend)
	p.c.anchorHere(id)
	md := strings.TrimSpace(p.c.inlineMD(title, p.attrs))
	if md == "" {
		return // "****" would be a thematic break
	}
	p.blank(prefix, src)
	p.emit(prefix, "**"+md+"**", src)
	p.blank(prefix, src)
}
