package rst

import (
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

// plainWords returns the words of the source lines that hold nothing but
// plain text (ASCII letters, digits, spaces and sentence punctuation)
// outside explicit markup blocks (comments, targets, anonymous targets
// and directives, whose text may be dropped on purpose): every one of them must reach the
// Document.
func plainWords(src []byte) []string {
	var words []string
	skipIndent := -1 // the indentation of the explicit markup block being skipped
	for _, l := range splitLines(string(src), 0) {
		t := l.text
		if t == "" {
			continue
		}
		ind := indentOf(t)
		if skipIndent >= 0 {
			if ind > skipIndent {
				continue
			}
			skipIndent = -1
		}
		body := t[ind:]
		// A list item's body may itself be explicit markup ("1. .. x"),
		// in items nested to any depth ("0) 0) .. x").
		item := body
		for {
			n := bulletLen(item)
			if n == 0 {
				n, _ = enumLen(item)
			}
			if n == 0 {
				break
			}
			item = strings.TrimLeft(item[n:], " ")
		}
		// An anonymous target ("__ url", or "__" with the URL on the
		// indented lines after it) is explicit markup too.
		if strings.HasPrefix(body, "..") || strings.HasPrefix(item, "..") || body == "__" || strings.HasPrefix(body, "__ ") {
			skipIndent = ind
			continue
		}
		if !isPlainLine(body) {
			continue
		}
		words = append(words, splitWords(body)...)
	}
	return words
}

func isPlainLine(t string) bool {
	for i := 0; i < len(t); i++ {
		b := t[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte(" .,;!?'\"()", b) >= 0) {
			return false
		}
	}
	return true
}

// splitWords returns the runs of ASCII letters and digits of t.
func splitWords(t string) []string {
	return strings.FieldsFunc(t, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
}

// missingWords returns the plain words of src that no section's text
// holds.
func missingWords(src []byte, doc *markdown.Document) []string {
	have := map[string]bool{}
	for _, s := range doc.Sections {
		for _, w := range splitWords(s.Text) {
			have[w] = true
		}
		for _, w := range splitWords(s.Prose) {
			have[w] = true
		}
	}
	var missing []string
	for _, w := range plainWords(src) {
		if !have[w] {
			missing = append(missing, w)
		}
	}
	return missing
}

// checkWords fails t when a plain word of src is in no section.
func checkWords(t *testing.T, src []byte, doc *markdown.Document) {
	t.Helper()
	if m := missingWords(src, doc); len(m) > 0 {
		t.Errorf("words lost: %q", m[:min(len(m), 20)])
	}
}
