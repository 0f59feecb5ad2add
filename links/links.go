// Package links resolves the links between one version's documents to the
// sections they point at, gives each section the texts other sections
// link to it with, and titles the links whose text is only their target
// (Retitles).
//
// A link's text is how another page names the section it points at, in
// that page's words ("aliases" for resolve.alias, "nested public path" for
// base), which can differ from the section's own heading and prose: web
// search has ranked pages by their anchor text for that reason since its
// beginnings, and search ranks it as a field of its own (index.FieldInbound).
//
// Only links that resolve to a document of the same version count: "#id"
// within the document (a section's anchor, or an id inside a section that
// its reader recorded, such as an AsciiDoc inline anchor: see
// markdown.Section.InnerAnchors), or, when it has no such anchor, the one
// section of the version that has (reStructuredText's cross-references
// name labels unique in their project), paths relative to the document or to the site's
// root ("/guide/build", "../config/"), and absolute URLs whose path names a
// document (documentation often links to its own published site); a
// site-root path whose folders the site does not mirror matches loosely
// (see loose). Paths
// are matched without their extension (.md, .html...) and without a final
// index or README, as documentation sites serve them; the anchor is matched
// as written, then ignoring case and punctuation (a VitePress "#resolve-alias"
// is the "resolvealias" GitHub's slugs make of "resolve.alias").
package links

import (
	"cmp"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/codex7/codex7/markdown"
)

// Limits on what a section receives, so that a page every other page links
// to (a glossary, an installation guide) does not grow without bound.
const (
	// MaxPerSection is the number of link texts a section keeps: the first
	// ones in document order.
	MaxPerSection = 64
	// maxText is the length in bytes beyond which a link's text is not a
	// name for its target but a sentence or a URL, and is left out.
	maxText = 120
)

// Inbound returns, for each document of docs and each of its sections, the
// texts of the links from other sections that resolve to that section,
// one per line, or "" when none do. A section's own links to itself (from
// any of its chunks) do not count; a link to a document without an anchor
// counts for its first section. The result is the same for the same docs.
func Inbound(docs []*markdown.Document) [][]string {
	r := resolverOf(docs)
	texts := make([][][]string, len(docs))
	for i, d := range docs {
		texts[i] = make([][]string, len(d.Sections))
	}
	for i, d := range docs {
		for k := range d.Sections {
			// The chunks of a section follow its part 0, the one links
			// resolve to.
			own := k - d.Sections[k].Part
			for _, l := range d.Sections[k].Links {
				if len(l.Text) > maxText || strings.TrimSpace(l.Text) == "" {
					continue
				}
				di, sk, ok := r.Resolve(i, l.Target)
				if !ok || (di == i && sk == own) {
					continue
				}
				if t := &texts[di][sk]; len(*t) < MaxPerSection {
					*t = append(*t, l.Text)
				}
			}
		}
	}
	out := make([][]string, len(docs))
	for i := range texts {
		out[i] = make([]string, len(texts[i]))
		for k, t := range texts[i] {
			out[i][k] = strings.Join(t, "\n")
		}
	}
	return out
}

// resolverOf is the Resolver of docs' sections.
func resolverOf(docs []*markdown.Document) *Resolver {
	pages := make([]Page, len(docs))
	for i, d := range docs {
		pages[i] = Page{Path: d.Path, Anchors: make([]string, len(d.Sections))}
		for k, s := range d.Sections {
			if s.Part != 0 {
				continue
			}
			pages[i].Anchors[k] = s.Anchor
			pages[i].SetInner(k, s.InnerAnchors)
		}
	}
	return NewResolver(pages)
}

// Retitle is a link of a section's text given a title: Old, as the
// section's markdown writes it, becomes New.
type Retitle struct{ Old, New string }

