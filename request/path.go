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
// anything is checked, so that "..\x.md" is refused as its slash form is;
// a network path ("\\server\x.md", "//server/x.md") is refused too. A
// single leading slash is the repository's root ("/docs/a.md", as a
// site's links write it). A document whose own name holds a backslash (a
// file of a repository checked out on Unix) cannot be named, as before.
//
// The rules are applied until the path stops changing, so that a path
// CleanPath returns is its own normal form: trimming the quotes of
// `' docs/a.md'` leaves a space, and stripping the slash of `/'a'` a
// quote, which the next pass trims (and a path the next pass refuses,
// such as `'/'../x`, is refused).
func CleanPath(p string) (string, error) {
	if len(p) > MaxPathBytes {
		return "", fmt.Errorf("%w %q: it is %d bytes, at most %d; give a path relative to the repository root, e.g. docs/guide.md", ErrInvalidPath, Clip(p, 40), len(p), MaxPathBytes)
	}
	if err := CheckText("path", p); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidPath, err)
	}
	// A pass that changes p makes it shorter, or turns its backslashes
	// into slashes or "" into ".", so the loop ends.
	for {
		clean, err := cleanPathOnce(p)
		if err != nil || clean == p {
			return clean, err
		}
		p = clean
	}
}

// cleanPathOnce applies the rules of CleanPath once to p, which CheckText
// passed.
func cleanPathOnce(p string) (string, error) {
	p = strings.Trim(strings.TrimSpace(p), "\"'`")
	if strings.HasPrefix(p, `\`) || strings.HasPrefix(p, "//") {
		// A Windows or network path, never a site's link.
		return "", fmt.Errorf("%w %q: give a path relative to the repository root, e.g. docs/guide.md", ErrInvalidPath, p)
	}
	p = strings.ReplaceAll(p, `\`, "/")
	if p == "" || p == "." || p == "./" {
		return ".", nil
	}
	// A site's links are absolute ("/guide/api-plugin",
	// "/docs/modules/api/pages/index.adoc"), and answers carry them as
	// written: a leading slash is the repository's root. (Paths name
	// documents of an artifact, never files of this machine.)
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return ".", nil
	}
	if strings.Contains(p, ":") {
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
