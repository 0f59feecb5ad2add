package rst

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// idTranslate maps the letters docutils' make_id replaces before it drops
// what is not ASCII: digraphs first, then letters with strokes and hooks,
// which NFKD does not decompose.
var idTranslate = map[rune]string{
	0x00df: "sz", 0x00e6: "ae", 0x0153: "oe", 0x0238: "db", 0x0239: "qp",
	0x00f8: "o", 0x0111: "d", 0x0127: "h", 0x0131: "i", 0x0142: "l",
	0x0167: "t", 0x0180: "b", 0x0183: "b", 0x0188: "c", 0x018c: "d",
	0x0192: "f", 0x0199: "k", 0x019a: "l", 0x019e: "n", 0x01a5: "p",
	0x01ab: "t", 0x01ad: "t", 0x01b4: "y", 0x01b6: "z", 0x01e5: "g",
	0x0225: "z", 0x0234: "l", 0x0235: "n", 0x0236: "t", 0x0237: "j",
	0x023c: "c", 0x023f: "s", 0x0240: "z", 0x0247: "e", 0x0249: "j",
	0x024b: "q", 0x024d: "r", 0x024f: "y",
}

// asciiFold lower-cases s when lower is set, applies idTranslate, and
// drops what NFKD decomposition does not turn into ASCII, as docutils'
// make_id does before it replaces separators.
func asciiFold(s string, lower bool) string {
	if lower {
		s = strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		if t, ok := idTranslate[r]; ok {
			b.WriteString(t)
			continue
		}
		b.WriteRune(r)
	}
	s = norm.NFKD.String(b.String())
	b.Reset()
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// MakeID returns docutils' identifier for a name (nodes.make_id): the name
// lower-cased and folded to ASCII, every run of characters other than
// a-z and 0-9 turned into one '-', and leading digits and hyphens and
// trailing hyphens removed. Section titles and explicit targets
// (".. _label:") get their HTML ids this way.
func MakeID(s string) string {
	s = asciiFold(s, true)
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	sep := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			if sep && b.Len() > 0 {
				b.WriteByte('-')
			}
			sep = false
			b.WriteByte(c)
			continue
		}
		if b.Len() == 0 {
			// A leading run of separators is dropped below with leading
			// digits; remember it only as a hyphen to drop.
			continue
		}
		sep = true
	}
	// Leading digits (and hyphens between them) go too.
	return strings.TrimLeft(b.String(), "0123456789-")
}

// SphinxID returns the identifier Sphinx makes for an object description
// (sphinx.util.nodes._make_id): like MakeID, but case is kept and '.' and
// '_' are allowed, so "flask.Flask.route" stays as it is; leading
// '-', digits, '.' and '_' and trailing '-' are removed.
func SphinxID(s string) string {
	s = asciiFold(s, false)
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	sep := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' {
			if sep {
				b.WriteByte('-')
			}
			sep = false
			b.WriteByte(c)
			continue
		}
		sep = true
	}
	if sep {
		b.WriteByte('-')
	}
	out := strings.TrimLeft(b.String(), "-0123456789._")
	return strings.TrimRight(out, "-")
}
