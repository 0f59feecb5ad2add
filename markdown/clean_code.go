package markdown

import (
	"bytes"
	"strings"
)

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
