package web

import (
	"strings"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/links"
	"github.com/codex7/codex7/markdown"
)

// linker shows a section's links to the version's other documents as
// links to their views on this site. Documentation links to its pages by
// their paths in the repository or on its published site ("../config/",
// "/guide/build#base", an AsciiDoc xref's repository path), which lead
// nowhere from here; links.Resolver reads them as the build does for
// anchor text. A link it cannot resolve is left as written.
type linker struct {
	base  string
	pages []links.Page
	index map[string]int // a document's path to its place in pages
	r     *links.Resolver
}

// Linkers kept: indexing a version's documents takes about 13 ms and
// 5 MB a thousand documents (links.BenchmarkNewResolver), too much for
// every page shown, so the site keeps the last few versions'.
const (
	maxLinkers     = 16
	maxLinkerBytes = 64 << 20
	linkerBytesPer = 5 << 10 // a document's share of a linker, about
)

// linkerFor returns the linker of the build res names, shown under base:
// the one kept for them, or a new one of docs, kept.
func (s *Site) linkerFor(res *catalog.Resolved, base string, docs []artifacts.DocumentInfo) *linker {
	if res == nil || res.Build == "" {
		return newLinker(base, docs) // no build to know it by
	}
	key := res.Build + " " + base
	if l, ok := s.linkers.Get(key); ok {
		return l
	}
	l := newLinker(base, docs)
	s.linkers.Put(key, l, int64(len(docs))*linkerBytesPer)
	return l
}

// newLinker indexes the documents of the version the page at base shows.
func newLinker(base string, docs []artifacts.DocumentInfo) *linker {
	l := &linker{base: base, pages: make([]links.Page, len(docs)), index: make(map[string]int, len(docs))}
	for i, d := range docs {
		p := links.Page{Path: d.Path, Anchors: make([]string, len(d.Outline))}
		for k, o := range d.Outline {
			p.Anchors[k] = o.Anchor
		}
		l.pages[i], l.index[d.Path] = p, i
	}
	l.r = links.NewResolver(l.pages)
	return l
}

// from returns the function that rewrites the targets of links written in
// the document at path, or nil when the linker or the document is unknown.
func (l *linker) from(path string) func(dest []byte) []byte {
	if l == nil {
		return nil
	}
	i, ok := l.index[path]
	if !ok {
		return nil
	}
	return func(dest []byte) []byte {
		target := markdown.LinkTarget(dest) // as the build read it
		doc, k, ok := l.r.Resolve(i, target)
		if !ok {
			return dest
		}
		anchor := ""
		if strings.Contains(target, "#") {
			anchor = l.pages[doc].Anchors[k]
		}
		return []byte(docURL(l.base, l.pages[doc].Path, anchor))
	}
}
