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
	rowspan int // rows it spans (0 or 1 for one)
	repeat  int // times it is repeated (n* specifier; 0 drops it)
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
	boundRepeats(cells)
	cols := columnCount(pend.named["cols"])
	slots := cols
	if cols <= 0 {
		cols, slots = firstRowColumns(cells, max(firstLineEnd, 1))
	}
	// The GFM table is at most maxColumns wide.
	width := max(1, min(slots, maxColumns))
	rows, dropped := layRows(cells, cols, slots, width)
	for _, c := range dropped {
		p.c.hide(strings.Join(c.text, "\n"))
	}
	if len(rows) == 0 {
		return
	}
	header := (implicitHeader || pend.hasOption("header")) && !pend.hasOption("noheader")
	p.blank(prefix, open.src)
	delim := "|" + strings.Repeat(" --- |", width)
	if !header {
		p.emit(prefix, "|"+strings.Repeat("   |", width), open.src)
		p.emit(prefix, delim, open.src)
	}
	for r, row := range rows {
		last := -1 // the row's last cell, which the cells past the width join
		for k, c := range row.slots {
			if c != nil {
				last = k
			}
		}
		var b strings.Builder
		b.WriteString("|")
		src := 0
		for k, c := range row.slots {
			if c == nil {
				b.WriteString("   |")
				continue
			}
			if src == 0 {
				src = c.src
			}
			b.WriteString(" ")
			b.WriteString(p.cellText(*c))
			if k == last {
				for _, m := range row.more {
					b.WriteString(" ")
					b.WriteString(p.cellText(*m))
				}
			}
			b.WriteString(" |")
		}
		p.emit(prefix, b.String(), src)
		if r == 0 && header {
			p.emit(prefix, delim, src)
		}
	}
	p.blank(prefix, open.src)
}

// maxColumns bounds the width of the GFM tables written, which keeps
// their size in proportion to the table's text however its cells span.
const maxColumns = 64

// firstRowColumns returns the number of columns of a table without a
// cols attribute, as Asciidoctor 2.0.18 counts them from its first row
// (Table::ParserContext#close_cell): cols, those the row's cells span,
// which later rows must span to end; and slots, the columns it makes,
// one for each cell and one more for each column past its first that
// a cell spans, which bound the cells a later row may have. The two
// differ for a cell spanning 0 columns ("0+|"), which spans none but
// makes one (its HTML colspan="0" a browser reads as 1). That row ends
// with the cells of the first line (the first lineEnd cells), the last
// one repeated as its n* says; but a cell repeated 0 times (0*) ends no
// row, so when the line's last cell is one, the row runs on to the
// first repetition of the next cell repeated at all.
func firstRowColumns(cells []cell, lineEnd int) (cols, slots int) {
	for i, c := range cells {
		n := c.repeat
		switch {
		case i < lineEnd-1 || i == lineEnd-1 && c.repeat == 0:
		case i == lineEnd-1:
		case c.repeat > 0:
			n = 1
		default:
			continue
		}
		cols += c.span * n
		slots += max(1, c.span) * n
		if i >= lineEnd-1 && n > 0 {
			break
		}
	}
	return cols, slots
}

// tableRow is a row of a table as written: its cells at the columns
// they start (nil for the others), and the cells that start past the
// width written, in order.
type tableRow struct {
	slots []*cell
	more  []*cell
}

