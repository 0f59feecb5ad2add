package asciidoc

import "strings"

// tableFormat returns a table's format ("psv", "csv" or "dsv"; tsv is
// csv split at tabs) and its cell separator, as Asciidoctor chooses
// them: the format attribute, else the delimiter line's first character
// ("," csv, ":" dsv, else psv); the separator attribute ("\t" for a
// tab), else the format's: ",", ":", a tab, or for psv the delimiter's
// character. That is "|", or "!" for a "!===" table, which Asciidoctor
// splits at "!" inside an AsciiDoc cell (a nested document) only, and at
// "|" elsewhere; the reader splits it at "!" wherever it is, as its
// author means.
func tableFormat(delim byte, pend *blockAttrs) (format, sep string) {
	switch delim {
	case ',':
		format, sep = "csv", ","
	case ':':
		format, sep = "dsv", ":"
	default:
		format, sep = "psv", string(delim)
	}
	switch pend.named["format"] {
	case "psv":
		format, sep = "psv", "|"
		if delim == '!' {
			sep = "!"
		}
	case "csv":
		format, sep = "csv", ","
	case "dsv":
		format, sep = "dsv", ":"
	case "tsv":
		format, sep = "csv", "\t"
	}
	switch s := pend.named["separator"]; s {
	case "":
	case `\t`:
		sep = "\t"
	default:
		sep = s
	}
	return format, sep
}

// dataCells reads the cells of a csv or dsv table as Asciidoctor does.
// A line's cells end at each sep and at its end (a sep at its end ends
// one more, empty, cell); their text is trimmed. In csv a cell that
// starts with a double quote runs on, past separators and line ends,
// until the quote closes; its quotes are then removed and doubled ones
// ("") read as one. In dsv a separator escaped with a backslash is text.
// Comment lines are skipped, and blank lines too outside a quoted cell.
// The cost is linear in the content's size.
//
// It returns the cells, the number of cells of the first line (which
// make the first row when the table has no cols attribute) and whether
// that line is followed by a blank line (an implicit header: Asciidoctor
// takes one only when the table starts with that line and it ends no
// quoted cell).
func dataCells(content []line, format, sep string) ([]cell, int, bool) {
	var cells []cell
	var buf cellBuffer
	open := false // a cell runs on past the end of the line before
	src := 0      // the line the open cell started on
	firstEnd := -1
	header := false
	unclosed := func() bool { return format == "csv" && buf.unclosedQuote() }
	closeCell := func(eol bool) {
		text := strings.TrimSpace(buf.b.String())
		buf = cellBuffer{}
		open = false
		if format == "csv" {
			text = unquoteCSV(text)
		}
		cells = append(cells, cell{text: strings.Split(text, "\n"), src: src, span: 1, repeat: 1, data: true})
		if eol && firstEnd < 0 {
			firstEnd = len(cells)
		}
	}
	k := -1 // index of the line among those not comments
	for _, l := range content {
		t := l.text
		if strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "///") {
			continue
		}
		k++
		if strings.TrimSpace(t) == "" {
			if k == 1 && firstEnd == len(cells) && !open && buf.b.Len() == 0 {
				header = true
			}
			if open {
				buf.add("\n")
				if format == "dsv" {
					closeCell(true)
				}
			}
			continue
		}
		if !open && buf.b.Len() == 0 {
			src = l.src
		}
		rest := t
		for {
			i := strings.Index(rest, sep)
			if i < 0 {
				buf.add(rest)
				buf.add("\n")
				if unclosed() {
					open = true
				} else {
					closeCell(true)
				}
				break
			}
			pre, post := rest[:i], rest[i+len(sep):]
			switch {
			case format == "dsv" && strings.HasSuffix(pre, `\`):
				buf.add(pre[:len(pre)-1])
				buf.add(sep)
				if post == "" {
					buf.add("\n")
					open = true
				}
			default:
				buf.add(pre)
				if unclosed() {
					buf.add(sep)
					break
				}
				closeCell(false)
				src = l.src
				if post == "" {
					closeCell(true) // the empty cell after a final sep
				}
			}
			if post == "" {
				break
			}
			rest = post
		}
	}
	if open || buf.nonSpace > 0 {
		closeCell(true)
	}
	return cells, max(firstEnd, 0), header
}

// cellBuffer holds the text of the csv or dsv cell being read, and what
// Asciidoctor's check for an unclosed quote reads of it (the run of
// quotes it starts with and the one it ends with, spaces at either end
// aside), kept as text is added so that the check costs nothing however
// long the cell grows.
type cellBuffer struct {
	b        strings.Builder
	nonSpace int  // bytes other than spaces
	lead     int  // quotes in the run the text starts with
	leadDone bool // a byte other than a quote followed that run
	tail     int  // quotes in the run the text ends with
	space    bool // a space followed the last byte other than a space
}

// add appends s to the cell's text.
func (c *cellBuffer) add(s string) {
	c.b.WriteString(s)
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == ' ' || ch >= '\t' && ch <= '\r':
			if c.nonSpace > 0 {
				c.space, c.leadDone = true, true
			}
			continue
		case ch == '"':
			if !c.leadDone {
				c.lead++
			}
			if c.tail > 0 && !c.space {
				c.tail++
			} else {
				c.tail = 1
			}
		default:
			c.leadDone = true
			c.tail = 0
		}
		c.nonSpace++
		c.space = false
	}
}

// unclosedQuote reports whether the cell's text, trimmed, starts a
// quoted cell that has not ended: it starts with a double quote and,
// doubled quotes aside, does not end with one. Asciidoctor removes every
// "" from the text to tell, when the text starts or ends with one; that
// leaves a quote at the start when the run there is odd, at the end when
// the run there is.
func (c *cellBuffer) unclosedQuote() bool {
	allQuotes := c.nonSpace > 0 && c.lead == c.nonSpace
	switch {
	case allQuotes && c.lead == 1:
		return true // a lone quote
	case c.lead == 0:
		return false
	case c.tail >= 2 || c.lead >= 2:
		return !allQuotes && c.lead%2 == 1 && c.tail%2 == 0
	}
	return c.tail == 0
}

// unquoteCSV returns a csv cell's text without its quotes: a quoted
// cell's outer quotes and the spaces inside them removed, and in any cell
// each run of quotes read as one (Asciidoctor's approximation of
// doubled quotes, which it says hits the 99%).
func unquoteCSV(s string) string {
	if !strings.Contains(s, `"`) {
		return s
	}
	if s == `"` {
		return "" // a quote left unclosed by the table's end
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '"' && i > 0 && s[i-1] == '"' {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
