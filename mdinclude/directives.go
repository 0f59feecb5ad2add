package mdinclude

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/codex7/codex7/markdown"
)

var (
	// snippetLine is a pymdownx.snippets line: its indentation, escapes,
	// and a quoted path (inline form) or nothing (a block's marker).
	snippetLine = regexp.MustCompile(`^([ \t]*)(;*)-+8<-+(?:[ \t]+("(?:\\"|[^"])+?"|'(?:\\'|[^'])+?'))?\r?$`)
	// snippetSection is a section marker, --8<-- [start:name].
	snippetSection = regexp.MustCompile(`(?i)^.*?;*-+8<-+[ \t]+\[[ \t]*(start|end)[ \t]*:[ \t]*([a-z][-_0-9a-z]*)[ \t]*\]`)
	// vitepressImport is VitePress's code import line: <<< path, then
	// #region, {lines and/or language} and [title], each optional.
	vitepressImport = regexp.MustCompile(`^([ \t]*)<<<[ \t]+(\S+?)(#[\w*-]+)?(?:[ \t]*\{([^}]*)\})?(?:[ \t]*\[(.*)\])?[ \t]*\r?$`)
	// lineRangeSpec is the {lines} part of a VitePress import that only
	// highlights lines.
	lineRangeSpec = regexp.MustCompile(`^[\d,\- ]*$`)
)

// expandLines expands lines of the file st describes into out, each line
// written with the file it is written in. When mark is set, it is called
// after each run of lines consumed together with the index of the run's
// first line (the page's line mapping).
func (e *expander) expandLines(out *writer, st *state, lines []string, depth int, mark func(first int)) {
	st.partials = mdxImports(lines)
	for i := 0; i < len(lines); {
		if mark != nil {
			e.line = i + 1
		}
		n := e.expandLine(out, st, lines, i, depth)
		if mark != nil {
			mark(i)
		}
		i += n
	}
}

// expandLine expands lines[i] (and the lines a snippets block takes with
// it) into out and returns how many lines it consumed.
func (e *expander) expandLine(out *writer, st *state, lines []string, i, depth int) int {
	l := lines[i]
	// Snippets is a preprocessor: it reads code fences too.
	if m := snippetLine.FindStringSubmatch(l); m != nil {
		indent, escape, quoted := m[1], m[2], m[3]
		switch {
		case escape != "":
			e.changed = true
			out.line(strings.Replace(l, ";", "", 1), st.file)
			return 1
		case quoted != "":
			e.snippet(out, st, indent, strings.TrimSpace(quoted[1:len(quoted)-1]), depth)
			return 1
		}
		if end := snippetBlockEnd(lines, i+1); end > 0 {
			e.changed = true
			for _, p := range lines[i+1 : end] {
				p = strings.TrimSpace(p)
				switch {
				case p == "":
					out.line("", st.file)
				case strings.HasPrefix(p, ";"), snippetLine.MatchString(p):
				default:
					e.snippet(out, st, indent, p, depth)
				}
			}
			return end - i + 1
		}
	}
	if st.fence.open(l) {
		out.piece(e.inline(st, l, depth), st.file)
		return 1
	}
	if st.partials != nil && e.partial(out, st, l, depth) {
		return 1
	}
	if m := vitepressImport.FindStringSubmatch(l); m != nil {
		e.codeImport(out, st, m)
		return 1
	}
	out.piece(e.inline(st, l, depth), st.file)
	return 1
}

// snippetBlockEnd returns the index of the line closing a snippets block
// opened before lines[from], or 0 when none does: a lone marker that is
// never closed is left as text rather than taking the rest of the page.
func snippetBlockEnd(lines []string, from int) int {
	for j := from; j < len(lines); j++ {
		if m := snippetLine.FindStringSubmatch(lines[j]); m != nil && m[2] == "" && m[3] == "" {
			return j
		}
	}
	return 0
}

// snippet writes the file a snippets path names, each line indented as
// the directive and written in the file it comes from, or the directive's
// path as text (a line of the directive's file) when it cannot.
func (e *expander) snippet(out *writer, st *state, indent, spec string, depth int) {
	if isRemote(spec) {
		e.drop("snippets", spec, errRemote.Error())
		return
	}
	e.changed = true
	file, sel := snippetSpec(spec)
	p, text, err := e.read(st, relative(st.file, file))
	if err != nil {
		// Snippets drops a directive whose file is missing; the path is
		// kept instead, so the reader knows something was there.
		e.drop("snippets", spec, err.Error())
		out.line(indent+"(snippet: "+file+")", st.file)
		return
	}
	var lines []string // an empty file has none
	if text != "" {
		lines = splitLines(text)
	}
	switch {
	case sel.section != "":
		var ok bool
		if lines, ok = snippetSectionLines(lines, sel.section); !ok {
			e.drop("snippets", spec, errNoRegion.Error())
			return
		}
	case len(sel.ranges) > 0:
		total := len(lines)
		if strings.HasSuffix(text, "\n") {
			total++
		}
		lines = sel.take(lines, total)
	}
	if lines = dropMatching(lines, snippetSection); len(lines) == 0 {
		return // snippets writes nothing for no lines, not a blank one
	}
	t := e.nested(st, p, strings.Join(lines, "\n"), depth)
	if !e.chargeIndent(t.text, indent, true) {
		e.drop("snippets", spec, errTooMuch.Error())
		out.line(indent+"(snippet: "+file+")", st.file)
		return
	}
	out.piece(piece{text: indentLines(t.text, indent, true), from: t.from}, st.file)
}

