package markdown

import (
	"bytes"
	"slices"
	"strings"
)

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
		// "{!> path !}" is mdx_include's form that keeps the file's
		// indentation: the path follows the '>'.
		inner = bytes.TrimPrefix(bytes.TrimSpace(inner), []byte(">"))
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
