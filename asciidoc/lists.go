package asciidoc

import (
	"strconv"
	"strings"
)

// listItem is one list item's first line.
type listItem struct {
	marker string // normalized: "*", "**", "-", ".", "..", "1.", "a.", "::", ";;", "<>"
	kind   byte   // 'u' unordered, 'o' ordered, 'd' description, 'c' callout
	term   string // a description list's term
	text   string
	number string // an ordered item's number as written ("3" in "3. x"), if any
}

// listMarker reads a list item line.
func listMarker(t string) (listItem, bool) {
	s := strings.TrimLeft(t, " \t")
	if s == "" {
		return listItem{}, false
	}
	switch s[0] {
	case '*', '-', '.':
		n := 0
		for n < len(s) && s[n] == s[0] && n < 6 {
			n++
		}
		if s[0] == '-' && n > 1 {
			break
		}
		if n < len(s) && (s[n] == ' ' || s[n] == '\t') && strings.TrimSpace(s[n:]) != "" {
			kind := byte('u')
			if s[0] == '.' {
				kind = 'o'
			}
			return listItem{marker: s[:n], kind: kind, text: strings.TrimSpace(s[n:])}, true
		}
		if s[0] != '.' {
			return dlistItem(t)
		}
	case '<':
		if j := strings.IndexByte(s, '>'); j > 1 && j < 5 && j+1 < len(s) && s[j+1] == ' ' {
			n := s[1:j]
			if _, err := strconv.Atoi(n); err == nil || n == "." {
				return listItem{marker: "<>", kind: 'c', term: n, text: strings.TrimSpace(s[j+1:])}, true
			}
		}
		return listItem{}, false
	}
	// "1. text", "a. text", "iv) text".
	if j := strings.IndexAny(s, ".)"); j > 0 && j < 6 && j+1 < len(s) && s[j+1] == ' ' {
		n := s[:j]
		marker := ""
		if _, err := strconv.Atoi(n); err == nil && s[j] == '.' {
			marker = "1."
		} else if len(n) == 1 && isASCIILetter(n[0]) && s[j] == '.' {
			marker = "a."
		} else if strings.Trim(strings.ToLower(n), "ivxlc") == "" && s[j] == ')' {
			marker = "i)"
		}
		if marker != "" {
			it := listItem{marker: marker, kind: 'o', text: strings.TrimSpace(s[j+2:])}
			if marker == "1." && len(n) <= 9 {
				it.number = n
			}
			return it, true
		}
	}
	return dlistItem(t)
}

// dlistItem reads "term:: text" (also ":::", "::::" and ";;").
func dlistItem(t string) (listItem, bool) {
	if strings.HasPrefix(t, "//") {
		return listItem{}, false
	}
	for i := 0; i+1 < len(t); i++ {
		if !(t[i] == ':' && t[i+1] == ':' || t[i] == ';' && t[i+1] == ';') {
			continue
		}
		j := i + 2
		if t[i] == ':' {
			for j < len(t) && t[j] == ':' && j-i < 4 {
				j++
			}
		}
		if j < len(t) && t[j] != ' ' && t[j] != '\t' {
			return listItem{}, false // a macro (image::x[]), not a term
		}
		term := strings.TrimSpace(t[:i])
		if term == "" {
			return listItem{}, false
		}
		return listItem{marker: t[i:j], kind: 'd', term: term, text: strings.TrimSpace(t[j:])}, true
	}
	return listItem{}, false
}

// level is one open list level.
type level struct {
	marker  string
	content string // the prefix of the item's content lines
}

