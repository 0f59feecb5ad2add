package markdown

import (
	"bytes"
	"strings"
)

// A span is a half-open byte range [start, end) of a body.
type span struct{ start, end int }

// maxConstructLen bounds how far one JSX tag, MDX expression or ESM
// statement may reach from where it starts, in bytes.
const maxConstructLen = 16 << 10

// cleaner turns a markdown or MDX body into the text that is parsed and
// split: it drops MDX import/export statements, JSX and HTML tags, comments
// and Hugo shortcodes, and rewrites admonition fences and fastapi include
// directives. It never touches fenced code and keeps every newline, so a
// line of the cleaned body is the same line of the original body.
type cleaner struct {
	src    []byte
	out    []byte
	mdx    bool
	fences []span // fenced code blocks of src, whole lines, in order

	// budget bounds the bytes scanned by attempts that fail (an unclosed
	// tag, comment or statement), which keeps cleaning linear on hostile
	// input. When it runs out, multi-byte constructs are no longer tried.
	budget int

	// noClose* remember that a closing delimiter does not occur after a
	// position of the current run, so that searching for it again is
	// pointless. They hold the run's end when set, 0 otherwise.
	noCloseHTMLComment int
	noCloseMDXComment  int
	noCloseShortcode   [2]int // for ">}}" and "%}}"
}

// clean returns the cleaned body and the fenced code blocks found in it
// (cleaning never changes their bytes nor their offsets relative to the
// line structure; the returned spans are offsets into the cleaned body).
func clean(src []byte, mdx bool) ([]byte, []span) {
	c := &cleaner{
		src:    src,
		out:    make([]byte, 0, len(src)),
		mdx:    mdx,
		budget: 4*len(src) + 1<<16,
	}
	c.fences = findFences(src)
	var outFences []span
	pos := 0
	for _, f := range c.fences {
		if f.start > pos {
			c.cleanRun(pos, f.start)
		}
		start := len(c.out)
		c.out = append(c.out, src[f.start:f.end]...)
		outFences = append(outFences, span{start, len(c.out)})
		pos = f.end
	}
	if pos < len(src) {
		c.cleanRun(pos, len(src))
	}
	return c.out, outFences
}

// lineEnd returns the index of the '\n' ending the line that holds i, or
// len(src).
func lineEnd(src []byte, i int) int {
	if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(src)
}

// fenceOpen reports whether line opens a code fence, after optional
// indentation and blockquote markers, and returns the fence character and
// length.
func fenceOpen(line []byte) (byte, int, bool) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '>') {
		i++
	}
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0, false
	}
	ch := line[i]
	n := 0
	for i+n < len(line) && line[i+n] == ch {
		n++
	}
	if n < 3 {
		return 0, 0, false
	}
	if ch == '`' && bytes.IndexByte(line[i+n:], '`') >= 0 {
		return 0, 0, false
	}
	return ch, n, true
}

// fenceClose reports whether line closes a fence of n ch characters.
func fenceClose(line []byte, ch byte, n int) bool {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '>') {
		i++
	}
	m := 0
	for i < len(line) && line[i] == ch {
		i++
		m++
	}
	if m < n {
		return false
	}
	return len(bytes.TrimSpace(line[i:])) == 0
}

// findFences returns the fenced code blocks of src as whole-line spans,
// opening and closing fence lines included. An unclosed fence runs to the
// end of src, as in CommonMark. Fences may be indented (as inside JSX
// components and list items) or quoted.
func findFences(src []byte) []span {
	var fences []span
	for i := 0; i < len(src); {
		e := lineEnd(src, i)
		ch, n, ok := fenceOpen(src[i:e])
		if !ok {
			i = e + 1
			continue
		}
		start := i
		i = e + 1
		closed := false
		for i < len(src) {
			e := lineEnd(src, i)
			if fenceClose(src[i:e], ch, n) {
				i = e + 1
				closed = true
				break
			}
			i = e + 1
		}
		end := min(i, len(src))
		if !closed {
			end = len(src)
		}
		fences = append(fences, span{start, end})
	}
	return fences
}

// emitNewlines appends the newlines of src[a:b] to out, dropping the rest.
func (c *cleaner) emitNewlines(a, b int) {
	for {
		j := bytes.IndexByte(c.src[a:b], '\n')
		if j < 0 {
			return
		}
		c.out = append(c.out, '\n')
		a += j + 1
	}
}