// selection is the part of a file a directive takes: its lines in ranges,
// taken one after the other, or a named section.
type selection struct {
	ranges  []lineRange
	section string
}

// lineRange is lines from..to of a file, 1-based and inclusive: 0 leaves
// an end open, and a negative number counts from the end (-1 the last
// line), as pymdown-extensions' snippets read them since 10.13.
type lineRange struct{ from, to int }

// take returns the lines the selection's ranges name, in their order.
// total is the file's line count as negative numbers count it: snippets
// counts the empty line after a final newline, which lines, the file's
// lines, leaves out.
func (sel selection) take(lines []string, total int) []string {
	var out []string
	for _, r := range sel.ranges {
		from, to := r.from, r.to
		if from < 0 {
			from = max(total+from+1, 1)
		}
		if to < 0 {
			if to = total + to + 1; to < 1 {
				continue // before the first line: nothing
			}
		}
		out = append(out, sliceLines(lines, from, to)...)
	}
	return out
}

var (
	// snippetLines is a path and its line selections: ":from:to" and,
	// after commas, more "from:to" (each part may be empty or negative).
	snippetLines = regexp.MustCompile(`^(.*?)((?::-?\d*){1,2}(?:,(?:-?\d+(?::-?\d*)?|:-?\d*))*)$`)
	snippetNamed = regexp.MustCompile(`(?i)^(.+?):([a-z][-_0-9a-z]*)$`)
)

// snippetSpec splits a snippets path into the file and its selection
// ("a.md:3:8" lines 3 to 8, "a.md:3" from line 3, "a.md::8" up to line 8,
// "a.md:1:3,5:6" lines 1 to 3 then 5 to 6, "a.md:-2" the last two lines,
// "a.md:name" a section).
func snippetSpec(spec string) (string, selection) {
	if m := snippetLines.FindStringSubmatch(spec); m != nil && m[1] != "" {
		var sel selection
		for _, part := range strings.Split(m[2][1:], ",") {
			from, to, _ := strings.Cut(part, ":")
			sel.ranges = append(sel.ranges, lineRange{lineNumber(from), lineNumber(to)})
		}
		return strings.TrimSpace(m[1]), sel
	}
	if m := snippetNamed.FindStringSubmatch(spec); m != nil {
		return strings.TrimSpace(m[1]), selection{section: m[2]}
	}
	return spec, selection{}
}

// lineNumber reads a snippets line number, negative from the end; 0 for
// none.
func lineNumber(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// atoi reads a line number, 0 for none or a negative one.
func atoi(s string) int { return max(lineNumber(s), 0) }

// sliceLines returns lines from..to, 1-based and inclusive; 0 leaves an
// end open.
func sliceLines(lines []string, from, to int) []string {
	lo, hi := 0, len(lines)
	if from > 0 {
		lo = min(from-1, len(lines))
	}
	if to > 0 {
		hi = min(to, len(lines))
	}
	if lo >= hi {
		return nil
	}
	return lines[lo:hi]
}

// snippetSectionLines returns the lines between --8<-- [start:name] and
// [end:name], markers of other sections left out.
func snippetSectionLines(lines []string, name string) ([]string, bool) {
	var out []string
	in, found := false, false
	for _, l := range lines {
		m := snippetSection.FindStringSubmatch(l)
		switch {
		case m != nil && strings.EqualFold(m[2], name) && strings.EqualFold(m[1], "start"):
			in, found = true, true
		case m != nil && strings.EqualFold(m[2], name) && in:
			return out, true
		case m != nil:
		case in:
			out = append(out, l)
		}
	}
	return out, found
}

// dropMatching returns lines without those re matches (section and region
// markers, which the generators do not show).
func dropMatching(lines []string, re *regexp.Regexp) []string {
	out := lines[:0:0]
	for _, l := range lines {
		if !re.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// codeImport writes a VitePress code import (<<< path) as a fenced code
// block, its lines the imported file's, or the line as written when the
// file cannot be read.
func (e *expander) codeImport(out *writer, st *state, m []string) {
	indent, target, region, meta, title := m[1], m[2], strings.TrimPrefix(m[3], "#"), strings.TrimSpace(m[4]), strings.TrimSpace(m[5])
	p, text, err := e.read(st, e.vitepressPath(st.file, target))
	if err == nil {
		text, err = inRegion(text, region, true)
	}
	if err != nil {
		e.drop("vitepress", target, err.Error())
		out.line(m[0], st.file)
		return
	}
	lang := markdown.LangOfFile(p)
	// {1,3 ts twoslash}, {ts:line-numbers}: the first word that is not
	// lines, without its options, names the language.
	for _, w := range strings.Fields(meta) {
		if !lineRangeSpec.MatchString(w) {
			lang, _, _ = strings.Cut(w, ":")
			break
		}
	}
	info := lang
	if title != "" {
		info += " [" + title + "]"
	}
	text = strings.TrimRight(text, "\n")
	if !e.chargeIndent(text, indent, true) {
		e.drop("vitepress", target, errTooMuch.Error())
		out.line(m[0], st.file)
		return
	}
	e.changed = true
	out.fence(indent, info, text, p)
}
