package asciidoc

import (
	"strings"
)

// blockAttrs are the attributes set on the next block by attribute lines
// ([style#id.role%option,positional,name=value]), anchors ([[id]]) and
// titles (.Title).
type blockAttrs struct {
	style      string
	id         string
	options    []string
	positional []string // after the style
	named      map[string]string
	title      string
	titleSrc   int
	// reftext is the text <<id>> shows for the block: a block anchor's
	// ([[id,reftext]]) or the reftext attribute.
	reftext string
	set     bool
}

// parseAttrList parses the inside of an attribute list.
func parseAttrList(s string) blockAttrs {
	a := blockAttrs{named: map[string]string{}}
	for i, f := range splitAttrs(s) {
		f = strings.TrimSpace(f)
		if k, v, ok := strings.Cut(f, "="); ok && isAttrName(strings.TrimSpace(k)) {
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			k = strings.TrimSpace(k)
			a.named[k] = v
			switch k {
			case "id":
				a.id = v
			case "reftext":
				a.reftext = v
			case "options", "opts":
				a.options = append(a.options, strings.Split(v, ",")...)
			}
			continue
		}
		f = strings.Trim(f, `"`)
		if i > 0 {
			a.positional = append(a.positional, f)
			continue
		}
		// The first positional: style, then #id, .role and %option.
		k := strings.IndexAny(f, "#.%")
		if k < 0 {
			a.style = f
			continue
		}
		a.style = f[:k]
		rest := f[k:]
		for rest != "" {
			mark := rest[0]
			rest = rest[1:]
			e := strings.IndexAny(rest, "#.%")
			if e < 0 {
				e = len(rest)
			}
			v := rest[:e]
			rest = rest[e:]
			switch mark {
			case '#':
				a.id = v
			case '%':
				a.options = append(a.options, v)
			}
		}
	}
	return a
}

// splitAttrs splits an attribute list at commas outside double quotes.
func splitAttrs(s string) []string {
	var out []string
	quoted := false
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func isAttrName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAttrNameByte(s[i]) {
			return false
		}
	}
	return true
}

func (a *blockAttrs) hasOption(o string) bool {
	for _, x := range a.options {
		if strings.TrimSpace(x) == o {
			return true
		}
	}
	return false
}

// merge adds the attributes of another attribute line.
func (a *blockAttrs) merge(b blockAttrs) {
	if b.style != "" {
		a.style = b.style
	}
	if b.id != "" {
		a.id = b.id
	}
	if b.reftext != "" {
		a.reftext = b.reftext
	}
	a.options = append(a.options, b.options...)
	if len(b.positional) > 0 {
		a.positional = b.positional
	}
	if a.named == nil {
		a.named = map[string]string{}
	}
	for k, v := range b.named {
		a.named[k] = v
	}
	a.set = true
}

// admonitions are the admonition styles and their labels.
var admonitions = map[string]string{
	"NOTE": "Note", "TIP": "Tip", "IMPORTANT": "Important", "WARNING": "Warning", "CAUTION": "Caution",
}

// parser turns preprocessed lines into markdown lines.
type parser struct {
	c     *converter
	attrs *attributes
	// depth counts the lists and delimited blocks being parsed, nested.
	depth int
}

// maxBlockDepth bounds the nesting of lists and delimited blocks the
// parser follows; deeper content is written as plain text, which keeps
// hostile nesting from costing quadratic output or deep recursion.
const maxBlockDepth = 32

// maxIndent bounds the indentation of nested list content.
const maxIndent = 24

// blocks parses a sequence of blocks. prefix starts every line written
// (list indentation, "> " in quotes); sections tells whether section
// titles are allowed (not inside delimited blocks).
func (p *parser) blocks(ls []line, prefix string, sections bool) {
	if p.depth >= maxBlockDepth {
		p.prose(ls, prefix, "")
		return
	}
	p.depth++
	defer func() { p.depth-- }()
	var pend blockAttrs
	for i := 0; i < len(ls); {
		i = p.block(ls, i, prefix, sections, &pend)
	}
	// A title with no block after it is kept as text.
	p.title(&pend, prefix)
}