// list writes the list starting at ls[i] and returns the index after it.
// Nesting follows Asciidoctor: a marker seen before closes the levels
// opened after it, a new one opens a level.
func (p *parser) list(ls []line, i int, prefix string, pend *blockAttrs) int {
	p.title(pend, prefix)
	p.blank(prefix, ls[i].src)
	defer p.blank(prefix, ls[min(i, len(ls)-1)].src)
	var stack []level
	for i < len(ls) {
		t := ls[i].text
		if strings.TrimSpace(t) == "" {
			// A blank line ends the list unless an item or a continuation follows.
			j := i + 1
			for j < len(ls) && strings.TrimSpace(ls[j].text) == "" {
				j++
			}
			if j >= len(ls) {
				return j
			}
			if _, ok := listMarker(ls[j].text); !ok {
				return j
			}
			i = j
			continue
		}
		if strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "////") {
			i++
			continue
		}
		if t == "+" && len(stack) > 0 {
			// A continuation: the next block belongs to the item.
			j := i + 1
			top := stack[len(stack)-1]
			p.blank(top.content, ls[i].src)
			var pend blockAttrs
			for j < len(ls) && strings.TrimSpace(ls[j].text) != "" {
				k := p.block(ls, j, top.content, false, &pend)
				j = k
				if !pend.set {
					break
				}
			}
			i = j
			continue
		}
		it, ok := listMarker(t)
		if !ok {
			return i
		}
		depth := -1
		for k, lv := range stack {
			if lv.marker == it.marker {
				depth = k
				break
			}
		}
		if depth >= 0 {
			stack = stack[:depth]
		}
		parent := prefix
		if len(stack) > 0 {
			parent = stack[len(stack)-1].content
		}
		var head string
		switch it.kind {
		case 'o':
			head = firstNonEmpty(it.number, "1") + ". "
		default:
			head = "- "
		}
		content := parent + strings.Repeat(" ", len(head))
		if len(content) > maxIndent {
			content = parent
		}
		stack = append(stack, level{marker: it.marker, content: content})
		// The item's text: its line and the lines that follow up to a
		// blank line, another item, a continuation or a block.
		j := i + 1
		for j < len(ls) && !endsParagraph(ls[j].text) {
			if _, ok := listMarker(ls[j].text); ok {
				break
			}
			if strings.HasPrefix(ls[j].text, "//") {
				break
			}
			j++
		}
		para := append([]line{{text: it.text, src: ls[i].src}}, ls[i+1:j]...)
		lead := ""
		switch it.kind {
		case 'd':
			lead = strings.TrimSpace(p.c.inlineMD(it.term, p.attrs))
			if !strings.Contains(lead, "**") {
				lead = "**" + lead + "**"
			}
			if strings.TrimSpace(it.text) != "" {
				lead += ": "
			}
		case 'c':
			lead = "(" + it.term + ") "
		}
		if strings.TrimSpace(it.text) == "" {
			para = para[1:]
			if lead != "" {
				p.emit(parent, head+lead, ls[i].src)
			} else if len(para) == 0 {
				p.emit(parent, head, ls[i].src)
			}
			if len(para) > 0 {
				p.proseTight(para, stack[len(stack)-1].content, "")
			}
		} else {
			p.proseTight(para, parent, head+lead)
			// Later lines of the item are indented to its content.
		}
		i = j
	}
	return i
}

// proseTight writes an item's text lines: the first after lead, the rest
// indented to the item's content; no blank line after.
func (p *parser) proseTight(para []line, prefix, lead string) {
	texts := make([]string, len(para))
	for k, l := range para {
		texts[k] = strings.TrimSpace(l.text)
	}
	md := p.c.inlineMD(strings.Join(texts, "\n"), p.attrs)
	out := strings.Split(md, "\n")
	cont := prefix + strings.Repeat(" ", len(lead))
	if strings.HasPrefix(lead, "- ") {
		cont = prefix + "  "
	} else if k := strings.Index(lead, ". "); k > 0 && strings.Trim(lead[:k], "0123456789") == "" {
		cont = prefix + strings.Repeat(" ", k+2)
	}
	for k, t := range out {
		src := para[0].src
		if len(out) == len(para) {
			src = para[k].src
		}
		t = escapeLineStart(strings.TrimSpace(t))
		if k == 0 {
			p.emit(prefix, lead+t, src)
			continue
		}
		if t == "" {
			continue
		}
		p.emit(cont, t, src)
	}
}
