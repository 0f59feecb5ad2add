package mdinclude

import (
	"bytes"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/codex7/codex7/markdown"
)

var (
	// mdxInclude is mdx_include's {! path | encoding !}, optionally
	// escaped with a backslash and flagged with +, - (no recursion) or >.
	mdxInclude = regexp.MustCompile(`(\\?)\{!([+>-]?)\s*(.+?)\s*(?:\|\s*[\w.-]+\s*)?!\}`)
	// mdxSlice is an mdx_include path with the lines to take:
	// "a.py [ln:1-9,12,20-]".
	mdxSlice = regexp.MustCompile(`^(.*?)\s*\[ln:([-\d.,\s]*)\]$`)
	// vitepressInclude is VitePress's markdown include comment.
	vitepressInclude = regexp.MustCompile(`<!--\s*@include:\s*(.*?)\s*-->`)
	// vitepressSpec splits an include's target: path, #region, {from,to}.
	vitepressSpec = regexp.MustCompile(`^(.*?)(?:#([\w*-]+))?(?:\{(\d*),(\d*)\})?$`)
	// vitepressRange is an include's {from,to} part.
	vitepressRange = regexp.MustCompile(`\{\d*,\d*\}$`)
	// mdbookLink is mdBook's {{#include path}}, {{#rustdoc_include path}}
	// and {{#playground path attrs}}, optionally escaped with a backslash.
	mdbookLink = regexp.MustCompile(`(\\?)\{\{\s*#(include|rustdoc_include|playground)\s+([^}]+?)\s*\}\}`)
	// mdbookAnchor is an mdBook anchor line's marker.
	mdbookAnchor = regexp.MustCompile(`ANCHOR(_END)?:\s*([\w-]+)`)
	// anchorName is a name an mdBook range may be instead of lines.
	anchorName = regexp.MustCompile(`^[\w-]+$`)
	digits     = regexp.MustCompile(`^\d+$`)
)

// fence follows code fences (``` and ~~~) line by line.
type fence struct {
	ch byte
	n  int // the opening fence's length; 0 outside a fence
}

// open reports whether l is code: a fence line, or a line inside one.
func (f *fence) open(l string) bool {
	t := strings.TrimLeft(l, " \t")
	if f.n > 0 {
		if k := runOf(t, f.ch); k >= f.n && strings.TrimSpace(t[k:]) == "" {
			f.n = 0
		}
		return true
	}
	if t == "" || (t[0] != '`' && t[0] != '~') {
		return false
	}
	k := runOf(t, t[0])
	if k < 3 || (t[0] == '`' && strings.IndexByte(t[k:], '`') >= 0) {
		return false
	}
	f.ch, f.n = t[0], k
	return true
}

// runOf counts the leading c bytes of s.
func runOf(s string, c byte) int {
	k := 0
	for k < len(s) && s[k] == c {
		k++
	}
	return k
}

// inline expands the directives that may stand anywhere in a line
// (mdx_include, VitePress includes, mdBook links), left to right, and
// returns the line with what they include, with the file each of its
// lines is written in (see joiner for a line that text of the including
// file and of an included one share). Text a directive brings in is not
// searched again for the page's directives: its own were expanded as its
// file's.
func (e *expander) inline(st *state, l string, depth int) piece {
	if !strings.Contains(l, "{!") && !strings.Contains(l, "@include:") && !strings.Contains(l, "{{") {
		return piece{text: l}
	}
	indent := leadingSpace(l)
	j := newJoiner(st.file)
	var next nextMatches
	pos := 0
	for {
		kind, m := next.earliest(l, pos)
		if m == nil {
			j.write(piece{text: l[pos:]})
			break
		}
		j.write(piece{text: l[pos:m[0]]})
		whole := strings.TrimSpace(l) == strings.TrimSpace(l[m[0]:m[1]])
		var t piece
		switch kind {
		case 0:
			t = e.mdx(st, l, m, depth)
		case 1:
			t = e.vitepressInclude(st, l, m, depth)
		default:
			t = e.mdbook(st, l, m, depth)
		}
		if whole {
			// Indenting keeps the lines, and so their origins.
			if e.chargeIndent(t.text, indent, false) {
				t.text = indentLines(t.text, indent, false)
			} else {
				e.drop(inlineNames[kind], l[m[0]:m[1]], errTooMuch.Error())
				t = piece{text: l[m[0]:m[1]]}
			}
		}
		j.write(t)
		pos = m[1]
	}
	e.misaligned = e.misaligned || j.misaligned
	return j.done()
}

