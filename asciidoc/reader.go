package asciidoc

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of the preprocessor: they keep hostile input (an include cycle,
// a file including itself twice per level) bounded in time and memory.
const (
	// maxIncludeDepth is how deeply includes may nest; Asciidoctor's
	// default is 64, real documentation uses two or three.
	maxIncludeDepth = 8
	// maxIncludedBytes bounds the bytes all includes of one file may add.
	maxIncludedBytes = 8 << 20
)

// DroppedInclude is an include directive Split did not resolve: its
// target lies outside the repository or the Antora component, is missing
// or unreadable, or nests too deeply. Callers log them.
type DroppedInclude struct {
	// Line is the 1-based line of the file being split that holds the
	// directive, or that holds the include leading to it.
	Line int `json:"line"`
	// From is the repository path of the file holding the directive.
	From string `json:"from"`
	// Target is the directive's target as written, attributes substituted.
	Target string `json:"target"`
	// Reason says why it was dropped.
	Reason string `json:"reason"`
}

// line is one line after preprocessing.
type line struct {
	text string
	// src is the 1-based line of the file being split it comes from (the
	// include directive's line for included lines).
	src int
	// file is the repository path of the included file the line was
	// written in, "" for the page's own lines.
	file string
	// levelOffset is added to the level of section titles on this line
	// (an include's leveloffset).
	levelOffset int
}

// frame is one file being read by the preprocessor.
type frame struct {
	path        string
	lines       []string
	i           int
	levelOffset int
}

// preprocessor expands includes and conditionals into lines, as
// Asciidoctor's reader does, tracking attribute entries so that
// conditionals and include targets see the values set before them.
type preprocessor struct {
	c        *converter
	stack    []*frame
	included int // bytes added by includes so far
	// skip counts open conditionals whose condition is false (the outer
	// one decides); depth counts those nested inside a skipped one.
	skipping  bool
	skipDepth int
	// open counts conditionals that are open and true.
	open int
	// verbatim is the delimiter of the verbatim block being read, if any:
	// attribute entries inside it are text.
	verbatim string
}

// splitLines splits a file into lines without their line ends.
func splitLines(s string) []string {
	s = strings.TrimPrefix(s, "\ufeff")
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t\r")
	}
	return ls
}

// preprocess returns the lines of the file being split with includes and
// conditionals applied.
func (c *converter) preprocess(src string) []line {
	p := &preprocessor{c: c, stack: []*frame{{path: c.path, lines: splitLines(src)}}}
	attrs := c.attrs.clone()
	var out []line
	for len(p.stack) > 0 {
		f := p.stack[len(p.stack)-1]
		if f.i >= len(f.lines) {
			p.stack = p.stack[:len(p.stack)-1]
			continue
		}
		text := f.lines[f.i]
		f.i++
		srcLine := p.stack[0].i
		if p.directive(text, srcLine, attrs, &out) {
			continue
		}
		if p.skipping {
			continue
		}
		p.track(text, attrs)
		l := line{text: text, src: srcLine, levelOffset: f.levelOffset}
		if len(p.stack) > 1 {
			l.file = f.path
		}
		out = append(out, l)
	}
	return out
}

// track follows verbatim blocks and attribute entries.
func (p *preprocessor) track(text string, attrs *attributes) {
	if p.verbatim != "" {
		if text == p.verbatim {
			p.verbatim = ""
		}
		return
	}
	if isVerbatimDelimiter(text) {
		p.verbatim = text
		return
	}
	if name, value, unset, ok := attributeEntry(text); ok {
		attrs.setEntry(name, value, unset)
	}
}

// isVerbatimDelimiter reports whether a line opens a block whose lines are
// not parsed: listing, literal, passthrough, comment or fenced code.
func isVerbatimDelimiter(t string) bool {
	if strings.HasPrefix(t, "```") {
		return true
	}
	if len(t) < 4 {
		return false
	}
	switch t[0] {
	case '-', '.', '+', '/':
		return strings.Count(t, t[:1]) == len(t)
	}
	return false
}

