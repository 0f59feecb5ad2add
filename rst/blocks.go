package rst

import (
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/codex7/codex7/markdown"
)

// maxDepth bounds how deeply blocks nest (block quotes, list items,
// directive bodies); deeper content is written as plain paragraphs, which
// keeps hostile input linear.
const maxDepth = 40

// adornment is a section title style: its character and whether it has an
// overline.
type adornment struct {
	ch   byte
	over bool
}

// converter turns reStructuredText into markdown. One converter handles
// one Split call, included files included.
type converter struct {
	path string
	repo fs.FS
	w    writer

	// styles are the section title styles in order of first appearance:
	// a style's level is its index plus one.
	styles []adornment
	// level is the level of the current section, 0 before the first.
	level int
	// objLevel is the heading level of the innermost object description
	// whose body is being read, 0 outside them.
	objLevel int
	// highlight is the language of "::" literal blocks.
	highlight string
	// defaultRole is the role ".. default-role::" set, or "".
	defaultRole string
	// module and class are Sphinx's current Python module and class;
	// program is the current ".. program::".
	module, class, program string

	// ids holds the anchors handed out; autoID counts docutils' "idN"
	// (sections'); serial holds Sphinx's counters for objects whose id
	// is taken, by prefix (objectID).
	ids    map[string]bool
	autoID int
	serial map[string]int
	// labels are the ids of the explicit targets (and of bodiless object
	// descriptions) waiting for the next block: a section title takes the
	// first as its anchor.
	labels []string
	// titleNext tells directive that a section title follows the
	// directive being written.
	titleNext bool
	// labelTitles maps the file's labels (by normalized name) to the
	// titles Sphinx shows for a :ref: to them without one: those of the
	// sections they precede, and others' (see noteLabels); anonLabels
	// holds the labels Sphinx gives no title.
	labelTitles map[string]string
	anonLabels  map[string]bool
	// terms are the terms of the file's glossaries (noteGlossary).
	terms termTable
	// inner are the ids of places inside sections, in order (see
	// innerTarget).
	inner []markdown.Place
	// subs are the file's substitution definitions, by normalized name;
	// subBudget is what references may still show of them.
	subs      map[string]substitution
	subBudget int

	dropped []DroppedInclude
	// including is the stack of included paths (cycle check); included
	// counts the bytes read by includes.
	including []string
	included  int
}

func newConverter(p string, repo fs.FS) *converter {
	return &converter{
		path:        p,
		repo:        repo,
		w:           writer{blank: true},
		highlight:   "python",
		ids:         map[string]bool{},
		serial:      map[string]int{},
		labelTitles: map[string]string{},
		anonLabels:  map[string]bool{},
		subs:        map[string]substitution{},
		subBudget:   substitutionBudget,
		including:   []string{p},
	}
}

// normalizeName is docutils' fully_normalize_name.
func normalizeName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// blocks converts a run of lines. top tells that section titles may
// appear (the document level, included files included); depth counts
// nesting.
func (c *converter) blocks(ls []srcLine, top bool, depth int) {
	if depth > maxDepth {
		c.plain(ls)
		return
	}
	simpleNoClose := -1
	for i := 0; i < len(ls); {
		l := ls[i]
		t := l.text
		if t == "" {
			i++
			continue
		}
		if indentOf(t) > 0 {
			j := indentedEnd(ls, i)
			c.placeLabels()
			c.blocks(dedent(ls[i:j]), false, depth+1)
			i = j
			continue
		}
		if top {
			if n, _ := titleAt(ls, i); n > 0 {
				c.section(ls[i : i+n])
				i += n
				continue
			}
		}
		if isAdornment(t) && len(t) >= 4 && (i+1 == len(ls) || ls[i+1].text == "") {
			i++ // a transition
			continue
		}
		if t == ".." || strings.HasPrefix(t, ".. ") {
			i = c.explicit(ls, i, top, depth)
			continue
		}
		if strings.HasPrefix(t, "__ ") || t == "__" {
			i = indentedEnd(ls, i+1) // an anonymous target
			continue
		}
		c.placeLabels()
		if n := bulletLen(t); n > 0 {
			i = c.item(ls, i, n, "- ", depth, true)
			continue
		}
		if n, label := enumLen(t); n > 0 {
			i = c.item(ls, i, n, label+" ", depth, true)
			continue
		}
		if n, name := fieldLen(t); n > 0 {
			if top && depth == 0 && len(c.w.lines) == 0 && c.w.prefix == "" && indentedEnd(ls, i+1) == i+1 {
				// A field list opening the document is Sphinx's file-wide
				// metadata (:orphan:, :tocdepth: 2), which shows nothing.
				i++
				continue
			}
			i = c.item(ls, i, n, c.inline(name)+": ", depth, false)
			continue
		}
		if n, opt := optionLen(t); n > 0 {
			i = c.item(ls, i, n, codeSpan(opt)+": ", depth, false)
			continue
		}
		if strings.HasPrefix(t, ">>>") {
			j := i
			for j < len(ls) && ls[j].text != "" {
				j++
			}
			c.codeLines("pycon", ls[i:j], l.n)
			i = j
			continue
		}
		if t == "|" || strings.HasPrefix(t, "| ") {
			i = c.lineBlock(ls, i)
			continue
		}
		if isGridBorder(t) {
			if j := c.gridTable(ls, i); j > i {
				i = j
				continue
			}
		}
		if isSimpleBorder(t) {
			if j := c.simpleTable(ls, i, &simpleNoClose); j > i {
				i = j
				continue
			}
		}
		i = c.paragraph(ls, i, depth)
	}
}

