package asciidoc

import (
	"strconv"
	"strings"
)

// cell is one table cell.
type cell struct {
	text    []string // its lines
	src     int
	span    int // columns it spans
	repeat  int // times it is repeated (n* specifier)
	newLine bool
}

// table writes a table as a GFM table: cells on one line each, '|'
// escaped, the first row the header when the table has one (else an
// empty header row).
func (p *parser) table(content []line, open line, prefix string, pend *blockAttrs) {
	p.title(pend, prefix)
	sep := string(open.text[0])
	if s, ok := pend.named["separator"]; ok && s != "" {
		sep = s
	}
	var cells []cell
	firstLine := -1   // index of the first content line with cells
	firstLineEnd := 0 // number of cells starting on it
	implicitHeader := false
	csv := sep == "," || sep == ":"
	for k, l := range content {
		t := l.text
		if strings.TrimSpace(t) == "" {
			if firstLine >= 0 && k == firstLine+1 && firstLineEnd == len(cells) {
				implicitHeader = true
			}
			if len(cells) > 0 && !csv {
				cells[len(cells)-1].text = append(cells[len(cells)-1].text, "")
			}
			continue
		}
		if csv {
			for n, f := range strings.Split(t, sep) {
				cells = append(cells, cell{text: []string{strings.Trim(strings.TrimSpace(f), `"`)}, src: l.src, span: 1, repeat: 1, newLine: n == 0})
			}
			if firstLine < 0 {
				firstLine, firstLineEnd = k, len(cells)
			}
			continue
		}
		rest := t
		started := false
		for {
			idx := unescapedIndex(rest, sep)
			if idx < 0 {
				break
			}
			before := rest[:idx]
			spec, text := cellSpec(before)
			if len(cells) > 0 {
				cells[len(cells)-1].text = append(cells[len(cells)-1].text, text)
			} else if strings.TrimSpace(text) != "" {
				cells = append(cells, cell{text: []string{text}, src: l.src, span: 1, repeat: 1})
			}
			span, repeat := specCounts(spec)
			cells = append(cells, cell{src: l.src, span: span, repeat: repeat, newLine: !started})
			started = true
			rest = rest[idx+len(sep):]
		}
		if len(cells) == 0 {
			cells = append(cells, cell{src: l.src, span: 1, repeat: 1})
		}
		cells[len(cells)-1].text = append(cells[len(cells)-1].text, rest)
		if firstLine < 0 && started {
			firstLine = k
			firstLineEnd = len(cells)
		}
	}
	if len(cells) == 0 {
		return
	}
	cols := columnCount(pend.named["cols"])
	if cols == 0 {
		for _, c := range cells[:max(firstLineEnd, 1)] {
			cols += c.span * c.repeat
		}
	}
	cols = max(1, min(cols, 64))
	// Rows.
	var rows [][]cell
	var row []cell
	width := 0
	for _, c := range cells {
		for r := 0; r < max(1, min(c.repeat, cols)); r++ {
			row = append(row, c)
			width += max(1, c.span)
			if width >= cols {
				rows = append(rows, row)
				row, width = nil, 0
			}
		}
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	header := (implicitHeader || pend.hasOption("header")) && !pend.hasOption("noheader")
	p.blank(prefix, open.src)
	delim := "|" + strings.Repeat(" --- |", cols)
	if !header {
		p.emit(prefix, "|"+strings.Repeat("   |", cols), open.src)
		p.emit(prefix, delim, open.src)
	}
	for r, row := range rows {
		var b strings.Builder
		b.WriteString("|")
		n := 0
		for _, c := range row {
			b.WriteString(" ")
			b.WriteString(p.cellText(c))
			b.WriteString(" |")
			n++
			for s := 1; s < c.span; s++ {
				b.WriteString("   |")
				n++
			}
		}
		for ; n < cols; n++ {
			b.WriteString("   |")
		}
		p.emit(prefix, b.String(), row[0].src)
		if r == 0 && header {
			p.emit(prefix, delim, row[0].src)
		}
	}
	p.blank(prefix, open.src)
}

// cellText converts a cell's lines to one line of markdown.
func (p *parser) cellText(c cell) string {
	var parts []string
	for _, t := range c.text {
		t = strings.TrimSpace(t)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") && isAttrLine(t) && !strings.HasPrefix(t, "[[") {
			continue // a block attribute line of an AsciiDoc cell
		}
		if t != "" && delimiter(t) == "" && !strings.HasPrefix(t, "//") {
			parts = append(parts, strings.ReplaceAll(t, `\|`, "|"))
		}
	}
	md := p.c.inlineMD(strings.Join(parts, " "), p.attrs)
	md = strings.ReplaceAll(md, "\n", " ")
	var b strings.Builder
	for i := 0; i < len(md); i++ {
		if md[i] == '\\' && i+1 < len(md) {
			b.WriteByte(md[i])
			b.WriteByte(md[i+1])
			i++
			continue
		}
		if md[i] == '|' {
			b.WriteByte('\\')
		}
		b.WriteByte(md[i])
	}
	return b.String()
}

// unescapedIndex returns the index of the first sep in s not preceded by
// a backslash, or -1.
func unescapedIndex(s, sep string) int {
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], sep)
		if k < 0 {
			return -1
		}
		k += i
		if k > 0 && s[k-1] == '\\' {
			i = k + len(sep)
			continue
		}
		return k
	}
	return -1
}

