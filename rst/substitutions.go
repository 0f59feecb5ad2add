package rst

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// substitution is what a substitution reference ("|name|") shows: the
// inline markup of a "replace::" definition, or the text of a
// "unicode::" one.
type substitution struct {
	text    string
	literal bool
}

// maxSubstitution bounds a substitution's definition, and
// substitutionBudget the bytes of definitions references may show in one
// document: after it they show their names, so that references cannot
// multiply a document's size.
const (
	maxSubstitution    = 1024
	substitutionBudget = 1 << 20
)

// defineSubstitution records the substitution defined at ls[i] (".. |name|
// replace:: text" or ".. |name| unicode:: U+2610", the definition going on
// in the indented lines after it), if it is one the reader expands.
// docutils applies a definition to the whole document, before or after
// it; those of other directives (image::) and those Sphinx adds
// (|version|, rst_prolog's) are not known, and their references show
// their name.
func (c *converter) defineSubstitution(ls []srcLine, i int) {
	t, ok := strings.CutPrefix(ls[i].text, ".. |")
	k := strings.Index(t, "| ")
	if !ok || k <= 0 {
		return
	}
	name := normalizeName(t[:k])
	directive, data, ok := directiveName(strings.TrimLeft(t[k+2:], " "))
	if !ok || name == "" || (directive != "replace" && directive != "unicode") {
		return
	}
	words := []string{data}
	size := len(data)
	for j := i + 1; j < len(ls) && ls[j].text != "" && indentOf(ls[j].text) > 0 && size <= maxSubstitution; j++ {
		l := strings.TrimSpace(ls[j].text)
		if directive == "unicode" && isOptionLine(l) {
			continue // :trim: and the like
		}
		words = append(words, l)
		size += len(l) + 1
	}
	if size > maxSubstitution {
		return
	}
	data = strings.TrimSpace(strings.Join(words, " "))
	if directive == "unicode" {
		c.subs[name] = substitution{text: unicodeText(data), literal: true}
	} else if data != "" {
		c.subs[name] = substitution{text: data}
	}
}

// unicodeText returns the text of a unicode directive's argument, as
// docutils' unicode_code reads each of its words: a decimal number, a
// hexadecimal one (0x, x, \x, U+, U, u, \u) or an XML character
// reference stands for its character, other words for themselves. The
// words are joined without spaces; ".." starts a comment.
func unicodeText(arg string) string {
	var b strings.Builder
	for _, w := range strings.Fields(arg) {
		if w == ".." {
			break
		}
		b.WriteString(unicodeCode(w))
	}
	return b.String()
}

// unicodeCode returns the character a unicode directive's word stands
// for, or the word.
func unicodeCode(w string) string {
	base, digits := 16, ""
	lw := strings.ToLower(w)
	switch {
	case strings.Trim(w, "0123456789") == "":
		base, digits = 10, w
	case strings.HasPrefix(lw, "&#x") && strings.HasSuffix(lw, ";"):
		digits = lw[3 : len(lw)-1]
	default:
		for _, p := range []string{"0x", `\x`, "x", "u+", `\u`, "u"} {
			if rest, ok := strings.CutPrefix(lw, p); ok {
				digits = rest
				break
			}
		}
	}
	if digits == "" || (base == 16 && strings.Trim(digits, "0123456789abcdef") != "") {
		return w
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil || n > utf8.MaxRune || !utf8.ValidRune(rune(n)) {
		return w // docutils refuses the definition
	}
	return string(rune(n))
}
