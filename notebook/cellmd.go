package notebook

import (
	"strings"
)

// Jupyter renders each markdown cell alone, so nothing opened in one cell
// reaches into the next. Once cells are joined into one markdown text,
// markdown.Split would let an unclosed fence, comment or script element
// run on through later cells. isolate closes or escapes them, mirroring
// where the markdown reader's cleaner sees fences (a line starting, after
// spaces, tabs and '>'s, with three or more backticks or tildes),
// comments and script/style elements (anywhere outside fences and code
// spans; a script or style tag only at the start of a line).

// isolate returns a markdown cell's source, ending with a newline, with
// every construct it leaves open closed or escaped: an unclosed fence gets
// a closing fence line at the end (with the opener's prefix, so that a
// fence inside a block quote closes there); an HTML comment or script or
// style element that never closes, and a line-start HTML block
// (processing instruction, declaration, CDATA) that never closes, get a
// backslash before their '<', which makes them text.
func isolate(src string) string {
	if !strings.HasSuffix(src, "\n") {
		src += "\n"
	}
	closers := lastIndexes(src)
	var b strings.Builder
	b.Grow(len(src) + 8)
	// fenceCh, fenceN and fencePrefix describe the open fence, if fenceN > 0.
	var fenceCh byte
	fenceN := 0
	fencePrefix := ""
	// skipTo is where the comment or script/style element the scan is in
	// ends: lines before it are not looked at.
	skipTo := 0
	for p := 0; p < len(src); {
		e := strings.IndexByte(src[p:], '\n') + p // src ends with '\n'
		line := src[p:e]
		switch {
		case e < skipTo:
			b.WriteString(src[p : e+1])
		case p < skipTo:
			// The comment or element ends on this line: scan what follows it.
			b.WriteString(src[p:skipTo])
			skipTo = isolateLine(&b, src, p, skipTo, e, closers)
			b.WriteByte('\n')
		case fenceN > 0:
			if closesFence(line, fenceCh, fenceN) {
				fenceN = 0
			}
			b.WriteString(src[p : e+1])
		default:
			if ch, n, prefix, ok := opensFence(line); ok {
				fenceCh, fenceN, fencePrefix = ch, n, prefix
				b.WriteString(src[p : e+1])
				break
			}
			skipTo = isolateLine(&b, src, p, p, e, closers)
			b.WriteByte('\n')
		}
		p = e + 1
	}
	if fenceN > 0 {
		b.WriteString(fencePrefix)
		b.WriteString(strings.Repeat(string(fenceCh), fenceN))
		b.WriteByte('\n')
	}
	return b.String()
}

// closerIndex holds the last index in a cell of each closing delimiter
// isolate looks for, or -1: a construct opened at p closes iff its
// closer's last index is after p.
type closerIndex struct {
	comment, script, style, pi, cdata, decl int
}

func lastIndexes(src string) closerIndex {
	return closerIndex{
		comment: strings.LastIndex(src, "-->"),
		script:  strings.LastIndex(src, "</script"),
		style:   strings.LastIndex(src, "</style"),
		pi:      strings.LastIndex(src, "?>"),
		cdata:   strings.LastIndex(src, "]]>"),
		decl:    strings.LastIndexByte(src, '>'),
	}
}

// isolateLine writes src[from:e], the rest from from of the line src[p:e]
// (outside fences), to b, escaping openers that never close, and skipping
// code spans. It returns the end of a comment or script/style element that
// starts on the line and closes on a later line (the caller copies the
// lines before it as they are), or 0.
func isolateLine(b *strings.Builder, src string, p, from, e int, c closerIndex) int {
	start := from
	// A line-start HTML block the markdown parser would run to its closer.
	if t := strings.TrimLeft(src[p:e], " "); from == p && e-p-len(t) <= 3 {
		at := e - len(t)
		switch {
		case strings.HasPrefix(t, "<?") && c.pi < at+2,
			strings.HasPrefix(t, "<![CDATA[") && c.cdata < at+9,
			len(t) > 2 && t[0] == '<' && t[1] == '!' && isASCIILetter(t[2]) && c.decl < at:
			b.WriteString(src[start:at])
			b.WriteByte('\\')
			start = at
		}
	}
	var spans *codeSpans // the line's backtick runs, found at the first
	for i := from; i < e; {
		switch src[i] {
		case '\\':
			i += 2
			continue
		case '`':
			if spans == nil {
				spans = newCodeSpans(src, i, e)
			}
			i = spans.end(i)
			continue
		case '<':
			rest := src[i:]
			switch {
			case strings.HasPrefix(rest, "<!--"):
				if c.comment < i+4 {
					b.WriteString(src[start:i])
					b.WriteByte('\\')
					start = i
					break
				}
				end := strings.Index(src[i+4:], "-->") + i + 4 + 3
				if end > e {
					b.WriteString(src[start:e])
					return end
				}
				i = end
				continue
			case (hasTagPrefix(rest, "<script") || hasTagPrefix(rest, "<style")) && atLineStart(src, i):
				closer, last := "</script", c.script
				if hasTagPrefix(rest, "<style") {
					closer, last = "</style", c.style
				}
				if last < i {
					b.WriteString(src[start:i])
					b.WriteByte('\\')
					start = i
					break
				}
				end := strings.Index(src[i:], closer) + i
				if gt := strings.IndexByte(src[end:], '>'); gt >= 0 {
					end += gt + 1
				}
				if end > e {
					b.WriteString(src[start:e])
					return end
				}
				i = end
				continue
			}
		}
		i++
	}
	b.WriteString(src[start:e])
	return 0
}

