package web

import (
	"regexp"
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
// anchor text. A link it cannot resolve is left as written when it leads
// elsewhere (another site, mailto:), and shown as its text when it is
// relative (a path or "#id"): here it would lead nowhere, or to another
// element of the page showing it (a query page shows many documents'
// sections). Sphinx's :mod: to a standard-library module, a link to a
// file of the repository that is not a document, are such links.
type linker struct {
	base  string
	pages []links.Page
	index map[string]int // a document's path to its place in pages
	r     *links.Resolver
}

// Linkers kept: indexing a version's documents takes about 13 ms a
// thousand documents (links.BenchmarkNewResolver), too much for every
// page shown, so the site keeps the last few versions'. A linker holds
// about 1 KB a document and 100 bytes an anchor (heap retained after
// links.NewResolver, measured on 10,000 documents of 1, 5 and 20
// anchors), which linkerBytes charges: a version of tens of thousands of
// small pages (tldr's) fits the bound and is indexed once.
const (
	maxLinkers     = 16
	maxLinkerBytes = 64 << 20
)

// linkerBytes estimates what a linker of docs holds.
func linkerBytes(docs []artifacts.DocumentInfo) int64 {
	n := int64(0)
	for _, d := range docs {
		n += 1<<10 + 100*int64(len(d.Outline)) + int64(len(d.Path))
		for _, o := range d.Outline {
			n += 100 * int64(len(o.Inner))
		}
	}
	return n
}

// linkFixer returns the function that rewrites the targets of the links
// of the document at path (see renderMarkdown). The version's linker is
// found or made at the first link, from the documents docs lists, so a
// page without links costs nothing; when the documents cannot be listed
// links are left as written.
func (s *Site) linkFixer(base, path string, docs func() (*catalog.Resolved, []artifacts.DocumentInfo, error)) func(dest []byte) []byte {
	var fix func(dest []byte) []byte
	looked := false
	return func(dest []byte) []byte {
		if !looked {
			looked = true
			if res, list, err := docs(); err == nil {
				fix = s.linkerFor(res, base, list).from(path)
			}
		}
		if fix == nil {
			return dest
		}
		return fix(dest)
	}
}

// leadsNowhere reports whether a link target the version's documents do
// not resolve is relative (a path, "#id"), so that it leads nowhere on
// this site: it has no scheme and does not start with "//" (another
// host). An empty target and "#" (the top of the page) are left alone. It
// does not parse the target as a URL: "50%.md", which does not parse,
// is relative all the same.
func leadsNowhere(target string) bool {
	t := strings.TrimSpace(target)
	return t != "" && t != "#" && !strings.HasPrefix(t, "//") && !hasScheme.MatchString(t)
}

// hasScheme matches a target that starts with a URL scheme (RFC 3986:
// a letter, then letters, digits, "+", "-" or ".", then ":").
var hasScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// listOnce returns a function that calls list the first time and returns
// what it did every time: a query page's sections share one listing,
// asked for at the first link.
func listOnce(list func() (*catalog.Resolved, []artifacts.DocumentInfo, error)) func() (*catalog.Resolved, []artifacts.DocumentInfo, error) {
	var (
		res   *catalog.Resolved
		docs  []artifacts.DocumentInfo
		err   error
		asked bool
	)
	return func() (*catalog.Resolved, []artifacts.DocumentInfo, error) {
		if !asked {
			asked = true
			res, docs, err = list()
		}
		return res, docs, err
	}
}

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
	s.linkers.Put(key, l, linkerBytes(docs))
	return l
}

// newLinker indexes the documents of the version the page at base shows.
func newLinker(base string, docs []artifacts.DocumentInfo) *linker {
	l := &linker{base: base, pages: make([]links.Page, len(docs)), index: make(map[string]int, len(docs))}
	for i, d := range docs {
		p := links.Page{Path: d.Path, Anchors: make([]string, len(d.Outline))}
		for k, o := range d.Outline {
			p.Anchors[k] = o.Anchor
			p.SetInner(k, o.Inner)
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
			if leadsNowhere(target) {
				return nil
			}
			return dest
		}
		anchor := ""
		if strings.Contains(target, "#") {
			anchor = l.pages[doc].Anchors[k]
		}
		return []byte(docURL(l.base, l.pages[doc].Path, anchor))
	}
}