// directive handles a preprocessor directive line and reports whether it
// was one. A directive escaped with a backslash is text without it.
func (p *preprocessor) directive(text string, srcLine int, attrs *attributes, out *[]line) bool {
	if len(text) < 8 || (text[0] != 'i' && text[0] != 'e' && text[0] != '\\') {
		return false
	}
	name, target, attrList, ok := parseDirective(text)
	if !ok {
		return false
	}
	if text[0] == '\\' {
		if !p.skipping {
			f := p.stack[len(p.stack)-1]
			*out = append(*out, line{text: text[1:], src: srcLine, levelOffset: f.levelOffset})
		}
		return true
	}
	if strings.HasPrefix(p.verbatim, "////") {
		return false // comment blocks are not preprocessed
	}
	switch name {
	case "ifdef", "ifndef", "ifeval":
		if p.skipping {
			p.skipDepth++
			return true
		}
		var cond bool
		if name == "ifeval" {
			cond = evalCondition(attrs.substitute(attrList))
		} else {
			cond = definedCondition(target, attrs)
			if name == "ifndef" {
				cond = !cond
			}
		}
		if name != "ifeval" && attrList != "" {
			// The one-line form: ifdef::name[text].
			if cond {
				f := p.stack[len(p.stack)-1]
				*out = append(*out, line{text: attrList, src: srcLine, levelOffset: f.levelOffset})
			}
			return true
		}
		if cond {
			p.open++
		} else {
			p.skipping = true
		}
		return true
	case "endif":
		switch {
		case p.skipping && p.skipDepth > 0:
			p.skipDepth--
		case p.skipping:
			p.skipping = false
		case p.open > 0:
			p.open--
		}
		return true
	case "include":
		if p.skipping {
			return true
		}
		p.include(attrs.substitute(target), attrList, srcLine, attrs)
		return true
	}
	return false
}

// parseDirective splits "name::target[attrs]" lines.
func parseDirective(text string) (name, target, attrList string, ok bool) {
	t := strings.TrimPrefix(text, "\\")
	i := strings.Index(t, "::")
	if i < 0 || !strings.HasSuffix(t, "]") {
		return "", "", "", false
	}
	name = t[:i]
	switch name {
	case "include", "ifdef", "ifndef", "ifeval", "endif":
	default:
		return "", "", "", false
	}
	rest := t[i+2:]
	j := strings.IndexByte(rest, '[')
	if j < 0 {
		return "", "", "", false
	}
	target = rest[:j]
	if strings.ContainsAny(target, " \t") && name != "include" {
		return "", "", "", false
	}
	if name == "include" && target == "" {
		return "", "", "", false
	}
	return name, target, rest[j+1 : len(rest)-1], true
}

// definedCondition evaluates ifdef's target: names separated by ','
// (any defined) or '+' (all defined).
func definedCondition(target string, attrs *attributes) bool {
	if strings.Contains(target, ",") {
		for _, n := range strings.Split(target, ",") {
			if attrs.defined(n) {
				return true
			}
		}
		return false
	}
	for _, n := range strings.Split(target, "+") {
		if !attrs.defined(n) {
			return false
		}
	}
	return true
}

