package asciidoc

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
// text as rendered, markup and replacements removed: inlineID's): the
// title lower-cased, prefixed with idprefix ("_" unless set), characters
// other than word characters, spaces, hyphens and periods removed, runs
// of spaces, hyphens, periods (and the separator) replaced by one
// idseparator ("_" unless set), a trailing separator removed; a repeat
// gets the separator and 2, 3, ...
func (s *ids) generate(plain string, attrs *attributes) string {
	return s.unique(s.base(plain, attrs))
}

// base returns the id generate makes of plain before it is numbered,
// and the separator it numbers it with.
func (s *ids) base(plain string, attrs *attributes) (id, sep string) {
	pre, ok := attrs.get("idprefix")
	if !ok {
		pre = "_"
	}
	sep, ok = attrs.get("idseparator")
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
	id = b.String()
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
	return id, sep
}

// unique returns id, or when it is taken id, sep and the first of 2, 3,
// ... that makes it unused, and records it as used.
func (s *ids) unique(id, sep string) string {
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

// dropReplaced deletes from a section id's text (inlineID's) what
// Asciidoctor's replacements turn into entities, which its
// InvalidSectionIdCharsRx then deletes from the id: "(C)", "(R)", "(TM)",
// " -- " with its spaces, "--" between word characters, "...", "`'", "'"
// inside a word, "->", "=>", "<-", "<=" and entity references, in
// Asciidoctor's order (REPLACEMENTS), each left as written, its backslash
// removed, when escaped. So "Foo -- bar" gives "_foobar" and
// "Tom's...stuff" "_tomsstuff", as on the site. Text between keepMarks
// (passthroughs, escaped characters) is kept as it is; what a replacement
// removes, and each tagMark, leaves a character no word or space is, as
// the entity or tag does until the id is made.
func dropReplaced(s string) string {
	if !strings.ContainsAny(s, "()-.`'=<&") {
		return strings.Map(dropMarks, s)
	}
	// Text to keep becomes one keepMark while the rules run.
	var kept []string
	if strings.IndexByte(s, keepMark) >= 0 {
		var b strings.Builder
		for {
			i := strings.IndexByte(s, keepMark)
			j := -1
			if i >= 0 {
				j = strings.IndexByte(s[i+1:], keepMark)
			}
			if j < 0 {
				b.WriteString(s)
				break
			}
			b.WriteString(s[:i])
			b.WriteByte(keepMark)
			kept = append(kept, s[i+1:i+1+j])
			s = s[i+1+j+1:]
		}
		s = b.String()
	}
	s = replaceEntities(markReplacements(s))
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == keepMark && len(kept) > 0:
			b.WriteString(kept[0])
			kept = kept[1:]
		case dropMarks(r) >= 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markReplacements replaces with a tagMark what Asciidoctor's
// replacements turn into a numeric character reference: "(C)", "(R)",
// "(TM)", " -- " with its spaces, "--" between word characters, "...",
// "`'", "'" inside a word, "->", "=>", "<-", "<=", in its order
// (REPLACEMENTS); an escaped one is left as written, its backslash
// removed.
func markReplacements(s string) string {
	for _, lit := range []string{"(C)", "(R)", "(TM)"} {
		s = replaceLiteral(s, lit)
	}
	s = replaceDashes(s)
	s = replaceBetween(s, "--", isWordClass, isWordClass)
	s = replaceLiteral(s, "...")
	s = replaceLiteral(s, "`'")
	s = replaceBetween(s, "'", isAlnum, isAlpha)
	for _, lit := range []string{"->", "=>", "<-", "<="} {
		s = replaceLiteral(s, lit)
	}
	return s
}

func dropMarks(r rune) rune {
	if r == keepMark || r == tagMark {
		return -1
	}
	return r
}

// replaceLiteral replaces each lit with a tagMark, and each "\"+lit with
// lit.
func replaceLiteral(s, lit string) string {
	if !strings.Contains(s, lit) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && strings.HasPrefix(s[i+1:], lit):
			b.WriteString(lit)
			i += 1 + len(lit)
		case strings.HasPrefix(s[i:], lit):
			b.WriteByte(tagMark)
			i += len(lit)
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// replaceDashes replaces " -- " (either space may be a line break, the
// start or end of a line) with a tagMark, the spaces included, as
// Asciidoctor's /(?: |\n|^|\\)--(?: |\n|$)/ does; a backslash in place of
// the first space keeps "--" and what follows.
func replaceDashes(s string) string {
	if !strings.Contains(s, "--") {
		return s
	}
	// after returns the length of what may follow "--" at k, or -1.
	after := func(k int) int {
		switch {
		case k < len(s) && (s[k] == ' ' || s[k] == '\n'):
			return 1
		case k == len(s):
			return 0
		}
		return -1
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if (s[i] == ' ' || s[i] == '\n' || s[i] == '\\') && strings.HasPrefix(s[i+1:], "--") {
			if t := after(i + 3); t >= 0 {
				if s[i] == '\\' {
					b.WriteString(s[i+1 : i+3+t])
				} else {
					b.WriteByte(tagMark)
				}
				i += 3 + t
				continue
			}
		}
		if (i == 0 || s[i-1] == '\n') && strings.HasPrefix(s[i:], "--") {
			if t := after(i + 2); t >= 0 {
				b.WriteByte(tagMark)
				i += 2 + t
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// replaceBetween replaces lit (or "\"+lit, then kept as lit) after a
// character before accepts and followed by one next accepts with a
// tagMark, as Asciidoctor's /(\p{Word})\\?--(?=\p{Word})/ and
// /(\p{Alnum})\\?'(?=\p{Alpha})/ do.
func replaceBetween(s, lit string, before, next func(rune) bool) string {
	if !strings.Contains(s, lit) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+n])
		i += n
		if !before(r) {
			continue
		}
		esc := 0
		if strings.HasPrefix(s[i:], `\`+lit) {
			esc = 1
		}
		if !strings.HasPrefix(s[i+esc:], lit) || !next(firstRune(s[i+esc+len(lit):])) {
			continue
		}
		if esc == 1 {
			b.WriteString(lit)
		} else {
			b.WriteByte(tagMark)
		}
		i += esc + len(lit)
	}
	return b.String()
}

// replaceEntities replaces character references ("&amp;", "&#169;",
// "&#x2014;") with a tagMark, as Asciidoctor's entity rule and
// InvalidSectionIdCharsRx remove them; an escaped one keeps its text.
func replaceEntities(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		esc := 0
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '&' {
			esc = 1
		}
		if s[i+esc] == '&' {
			if n := entityLen(s[i+esc:]); n > 0 {
				if esc == 1 {
					b.WriteString(s[i+1 : i+1+n])
				} else {
					b.WriteByte(tagMark)
				}
				i += esc + n
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// entityLen returns the length of the character reference starting s, as
// /&(?:[a-zA-Z][a-zA-Z]+\d{0,2}|#\d\d\d{0,4}|#x[\da-fA-F][\da-fA-F][\da-fA-F]{0,3});/
// matches it, or 0.
func entityLen(s string) int {
	span := func(i int, ok func(byte) bool, lo, hi int) int {
		j := i
		for j < len(s) && j-i < hi && ok(s[j]) {
			j++
		}
		if j-i < lo {
			return -1
		}
		return j
	}
	letter := func(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	hex := func(c byte) bool { return digit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }
	j := -1
	switch {
	case strings.HasPrefix(s, "&#x"):
		j = span(3, hex, 3, 5)
	case strings.HasPrefix(s, "&#"):
		j = span(2, digit, 2, 6)
	case len(s) > 1 && letter(s[1]):
		if j = span(1, letter, 2, len(s)); j >= 0 {
			j = span(j, digit, 0, 2)
		}
	}
	if j < 0 || j >= len(s) || s[j] != ';' {
		return 0
	}
	return j + 1
}

// isWordClass is Onigmo's \p{Word}: letters, marks, decimal digits and
// connector punctuation.
func isWordClass(r rune) bool {
	return unicode.IsLetter(r) || unicode.In(r, unicode.M, unicode.Nd, unicode.Pc)
}

// isAlpha and isAlnum are Onigmo's \p{Alpha} and \p{Alnum}, near enough.
func isAlpha(r rune) bool { return unicode.IsLetter(r) || unicode.In(r, unicode.Nl, unicode.M) }
func isAlnum(r rune) bool { return isAlpha(r) || unicode.Is(unicode.Nd, r) }

// keepRawPass writes the text of a raw passthrough (+++x+++, pass:[x])
// to a section id's text: its HTML tags ("<" and ">" with something
// between) and character references become tagMarks, as
// InvalidSectionIdCharsRx deletes them from the converted title, where
// a raw passthrough's text is as written; the rest is kept from
// replacements. So "pass:[<b>Bold</b>] title" gives "_bold_title".
// A tag is looked for within the passthrough only.
func keepRawPass(b *strings.Builder, s string) {
	seg := 0 // start of the text to keep
	noTag := false
	for i := 0; i < len(s); {
		n := 0
		switch s[i] {
		case '<':
			if !noTag {
				j := strings.IndexByte(s[i+1:], '>')
				noTag = j < 0 // no '>' after this '<', nor after a later one
				if j > 0 {
					n = j + 2
				}
			}
		case '&':
			n = entityLen(s[i:])
		}
		if n == 0 {
			i++
			continue
		}
		if i > seg {
			b.WriteByte(keepMark)
			b.WriteString(s[seg:i])
			b.WriteByte(keepMark)
		}
		b.WriteByte(tagMark)
		i += n
		seg = i
	}
	if seg < len(s) {
		b.WriteByte(keepMark)
		b.WriteString(s[seg:])
		b.WriteByte(keepMark)
	}
}

// escapesSpecialChars reports whether a pass macro's substitutions
// ("c", "q,a", "normal"; none for pass:[x]) escape "<", ">" and "&",
// which then reach the converted title as entities, not as HTML.
func escapesSpecialChars(subs string) bool {
	for _, s := range strings.Split(subs, ",") {
		switch strings.TrimSpace(s) {
		case "c", "specialcharacters", "specialchars", "n", "normal", "v", "verbatim":
			return true
		}
	}
	return false
}

// isAnchorID reports whether s can be the id of an anchor ([[id]]), as
// Asciidoctor's anchor patterns read one: a letter, "_" or ":", then
// word characters, "-", ":" and ".". "[[000]]" is text.
func isAnchorID(s string) bool {
	return s != "" && anchorIDLen(s) == len(s)
}

// anchorIDLen returns the length of the anchor id that starts s (see
// isAnchorID), 0 for none.
func anchorIDLen(s string) int {
	for i, r := range s {
		switch {
		case r == '_' || r == ':':
		case i == 0:
			if !isAlpha(r) {
				return 0
			}
		case !isWordClass(r) && r != '-' && r != '.':
			return i
		}
	}
	return len(s)
}

// blockAnchor reads a line that is a block anchor, as Asciidoctor's
// BlockAnchorRx reads one: "[[id]]", "[[id,reftext]]" (any text after
// the comma and the spaces that follow it, "]]" included) or "[[]]",
// which sets no id and clears one set above it. It returns the id and
// the reftext.
func blockAnchor(t string) (id, reftext string, ok bool) {
	if len(t) < 4 || !strings.HasPrefix(t, "[[") || !strings.HasSuffix(t, "]]") {
		return "", "", false
	}
	if t == "[[]]" {
		return "", "", true
	}
	id, reftext, ok = anchorIDRef(t[2 : len(t)-2])
	return id, reftext, ok
}

// anchorIDRef reads the inside of an anchor's brackets: an id
// (isAnchorID), then optionally a comma, spaces and a reftext of at
// least one character.
func anchorIDRef(s string) (id, reftext string, ok bool) {
	i := anchorIDLen(s)
	id = s[:i]
	switch {
	case i == 0:
		return "", "", false
	case i == len(s):
		return id, "", true
	case s[i] != ',' || i+1 == len(s):
		return "", "", false
	}
	ref := s[i+1:]
	if r := strings.TrimLeft(ref, " "); r != "" {
		ref = r
	} else {
		ref = ref[len(ref)-1:]
	}
	return id, ref, true
}

// sectionAnchor finds the anchor that ends a section title
// ("Title [[id]]", "Title [[id,reftext]]") as Asciidoctor's
// InlineSectionAnchorRx does: the leftmost " [[" whose rest is an id and
// reftext up to a "]]" ending the title. A space must come before it
// ("Title[[id]]" is an inline anchor in the title, the section's id
// generated), and one escaped (" \[[id]]") is text. It returns the
// title without the anchor.
func sectionAnchor(title string) (id, reftext, rest string, ok bool) {
	if !strings.HasSuffix(title, "]]") {
		return "", "", title, false
	}
	for k := 0; k < len(title); {
		j := strings.Index(title[k:], " ")
		if j < 0 {
			break
		}
		k += j
		esc := 0
		if strings.HasPrefix(title[k+1:], `\`) {
			esc = 1
		}
		start := k + 1 + esc + 2
		if !strings.HasPrefix(title[k+1+esc:], "[[") || start > len(title)-2 {
			k++
			continue
		}
		if id, ref, ok := anchorIDRef(title[start : len(title)-2]); ok {
			if esc == 1 {
				break // escaped: the title is text
			}
			return id, ref, strings.TrimRight(title[:k], " \t"), true
		}
		k++
	}
	return "", "", title, false
}
