package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/fetch"
	"github.com/codex7/codex7/formats"
	"github.com/codex7/codex7/mdinclude"
	"github.com/codex7/codex7/notebook"
)

// Default limits of one library version's selection (see Selection).
const (
	// DefaultMaxFileBytes is the size above which a markdown file is skipped.
	DefaultMaxFileBytes = fetch.DefaultMaxBlobBytes
	// DefaultMaxFiles is the most markdown files a version may select.
	DefaultMaxFiles = 100_000
	// DefaultMaxTotalBytes is the most bytes of markdown a version may select.
	DefaultMaxTotalBytes = 512 << 20
)

// Errors of a selection beyond its limits.
var (
	// ErrTooManyFiles means the selection holds more than MaxFiles files.
	ErrTooManyFiles = errors.New("too many markdown files")
	// ErrTooManyBytes means the selected files add up to more than
	// MaxTotalBytes.
	ErrTooManyBytes = errors.New("too much markdown")
	// ErrNoDocuments means the selection holds no documentation file: a
	// version published empty would answer every question with nothing.
	ErrNoDocuments = errors.New("no documentation file selected")
)

// Source is one documentation file to index.
type Source struct {
	Path string
	Data []byte
	// Format is the reader to read it with: its extension's, or
	// reStructuredText for a .txt of a Sphinx project that says so.
	Format formats.Format
}

// Selection is what discovery keeps and skips.
type Selection struct {
	Include []string // globs; empty means every documentation file
	// Formats are the documentation formats discovered (every one when
	// zero): a file is documentation when one of them reads its extension.
	Formats formats.Set
	Exclude []string // globs, applied after Include
	// MaxFileBytes skips larger files (DefaultMaxFileBytes when 0).
	MaxFileBytes int64
	// MaxFiles fails a selection of more files (DefaultMaxFiles when 0).
	MaxFiles int
	// MaxTotalBytes fails a selection whose files under MaxFileBytes add
	// up to more bytes (DefaultMaxTotalBytes when 0).
	MaxTotalBytes int64
}

// reads reports whether one of sel's formats reads the file at p.
func (sel Selection) reads(p string) bool {
	_, ok := sel.Formats.Of(p)
	return ok
}

// symlinker is implemented by file systems that leave symlinks out and can
// list them.
type symlinker interface{ Symlinks() []string }

// omitter is implemented by file systems that leave entries out and can
// list them with the reason (fetch.Snapshot).
type omitter interface{ Omitted() []fetch.Omitted }

