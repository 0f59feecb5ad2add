package markdown

import (
	"bytes"
	"strings"
)

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
// for <sup> and <sub> with content (nothing for a self-closing one). Heading lines keep no attribute text, so that
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
	selfClosing := src[q-2] == '/'
	switch {
	case selfClosing && (string(tag) == "sup" || string(tag) == "sub"):
		// An empty <sup/> (a version badge: <sup class="vt-badge"
		// data-text="3.5+" />) marks nothing up.
		return
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