// evalCondition evaluates an ifeval expression "lhs op rhs" whose sides
// are numbers or quoted strings. An expression it cannot read counts as
// true, so that no text is hidden by a misreading.
func evalCondition(expr string) bool {
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		i := strings.Index(expr, op)
		if i < 0 {
			continue
		}
		l := strings.TrimSpace(expr[:i])
		r := strings.TrimSpace(expr[i+len(op):])
		lf, lerr := strconv.ParseFloat(l, 64)
		rf, rerr := strconv.ParseFloat(r, 64)
		if lerr == nil && rerr == nil {
			switch op {
			case "==":
				return lf == rf
			case "!=":
				return lf != rf
			case "<=":
				return lf <= rf
			case ">=":
				return lf >= rf
			case "<":
				return lf < rf
			default:
				return lf > rf
			}
		}
		l, r = unquote(l), unquote(r)
		switch op {
		case "==":
			return l == r
		case "!=":
			return l != r
		case "<=":
			return l <= r
		case ">=":
			return l >= r
		case "<":
			return l < r
		default:
			return l > r
		}
	}
	return true
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// include resolves an include directive and pushes the file it names.
func (p *preprocessor) include(target, attrList string, srcLine int, attrs *attributes) {
	from := p.stack[len(p.stack)-1]
	drop := func(reason string) {
		p.c.dropped = append(p.c.dropped, DroppedInclude{Line: srcLine, From: from.path, Target: target, Reason: reason})
	}
	if len(p.stack) > maxIncludeDepth {
		drop(fmt.Sprintf("includes nest deeper than %d", maxIncludeDepth))
		return
	}
	resolved, reason := p.c.resolveInclude(from.path, target)
	if reason != "" {
		drop(reason)
		return
	}
	if p.c.repo == nil {
		drop("no repository to read includes from")
		return
	}
	b, err := fs.ReadFile(p.c.repo, resolved)
	if errors.Is(err, fs.ErrNotExist) {
		drop("missing: " + resolved)
		return
	}
	if err != nil {
		drop(fmt.Sprintf("cannot read %s: %v", resolved, err))
		return
	}
	if !utf8.Valid(b) {
		drop(resolved + " is not valid UTF-8")
		return
	}
	if p.included+len(b) > maxIncludedBytes {
		drop(fmt.Sprintf("includes add more than %d bytes", maxIncludedBytes))
		return
	}
	p.included += len(b)
	if p.c.includes == nil {
		p.c.includes = map[string]bool{}
	}
	p.c.includes[resolved] = true
	lines := splitLines(stripMarks(string(b)))
	ia := parseAttrList(attrList)
	if t, ok := ia.named["tags"]; ok {
		lines = filterTags(lines, t)
	} else if t, ok := ia.named["tag"]; ok {
		lines = filterTags(lines, t)
	} else if l, ok := ia.named["lines"]; ok {
		lines = filterLines(lines, l)
	}
	off := from.levelOffset
	if lo, ok := ia.named["leveloffset"]; ok {
		n, err := strconv.Atoi(strings.TrimPrefix(lo, "+"))
		if err == nil {
			if strings.HasPrefix(lo, "+") || strings.HasPrefix(lo, "-") {
				off += n
			} else {
				off = n
			}
		}
	}
	if i, ok := ia.named["indent"]; ok {
		if n, err := strconv.Atoi(i); err == nil && n >= 0 {
			lines = reindent(lines, min(n, 16))
		}
	}
	p.stack = append(p.stack, &frame{path: resolved, lines: lines, levelOffset: off})
}

// filterTags keeps the lines between "tag::name[]" and "end::name[]"
// markers of the selected tags (names separated by ';' or ','; "*" and
// "**" select all tagged or all lines, "!name" excludes one), without the
// marker lines.
func filterTags(lines []string, spec string) []string {
	sel := map[string]bool{}
	all, anyTag := false, false
	for _, n := range strings.FieldsFunc(spec, func(r rune) bool { return r == ';' || r == ',' }) {
		n = strings.TrimSpace(n)
		switch {
		case n == "**":
			all = true
		case n == "*":
			anyTag = true
		case strings.HasPrefix(n, "!"):
			sel[n[1:]] = false
		case n != "":
			sel[n] = true
		}
	}
	var out []string
	var open []string
	for _, l := range lines {
		if name, end, ok := tagMarker(l); ok {
			if end {
				for k := len(open) - 1; k >= 0; k-- {
					if open[k] == name {
						open = append(open[:k], open[k+1:]...)
						break
					}
				}
			} else {
				open = append(open, name)
			}
			continue
		}
		keep := all
		for _, n := range open {
			if v, ok := sel[n]; ok {
				keep = v
			} else if anyTag {
				keep = true
			}
		}
		if keep {
			out = append(out, l)
		}
	}
	return out
}