// inlineDirectives are the directives inline expands, by kind: 0
// mdx_include, 1 VitePress includes, 2 mdBook links.
var inlineDirectives = [...]*regexp.Regexp{mdxInclude, vitepressInclude, mdbookLink}

// inlineNames are the inline directives' names, by kind, for Dropped.
var inlineNames = [...]string{"mdx_include", "vitepress", "mdbook"}

// nextMatches holds each kind's matches in a line, found once for the
// line (a generator reads its own directives left to right, each after
// the one before), so that a line of many directives is scanned once per
// kind rather than once per directive: searching a kind again after each
// directive of another kind that overlaps its next match scanned the rest
// of the line each time.
type nextMatches struct {
	found bool
	all   [len(inlineDirectives)][][]int // each kind's submatch indexes in the line
	next  [len(inlineDirectives)]int     // the first of them not yet passed
}

// earliest returns the first directive of l at or after pos: its kind and
// submatch indexes into l, or nil. A match that starts before pos overlaps
// a directive already taken and is passed over.
func (n *nextMatches) earliest(l string, pos int) (int, []int) {
	if !n.found {
		for k, re := range inlineDirectives {
			n.all[k] = re.FindAllStringSubmatchIndex(l, -1)
		}
		n.found = true
	}
	kind := -1
	for k, ms := range n.all {
		for n.next[k] < len(ms) && ms[n.next[k]][0] < pos {
			n.next[k]++
		}
		if n.next[k] < len(ms) && (kind < 0 || ms[n.next[k]][0] < n.all[kind][n.next[kind]][0]) {
			kind = k
		}
	}
	if kind < 0 {
		return -1, nil
	}
	return kind, n.all[kind][n.next[kind]]
}

// group returns submatch i of m in s, "" when it did not take part.
func group(s string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

// mdx expands one mdx_include directive: the file's lines, or the
// directive's own text (nil origins: the including file's).
func (e *expander) mdx(st *state, s string, m []int, depth int) piece {
	all := s[m[0]:m[1]]
	if group(s, m, 1) != "" {
		e.changed = true
		return piece{text: all[1:]}
	}
	spec := group(s, m, 3)
	target, slice := spec, ""
	if sm := mdxSlice.FindStringSubmatch(spec); sm != nil {
		target, slice = sm[1], sm[2]
	}
	if isRemote(target) {
		e.drop("mdx_include", spec, errRemote.Error())
		return piece{text: all}
	}
	p, text, err := e.read(st, relative(st.file, target))
	if err != nil {
		e.drop("mdx_include", spec, err.Error())
		return piece{text: all}
	}
	e.changed = true
	text = strings.TrimSuffix(text, "\n")
	if slice != "" {
		// A slice may name a line many times: what it takes beyond the
		// file's own bytes is charged too.
		sliced, ok := lineSlices(splitLines(text), slice, len(text)+max(0, maxBytes-e.included))
		if !ok {
			e.included = maxBytes + 1
			e.drop("mdx_include", spec, errTooMuch.Error())
			return piece{text: all}
		}
		e.charge(max(0, len(sliced)-len(text)))
		text = sliced
	}
	if group(s, m, 2) == "-" {
		return fileOf(text, p)
	}
	return e.nested(st, p, text, depth)
}

// lineSlices returns the lines an mdx_include slice names, in its order
// and joined: comma-separated 1-based lines "5" and inclusive ranges
// "1-9", "20-" and "-4" (a line.column bound counts as its line); false
// when they come to more than limit bytes.
func lineSlices(lines []string, spec string, limit int) (string, bool) {
	var out strings.Builder
	n := 0 // lines written
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		a, b, isRange := strings.Cut(part, "-")
		from, to := lineOf(a), lineOf(b)
		if !isRange {
			to = from
		}
		if from == 0 && to == 0 && !isRange {
			continue
		}
		for _, l := range sliceLines(lines, from, to) {
			if out.Len()+len(l)+1 > limit {
				return "", false
			}
			if n++; n > 1 {
				out.WriteByte('\n')
			}
			out.WriteString(l)
		}
	}
	return out.String(), true
}

// lineOf reads a slice bound, "12" or "12.4" (line 12), 0 for none.
func lineOf(s string) int {
	line, _, _ := strings.Cut(strings.TrimSpace(s), ".")
	return atoi(line)
}