// cellSpec splits the text before a cell separator into the previous
// cell's text and the next cell's specifier ("2+", "3*", "a", ".2+^.^m").
func cellSpec(before string) (spec, text string) {
	i := len(before)
	for i > 0 && strings.IndexByte("0123456789*+.<>^adehlmsv", before[i-1]) >= 0 {
		i--
	}
	if i == len(before) || (i > 0 && before[i-1] != ' ' && before[i-1] != '\t') {
		return "", before
	}
	cand := before[i:]
	if !validSpec(cand) {
		return "", before
	}
	return cand, before[:i]
}

// specCounts reads a cell specifier's column span (n+) and repeat (n*).
func specCounts(spec string) (span, repeat int) {
	span, repeat = 1, 1
	if k := strings.IndexByte(spec, '*'); k > 0 {
		if n, err := strconv.Atoi(spec[:k]); err == nil && n > 0 {
			repeat = min(n, 64)
		}
	}
	if k := strings.IndexByte(spec, '+'); k > 0 {
		num := spec[:k]
		if d := strings.IndexByte(num, '.'); d >= 0 {
			num = num[:d]
		}
		if n, err := strconv.Atoi(num); err == nil && n > 0 {
			span = min(n, 64)
		}
	}
	return span, repeat
}

// columnCount reads a cols attribute ("3", "1,2,3", "3*", "2*,~").
func columnCount(cols string) int {
	cols = strings.TrimSpace(cols)
	if cols == "" {
		return 0
	}
	if n, err := strconv.Atoi(cols); err == nil {
		return n
	}
	total := 0
	for _, f := range strings.FieldsFunc(cols, func(r rune) bool { return r == ',' || r == ';' }) {
		if k := strings.IndexByte(f, '*'); k > 0 {
			if n, err := strconv.Atoi(strings.TrimSpace(f[:k])); err == nil {
				total += min(n, 64)
				continue
			}
		}
		total++
	}
	return total
}

// validSpec reports whether s is a cell specifier: [n*][[n][.n]+][<^>][.<^>][style].
func validSpec(s string) bool {
	if s == "" {
		return false
	}
	i := 0
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	start := i
	if digits() > 0 && i < len(s) && s[i] == '*' {
		i++
	} else {
		i = start
	}
	start = i
	digits()
	if i < len(s) && s[i] == '.' {
		i++
		digits()
	}
	if i < len(s) && s[i] == '+' {
		i++
	} else {
		i = start
	}
	if i < len(s) && strings.IndexByte("<^>", s[i]) >= 0 {
		i++
	}
	if i+1 < len(s) && s[i] == '.' && strings.IndexByte("<^>", s[i+1]) >= 0 {
		i += 2
	}
	if i < len(s) && strings.IndexByte("adehlmsv", s[i]) >= 0 {
		i++
	}
	return i == len(s)
}
