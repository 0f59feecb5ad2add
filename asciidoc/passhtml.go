package asciidoc

import "strings"

// A raw passthrough (+++x+++, pass:[x]; Asciidoctor's
// Substitutors#extract_passthroughs with no substitutions) puts its text
// into the page's HTML as written: "== pass:[<b>Bold</b>] title" is an
// h2 reading "Bold title", "Bold" in bold, and "a +++<u>x</u>+++ b" a
// paragraph reading "a x b". The reader writes, in prose as in titles,
// what the page shows: the tags' text, with markdown emphasis for the
// simple tags (b and strong bold, i and em italic, code, kbd, samp and
// tt a code span), a space for a tag that breaks the line or starts a
// block (br, p, div, li…), and character references as their
// characters; other tags are dropped. No tag reaches the markdown, where
// a renderer would read it as HTML (and package markdown an h2 as a
// section): the text is escaped as any other, and the emphasis nested
// at most maxInlineDepth deep, at a cost linear in the passthrough. In
// plain text (titles for <<id>>, the document title, navigation
// entries) the text alone. A passthrough that escapes special
// characters (++x++, pass:c[x]) shows its tags as text, as the page does.

// htmlToken is a tag or a run of text of a raw passthrough s:
// s[start:end]. It holds no pointer, which keeps many cheap.
type htmlToken struct {
	start, end int
	// pair is, for an opening tag of emphasis or code, the index of the
	// closing tag that ends it; else -1.
	pair int
	// kind is 0 for text; for a tag, its htmlKinds kind, or 't' for
	// another inline tag, or ' ' for one that leaves a space.
	kind  byte
	close bool // a closing tag ("</b>")
}

// htmlKinds are the tags written as markdown (bold, italic, code, a
// link, an image by its alt text) and those whose text the page does
// not show (script, style).
var htmlKinds = map[string]byte{
	"b": 'b', "strong": 'b', "i": 'i', "em": 'i',
	"code": 'c', "kbd": 'c', "samp": 'c', "tt": 'c',
	"a": 'a', "img": 'm', "script": 'x', "style": 'x',
}

// pairedKinds are the kinds whose opening tag is paired with its
// closing one.
const pairedKinds = "bicax"

// inlineTags are the other HTML tags that run within a line of text:
// dropped without a space. Any other tag (br, p, div, li…) leaves one.
var inlineTags = map[string]bool{
	"abbr": true, "bdi": true, "bdo": true, "big": true,
	"cite": true, "data": true, "del": true, "dfn": true,
	"font": true, "ins": true, "mark": true, "q": true,
	"s": true, "small": true, "span": true, "strike": true,
	"sub": true, "sup": true, "time": true,
	"u": true, "var": true, "wbr": true,
}

// htmlTokens splits s into tags and text: a tag is "<" then a letter (or
// "/" and a letter, or "!") up to the next ">". Closing tags are paired
// with the opening ones of their kind (htmlKinds), innermost first. The
// cost is linear in s.
func htmlTokens(s string) []htmlToken {
	// A tag and the text before it for each '<', and the text after.
	toks := make([]htmlToken, 0, 2*strings.Count(s, "<")+1)
	noClose := false // no '>' after the last '<' looked at, nor after a later one
	text := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' || noClose || i+1 >= len(s) {
			continue
		}
		k := i + 1
		end := false
		if s[k] == '/' {
			end = true
			k++
		}
		if k >= len(s) || !isASCIILetter(s[k]) && !(s[k] == '!' && !end) {
			continue
		}
		j := strings.IndexByte(s[k:], '>')
		if j < 0 {
			noClose = true
			continue
		}
		n := k
		for n < len(s) && n-k < 16 && (isASCIILetter(s[n]) || s[n] >= '0' && s[n] <= '9') {
			n++
		}
		if i > text {
			toks = append(toks, htmlToken{start: text, end: i, pair: -1})
		}
		name := strings.ToLower(s[k:n])
		kind := htmlKinds[name]
		switch {
		case kind != 0:
		case inlineTags[name]:
			kind = 't'
		default:
			kind = ' '
		}
		toks = append(toks, htmlToken{start: i, end: k + j + 1, pair: -1, kind: kind, close: end})
		i = k + j
		text = i + 1
	}
	if text < len(s) {
		toks = append(toks, htmlToken{start: text, end: len(s), pair: -1})
	}
	var open [len(pairedKinds)][]int
	for i, t := range toks {
		k := strings.IndexByte(pairedKinds, t.kind)
		switch {
		case t.kind == 0 || k < 0:
		case !t.close:
			open[k] = append(open[k], i)
		case len(open[k]) > 0:
			o := open[k]
			toks[o[len(o)-1]].pair = i
			open[k] = o[:len(o)-1]
		}
	}
	return toks
}

// passHTML writes the text of a raw passthrough as the page shows it
// (see above). Its character references are decoded as in the rest of
// the text (decodeEntities): one without its ';', which a browser may
// still read, is text.
func (in *inliner) passHTML(b *strings.Builder, s string) {
	in.htmlRange(b, s, htmlTokens(s), 0, -1, 0)
}