// vitepressInclude expands one <!--@include: path--> comment (see mdx).
func (e *expander) vitepressInclude(st *state, s string, m []int, depth int) piece {
	all, spec := s[m[0]:m[1]], group(s, m, 1)
	sm := vitepressSpec.FindStringSubmatch(spec)
	target, region := sm[1], sm[2]
	p, text, err := e.read(st, e.vitepressPath(st.file, target))
	// VitePress drops a markdown file's front matter unless lines are
	// taken without a region (their numbers count it).
	if err == nil && path.Ext(p) == ".md" && (region != "" || !vitepressRange.MatchString(spec)) {
		text = withoutFrontMatter(text)
	}
	if err == nil {
		text, err = inRegion(text, region, false)
	}
	if err != nil {
		e.drop("vitepress", spec, err.Error())
		return piece{text: all}
	}
	e.changed = true
	lines := splitLines(strings.TrimSuffix(text, "\n"))
	if sm[3] != "" || sm[4] != "" {
		lines = sliceLines(lines, atoi(sm[3]), atoi(sm[4]))
	}
	return e.nested(st, p, strings.Join(lines, "\n"), depth)
}

// withoutFrontMatter returns a markdown file's text without its front
// matter, as gray-matter (which VitePress uses) reads it: an opening ---
// (not ----) at the very start, closed by the next "\n---"; a block never
// closed takes the whole file.
func withoutFrontMatter(text string) string {
	rest, ok := strings.CutPrefix(text, "---")
	if !ok || strings.HasPrefix(rest, "-") {
		return text
	}
	i := strings.Index(rest, "\n---")
	if i < 0 {
		return ""
	}
	return strings.TrimPrefix(rest[i+len("\n---"):], "\n")
}

// vitepressPath lists where a VitePress path may be: @/ names the site's
// root (the folder holding .vitepress), anything else the including
// file's folder.
func (e *expander) vitepressPath(from, target string) []string {
	rest, ok := strings.CutPrefix(target, "@/")
	if !ok {
		return ownFolder(from, target)
	}
	return e.underRoot(from, rest, ".vitepress")
}

// underRoot lists where a path from a site's root may be: under the
// nearest folder above from that holds one of markers (the site's
// configuration), or, when none does, against each folder above from.
func (e *expander) underRoot(from, rest string, markers ...string) []string {
	key := strings.Join(markers, " ")
	root, ok := e.roots[key]
	if !ok {
		root = "-"
	find:
		for dir := path.Dir(from); ; dir = path.Dir(dir) {
			for _, m := range markers {
				if _, err := fs.Stat(e.repo, path.Join(dir, m)); err == nil {
					root = dir
					break find
				}
			}
			if dir == "." || dir == "/" || dir == "" {
				break
			}
		}
		if e.roots == nil {
			e.roots = map[string]string{}
		}
		e.roots[key] = root
	}
	if root != "-" {
		return []string{path.Join(root, rest)}
	}
	return relative(from, rest)
}

// mdbook expands one mdBook link (see mdx); a playground's fence lines
// are the file's, as its code is.
func (e *expander) mdbook(st *state, s string, m []int, depth int) piece {
	all := s[m[0]:m[1]]
	if group(s, m, 1) != "" {
		e.changed = true
		return piece{text: all[1:]}
	}
	kind, args := group(s, m, 2), strings.Fields(group(s, m, 3))
	if len(args) == 0 {
		// {{#include  }}: blanks only, no path; mdBook leaves it as text.
		return piece{text: all}
	}
	file, sel, anchor := mdbookSpec(args[0])
	p, text, err := e.read(st, ownFolder(st.file, file))
	if err != nil {
		e.drop("mdbook", args[0], err.Error())
		return piece{text: all}
	}
	lines := splitLines(strings.TrimSuffix(text, "\n"))
	switch {
	case anchor != "":
		var ok bool
		if lines, ok = anchorLines(lines, anchor); !ok {
			e.drop("mdbook", args[0], errNoRegion.Error())
			return piece{text: all}
		}
	case len(sel.ranges) > 0:
		lines = sel.take(lines, len(lines))
	}
	lines = dropMatching(lines, mdbookAnchor)
	e.changed = true
	text = strings.Join(lines, "\n")
	if kind == "playground" {
		lang := markdown.LangOfFile(p)
		if lang == "" {
			lang = "rust"
		}
		var b bytes.Buffer
		writeFence(&b, "", strings.Join(append([]string{lang}, args[1:]...), ","), text)
		return fileOf(strings.TrimSuffix(b.String(), "\n"), p)
	}
	return e.nested(st, p, text, depth)
}

