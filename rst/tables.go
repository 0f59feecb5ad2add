package rst

import (
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
