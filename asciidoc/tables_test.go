package asciidoc

import (
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
	"github.com/google/go-cmp/cmp"
)

// tableRows returns the lines of the GFM tables generated for src, and
// checks that the Document keeps src's words (but those of cells the
// site drops).
func tableRows(t *testing.T, src string) []string {
	t.Helper()
	_, md, _, err := toMarkdown("doc.adoc", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, c, err := split("doc.adoc", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkWords(t, "doc.adoc", []byte(src), doc, c.hidden)
	var rows []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "|") {
			rows = append(rows, l)
		}
	}
	return rows
}

// TestDataTables checks csv, tsv and dsv tables against the HTML
// Asciidoctor 2.0.18 makes of them: the format attribute or the
// delimiter line (",===", ":===") chooses the format, csv cells follow
// its quoting rules ("a, b" is one cell, "" in quotes is a quote, a
// quoted cell may span lines), dsv cells are split at ':' unless
// escaped, and a blank line after the first line makes it the header.
func TestDataTables(t *testing.T) {
	const empty3, delim3 = "|   |   |   |", "| --- | --- | --- |"
	const empty2, delim2 = "|   |   |", "| --- | --- |"
	tests := []struct {
		name, src string
		want      []string
	}{
		{"csv format", "[format=csv]\n|===\nName,\"Quote, with comma\",x\n\"multi\nline\",b\"\"c,\"say \"\"hi\"\"\"\n|===\n",
			[]string{empty3, delim3, `| Name | Quote, with comma | x |`, `| multi line | b"c | say "hi" |`}},
		{"csv delimiter, empty last cell, rows by count", ",===\na,b,\nc,d\ne\n,===\n",
			[]string{empty3, delim3, "| a | b |  |", "| c | d | e |"}},
		{"csv implicit header, pipe in a cell", "[format=csv]\n|===\nh1,h2\n\n\"a|b\", c\n\"d\" , \"e , f\"\n|===\n",
			[]string{"| h1 | h2 |", delim2, `| a\|b | c |`, "| d | e , f |"}},
		{"csv separator", "[format=csv,separator=;]\n|===\na;\"b;c\"\n|===\n",
			[]string{empty2, delim2, "| a | b;c |"}},
		{"csv unclosed quote", "[format=csv]\n|===\n\"unclosed,x\ny,z\n|===\n",
			[]string{"|   |", "| --- |", `| "unclosed,x y,z |`}},
		{"csv cols", "[cols=2,format=csv]\n|===\na,b,c,d\n|===\n",
			[]string{empty2, delim2, "| a | b |", "| c | d |"}},
		{"tsv", "[format=tsv]\n|===\na\tb\nc\td\n|===\n",
			[]string{empty2, delim2, "| a | b |", "| c | d |"}},
		{"dsv delimiter, escaped colon, header", ":===\nh:i\n\nj\\:k:l\n:===\n",
			[]string{"| h | i |", delim2, "| j:k | l |"}},
		{"dsv format", "[format=dsv]\n|===\na:b\n|===\n",
			[]string{empty2, delim2, "| a | b |"}},
		{"dsv brackets are text", ":===\n[1,2]:x\n:===\n",
			[]string{empty2, delim2, "| [1,2] | x |"}},
		{"psv format on a csv delimiter", "[format=psv]\n,===\n|a|b\n,===\n",
			[]string{empty2, delim2, "| a | b |"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tableRows(t, tt.src)); diff != "" {
				t.Errorf("rows of %q (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

// TestCellSpecifiers checks cell specifiers against Asciidoctor 2.0.18:
// one that repeats a cell (n*) repeats it n times, and drops a cell
// repeated 0 times (0*, 00*, 0.5*), which takes no column either; a
// style letter right after a separator is the cell's text, not its
// style.
func TestCellSpecifiers(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"repeat", "|===\n|a 3*|b\n|===\n",
			[]string{"|   |   |   |   |", "| --- | --- | --- | --- |", "| a | b | b | b |"}},
		{"zero", "|===\n|a 0*|hidden b |c\n|d |e\n|===\n",
			[]string{"|   |   |", "| --- | --- |", "| a | c |", "| d | e |"}},
		{"zero with cols", "[cols=2]\n|===\n|a 00*|bb 0*|cc |c\n|d 0*a|xx\nyy\n|e\n|===\n",
			[]string{"|   |   |", "| --- | --- |", "| a | c |", "| d | e |"}},
		{"zero with a fraction", "|===\n|a 0.5*|b |c\n|===\n",
			[]string{"|   |   |", "| --- | --- |", "| a | c |"}},
		{"fraction repeats its integer part", "|===\n|a 2.5*|b\n|===\n",
			[]string{"|   |   |   |", "| --- | --- | --- |", "| a | b | b |"}},
		{"letters after separators", "|===\n|a|b|s\n|===\n",
			[]string{"|   |   |   |", "| --- | --- | --- |", "| a | b | s |"}},
		{"style at the line start", "|===\n|x\na|y\n|===\n",
			[]string{"|   |", "| --- |", "| x |", "| y |"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tableRows(t, tt.src)); diff != "" {
				t.Errorf("rows of %q (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

// TestRepeatsBounded checks that n* repeats are written as Asciidoctor
// shows them while they add less than four times the cells (and 256),
// and past that each cell once: a page of 64*| cells was 64 times its
// size in our text. No cell's text is lost either way.
func TestRepeatsBounded(t *testing.T) {
	few := tableRows(t, "[cols=2]\n|===\n"+strings.Repeat("64*|a\n", 2)+"|===\n")
	if len(few) != 2+64 || few[2] != "| a | a |" {
		t.Errorf("a small table's 2×64 copies: %d rows (%q…), want 66, every copy written", len(few), few[:min(3, len(few))])
	}
	many := tableRows(t, "[cols=2]\n|===\n"+strings.Repeat("64*|a\n|b\n", 100)+"|===\n")
	if len(many) != 2+100 || many[2] != "| a | b |" {
		t.Errorf("100 cells of 64 copies: %d rows (%q…), want 102, each cell once", len(many), many[:min(3, len(many))])
	}
}

// unclosedQuoteRule is Asciidoctor's check for an unclosed quote in a
// csv cell, stated on the whole text: cellBuffer keeps its answer as
// text is added.
func unclosedQuoteRule(s string) bool {
	s = strings.Trim(s, " \t\n\v\f\r")
	switch {
	case s == `"`:
		return true
	case !strings.HasPrefix(s, `"`):
		return false
	case strings.HasSuffix(s, `""`) || strings.HasPrefix(s, `""`):
		s = strings.ReplaceAll(s, `""`, "")
		return strings.HasPrefix(s, `"`) && !strings.HasSuffix(s, `"`)
	}
	return !strings.HasSuffix(s, `"`)
}

// TestUnclosedQuote checks cellBuffer's check for an unclosed quote
// against the rule on every text of up to six bytes of quotes, spaces
// and letters, added in two pieces.
func TestUnclosedQuote(t *testing.T) {
	const alphabet = `" a`
	var texts []string
	var gen func(prefix string)
	gen = func(prefix string) {
		texts = append(texts, prefix)
		if len(prefix) < 6 {
			for i := 0; i < len(alphabet); i++ {
				gen(prefix + alphabet[i:i+1])
			}
		}
	}
	gen("")
	for _, s := range texts {
		for cut := 0; cut <= len(s); cut++ {
			var c cellBuffer
			c.add(s[:cut])
			c.add(s[cut:])
			if got, want := c.unclosedQuote(), unclosedQuoteRule(s); got != want {
				t.Errorf("unclosedQuote(%q added at %d) = %v, want %v", s, cut, got, want)
			}
		}
	}
}

// TestTableRows checks how cells make rows against Asciidoctor 2.0.18,
// which ends a row when the columns its cells span, and those cells of
// rows above span (n.m+), make the table's: the cells of a last row
// left unfinished are dropped, silently, and so are a row's cells past
// its column count (a row whose spans overshoot it never ends); a cell
// stands at the first column no cell above spans, and a line ending in
// a cell repeated 0 times does not end the first row. A cell spanning 0
// columns ("0+|") counts none toward a row's end (Asciidoctor adds its
// colspan, 0, to the row's column visits) but one toward the cells a
// row may hold (the columns the first row made).
func TestTableRows(t *testing.T) {
	const empty2, delim2 = "|   |   |", "| --- | --- |"
	const empty3, delim3 = "|   |   |   |", "| --- | --- | --- |"
	tests := []struct {
		name, src string
		want      []string
	}{
		{"unfinished last row", "|===\n|a |b |c\n|d |e\n|===\n",
			[]string{empty3, delim3, "| a | b | c |"}},
		{"unfinished with cols", "[cols=3]\n|===\n|a |b |c |d\n|===\n",
			[]string{empty3, delim3, "| a | b | c |"}},
		{"unfinished csv", "[format=csv]\n|===\na,b\nc\n|===\n",
			[]string{empty2, delim2, "| a | b |"}},
		{"unfinished header only", "[%header,cols=3]\n|===\n|a |b\n|===\n", nil},
		{"rowspan", "|===\n|a .2+|b\n|c\n|d |e\n|===\n",
			[]string{empty2, delim2, "| a | b |", "| c |   |", "| d | e |"}},
		{"rowspan in the first column", "|===\n.2+|a |b\n|c\n|===\n",
			[]string{empty2, delim2, "| a | b |", "|   | c |"}},
		{"rowspan and colspan", "|===\n|a 2.2+|b\n|c\n|d |e |f\n|===\n",
			[]string{empty3, delim3, "| a | b |   |", "| c |   |   |", "| d | e | f |"}},
		{"overshooting span", "|===\n|a |b\n3+|c\n|d |e\n|===\n",
			[]string{empty2, delim2, "| a | b |"}},
		{"zero repeat ends the first line", "|===\n|a 0*|b\n|c\n|d |e\n|===\n",
			[]string{empty2, delim2, "| a | c |", "| d | e |"}},
		{"repeat past the column count", "[cols=2]\n|===\n|a 3*|b\n|===\n",
			[]string{empty2, delim2, "| a | b |", "| b | b |"}},
		// A cell spanning 0 columns spans none of the row's count, but
		// takes a column of the first row, which bounds the cells of
		// the others, and shows in one (colspan="0" reads as 1).
		{"colspan 0 in the first row", "|===\n|a 0+|b |c\n|d |e\n|f |g\n|===\n",
			[]string{empty3, delim3, "| a | b | c |", "| d | e |   |", "| f | g |   |"}},
		{"colspan 0 past the column count", "|===\n|a |b |c\n0+|d |e |f |g\n|h |i |j\n|===\n",
			[]string{empty3, delim3, "| a | b | c |"}},
		{"colspan 0 with cols", "[cols=3]\n|===\n|a 0+|b |c\n|d |e |f\n|===\n", nil},
		{"colspan 0 alone", "|===\n0+|x\n|y\n|z\n|===\n",
			[]string{"|   |", "| --- |", "| x |"}},
		{"colspan and rowspan 0", "|===\n|a |b |c\n|d 0.2+|e |f\n|g |h |i\n|===\n",
			[]string{empty3, delim3, "| a | b | c |"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tableRows(t, tt.src)); diff != "" {
				t.Errorf("rows of %q (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}
