package rst

import (
	"slices"
	"strings"
)

// isGridBorder reports whether t is a grid table border ("+---+===+").
func isGridBorder(t string) bool {
	if len(t) < 3 || t[0] != '+' || t[len(t)-1] != '+' || (t[1] != '-' && t[1] != '=') {
		return false
	}
	return strings.Trim(t, "+-=") == ""
}

// gridTable writes the grid table starting at ls[i] one row a line, its
// cells separated by " | ", and returns the index after it, or i when
// there is no table.
func (c *converter) gridTable(ls []srcLine, i int) int {
	j := i + 1
	for j < len(ls) && ls[j].text != "" && (ls[j].text[0] == '+' || ls[j].text[0] == '|') {
		j++
	}
	if j-i < 3 || !isGridBorder(ls[j-1].text) {
		return i
	}
	border := ls[i].text
	var cols []int
	for k := 0; k < len(border); k++ {
		if border[k] == '+' {
			cols = append(cols, k)
		}
	}
	var md []string
	var ns []int
	var cells []string
	rowLine := 0
	flush := func() {
		var parts []string
		for _, cell := range cells {
			if t := strings.TrimSpace(cell); t != "" {
				parts = append(parts, c.inline(t))
			}
		}
		if len(parts) > 0 {
			md = append(md, strings.Join(parts, " | "))
			ns = append(ns, rowLine)
		}
		cells = nil
	}
	for k := i + 1; k < j-1; k++ {
		t := ls[k].text
		if isGridBorder(t) || (t[0] == '+' && strings.Trim(t, "+-=| ") == "") {
			flush()
			continue
		}
		if cells == nil {
			cells = make([]string, len(cols))
			rowLine = ls[k].n
		}
		// A cell starts at a column boundary holding '|' and runs to the
		// next one: cells spanning columns stay whole.
		ci := 0
		for ci < len(cols) {
			a := cols[ci]
			if a >= len(t) {
				break
			}
			next := ci + 1
			for next < len(cols) && (cols[next] >= len(t) || t[cols[next]] != '|') {
				next++
			}
			b := len(t)
			if next < len(cols) {
				b = cols[next]
			}
			if seg := strings.Trim(t[a:b], "|+ "); seg != "" {
				cells[ci] += " " + seg
			}
			ci = next
		}
	}
	flush()
	c.w.para(md, ns)
	return j
}

// isSimpleBorder reports whether t is a simple table border: runs of '='
// separated by spaces, at least two of them.
func isSimpleBorder(t string) bool {
	if !strings.HasPrefix(t, "=") || strings.Trim(t, "= ") != "" {
		return false
	}
	return len(strings.Fields(t)) >= 2
}

// simpleTable writes the simple table starting at ls[i] one row a line
// and returns the index after it, or i when there is none: a table ends
// with a border followed by a blank line or the end. *noClose is where a
// failed search stopped: starts before it fail too, so hostile input
// stays linear.
func (c *converter) simpleTable(ls []srcLine, i int, noClose *int) int {
	if i < *noClose {
		return i
	}
	end := -1
	k := i + 1
	for ; k < len(ls); k++ {
		t := ls[k].text
		if isSimpleBorder(t) && (k+1 == len(ls) || ls[k+1].text == "") {
			end = k
			break
		}
	}
	if end < 0 {
		*noClose = k
		return i
	}
	border := ls[i].text
	var starts []int
	for k := 0; k < len(border); k++ {
		if border[k] == '=' && (k == 0 || border[k-1] == ' ') {
			starts = append(starts, k)
		}
	}
	var rows [][]string
	var ns []int
	for k := i + 1; k < end; k++ {
		t := ls[k].text
		if t == "" || isSimpleBorder(t) || strings.Trim(t, "- ") == "" {
			continue
		}
		for _, a := range starts[1:] {
			if a-1 < len(t) && t[a-1] != ' ' {
				// Text crosses a column gap: not a simple table.
				*noClose = end
				return i
			}
		}
		cells := make([]string, len(starts))
		for ci, a := range starts {
			b := len(t)
			if ci+1 < len(starts) {
				b = min(starts[ci+1], len(t))
			}
			if a < b {
				cells[ci] = strings.TrimSpace(t[a:b])
			}
		}
		if cells[0] == "" && len(rows) > 0 {
			// A continuation line of the previous row.
			prev := rows[len(rows)-1]
			for ci, cell := range cells {
				if cell != "" {
					prev[ci] = strings.TrimSpace(prev[ci] + " " + cell)
				}
			}
			continue
		}
		rows = append(rows, cells)
		ns = append(ns, ls[k].n)
	}
	var md []string
	for _, r := range rows {
		var parts []string
		for _, cell := range r {
			if cell != "" {
				parts = append(parts, c.inline(cell))
			}
		}
		md = append(md, strings.Join(parts, " | "))
	}
	c.w.para(md, ns)
	return end + 1
}

