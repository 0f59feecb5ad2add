package markdown

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Content tabs show one example in several variants, one at a time: a
// Python version each ("Python 3.10+", "Python 3.9+", "Python 3.8+"), a
// package manager each, a file each, before and after. A site shows the
// first tab and hides the others; an index that reads the source gets
// them all, one after the other. Most variants say something the others
// do not (yarn's "resolutions" where npm has "overrides", the "After" of
// a migration, SASS beside SCSS), however few lines they change, but the
// variants of one example for older versions of a language do not:
// fastapi's tutorial gives most examples in three to five such variants a
// line or two apart, which is that many times the tokens for one example
// and a section split into parts of which the later ones hold variants
// alone.
//
// collapseTabs leaves out a tab that is an older version's variant of a
// tab kept before it in the same group: both labels name a minimum
// version after a name ("3.10+", "3.9 and above") and differ only in it
// ("Python 3.9+" after "Python 3.10+", "Python 3.8+ non-Annotated" after
// "Python 3.10+ non-Annotated", but not after "Python 3.10+"), the kept
// tab's version is the same or newer (a newer variant after an older one
// may show syntax the older cannot), they have at least tabSimilarity of
// their lines in common, and the site does not select the tab to show
// first. It writes one line in its place that names it and the tab kept.
// The syntaxes read are those of pymdownx.blocks.tab ("/// tab | Label"
// ... "///", fastapi), pymdownx.tabbed (`=== "Label"` and an indented
// body, MkDocs Material), VitePress and Nuxt code groups (":::code-group"
// of labelled fences) and Docusaurus' <Tabs> of <TabItem>s.

// tabSimilarity is the share of lines two version variants must have in
// common (the Dice coefficient of their lines, trimmed, blank lines and
// code fences left out) to be the same example: fastapi's have 0.6–1, a
// median of 0.84. Tabs that name versions but differ more are kept,
// whatever they say.
const tabSimilarity = 0.5

// maxTabs is the most tabs a group may have for its older variants to be
// looked for (each tab is compared with every tab kept before it): sites
// give an example in a few variants, not hundreds.
const maxTabs = 32

// tab is one tab of a group: lines [start, end) of the source are the
// whole tab (its opening and closing lines too), [bodyStart, bodyEnd)
// the lines compared. keep is set for a tab never left out: the one the
// site shows first (selected), or one whose lines hold more than the tab.
type tab struct {
	label              []byte
	start, end         int
	bodyStart, bodyEnd int
	keep               bool
	// noteIndent is the indentation of the line left in a tab's place.
	noteIndent []byte
}

// tabDrop is a tab left out, and the kept tab it is a variant of.
type tabDrop struct{ t, of tab }

var (
	// labelVersion is a minimum version in a tab's label: a version and
	// what says "and later" ("3.10+", "v18 and above", "2.7 or later").
	// A version alone ("Pydantic v1", "Vite 5") names a target, whose
	// variant says what the others do not.
	labelVersion = regexp.MustCompile(`(?i)\bv?(\d+(?:\.\d+)*)(?:\+|\s+(?:and|or)\s+(?:above|later|newer|up)\b)`)
	// blockTabOpen is pymdownx.blocks.tab's opening line: a run of three
	// or more slashes, "tab" (in any case, as pymdownx reads it), "|" and
	// the label.
	blockTabOpen = regexp.MustCompile(`^[ \t]*(/{3,})[ \t]*(?i:tab)[ \t]*\|[ \t]*(.*?)[ \t]*$`)
	// blockTabOption is a line of a block tab's YAML options that starts a
	// new group or selects the tab ("new: true", "select: yes").
	blockTabOption = regexp.MustCompile(`(?i)^[ \t]+(new|select)[ \t]*:[ \t]*(?:true|yes|on)[ \t]*$`)
	// tabbedOpen is pymdownx.tabbed's: "===", "!" to start a new group or
	// "+" to select the tab, spaces and the label in double quotes.
	tabbedOpen = regexp.MustCompile(`^([ \t]*)===([!+]*) +"(.*)"[ \t]*$`)
	// codeGroupOpen is a VitePress (":::") or Nuxt MDC ("::") code group.
	codeGroupOpen = regexp.MustCompile(`^[ \t]*(:{2,})[ \t]*code-group\b`)
	// fenceLabel is the label of a fence in a code group: "[label]" in its
	// info string.
	fenceLabel = regexp.MustCompile(`\[([^\]]+)\]`)
	// tabItemOpen is a Docusaurus TabItem at the start of a line; its
	// label or value attribute; and its default attribute, which selects
	// it.
	tabItemOpen    = regexp.MustCompile(`^[ \t]*<TabItem\b`)
	tabItemLabel   = regexp.MustCompile(`\b(label|value)=(?:"([^"]*)"|'([^']*)'|\{["'\x60]([^"'\x60]*)["'\x60]\})`)
	tabItemDefault = regexp.MustCompile(`\sdefault(?:[\s>/=]|$)`)
)

