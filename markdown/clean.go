package markdown

import (
	"bytes"
	"slices"
	"strings"
)

// A span is a half-open byte range [start, end) of a body.
type span struct{ start, end int }

// maxConstructLen bounds how far one JSX tag, MDX expression or ESM
// statement may reach from where it starts, in bytes.
const maxConstructLen = 16 << 10

// cleaner turns a markdown or MDX body into the text that is parsed and
// split: it drops MDX import/export statements, JSX and HTML tags (keeping
// the text of meaningful attributes), script and style elements, comments
// and Hugo shortcodes, and rewrites admonitions, site-specific markers,
// Hugo code shortcodes and fastapi include directives. It never touches the
// text of fenced code and keeps every newline, so a line of the cleaned body
// is the same line of the original body.
type cleaner struct {
	src []byte
	out []byte
	mdx bool
	// noIndentedCode is set for MDX syntax (.mdx files and markdown the
	// cleaner recognises as MDX): indentation does not make code, and a
	// fence may be indented any amount. Such fences are dedented so that
	// goldmark, which allows three spaces, sees them too.
	noIndentedCode bool

	// nextFence is the start of the next line at or after the current
	// line that opens a code fence, or len(src): constructs other than
	// comments and script/style elements do not reach past it.
	nextFence int

	// budget bounds the bytes scanned by attempts that fail (an unclosed
	// tag, comment or statement), which keeps cleaning linear on hostile
	// input. When it runs out, multi-byte constructs are no longer tried.
	budget int

	// noClose* remember that a closing delimiter does not occur after a
	// position of the current run, so that searching for it again is
	// pointless. They hold the run's end when set, 0 otherwise (comments
	// and raw-text elements search up to len(src)).
	noCloseHTMLComment int
	noCloseMDXComment  int
	noCloseShortcode   [2]int // for ">}}" and "%}}"
	noCloseRawText     [2]int // for "</script>" and "</style>"
	noCloseCodeSC      [3]int // for code-toggle, code and highlight closers; len(src) when set

	// noCloseMDCLine is the end of a line with no '}' left on it.
	noCloseMDCLine int

	// codeEnd is where the block codeShortcode rewrote ends.
	codeEnd int

	// eol is the end of the line holding eolFrom (see lineEndBefore).
	eol, eolFrom int

	// attrs holds the meaningful attributes of the last tag tagEnd parsed.
	attrs []attr
	// abbr is the title of the open <abbr> element, written after it.
	abbr []byte
}

// clean returns the cleaned body and the fenced code blocks found in it
// as offsets into the cleaned body, opening and closing fence lines
// included. mdxSyntax turns on MDX-only cleaning (any import/export line is
// ESM); noIndentedCode is described on cleaner.
func clean(src []byte, mdx, noIndentedCode bool) ([]byte, []span) {
	c := &cleaner{
		src:            src,
		out:            make([]byte, 0, len(src)+len(src)/64),
		mdx:            mdx,
		noIndentedCode: noIndentedCode,
		budget:         4*len(src) + 1<<16,
	}
	var outFences []span
	prevBlank := true // the previous output line holds only whitespace
	for p := 0; p < len(src); {
		// p is at the start of a line.
		e := lineEnd(src, p)
		line := src[p:e]
		if ch, n, ok := fenceOpen(line); ok {
			q, closer := fenceEnd(src, e, ch, n)
			start := len(c.out)
			c.copyFence(p, q, closer)
			outFences = append(outFences, span{start, len(c.out)})
			p = q
			prevBlank = true
			continue
		}
		if start := len(c.out); c.codeShortcode(p, e) {
			outFences = append(outFences, span{start, len(c.out)})
			p = c.codeEnd
			prevBlank = true
			continue
		}
		if c.nextFence <= p {
			c.nextFence = findFenceLine(src, e)
		}
		p, prevBlank = c.cleanLine(p, e, c.nextFence, prevBlank)
	}
	return c.out, outFences
}

// findFenceLine returns the start of the first line after the '\n' at
// i that opens a code fence, or len(src).
func findFenceLine(src []byte, i int) int {
	for i++; i < len(src); {
		e := lineEnd(src, i)
		if _, _, ok := fenceOpen(src[i:e]); ok {
			return i
		}
		i = e + 1
	}
	return len(src)
}