// block parses the block (or attribute line, anchor, title, comment)
// starting at ls[i] and returns the index after it.
func (p *parser) block(ls []line, i int, prefix string, sections bool, pend *blockAttrs) int {
	l := ls[i]
	t := l.text
	trim := strings.TrimSpace(t)
	switch {
	case trim == "":
		return i + 1
	case strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "////"):
		return i + 1
	case t == "////" || (strings.HasPrefix(t, "////") && strings.Count(t, "/") == len(t)):
		return closing(ls, i) + 1
	}
	if name, value, unset, ok := attributeEntry(t); ok {
		p.attrs.setEntry(name, value, unset)
		if name == "description" && p.c.description == "" && !unset {
			p.c.description = p.c.inlinePlain(value, p.attrs)
		}
		return i + 1
	}
	if id, reftext, ok := blockAnchor(t); ok {
		pend.id, pend.reftext = id, reftext
		pend.set = true
		p.c.ids.register(id)
		return i + 1
	}
	if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") && !strings.HasPrefix(t, "[[") && isAttrLine(t) {
		pend.merge(parseAttrList(p.attrs.substitute(t[1 : len(t)-1])))
		if pend.id != "" {
			p.c.ids.register(pend.id)
		}
		return i + 1
	}
	if len(t) > 1 && t[0] == '.' && t[1] != '.' && t[1] != ' ' && t[1] != '\t' {
		p.title(pend, prefix) // a title replaced by another is kept as text
		pend.title, pend.titleSrc, pend.set = t[1:], l.src, true
		return i + 1
	}
	if sections && pend.style != "discrete" && pend.style != "float" {
		if level, title, ok := sectionTitle(t); ok {
			p.heading(level+l.levelOffset, title, l, prefix, pend)
			// A block title above a section title is the title of the
			// section's first block, as Asciidoctor carries it over; it
			// is written after the heading, so at the heading's line.
			*pend = blockAttrs{title: pend.title, titleSrc: l.src, set: pend.title != ""}
			return i + 1
		}
	}
	defer func() { *pend = blockAttrs{} }()
	if pend.style == "discrete" || pend.style == "float" {
		if _, title, ok := sectionTitle(t); ok {
			// Asciidoctor drops a block title above a discrete heading.
			p.c.hide(pend.title)
			p.discrete(title, l.src, prefix, pend)
			return i + 1
		}
	}
	p.blockID(pend)
	if d := delimiter(t); d != "" {
		end := closing(ls, i)
		p.delimited(d, ls[i+1:end], l, prefix, pend)
		return min(end+1, len(ls))
	}
	if t == "'''" || t == "---" || t == "***" || t == "- - -" || t == "* * *" {
		p.emit(prefix, "* * *", l.src)
		p.blank(prefix, l.src)
		return i + 1
	}
	if t == "<<<" {
		return i + 1
	}
	if _, ok := listMarker(t); ok && p.depth < maxBlockDepth {
		p.depth++
		defer func() { p.depth-- }()
		return p.list(ls, i, prefix, pend)
	}
	if name, target, attrs, ok := blockMacro(t); ok {
		p.title(pend, prefix)
		if name == "image" {
			alt := parseAttrList(attrs).style
			if alt == "" {
				alt = stem(target)
			}
			p.prose([]line{{text: alt, src: l.src}}, prefix, "")
		}
		return i + 1
	}
	return p.paragraph(ls, i, prefix, pend)
}

// isAttrLine reports whether [t] is a block attribute line rather than
// text in brackets.
func isAttrLine(t string) bool {
	in := t[1 : len(t)-1]
	if in == "" {
		return true
	}
	c := in[0]
	return isWordByte(c) || c == '.' || c == '#' || c == '%' || c == ',' || c == '"' || c == '\''
}

