// Package formats is the one place that maps a documentation file to the
// reader of its format: discovery asks it which files are documentation,
// and the build asks it to read each one into a markdown.Document, the
// shape topics, the index and the tools work on whatever the source was.
//
// Formats are named as configs name them (a library's formats: list) and
// told apart by extension. A file with a documentation extension that
// holds none (a .txt that is not reStructuredText, a notebook without a
// markdown cell) is ErrNotDocumentation: skipped with the reason, not
// indexed as noise.
package formats

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/codex7/codex7/asciidoc"
	"github.com/codex7/codex7/markdown"
	"github.com/codex7/codex7/mdinclude"
	"github.com/codex7/codex7/notebook"
	"github.com/codex7/codex7/rst"
)

// Format names a documentation format.
type Format string

// The formats, as configs spell them.
const (
	Markdown Format = "markdown" // .md, .mdx, .markdown
	Notebook Format = "notebook" // .ipynb (nbformat 4)
	RST      Format = "rst"      // .rst, .rest (reStructuredText, as Sphinx reads it)
	AsciiDoc Format = "asciidoc" // .adoc, .asciidoc (AsciiDoc, Antora pages)
)

// ErrNotDocumentation means a file with a documentation extension holds
// no documentation its reader recognizes.
var ErrNotDocumentation = errors.New("not documentation")

// ErrPartial is wrapped by an error Read returns together with a
// Document: the document is good, and the error says what was left out of
// it (an include outside the repository or missing), for a log line.
var ErrPartial = errors.New("read in part")

// ErrUnknown means a config names a format no reader reads.
var ErrUnknown = errors.New("unknown documentation format")

// reader reads one file of repo, at the slash-separated path p.
type reader func(p string, src []byte, repo fs.FS, opts markdown.Options) (*markdown.Document, error)

// format is one reader and the extensions it reads.
type format struct {
	name Format
	exts []string // lower case, with the dot
	read reader
}

// table lists the formats, markdown first. It is constant data.
func table() []format {
	return []format{
		{Markdown, []string{".md", ".mdx", ".markdown"}, readMarkdown},
		{Notebook, []string{".ipynb"}, func(p string, src []byte, repo fs.FS, opts markdown.Options) (*markdown.Document, error) {
			doc, err := notebook.Split(p, src, repo, opts)
			if errors.Is(err, notebook.ErrNotDocumentation) {
				return nil, fmt.Errorf("%w: %w", ErrNotDocumentation, err)
			}
			return doc, err
		}},
		{RST, []string{".rst", ".rest"}, func(p string, src []byte, repo fs.FS, opts markdown.Options) (*markdown.Document, error) {
			doc, err := rst.Split(p, src, repo, opts)
			switch {
			case errors.Is(err, rst.ErrNotRST):
				return nil, fmt.Errorf("%w: %w", ErrNotDocumentation, err)
			case doc != nil && errors.Is(err, rst.ErrDropped):
				return doc, fmt.Errorf("%w: %w", ErrPartial, err)
			}
			return doc, err
		}},
		{AsciiDoc, []string{".adoc", ".asciidoc"}, readAsciiDoc},
	}
}

// readMarkdown reads a markdown page with the include directives of its
// site generator expanded from repo (package mdinclude): fastapi's pages,
// for one, hold no code of their own, only directives naming the files
// that have it. Its sections keep the page's lines, and one whose heading
// an included file holds names that file as its Source.
func readMarkdown(p string, src []byte, repo fs.FS, opts markdown.Options) (*markdown.Document, error) {
	x := mdinclude.Expand(p, src, repo)
	doc, err := markdown.Split(p, x.Text, opts)
	if err != nil {
		return nil, err
	}
	x.FixLines(doc)
	if len(x.Dropped) == 0 {
		return doc, nil
	}
	return doc, fmt.Errorf("%s: %w: %d include(s) left as written; %s", p, ErrPartial, len(x.Dropped), firstDropped(x.Dropped))
}

