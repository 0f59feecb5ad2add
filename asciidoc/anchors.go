package asciidoc

import (
	"strings"

	"github.com/codex7/codex7/markdown"
)

// Anchors inside sections: an inline anchor ([[id]], anchor:id[]), a
// block's id ([[id]] or [#id] above it) and a discrete heading's id name
// a place inside a section, which the page links to as it links to
// sections (<<id>>, xref:page.adoc#id[]). The reader records where each
// stands in the markdown it writes and gives the section holding it the
// id (markdown.Section.InnerAnchors), so that package links resolves a
// link to it to that section.

// anchorHere records id as the id of a place in the section being
// written, at the end of out.
func (c *converter) anchorHere(id string) {
	if id = strings.TrimSpace(id); id != "" {
		c.inner = append(c.inner, markdown.Place{ID: id, At: len(c.out)})
	}
}

// anchor records an inline anchor: its id, the reftext <<id>> shows and
// a natural reference names it by, and, in text the page shows, its
// place.
func (in *inliner) anchor(id, reftext string) {
	in.c.ids.register(id)
	if reftext = strings.TrimSpace(in.passesAsWritten(reftext)); reftext != "" {
		in.c.titles[id] = reftext
		in.c.addNatural(reftext, id)
	}
	if !in.plain {
		in.c.anchorHere(id)
	}
}

// blockID records the id of the block pend is set on (a discrete
// heading's is discrete's) as a place in the section being written,
// and its reftext, else its title, as the text <<id>> shows and a
// natural reference names it by, as Asciidoctor's
// AbstractBlock#xreftext reads them (with no xrefstyle): the title the
// block has, the last of its title lines.
func (p *parser) blockID(pend *blockAttrs) {
	id := strings.TrimSpace(pend.id)
	if id == "" {
		return
	}
	p.c.anchorHere(id)
	p.nameTarget(id, firstNonEmpty(pend.reftext, pend.title))
}

// nameTarget records text, AsciiDoc inline text, as what <<id>> shows
// (plain) and the text a natural cross reference names id by (refKey):
// the one place a section's, discrete heading's or block's reftext or
// title is recorded. An empty text records nothing.
func (p *parser) nameTarget(id, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	p.c.titles[id] = strings.TrimSpace(p.c.inlinePlain(text, p.attrs))
	p.c.addNatural(p.c.refKey(text, p.attrs), id)
}

// setInnerAnchors gives each section of doc the ids recorded inside it
// (c.inner). at[i] is the index in c.out of section i's first line (-1
// for one the reader did not write); the level-0 section holds what
// comes before the first heading, and an anchor on a heading's line is
// that heading's section's. Ids before every section are dropped.
func (c *converter) setInnerAnchors(doc *markdown.Document, at []int) {
	starts := make([]int, len(doc.Sections))
	for i, s := range doc.Sections {
		starts[i] = at[i]
		if s.Level == 0 {
			starts[i] = 0
		}
	}
	markdown.SetInnerAnchors(doc, starts, c.inner)
}