// Discover walks fsys and returns, sorted by path, the markdown files sel
// selects, read into memory, and the files it skipped with the reason:
// symbolic links (never followed), files over the size cap, binary files,
// invalid UTF-8, and what the file system left out that could have been
// selected documents (fetch.Snapshot's Omitted: submodules, unsafe names,
// directories too deep). Excluded folders are not descended into.
//
// A selection over MaxFiles files or MaxTotalBytes bytes is an error
// (ErrTooManyFiles, ErrTooManyBytes), found before any file is read.
func Discover(fsys fs.FS, sel Selection) ([]Source, []artifacts.Skipped, error) {
	maxBytes := sel.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFileBytes
	}
	maxFiles := sel.MaxFiles
	if maxFiles <= 0 {
		maxFiles = DefaultMaxFiles
	}
	maxTotal := sel.MaxTotalBytes
	if maxTotal <= 0 {
		maxTotal = DefaultMaxTotalBytes
	}
	var skipped []artifacts.Skipped
	if o, ok := fsys.(omitter); ok {
		for _, e := range o.Omitted() {
			if sel.mayHold(e) {
				skipped = append(skipped, artifacts.Skipped{Path: e.Path, Reason: e.Reason})
			}
		}
	} else if s, ok := fsys.(symlinker); ok {
		for _, p := range s.Symlinks() {
			if sel.reads(p) && sel.selects(p) {
				skipped = append(skipped, artifacts.Skipped{Path: p, Reason: "symbolic link (not followed)"})
			}
		}
	}
	var paths, confs, texts, sites []string
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
			if sel.reads(p) && sel.selects(p) {
				skipped = append(skipped, artifacts.Skipped{Path: p, Reason: "symbolic link (not followed)"})
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch {
		case sel.reads(p) && sel.selects(p):
			paths = append(paths, p)
		case path.Base(p) == "conf.py":
			confs = append(confs, p)
		case mdinclude.IsDocusaurusConfig(path.Base(p)):
			sites = append(sites, p)
		case strings.EqualFold(path.Ext(p), ".txt") && sel.Formats.Has(formats.RST) && sel.selects(p):
			texts = append(texts, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("discover: %w", err)
	}
	format := map[string]formats.Format{}
	if len(texts) > 0 {
		roots := sphinxTextRoots(fsys, confs)
		for _, p := range texts {
			if under(p, roots) {
				paths = append(paths, p)
				format[p] = formats.RST
			}
		}
	}
	paths, twins := dropTwins(paths)
	skipped = append(skipped, twins...)
	paths, partials := dropPartials(paths, sites)
	skipped = append(skipped, partials...)
	if len(paths) > maxFiles {
		return nil, nil, fmt.Errorf("discover: %w: the selection holds %d markdown files, more than the %d one version may have; narrow docs: or add exclude: globs",
			ErrTooManyFiles, len(paths), maxFiles)
	}
	sort.Strings(paths)
	// Sizes first, so a selection too large to hold is refused unread.
	var total int64
	var toRead []string
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
		total += info.Size()
		toRead = append(toRead, p)
	}
	if total > maxTotal {
		return nil, nil, fmt.Errorf("discover: %w: the selected markdown adds up to %.1f MiB, more than the %.1f MiB one version may have; narrow docs: or add exclude: globs",
			ErrTooManyBytes, float64(total)/(1<<20), float64(maxTotal)/(1<<20))
	}
	sources := make([]Source, 0, len(toRead))
	for _, p := range toRead {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			skipped = append(skipped, artifacts.Skipped{Path: p, Reason: "unreadable: " + err.Error()})
			continue
		}
		if reason := unusable(data); reason != "" {
			skipped = append(skipped, artifacts.Skipped{Path: p, Reason: reason})
			continue
		}
		f, ok := format[p]
		if !ok {
			f, _ = sel.Formats.Of(p)
		}
		sources = append(sources, Source{Path: p, Data: data, Format: f})
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

// mayHold reports whether an entry the file system left out could have
// been (or held) a selected document: a file shown with a markdown name
// (a quoted name's closing quote ignored) that sel selects, or a directory
// not excluded that an include glob could reach into.
func (sel Selection) mayHold(e fetch.Omitted) bool {
	if !e.Dir {
		p := strings.TrimSuffix(e.Path, `"`)
		return sel.reads(p) && sel.selects(p)
	}
	if sel.excludesDir(e.Path) {
		return false
	}
	if len(sel.Include) == 0 {
		return true
	}
	dir := e.Path + "/"
	for _, g := range sel.Include {
		lit := g[:strings.IndexAny(g+"*", "*?[{")]
		lit = lit[:strings.LastIndex(lit, "/")+1] // the glob's literal folder
		if strings.HasPrefix(dir, lit) || strings.HasPrefix(lit, dir) {
			return true
		}
	}
	return false
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

// unmatched returns the include globs that select none of sources (nor a
// file skipped for its size or kind): a glob with a typo ("doc/**" for
// docs/) is dropped silently otherwise, with its documentation.
func (sel Selection) unmatched(sources []Source, skipped []artifacts.Skipped) []string {
	var out []string
	for _, g := range sel.Include {
		hit := slices.ContainsFunc(sources, func(s Source) bool { ok, _ := doublestar.Match(g, s.Path); return ok }) ||
			slices.ContainsFunc(skipped, func(s artifacts.Skipped) bool { ok, _ := doublestar.Match(g, s.Path); return ok })
		if !hit {
			out = append(out, g)
		}
	}
	return out
}

func matchAny(globs []string, p string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, p); ok {
			return true
		}
	}
	return false
}

// dropTwins leaves out of paths (sorted) the jupytext twins of the
// notebooks among them: a markdown page holding a notebook's content
// (notebook.Twin) is indexed once, as the notebook, whose sections name
// its cells.
func dropTwins(paths []string) (kept []string, skipped []artifacts.Skipped) {
	selected := make(map[string]bool, len(paths))
	for _, p := range paths {
		selected[p] = true
	}
	twinOf := map[string]string{}
	for _, p := range paths {
		if t, ok := notebook.Twin(p, func(q string) bool { return selected[q] }); ok {
			twinOf[t] = p
		}
	}
	for _, p := range paths {
		if nb, ok := twinOf[p]; ok {
			skipped = append(skipped, artifacts.Skipped{Path: p, Reason: "jupytext twin of " + nb + " (indexed once, as the notebook)"})
			continue
		}
		kept = append(kept, p)
	}
	return kept, skipped
}