// htmlTextRun writes text of a raw passthrough: as it is in plain text,
// else escaped (lit), and "*" and "_" too, which the page shows as
// written and markdown would read as emphasis.
func (in *inliner) htmlTextRun(b *strings.Builder, text string) {
	if in.plain {
		b.WriteString(text)
		return
	}
	for {
		k := strings.IndexAny(text, "*_")
		if k < 0 {
			in.lit(b, text)
			return
		}
		in.lit(b, text[:k])
		b.WriteByte('\\')
		b.WriteByte(text[k])
		text = text[k+1:]
	}
}

// htmlAttr returns the value of attribute name of tag (an HTML start
// tag as written, "<a href='x' ...>"), character references decoded, or
// "" when it has none.
func htmlAttr(tag, name string) string {
	tag = strings.TrimSuffix(strings.TrimPrefix(tag, "<"), ">")
	// Past the tag's name.
	i := strings.IndexFunc(tag, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '/' })
	for i >= 0 && i < len(tag) {
		for i < len(tag) && (tag[i] == ' ' || tag[i] == '\t' || tag[i] == '\n' || tag[i] == '/') {
			i++
		}
		j := i
		for j < len(tag) && tag[j] != '=' && tag[j] != ' ' && tag[j] != '\t' && tag[j] != '\n' && tag[j] != '/' {
			j++
		}
		key := tag[i:j]
		for j < len(tag) && (tag[j] == ' ' || tag[j] == '\t' || tag[j] == '\n') {
			j++
		}
		if key == "" || j >= len(tag) || tag[j] != '=' {
			if j == i {
				return ""
			}
			i = j
			continue
		}
		j++
		for j < len(tag) && (tag[j] == ' ' || tag[j] == '\t' || tag[j] == '\n') {
			j++
		}
		var value string
		if j < len(tag) && (tag[j] == '"' || tag[j] == '\'') {
			q := tag[j]
			end := strings.IndexByte(tag[j+1:], q)
			if end < 0 {
				end = len(tag) - j - 1
			}
			value, i = tag[j+1:j+1+end], min(j+2+end, len(tag))
		} else {
			end := j
			for end < len(tag) && tag[end] != ' ' && tag[end] != '\t' && tag[end] != '\n' {
				end++
			}
			value, i = tag[j:end], end
		}
		if strings.EqualFold(key, name) {
			return decodeEntities(value)
		}
	}
	return ""
}

// safeHref reports whether a passthrough link's target may be a
// markdown link's: not empty, and not a script or inline data, which a
// browser would run.
func safeHref(href string) bool {
	h := strings.ToLower(strings.Map(func(r rune) rune {
		if r <= ' ' {
			return -1
		}
		return r
	}, href))
	return h != "" && !strings.HasPrefix(h, "javascript:") && !strings.HasPrefix(h, "vbscript:") && !strings.HasPrefix(h, "data:")
}

// htmlText returns what a raw passthrough shows as plain text: its text
// without tags, character references decoded.
func htmlText(s string) string {
	var b strings.Builder
	(&inliner{plain: true}).passHTML(&b, s)
	return b.String()
}

// htmlRange writes the tokens toks[lo:hi] of s (hi -1 for all of them);
// depth counts the emphasis it is nested in, which maxInlineDepth
// bounds.
func (in *inliner) htmlRange(b *strings.Builder, s string, toks []htmlToken, lo, hi, depth int) {
	if hi < 0 {
		hi = len(toks)
	}
	for i := lo; i < hi; i++ {
		t := toks[i]
		paired := t.pair > i && t.pair < hi
		switch {
		case t.kind == 0:
			in.htmlTextRun(b, decodeEntities(s[t.start:t.end]))
		case paired && t.kind == 'x':
			i = t.pair // a script's or style's text: the page shows none
		case paired && t.kind == 'a' && depth < maxInlineDepth:
			var inner strings.Builder
			saved := in.inLink
			in.inLink = true
			in.htmlRange(&inner, s, toks, i+1, t.pair, depth+1)
			in.inLink = saved
			if href := htmlAttr(s[t.start:t.end], "href"); safeHref(href) {
				in.link(b, inner.String(), href)
			} else {
				b.WriteString(inner.String())
			}
			i = t.pair
		case t.kind == 'm':
			in.htmlTextRun(b, htmlAttr(s[t.start:t.end], "alt"))
		case paired && t.kind == 'c':
			var code strings.Builder
			for _, c := range toks[i+1 : t.pair] {
				if c.kind == 0 {
					code.WriteString(decodeEntities(s[c.start:c.end]))
				}
			}
			in.code(b, code.String())
			i = t.pair
		case paired && depth < maxInlineDepth:
			delim := "**"
			if t.kind == 'i' {
				delim = "*"
			}
			var inner strings.Builder
			in.htmlRange(&inner, s, toks, i+1, t.pair, depth+1)
			text := inner.String()
			body := strings.TrimLeft(text, " \t\n")
			lead := len(text) - len(body)
			body = strings.TrimRight(body, " \t\n")
			if body == "" {
				b.WriteString(text)
			} else {
				// Markdown emphasis neither starts nor ends with a space.
				b.WriteString(text[:lead])
				in.raw(b, delim)
				b.WriteString(body)
				in.raw(b, delim)
				b.WriteString(text[lead+len(body):])
			}
			i = t.pair
		case t.kind == ' ':
			if str := b.String(); str != "" && str[len(str)-1] != ' ' {
				b.WriteByte(' ')
			}
		}
	}
}