// cleanRun cleans src[start:end], a run of whole lines outside fences.
func (c *cleaner) cleanRun(start, end int) {
	c.noCloseHTMLComment, c.noCloseMDXComment = 0, 0
	c.noCloseShortcode = [2]int{}
	p := start
	prevBlank := true // the previous output line holds only whitespace
	for p < end {
		// p is at the start of a line.
		e := lineEnd(c.src[:end], p)
		line := c.src[p:e]
		lineOut := len(c.out)
		if prevBlank && c.isESM(line) {
			if q := c.esmEnd(p, end); q > p {
				c.emitNewlines(p, q)
				p = q
				// The statement's last line is blank now; p is at its '\n'.
				if p < end && c.src[p] == '\n' {
					c.out = append(c.out, '\n')
					p++
				}
				prevBlank = true
				continue
			}
		}
		if repl, ok := rewriteLine(line); ok {
			c.out = append(c.out, repl...)
			p = e
		} else {
			p = c.cleanInline(p, end, isATXHeading(line))
		}
		seg := c.out[lineOut:]
		if i := bytes.LastIndexByte(seg, '\n'); i >= 0 {
			// A multi-line construct ended on this line.
			seg = seg[i+1:]
		}
		prevBlank = len(bytes.TrimSpace(seg)) == 0
		if p < end && c.src[p] == '\n' {
			c.out = append(c.out, '\n')
			p++
		}
	}
}

// isATXHeading reports whether line looks like an ATX heading line.
func isATXHeading(line []byte) bool {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	n := 0
	for i < len(line) && line[i] == '#' {
		i++
		n++
	}
	return n >= 1 && n <= 6 && (i == len(line) || line[i] == ' ' || line[i] == '\t')
}

// cleanInline copies the line starting at p to out, dropping tags,
// comments and shortcodes; a dropped construct may span several lines.
// It returns the position of the '\n' ending the last line it handled (or
// end).
func (c *cleaner) cleanInline(p, end int, heading bool) int {
	src := c.src
	for p < end {
		ch := src[p]
		switch ch {
		case '\n':
			return p
		case '\\':
			if p+1 < end && src[p+1] != '\n' {
				c.out = append(c.out, src[p], src[p+1])
				p += 2
				continue
			}
		case '`':
			p = c.copyCodeSpan(p, end)
			continue
		case '<':
			if q, block := c.tagEnd(p, end); q > p {
				c.dropped(p, q, block)
				p = q
				continue
			}
		case '{':
			if q := c.braceConstructEnd(p, end, heading); q > p {
				c.dropped(p, q, false)
				p = q
				continue
			}
		}
		c.out = append(c.out, ch)
		p++
	}
	return p
}

// dropped records that src[a:b] was removed: its newlines are kept, and a
// block-level HTML tag between two words leaves a space.
func (c *cleaner) dropped(a, b int, space bool) {
	c.emitNewlines(a, b)
	if space && len(c.out) > 0 && !isSpace(c.out[len(c.out)-1]) && b < len(c.src) && !isSpace(c.src[b]) {
		c.out = append(c.out, ' ')
	}
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r'
}

// copyCodeSpan copies an inline code span starting at p verbatim, or the
// backtick run alone when it has no closing run on the same line.
func (c *cleaner) copyCodeSpan(p, end int) int {
	src := c.src
	n := 0
	for p+n < end && src[p+n] == '`' {
		n++
	}
	e := lineEnd(src[:end], p)
	if c.budget <= 0 {
		e = min(e, p+n+256)
	}
	for i := p + n; i < e; {
		if src[i] != '`' {
			i++
			continue
		}
		m := 0
		for i+m < e && src[i+m] == '`' {
			m++
		}
		if m == n {
			c.out = append(c.out, src[p:i+m]...)
			return i + m
		}
		i += m
	}
	c.spend(e - p)
	c.out = append(c.out, src[p:p+n]...)
	return p + n
}

// spend charges n scanned bytes of a failed attempt to the budget.
func (c *cleaner) spend(n int) { c.budget -= n }