// plain writes lines as paragraphs without reading their structure.
func (c *converter) plain(ls []srcLine) {
	var md []string
	var ns []int
	flush := func() {
		c.w.para(md, ns)
		md, ns = nil, nil
	}
	for _, l := range ls {
		t := strings.TrimSpace(l.text)
		if t == "" {
			flush()
			continue
		}
		md = append(md, escapeText(t))
		ns = append(ns, l.n)
	}
	flush()
}

// indentOf returns the number of leading spaces of t.
func indentOf(t string) int {
	return len(t) - len(strings.TrimLeft(t, " "))
}

// indentedEnd returns the end of the indented block starting at i: the
// index of the first non-blank line without indentation, trailing blank
// lines excluded.
func indentedEnd(ls []srcLine, i int) int {
	j, last := i, i
	for j < len(ls) && (ls[j].text == "" || indentOf(ls[j].text) > 0) {
		j++
		if ls[j-1].text != "" {
			last = j
		}
	}
	return last
}

// knownIndentedEnd returns the end of the block starting at i whose lines
// are indented at least col columns, trailing blank lines excluded: the
// first non-blank line indented less ends it.
func knownIndentedEnd(ls []srcLine, i, col int) int {
	j, last := i, i
	for j < len(ls) && (ls[j].text == "" || indentOf(ls[j].text) >= col) {
		j++
		if ls[j-1].text != "" {
			last = j
		}
	}
	return last
}

// dedentBy removes col columns of indentation from lines indented at
// least that far (knownIndentedEnd's).
func dedentBy(ls []srcLine, col int) []srcLine {
	out := make([]srcLine, len(ls))
	for i, l := range ls {
		if l.text != "" {
			l.text = l.text[min(col, indentOf(l.text)):]
		}
		out[i] = l
	}
	return out
}

// dedent removes the smallest indentation of the non-blank lines.
func dedent(ls []srcLine) []srcLine {
	d := -1
	for _, l := range ls {
		if l.text != "" {
			if k := indentOf(l.text); d < 0 || k < d {
				d = k
			}
		}
	}
	if d <= 0 {
		return ls
	}
	out := make([]srcLine, len(ls))
	for i, l := range ls {
		if l.text != "" {
			l.text = l.text[d:]
		}
		out[i] = l
	}
	return out
}

// isAdornment reports whether t is a run of one punctuation character,
// the only kind of line that makes a section title's under- or overline.
func isAdornment(t string) bool {
	if len(t) < 2 || !isAdornChar(t[0]) {
		return false
	}
	for i := 1; i < len(t); i++ {
		if t[i] != t[0] {
			return false
		}
	}
	return true
}

func isAdornChar(b byte) bool {
	return b > ' ' && b < 0x7f && !(b >= 'a' && b <= 'z') && !(b >= 'A' && b <= 'Z') && !(b >= '0' && b <= '9')
}

// underlineFits reports whether an adornment may underline a title:
// docutils takes one as long as the title, or shorter when it has at
// least four characters.
func underlineFits(title, adorn string) bool {
	return len(adorn) >= 4 || len(adorn) >= textWidth(strings.TrimSpace(title))
}

// textWidth counts a title's characters, as docutils' column width does
// for narrow ones.
func textWidth(s string) int { return len([]rune(s)) }

