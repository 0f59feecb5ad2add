package asciidoc

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The inline converter turns AsciiDoc inline markup into markdown, or into
// plain text (for section ids and titles). Its steps follow Asciidoctor's
// substitution order where it matters: passthroughs are taken out first,
// attribute references are replaced before macros (so that
// "{url-x}[text]" is a link), and the rest is one left-to-right scan.

// Placeholder bytes: the converter replaces them in its input, so they
// only ever mark what it put there.
const (
	passMark = '\x00' // \x00<n>\x00 is passthrough n
	refMark  = '\x01' // \x01id\x01 is a reference to id without text
	// \x02id\x02 is one in a link's text: its title without a link
	textRefMark = '\x02'
	// \x05ref\x05 is the destination of a reference with text, an id
	// or a title (refID) once the page is read.
	destMark = '\x05'
	// In a section id's text (inlineID, which removes both from its
	// input), \x03x\x03 is text no replacement touches (a passthrough's,
	// an escaped character), and \x04 stands for an HTML tag or entity
	// of the converted title.
	keepMark = '\x03'
	tagMark  = '\x04'
)

// maxInlineDepth bounds the nesting of formatting spans the converter
// follows; deeper spans are kept as written.
const maxInlineDepth = 8

// inliner converts one run of inline text.
type inliner struct {
	c     *converter
	attrs *attributes
	plain bool
	// inLink is set while a link's text is converted: markdown has no
	// links in links, so what would be one is written as its text.
	inLink bool
	// id is set for the text of a section id (inlineID): plain, with
	// passthroughs, escapes and tags marked.
	id     bool
	passes []string
	// rawPass[n] tells that passthrough n escapes no special characters
	// (+++x+++, pass:[x]): its HTML is the page's, which shows what it
	// marks up (passhtml.go).
	rawPass []bool
	depth   int
	// fail[k] is a position from which a search for closer k found none:
	// later searches from at or after it fail too. fail["xref["] is
	// instead the position lineBracket found last (see there).
	fail map[string]int
}

// inlineMD converts AsciiDoc inline text (prose or a title) to
// markdown, a raw passthrough's HTML as the page shows it (passhtml.go).
func (c *converter) inlineMD(s string, attrs *attributes) string {
	return c.inline(s, attrs, false)
}

// inlinePlain converts AsciiDoc inline text to plain text, a raw
// passthrough's HTML as the text the page shows.
func (c *converter) inlinePlain(s string, attrs *attributes) string {
	return c.inline(s, attrs, true)
}

// inlineID converts a section title to the text Asciidoctor makes its id
// from: the title as converted, where replacements (" -- ", "...",
// "(C)", "->"...) and entities are gone, as InvalidSectionIdCharsRx
// deletes what they became (see dropReplaced).
func (c *converter) inlineID(s string, attrs *attributes) string {
	s = strings.Map(func(r rune) rune {
		if r == keepMark || r == tagMark {
			return -1
		}
		return r
	}, s)
	in := &inliner{c: c, attrs: attrs, plain: true, id: true}
	s = in.extractPasses(s)
	s = attrs.substitute(s)
	return dropReplaced(in.convert(s))
}

func (c *converter) inline(s string, attrs *attributes, plain bool) string {
	in := &inliner{c: c, attrs: attrs, plain: plain}
	s = in.extractPasses(s)
	s = attrs.substitute(s)
	return in.convert(s)
}

// sub converts the inside of a span with the same passthroughs.
func (in *inliner) convert(s string) string {
	saved := in.fail
	in.fail = map[string]int{}
	var b strings.Builder
	in.scan(&b, s)
	in.fail = saved
	return b.String()
}