// blockTags are HTML elements whose removal between two words should
// leave a space.
var blockTags = map[string]bool{
	"br": true, "p": true, "div": true, "td": true, "th": true, "tr": true,
	"li": true, "hr": true, "dt": true, "dd": true, "table": true, "section": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
}

// tagEnd returns the end of the HTML comment, JSX fragment or JSX/HTML tag
// starting at p, and whether it is a block-level HTML tag, or p when there
// is none.
func (c *cleaner) tagEnd(p, end int) (int, bool) {
	src := c.src
	if p+1 >= end {
		return p, false
	}
	if bytes.HasPrefix(src[p:end], []byte("<!--")) {
		if c.noCloseHTMLComment == end {
			return p, false
		}
		if i := bytes.Index(src[p+4:end], []byte("-->")); i >= 0 {
			return p + 4 + i + 3, false
		}
		c.noCloseHTMLComment = end
		return p, false
	}
	if c.budget <= 0 {
		return p, false
	}
	limit := min(end, p+maxConstructLen)
	i := p + 1
	closing := false
	if src[i] == '/' {
		closing = true
		i++
	}
	if i < limit && src[i] == '>' { // <> or </>
		return i + 1, false
	}
	if i >= limit || !isASCIILetter(src[i]) {
		return p, false
	}
	nameStart := i
	for i < limit && (isASCIILetter(src[i]) || isDigit(src[i]) || src[i] == '.' || src[i] == '-' || src[i] == ':' || src[i] == '_') {
		i++
	}
	name := src[nameStart:i]
	if i >= limit {
		return p, false
	}
	block := blockTags[strings.ToLower(string(name))]
	switch src[i] {
	case ' ', '\t', '\n', '\r', '/', '>', '{':
	default:
		return p, false
	}
	q := c.attrsEnd(i, limit, closing)
	if q < 0 {
		c.spend(i - p)
		return p, false
	}
	return q, block
}

// attrsEnd parses the attributes of a tag from i up to its closing '>' and
// returns the position after it, or -1 when this is not a tag.
func (c *cleaner) attrsEnd(i, limit int, closing bool) int {
	src := c.src
	start := i
	fail := func() int {
		c.spend(i - start)
		return -1
	}
	for {
		// Skip whitespace, but not a blank line.
		nl := 0
		for i < limit && isSpace(src[i]) {
			if src[i] == '\n' {
				nl++
				if nl > 1 {
					return fail()
				}
			}
			i++
		}
		if i >= limit {
			return fail()
		}
		switch ch := src[i]; {
		case ch == '>':
			return i + 1
		case ch == '/' && i+1 < limit && src[i+1] == '>':
			return i + 2
		case closing:
			return fail()
		case ch == '{':
			j := c.bracesEnd(i, limit)
			if j < 0 {
				return fail()
			}
			i = j
		case isASCIILetter(ch) || ch == '_' || ch == ':' || ch == '@':
			for i < limit && (isASCIILetter(src[i]) || isDigit(src[i]) || strings.IndexByte("_:.-@", src[i]) >= 0) {
				i++
			}
			j := i
			for j < limit && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			if j >= limit || src[j] != '=' {
				continue
			}
			i = j + 1
			for i < limit && (src[i] == ' ' || src[i] == '\t') {
				i++
			}
			if i >= limit {
				return fail()
			}
			switch q := src[i]; q {
			case '"', '\'':
				k := bytes.IndexByte(src[i+1:limit], q)
				if k < 0 {
					i = limit
					return fail()
				}
				i += k + 2
			case '{':
				j := c.bracesEnd(i, limit)
				if j < 0 {
					return fail()
				}
				i = j
			default:
				j := i
				for j < limit && !isSpace(src[j]) && src[j] != '>' && src[j] != '"' && src[j] != '\'' && src[j] != '<' && src[j] != '`' {
					j++
				}
				if j == i {
					return fail()
				}
				i = j
			}
		default:
			return fail()
		}
	}
}

