package asciidoc

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/codex7/codex7/markdown"
)

// lostWords returns the words of src's text that reach no section's
// prose, code or title, nor hidden (the text the converter dropped as
// the site does: converter.hidden). Words are runs of letters and
// digits of the lines that hold text: markup-only lines (attribute
// entries and lists, comments, directives, block macros, delimiters,
// anchors, the header's author and revision lines) are not counted, nor
// are words inside comment blocks, passthrough markup or bracketed
// macro attributes, which the published site does not show either.
func lostWords(src []byte, doc *markdown.Document, hidden []string) []string {
	var hay strings.Builder
	add := func(s string) {
		hay.WriteString(strings.ToLower(s))
		hay.WriteByte(' ')
	}
	for _, h := range hidden {
		add(h)
	}
	add(doc.Title)
	add(doc.Description)
	for _, s := range doc.Sections {
		add(s.Prose)
		add(s.Title)
		add(s.Text)
		for _, c := range s.Code {
			add(c.Code)
		}
	}
	all := hay.String()
	var lost []string
	comment := false
	dropCell := false // in the text of a cell repeated 0 times
	header := -1      // lines left in the header's author and revision lines
	for n, l := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "////") && strings.Trim(t, "/") == "" {
			comment = !comment
			continue
		}
		if header < 0 && (strings.HasPrefix(t, "= ") || strings.HasPrefix(t, "# ")) {
			header = 2
		} else if header > 0 {
			if t == "" {
				header = 0
			} else if textLine(t) {
				header--
				continue
			}
		} else if t != "" && !strings.HasPrefix(t, ":") && !strings.HasPrefix(t, "//") {
			header = 0
		}
		_ = n
		if dropCell {
			if k := strings.IndexByte(t, '|'); k >= 0 {
				t, dropCell = t[k:], false
			} else {
				continue
			}
		}
		t, dropCell = dropZeroCells(t)
		if comment || !textLine(t) {
			continue
		}
		for _, w := range words(stripMarkup(t)) {
			// One-letter words are often markup: table cell styles (a|),
			// list markers (a.), spans (2+|).
			if len(w) > 1 && !strings.Contains(all, w) {
				lost = append(lost, w)
			}
		}
	}
	return lost
}

// textLine reports whether a source line holds text the site shows.
func textLine(t string) bool {
	switch {
	case t == "", strings.HasPrefix(t, "//"), strings.HasPrefix(t, ":"),
		strings.HasPrefix(t, "["), strings.HasPrefix(t, "include::"),
		strings.HasPrefix(t, "if"), strings.HasPrefix(t, "endif::"),
		strings.HasPrefix(t, "<"), strings.Contains(t, "::") && strings.HasSuffix(t, "]"),
		strings.HasPrefix(t, "\\"), strings.HasPrefix(t, "|==="),
		strings.HasPrefix(t, "```"): // a fence's language is an attribute
		return false
	}
	return true
}

// cellSpecRx matches a table cell's specifier before its '|':
// duplication (2*, or 0*, which drops the cell), span (2+, 2.3+, .3+),
// alignment and style ("00*a|", "2+^.>m|"): markup, not words.
var cellSpecRx = regexp.MustCompile(`(^|\s)((\d+(\.\d*)?|(\d*\.)?\d+)\*)?((\d+(\.\d*)?|(\d*\.)?\d+)\+)?[<^>]?(\.[<^>])?[a-z]?\|`)

// zeroSpecRx matches the specifier of a cell repeated 0 times ("0*|",
// "00*a|", "0.5*|"), which the site drops with its text.
var zeroSpecRx = regexp.MustCompile(`(^|[ \t])0+(\.\d*)?\*([<^>](\.[<^>]?)?|([<^>]?\.)?[<^>])?[a-z]?\|`)

// specRx matches a whole cell specifier, as Asciidoctor's
// CellSpecStartRx reads one.
var specRx = regexp.MustCompile(`^((\d+(\.\d*)?|(\d*\.)?\d+)[*+])?([<^>](\.[<^>]?)?|([<^>]?\.)?[<^>])?[a-z]?$`)

// dropZeroCells removes from a table line the text of the cells
// repeated 0 times, and reports whether the last one's text runs on
// past the line.
func dropZeroCells(t string) (string, bool) {
	for {
		loc := zeroSpecRx.FindStringIndex(t)
		if loc == nil {
			return t, false
		}
		end := strings.IndexByte(t[loc[1]:], '|')
		if end < 0 {
			return t[:loc[0]], true
		}
		// The last word before the next '|' may be its specifier.
		text := t[loc[1] : loc[1]+end]
		spec := ""
		if k := strings.LastIndexAny(text, " \t"); k >= 0 && specRx.MatchString(text[k+1:]) {
			spec = text[k+1:]
		}
		t = t[:loc[0]] + " " + spec + t[loc[1]+end:]
	}
}

// stripMarkup removes the parts of a line that are markup: bracketed
// attributes of macros and tags.
func stripMarkup(t string) string {
	var b strings.Builder
	depth := 0
	for _, r := range t {
		switch r {
		case '<':
			depth++
			b.WriteByte(' ')
			continue
		case '>':
			if depth > 0 {
				depth--
				continue
			}
		}
		if depth == 0 {
			b.WriteRune(r)
		}
	}
	t = anchorRx.ReplaceAllString(b.String(), " ")
	t = entityRx.ReplaceAllString(t, " ")
	t = cellSpecRx.ReplaceAllString(t, "$1 ")
	// Attribute references: their values are what the site shows.
	for {
		i := strings.IndexByte(t, '{')
		j := strings.IndexByte(t[max(i, 0):], '}')
		if i < 0 || j < 0 {
			break
		}
		t = t[:i] + " " + t[i+j+1:]
	}
	for _, m := range []string{"xref:", "link:", "image:", "footnote:", "kbd:", "https:", "http:", "mailto:", "pass:", "anchor:"} {
		for {
			i := strings.Index(t, m)
			if i < 0 {
				break
			}
			j := strings.IndexByte(t[i:], '[')
			if j < 0 {
				t = t[:i]
				break
			}
			t = t[:i] + " " + t[i+j+1:]
		}
	}
	return t
}

// entityRx matches character references ("&ac;", "&#8212;"), which the
// site shows as the character, as Asciidoctor's replacements read them.
var entityRx = regexp.MustCompile(`&(?:[a-zA-Z][a-zA-Z]+\d{0,2}|#\d\d\d{0,4}|#x[\da-fA-F][\da-fA-F][\da-fA-F]{0,3});`)

// anchorRx matches inline anchors, whose ids and reftexts the site does
// not show.
var anchorRx = regexp.MustCompile(`\[\[[^\]\[ ,]*(,[^\n]*?)?\]\]`)

// words splits s into lower-cased runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// hiddenWords are the words golden inputs hide on purpose (behind a
// false conditional).
var hiddenWords = map[string]bool{"hidden": true, "on": true, "published": true, "site": true}

func checkWords(t *testing.T, p string, src []byte, doc *markdown.Document, hidden []string) {
	t.Helper()
	var lost []string
	for _, w := range lostWords(src, doc, hidden) {
		if !hiddenWords[w] {
			lost = append(lost, w)
		}
	}
	if len(lost) > 0 {
		t.Errorf("%s: words lost: %q", p, lost)
	}
}
