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

// DocumentError is ErrDocumentNotFound with the closest paths that exist.
type DocumentError struct {
	Path    string
	Closest []string
}

func (e *DocumentError) Error() string {
	msg := fmt.Sprintf("%s: %q", ErrDocumentNotFound, e.Path)
	if len(e.Closest) > 0 {
		msg += "; did you mean: " + strings.Join(e.Closest, ", ")
	}
	return msg
}

func (e *DocumentError) Unwrap() error { return ErrDocumentNotFound }

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
	r, err := e.Resolve(library)
	if err != nil {
		return nil, err
	}
	v, err := e.open(r)
	if err != nil {
		return nil, err
	}
	l := &Listing{Library: r.Library.ID, Version: r.Version.Version, Commit: r.Version.Commit, Path: clean}
	i := sort.Search(len(v.docs), func(i int) bool { return v.docs[i].Path >= clean })
	if clean != "." && i < len(v.docs) && v.docs[i].Path == clean {
		d := v.docs[i]
		l.Title = d.Title
		// documents.json does not count chunks: ask until fewer come back
		// than were asked for.
		var hits []index.Hit
		for limit := 4*len(d.Outline) + 16; ; limit *= 4 {
			hits, err = v.reader.Search(ctx, index.Query{Path: clean, Limit: limit, WithText: true})
			if err != nil {
				return nil, err
			}
			if len(hits) < limit {
				break
			}
		}
		sort.Slice(hits, func(a, b int) bool {
			if hits[a].Line != hits[b].Line {
				return hits[a].Line < hits[b].Line
			}
			return hits[a].Part < hits[b].Part
		})
		l.Sections = hits
		return l, nil
	}
	for _, d := range v.docs {
		if clean == "." || strings.HasPrefix(d.Path, clean+"/") {
			l.Documents = append(l.Documents, d)
		}
	}
	if len(l.Documents) == 0 {
		return nil, &DocumentError{Path: clean, Closest: closestPaths(v.docs, clean)}
	}
	return l, nil
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