// bracesEnd returns the position after the balanced {...} expression
// starting at i, or -1. It knows JS strings and template literals well
// enough to skip braces inside them.
func (c *cleaner) bracesEnd(i, limit int) int {
	src := c.src
	start := i
	depth := 0
	for i < limit {
		switch ch := src[i]; ch {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"', '\'', '`':
			j := i + 1
			for j < limit && src[j] != ch {
				if src[j] == '\\' {
					j++
				} else if src[j] == '\n' && ch != '`' {
					break
				}
				j++
			}
			if j >= limit {
				c.spend(j - start)
				return -1
			}
			i = j
		}
		i++
	}
	c.spend(i - start)
	return -1
}

// braceConstructEnd returns the end of an MDX comment {/* ... */} or a Hugo
// shortcode {{< ... >}} / {{% ... %}} starting at p, or p. In heading
// lines, MDX comments are kept: they carry explicit anchors.
func (c *cleaner) braceConstructEnd(p, end int, heading bool) int {
	src := c.src[:end]
	rest := src[p:]
	switch {
	case bytes.HasPrefix(rest, []byte("{/*")):
		if heading || c.noCloseMDXComment == end {
			return p
		}
		if i := bytes.Index(rest[3:], []byte("*/}")); i >= 0 {
			return p + 3 + i + 3
		}
		c.noCloseMDXComment = end
	case bytes.HasPrefix(rest, []byte("{{<")), bytes.HasPrefix(rest, []byte("{{%")):
		k, closer := 0, []byte(">}}")
		if rest[2] == '%' {
			k, closer = 1, []byte("%}}")
		}
		if c.noCloseShortcode[k] == end {
			return p
		}
		if i := bytes.Index(rest[3:], closer); i >= 0 {
			return p + 3 + i + 3
		}
		c.noCloseShortcode[k] = end
	}
	return p
}

func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }
func isDigit(b byte) bool       { return b >= '0' && b <= '9' }

// isESM reports whether line starts an MDX import or export statement. In
// MDX files any top-level import/export line does; in plain markdown only
// lines that clearly are ESM (import ... from '...', import '...', export
// const/function/default ...) do.
func (c *cleaner) isESM(line []byte) bool {
	var rest []byte
	switch {
	case bytes.HasPrefix(line, []byte("import")):
		rest = line[6:]
		if len(rest) == 0 || (rest[0] != ' ' && rest[0] != '{' && rest[0] != '*' && rest[0] != '\'' && rest[0] != '"') {
			return false
		}
		if c.mdx {
			return true
		}
		r := bytes.TrimLeft(rest, " ")
		if len(r) > 0 && (r[0] == '\'' || r[0] == '"') {
			return true
		}
		if bytes.Contains(rest, []byte(" from '")) || bytes.Contains(rest, []byte(" from \"")) {
			return true
		}
		// A multi-line import: import {\n  a,\n} from 'x'.
		return bytes.Equal(bytes.TrimSpace(r), []byte("{"))
	case bytes.HasPrefix(line, []byte("export")):
		rest = line[6:]
		if len(rest) == 0 || (rest[0] != ' ' && rest[0] != '{' && rest[0] != '*') {
			return false
		}
		if c.mdx {
			return true
		}
		r := bytes.TrimLeft(rest, " ")
		for _, kw := range []string{"const ", "let ", "var ", "function ", "function*", "default ", "class ", "async ", "{", "*"} {
			if bytes.HasPrefix(r, []byte(kw)) {
				return true
			}
		}
	}
	return false
}

// esmEnd returns the position of the '\n' that ends the ESM statement
// starting at p (or end): the first line end where brackets are balanced
// outside strings. A statement that never balances ends at its first line.
func (c *cleaner) esmEnd(p, end int) int {
	src := c.src
	limit := end
	if c.budget <= 0 {
		limit = min(end, p+256)
	}
	limit = min(limit, p+maxConstructLen)
	depth := 0
	for i := p; i < limit; i++ {
		switch ch := src[i]; ch {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		case '\n':
			if depth == 0 {
				return i
			}
		case '/':
			if i+1 < limit && src[i+1] == '/' { // line comment
				for i+1 < limit && src[i+1] != '\n' {
					i++
				}
			}
		case '"', '\'', '`':
			j := i + 1
			for j < limit && src[j] != ch {
				if src[j] == '\\' {
					j++
				} else if src[j] == '\n' && ch != '`' {
					break
				}
				j++
			}
			if j >= limit {
				i = limit
				continue
			}
			if src[j] == '\n' {
				// An unterminated string: let the newline be seen.
				i = j - 1
				continue
			}
			i = j
		}
	}
	if limit == end && depth == 0 {
		return end
	}
	// Unbalanced: MDX drops the first line only, markdown keeps it.
	c.spend(limit - p)
	if !c.mdx {
		return p
	}
	return lineEnd(src[:end], p)
}