// mdbookSpec splits an mdBook path into the file and its lines (":5" line
// 5, ":5:" from 5, "::9" up to 9, ":5:9") or anchor (":name").
func mdbookSpec(spec string) (string, selection, string) {
	file, rest, ok := strings.Cut(spec, ":")
	if !ok || file == "" {
		return spec, selection{}, ""
	}
	if digits.MatchString(rest) {
		n := atoi(rest)
		return file, selection{ranges: []lineRange{{n, max(n, 1)}}}, ""
	}
	if a, b, ok := strings.Cut(rest, ":"); ok && (a == "" || digits.MatchString(a)) && (b == "" || digits.MatchString(b)) {
		return file, selection{ranges: []lineRange{{atoi(a), atoi(b)}}}, ""
	}
	if anchorName.MatchString(rest) {
		return file, selection{}, rest
	}
	return spec, selection{}, ""
}

// anchorLines returns the lines between ANCHOR: name and ANCHOR_END: name.
func anchorLines(lines []string, name string) ([]string, bool) {
	var out []string
	in, found := false, false
	for _, l := range lines {
		marker := false
		for _, m := range mdbookAnchor.FindAllStringSubmatch(l, -1) {
			switch {
			case m[2] != name:
			case m[1] == "" && !in:
				in, found, marker = true, true, true
			case m[1] != "" && in:
				return out, true
			}
		}
		if in && !marker {
			out = append(out, l)
		}
	}
	return out, found
}

// inRegion returns text's region (see regionText), or text when region is
// "", or errNoRegion.
func inRegion(text, region string, dedented bool) (string, error) {
	if region == "" {
		return text, nil
	}
	r, ok := regionText(text, region, dedented)
	if !ok {
		return "", errNoRegion
	}
	return r, nil
}

// regionMarkers are VitePress's region comments, per language family:
// the submatches are "region" or "endregion" and the name.
var regionMarkers = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^//\s?#?((?:end)?region)(?:\s+([\w*-]+))?$`),
	regexp.MustCompile(`(?i)^/\*\s?#((?:end)?region)(?:\s+([\w*-]+))?\s?\*/$`),
	regexp.MustCompile(`(?i)^#pragma\s+((?:end)?region)(?:\s+([\w*-]+))?$`),
	regexp.MustCompile(`(?i)^<!--\s?#?((?:end)?region)(?:\s+([\w*-]+))?\s?-->$`),
	regexp.MustCompile(`(?i)^#((?:end\s?)?region)(?:\s+([\w*-]+))?$`),
	regexp.MustCompile(`(?i)^::#((?:end)?region)(?:\s+([\w*-]+))?$`),
	regexp.MustCompile(`(?i)^#\s?((?:end)?region)(?:\s+([\w*-]+))?$`),
}

// regionText returns the lines of text's region name, the markers of any
// region left out, dedented when dedented is set: VitePress dedents a
// code import's region, not a markdown include's.
func regionText(text, name string, dedented bool) (string, bool) {
	lines := splitLines(text)
	var re *regexp.Regexp
	start := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if re == nil {
			for _, r := range regionMarkers {
				if m := r.FindStringSubmatch(t); m != nil && strings.EqualFold(m[1], "region") && m[2] == name {
					re, start = r, i+1
					break
				}
			}
			continue
		}
		if m := re.FindStringSubmatch(t); m != nil && !strings.EqualFold(m[1], "region") && (m[2] == "" || m[2] == name) {
			if !dedented {
				return strings.Join(withoutMarkers(lines[start:i], re), "\n"), true
			}
			return dedent(withoutMarkers(lines[start:i], re)), true
		}
	}
	return "", false
}

// withoutMarkers drops the lines re recognises as region markers.
func withoutMarkers(lines []string, re *regexp.Regexp) []string {
	var out []string
	for _, l := range lines {
		if !re.MatchString(strings.TrimSpace(l)) {
			out = append(out, l)
		}
	}
	return out
}

// dedent removes the indentation the non-blank lines share.
func dedent(lines []string) string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if k := len(leadingSpace(l)); common < 0 || k < common {
			common = k
		}
	}
	for i, l := range lines {
		lines[i] = l[min(max(common, 0), len(leadingSpace(l))):]
	}
	return strings.Join(lines, "\n")
}

// writeFence writes text as a fenced code block with info, each line
// indented, the fence longer than any backtick fence inside.
func writeFence(out *bytes.Buffer, indent, info, text string) {
	n := 3
	for _, l := range strings.Split(text, "\n") {
		n = max(n, runOf(strings.TrimLeft(l, " \t"), '`')+1)
	}
	f := strings.Repeat("`", n)
	out.WriteString(indent + f + info + "\n")
	if text != "" {
		out.WriteString(indentLines(text, indent, true))
		out.WriteByte('\n')
	}
	out.WriteString(indent + f + "\n")
}
