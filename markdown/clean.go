package markdown

import (
	"bytes"
)

// Before cleaning, collapseTabs (tabs.go) leaves out the content tabs
// that are an older version's variant of a tab kept before them.
//
// The cleaner's passes, in the order clean applies them at each line of a
// file (a file of its own holds each dialect's constructs):
//
//  1. code (clean_code.go): a fenced block is copied untouched, and a Hugo
//     code shortcode becomes one; inline code spans are kept as written;
//  2. ESM (clean_esm.go): an MDX import or export statement after a blank
//     line is dropped;
//  3. blocks (clean_blocks.go): whole-line constructs are rewritten:
//     admonition fences (fastapi, Docusaurus, VitePress), Nuxt MDC block
//     components and their YAML props, mkdocstrings identifiers and their
//     options, webpack markers, GitHub alerts, fastapi include directives;
//  4. inline (clean_html.go, and MDC inline components in
//     clean_blocks.go): HTML and JSX tags, comments, Hugo shortcodes and
//     MDX expressions are dropped, their meaningful text and attribute
//     values kept.
//
// The bytes scanned by attempts that fail (an unclosed tag, comment or
// statement) are charged to a budget of about four times the file's
// size, which keeps cleaning linear on hostile input.

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

// spend charges n scanned bytes of a failed attempt to the budget.
func (c *cleaner) spend(n int) { c.budget -= n }

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

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isASCIILower(b byte) bool { return b >= 'a' && b <= 'z' }

// lineEnd returns the index of the '\n' ending the line that holds i, or
// len(src).
func lineEnd(src []byte, i int) int {
	if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(src)
}