// rewriteLine rewrites whole-line constructs: admonition fences (fastapi's
// "/// tip | Title" ... "///", Docusaurus/VitePress ":::tip Title" ...
// ":::", Nuxt MDC "::note{...}" ... "::") and fastapi include directives ({!path!}, {* path hl[1] *}). It
// reports false when line is none of them.
func rewriteLine(line []byte) ([]byte, bool) {
	t := bytes.TrimRight(line, " \t\r")
	indent := 0
	for indent < len(t) && (t[indent] == ' ' || t[indent] == '\t') {
		indent++
	}
	body := t[indent:]
	if len(body) < 3 && string(body) != "::" {
		return nil, false
	}
	var out []byte
	switch body[0] {
	case '/', ':':
		ch := body[0]
		n := 0
		for n < len(body) && body[n] == ch {
			n++
		}
		if n < 3 && !(ch == ':' && n == 2) { // "::name" is Nuxt's MDC syntax
			return nil, false
		}
		rest := bytes.TrimLeft(body[n:], " \t")
		if len(rest) == 0 {
			return append(out, t[:indent]...), true // closing fence
		}
		if !isASCIILetter(rest[0]) {
			return nil, false
		}
		k := 0
		for k < len(rest) && (isASCIILetter(rest[k]) || isDigit(rest[k]) || rest[k] == '-' || rest[k] == '_') {
			k++
		}
		kind := string(rest[:k])
		title := rest[k:]
		if ch == '/' {
			title = bytes.TrimSpace(title)
			if len(title) > 0 && title[0] != '|' {
				return nil, false
			}
			title = bytes.TrimPrefix(title, []byte("|"))
		}
		title = admonitionTitle(title)
		out = append(out, t[:indent]...)
		switch kind {
		case "code-group", "tabs", "card-group", "steps":
			return out, true
		}
		out = append(out, "**"...)
		out = append(out, strings.ToUpper(kind[:1])...)
		out = append(out, strings.ReplaceAll(kind[1:], "-", " ")...)
		out = append(out, ":**"...)
		if len(title) > 0 {
			out = append(out, ' ')
			out = append(out, title...)
		}
		return out, true
	case '{':
		var inner []byte
		switch {
		case bytes.HasPrefix(body, []byte("{!")) && bytes.HasSuffix(body, []byte("!}")) && len(body) >= 4:
			inner = body[2 : len(body)-2]
		case bytes.HasPrefix(body, []byte("{*")) && bytes.HasSuffix(body, []byte("*}")) && len(body) >= 4:
			inner = body[2 : len(body)-2]
		default:
			return nil, false
		}
		fields := bytes.Fields(inner)
		if len(fields) == 0 {
			return nil, false
		}
		path := fields[0]
		for {
			switch {
			case bytes.HasPrefix(path, []byte("../")):
				path = path[3:]
				continue
			case bytes.HasPrefix(path, []byte("./")):
				path = path[2:]
				continue
			}
			break
		}
		out = append(out, t[:indent]...)
		out = append(out, "(example: "...)
		out = append(out, path...)
		out = append(out, ')')
		return out, true
	}
	return nil, false
}

// admonitionTitle cleans the title part of an admonition opening line:
// "[Title]", "{title=...}" attributes and quotes are removed.
func admonitionTitle(t []byte) []byte {
	t = bytes.TrimSpace(t)
	if i := bytes.IndexByte(t, '{'); i >= 0 && bytes.HasSuffix(t, []byte("}")) {
		t = bytes.TrimSpace(t[:i])
	}
	if len(t) >= 2 && t[0] == '[' && t[len(t)-1] == ']' {
		t = bytes.TrimSpace(t[1 : len(t)-1])
	}
	if len(t) >= 2 && (t[0] == '"' || t[0] == '\'') && t[len(t)-1] == t[0] {
		t = bytes.TrimSpace(t[1 : len(t)-1])
	}
	return t
}
