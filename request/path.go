package request

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// CleanPath refuses paths that could leave the library and normalizes the
// rest ("./docs//a.md" → "docs/a.md"). Backslashes are read as the
// separators they are on Windows ("docs\a.md" → "docs/a.md") before
// anything is checked, so that "..\x.md" and "\\server\x.md" are refused
// as their slash forms are. A document whose own name holds a backslash (a
// file of a repository checked out on Unix) cannot be named, as before.
func CleanPath(p string) (string, error) {
	if len(p) > MaxPathBytes {
		return "", fmt.Errorf("%w %q: it is %d bytes, at most %d; give a path relative to the repository root, e.g. docs/guide.md", ErrInvalidPath, Clip(p, 40), len(p), MaxPathBytes)
	}
	if err := CheckText("path", p); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidPath, err)
	}
	p = strings.Trim(strings.TrimSpace(p), "\"'`")
	p = strings.ReplaceAll(p, `\`, "/")
	if p == "" || p == "." || p == "./" {
		return ".", nil
	}
	if strings.HasPrefix(p, "/") || strings.Contains(p, ":") {
		return "", fmt.Errorf("%w %q: give a path relative to the repository root, e.g. docs/guide.md", ErrInvalidPath, p)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", fmt.Errorf("%w %q: paths may not contain \"..\"", ErrInvalidPath, p)
		}
	}
	clean := strings.TrimPrefix(path.Clean(p), "./")
	if !fs.ValidPath(clean) {
		return "", fmt.Errorf("%w %q", ErrInvalidPath, p)
	}
	return clean, nil
}