// titleAt returns the number of lines of the section title starting at
// ls[i] (2 for an underlined one, 3 with an overline) and its text, or 0.
func titleAt(ls []srcLine, i int) (int, string) {
	t := ls[i].text
	if i > 0 && ls[i-1].text != "" && !isAdornment(ls[i-1].text) && !strings.HasPrefix(ls[i-1].text, "..") {
		return 0, "" // not the first line of a block
	}
	if isAdornment(t) && i+2 < len(ls) {
		title, under := ls[i+1].text, ls[i+2].text
		if under == t || (isAdornment(under) && under[0] == t[0] && len(under) >= 2) {
			tt := strings.TrimSpace(title)
			if tt != "" && !isAdornment(tt) && (len(t) >= 4 || len(t) >= textWidth(tt)) {
				return 3, tt
			}
		}
		return 0, ""
	}
	if indentOf(t) > 0 || i+1 >= len(ls) || isAdornment(t) {
		return 0, ""
	}
	u := ls[i+1].text
	if !isAdornment(u) || !underlineFits(t, u) {
		return 0, ""
	}
	// An underline followed by a non-blank line that is not an overline
	// would be a two-line paragraph; docutils takes it as a title anyway.
	return 2, strings.TrimSpace(t)
}

// section writes a section title.
func (c *converter) section(ls []srcLine) {
	var st adornment
	var title string
	var n int
	if len(ls) == 3 {
		st, title, n = adornment{ls[0].text[0], true}, strings.TrimSpace(ls[1].text), ls[1].n
	} else {
		st, title, n = adornment{ls[1].text[0], false}, strings.TrimSpace(ls[0].text), ls[0].n
	}
	level := 0
	for k, s := range c.styles {
		if s == st {
			level = k + 1
			break
		}
	}
	if level == 0 {
		c.styles = append(c.styles, st)
		level = len(c.styles)
	}
	c.level = level
	c.objLevel = 0
	text := plainInline(title)
	// docutils gives the section the id of its title and of each target
	// before it, and a :ref: links to its label's. The anchor is the first
	// label's; the other labels' ids are ids inside the section. A title
	// whose id a target already holds (".. _url-building:" over "URL
	// Building") gets a numbered id of its own, which uses up a number.
	anchor := MakeID(normalizeName(text))
	labels := c.labels
	c.labels = nil
	from := len(c.inner)
	first := ""
	for k, l := range labels {
		if k == 0 && l != "" && !c.ids[l] {
			first = l
			c.ids[l] = true
			continue
		}
		c.innerTarget(l)
	}
	if first != "" {
		// The title's own id is not recorded: unlike labels, titles'
		// ids repeat across a project, and a :ref: to a label of
		// another page that had the same id would no longer resolve.
		if anchor == "" || c.ids[anchor] {
			c.unique("", "id")
		} else {
			c.ids[anchor] = true
		}
		anchor = first
	} else {
		anchor = c.unique(anchor, "id")
	}
	c.w.heading(level, c.inline(title), anchor, n)
	c.placedHere(from)
}

