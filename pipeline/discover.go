package pipeline

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/codex7/codex7/artifacts"
)

// DefaultMaxFileBytes is the size above which a markdown file is skipped.
const DefaultMaxFileBytes = 4 << 20

// Source is one markdown file to index.
type Source struct {
	Path string
	Data []byte
}

// Selection is what discovery keeps and skips.
type Selection struct {
	Include []string // globs; empty means every markdown file
	Exclude []string // globs, applied after Include
	// MaxFileBytes skips larger files (DefaultMaxFileBytes when 0).
	MaxFileBytes int64
}

// IsMarkdown reports whether p names a markdown or MDX file.
func IsMarkdown(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".mdx", ".markdown":
		return true
	}
	return false
}

// symlinker is implemented by file systems that leave symlinks out and can
// list them (fetch.Snapshot).
type symlinker interface{ Symlinks() []string }

// Discover walks fsys and returns, sorted by path, the markdown files sel
// selects, read into memory, and the files it skipped with the reason:
// symbolic links (never followed), files over the size cap, binary files and
// invalid UTF-8. Excluded folders are not descended into.
func Discover(fsys fs.FS, sel Selection) ([]Source, []artifacts.Skipped, error) {
	maxBytes := sel.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFileBytes
	}
	var skipped []artifacts.Skipped
	if s, ok := fsys.(symlinker); ok {
		for _, p := range s.Symlinks() {
			if IsMarkdown(p) && sel.selects(p) {
				skipped = append(skipped, artifacts.Skipped{Path: p, Reason: "symbolic link (not followed)"})
			}
		}
	}
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && sel.excludesDir(p) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if IsMarkdown(p) && sel.selects(p) {
				skipped = append(skipped, artifacts.Skipped{Path: p, Reason: "symbolic link (not followed)"})
			}
			return nil
		}
		if d.Type().IsRegular() && IsMarkdown(p) && sel.selects(p) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("discover: %w", err)
	}
	sort.Strings(paths)
	sources := make([]Source, 0, len(paths))
	for _, p := range paths {
		info, err := fs.Stat(fsys, p)
		if err != nil {
			skipped = append(skipped, artifacts.Skipped{Path: p, Reason: "unreadable: " + err.Error()})
			continue
		}
		if info.Size() > maxBytes {
			skipped = append(skipped, artifacts.Skipped{Path: p, Reason: fmt.Sprintf("larger than %d bytes (%d)", maxBytes, info.Size())})
			continue
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			skipped = append(skipped, artifacts.Skipped{Path: p, Reason: "unreadable: " + err.Error()})
			continue
		}
		if reason := unusable(data); reason != "" {
			skipped = append(skipped, artifacts.Skipped{Path: p, Reason: reason})
			continue
		}
		sources = append(sources, Source{Path: p, Data: data})
	}
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return sources, skipped, nil
}

// unusable says why data cannot be indexed as text, or "".
func unusable(data []byte) string {
	head := data
	if len(head) > 8000 {
		head = head[:8000]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "binary file"
	}
	if !utf8.Valid(data) {
		return "invalid UTF-8"
	}
	return ""
}

func (sel Selection) selects(p string) bool {
	if len(sel.Include) > 0 && !matchAny(sel.Include, p) {
		return false
	}
	return !matchAny(sel.Exclude, p)
}

// excludesDir reports whether every file under dir is excluded, by testing
// names no pattern could single out at two depths (so "docs/*.md" does not
// prune docs/, while "**/node_modules/**" prunes node_modules/).
func (sel Selection) excludesDir(dir string) bool {
	return matchAny(sel.Exclude, dir+"/\x00probe\x00.md") && matchAny(sel.Exclude, dir+"/\x00/\x00/\x00probe\x00.md")
}

func matchAny(globs []string, p string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, p); ok {
			return true
		}
	}
	return false
}