// fenceEnd returns the end of the fenced block whose opening line ends at
// e (after its closing line's newline) and the start of its closing line,
// or len(src) and -1 when it is not closed, as in CommonMark.
func fenceEnd(src []byte, e int, ch byte, n int) (int, int) {
	for i := e + 1; i < len(src); {
		le := lineEnd(src, i)
		if fenceClose(src[i:le], ch, n) {
			return min(le+1, len(src)), i
		}
		i = le + 1
	}
	return len(src), -1
}

// copyFence copies the fenced block src[a:b], whose closing line starts
// at closer (or -1), to out. For MDX syntax, where a fence may be indented
// any amount, a block whose opening fence is indented four or more columns
// is dedented so that its opening fence sits at three, and a closing fence
// that was dedented or is indented four or more is put at the opening
// fence's column: goldmark then sees the same fence.
func (c *cleaner) copyFence(a, b, closer int) {
	src := c.src
	if !c.noIndentedCode {
		c.out = append(c.out, src[a:b]...)
		return
	}
	e := lineEnd(src, a)
	w, ok := indentCols(src[a:e])
	if !ok {
		c.out = append(c.out, src[a:b]...)
		return
	}
	d := 0
	if w >= 4 {
		d = w - 3
	}
	closeW := 0
	if closer >= 0 {
		closeW, _ = indentCols(src[closer:lineEnd(src, closer)])
	}
	for p := a; p < b; {
		e := min(lineEnd(src, p), b)
		line := src[p:e]
		if _, ok := indentCols(line); p == closer && ok && (d > 0 || closeW >= 4) {
			// The closing fence goes where the opening one is: it then
			// closes in goldmark whatever container holds the block.
			c.out = append(c.out, strings.Repeat(" ", w-d)...)
			c.out = append(c.out, bytes.TrimLeft(line, " \t")...)
		} else if lw, _ := indentCols(line); lw < w && p != a {
			// Less indented than the opening fence: MDX strips all of its
			// indentation, goldmark strips up to three columns.
			c.out = dedent(c.out, line, lw-min(lw, 3))
		} else {
			c.out = dedent(c.out, line, d)
		}
		if e < b {
			c.out = append(c.out, '\n')
		}
		p = e + 1
	}
}

// indentCols returns the width in columns of line's leading spaces and
// tabs, and false when a '>' comes before its first other character.
func indentCols(line []byte) (int, bool) {
	w := 0
	for _, ch := range line {
		switch ch {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		case '>':
			return w, false
		default:
			return w, true
		}
	}
	return w, true
}

// dedent appends line to dst with up to d columns of leading whitespace
// removed. Leading whitespace holding a tab is rewritten as spaces, since a
// tab's width depends on where it starts.
func dedent(dst, line []byte, d int) []byte {
	if d <= 0 {
		return append(dst, line...)
	}
	w, i, tab := 0, 0, false
	for ; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
		if line[i] == '\t' {
			w += 4 - w%4
			tab = true
		} else {
			w++
		}
	}
	switch {
	case w <= d:
		// All of it goes.
	case !tab:
		dst = append(dst, line[d:i]...)
	default:
		dst = append(dst, strings.Repeat(" ", w-d)...)
	}
	return append(dst, line[i:]...)
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

// cleanLine cleans the line src[p:e], which is outside fences, and any
// following lines a multi-line construct starting on it takes. Constructs
// other than comments and script/style elements stop before end. prevBlank
// tells whether the previous output line is blank; cleanLine returns the
// start of the next line and whether its own last output line is blank.
func (c *cleaner) cleanLine(p, e, end int, prevBlank bool) (int, bool) {
	line := c.src[p:e]
	lineOut := len(c.out)
	if prevBlank && c.isESM(line) {
		if q := c.esmEnd(p, end); q > p {
			c.emitNewlines(p, q)
			p = q
			// The statement's last line is blank now; p is at its '\n'.
			if p < len(c.src) && c.src[p] == '\n' {
				c.out = append(c.out, '\n')
				p++
			}
			return p, true
		}
	}
	if repl, kind := rewriteLine(line); kind != rewriteNone {
		c.out = append(c.out, repl...)
		p = e
		switch kind {
		case rewriteMDCBlock:
			p = c.skipMDCProps(p, end)
		case rewriteMkdocstrings:
			p = c.skipIndented(p, end)
		}
	} else {
		p = c.cleanInline(p, end, isATXHeading(line))
	}
	seg := c.out[lineOut:]
	if i := bytes.LastIndexByte(seg, '\n'); i >= 0 {
		// A multi-line construct ended on this line.
		seg = seg[i+1:]
	}
	blank := len(bytes.TrimSpace(seg)) == 0
	if p < len(c.src) && c.src[p] == '\n' {
		c.out = append(c.out, '\n')
		p++
	}
	return p, blank
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
// end, or further when a comment or script/style element reaches past
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
			if q, block := c.tagEnd(p, end, heading); q > p {
				c.tagText(p, q, heading)
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
		case ':':
			if q := c.mdcInline(p, end); q > p {
				p = q
				continue
			}
		}
		c.out = append(c.out, ch)
		p++
	}
	return p
}

