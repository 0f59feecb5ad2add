package asciidoc

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/codex7/codex7/markdown"
)

// NavEntry is one entry of an Antora navigation file: a page, or a
// plain-text heading of the entries below it.
type NavEntry struct {
	// Path is the repository path of the page the entry links to; ""
	// for a plain-text item.
	Path string `json:"path"`
	// Fragment is the entry's #fragment without the '#', if any.
	Fragment string `json:"fragment,omitempty"`
	// Title is the entry's link text as plain text; empty when the xref
	// has none, and Antora shows the page's own title (its navtitle or
	// document title).
	Title string `json:"title,omitempty"`
	// Level is the entry's list depth, 1 for top-level items.
	Level int `json:"level"`
}

// Nav reads an Antora navigation file (nav.adoc) and returns its entries
// in order: the items of its lists that link to a page of the same
// component with xref:, and the plain-text items that head them. path is
// the nav file's repository path (<component>/modules/<module>/nav.adoc);
// page ids resolve against its module's pages directory, module:page ids
// against another module's. Items that link to another component or to
// a URL are left out. Attribute references are left as written (Nav
// reads no antora.yml).
func Nav(p string, src []byte) ([]NavEntry, error) {
	if !utf8.Valid(src) {
		return nil, fmt.Errorf("nav %s: %w", p, markdown.ErrInvalidUTF8)
	}
	modules, module := navModule(p)
	var out []NavEntry
	inComment := false
	for _, l := range splitLines(string(src)) {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "////") && strings.Count(t, "/") == len(t) {
			inComment = !inComment
			continue
		}
		if inComment || !strings.HasPrefix(t, "*") {
			continue
		}
		n := 0
		for n < len(t) && t[n] == '*' {
			n++
		}
		if n >= len(t) || t[n] != ' ' {
			continue
		}
		item := strings.TrimSpace(t[n:])
		i := strings.Index(item, "xref:")
		if i < 0 {
			// A plain-text item heads the items below it ("* Migration
			// Guides"); a link elsewhere names no page of the component.
			if item != "" && !strings.Contains(item, "://") && !strings.Contains(item, "link:") && !strings.Contains(item, "mailto:") {
				c := &converter{path: p, ids: ids{used: map[string]bool{}}, titles: map[string]string{}, pageTitles: map[string]string{}}
				out = append(out, NavEntry{Title: strings.TrimSpace(c.inlinePlain(item, newAttributes())), Level: n})
			}
			continue
		}
		rest := item[i+len("xref:"):]
		j := strings.IndexByte(rest, '[')
		if j <= 0 {
			continue
		}
		target := rest[:j]
		e := bracketEnd(rest, j)
		if e < 0 {
			e = len(rest)
		}
		text := strings.TrimSpace(rest[j+1 : e])
		page, frag, _ := strings.Cut(target, "#")
		parts := strings.Split(page, ":")
		mod := module
		switch len(parts) {
		case 1:
		case 2:
			mod = parts[0]
		default:
			continue // another component
		}
		rel := strings.TrimPrefix(parts[len(parts)-1], "page$")
		if mod == "" {
			mod = module
		}
		if modules == "" || !strings.HasSuffix(rel, ".adoc") {
			continue
		}
		entry := NavEntry{Path: path.Join(modules, mod, "pages", rel), Fragment: frag, Level: n}
		if text != "" {
			c := &converter{path: p, ids: ids{used: map[string]bool{}}, titles: map[string]string{}, pageTitles: map[string]string{}}
			entry.Title = strings.TrimSpace(c.inlinePlain(strings.Trim(text, `"`), newAttributes()))
		}
		out = append(out, entry)
	}
	return out, nil
}

// navModule returns the modules directory and the module of a nav file
// at <component>/modules/<module>/..., or "" when it is not in one.
func navModule(p string) (modules, module string) {
	parts := strings.Split(p, "/")
	for k := len(parts) - 3; k >= 0; k-- {
		if parts[k] == "modules" {
			return path.Join(parts[:k+1]...), parts[k+1]
		}
	}
	return "", ""
}