// Retitles returns, for each document of docs and each of its sections,
// the links of its text whose text is nothing but their own target
// ("[/quickstart](/quickstart)", "[security-cookie](#security-cookie)":
// a Sphinx :doc: or :ref: whose target is in a file the reader did not
// see) and that resolve to a section of the version, with the text Sphinx
// shows for them: the title of the section, or of the document for a
// link to its first section. An agent reads "Set-Cookie options" where
// it read a label. The result is the same for the same docs.
func Retitles(docs []*markdown.Document) [][][]Retitle {
	r := resolverOf(docs)
	out := make([][][]Retitle, len(docs))
	for i, d := range docs {
		for k := range d.Sections {
			for _, l := range d.Sections[k].Links {
				bare := strings.TrimLeft(l.Target, "/#")
				if l.Text != l.Target && l.Text != bare || bare == "" {
					continue
				}
				di, sk, ok := r.Resolve(i, l.Target)
				if !ok {
					continue
				}
				title := docs[di].Sections[sk].Title
				if sk == 0 && docs[di].Title != "" {
					title = docs[di].Title
				}
				if title == "" || title == l.Text {
					continue
				}
				if out[i] == nil {
					out[i] = make([][]Retitle, len(d.Sections))
				}
				out[i][k] = append(out[i][k], Retitle{Old: "[" + l.Text + "](" + l.Target + ")", New: "[" + title + "](" + l.Target + ")"})
			}
		}
	}
	return out
}

// Page is a document as links are resolved to it: its path in the
// repository and its sections' anchors, in order ("" for a section
// without one, or for a chunk after a section's first).
type Page struct {
	Path    string
	Anchors []string
	// Inner holds, for each section, the ids of places inside it a link
	// may point at (markdown.Section.InnerAnchors), or is nil when no
	// section has any. A section's own anchor wins over another's inner
	// id of the same name.
	Inner [][]string
}

// SetInner records ids as the inner ids of section k, making Inner only
// when a section has some.
func (p *Page) SetInner(k int, ids []string) {
	if len(ids) == 0 {
		return
	}
	if p.Inner == nil {
		p.Inner = make([][]string, len(p.Anchors))
	}
	p.Inner[k] = ids
}

// Resolver resolves link targets to the sections of one version's pages,
// as Inbound does (the package comment says how). The web page uses it to
// show a link to another document as a link to that document's view.
type Resolver struct {
	docs []Page
	// byPath maps every trailing part of a document's site path (its path
	// without extension or final index: "docs/guide/build" gives
	// "docs/guide/build", "guide/build" and "build") to the documents
	// whose path ends so, in shorter order; a link takes the nearest
	// (see nearest).
	byPath map[string][]int
	// bySite maps a document's whole site path to it (the shortest path,
	// then the first, when two documents are served at the same path).
	bySite map[string]int
	// byFile maps a document's repository path to it: a link that names
	// a file (api/README.md) means that file, though api.md beside it is
	// served at the same site path.
	byFile map[string]int
	// byName maps the last part of documents' site paths to them, in
	// shorter order, for loose.
	byName map[string][]int
	// anchors maps a document and an anchor to the section's index, as
	// written and folded (see fold).
	anchors []map[string]int
	folded  []map[string]int
	// unique maps an anchor that one section of the version has, and no
	// other, to that section: "#label" links to a label of another file
	// (a Sphinx :ref:) when this document has no such anchor.
	unique map[string]ref
	// exts holds the extensions, lowercased, that a link's path is matched
	// without: its documents' (.md, .rst, a Sphinx project's .txt...) and
	// served pages' (.html, .htm). Another "extension" is part of the
	// name: "library/os.path" (a Sphinx docname) is os.path.rst, not
	// os.rst, and "/release/v3.2/" is v3.2.md.
	exts map[string]bool
}

// ref is a section of a document; doc -1 marks an anchor found twice.
type ref struct{ doc, section int }

