// Package asciidoc reads AsciiDoc files (.adoc, .asciidoc), as Asciidoctor
// and Antora publish them, into the same Document the markdown reader
// makes, and reads Antora navigation files for document order and titles.
//
// Split translates the AsciiDoc into markdown (headings, fenced code with
// its language, bold lines for admonitions' labels, block titles and
// discrete headings, which start no section, GFM tables), keeping for
// every generated line the line of the file it came from; it then
// splits that markdown with markdown.Split and sets each section's line
// and anchor from what it recorded: anchors are the ids Asciidoctor
// gives sections, so links into the published site resolve.
//
// Section levels follow the published HTML: the document title ("= ")
// becomes the Document's Title and the text before the first section its
// level-0 section; "==" sections are level 2 (h2), down to "======" at 6;
// level-0 sections of books ("= " after the header) are level 1.
// Markdown-style titles ("## ") count the same way.
//
// Cross references become markdown links: to a page by its repository
// path, within the page to the id of the section, block or anchor they
// name, by its id or, as Asciidoctor resolves natural cross references
// (<<Section Title>>, xref:Section Title[]), by its title or reftext
// (xrefs.go). The ids of places inside a section (inline anchors,
// blocks' ids, discrete headings) are recorded as the section's
// InnerAnchors (anchors.go), so that package links resolves a link to
// one to the section holding it.
//
// Includes are resolved inside the repository given to Split (relative
// to the including file, or by Antora resource id within the file's
// component); the ones that cannot be are dropped and reported by
// SplitReport. Attributes come from the file's entries and, for a page of
// an Antora component, from the asciidoc.attributes of its antora.yml.
//
// Split is safe for concurrent use; it reads the repository only through
// the fs.FS it is given.
package asciidoc

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/codex7/codex7/markdown"
)

// outLine is one generated markdown line and the 1-based line of the
// AsciiDoc file it stands for.
type outLine struct {
	text string
	src  int
}

// converter holds the state of one Split.
type converter struct {
	path    string
	repo    fs.FS
	comp    *component
	attrs   *attributes // the document's attributes before its first line
	ids     ids
	dropped []DroppedInclude

	out []outLine
	// heads maps indexes of out holding headings to their section ids.
	heads map[int]string
	// headFiles maps indexes of out holding headings written in an
	// included file to that file's repository path.
	headFiles map[int]string
	// includes holds the repository paths of the files included into the
	// page: a cross reference to one is a reference within the page.
	includes map[string]bool
	// titles maps ids (of sections, discrete headings, blocks, anchors)
	// to the plain text <<id>> shows: a reftext, else a title.
	titles map[string]string
	// natural maps the texts natural cross references name elements by
	// to their ids (see addNatural).
	natural map[string]string
	// inner are the ids of places inside sections, where they stand in
	// out (see anchorHere).
	inner []markdown.Place
	// pageTitles caches the titles of pages that xrefs name.
	pageTitles  map[string]string
	description string
	// unidentified are the section headings Asciidoctor gives no id
	// (sectids unset), anchored once the page is read.
	unidentified []unidentified
	// hidden is the text Asciidoctor drops and the page does not show
	// (a block title above a discrete heading, the cells of a table's
	// unfinished last row), for tests to tell it from text lost.
	hidden []string
}

// hide records text the page does not show (see converter.hidden).
func (c *converter) hide(text string) {
	if text != "" {
		c.hidden = append(c.hidden, text)
	}
}

// Split reads one AsciiDoc file of a repository into the same Document
// the markdown reader makes. repo is the repository's tree, for includes
// and the Antora component descriptor (nil reads neither); path is the
// file's slash-separated repository path. Includes that cannot be
// resolved are dropped; SplitReport lists them.
func Split(path string, src []byte, repo fs.FS, opts markdown.Options) (*markdown.Document, error) {
	doc, _, err := SplitReport(path, src, repo, opts)
	return doc, err
}

// SplitReport is Split that also returns the include directives it
// dropped, in the order met, for the caller to log. The error is
// markdown.ErrInvalidUTF8 (wrapped) for a file that is not UTF-8, or an
// error reading the component's antora.yml.
func SplitReport(p string, src []byte, repo fs.FS, opts markdown.Options) (*markdown.Document, []DroppedInclude, error) {
	doc, c, err := split(p, src, repo, opts)
	if err != nil {
		return nil, nil, err
	}
	return doc, c.dropped, nil
}

