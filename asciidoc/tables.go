package asciidoc

import (
	"strconv"
	"strings"
)

// cell is one table cell.
type cell struct {
	text   []string // its lines
	src    int
	span   int // columns it spans
	repeat int // times it is repeated (n* specifier; 0 drops it)
	// data is set for a cell of a csv or dsv table, whose lines are all
	// text: none is an AsciiDoc cell's markup.
	data bool
}

// table writes a table as a GFM table: cells on one line each, '|'
// escaped, the first row the header when the table has one (else an
// empty header row).
func (p *parser) table(content []line, open line, prefix string, pend *blockAttrs) {
	p.title(pend, prefix)
	format, sep := tableFormat(open.text[0], pend)
	var cells []cell
	var firstLineEnd int // number of cells of the first row's line
	var implicitHeader bool
	if format == "psv" {
		cells, firstLineEnd, implicitHeader = psvCells(content, sep)
	} else {
		cells, firstLineEnd, implicitHeader = dataCells(content, format, sep)
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
		// A cell repeated 0 times (0*) is dropped, as Asciidoctor
		// drops it, with its text.
		for r := 0; r < min(c.repeat, cols); r++ {
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

// psvCells reads the cells of a table in the prefix-separated format
// (cells start at sep, "|" unless the table's separator attribute says
// otherwise, after an optional specifier: "2+|", "3*a|"). It returns
// the cells, the number of cells starting on the first line that has
// any, and whether a blank line follows that line (an implicit header).
func psvCells(content []line, sep string) ([]cell, int, bool) {
	var cells []cell
	firstLine := -1   // index of the first content line with cells
	firstLineEnd := 0 // number of cells starting on it
	implicitHeader := false
	for k, l := range content {
		t := l.text
		if strings.TrimSpace(t) == "" {
			if firstLine >= 0 && k == firstLine+1 && firstLineEnd == len(cells) {
				implicitHeader = true
			}
			if len(cells) > 0 {
				cells[len(cells)-1].text = append(cells[len(cells)-1].text, "")
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
			spec, text := cellSpec(before, !started)
			if len(cells) > 0 {
				cells[len(cells)-1].text = append(cells[len(cells)-1].text, text)
			} else if strings.TrimSpace(text) != "" {
				cells = append(cells, cell{text: []string{text}, src: l.src, span: 1, repeat: 1})
			}
			span, repeat := specCounts(spec)
			cells = append(cells, cell{src: l.src, span: span, repeat: repeat})
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
	return cells, firstLineEnd, implicitHeader
}

// cellText converts a cell's lines to one line of markdown.
func (p *parser) cellText(c cell) string {
	var parts []string
	for _, t := range c.text {
		t = strings.TrimSpace(t)
		if c.data {
			if t != "" {
				parts = append(parts, t)
			}
			continue
		}
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
// A specifier follows a space or tab, or starts the line (lineStart):
// right after the previous separator it is text ("|a|b" is two cells,
// "a" and "b").
func cellSpec(before string, lineStart bool) (spec, text string) {
	i := len(before)
	for i > 0 && strings.IndexByte("0123456789*+.<>^adehlmsv", before[i-1]) >= 0 {
		i--
	}
	if i == len(before) || (i > 0 && before[i-1] != ' ' && before[i-1] != '\t') || (i == 0 && !lineStart) {
		return "", before
	}
	cand := before[i:]
	if !validSpec(cand) {
		return "", before
	}
	return cand, before[:i]
}

// specCounts reads a cell specifier's column span (n+) and repeat (n*),
// as Asciidoctor reads them: from the number's integer part ("2.3+"
// spans 2 columns and 3 rows), 1 when it has none (".3+"), so that
// "0*" (or "00*", "0.5*") repeats a cell 0 times. Both are at most 64.
func specCounts(spec string) (span, repeat int) {
	span, repeat = 1, 1
	k := strings.IndexAny(spec, "*+")
	if k <= 0 {
		return span, repeat
	}
	num, _, _ := strings.Cut(spec[:k], ".")
	n := 1
	if num != "" {
		var err error
		if n, err = strconv.Atoi(num); err != nil {
			n = 64 // more digits than an int holds
		}
		n = min(n, 64)
	}
	if spec[k] == '*' {
		repeat = n
	} else {
		span = max(n, 1)
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

// validSpec reports whether s is a cell specifier, as Asciidoctor's
// CellSpecStartRx reads one: a repeat or span ("3*", "2+", "2.3+",
// ".3+"), an alignment ("<", "^.>", ".^", "<."), then a style letter,
// each optional but not all.
func validSpec(s string) bool {
	if s == "" {
		return false
	}
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isAlign := func(c byte) bool { return c == '<' || c == '^' || c == '>' }
	i, digits := 0, 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits > 0 && i < len(s) && (s[i] == '*' || s[i] == '+') {
		i++
	} else {
		i = 0
	}
	switch {
	case i < len(s) && isAlign(s[i]):
		i++
		if i < len(s) && s[i] == '.' {
			i++
			if i < len(s) && isAlign(s[i]) {
				i++
			}
		}
	case i+1 < len(s) && s[i] == '.' && isAlign(s[i+1]):
		i += 2
	}
	if i < len(s) && strings.IndexByte("adehlmsv", s[i]) >= 0 {
		i++
	}
	return i == len(s)
}