// delimiter returns the kind of delimited block a line opens ("----",
// "....", "====", "****", "____", "++++", "--", "|===", "```"), or "".
func delimiter(t string) string {
	if t == "--" {
		return "--"
	}
	if strings.HasPrefix(t, "```") {
		return "```"
	}
	if len(t) >= 4 && (t[0] == '|' || t[0] == ',' || t[0] == ':' || t[0] == '!') && strings.Count(t[1:], "=") == len(t)-1 && len(t) >= 4 {
		return "|==="
	}
	if len(t) < 4 {
		return ""
	}
	switch t[0] {
	case '-', '.', '=', '*', '_', '+', '/':
		if strings.Count(t, t[:1]) == len(t) {
			return t[:4]
		}
	}
	return ""
}

// closing returns the index of the line closing the block opened at
// ls[i], or len(ls) when it is not closed.
func closing(ls []line, i int) int {
	open := ls[i].text
	if strings.HasPrefix(open, "```") {
		open = "```"
	}
	for j := i + 1; j < len(ls); j++ {
		if ls[j].text == open {
			return j
		}
	}
	return len(ls)
}

// blockMacro reads "name::target[attrs]" block macros (image::, video::,
// toc::).
func blockMacro(t string) (name, target, attrs string, ok bool) {
	i := strings.Index(t, "::")
	if i <= 0 || !strings.HasSuffix(t, "]") {
		return "", "", "", false
	}
	for k := 0; k < i; k++ {
		if !isAttrNameByte(t[k]) {
			return "", "", "", false
		}
	}
	rest := t[i+2:]
	j := strings.IndexByte(rest, '[')
	if j < 0 || strings.ContainsAny(rest[:j], " \t") {
		return "", "", "", false
	}
	return t[:i], rest[:j], rest[j+1 : len(rest)-1], true
}

// stem returns a file name without directories and extension.
func stem(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	if i := strings.LastIndexByte(p, '.'); i > 0 {
		p = p[:i]
	}
	return p
}

// title writes a block title as a bold line (blockID records it as the
// text <<id>> shows).
func (p *parser) title(pend *blockAttrs, prefix string) {
	if pend.title == "" {
		return
	}
	md := strings.TrimSpace(p.c.inlineMD(pend.title, p.attrs))
	p.blank(prefix, pend.titleSrc)
	p.emit(prefix, "**"+md+"**", pend.titleSrc)
	p.blank(prefix, pend.titleSrc)
}

// emit writes one markdown line.
func (p *parser) emit(prefix, text string, src int) {
	p.c.out = append(p.c.out, outLine{text: prefix + text, src: src})
}

// blank writes an empty line (within the prefix's container), once.
func (p *parser) blank(prefix string, src int) {
	b := strings.TrimRight(prefix, " ")
	if n := len(p.c.out); n > 0 && p.c.out[n-1].text == b {
		return
	}
	if strings.TrimSpace(b) == "" {
		b = ""
	}
	p.c.out = append(p.c.out, outLine{text: b, src: src})
}

// delimited writes a delimited block.
func (p *parser) delimited(d string, content []line, open line, prefix string, pend *blockAttrs) {
	style := pend.style
	if label, ok := admonitions[style]; ok && (d == "====" || d == "--") {
		p.admonition(label, content, open, prefix, pend)
		return
	}
	switch d {
	case "////":
		return
	case "----", "....", "```":
		lang := ""
		switch {
		case d == "```":
			lang = strings.TrimSpace(strings.TrimLeft(open.text, "`"))
			lang, _, _ = strings.Cut(lang, ",")
		case style == "source" || style == "" && d == "----":
			if len(pend.positional) > 0 && pend.positional[0] != "" {
				lang = pend.positional[0]
			} else if v, ok := p.attrs.get("source-language"); ok {
				lang = v
			}
		case style == "stem" || style == "latexmath" || style == "asciimath":
			lang = style
		}
		p.code(content, open.src, lang, prefix, pend)
	case "++++":
		if style == "stem" || style == "latexmath" || style == "asciimath" {
			p.code(content, open.src, style, prefix, pend)
			return
		}
		p.title(pend, prefix)
		p.prose(stripTags(content), prefix, "")
	case "|===":
		p.table(content, open, prefix, pend)
	case "____":
		p.title(pend, prefix)
		if style == "verse" {
			p.prose(content, prefix+"> ", "")
		} else {
			p.blocks(content, prefix+"> ", false)
		}
		p.attribution(pend, prefix, open.src)
	case "--":
		if style == "source" || style == "listing" || style == "literal" {
			lang := ""
			if style == "source" && len(pend.positional) > 0 {
				lang = pend.positional[0]
			}
			p.code(content, open.src, lang, prefix, pend)
			return
		}
		fallthrough
	default: // example, sidebar, open
		p.title(pend, prefix)
		p.blocks(content, prefix, false)
		p.blank(prefix, open.src)
	}
}