// NewResolver indexes pages for Resolve. It keeps pages, which must not
// change afterwards.
func NewResolver(docs []Page) *Resolver {
	r := &Resolver{docs: docs, byPath: map[string][]int{}, bySite: map[string]int{}, byFile: make(map[string]int, len(docs)), byName: map[string][]int{}, unique: map[string]ref{}, exts: map[string]bool{".html": true, ".htm": true}, anchors: make([]map[string]int, len(docs)), folded: make([]map[string]int, len(docs))}
	// Shorter order: the shorter path, then the first in byte order.
	shorter := func(a, b int) int {
		return cmp.Or(cmp.Compare(len(docs[a].Path), len(docs[b].Path)), strings.Compare(docs[a].Path, docs[b].Path))
	}
	for i, d := range docs {
		r.byFile[d.Path] = i
		r.exts[strings.ToLower(path.Ext(d.Path))] = true
		p := sitePath(d.Path)
		if j, ok := r.bySite[p]; !ok || shorter(i, j) < 0 {
			r.bySite[p] = i
		}
		r.byName[path.Base(p)] = append(r.byName[path.Base(p)], i)
		for {
			r.byPath[p] = append(r.byPath[p], i)
			_, rest, ok := strings.Cut(p, "/")
			if !ok {
				break
			}
			p = rest
		}
		r.anchors[i], r.folded[i] = map[string]int{}, map[string]int{}
		for k, anchor := range d.Anchors {
			r.addAnchor(i, k, anchor)
		}
		for k, inner := range d.Inner {
			for _, anchor := range inner {
				r.addAnchor(i, k, anchor)
			}
		}
	}
	for _, ds := range r.byPath {
		slices.SortFunc(ds, shorter)
	}
	for _, ds := range r.byName {
		slices.SortFunc(ds, shorter)
	}
	return r
}

// addAnchor records that anchor of document i names its section k, unless
// an earlier section of the document has it.
func (r *Resolver) addAnchor(i, k int, anchor string) {
	if anchor == "" {
		return
	}
	if _, ok := r.anchors[i][anchor]; !ok {
		r.anchors[i][anchor] = k
		if _, dup := r.unique[anchor]; dup {
			r.unique[anchor] = ref{-1, 0}
		} else {
			r.unique[anchor] = ref{i, k}
		}
	}
	if f := fold(anchor); f != "" {
		if _, ok := r.folded[i][f]; !ok {
			r.folded[i][f] = k
		}
	}
}

// Resolve returns the page and the section (an index in its Anchors) a
// link written in page from points at; a link without an anchor points at
// the page's first section.
func (r *Resolver) Resolve(from int, target string) (doc, section int, ok bool) {
	u, err := url.Parse(strings.TrimSpace(target))
	if err != nil {
		return 0, 0, false
	}
	doc = from
	switch {
	case u.Scheme == "http" || u.Scheme == "https":
		p := r.linkPath(u.Path)
		if doc, ok = r.nearest(from, r.byPath[p]); !ok || p == "" {
			return 0, 0, false
		}
	case u.Scheme != "" || u.Host != "" || u.Opaque != "":
		return 0, 0, false // mailto:, a protocol-relative URL…
	case u.Path == "":
		// "#anchor": this document. "", "#" and "?query" name no
		// section (an unfinished link, "back to top").
		if u.Fragment == "" {
			return 0, 0, false
		}
	case strings.HasPrefix(u.Path, "/"):
		if doc, ok = r.byFile[strings.TrimPrefix(path.Clean(u.Path), "/")]; ok {
			break // the repository's own path of a file (GitHub renders it so)
		}
		if doc, ok = r.nearest(from, r.byPath[r.linkPath(u.Path)]); !ok {
			if doc, ok = r.loose(from, r.linkPath(u.Path)); !ok {
				return 0, 0, false
			}
		}
	default:
		if doc, ok = r.relative(from, u.Path); !ok {
			return 0, 0, false
		}
	}
	if u.Fragment == "" {
		return doc, 0, len(r.docs[doc].Anchors) > 0
	}
	if k, ok := r.anchors[doc][u.Fragment]; ok {
		return doc, k, true
	}
	if k, ok := r.folded[doc][fold(u.Fragment)]; ok {
		return doc, k, true
	}
	if u.Path == "" {
		if at, ok := r.unique[u.Fragment]; ok && at.doc >= 0 {
			return at.doc, at.section, true
		}
	}
	return 0, 0, false
}

