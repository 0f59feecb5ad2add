package search

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/index"
)

// Listing is what a path names: a whole document (Sections in document
// order, with text) or a folder (Documents under it).
type Listing struct {
	Library, Version, Commit string
	Path                     string
	Title                    string                   // a document's title
	Sections                 []index.Hit              // a document's sections
	Documents                []artifacts.DocumentInfo // a folder's documents
}

// Path returns the document or folder at p in a library version. Paths are
// relative to the repository root, as documents.json lists them; "" or "."
// lists every document.
func (e *Engine) Path(ctx context.Context, library, p string) (*Listing, error) {
	clean, err := cleanPath(p)
	if err != nil {
		return nil, err
	}
	var l *Listing
	err = e.with(func(st *state) error {
		r, v, err := st.open(library)
		if err != nil {
			return err
		}
		l, err = v.listing(r, clean, true)
		return err
	})
	return l, err
}

// listing returns what clean names in v: a document's sections (with text
// when withText is set) or a folder's documents.
func (v *version) listing(r *Resolved, clean string, withText bool) (*Listing, error) {
	l := &Listing{Library: r.Library.ID, Version: r.Version.Version, Commit: r.Version.Commit, Path: clean}
	docs, err := v.documents()
	if err != nil {
		return nil, err
	}
	if d := document(docs, clean); d != nil {
		l.Title = d.Title
		hits, err := v.reader.Document(clean, withText)
		if err != nil {
			return nil, err
		}
		l.Sections = hits
		return l, nil
	}
	for _, d := range docs {
		if clean == "." || strings.HasPrefix(d.Path, clean+"/") {
			l.Documents = append(l.Documents, d)
		}
	}
	if len(l.Documents) == 0 {
		return nil, &DocumentError{Path: clean, Closest: closestPaths(docs, clean)}
	}
	return l, nil
}

// document returns the document at path in docs (sorted by path), or nil.
func document(docs []artifacts.DocumentInfo, path string) *artifacts.DocumentInfo {
	i := sort.Search(len(docs), func(i int) bool { return docs[i].Path >= path })
	if path != "." && i < len(docs) && docs[i].Path == path {
		return &docs[i]
	}
	return nil
}

// cleanPath refuses paths that could leave the library and normalizes the
// rest ("./docs//a.md" → "docs/a.md").
func cleanPath(p string) (string, error) {
	p = strings.Trim(strings.TrimSpace(p), "\"'`")
	if p == "" || p == "." || p == "./" {
		return ".", nil
	}
	if strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") || strings.Contains(p, ":") {
		return "", fmt.Errorf("%w %q: give a path relative to the repository root, e.g. docs/guide.md", ErrInvalidPath, p)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", fmt.Errorf("%w %q: paths may not contain \"..\"", ErrInvalidPath, p)
		}
		for _, c := range seg {
			if c < 0x20 {
				return "", fmt.Errorf("%w %q: control characters", ErrInvalidPath, p)
			}
		}
	}
	clean := strings.TrimPrefix(path.Clean(p), "./")
	if !fs.ValidPath(clean) {
		return "", fmt.Errorf("%w %q", ErrInvalidPath, p)
	}
	return clean, nil
}

// closestPaths suggests up to three documents sharing the file name, or
// the path's last word.
func closestPaths(docs []artifacts.DocumentInfo, p string) []string {
	base := strings.ToLower(strings.TrimSuffix(path.Base(p), path.Ext(p)))
	var out []string
	for _, d := range docs {
		if strings.Contains(strings.ToLower(d.Path), base) {
			out = append(out, d.Path)
			if len(out) == 3 {
				break
			}
		}
	}
	return out
}
