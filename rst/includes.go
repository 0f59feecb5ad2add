package rst

import (
	"errors"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/codex7/codex7/markdown"
)

const (
	// maxIncludeDepth bounds nested includes.
	maxIncludeDepth = 8
	// maxIncludeBytes bounds what one file may include in all.
	maxIncludeBytes = 16 << 20
)

// include handles include and literalinclude: the file is read from the
// repository relative to the document being split, also when the
// directive is in an included file (Sphinx resolves both directives with
// env.relfn2path, from the document's folder: sphinx-doc/sphinx#6345),
// and written in place (as reStructuredText, or as code); a file that
// cannot be read is recorded in c.dropped.
func (c *converter) include(d *directive, top bool, depth int) {
	target := includeTarget(d)
	p, data, reason := c.read(target)
	if reason != "" {
		c.dropped = append(c.dropped, DroppedInclude{Line: d.n, Directive: d.name, Target: target, Reason: reason})
		return
	}
	lines := fileLines(data)
	if d.name == "literalinclude" {
		lang, ok := d.opt("language")
		if !ok {
			if lang = markdown.LangOfFile(p); lang == "" {
				lang = c.highlight
			}
		}
		lines = literalFilter(lines, d)
		if caption, ok := d.opt("caption"); ok && caption != "" {
			c.w.para([]string{c.inline(caption)}, []int{d.n})
		}
		c.codeLines(normalizeLang(lang), fixedLines(lines, d.n), d.n)
		return
	}
	lines = includeFilter(lines, d)
	if lang, ok := d.opt("code"); ok {
		c.codeLines(normalizeLang(lang), fixedLines(lines, d.n), d.n)
		return
	}
	if _, ok := d.opt("literal"); ok {
		c.codeLines("text", fixedLines(lines, d.n), d.n)
		return
	}
	c.including = append(c.including, p)
	outer := c.w.file
	c.w.file = p
	c.blocks(splitLines(strings.Join(lines, "\n"), d.n), top, depth+1)
	c.w.file = outer
	c.including = c.including[:len(c.including)-1]
}

// includeTarget returns the path an include or literalinclude names: its
// argument, which may go on over the lines after its first.
func includeTarget(d *directive) string {
	target := strings.TrimSpace(d.arg)
	for _, l := range d.more {
		target += strings.TrimSpace(l.text)
	}
	return target
}

// fileLines splits an included file's text into lines.
func fileLines(data string) []string {
	return strings.Split(strings.TrimSuffix(strings.ReplaceAll(data, "\r\n", "\n"), "\n"), "\n")
}

// fixedLines makes srcLines that all stand for line n.
func fixedLines(lines []string, n int) []srcLine {
	out := make([]srcLine, len(lines))
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if strings.IndexByte(l, '\t') >= 0 {
			l = expandTabs(l)
		}
		out[i] = srcLine{text: l, n: n}
	}
	return out
}

// read resolves an include target against the document being split (not
// the included file a nested include is in) and reads it, or says why it
// cannot. c.including serves the cycle check only.
func (c *converter) read(target string) (string, string, string) {
	switch {
	case target == "":
		return "", "", "no file named"
	case strings.HasPrefix(target, "<") && strings.HasSuffix(target, ">"):
		return "", "", "a docutils standard include, not in the repository"
	case c.repo == nil:
		return "", "", "no repository to read it from"
	case len(c.including) > maxIncludeDepth:
		return "", "", "includes nested too deeply"
	}
	var candidates []string
	if strings.HasPrefix(target, "/") {
		// Sphinx reads an absolute path from its source directory, which
		// is one of the document's folders.
		for dir := path.Dir(c.path); ; dir = path.Dir(dir) {
			candidates = append(candidates, path.Join(dir, target[1:]))
			if dir == "." || dir == "/" {
				break
			}
		}
	} else {
		p := path.Join(path.Dir(c.path), target)
		if p == ".." || strings.HasPrefix(p, "../") {
			return "", "", "outside the repository"
		}
		candidates = append(candidates, p)
	}
	reason := "missing from the repository"
	for _, p := range candidates {
		if !fs.ValidPath(p) {
			reason = "not a valid repository path"
			continue
		}
		for _, s := range c.including {
			if s == p {
				return "", "", "an include cycle"
			}
		}
		b, err := fs.ReadFile(c.repo, p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				reason = "unreadable: " + err.Error()
			}
			continue
		}
		if c.included += len(b); c.included > maxIncludeBytes {
			return "", "", "too much included text"
		}
		if !utf8.Valid(b) {
			return "", "", "not UTF-8 text"
		}
		return p, string(b), ""
	}
	return "", "", reason
}