// tagMarker reads a "tag::name[]" or "end::name[]" marker anywhere on a
// line (usually after a comment sign).
func tagMarker(l string) (name string, end, ok bool) {
	for _, kw := range []string{"tag::", "end::"} {
		i := strings.Index(l, kw)
		if i < 0 || (i > 0 && isWordByte(l[i-1])) {
			continue
		}
		rest := l[i+len(kw):]
		j := strings.Index(rest, "[]")
		if j <= 0 || strings.ContainsAny(rest[:j], " \t") {
			continue
		}
		return rest[:j], kw == "end::", true
	}
	return "", false, false
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b|0x20 >= 'a' && b|0x20 <= 'z'
}

// filterLines keeps the lines named by a lines= spec: numbers and ranges
// ("1..5", "10..-1" or "10.." to the end) separated by ';' or ','.
func filterLines(lines []string, spec string) []string {
	keep := make([]bool, len(lines))
	for _, r := range strings.FieldsFunc(spec, func(r rune) bool { return r == ';' || r == ',' }) {
		a, b, isRange := strings.Cut(strings.TrimSpace(r), "..")
		from, err := strconv.Atoi(a)
		if err != nil || from < 1 {
			continue
		}
		to := from
		if isRange {
			if b == "" || b == "-1" {
				to = len(lines)
			} else if to, err = strconv.Atoi(b); err != nil {
				continue
			}
		}
		for k := from; k <= min(to, len(lines)); k++ {
			keep[k-1] = true
		}
	}
	var out []string
	for i, l := range lines {
		if keep[i] {
			out = append(out, l)
		}
	}
	return out
}

// reindent removes the lines' common indentation and indents them by n.
func reindent(lines []string, n int) []string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || ind < common {
			common = ind
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		out[i] = strings.Repeat(" ", n) + l[max(common, 0):]
	}
	return out
}

// resolveInclude turns an include target into a repository path, or says
// why it cannot: Antora resource ids (family$path, module:family$path)
// resolve inside the component, other targets relative to the including
// file.
func (c *converter) resolveInclude(from, target string) (string, string) {
	if strings.Contains(target, "://") {
		return "", "remote include"
	}
	if i := strings.IndexByte(target, '$'); i >= 0 {
		if c.comp == nil {
			return "", "Antora resource id outside an Antora component"
		}
		coord, rel := target[:i], target[i+1:]
		parts := strings.Split(coord, ":")
		family := parts[len(parts)-1]
		module := c.comp.module
		switch len(parts) {
		case 1:
		case 2:
			module = parts[0]
		default:
			// component:module:family, maybe version@component.
			comp := parts[len(parts)-3]
			if at := strings.IndexByte(comp, '@'); at >= 0 {
				comp = comp[at+1:]
			}
			if comp != c.comp.name {
				return "", "include from another Antora component"
			}
			module = parts[len(parts)-2]
		}
		if module == "" {
			module = c.comp.module
		}
		dir, ok := familyDirs[family]
		if !ok {
			return "", "unknown Antora family " + family
		}
		p := path.Join(c.comp.dir, "modules", module, dir, rel)
		if !fs.ValidPath(p) {
			return "", "outside the repository"
		}
		return p, ""
	}
	p := target
	if !strings.HasPrefix(p, "/") {
		p = path.Join(path.Dir(from), p)
	}
	if !fs.ValidPath(p) || strings.HasPrefix(target, "/") {
		return "", "outside the repository"
	}
	return p, ""
}

// familyDirs are the directories of a module holding each Antora family.
var familyDirs = map[string]string{
	"page": "pages", "partial": "partials", "example": "examples",
	"image": "images", "attachment": "attachments",
}