// attribution writes a quote's author and source.
func (p *parser) attribution(pend *blockAttrs, prefix string, src int) {
	var parts []string
	for _, s := range pend.positional {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, p.c.inlineMD(s, p.attrs))
		}
	}
	if len(parts) == 0 {
		return
	}
	p.emit(prefix+">", "", src)
	p.emit(prefix+"> ", "\u2014 "+strings.Join(parts, ", "), src)
	p.blank(prefix, src)
}

// admonition writes an admonition block: its label (and title) in bold,
// then its content.
func (p *parser) admonition(label string, content []line, open line, prefix string, pend *blockAttrs) {
	head := "**" + label + ":**"
	if pend.title != "" {
		head += " **" + strings.TrimSpace(p.c.inlineMD(pend.title, p.attrs)) + "**"
	}
	p.blank(prefix, open.src)
	p.emit(prefix, head, open.src)
	p.blank(prefix, open.src)
	p.blocks(content, prefix, false)
	p.blank(prefix, open.src)
}

// code writes a fenced code block.
func (p *parser) code(content []line, src int, lang, prefix string, pend *blockAttrs) {
	p.title(pend, prefix)
	subs := pend.named["subs"]
	longest := 2
	for _, l := range content {
		t := strings.TrimLeft(l.text, " ")
		n := 0
		for n < len(t) && t[n] == '`' {
			n++
		}
		longest = max(longest, n)
	}
	fence := strings.Repeat("`", longest+1)
	lang = strings.ToLower(strings.TrimSpace(lang))
	if strings.ContainsAny(lang, " `{}") {
		lang = ""
	}
	p.blank(prefix, src)
	p.emit(prefix, fence+lang, src)
	for _, l := range content {
		t := l.text
		if strings.Contains(subs, "attributes") {
			t = p.attrs.substitute(t)
		}
		p.emit(prefix, t, l.src)
	}
	end := src
	if len(content) > 0 {
		end = content[len(content)-1].src
	}
	p.emit(prefix, fence, end)
	p.blank(prefix, end)
}

// stripTags returns passthrough lines without their HTML tags.
func stripTags(ls []line) []line {
	out := make([]line, 0, len(ls))
	inTag := false
	for _, l := range ls {
		var b strings.Builder
		for i := 0; i < len(l.text); i++ {
			ch := l.text[i]
			switch {
			case inTag && ch == '>':
				inTag = false
				b.WriteByte(' ')
			case inTag:
			case ch == '<' && i+1 < len(l.text) && (isASCIILetter(l.text[i+1]) || l.text[i+1] == '/' || l.text[i+1] == '!'):
				inTag = true
			default:
				b.WriteByte(ch)
			}
		}
		out = append(out, line{text: strings.TrimSpace(b.String()), src: l.src})
	}
	return out
}

