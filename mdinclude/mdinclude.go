// Package mdinclude expands the include directives of markdown site
// generators from a repository's files, as the generators do before they
// render a page, so that what the build indexes is what the site shows:
// fastapi's code examples, for one, live in files of their own that every
// page includes, and a page read without them has the prose and none of
// the code.
//
// The directives, each as its generator reads it:
//
//   - mdx_include (MkDocs; fastapi, typer, sqlmodel): {! path !}, with an
//     optional +, - or > before the path and "| encoding" after it,
//     anywhere in a line, code fences included; \{! is an escape;
//   - pymdownx.snippets (MkDocs): a line --8<-- "path", or a block of
//     paths between two --8<-- lines; "path:3:8" takes lines 3 to 8,
//     "path:name" the section between --8<-- [start:name] and
//     [end:name]; a leading ; is an escape;
//   - VitePress: a line <<< path (@/ is the site's root) with #region,
//     {lines or language} and [title], made a fenced code block; and
//     <!--@include: path--> with #region or {from,to} lines;
//   - mdBook: {{#include path}}, {{#rustdoc_include path}} with :line,
//     :from:to or :anchor, and {{#playground path}} as a code block;
//     \{{# is an escape;
//   - MDX partials (Docusaurus): a markdown file imported as a component
//     (import Name from './_name.mdx') and used on a line of its own
//     (<Name />), its front matter left out; @site/ is the folder holding
//     docusaurus.config.*.
//
// A directive alone on its line has every line it brings indented as the
// directive is, as snippets does: a directive in a list item's code block
// stays in the item (mdx_include and mdBook indent only the first line,
// which closes the item on a site too; the indexed text keeps it whole).
//
// Paths are resolved in the repository only (never on the network): a
// relative path against the including file's folder, then, as MkDocs
// reads them from a configured base folder, against each folder above it;
// VitePress's @/ against the folder holding .vitepress. A directive whose
// file cannot be read is left as written (the markdown reader then shows
// its path) and reported in Result.Dropped.
//
// Every line of the expanded text keeps the page's line it stands for
// (Result.Lines) and the file it is written in (Result.Files), so that a
// section whose heading an included file holds names that file as its
// Source (Result.FixLines).
package mdinclude

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/codex7/codex7/markdown"
)

const (
	// maxDepth bounds nested includes (a snippet that includes a snippet).
	maxDepth = 8
	// maxBytes bounds what one page may include in all, nested includes
	// counted: a page that includes a generated file of megabytes is not
	// documentation. What a directive adds beyond the file's bytes (the
	// indentation put before each of its lines, lines a slice repeats)
	// counts too, and each file read, and each directive left as written,
	// at least readCost, so that includes of empty files, and directives
	// that read nothing (a file of thousands of missing includes, itself
	// included again and again), are bounded as well.
	maxBytes = 16 << 20
	readCost = 512
)

// Dropped is a directive that was left as written, and why.
type Dropped struct {
	// Line is the 1-based line of the page the directive is on (for a
	// nested include, the line of the page's directive that led to it).
	Line      int
	Directive string // "mdx_include", "snippets", "vitepress", "mdbook"
	Target    string
	Reason    string
}

func (d Dropped) String() string {
	return fmt.Sprintf("line %d: %s %s: %s", d.Line, d.Directive, d.Target, d.Reason)
}

// Result is a page with its includes expanded.
type Result struct {
	// Text is the page with its directives replaced by what they include.
	Text []byte
	// Lines maps Text's lines to the page's: Lines[i] is the 1-based line
	// of the page that line i+1 of Text comes from. Nil when nothing was
	// included (Text is the page).
	Lines []int
	// Files maps Text's lines to the files they are written in: Files[i]
	// is the repository path of the file line i+1 of Text comes from (the
	// innermost one, for nested includes), "" for the page's own lines.
	// A directive alone on its line, the way headings are included, gives
	// each line it brings to the file that line is written in; a line
	// that holds text of two files (the page's and an included file's, or
	// two included files') is the file's the directives on it are written
	// in (see joiner). Nil when Lines is or every line is the page's own,
	// and, rather than wrong, should the origins ever fail to line up with
	// the text (a bug).
	Files   []string
	Dropped []Dropped
}

// PageLine returns the page's line for line n (1-based) of Text.
func (r *Result) PageLine(n int) int {
	switch {
	case r.Lines == nil:
		return n
	case n >= 1 && n <= len(r.Lines):
		return r.Lines[n-1]
	case len(r.Lines) > 0:
		return r.Lines[len(r.Lines)-1]
	}
	return n
}

// File returns the repository path of the file line n (1-based) of Text
// is written in, "" for the page's own lines and lines out of range.
func (r *Result) File(n int) string {
	if n >= 1 && n <= len(r.Files) {
		return r.Files[n-1]
	}
	return ""
}