// listTable writes a list-table. docutils reads its body as a two-level
// bullet list: each item of the outer list is a row, each item of the
// row's list a cell, and an item with nothing after its bullet ("* -",
// "-") an empty cell. A row whose cells are each one paragraph or empty
// is written as grid tables' rows are, on a line of its own, the cells
// that hold text separated by " | "; a row with a cell that holds more (a
// code block, a list) has its cells written as list items, one after the
// other. A body that is no such list, which docutils refuses, is read as
// blocks.
func (c *converter) listTable(d *directive, depth int) {
	c.titled(d)
	rows, ok := bulletItems(d.body)
	cells := make([][]listItem, len(rows))
	for i, r := range rows {
		if cells[i], ok = bulletItems(r.body); !ok {
			break
		}
	}
	if !ok {
		c.blocks(d.body, false, depth+1)
		return
	}
	var md []string
	var ns []int
	for i, r := range rows {
		if !slices.ContainsFunc(cells[i], func(cell listItem) bool { return !paragraphOnly(cell.body) }) {
			var parts []string
			for _, cell := range cells[i] {
				if len(cell.body) > 0 {
					parts = append(parts, c.inline(joinTrimmed(cell.body)))
				}
			}
			if len(parts) > 0 {
				md = append(md, strings.Join(parts, " | "))
				ns = append(ns, r.n)
			}
			continue
		}
		c.w.para(md, ns)
		md, ns = nil, nil
		for _, cell := range cells[i] {
			c.w.setMarker("- ", cell.n)
			c.blocks(cell.body, false, depth+1)
			c.w.endItem()
		}
	}
	c.w.para(md, ns)
}

// listItem is one item of a bullet list: its body, read as item reads a
// bullet item's, and the line of its bullet.
type listItem struct {
	body []srcLine
	n    int
}

// bulletItems returns the items of lines that are one bullet list and
// nothing else (blank lines aside), or false: docutils starts a new list
// at a different bullet character.
func bulletItems(ls []srcLine) ([]listItem, bool) {
	var items []listItem
	bullet := ""
	for i := 0; i < len(ls); {
		t := ls[i].text
		if t == "" {
			i++
			continue
		}
		n := bulletLen(t)
		if n == 0 || (bullet != "" && strings.TrimSpace(t[:n]) != bullet) {
			return nil, false
		}
		bullet = strings.TrimSpace(t[:n])
		body, j := itemBody(ls, i, n, true)
		items = append(items, listItem{body: body, n: ls[i].n})
		i = j
	}
	return items, len(items) > 0
}

// paragraphOnly reports whether lines are one paragraph or nothing: no
// blank or indented line, no line ending in "::", and a first line that
// starts no other block (a list, explicit markup, a table...). An option
// without a description ("-1", "--verbose") is a paragraph to docutils.
func paragraphOnly(ls []srcLine) bool {
	for _, l := range ls {
		if l.text == "" || indentOf(l.text) > 0 {
			return false
		}
	}
	if len(ls) == 0 {
		return true
	}
	t := ls[0].text
	if strings.HasSuffix(ls[len(ls)-1].text, "::") || t == ".." || strings.HasPrefix(t, ".. ") ||
		t == "__" || strings.HasPrefix(t, "__ ") || strings.HasPrefix(t, ">>>") || t == "|" || strings.HasPrefix(t, "| ") ||
		(isAdornment(t) && len(t) >= 4) || isGridBorder(t) || isSimpleBorder(t) || bulletLen(t) > 0 {
		return false
	}
	if n, _ := enumLen(t); n > 0 {
		return false
	}
	if n, _ := fieldLen(t); n > 0 {
		return false
	}
	n, _ := optionLen(t)
	return n == 0 || n == len(t)
}

// joinTrimmed joins lines' text, trimmed, with spaces.
func joinTrimmed(ls []srcLine) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = strings.TrimSpace(l.text)
	}
	return strings.Join(parts, " ")
}