// collapseTabs returns src with the older versions' variants among each
// group's tabs replaced by a line naming them, and as many lines as src,
// so that line numbers do not move; src itself when nothing is replaced.
func collapseTabs(src []byte) []byte {
	lines, drops := tabDrops(src)
	if len(drops) == 0 {
		return src
	}
	replaced := map[int][]byte{} // line index → its replacement (without its line end)
	for _, d := range drops {
		note := append(bytes.Clone(d.t.noteIndent), "*Tab "...)
		note = strconv.AppendQuote(note, string(d.t.label))
		note = append(note, ": nearly the same as "...)
		note = strconv.AppendQuote(note, string(d.of.label))
		note = append(note, ", not repeated.*"...)
		replaced[d.t.start] = note
		for j := d.t.start + 1; j < d.t.end; j++ {
			replaced[j] = nil
		}
	}
	out := make([]byte, 0, len(src))
	for i, l := range lines {
		r, ok := replaced[i]
		if !ok {
			out = append(out, l...)
			continue
		}
		out = append(out, r...)
		out = append(out, l[len(trimEOL(l)):]...) // the line's own end, \n or \r\n
	}
	return out
}

// tabDrops returns src's lines (each with its line end) and the tabs to
// leave out, in order.
func tabDrops(src []byte) ([][]byte, []tabDrop) {
	if !hasTabOpener(src) {
		return nil, nil
	}
	sc := &tabScanner{lines: bytes.SplitAfter(src, []byte("\n"))}
	lines := sc.lines
	var drops []tabDrop
	for i := 0; i < len(lines); {
		line := trimEOL(lines[i])
		if ch, n, ok := fenceOpen(line); ok {
			i = skipFence(lines, i, ch, n)
			continue
		}
		if !mayOpenTabs(line) {
			i++
			continue
		}
		var group []tab
		var next int
		switch {
		case blockTabOpen.Match(line):
			group, next = sc.blockTabs(i)
		case tabbedOpen.Match(line):
			group, next = tabbedTabs(lines, i)
		case codeGroupOpen.Match(line):
			group, next = sc.codeGroupTabs(i)
		case tabItemOpen.Match(line):
			group, next = tabItems(lines, i)
		default:
			i++
			continue
		}
		drops = append(drops, olderVariants(lines, group)...)
		i = max(next, i+1)
	}
	return lines, drops
}

// hasTabOpener reports whether a line of src opens a tab group, fences
// aside: the cheap test most pages fail, before any line is split out.
func hasTabOpener(src []byte) bool {
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if mayOpenTabs(line) {
			line = trimEOL(line)
			if blockTabOpen.Match(line) || tabbedOpen.Match(line) || codeGroupOpen.Match(line) || tabItemOpen.Match(line) {
				return true
			}
		}
	}
	return false
}