// FixLines points doc's sections, split from Text, at the page's lines,
// and names as the Source of a section whose heading an include brought
// in the file the heading is written in: the file to read or edit for
// the section, as the AsciiDoc and rst readers name theirs. A section's
// later chunks (Part > 0) take their first chunk's Source; the section
// before the first heading has no heading and keeps "".
func (r *Result) FixLines(doc *markdown.Document) {
	if r.Lines == nil || doc == nil {
		return
	}
	source := ""
	for i := range doc.Sections {
		s := &doc.Sections[i]
		if s.Part == 0 {
			source = ""
			if s.Level > 0 {
				source = r.File(s.Line)
			}
		}
		if r.Files != nil {
			s.Source = source
		}
		s.Line = r.PageLine(s.Line)
	}
}

// Expand returns the page src, at the slash-separated path p of repo,
// with its include directives expanded. A nil repo, a page that is not
// UTF-8 or one without any directive's marker is returned as it is.
// Expand is safe for concurrent use when repo is.
func Expand(p string, src []byte, repo fs.FS) *Result {
	if repo == nil || !mayInclude(src) || !utf8.Valid(src) {
		return &Result{Text: src}
	}
	e := &expander{repo: repo}
	lines := splitLines(string(src))
	var out writer
	var lineMap []int
	st := &state{file: p, stack: []string{p}}
	counted := 0 // out's bytes whose lines lineMap maps
	e.expandLines(&out, st, lines, 0, func(first int) {
		for range bytes.Count(out.buf.Bytes()[counted:], []byte{'\n'}) {
			lineMap = append(lineMap, first+1)
		}
		counted = out.buf.Len()
	})
	changed := e.changed
	if !changed {
		return &Result{Text: src, Dropped: e.dropped}
	}
	written := len(lineMap) // out's lines, each ended by "\n"
	text := out.buf.Bytes()
	if !bytes.HasSuffix(src, []byte{'\n'}) {
		text = bytes.TrimSuffix(text, []byte{'\n'})
	}
	// One page line for each line of text, the last without its "\n" (an
	// empty text is one empty line, the page's last).
	n := bytes.Count(bytes.TrimSuffix(text, []byte{'\n'}), []byte{'\n'}) + 1
	for len(lineMap) < n {
		lineMap = append(lineMap, len(lines))
	}
	lineMap = lineMap[:n]
	var files []string
	if !e.misaligned && !out.misaligned && out.from.lines() == written {
		files = pageFiles(out.from, p, n)
	}
	return &Result{Text: text, Lines: lineMap, Files: files, Dropped: e.dropped}
}

// pageFiles spells out the origins of a page's n lines of text, the
// page's own lines "" (the page at p is never included into itself, so
// its path names no included file); a line past them (the one empty
// line of a page whose directives wrote nothing) is the page's too. It
// returns nil when every line is the page's.
func pageFiles(from origins, p string, n int) []string {
	included := false
	for _, r := range from {
		included = included || r.file != p
	}
	if !included {
		return nil
	}
	files := make([]string, n)
	at := 0
	for _, r := range from {
		for k := at; k < min(at+r.n, n); k++ {
			if r.file != p {
				files[k] = r.file
			}
		}
		at += r.n
	}
	return files
}

// mayInclude reports whether src holds the marker of any directive, the
// test that spares pages without one (nearly all) any other work.
func mayInclude(src []byte) bool {
	for _, m := range [][]byte{[]byte("{!"), []byte("8<-"), []byte("<<<"), []byte("@include:")} {
		if bytes.Contains(src, m) {
			return true
		}
	}
	// mdBook allows blanks between {{ and #.
	return bytes.Contains(src, []byte("{{")) && mdbookMarker.Match(src) ||
		bytes.Contains(src, []byte("import")) && mdxImportMarker.Match(src)
}

// mdbookMarker is the start of an mdBook link.
var mdbookMarker = regexp.MustCompile(`\{\{\s*#`)

// splitLines splits s into lines without their "\n" (a last line without
// one included, a "\r" kept).
func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// expander holds one page's expansion.
type expander struct {
	repo     fs.FS
	line     int // the page's line being expanded
	included int // bytes included so far
	dropped  []Dropped
	changed  bool // a directive was expanded
	// misaligned is set when the origins of some lines did not line up
	// with them (a bug; see writer): the page then reports none.
	misaligned bool
	// roots caches the site roots underRoot found, by their markers ("-"
	// for none).
	roots map[string]string
}

// state is what expanding one file (the page, or an included file) keeps
// from line to line.
type state struct {
	file  string   // the file's repository path
	stack []string // the files being included, the page first
	fence fence    // the code fence the line is in, if any
	// partials maps the names the file imports markdown files as (MDX
	// partials) to their paths; nil when it imports none.
	partials map[string]string
}

// drop records a directive left as written, charging readCost for it:
// the work of looking its file up and the Dropped it adds, which no file's
// bytes pay for.
func (e *expander) drop(directive, target, reason string) {
	e.charge(readCost)
	e.dropped = append(e.dropped, Dropped{Line: e.line, Directive: directive, Target: target, Reason: reason})
}