// mdcInline renders a Nuxt MDC inline component :name{attrs} starting at p
// as its title and "(see target)", and returns its end, or p when there is
// none.
func (c *cleaner) mdcInline(p, end int) int {
	src := c.src
	if p+3 >= end || !isASCIILower(src[p+1]) {
		return p
	}
	if p > 0 && !isSpace(src[p-1]) && src[p-1] != '(' {
		return p
	}
	i := p + 1
	for i < end && (isASCIILower(src[i]) || isDigit(src[i]) || src[i] == '-') {
		i++
	}
	if i >= end || src[i] != '{' {
		return p
	}
	e := c.lineEndBefore(i, end)
	if c.noCloseMDCLine == e {
		return p
	}
	j := bytes.IndexByte(src[i:e], '}')
	if j < 0 {
		c.noCloseMDCLine = e // no '}' in the rest of this line
		return p
	}
	title, to := mdcAttrs(src[i+1 : i+j])
	c.out = appendTitleTarget(c.out, title, to)
	return i + j + 1
}

func isASCIILower(b byte) bool { return b >= 'a' && b <= 'z' }

// An attr is a meaningful attribute of a dropped tag: its name and the
// range of its quoted value in src.
type attr struct {
	name       string
	start, end int
}

// textAttrs are the attributes whose values tagText keeps, by name.
var textAttrs = map[string]string{
	"title": "title", "label": "label", "name": "name", "alt": "alt",
	"caption": "caption", "text": "text", "summary": "summary",
	"description": "description", "command": "command", "v": "version",
	"version": "version", "type": "type",
}

