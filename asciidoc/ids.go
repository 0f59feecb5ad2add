package asciidoc

import (
	"strconv"
	"strings"
	"unicode"
)

// ids generates section ids as Asciidoctor does and keeps them unique
// within a document.
type ids struct {
	used map[string]bool
	// next is the sequence number to try next for a repeated id, which
	// keeps many repeats linear.
	next map[string]int
}

// register records an explicit id (of a section, block or inline anchor).
func (s *ids) register(id string) {
	if id != "" {
		s.used[id] = true
	}
}

// generate returns the id Asciidoctor gives a section titled plain (its
// text as rendered, markup removed): the title lower-cased, prefixed with
// idprefix ("_" unless set), characters other than word characters,
// spaces, hyphens and periods removed, runs of spaces, hyphens, periods
// (and the separator) replaced by one idseparator ("_" unless set), a
// trailing separator removed; a repeat gets the separator and 2, 3, ...
func (s *ids) generate(plain string, attrs *attributes) string {
	pre, ok := attrs.get("idprefix")
	if !ok {
		pre = "_"
	}
	sep, ok := attrs.get("idseparator")
	if !ok {
		sep = "_"
	}
	if len(sep) > 1 {
		sep = sep[:1]
	}
	var b strings.Builder
	b.WriteString(pre)
	lastSep := sep != "" && strings.HasSuffix(pre, sep)
	for _, r := range strings.ToLower(plain) {
		isSep := r == ' ' || r == '-' || r == '.' || (sep != "" && string(r) == sep)
		switch {
		case isSep:
			if sep == "" {
				if r != ' ' {
					b.WriteRune(r)
				}
				continue
			}
			if !lastSep {
				b.WriteString(sep)
			}
			lastSep = true
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) ||
			unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		default:
			continue // removed: does not end a run of separators
		}
		lastSep = false
	}
	id := b.String()
	if sep != "" {
		id = strings.TrimSuffix(id, sep)
		if pre == "" {
			id = strings.TrimPrefix(id, sep)
		}
	}
	if id == "" {
		// A title with no word character: keep an id the page can link.
		id = firstNonEmpty(pre, "_")
	}
	if s.used[id] {
		if s.next == nil {
			s.next = map[string]int{}
		}
		base := id
		for n := max(2, s.next[base]); ; n++ {
			if c := base + sep + strconv.Itoa(n); !s.used[c] {
				id = c
				s.next[base] = n + 1
				break
			}
		}
	}
	s.used[id] = true
	return id
}