var (
	errOutside  = errors.New("outside the repository")
	errMissing  = errors.New("missing from the repository")
	errCycle    = errors.New("an include cycle")
	errTooDeep  = errors.New("includes nested too deeply")
	errTooMuch  = errors.New("too much included text")
	errNotUTF8  = errors.New("not UTF-8 text")
	errRemote   = errors.New("a URL: remote files are not fetched")
	errNoRegion = errors.New("no such region in the file")
)

// read reads the first of candidates that exists, charging it to the
// page's budget. It refuses a file already being included, and one the
// budget left cannot hold without reading it.
func (e *expander) read(st *state, candidates []string) (string, string, error) {
	if len(st.stack) > maxDepth {
		return "", "", errTooDeep
	}
	err := errOutside
	for _, p := range candidates {
		if !fs.ValidPath(p) {
			continue
		}
		for _, s := range st.stack {
			if s == p {
				return "", "", errCycle
			}
		}
		// A file the budget cannot hold is refused before it is read:
		// once the budget is spent, each further directive would read its
		// file whole only to drop it (2,000 includes of a 4 MiB file read
		// 8 GiB, and took 20 s).
		if info, serr := fs.Stat(e.repo, p); serr == nil && info.Mode().IsRegular() && info.Size() > int64(maxBytes-e.included-readCost) {
			return "", "", errTooMuch
		}
		b, rerr := fs.ReadFile(e.repo, p)
		if rerr != nil {
			if errors.Is(rerr, fs.ErrNotExist) || errors.Is(rerr, fs.ErrInvalid) {
				err = errMissing
				continue
			}
			if info, serr := fs.Stat(e.repo, p); serr == nil && info.IsDir() {
				err = errMissing
				continue
			}
			return "", "", fmt.Errorf("unreadable: %w", rerr)
		}
		if !e.charge(len(b) + readCost) {
			return "", "", errTooMuch
		}
		if !utf8.Valid(b) {
			return "", "", errNotUTF8
		}
		return p, strings.ReplaceAll(string(b), "\r\n", "\n"), nil
	}
	return "", "", err
}

// charge counts n more bytes against the page's budget and reports
// whether it still holds them.
func (e *expander) charge(n int) bool {
	e.included += n
	return e.included <= maxBytes
}

// chargeIndent charges what indenting text's lines with indent (the first
// one too when first is set) adds, as indentLines does it.
func (e *expander) chargeIndent(text, indent string, first bool) bool {
	n := strings.Count(text, "\n")
	if first {
		n++
	}
	return len(indent)*n == 0 || e.charge(len(indent)*n)
}

// relative lists where a path relative to the file at from may be: its
// folder first, then each folder above it (MkDocs extensions read paths
// from a configured base folder, which is one of them).
func relative(from, target string) []string {
	if strings.HasPrefix(target, "/") {
		target = strings.TrimLeft(target, "/")
		return []string{path.Clean(target)}
	}
	var out []string
	for dir := path.Dir(from); ; dir = path.Dir(dir) {
		if p := path.Join(dir, target); p != ".." && !strings.HasPrefix(p, "../") {
			out = append(out, p)
		}
		if dir == "." || dir == "/" || dir == "" {
			break
		}
	}
	return out
}

// ownFolder resolves target against from's folder only (VitePress and
// mdBook read paths so).
func ownFolder(from, target string) []string {
	p := path.Join(path.Dir(from), target)
	if p == ".." || strings.HasPrefix(p, "../") {
		return nil
	}
	return []string{p}
}

// isRemote reports whether target is a URL.
func isRemote(target string) bool {
	t := strings.ToLower(target)
	return strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://")
}

// isMarkdown reports whether an included file is markdown, whose own
// directives are expanded in turn.
func isMarkdown(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".mdx", ".txt", "":
		return true
	}
	return false
}

// nested expands the directives of an included markdown file's text,
// the file at p, each line of what it returns written in p or, for the
// lines p's own directives bring, in the files they include.
func (e *expander) nested(st *state, p, text string, depth int) piece {
	if !isMarkdown(p) || !mayInclude([]byte(text)) {
		return fileOf(text, p)
	}
	sub := &state{file: p, stack: append(st.stack[:len(st.stack):len(st.stack)], p)}
	var out writer
	e.expandLines(&out, sub, splitLines(text), depth+1, nil)
	e.misaligned = e.misaligned || out.misaligned
	return out.text(p)
}

// indentLines prefixes every line of text but the first with indent, and
// the first too when first is set.
func indentLines(text, indent string, first bool) string {
	if indent == "" {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if (i > 0 || first) && l != "" {
			lines[i] = indent + l
		}
	}
	return strings.Join(lines, "\n")
}

// leadingSpace returns l's leading blanks.
func leadingSpace(l string) string {
	return l[:len(l)-len(strings.TrimLeft(l, " \t"))]
}