// split is SplitReport returning the converter, which knows what it
// dropped.
func split(p string, src []byte, repo fs.FS, opts markdown.Options) (*markdown.Document, *converter, error) {
	if !utf8.Valid(src) {
		return nil, nil, fmt.Errorf("split %s: %w", p, markdown.ErrInvalidUTF8)
	}
	c, md, front, err := toMarkdown(p, src, repo)
	if err != nil {
		return nil, nil, err
	}
	doc, err := markdown.Split(p, []byte(md), opts)
	if err != nil {
		return nil, nil, fmt.Errorf("split %s: %w", p, err)
	}
	c.fixSections(doc, front)
	return doc, c, nil
}

// toMarkdown translates the file into markdown. It returns the converter
// (which knows each generated line's source line and the headings' ids),
// the markdown and the number of front matter lines before c.out.
func toMarkdown(p string, src []byte, repo fs.FS) (*converter, string, int, error) {
	c := &converter{
		path:       p,
		repo:       repo,
		attrs:      newAttributes(),
		ids:        ids{used: map[string]bool{}},
		heads:      map[int]string{},
		headFiles:  map[int]string{},
		titles:     map[string]string{},
		pageTitles: map[string]string{},
	}
	c.attrs.vals["docname"] = stem(p)
	comp, err := findComponent(repo, p, c.attrs)
	if err != nil {
		return nil, "", 0, fmt.Errorf("split %s: %w", p, err)
	}
	c.comp = comp
	lines := c.preprocess(stripMarks(string(src)))

	pr := &parser{c: c, attrs: c.attrs.clone()}
	title, body := pr.header(lines)
	pr.blocks(body, "", true)
	c.anchorUnidentified()
	c.resolveRefs()

	// The generated markdown: front matter with the title, then the body.
	var md strings.Builder
	md.WriteString("---\n")
	if title != "" {
		md.WriteString("title: " + jsonString(title) + "\n")
	}
	if c.description != "" {
		md.WriteString("description: " + jsonString(c.description) + "\n")
	}
	if kw, ok := pr.attrs.get("keywords"); ok && kw != "" {
		var tags []string
		for _, k := range strings.Split(kw, ",") {
			if k = strings.TrimSpace(k); k != "" {
				tags = append(tags, k)
			}
		}
		quoted := make([]string, len(tags))
		for i, t := range tags {
			quoted[i] = jsonString(t)
		}
		md.WriteString("tags: [" + strings.Join(quoted, ", ") + "]\n")
	}
	md.WriteString("---\n")
	front := strings.Count(md.String(), "\n")
	for _, l := range c.out {
		md.WriteString(l.text)
		md.WriteByte('\n')
	}
	return c, md.String(), front, nil
}

// stripMarks replaces the placeholder bytes the converter marks its
// output with (passMark, refMark...) in text it reads with U+FFFD, so
// that they only ever mark what it put there.
func stripMarks(s string) string {
	return strings.Map(func(r rune) rune {
		if r == passMark || r == refMark || r == textRefMark || r == destMark {
			return utf8.RuneError
		}
		return r
	}, s)
}

// fixSections sets the sections' lines and anchors from the AsciiDoc,
// and the ids inside them (setInnerAnchors).
func (c *converter) fixSections(doc *markdown.Document, front int) {
	// Lines and anchors from the AsciiDoc.
	first := map[string]string{} // anchor markdown gave a section's part 0 -> id
	source := ""                 // the included file the current section's heading is in
	at := make([]int, len(doc.Sections))
	for i := range doc.Sections {
		s := &doc.Sections[i]
		k := s.Line - 1 - front // index into c.out
		at[i] = -1
		if s.Part == 0 {
			source = "" // chunks follow their section's first
		}
		if k >= 0 && k < len(c.out) {
			at[i] = k
			if s.Level > 0 && s.Part == 0 {
				if id, ok := c.heads[k]; ok {
					first[s.Anchor] = id
					s.Anchor = id
				}
				source = c.headFiles[k]
			}
			s.Line = c.out[k].src
		} else {
			s.Line = 1
		}
		if s.Part > 0 {
			if id, ok := first[s.Anchor]; ok {
				s.Anchor = id
			}
		}
		s.Source = source
	}
	c.setInnerAnchors(doc, at)
}

// jsonString quotes s for the front matter (a JSON string is a YAML
// one); control characters, which YAML refuses, become spaces.
func jsonString(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r >= 0x7f && r < 0xa0 || r == 0xfeff || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	b, _ := json.Marshal(s)
	return string(b)
}