// layRows lays a table's cells out in rows of cols columns, as
// Asciidoctor 2.0.18 does (Table::ParserContext#close_cell): each cell,
// repeated as its n* says, is added to the current row, which ends when
// the columns its cells span and those spanned by cells of rows above
// (n.m+, a rowspan) make cols; a cell that would be the row's
// slots+1-th is dropped (a row whose spans overshoot cols never ends),
// and so are the cells of the row left unfinished when the cells run
// out. A cell spanning 0 columns ("0+|") spans none of cols, and none
// in the rows below when it spans rows, but shows in one, as a browser
// shows its colspan="0". A cell stands at the first column no cell of a
// row above spans and no cell before it in the row takes; the rows
// returned are width (at most slots) columns wide, those past it in
// more. It also returns the cells dropped, which the page does not
// show.
func layRows(cells []cell, cols, slots, width int) (rows []tableRow, dropped []*cell) {
	// active[k] is the number of columns that cells of rows above span
	// in the k-th row from the current one (Asciidoctor's
	// @active_rowspans); below[c] is the number of rows from the current
	// one that a cell of a row above spans column c in, and more[c] the
	// number of rows after the current one that its cell spans it in.
	active := []int{0}
	below, more := make([]int, width), make([]int, width)
	row := tableRow{slots: make([]*cell, width)}
	taken := make([]bool, width) // by a cell of the current row
	n, visits := 0, 0            // cells in the row, columns they span
	for i := range cells {
		c := &cells[i]
		// A cell repeated 0 times (0*) is dropped, as Asciidoctor
		// drops it, with its text.
		for range c.repeat {
			if n >= slots {
				dropped = append(dropped, c)
				continue
			}
			n++
			span, rowspan := c.span, max(1, c.rowspan)
			for k := 1; k < rowspan; k++ {
				if k == len(active) {
					active = append(active, 0)
				}
				active[k] += span
			}
			visits += span
			// Its place: the first column free in this row.
			at := 0
			for at < width && (taken[at] || below[at] > 0) {
				at++
			}
			for k := at; k < min(at+max(1, span), width); k++ {
				taken[k], more[k] = true, rowspan-1
			}
			if at < width {
				row.slots[at] = c
			} else {
				row.more = append(row.more, c)
			}
			if visits+active[0] != cols {
				continue
			}
			rows = append(rows, row)
			for k := range width {
				below[k] = max(below[k]-1, more[k])
				taken[k], more[k] = false, 0
			}
			row = tableRow{slots: make([]*cell, width)}
			n, visits = 0, 0
			if active = active[1:]; len(active) == 0 {
				active = append(active, 0)
			}
		}
	}
	if n > 0 {
		for _, c := range row.slots {
			if c != nil {
				dropped = append(dropped, c)
			}
		}
		dropped = append(dropped, row.more...)
	}
	return rows, dropped
}

// boundRepeats bounds what a table's n* repeats add: when its cells
// with their copies are more than four times its cells (and 256), every
// cell stands once. The page shows every copy, but a page of 64*| cells
// was 64 times its size in our text (a 360 KB page made 20 MB and a
// minute's work), and the copies add nothing a reader needs; a cell
// repeated 0 times stays dropped.
func boundRepeats(cells []cell) {
	total := 0
	for _, c := range cells {
		total += c.repeat
	}
	if total <= 4*len(cells)+256 {
		return
	}
	for i := range cells {
		cells[i].repeat = min(cells[i].repeat, 1)
	}
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
			span, rowspan, repeat := specCounts(spec)
			cells = append(cells, cell{src: l.src, span: span, rowspan: rowspan, repeat: repeat})
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

// specCounts reads a cell specifier's column span and row span (n.m+)
// and repeat (n*), as Asciidoctor reads them: from the number's integer
// parts ("2.3+" spans 2 columns and 3 rows), 1 when one is missing
// (".3+", "2+"), so that "0*" (or "00*", "0.5*") repeats a cell 0
// times and "0+" spans 0 columns (layRows); a row span of 0 is
// Asciidoctor's 1 (it activates no row span). Each is at most 64.
func specCounts(spec string) (span, rowspan, repeat int) {
	span, rowspan, repeat = 1, 1, 1
	k := strings.IndexAny(spec, "*+")
	if k <= 0 {
		return span, rowspan, repeat
	}
	count := func(num string) int {
		if num == "" {
			return 1
		}
		n, err := strconv.Atoi(num)
		if err != nil {
			n = 64 // more digits than an int holds
		}
		return min(n, 64)
	}
	cs, rs, _ := strings.Cut(spec[:k], ".")
	if spec[k] == '*' {
		repeat = count(cs)
	} else {
		span, rowspan = count(cs), max(count(rs), 1)
	}
	return span, rowspan, repeat
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