// hasTagPrefix reports whether s starts with the tag opener open (such as
// "<script") followed by a character that ends a tag name.
func hasTagPrefix(s, open string) bool {
	if len(s) <= len(open) || !strings.EqualFold(s[:len(open)], open) {
		return false
	}
	switch s[len(open)] {
	case ' ', '\t', '\n', '\r', '/', '>':
		return true
	}
	return false
}

// codeSpans knows the backtick runs of a line: a run opens a code span
// closed by the next run of the same length on the line, else it is text.
// Finding each run's closer in one pass keeps a line of many unmatched
// runs linear.
type codeSpans struct {
	start map[int]int // the index in runs of the run starting at an offset
	runs  []run
}

type run struct {
	start, n int
	closer   int // index in runs of the next run of the same length, or -1
}

// newCodeSpans finds the backtick runs of src[from:e].
func newCodeSpans(src string, from, e int) *codeSpans {
	cs := &codeSpans{start: map[int]int{}}
	for i := from; i < e; {
		if src[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < e && src[i+n] == '`' {
			n++
		}
		cs.start[i] = len(cs.runs)
		cs.runs = append(cs.runs, run{start: i, n: n, closer: -1})
		i += n
	}
	last := map[int]int{} // run length to the index of the last run seen
	for k := len(cs.runs) - 1; k >= 0; k-- {
		if c, ok := last[cs.runs[k].n]; ok {
			cs.runs[k].closer = c
		}
		last[cs.runs[k].n] = k
	}
	return cs
}

// end returns the end of the code span whose opening run starts at i, or
// the end of the run alone when nothing closes it.
func (cs *codeSpans) end(i int) int {
	k, ok := cs.start[i]
	if !ok {
		// i is inside a run the scan entered after an escape: skip it.
		return i + 1
	}
	r := cs.runs[k]
	if r.closer < 0 {
		return r.start + r.n
	}
	c := cs.runs[r.closer]
	return c.start + c.n
}

// atLineStart reports whether only spaces and tabs come before src[i] on
// its line.
func atLineStart(src string, i int) bool {
	for k := i - 1; k >= 0 && src[k] != '\n'; k-- {
		if src[k] != ' ' && src[k] != '\t' {
			return false
		}
	}
	return true
}

// opensFence reports whether line opens a code fence as the markdown
// reader's cleaner sees one: after any spaces, tabs and '>'s (the
// prefix), three or more backticks or tildes, with no backtick after
// backticks.
func opensFence(line string) (ch byte, n int, prefix string, ok bool) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '>') {
		i++
	}
	if i >= len(line) || line[i] != '`' && line[i] != '~' {
		return 0, 0, "", false
	}
	ch = line[i]
	for i+n < len(line) && line[i+n] == ch {
		n++
	}
	if n < 3 || ch == '`' && strings.IndexByte(line[i+n:], '`') >= 0 {
		return 0, 0, "", false
	}
	return ch, n, line[:i], true
}

// closesFence reports whether line closes a fence of n ch characters:
// after any spaces, tabs and '>'s, at least n of them and only spaces.
func closesFence(line string, ch byte, n int) bool {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '>') {
		i++
	}
	m := 0
	for i+m < len(line) && line[i+m] == ch {
		m++
	}
	return m >= n && strings.TrimSpace(line[i+m:]) == ""
}

func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// dropEmbedded removes a markdown cell's data: URIs (images pasted into
// it, as ![alt](data:image/png;base64,...) or <img src="data:...">),
// whose payload is binary, often megabytes of base64, and its attachment:
// URLs, which name the cell's attachments, dropped too. What points to
// them stays with an empty destination, so an image's alt text is kept.
func dropEmbedded(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], ':')
		if k < 0 {
			break
		}
		colon := i + k
		i = colon + 1
		start, end := embeddedURL(s, colon)
		if start < 0 {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:start])
		last, i = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// embeddedURL returns the range of the data: URI or attachment: URL whose
// scheme ends at s[colon], or -1, -1. The scheme must follow a delimiter
// of a URL ('(', '<', a quote, '=', whitespace or the start); a data: URI
// must have a media type of at most 200 bytes and a comma; the URL runs to
// the next delimiter, and an attachment: URL must follow one of
// ('(', '<', a quote, '=') and name something.
func embeddedURL(s string, colon int) (int, int) {
	var start int
	switch {
	case colon >= 4 && strings.EqualFold(s[colon-4:colon], "data"):
		start = colon - 4
	case colon >= 10 && strings.EqualFold(s[colon-10:colon], "attachment"):
		start = colon - 10
	default:
		return -1, -1
	}
	delims := "(<\"'= \t\n"
	if colon-start > 4 {
		delims = "(<\"'=" // prose says "Attachment: ..."
	}
	if start > 0 && !strings.ContainsRune(delims, rune(s[start-1])) {
		return -1, -1
	}
	j := colon + 1
	if colon-start == 4 {
		limit := min(len(s), j+200)
		for ; j < limit && s[j] != ','; j++ {
			c := s[j]
			if !(isASCIILetter(c) || c >= '0' && c <= '9' || strings.IndexByte("/;=+-._!#$&^%", c) >= 0) {
				return -1, -1
			}
		}
		if j >= limit {
			return -1, -1
		}
	}
	for ; j < len(s); j++ {
		if strings.IndexByte(")\"'<> \t\n\r", s[j]) >= 0 {
			break
		}
	}
	if j == colon+1 {
		return -1, -1
	}
	return start, j
}
