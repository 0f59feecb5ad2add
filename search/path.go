package search

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/codex7/codex7/artifacts"
)

// document returns the document at path in docs (sorted by path), or nil.
func document(docs []artifacts.DocumentInfo, path string) *artifacts.DocumentInfo {
	i := sort.Search(len(docs), func(i int) bool { return docs[i].Path >= path })
	if path != "." && i < len(docs) && docs[i].Path == path {
		return &docs[i]
	}
	return nil
}

// cleanPath refuses paths that could leave the library and normalizes the
// rest ("./docs//a.md" → "docs/a.md"). Backslashes are read as the
// separators they are on Windows ("docs\a.md" → "docs/a.md") before
// anything is checked, so that "..\x.md" and "\\server\x.md" are refused
// as their slash forms are. A document whose own name holds a backslash (a
// file of a repository checked out on Unix) cannot be named, as before.
func cleanPath(p string) (string, error) {
	p = strings.Trim(strings.TrimSpace(p), "\"'`")
	p = strings.ReplaceAll(p, `\`, "/")
	if p == "" || p == "." || p == "./" {
		return ".", nil
	}
	if strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) || strings.Contains(p, ":") {
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