// header reads the document header: attribute entries, comments, the
// document title ("= Title") and the author and revision lines after it.
// It returns the title as plain text and the lines after the header.
func (p *parser) header(ls []line) (string, []line) {
	i := 0
	for i < len(ls) {
		t := ls[i].text
		if strings.TrimSpace(t) == "" || strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "////") {
			i++
			continue
		}
		if name, value, unset, ok := attributeEntry(t); ok {
			p.attrs.setEntry(name, value, unset)
			i++
			continue
		}
		break
	}
	if i >= len(ls) {
		return "", nil
	}
	level, title, ok := sectionTitle(ls[i].text)
	if !ok || level != 0 {
		return "", ls[i:]
	}
	i++
	// Author and revision lines, then entries, up to a blank line.
	for k := 0; i < len(ls) && strings.TrimSpace(ls[i].text) != ""; i++ {
		t := ls[i].text
		if name, value, unset, ok := attributeEntry(t); ok {
			p.attrs.setEntry(name, value, unset)
			if name == "description" && !unset {
				p.c.description = p.c.inlinePlain(value, p.attrs)
			}
			continue
		}
		if strings.HasPrefix(t, "//") {
			continue
		}
		if k < 2 && !strings.HasPrefix(t, ":") && !strings.HasPrefix(t, "[") {
			k++
			continue // author or revision line
		}
		break
	}
	plain := strings.TrimSpace(p.c.inlinePlain(title, p.attrs))
	return plain, ls[i:]
}

// resolveRefs replaces references without text (<<id>>) with links to
// the section they name, titled as it is, or with its id in words; in
// another link's text, with the title alone. A reference may name its
// target by its title (see refID), and a reference with text links to
// the id its target is known by once the page is read.
func (c *converter) resolveRefs() {
	for k := range c.out {
		t := c.out[k].text
		for _, mark := range []byte{refMark, textRefMark} {
			t = replaceMarked(t, mark, func(b *strings.Builder, ref string) {
				id := c.refID(ref)
				title, ok := c.titles[id]
				if !ok {
					title = humanizeID(id)
				}
				in := &inliner{c: c, inLink: mark == textRefMark}
				var t strings.Builder
				in.label(&t, title)
				in.link(b, t.String(), "#"+id)
			})
			t = strings.ReplaceAll(t, string(mark), "")
		}
		t = replaceMarked(t, destMark, func(b *strings.Builder, ref string) {
			b.WriteString(markdownURL(c.refID(ref)))
		})
		c.out[k].text = strings.ReplaceAll(t, string(destMark), "")
	}
}

// pageTitle returns the title of the page an xref names: its document
// title when the page is in the repository, else its file name.
func (c *converter) pageTitle(target string) string {
	if t, ok := c.pageTitles[target]; ok {
		return t
	}
	title := stem(target)
	if p := c.resolvePage(target); p != "" && c.repo != nil {
		if b, err := fs.ReadFile(c.repo, p); err == nil && utf8.Valid(b) {
			if t := docTitle(string(b), c.attrs); t != "" {
				title = t
			}
		}
	}
	c.pageTitles[target] = title
	return title
}

// resolvePage turns an xref's page id into a repository path, or "".
func (c *converter) resolvePage(target string) string {
	if c.comp == nil {
		if strings.Contains(target, ":") {
			return ""
		}
		p := path.Join(path.Dir(c.path), target)
		if fs.ValidPath(p) {
			return p
		}
		return ""
	}
	parts := strings.Split(target, ":")
	module := c.comp.module
	rel := parts[len(parts)-1]
	switch len(parts) {
	case 1:
	case 2:
		module = parts[0]
	default:
		return ""
	}
	rel = strings.TrimPrefix(rel, "page$")
	if strings.HasPrefix(rel, "./") {
		cur := strings.TrimPrefix(c.path, path.Join(c.comp.dir, "modules", c.comp.module, "pages")+"/")
		rel = path.Join(path.Dir(cur), rel)
	}
	p := path.Join(c.comp.dir, "modules", module, "pages", rel)
	if !fs.ValidPath(p) {
		return ""
	}
	return p
}

// docTitle returns the plain document title of an AsciiDoc file: its
// first "= " line before any other content, with inline markup removed.
func docTitle(src string, attrs *attributes) string {
	for n, l := range strings.SplitN(src, "\n", 64) {
		if n >= 63 {
			break
		}
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		if name, value, unset, ok := attributeEntry(l); ok {
			attrs = attrs.clone()
			attrs.setEntry(name, value, unset)
			continue
		}
		if level, title, ok := sectionTitle(l); ok && level == 0 {
			c := &converter{ids: ids{used: map[string]bool{}}, titles: map[string]string{}, pageTitles: map[string]string{}}
			return strings.TrimSpace(c.inlinePlain(title, attrs))
		}
		return ""
	}
	return ""
}