// firstDropped lists the first three directives left as written, and how
// many more there are: a page of a docs-only copy of fastapi names dozens
// of missing example files, and a log line should stay a line.
func firstDropped(ds []mdinclude.Dropped) string {
	var parts []string
	for i, d := range ds {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ds)-3))
			break
		}
		parts = append(parts, d.String())
	}
	return strings.Join(parts, "; ")
}

// readAsciiDoc reads an AsciiDoc page. Antora publishes no page for its
// modules' partials and examples (they are included into pages) nor for
// its nav files: those are not documentation of their own.
func readAsciiDoc(p string, src []byte, repo fs.FS, opts markdown.Options) (*markdown.Document, error) {
	if why := asciidoc.NotPage(p); why != "" {
		return nil, fmt.Errorf("%s: %w: %s", p, ErrNotDocumentation, why)
	}
	doc, dropped, err := asciidoc.SplitReport(p, src, repo, opts)
	if err != nil || len(dropped) == 0 {
		return doc, err
	}
	var parts []string
	for _, d := range dropped {
		parts = append(parts, fmt.Sprintf("line %d: include::%s: %s", d.Line, d.Target, d.Reason))
	}
	return doc, fmt.Errorf("%s: %w: %d include(s) dropped; %s", p, ErrPartial, len(dropped), strings.Join(parts, "; "))
}

// All returns every format, in a fixed order.
func All() []Format {
	var out []Format
	for _, f := range table() {
		out = append(out, f.name)
	}
	return out
}

// Set is the formats a library reads; the zero Set reads them all.
type Set struct{ only []Format }

// Parse reads a config's list of format names (case and space ignored);
// an empty list is every format. An unknown name is an error wrapping
// ErrUnknown that lists the known ones.
func Parse(names []string) (Set, error) {
	var s Set
	for _, n := range names {
		f := Format(strings.ToLower(strings.TrimSpace(n)))
		if !slices.Contains(All(), f) {
			return Set{}, fmt.Errorf("%w %q: use %s", ErrUnknown, n, list(All()))
		}
		if !slices.Contains(s.only, f) {
			s.only = append(s.only, f)
		}
	}
	return s, nil
}

func list(fs []Format) string {
	var names []string
	for _, f := range fs {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// String lists the formats s reads ("markdown, rst"), every one for the
// zero Set.
func (s Set) String() string {
	if len(s.only) == 0 {
		return list(All())
	}
	return list(s.only)
}

// Has reports whether s reads f.
func (s Set) Has(f Format) bool { return len(s.only) == 0 || slices.Contains(s.only, f) }

// Of returns the format s reads the file at p with, by its extension, and
// whether there is one.
func (s Set) Of(p string) (Format, bool) {
	if f, ok := lookup(p); ok && s.Has(f.name) {
		return f.name, true
	}
	return "", false
}

func lookup(p string) (format, bool) {
	ext := strings.ToLower(path.Ext(p))
	for _, f := range table() {
		if slices.Contains(f.exts, ext) {
			return f, true
		}
	}
	return format{}, false
}

// ReadAs reads src, the file at the slash-separated path p of repo, with
// the reader of format f, whatever its extension (a Sphinx project's .txt
// is reStructuredText). An unknown f is read by p's extension, as Read.
func ReadAs(f Format, p string, src []byte, repo fs.FS, opts markdown.Options) (*markdown.Document, error) {
	for _, t := range table() {
		if t.name == f {
			return t.read(p, src, repo, opts)
		}
	}
	return Read(p, src, repo, opts)
}

// Read reads src, the file at the slash-separated path p of repo (for the
// includes some formats resolve), with the reader of its format. A file no
// reader reads is an error wrapping ErrNotDocumentation. A Document with an
// error wrapping ErrPartial is to be kept, and the error logged.
func Read(p string, src []byte, repo fs.FS, opts markdown.Options) (*markdown.Document, error) {
	f, ok := lookup(p)
	if !ok {
		return nil, fmt.Errorf("%s: %w: no reader for %q files", p, ErrNotDocumentation, path.Ext(p))
	}
	return f.read(p, src, repo, opts)
}