// mayOpenTabs is the prefix test of the opening lines' patterns: only a
// line it passes is matched against them.
func mayOpenTabs(line []byte) bool {
	lead := bytes.TrimLeft(line, " \t")
	if len(lead) < 3 {
		return false
	}
	switch lead[0] {
	case '/':
		return lead[1] == '/' && lead[2] == '/'
	case '=':
		return lead[1] == '=' && lead[2] == '='
	case ':':
		return lead[1] == ':' && bytes.Contains(lead, []byte("code-group"))
	case '<':
		return bytes.HasPrefix(lead, []byte("<TabItem"))
	}
	return false
}

// olderVariants returns the tabs of group that are an older version's
// variant of a tab kept before them, each with that tab.
func olderVariants(lines [][]byte, group []tab) []tabDrop {
	if len(group) < 2 || len(group) > maxTabs {
		return nil
	}
	names := make([]string, len(group))
	versions := make([][]int, len(group))
	versioned := false
	for k, t := range group {
		names[k], versions[k] = labelParts(t.label)
		versioned = versioned || versions[k] != nil
	}
	if !versioned {
		return nil
	}
	bodies := make([]map[string]int, len(group))
	sizes := make([]int, len(group))
	for k, t := range group {
		bodies[k] = map[string]int{}
		for j := t.bodyStart; j < t.bodyEnd; j++ {
			l := bytes.TrimSpace(lines[j])
			if _, _, fence := fenceOpen(l); len(l) == 0 || fence || fenceClose(l, '`', 3) || fenceClose(l, '~', 3) {
				continue // fence lines are the same in any two examples
			}
			bodies[k][string(l)]++
			sizes[k]++
		}
	}
	var drops []tabDrop
	kept := []int{0}
	for k := 1; k < len(group); k++ {
		copyOf := -1
		for _, c := range kept {
			if !group[k].keep && versions[k] != nil && versions[c] != nil && names[k] == names[c] &&
				slices.Compare(versions[c], versions[k]) >= 0 &&
				sizes[k] > 0 && dice(bodies[k], sizes[k], bodies[c], sizes[c]) >= tabSimilarity {
				copyOf = c
				break
			}
		}
		if copyOf < 0 {
			kept = append(kept, k)
			continue
		}
		drops = append(drops, tabDrop{group[k], group[copyOf]})
	}
	return drops
}

// labelParts returns a tab label without its version, in lower case with
// spaces collapsed, and the version's numbers; nil numbers when the label
// has no minimum version after a name ("3+ nodes" has none).
func labelParts(label []byte) (string, []int) {
	loc := labelVersion.FindSubmatchIndex(label)
	if loc == nil || !bytes.ContainsFunc(label[:loc[0]], unicode.IsLetter) {
		return "", nil
	}
	var v []int
	for f := range strings.SplitSeq(string(label[loc[2]:loc[3]]), ".") {
		n, err := strconv.Atoi(f)
		if err != nil { // too many digits
			return "", nil
		}
		v = append(v, n)
	}
	name := strings.ToLower(strings.Join(strings.Fields(string(label[:loc[0]])+" "+string(label[loc[1]:])), " "))
	return name, v
}

// dice returns the Dice coefficient of two multisets of lines.
func dice(a map[string]int, na int, b map[string]int, nb int) float64 {
	common := 0
	for l, n := range a {
		common += min(n, b[l])
	}
	return 2 * float64(common) / float64(na+nb)
}

// tabScanner reads the groups of tabs of one source.
type tabScanner struct {
	lines [][]byte
	// runs lists, for each run of slashes (3 or more) or colons (2 or
	// more) that is a line of its own outside code fences, those lines in
	// order: the closing lines of block tabs and code groups. Made at the
	// first need, in one pass, so that finding a closing line is a binary
	// search whatever the page holds.
	runs map[string][]int
}