// includeFilter applies include's :start-line:, :end-line:, :start-after:
// and :end-before:.
func includeFilter(lines []string, d *directive) []string {
	if v, ok := d.opt("start-line"); ok || hasOpt(d, "end-line") {
		start, end := 0, len(lines)
		if ok {
			start = pyIndex(v, len(lines))
		}
		if v, ok := d.opt("end-line"); ok {
			end = pyIndex(v, len(lines))
		}
		if start < end {
			lines = lines[start:end]
		} else {
			lines = nil
		}
	}
	text := strings.Join(lines, "\n")
	if v, ok := d.opt("start-after"); ok && v != "" {
		if i := strings.Index(text, v); i >= 0 {
			text = text[i+len(v):]
		}
	}
	if v, ok := d.opt("end-before"); ok && v != "" {
		if i := strings.Index(text, v); i >= 0 {
			text = text[:i]
		}
	}
	return strings.Split(text, "\n")
}

func hasOpt(d *directive, key string) bool {
	_, ok := d.opt(key)
	return ok
}

// pyIndex reads a Python slice index, negative ones counting from the end.
func pyIndex(v string, n int) int {
	i, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0
	}
	if i < 0 {
		i += n
	}
	return max(0, min(i, n))
}

// literalFilter applies literalinclude's options in Sphinx's order:
// :pyobject:, :start-after:/:start-at:, :end-before:/:end-at:, :lines:,
// :dedent:, :prepend:, :append:.
func literalFilter(lines []string, d *directive) []string {
	if v, ok := d.opt("pyobject"); ok && v != "" {
		lines = pyObject(lines, v)
	}
	if v, ok := d.opt("start-after"); ok && v != "" {
		for i, l := range lines {
			if strings.Contains(l, v) {
				lines = lines[i+1:]
				break
			}
		}
	} else if v, ok := d.opt("start-at"); ok && v != "" {
		for i, l := range lines {
			if strings.Contains(l, v) {
				lines = lines[i:]
				break
			}
		}
	}
	if v, ok := d.opt("end-before"); ok && v != "" {
		for i, l := range lines {
			if strings.Contains(l, v) {
				lines = lines[:i]
				break
			}
		}
	} else if v, ok := d.opt("end-at"); ok && v != "" {
		for i, l := range lines {
			if strings.Contains(l, v) {
				lines = lines[:i+1]
				break
			}
		}
	}
	if v, ok := d.opt("lines"); ok && v != "" {
		lines = selectLines(lines, v)
	}
	if v, ok := d.opt("dedent"); ok {
		lines = dedentStrings(lines, v)
	}
	if v, ok := d.opt("prepend"); ok {
		lines = append([]string{v}, lines...)
	}
	if v, ok := d.opt("append"); ok {
		lines = append(lines, v)
	}
	return lines
}

// selectLines keeps the lines a :lines: spec ("1,3,5-10,20-") names,
// 1-based, in the spec's order.
func selectLines(lines []string, spec string) []string {
	var out []string
	n := len(lines)
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		a, b, isRange := strings.Cut(part, "-")
		lo, hi := 1, n
		if isRange {
			if a != "" {
				lo, _ = strconv.Atoi(strings.TrimSpace(a))
			}
			if b != "" {
				hi, _ = strconv.Atoi(strings.TrimSpace(b))
			}
		} else {
			lo, _ = strconv.Atoi(part)
			hi = lo
		}
		lo, hi = max(lo, 1), min(hi, n)
		for i := lo; i <= hi; i++ {
			out = append(out, lines[i-1])
		}
	}
	return out
}

// dedentStrings removes n leading spaces from each line, or the common
// indentation when v is empty.
func dedentStrings(lines []string, v string) []string {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		n = -1
		for _, l := range lines {
			if strings.TrimSpace(l) == "" {
				continue
			}
			if k := indentOf(l); n < 0 || k < n {
				n = k
			}
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		k := min(n, indentOf(l))
		out[i] = l[max(k, 0):]
	}
	return out
}

// pyObject returns the lines of a Python class or function ("Name" or
// "Class.member"), decorators excluded, found by indentation: from its
// def or class line to the next line indented no deeper. It returns all
// lines when the object is not found.
func pyObject(lines []string, name string) []string {
	lo, hi := 0, len(lines)
	indent := -1
	for _, part := range strings.Split(name, ".") {
		found := false
		for i := lo; i < hi; i++ {
			l := lines[i]
			k := indentOf(l)
			if k <= indent {
				continue
			}
			t := strings.TrimPrefix(l[k:], "async ")
			for _, kw := range []string{"def ", "class "} {
				if r, ok := strings.CutPrefix(t, kw); ok && strings.HasPrefix(r, part) {
					if rest := r[len(part):]; rest == "" || strings.IndexByte("(: ", rest[0]) >= 0 {
						found = true
					}
				}
			}
			if !found {
				continue
			}
			end := i + 1
			for end < hi && (strings.TrimSpace(lines[end]) == "" || indentOf(lines[end]) > k) {
				end++
			}
			for end > i+1 && strings.TrimSpace(lines[end-1]) == "" {
				end--
			}
			lo, hi, indent = i, end, k
			break
		}
		if !found {
			return lines
		}
	}
	return lines[lo:hi]
}