// relative resolves a path relative to document from: to the file it
// names, else the page beside it ("options.md", "../config/" from
// guide/build.md is config), or, as a
// site serves each page as a folder (guide/build.md at /guide/build/), to
// the page beside it there ("../config/" from guide/build.md is then
// guide/config).
func (r *Resolver) relative(from int, p string) (int, bool) {
	src := r.docs[from].Path
	if d, ok := r.byFile[path.Join(path.Dir(src), p)]; ok {
		return d, true // the file the link names
	}
	if d, ok := r.exact(path.Join(path.Dir(src), p)); ok {
		return d, true
	}
	return r.exact(path.Join(path.Dir(src), path.Base(sitePath(src)), p))
}

// nearest returns the candidate (documents in shorter order) nearest to
// document from: the one whose path shares the most leading folders with
// from's, the first of those. A repository that keeps its documentation
// in several languages or versions (docs/en/, docs/de/) links within its
// own tree.
func (r *Resolver) nearest(from int, cands []int) (int, bool) {
	if len(cands) == 0 {
		return 0, false
	}
	src := strings.Split(path.Dir(r.docs[from].Path), "/")
	best, most := cands[0], -1
	for _, c := range cands {
		dir := strings.Split(path.Dir(r.docs[c].Path), "/")
		n := 0
		for n < len(src) && n < len(dir) && src[n] == dir[n] {
			n++
		}
		if n > most {
			best, most = c, n
		}
	}
	return best, true
}

// loose returns the document a site-root path names when the site serves
// its pages from other folders than the repository keeps them in: of the
// documents with the same last part whose path has the link's other parts
// in the same order, the nearest to document from ("/guides/functional_api/"
// is guides/ipynb/functional_api.ipynb).
func (r *Resolver) loose(from int, p string) (int, bool) {
	if p == "" {
		return 0, false
	}
	parts := strings.Split(p, "/")
	last, dirs := parts[len(parts)-1], parts[:len(parts)-1]
	var matched []int
	for _, d := range r.byName[last] {
		have := strings.Split(sitePath(r.docs[d].Path), "/")
		have = have[:len(have)-1]
		i := 0
		for _, h := range have {
			if i < len(dirs) && h == dirs[i] {
				i++
			}
		}
		if i == len(dirs) {
			matched = append(matched, d)
		}
	}
	return r.nearest(from, matched)
}

// exact returns the document whose whole site path is the link path p.
func (r *Resolver) exact(p string) (int, bool) {
	d, ok := r.bySite[r.linkPath(p)]
	return d, ok
}

// sitePath returns the path a documentation site serves a document at,
// without a leading or trailing slash: no extension, no final index,
// _index or README ("guide/index.md" is "guide").
func sitePath(p string) string { return pagePath(p, nil) }

// linkPath returns the site path a link's path names: as sitePath, but
// only an extension of the version's documents or of served pages is
// dropped (see exts).
func (r *Resolver) linkPath(p string) string { return pagePath(p, r.exts) }

// pagePath returns p without a leading or trailing slash, a final index,
// _index or README, and its extension when exts is nil or holds it.
func pagePath(p string, exts map[string]bool) string {
	p = strings.Trim(path.Clean("/"+p), "/")
	if ext := path.Ext(p); ext != "" && (exts == nil || exts[strings.ToLower(ext)]) {
		p = strings.TrimSuffix(p, ext)
	}
	switch path.Base(p) {
	case "index", "_index", "README", "readme":
		p = strings.TrimSuffix(strings.TrimSuffix(p, path.Base(p)), "/")
	}
	return p
}

// fold returns an anchor's letters and digits, lowercased.
func fold(anchor string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(anchor) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c > 127 {
			b.WriteRune(c)
		}
	}
	return b.String()
}