// closer returns the first line from i that is fence alone (trimmed),
// outside code fences, or -1.
func (sc *tabScanner) closer(i int, fence []byte) int {
	if sc.runs == nil {
		sc.runs = map[string][]int{}
		for j := 0; j < len(sc.lines); {
			l := trimEOL(sc.lines[j])
			if ch, n, ok := fenceOpen(l); ok {
				j = skipFence(sc.lines, j, ch, n)
				continue
			}
			if t := bytes.TrimSpace(l); len(t) >= 2 && (t[0] == '/' || t[0] == ':') && len(bytes.Trim(t, string(t[0]))) == 0 {
				sc.runs[string(t)] = append(sc.runs[string(t)], j)
			}
			j++
		}
	}
	at := sc.runs[string(fence)]
	k, _ := slices.BinarySearch(at, i)
	if k == len(at) {
		return -1
	}
	return at[k]
}

// blockTabs reads the group of pymdownx.blocks tabs that opens at line
// i: tabs at the same indentation that follow each other with blank lines
// only between them, until one says "new: true" in its options (the lines
// indented under its header). It returns the group and the line after it.
func (sc *tabScanner) blockTabs(i int) ([]tab, int) {
	lines := sc.lines
	indent := leadingSpace(trimEOL(lines[i]))
	cols, _ := indentCols(indent)
	var group []tab
	for i < len(lines) {
		line := trimEOL(lines[i])
		m := blockTabOpen.FindSubmatch(line)
		if m == nil || !bytes.Equal(leadingSpace(line), indent) {
			break
		}
		var newGroup, selected bool
		for j := i + 1; j < len(lines); j++ {
			l := trimEOL(lines[j])
			if w, _ := indentCols(l); len(bytes.TrimSpace(l)) == 0 || w < cols+4 {
				break
			}
			if o := blockTabOption.FindSubmatch(l); o != nil {
				newGroup = newGroup || strings.EqualFold(string(o[1]), "new")
				selected = selected || strings.EqualFold(string(o[1]), "select")
			}
		}
		if newGroup && len(group) > 0 {
			break
		}
		end := sc.closer(i+1, m[1]) + 1
		if end == 0 { // not closed: not a tab
			return group, i + 1
		}
		group = append(group, tab{label: m[2], start: i, end: end, bodyStart: i + 1, bodyEnd: end - 1, keep: selected, noteIndent: indent})
		i = skipBlank(lines, end)
	}
	return group, i
}

// tabbedTabs reads the group of pymdownx.tabbed tabs that opens at line
// i: `=== "Label"` lines at one indentation, each followed by its body
// indented four more columns, until one starts a new group ("===!").
func tabbedTabs(lines [][]byte, i int) ([]tab, int) {
	indent := tabbedOpen.FindSubmatch(trimEOL(lines[i]))[1]
	cols, _ := indentCols(indent)
	var group []tab
	for i < len(lines) {
		m := tabbedOpen.FindSubmatch(trimEOL(lines[i]))
		if m == nil || !bytes.Equal(m[1], indent) || (len(group) > 0 && bytes.Contains(m[2], []byte("!"))) {
			break
		}
		end := i + 1
		for j := i + 1; j < len(lines); j++ {
			l := trimEOL(lines[j])
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			// The width before a '>' too: a quoted line of the body is
			// indented like the rest ("    > note").
			if w, _ := indentCols(l); w < cols+4 {
				break
			}
			end = j + 1
		}
		group = append(group, tab{label: m[3], start: i, end: end, bodyStart: i + 1, bodyEnd: end, keep: bytes.Contains(m[2], []byte("+")), noteIndent: indent})
		i = skipBlank(lines, end)
	}
	return group, i
}