// tagText writes the text a tag src[p:q] that tagEnd parsed stands for:
// the values of its meaningful attributes (see textAttrs), or "^" and "_"
// for <sup> and <sub>. Heading lines keep no attribute text, so that
// titles and anchors stay as the site shows them.
func (c *cleaner) tagText(p, q int, heading bool) {
	src := c.src
	if q-p < 4 || src[p+1] == '!' {
		return
	}
	if src[p+1] == '/' {
		// An abbreviation's expansion follows it: "CORS (Cross-Origin...)".
		if len(c.abbr) > 0 && bytes.EqualFold(src[p+2:min(p+7, q)], []byte("abbr>")) {
			c.out = append(c.out, " ("...)
			c.out = appendPlainValue(c.out, c.abbr)
			c.out = append(c.out, ')')
			c.abbr = c.abbr[:0]
		}
		return
	}
	i := p + 1
	for i < q && (isASCIILetter(src[i]) || isDigit(src[i]) || src[i] == '.' || src[i] == '-' || src[i] == ':' || src[i] == '_') {
		i++
	}
	tag := src[p+1 : i]
	switch {
	case string(tag) == "sup":
		c.out = append(c.out, '^')
		return
	case string(tag) == "sub":
		c.out = append(c.out, '_')
		return
	}
	if heading || len(c.attrs) == 0 {
		return
	}
	if string(tag) == "abbr" {
		c.abbr = c.abbr[:0]
		for _, a := range c.attrs {
			if a.name == "title" {
				c.abbr = append(c.abbr, src[a.start:a.end]...)
			}
		}
		return
	}
	html := isASCIILower(tag[0]) // an HTML or custom element, not a component
	var name, typ, label, command, version []byte
	var texts [][]byte
	hasAlt := false
	for _, a := range c.attrs {
		v := bytes.TrimSpace(src[a.start:a.end])
		if len(v) == 0 {
			continue
		}
		switch a.name {
		case "name":
			name = v
		case "type":
			typ = v
		case "label":
			label = v
		case "command":
			command = v
		case "version":
			version = v
		case "alt":
			hasAlt = true
			texts = append(texts, v)
		default:
			texts = append(texts, v)
		}
	}
	if html {
		name, typ, command, version = nil, nil, nil, nil
	}
	if hasAlt {
		name = nil // an image's name is a file name
	}
	var b []byte
	if len(name) > 0 {
		b = appendCodeOrBold(b, name)
		if len(typ) > 0 {
			b = append(b, " ("...)
			b = appendPlainValue(b, typ)
			b = append(b, ')')
		}
	}
	rest := len(label) + len(texts) + len(command) + len(version)
	if len(b) > 0 && (rest > 0 || src[q-2] != '/') {
		b = append(b, ':')
	}
	sep := func() {
		if len(b) > 0 && b[len(b)-1] != ' ' {
			if b[len(b)-1] != ':' {
				b = append(b, ',')
			}
			b = append(b, ' ')
		}
	}
	if len(label) > 0 {
		sep()
		b = append(b, "**"...)
		b = appendPlainValue(b, label)
		b = append(b, "**"...)
	}
	for _, t := range texts {
		sep()
		b = appendPlainValue(b, t)
	}
	if len(command) > 0 {
		sep()
		b = appendCode(b, command)
	}
	if len(version) > 0 {
		sep()
		b = append(b, tag...)
		b = append(b, ' ')
		b = appendPlainValue(b, version)
	}
	if len(b) == 0 {
		return
	}
	atLineStart := true
	for k := len(c.out) - 1; k >= 0 && c.out[k] != '\n'; k-- {
		if !isSpace(c.out[k]) {
			atLineStart = false
			break
		}
	}
	if !atLineStart && !isSpace(c.out[len(c.out)-1]) {
		c.out = append(c.out, ' ')
	}
	if atLineStart && strings.IndexByte("#>-+=|~*_:0123456789", b[0]) >= 0 && !bytes.HasPrefix(b, []byte("**")) {
		c.out = append(c.out, '\\')
	}
	c.out = append(c.out, b...)
	if q < len(src) && !isSpace(src[q]) {
		c.out = append(c.out, ' ')
	}
}

// appendPlainValue appends an attribute value with its whitespace
// collapsed (values may span lines; cleaning keeps line structure).
func appendPlainValue(dst, v []byte) []byte {
	space := false
	for _, ch := range v {
		if isSpace(ch) {
			space = true
			continue
		}
		if space {
			dst = append(dst, ' ')
			space = false
		}
		dst = append(dst, ch)
	}
	return dst
}

// appendCode appends v as an inline code span, or as plain text when it
// holds a backtick.
func appendCode(dst, v []byte) []byte {
	if bytes.IndexByte(v, '`') >= 0 {
		return appendPlainValue(dst, v)
	}
	dst = append(dst, '`')
	dst = appendPlainValue(dst, v)
	return append(dst, '`')
}

// appendCodeOrBold appends a name: an identifier-like one (no spaces) as
// code, any other in bold.
func appendCodeOrBold(dst, v []byte) []byte {
	if bytes.ContainsAny(v, " \t\n") {
		dst = append(dst, "**"...)
		dst = appendPlainValue(dst, v)
		return append(dst, "**"...)
	}
	return appendCode(dst, v)
}

// dropped records that src[a:b] was removed: its newlines are kept, and a
// block-level HTML tag between two words leaves a space.
func (c *cleaner) dropped(a, b int, space bool) {
	c.emitNewlines(a, b)
	if space && len(c.out) > 0 && !isSpace(c.out[len(c.out)-1]) && b < len(c.src) && !isSpace(c.src[b]) {
		c.out = append(c.out, ' ')
	}
}