// unique returns id if it was not handed out, else the next free
// prefix+N as docutils numbers automatic ids, and records it.
func (c *converter) unique(id, prefix string) string {
	for id == "" || c.ids[id] {
		c.autoID++
		id = prefix + itoa(c.autoID)
	}
	c.ids[id] = true
	return id
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// item writes a list item (bullet, enumerated, field, option, footnote):
// its first line starts n bytes into ls[i], its body goes on with the
// indented lines after it. label goes before its first paragraph.
// known tells that the item is a bullet or enumerated list item, whose
// label is a list marker (see writer.setMarker) and whose body is read
// as itemBody's known says.
func (c *converter) item(ls []srcLine, i, n int, label string, depth int, known bool) int {
	body, j := itemBody(ls, i, n, known)
	if known {
		c.w.setMarker(label, ls[i].n)
	} else {
		c.w.setPrefix(label, ls[i].n)
	}
	c.blocks(body, false, depth+1)
	if known {
		c.w.endItem()
	} else {
		c.w.flushPrefix()
	}
	return j
}

// itemBody returns the body of the list item whose first line starts n
// bytes into ls[i], and the index after the item.
//
// known tells that the body is indented as far as the first line's text,
// as docutils reads bullet and enumerated items (get_known_indented from
// the end of the marker): the lines after are stripped by that column,
// so that a "::" block indented deeper keeps its indentation, and a line
// indented less ends the item. Field, option and footnote items, and
// items whose first line holds only the marker, are stripped by the
// smallest indentation of their lines, as docutils strips them
// (get_first_known_indented).
func itemBody(ls []srcLine, i, n int, known bool) ([]srcLine, int) {
	first := srcLine{text: strings.TrimLeft(ls[i].text[min(n, len(ls[i].text)):], " "), n: ls[i].n}
	var body []srcLine
	j := indentedEnd(ls, i+1)
	if known && first.text != "" {
		col := utf8.RuneCountInString(ls[i].text[:len(ls[i].text)-len(first.text)])
		j = knownIndentedEnd(ls, i+1, col)
		body = append([]srcLine{first}, dedentBy(ls[i+1:j], col)...)
	} else {
		body = append([]srcLine{first}, dedent(ls[i+1:j])...)
	}
	if first.text == "" {
		body = body[1:]
	}
	return body, j
}

// bulletLen returns the length of a bullet list marker starting t.
func bulletLen(t string) int {
	for _, b := range []string{"- ", "* ", "+ ", "• ", "‣ ", "⁃ "} {
		if strings.HasPrefix(t, b) {
			return len(b)
		}
	}
	switch t {
	case "-", "*", "+":
		return 1
	}
	return 0
}

// enumLen returns the length of an enumerated list marker starting t
// ("1.", "(a)", "iv)", "#.") and its markdown label.
func enumLen(t string) (int, string) {
	i := 0
	paren := false
	if strings.HasPrefix(t, "(") {
		paren, i = true, 1
	}
	j := i
	for j < len(t) && j-i < 9 && (t[j] >= '0' && t[j] <= '9') {
		j++
	}
	if j == i {
		switch {
		case j < len(t) && t[j] == '#':
			j++
		case j < len(t) && isRomanOrLetter(t[j]):
			j++
			for j < len(t) && j-i < 9 && strings.IndexByte("ivxlcdmIVXLCDM", t[j]) >= 0 && strings.IndexByte("ivxlcdmIVXLCDM", t[i]) >= 0 {
				j++
			}
		default:
			return 0, ""
		}
	}
	if j >= len(t) {
		return 0, ""
	}
	switch {
	case paren && t[j] == ')':
	case !paren && (t[j] == '.' || t[j] == ')'):
	default:
		return 0, ""
	}
	j++
	if j < len(t) && t[j] != ' ' {
		return 0, ""
	}
	enum := t[:j]
	switch {
	case enum[len(enum)-2] >= '0' && enum[len(enum)-2] <= '9' && !paren && enum[len(enum)-1] == '.':
		return j, enum
	case enum == "#.":
		return j, "-"
	}
	return j, "- " + enum
}

func isRomanOrLetter(b byte) bool {
	return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')
}

// fieldLen returns the length of a field list marker (":name: ") and the
// field name.
func fieldLen(t string) (int, string) {
	if len(t) < 3 || t[0] != ':' || t[1] == ' ' || t[1] == ':' {
		return 0, ""
	}
	for j := 1; j < len(t); j++ {
		switch t[j] {
		case '\\':
			j++
		case ':':
			if j+1 == len(t) || t[j+1] == ' ' {
				if t[j-1] == ' ' {
					return 0, ""
				}
				return j + 1, t[1:j]
			}
			if t[j+1] == '`' {
				return 0, "" // a role
			}
		}
	}
	return 0, ""
}

// optionLen returns the length of an option list item's options ("-a,
// --all  description") and the options.
func optionLen(t string) (int, string) {
	if !(strings.HasPrefix(t, "-") && len(t) > 1 && t[1] != ' ' && t[1] != '-') &&
		!(strings.HasPrefix(t, "--") && len(t) > 2 && isRomanOrLetter(t[2])) &&
		!(strings.HasPrefix(t, "/") && len(t) > 1 && isRomanOrLetter(t[1])) {
		return 0, ""
	}
	if isAdornment(t) {
		return 0, ""
	}
	if k := strings.Index(t, "  "); k > 0 {
		return k, t[:k]
	}
	// Options alone on their line: only with an indented description,
	// which item finds; require the option shape.
	if strings.ContainsAny(t, " ") && !strings.Contains(t, ", ") && !strings.Contains(t, "=") {
		return 0, ""
	}
	return len(t), t
}

// lineBlock writes a line block ("| text") as a paragraph, one line each,
// converting each line's inline markup (with the lines that continue it)
// as docutils does.
func (c *converter) lineBlock(ls []srcLine, i int) int {
	var md, cur []string
	var ns, curN []int
	flush := func() {
		if len(cur) == 0 {
			return
		}
		out := strings.Split(c.inline(strings.Join(cur, "\n")), "\n")
		if len(out) != len(cur) {
			out, curN = []string{strings.Join(out, " ")}, curN[:1]
		}
		md, ns = append(md, out...), append(ns, curN...)
		cur, curN = nil, nil
	}
	j := i
	for j < len(ls) && ls[j].text != "" {
		t := ls[j].text
		if t == "|" || strings.HasPrefix(t, "| ") {
			flush()
			t = t[1:]
		}
		if t = strings.TrimSpace(t); t != "" {
			cur, curN = append(cur, t), append(curN, ls[j].n)
		}
		j++
	}
	flush()
	c.writePara(md, ns)
	return j
}

// paragraph writes the paragraph starting at ls[i], with what an
// indented block right after it means: a definition (one-line
// paragraph), a literal block (paragraph ending in "::") or a quote.
func (c *converter) paragraph(ls []srcLine, i, depth int) int {
	j := i
	for j < len(ls) && ls[j].text != "" && indentOf(ls[j].text) == 0 {
		j++
	}
	para := ls[i:j]
	literal := false
	last := para[len(para)-1].text
	if strings.HasSuffix(last, "::") && !strings.HasSuffix(last, `\::`) {
		literal = true
		trimmed := make([]srcLine, len(para))
		copy(trimmed, para)
		switch {
		case strings.TrimSpace(last) == "::":
			trimmed = trimmed[:len(trimmed)-1]
		case strings.HasSuffix(last, " ::"):
			trimmed[len(trimmed)-1].text = strings.TrimRight(last[:len(last)-2], " ")
		default:
			trimmed[len(trimmed)-1].text = last[:len(last)-1]
		}
		para = trimmed
	}
	// A one-line paragraph followed at once by indented lines is a
	// definition list item.
	if !literal && j-i == 1 && j < len(ls) && ls[j].text != "" && indentOf(ls[j].text) > 0 {
		k := indentedEnd(ls, j)
		term := ls[i].text
		if p := strings.Index(term, " : "); p > 0 {
			term = term[:p] + " (" + strings.ReplaceAll(term[p+3:], " : ", ", ") + ")"
		}
		c.writePara([]string{c.inline(term)}, []int{ls[i].n})
		c.blocks(dedent(ls[j:k]), false, depth+1)
		return k
	}
	if len(para) > 0 {
		c.writeInline(para)
	}
	if !literal {
		return j
	}
	// The literal block: the next indented block after blank lines.
	k := j
	for k < len(ls) && ls[k].text == "" {
		k++
	}
	if k < len(ls) && indentOf(ls[k].text) > 0 {
		e := indentedEnd(ls, k)
		c.codeLines(c.highlight, dedent(ls[k:e]), ls[k].n)
		return e
	}
	if k < len(ls) && isAdornChar(ls[k].text[0]) {
		// A quoted literal block: docutils takes the unindented lines
		// that start with the first one's punctuation character ("> "),
		// up to a blank line or a line that does not.
		q, e := ls[k].text[0], k
		for e < len(ls) && ls[e].text != "" && ls[e].text[0] == q {
			e++
		}
		c.codeLines(c.highlight, ls[k:e], ls[k].n)
		return e
	}
	return j
}

// writeInline converts a paragraph's inline markup and writes it.
func (c *converter) writeInline(para []srcLine) {
	var raw []string
	ns := make([]int, 0, len(para))
	for _, l := range para {
		raw = append(raw, strings.TrimSpace(l.text))
		ns = append(ns, l.n)
	}
	md := strings.Split(c.inline(strings.Join(raw, "\n")), "\n")
	if len(md) != len(ns) {
		// inline keeps newlines; be safe if it did not.
		md = []string{strings.Join(md, " ")}
		ns = ns[:1]
	}
	c.w.para(md, ns)
}

// writePara writes markdown lines as a paragraph.
func (c *converter) writePara(md []string, ns []int) {
	c.w.para(md, ns)
}

// codeLines writes lines as a fenced code block.
func (c *converter) codeLines(lang string, ls []srcLine, n int) {
	body := make([]string, len(ls))
	ns := make([]int, len(ls))
	for i, l := range ls {
		body[i], ns[i] = l.text, l.n
	}
	c.w.code(lang, body, ns, n)
}