// paragraph writes the paragraph starting at ls[i] in the style its
// attributes give it and returns the index after it.
func (p *parser) paragraph(ls []line, i int, prefix string, pend *blockAttrs) int {
	j := i + 1
	for j < len(ls) && !endsParagraph(ls[j].text) {
		j++
	}
	para := ls[i:j]
	style := pend.style
	first := para[0].text
	switch {
	case style == "source" || style == "listing" || style == "literal" || (style == "" && (first[0] == ' ' || first[0] == '\t')):
		lang := ""
		if style == "source" {
			if len(pend.positional) > 0 {
				lang = pend.positional[0]
			} else if v, ok := p.attrs.get("source-language"); ok {
				lang = v
			}
		}
		p.code(dedent(para), para[0].src, lang, prefix, pend)
	case style == "stem" || style == "latexmath" || style == "asciimath":
		p.code(para, para[0].src, style, prefix, pend)
	case style == "quote" || style == "verse":
		p.title(pend, prefix)
		p.prose(para, prefix+"> ", "")
		p.attribution(pend, prefix, para[0].src)
	case admonitions[style] != "":
		p.title(pend, prefix)
		p.prose(para, prefix, "**"+admonitions[style]+":** ")
	default:
		p.title(pend, prefix)
		lead := ""
		if k := strings.Index(first, ": "); k > 0 && admonitions[first[:k]] != "" {
			lead = "**" + admonitions[first[:k]] + ":** "
			para = append([]line{{text: first[k+2:], src: para[0].src}}, para[1:]...)
		}
		p.prose(para, prefix, lead)
	}
	return j
}

// endsParagraph reports whether a line ends the paragraph before it: a
// blank line, a block attribute line or anchor, a delimiter or a list
// continuation.
func endsParagraph(t string) bool {
	if strings.TrimSpace(t) == "" || t == "+" {
		return true
	}
	if delimiter(t) != "" {
		return true
	}
	if _, _, ok := blockAnchor(t); ok {
		return true
	}
	return strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") && !strings.HasPrefix(t, "[[") && isAttrLine(t)
}

// dedent removes the common indentation of literal paragraph lines.
func dedent(ls []line) []line {
	common := -1
	for _, l := range ls {
		if strings.TrimSpace(l.text) == "" {
			continue
		}
		n := len(l.text) - len(strings.TrimLeft(l.text, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	out := make([]line, len(ls))
	for i, l := range ls {
		out[i] = l
		if len(l.text) >= common && common > 0 {
			out[i].text = l.text[common:]
		}
	}
	return out
}

// prose writes paragraph lines converted to markdown, the first one after
// lead.
func (p *parser) prose(para []line, prefix, lead string) {
	if len(para) == 0 {
		return
	}
	texts := make([]string, len(para))
	for k, l := range para {
		texts[k] = strings.TrimSpace(l.text)
	}
	md := p.c.inlineMD(strings.Join(texts, "\n"), p.attrs)
	out := strings.Split(md, "\n")
	for k, t := range out {
		src := para[0].src
		if len(out) == len(para) {
			src = para[k].src
		}
		t = escapeLineStart(strings.TrimSpace(t))
		if k == 0 {
			t = lead + t
		}
		if t == "" && k > 0 {
			continue
		}
		p.emit(prefix, t, src)
	}
	p.blank(prefix, para[len(para)-1].src)
}

// startsLink reports whether t starts with a markdown link's text and
// the "(" of its target: "[text](", its brackets balanced or escaped.
func startsLink(t string) bool {
	depth := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i+1 < len(t) && t[i+1] == '('
			}
		}
	}
	return false
}

// escapeLineStart escapes what would make a line of text markdown block
// markup that changes the document's structure or loses text: headings,
// setext underlines, quotes, tables, fences, link reference definitions
// and the markdown cleaner's line constructs. A link the converter wrote
// ("[text](target)") stays one.
func escapeLineStart(t string) string {
	if t == "" {
		return t
	}
	switch t[0] {
	case '[':
		if !startsLink(t) {
			return `\` + t
		}
	case '#', '>', '|', '~', ':', '/', '{', '+':
		return `\` + t
	case '=', '-':
		if strings.Trim(t, "=- \t") == "" {
			return `\` + t
		}
	case 'T', 'W', '?':
		if len(t) > 1 && t[1] == '>' {
			return t[:1] + `\` + t[1:]
		}
	}
	return t
}