// extractPasses replaces +++x+++, ++x++, +x+ (constrained) and pass:[x]
// with placeholders.
func (in *inliner) extractPasses(s string) string {
	if !strings.ContainsAny(s, "+:") {
		return s
	}
	var b strings.Builder
	noClose := len(s) // no unescaped ']' after this (see passMacro)
	for i := 0; i < len(s); {
		if s[i] == '\\' && strings.HasPrefix(s[i+1:], "pass:") {
			// An escaped macro is text: the scanner drops the backslash.
			if _, end := passMacro(s, i+1, &noClose); end > 0 {
				b.WriteString(s[i:end])
				i = end
				continue
			}
		}
		if strings.HasPrefix(s[i:], "pass:") {
			if content, end := passMacro(s, i, &noClose); end > 0 {
				subs := s[i+len("pass:") : i+strings.IndexByte(s[i:], '[')]
				b.WriteString(in.pass(strings.ReplaceAll(content, `\]`, "]"), !escapesSpecialChars(subs)))
				i = end
				continue
			}
		}
		if s[i] == '+' && (i == 0 || s[i-1] != '\\') {
			n := 1
			for n < 3 && i+n < len(s) && s[i+n] == '+' {
				n++
			}
			delim := s[i : i+n]
			if n < 3 {
				// ++ is unconstrained, + constrained; +++ takes three.
				if n == 2 && i+2 < len(s) && s[i+2] == '+' {
					delim = "+++"
				}
			}
			n = len(delim)
			if k := strings.Index(s[i+n:], delim); k > 0 {
				content := s[i+n : i+n+k]
				end := i + n + k + n
				ok := true
				if n == 1 {
					ok = (i == 0 || !isWordRune(lastRune(s[:i]))) &&
						!startsSpace(content) && !endsSpace(content) &&
						(end >= len(s) || !isWordRune(firstRune(s[end:]))) &&
						!strings.Contains(content, "\n\n")
				}
				if ok {
					b.WriteString(in.pass(content, n == 3))
					i = end
					continue
				}
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// passMacro reads the pass:[] macro at s[i] as Asciidoctor's
// InlinePassMacroRx does: "pass:", optional substitutions ("q,a"), and
// text in brackets up to the first "]" not escaped as "\]" (or none:
// "pass:[]"). It returns the text as written and the end of the macro, or
// 0 when there is none. noClose is where a search found no closing
// bracket to the end of s; searches from after it fail at once, which
// keeps many unclosed macros linear.
func passMacro(s string, i int, noClose *int) (string, int) {
	lower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	j := i + len("pass:")
	// The substitutions: [a-z]+(,[a-z-]+)*
	for first := true; j < len(s) && (first && lower(s[j]) || !first && s[j] == ','); first = false {
		if !first {
			j++
		}
		k := j
		for k < len(s) && (lower(s[k]) || !first && s[k] == '-') {
			k++
		}
		if k == j {
			return "", 0
		}
		j = k
	}
	if j >= len(s) || s[j] != '[' {
		return "", 0
	}
	if j+1 < len(s) && s[j+1] == ']' {
		return "", j + 2
	}
	if j > *noClose {
		return "", 0
	}
	for k := j + 2; k < len(s); k++ {
		if s[k] == ']' && s[k-1] != '\\' {
			return s[j+1 : k], k + 1
		}
	}
	*noClose = j
	return "", 0
}

// pass records a passthrough's text, raw when it escapes no special
// characters, and returns its placeholder.
func (in *inliner) pass(content string, raw bool) string {
	in.passes = append(in.passes, content)
	in.rawPass = append(in.rawPass, raw)
	return string(passMark) + itoa(len(in.passes)-1) + string(passMark)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }
func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
func startsSpace(s string) bool {
	return s == "" || s[0] == ' ' || s[0] == '\t' || s[0] == '\n'
}
func endsSpace(s string) bool {
	return s == "" || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' || s[len(s)-1] == '\n'
}

// raw writes generated markup (nothing in plain mode, a tag's mark in a
// section id's text).
func (in *inliner) raw(b *strings.Builder, s string) {
	switch {
	case in.id:
		b.WriteByte(tagMark)
	case !in.plain:
		b.WriteString(s)
	}
}

// lit writes literal text, escaped where markdown would read it as markup
// that loses text (tags, link syntax, shortcodes, entities); in a link's
// text, every bracket, as one of its own would end the text.
func (in *inliner) lit(b *strings.Builder, s string) {
	if in.plain {
		b.WriteString(s)
		return
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		var next byte
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch ch {
		case '\\', '`':
			b.WriteByte('\\')
		case '<':
			if isASCIILetter(next) || next == '/' || next == '!' || next == '?' || next == '>' {
				b.WriteByte('\\')
			}
		case ']':
			if next == '(' || next == ':' || next == '[' || in.inLink {
				b.WriteByte('\\')
			}
		case '[':
			if next == '^' || next == '!' || in.inLink {
				b.WriteByte('\\')
			}
		case '{':
			prev := byte(' ')
			if i > 0 {
				prev = s[i-1]
			} else if str := b.String(); str != "" {
				prev = str[len(str)-1]
			}
			if next == '{' || next == '/' || next == '#' || isWordByte(prev) || prev == '-' {
				b.WriteByte('\\')
			}
		case '&':
			if next == '#' || isASCIILetter(next) {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(ch)
	}
}

func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// code writes a markdown code span (the text alone in plain mode).
func (in *inliner) code(b *strings.Builder, s string) {
	s = in.restorePasses(s)
	if in.plain {
		in.raw(b, "")
		b.WriteString(s)
		in.raw(b, "")
		return
	}
	if strings.TrimSpace(s) == "" {
		b.WriteString(s)
		return
	}
	run, longest := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	b.WriteString(fence)
	if s[0] == '`' || s[len(s)-1] == '`' || (s[0] == ' ' && s[len(s)-1] == ' ') {
		s = " " + s + " "
	}
	b.WriteString(s)
	b.WriteString(fence)
}

// restorePasses replaces passthrough placeholders with their text (in
// a code span, say): a raw passthrough's as the text its HTML shows, as
// the page shows "`+++<b>c</b>+++`" as a code span reading "c".
func (in *inliner) restorePasses(s string) string {
	return replaceMarked(s, passMark, func(b *strings.Builder, inner string) {
		n, ok := in.passIndex(inner)
		switch {
		case !ok:
		case in.id && in.rawPass[n]:
			keepRawPass(b, in.passes[n])
		case in.rawPass[n]:
			b.WriteString(htmlText(in.passes[n]))
		default:
			in.keep(b, in.passes[n])
		}
	})
}

// passesAsWritten replaces passthrough placeholders with their text as
// written, tags and all: the text a cross reference names its target by.
func (in *inliner) passesAsWritten(s string) string {
	return replaceMarked(s, passMark, func(b *strings.Builder, inner string) {
		if n, ok := in.passIndex(inner); ok {
			b.WriteString(in.passes[n])
		}
	})
}

// passIndex reads the number of a passthrough placeholder (what is
// between its marks) and reports whether it names one.
func (in *inliner) passIndex(inner string) (int, bool) {
	n := 0
	for _, d := range inner {
		if d < '0' || d > '9' || n > len(in.passes) {
			return 0, false
		}
		n = n*10 + int(d-'0')
	}
	return n, inner != "" && n < len(in.passes)
}

// rawPassIndex is passIndex for a raw passthrough only.
func (in *inliner) rawPassIndex(inner string) (int, bool) {
	n, ok := in.passIndex(inner)
	return n, ok && in.rawPass[n]
}

// keep writes text no replacement may touch: marked so in a section id's
// text.
func (in *inliner) keep(b *strings.Builder, s string) {
	if in.id {
		b.WriteByte(keepMark)
		b.WriteString(s)
		b.WriteByte(keepMark)
		return
	}
	b.WriteString(s)
}

// replaceMarked rewrites each run of s between two marks, marks included,
// with what with writes for the text between them; what follows a mark
// left unpaired is kept as it is. Placeholders (passthroughs, references
// resolved once every title is known) are written so.
func replaceMarked(s string, mark byte, with func(b *strings.Builder, inner string)) string {
	if strings.IndexByte(s, mark) < 0 {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, mark)
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], mark)
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		with(&b, s[i+1:i+1+j])
		s = s[i+1+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// closer finds the end of a span opened before from: the next delim after
// from (for constrained spans one not followed by a word character and
// not preceded by a space), within the same paragraph. It returns -1 when
// there is none.
func (in *inliner) closer(s string, from int, delim string, constrained bool) int {
	key := delim
	if constrained {
		key += "c"
	}
	if f, ok := in.fail[key]; ok && from >= f {
		return -1
	}
	for i := from; i < len(s); {
		k := strings.Index(s[i:], delim)
		if k < 0 {
			break
		}
		k += i
		if !constrained {
			return k
		}
		end := k + len(delim)
		if k > from && !endsSpace(s[from:k]) && (end >= len(s) || !isWordRune(firstRune(s[end:]))) &&
			(end >= len(s) || s[end] != delim[0]) {
			return k
		}
		i = k + 1
	}
	in.fail[key] = from
	return -1
}

// scan converts s, writing to b.
func (in *inliner) scan(b *strings.Builder, s string) {
	lit := 0 // start of pending literal text
	flush := func(i int) {
		switch {
		case i <= lit:
		case in.id:
			in.lit(b, s[lit:i]) // dropReplaced deletes entities
		default:
			in.lit(b, decodeEntities(s[lit:i]))
		}
	}
	for i := 0; i < len(s); {
		ch := s[i]
		prevWord := i > 0 && isWordRune(lastRune(s[:i]))
		n := in.construct(b, s, i, prevWord, flush)
		if n > i {
			i, lit = n, n
			continue
		}
		_ = ch
		i++
	}
	flush(len(s))
}

// construct converts the construct starting at s[i], if any, and returns
// where it ends (i when there is none). flush writes the literal text
// before i.
func (in *inliner) construct(b *strings.Builder, s string, i int, prevWord bool, flush func(int)) int {
	ch := s[i]
	switch ch {
	case passMark:
		j := strings.IndexByte(s[i+1:], passMark)
		if j < 0 {
			return i
		}
		flush(i)
		if n, ok := in.rawPassIndex(s[i+1 : i+1+j]); ok && !in.id {
			in.passHTML(b, in.passes[n])
		} else {
			in.lit(b, in.restorePasses(s[i:i+j+2]))
		}
		return i + j + 2
	case refMark:
		return i
	case '\\':
		if i+1 < len(s) && strings.IndexByte("*_`#^~<[{+'\"(&\\", s[i+1]) >= 0 {
			flush(i)
			if in.id {
				// "\(C)" and "\<-" are no replacements.
				in.keep(b, s[i+1:i+2])
			} else {
				in.lit(b, s[i+1:i+2])
			}
			return i + 2
		}
		if i+1 < len(s) && isASCIILetter(s[i+1]) {
			// An escaped macro (\xref:...) or bare URL.
			flush(i)
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] == ':') {
				j++
			}
			in.lit(b, s[i+1:j])
			return j
		}
	case '`', '"', '\'':
		return in.codeOrQuote(b, s, i, prevWord, flush)
	case '*', '_', '#', '^', '~':
		return in.emphasis(b, s, i, prevWord, flush)
	case '[':
		return in.bracket(b, s, i, prevWord, flush)
	case '<':
		if strings.HasPrefix(s[i:], "<<") {
			j := strings.Index(s[i+2:min(len(s), i+2+512)], ">>")
			if j <= 0 {
				return i
			}
			flush(i)
			in.xref(b, s[i+2:i+2+j], "", true)
			return i + 2 + j + 2
		}
		if strings.HasPrefix(s[i:], "<http://") || strings.HasPrefix(s[i:], "<https://") {
			if j := strings.IndexByte(s[i:], '>'); j > 0 && !strings.ContainsAny(s[i:i+j], " \n") {
				flush(i)
				in.lit(b, s[i+1:i+j])
				return i + j + 1
			}
		}
	case '(':
		if strings.HasPrefix(s[i:], "(((") {
			if j := strings.Index(s[i+3:], ")))"); j >= 0 && !strings.Contains(s[i+3:i+3+j], "\n\n") {
				flush(i)
				return i + 3 + j + 3
			}
		} else if strings.HasPrefix(s[i:], "((") {
			if j := strings.Index(s[i+2:], "))"); j > 0 {
				flush(i)
				b.WriteString(in.sub(s[i+2 : i+2+j]))
				return i + 2 + j + 2
			}
		}
	case '&':
		return i // entities are decoded with the literal text
	case '{':
		// A link whose URL starts with an undefined attribute
		// ({url-org}/x[text]): Asciidoctor leaves it as written; the
		// reader keeps its text, which is what the site means to show.
		if i > 0 && !startsSpace(s[i-1:i]) && s[i-1] != '(' {
			return i
		}
		k := i + 1
		for k < len(s) && isAttrNameByte(s[k]) {
			k++
		}
		if k == i+1 || k >= len(s) || s[k] != '}' {
			return i
		}
		for k < len(s) && k-i < 2048 && s[k] != '[' && s[k] != ' ' && s[k] != '\n' && s[k] != '\t' {
			k++
		}
		if k >= len(s) || s[k] != '[' {
			return i
		}
		e := bracketEnd(s, k)
		if e < 0 {
			return i
		}
		text := linkText(strings.ReplaceAll(s[k+1:e], `\]`, "]"))
		if text == "" {
			return i
		}
		flush(i)
		b.WriteString(in.sub(text))
		return e + 1
	case ' ':
		// A hard line break: " +" at the end of a line.
		if strings.HasPrefix(s[i:], " +") && (i+2 == len(s) || s[i+2] == '\n') {
			flush(i)
			return i + 2
		}
	}
	if isASCIILetter(ch) && !prevWord {
		return in.macro(b, s, i, flush)
	}
	return i
}

// subLinkText converts a link's text as sub does, without links.
func (in *inliner) subLinkText(s string) string {
	saved := in.inLink
	in.inLink = true
	t := in.sub(s)
	in.inLink = saved
	return t
}

// sub converts the inside of a span one level deeper.
func (in *inliner) sub(s string) string {
	if in.depth >= maxInlineDepth {
		var b strings.Builder
		in.lit(&b, s)
		return b.String()
	}
	in.depth++
	out := in.convert(s)
	in.depth--
	return out
}

// codeOrQuote handles `code`, “code“, "`quoted`" and '`quoted`'.
func (in *inliner) codeOrQuote(b *strings.Builder, s string, i int, prevWord bool, flush func(int)) int {
	ch := s[i]
	if ch == '"' || ch == '\'' {
		if i+1 >= len(s) || s[i+1] != '`' || prevWord {
			return i
		}
		closeDelim := "`" + string(ch)
		k := in.closer(s, i+2, closeDelim, false)
		if k < 0 || k == i+2 {
			return i
		}
		flush(i)
		open, shut := "\u201c", "\u201d"
		if ch == '\'' {
			open, shut = "\u2018", "\u2019"
		}
		b.WriteString(open)
		b.WriteString(in.sub(s[i+2 : k]))
		b.WriteString(shut)
		return k + 2
	}
	if strings.HasPrefix(s[i:], "``") {
		if k := in.closer(s, i+2, "``", false); k > i+2 {
			flush(i)
			in.code(b, in.attrs.substitute(s[i+2:k]))
			return k + 2
		}
		return i
	}
	if prevWord || i+1 >= len(s) || s[i+1] == ' ' || s[i+1] == '\n' {
		return i
	}
	k := in.closer(s, i+1, "`", true)
	if k < 0 {
		return i
	}
	flush(i)
	in.code(b, s[i+1:k])
	return k + 1
}

// emphasis handles *strong*, _emphasis_, #mark#, ^super^ and ~sub~, in
// their constrained and unconstrained (doubled) forms.
func (in *inliner) emphasis(b *strings.Builder, s string, i int, prevWord bool, flush func(int)) int {
	ch := s[i]
	d := string(ch)
	if ch == '^' || ch == '~' {
		// No spaces inside; ends at the same character.
		j := strings.IndexByte(s[i+1:], ch)
		if j <= 0 || strings.ContainsAny(s[i+1:i+1+j], " \t\n") {
			return i
		}
		flush(i)
		if ch == '^' {
			in.raw(b, "^")
		} else {
			in.raw(b, "_")
		}
		b.WriteString(in.sub(s[i+1 : i+1+j]))
		return i + 1 + j + 1
	}
	var start, k int
	double := i+1 < len(s) && s[i+1] == ch
	if double {
		start = i + 2
		k = in.closer(s, start, d+d, false)
		if k <= start {
			return i
		}
	} else {
		if prevWord || i+1 >= len(s) || startsSpace(s[i+1:]) {
			return i
		}
		start = i + 1
		k = in.closer(s, start, d, true)
		if k < 0 {
			return i
		}
	}
	flush(i)
	inner := in.sub(s[start:k])
	switch ch {
	case '*':
		in.raw(b, "**")
		b.WriteString(inner)
		in.raw(b, "**")
	case '_':
		in.raw(b, "*")
		b.WriteString(inner)
		in.raw(b, "*")
	default:
		b.WriteString(inner)
	}
	if double {
		return k + 2
	}
	return k + 1
}

// bracket handles [[id]] anchors, [[[ref]]] bibliography anchors and
// [.role] attribute lists before a formatted span.
func (in *inliner) bracket(b *strings.Builder, s string, i int, prevWord bool, flush func(int)) int {
	if strings.HasPrefix(s[i:], "[[") {
		three := strings.HasPrefix(s[i:], "[[[")
		closeDelim := "]]"
		start := i + 2
		if three {
			closeDelim, start = "]]]", i+3
		}
		// Searched within the longest anchor read, which keeps many
		// unclosed ones linear.
		j := strings.Index(s[start:min(len(s), start+256+len(closeDelim))], closeDelim)
		if j <= 0 || strings.ContainsAny(s[start:start+j], "\n") {
			return i
		}
		// InlineAnchorRx: an id, then optionally a comma, spaces and a
		// reftext, which may hold spaces (a bibliography anchor's not).
		id, reftext, ok := anchorIDRef(s[start : start+j])
		if !ok || three && strings.ContainsAny(s[start:start+j], " [") {
			return i
		}
		flush(i)
		if three {
			in.anchor(id, "")
			in.lit(b, "["+firstNonEmpty(reftext, id)+"]")
		} else {
			in.anchor(id, reftext)
		}
		return start + j + len(closeDelim)
	}
	j := strings.IndexByte(s[i+1:min(len(s), i+1+129)], ']')
	if j < 0 || strings.ContainsAny(s[i+1:i+1+j], " \n[") {
		return i
	}
	end := i + 1 + j + 1
	if end < len(s) && strings.IndexByte("#*_`", s[end]) >= 0 {
		n := in.construct(b, s, end, false, func(k int) { flush(i) })
		if n > end {
			return n
		}
	}
	return i
}