// codeGroupTabs reads a code group that opens at line i: each fence in it
// is a tab, labelled by the "[label]" of its info string (or the info
// string itself). It ends at a line of as many colons as opened it.
func (sc *tabScanner) codeGroupTabs(i int) ([]tab, int) {
	lines := sc.lines
	colons := codeGroupOpen.FindSubmatch(trimEOL(lines[i]))[1]
	last := sc.closer(i+1, colons)
	if last < 0 { // not closed: not a group
		return nil, i + 1
	}
	var group []tab
	for j := i + 1; j < last; {
		l := trimEOL(lines[j])
		ch, n, ok := fenceOpen(l)
		if !ok {
			j++
			continue
		}
		end := skipFence(lines, j, ch, n)
		info := bytes.TrimSpace(bytes.TrimLeft(bytes.TrimSpace(l), string(ch)))
		label := info
		if m := fenceLabel.FindSubmatch(info); m != nil {
			label = m[1]
		}
		group = append(group, tab{label: label, start: j, end: end, bodyStart: j + 1, bodyEnd: max(end-1, j+1), noteIndent: leadingSpace(l)})
		j = end
	}
	return group, last + 1
}

// tabItems reads the Docusaurus <TabItem>s that follow each other from
// line i, each from a line that starts with <TabItem to the line that
// holds its </TabItem>, until a line holds another <TabItem or </Tabs>
// first. A tab whose first or last line holds anything but the tab (its
// closing tag followed by </Tabs> or the next <TabItem>) is kept.
func tabItems(lines [][]byte, i int) ([]tab, int) {
	closeTag, openTag, tabsTag := []byte("</TabItem>"), []byte("<TabItem"), []byte("</Tabs>")
	var group []tab
	for i < len(lines) && tabItemOpen.Match(trimEOL(lines[i])) {
		open := trimEOL(lines[i])
		end, alone := -1, false
		if k := bytes.Index(open, closeTag); k >= 0 { // <TabItem ...>text</TabItem>
			end = i + 1
			rest := open[k+len(closeTag):]
			alone = len(bytes.TrimSpace(rest)) == 0 && bytes.Count(open, openTag) == 1
		}
		for j := i + 1; end < 0 && j < len(lines); {
			l := trimEOL(lines[j])
			if ch, n, ok := fenceOpen(l); ok {
				j = skipFence(lines, j, ch, n)
				continue
			}
			if bytes.Contains(l, closeTag) {
				end, alone = j+1, bytes.Equal(bytes.TrimSpace(l), closeTag)
				break
			}
			if bytes.Contains(l, openTag) || bytes.Contains(l, tabsTag) {
				break
			}
			j++
		}
		if end < 0 {
			break
		}
		var label []byte
		for _, a := range tabItemLabel.FindAllSubmatch(open, -1) {
			// label= wins over value=, whichever comes first.
			if label == nil || string(a[1]) == "label" {
				label = bytes.Join(a[2:5], nil) // one of the three is set
			}
		}
		bodyStart, bodyEnd := i+1, end-1
		if end-1 == i {
			bodyStart, bodyEnd = i, end
		}
		// The note is indented three columns at most: a TabItem indented
		// four is not code, but the note in its place would be.
		indent := leadingSpace(open)
		indent = indent[:min(len(indent), 3)]
		group = append(group, tab{label: label, start: i, end: end, bodyStart: bodyStart, bodyEnd: bodyEnd,
			keep: !alone || tabItemDefault.Match(open), noteIndent: bytes.ReplaceAll(indent, []byte("\t"), []byte(" "))})
		i = skipBlank(lines, end)
		if !alone { // the group goes on on that line, which no tab starts
			break
		}
	}
	return group, i
}

// skipFence returns the line after the fenced block that opens at line i
// (the end of lines when it is not closed).
func skipFence(lines [][]byte, i int, ch byte, n int) int {
	for j := i + 1; j < len(lines); j++ {
		if fenceClose(trimEOL(lines[j]), ch, n) {
			return j + 1
		}
	}
	return len(lines)
}

// skipBlank returns the first line from i that is not blank.
func skipBlank(lines [][]byte, i int) int {
	for i < len(lines) && len(bytes.TrimSpace(lines[i])) == 0 {
		i++
	}
	return i
}

// trimEOL returns line without its line end.
func trimEOL(line []byte) []byte {
	return bytes.TrimRight(line, "\r\n")
}

// leadingSpace returns line's indentation.
func leadingSpace(line []byte) []byte {
	return line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
}