// lineEndBefore returns min(lineEnd(c.src, p), end). It remembers the
// line end it found, so that the constructs of one long line do not each
// scan to its end.
func (c *cleaner) lineEndBefore(p, end int) int {
	if p < c.eolFrom || c.eol < p || c.eolFrom == 0 && c.eol == 0 {
		c.eol, c.eolFrom = lineEnd(c.src, p), p
	}
	return min(c.eol, end)
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
	e := c.lineEndBefore(p, end)
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

// tagEnd returns the end of the HTML comment, JSX fragment, JSX/HTML tag
// or script/style element starting at p, and whether it is a block-level
// HTML tag, or p when there is none. It leaves the tag's meaningful
// attributes in c.attrs. Comments and script/style elements (opened at the
// start of a line) may reach past end, across fences: a fence inside them
// is not a fence. On heading lines <> and </> are text (tldr's "# <>").
func (c *cleaner) tagEnd(p, end int, heading bool) (int, bool) {
	src := c.src
	c.attrs = c.attrs[:0]
	if p+1 >= end {
		return p, false
	}
	if bytes.HasPrefix(src[p:end], []byte("<!--")) {
		if c.noCloseHTMLComment == len(src) {
			return p, false
		}
		if i := bytes.Index(src[p+4:], []byte("-->")); i >= 0 {
			return p + 4 + i + 3, false
		}
		c.noCloseHTMLComment = len(src)
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
		if heading {
			return p, false
		}
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
	lname := strings.ToLower(string(name))
	block := blockTags[lname]
	switch src[i] {
	case ' ', '\t', '\n', '\r', '/', '>', '{':
	default:
		return p, false
	}
	q := c.attrsEnd(i, limit, closing)
	if q < 0 {
		c.spend(i - p)
		c.attrs = c.attrs[:0]
		return p, false
	}
	if !closing && (lname == "script" || lname == "style") && src[q-2] != '/' && atLineStart(src, p) {
		if r := c.rawTextEnd(q, lname); r > q {
			c.attrs = c.attrs[:0]
			return r, true
		}
	}
	return q, block
}

// atLineStart reports whether only spaces and tabs come before p on its
// line.
func atLineStart(src []byte, p int) bool {
	for k := p - 1; k >= 0 && src[k] != '\n'; k-- {
		if src[k] != ' ' && src[k] != '\t' {
			return false
		}
	}
	return true
}

// rawTextEnd returns the end of the closing tag of the script or style
// element whose opening tag ends at q, or q when it has none.
func (c *cleaner) rawTextEnd(q int, name string) int {
	k := 0
	if name == "style" {
		k = 1
	}
	if c.noCloseRawText[k] != 0 {
		return q
	}
	closer := "</" + name
	for i := q; i < len(c.src); {
		j := bytes.Index(c.src[i:], []byte(closer))
		if j < 0 {
			break
		}
		j += i + len(closer)
		e := j
		for e < len(c.src) && isSpace(c.src[e]) {
			e++
		}
		if e < len(c.src) && c.src[e] == '>' {
			return e + 1
		}
		i = j
	}
	c.noCloseRawText[k] = len(c.src)
	return q
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
			nameStart := i
			for i < limit && (isASCIILetter(src[i]) || isDigit(src[i]) || strings.IndexByte("_:.-@", src[i]) >= 0) {
				i++
			}
			attrName := src[nameStart:i]
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
				if len(attrName) <= len("description") {
					if n, ok := textAttrs[string(attrName)]; ok {
						c.attrs = append(c.attrs, attr{name: n, start: i + 1, end: i + 1 + k})
					}
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
			j := quotedEnd(src, i, limit)
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

// quotedEnd returns the index of the quote closing the JS string or
// template literal opened at src[i] (escapes skipped; a newline ends an
// unterminated ” or "" string and is returned), or a value >= limit.
func quotedEnd(src []byte, i, limit int) int {
	ch := src[i]
	j := i + 1
	for j < limit && src[j] != ch {
		if src[j] == '\\' {
			j++
		} else if src[j] == '\n' && ch != '`' {
			break
		}
		j++
	}
	return j
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
			j := quotedEnd(src, i, limit)
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

// rewriteKind says what rewriteLine did with a line.
type rewriteKind int

const (
	rewriteNone         rewriteKind = iota // not a whole-line construct
	rewriteLineOnly                        // rewritten; nothing follows
	rewriteMDCBlock                        // a Nuxt MDC block component: YAML props may follow
	rewriteMkdocstrings                    // a mkdocstrings identifier: an indented options block may follow
)

// markerNames are the labels of webpack's T>/W>/?> markers and of GitHub's
// alerts, by marker.
var markerNames = map[string]string{
	"T": "Tip", "W": "Warning", "?": "Note",
	"NOTE": "Note", "TIP": "Tip", "WARNING": "Warning", "IMPORTANT": "Important", "CAUTION": "Caution",
}

// rewriteLine rewrites whole-line constructs: admonition fences (fastapi's
// "/// tip | Title" ... "///", Docusaurus/VitePress ":::tip Title" ...
// ":::", Nuxt MDC "::note{...}" ... "::"), mkdocstrings identifiers
// ("::: pkg.Name"), webpack's "T> " markers, GitHub alerts ("> [!NOTE]")
// and fastapi include directives ({!path!}, {* path hl[1] *}).
func rewriteLine(line []byte) ([]byte, rewriteKind) {
	t := bytes.TrimRight(line, " \t\r")
	indent := 0
	for indent < len(t) && (t[indent] == ' ' || t[indent] == '\t') {
		indent++
	}
	body := t[indent:]
	if len(body) < 2 {
		return nil, rewriteNone
	}
	var out []byte
	switch body[0] {
	case 'T', 'W', '?':
		// webpack's markers: "T> text" at the margin.
		if indent > 0 || body[1] != '>' || (len(body) > 2 && body[2] != ' ') {
			return nil, rewriteNone
		}
		out = append(out, "**"+markerNames[string(body[:1])]+":**"...)
		return append(out, body[2:]...), rewriteLineOnly
	case '>':
		// GitHub alerts: "> [!NOTE]".
		r := bytes.TrimLeft(body[1:], " ")
		if !bytes.HasPrefix(r, []byte("[!")) {
			return nil, rewriteNone
		}
		k := bytes.IndexByte(r, ']')
		name, ok := markerNames[string(r[2:max(k, 2)])]
		if k < 0 || !ok {
			return nil, rewriteNone
		}
		out = append(out, t[:indent]...)
		out = append(out, "> **"+name+":**"...)
		return append(out, r[k+1:]...), rewriteLineOnly
	case '/', ':':
		ch := body[0]
		n := 0
		for n < len(body) && body[n] == ch {
			n++
		}
		if n < 3 && !(ch == ':' && n == 2) { // "::name" is Nuxt's MDC syntax
			return nil, rewriteNone
		}
		rest := bytes.TrimLeft(body[n:], " \t")
		if len(rest) == 0 {
			return append(out, t[:indent]...), rewriteLineOnly // closing fence
		}
		if !isASCIILetter(rest[0]) {
			return nil, rewriteNone
		}
		if ch == ':' && n == 3 && isDottedIdent(rest) {
			out = append(out, t[:indent]...)
			out = append(out, '`')
			out = append(out, rest...)
			return append(out, '`'), rewriteMkdocstrings
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
				return nil, rewriteNone
			}
			title = bytes.TrimPrefix(title, []byte("|"))
		}
		title = admonitionTitle(title)
		res := rewriteLineOnly
		if ch == ':' && n == 2 {
			res = rewriteMDCBlock
		}
		out = append(out, t[:indent]...)
		switch kind {
		case "code-group", "tabs", "card-group", "steps":
			return out, res
		}
		out = append(out, "**"...)
		out = append(out, strings.ToUpper(kind[:1])...)
		out = append(out, strings.ReplaceAll(kind[1:], "-", " ")...)
		out = append(out, ":**"...)
		if len(title) > 0 {
			out = append(out, ' ')
			out = append(out, title...)
		}
		return out, res
	case '{':
		var inner []byte
		switch {
		case bytes.HasPrefix(body, []byte("{!")) && bytes.HasSuffix(body, []byte("!}")) && len(body) >= 4:
			inner = body[2 : len(body)-2]
		case bytes.HasPrefix(body, []byte("{*")) && bytes.HasSuffix(body, []byte("*}")) && len(body) >= 4:
			inner = body[2 : len(body)-2]
		default:
			return nil, rewriteNone
		}
		fields := bytes.Fields(inner)
		if len(fields) == 0 {
			return nil, rewriteNone
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
		return out, rewriteLineOnly
	}
	return nil, rewriteNone
}

// isDottedIdent reports whether b is a dotted identifier with at least one
// dot, like fastapi.FastAPI.
func isDottedIdent(b []byte) bool {
	dots := 0
	start := true
	for _, ch := range b {
		switch {
		case ch == '.':
			if start {
				return false
			}
			dots++
			start = true
		case isASCIILetter(ch) || ch == '_' || (!start && isDigit(ch)):
			start = false
		default:
			return false
		}
	}
	return dots > 0 && !start
}

// admonitionTitle cleans the title part of an admonition opening line:
// "[Title]" and quotes are removed, and MDC attributes {title="..."
// to="..."} give the title and a "(see target)" reference.
func admonitionTitle(t []byte) []byte {
	t = bytes.TrimSpace(t)
	var attrs []byte
	if i := bytes.IndexByte(t, '{'); i >= 0 && bytes.HasSuffix(t, []byte("}")) {
		attrs = t[i+1 : len(t)-1]
		t = bytes.TrimSpace(t[:i])
	}
	if len(t) >= 2 && t[0] == '[' && t[len(t)-1] == ']' {
		t = bytes.TrimSpace(t[1 : len(t)-1])
	}
	if len(t) >= 2 && (t[0] == '"' || t[0] == '\'') && t[len(t)-1] == t[0] {
		t = bytes.TrimSpace(t[1 : len(t)-1])
	}
	if attrs != nil {
		title, to := mdcAttrs(attrs)
		t = appendTitleTarget(slices.Clip(t), title, to)
	}
	return t
}

// mdcAttrs returns the title and to values of MDC attributes
// (key="value" key='value' key=value, space-separated).
func mdcAttrs(b []byte) (title, to []byte) {
	for i := 0; i < len(b); {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		k := i
		for i < len(b) && b[i] != '=' && b[i] != ' ' && b[i] != '\t' {
			i++
		}
		key := b[k:i]
		if i >= len(b) || b[i] != '=' {
			continue
		}
		i++
		var v []byte
		if i < len(b) && (b[i] == '"' || b[i] == '\'') {
			q := b[i]
			j := bytes.IndexByte(b[i+1:], q)
			if j < 0 {
				return title, to
			}
			v = b[i+1 : i+1+j]
			i += j + 2
		} else {
			j := i
			for j < len(b) && b[j] != ' ' && b[j] != '\t' {
				j++
			}
			v, i = b[i:j], j
		}
		switch string(key) {
		case "title":
			title = bytes.TrimSpace(v)
		case "to":
			to = bytes.TrimSpace(v)
		}
	}
	return title, to
}

// appendTitleTarget appends title and "(see to)" to dst, space-separated.
func appendTitleTarget(dst, title, to []byte) []byte {
	if len(title) > 0 {
		if len(dst) > 0 && !isSpace(dst[len(dst)-1]) {
			dst = append(dst, ' ')
		}
		dst = append(dst, title...)
	}
	if len(to) > 0 {
		if len(dst) > 0 && !isSpace(dst[len(dst)-1]) {
			dst = append(dst, ' ')
		}
		dst = append(dst, "(see "...)
		dst = append(dst, to...)
		dst = append(dst, ')')
	}
	return dst
}

// skipMDCProps drops the YAML props block ("---" ... "---") that may
// follow a Nuxt MDC block component's opening line, which ends at e, and
// appends its title and to values to that line's output. It returns the
// position of the '\n' ending the last line it handled.
func (c *cleaner) skipMDCProps(e, end int) int {
	src := c.src
	if e >= end || c.budget <= 0 {
		return e
	}
	first := e + 1
	fe := lineEnd(src[:end], first)
	if !isYAMLRule(src[first:fe]) {
		return e
	}
	limit := min(end, first+maxConstructLen)
	var title, to []byte
	for i := fe + 1; i < limit; {
		le := lineEnd(src[:limit], i)
		l := bytes.TrimSpace(src[i:le])
		if isYAMLRule(l) {
			if len(title) > 0 || len(to) > 0 {
				c.out = appendTitleTarget(bytes.TrimRight(c.out, " \t"), title, to)
			}
			c.emitNewlines(e, le)
			return le
		}
		if k, v, ok := bytes.Cut(l, []byte(":")); ok {
			v = bytes.Trim(bytes.TrimSpace(v), `"'`)
			switch string(bytes.TrimSpace(k)) {
			case "title":
				title = v
			case "to":
				to = v
			}
		}
		i = le + 1
	}
	c.spend(limit - e)
	return e
}

// isYAMLRule reports whether line is "---" with optional indentation.
func isYAMLRule(line []byte) bool {
	return string(bytes.TrimSpace(line)) == "---"
}

// skipIndented drops the non-blank indented lines that follow the line
// ending at e (mkdocstrings' options block) and returns the position of
// the '\n' ending the last line it dropped, or e.
func (c *cleaner) skipIndented(e, end int) int {
	src := c.src
	last := e
	for i := e + 1; i < end; {
		le := lineEnd(src[:end], i)
		l := src[i:le]
		if len(l) == 0 || (l[0] != ' ' && l[0] != '\t') || len(bytes.TrimSpace(l)) == 0 {
			break
		}
		last = le
		i = le + 1
	}
	c.emitNewlines(e, last)
	return last
}

// codeShortcodes are the Hugo shortcodes whose body is code, with the
// language their body has unless told otherwise.
var codeShortcodes = []struct{ name, lang string }{
	{"code-toggle", "toml"},
	{"code", ""},
	{"highlight", ""},
}

// codeShortcode turns a Hugo code shortcode ({{< code-toggle ... >}},
// {{< code ... >}}, {{< highlight LANG ... >}}) opening on the line
// src[p:e] and closed on a later line into a fenced code block: the
// shortcode lines become the fence lines and the body is kept as it is.
// It reports false, and writes nothing, for any other line; on success
// c.codeEnd is the start of the line after the closing shortcode.
func (c *cleaner) codeShortcode(p, e int) bool {
	src := c.src
	line := bytes.TrimRight(src[p:e], " \t\r")
	indent := 0
	for indent < len(line) && (line[indent] == ' ' || line[indent] == '\t') {
		indent++
	}
	t := line[indent:]
	if len(t) < 8 || t[0] != '{' || t[1] != '{' || (t[2] != '<' && t[2] != '%') {
		return false
	}
	closer := ">}}"
	if t[2] == '%' {
		closer = "%}}"
	}
	if !bytes.HasSuffix(t, []byte(closer)) || bytes.HasSuffix(t, []byte("/"+closer)) {
		return false
	}
	fields := bytes.Fields(t[3 : len(t)-3])
	if len(fields) == 0 {
		return false
	}
	k := -1
	for i, sc := range codeShortcodes {
		if string(fields[0]) == sc.name {
			k = i
		}
	}
	if k < 0 || c.noCloseCodeSC[k] > p {
		return false
	}
	lang := codeShortcodes[k].lang
	for i, f := range fields[1:] {
		if v, ok := bytes.CutPrefix(f, []byte("lang=")); ok {
			lang = string(bytes.Trim(v, `"'`))
		} else if i == 0 && k == 2 && bytes.IndexByte(f, '=') < 0 {
			lang = string(bytes.Trim(f, `"'`))
		}
	}
	// Find the closing line and the longest backtick run opening a body line.
	ticks := 0
	i := e + 1
	for ; i < len(src); i = lineEnd(src, i) + 1 {
		le := lineEnd(src, i)
		l := bytes.TrimSpace(src[i:le])
		if bytes.HasPrefix(l, []byte("{{")) && bytes.HasSuffix(l, []byte("}}")) && len(l) > 6 {
			inner := bytes.TrimSpace(l[3 : len(l)-3])
			if f := bytes.Fields(inner); len(f) > 0 && string(f[0]) == codeShortcodes[k].name {
				break // another opening: this one is not closed
			}
			if n, ok := bytes.CutPrefix(inner, []byte("/")); ok && string(bytes.TrimSpace(n)) == codeShortcodes[k].name {
				fence := strings.Repeat("`", max(3, ticks+1))
				c.out = append(c.out, line[:indent]...)
				c.out = append(c.out, fence...)
				c.out = append(c.out, lang...)
				c.out = append(c.out, '\n')
				c.out = append(c.out, src[e+1:i]...)
				c.out = append(c.out, line[:indent]...)
				c.out = append(c.out, fence...)
				c.codeEnd = le
				if le < len(src) {
					c.out = append(c.out, '\n')
					c.codeEnd++
				}
				return true
			}
		}
		n := 0
		for n < len(l) && l[n] == '`' {
			n++
		}
		ticks = max(ticks, n)
	}
	if i >= len(src) {
		c.noCloseCodeSC[k] = len(src)
	}
	return false
}
