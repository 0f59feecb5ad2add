package markdown

// What a section holds besides its text, read from the AST: its prose for
// full-text search, its code blocks, its inline code spans and its links.

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// fill walks the AST and gives each unit its prose, code, inline code and
// links.
func (s *splitter) fill(root ast.Node) {
	if len(s.units) == 0 {
		return
	}
	cur := 0
	top := -1
	nextHead := 0
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if n.Kind() == ast.KindDocument {
			return ast.WalkContinue, nil
		}
		if entering && n.Parent() != nil && n.Parent().Kind() == ast.KindDocument {
			top++
			if top < len(s.topCut) && s.topCut[top] >= 0 {
				cur = s.topCut[top]
			}
		}
		u := &s.units[cur]
		if n.Type() == ast.TypeBlock {
			u.prose = append(u.prose, ' ')
		}
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if nextHead < len(s.heads) && s.heads[nextHead].node == n {
				cur = s.headUnit[nextHead]
				u = &s.units[cur]
				u.prose = append(u.prose, s.heads[nextHead].title...)
				nextHead++
			} else {
				u.prose = appendPlain(u.prose, n, s.body, len(s.body))
			}
			u.prose = append(u.prose, ' ')
			u.inline = appendCodeSpans(u.inline, n, s.body)
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock:
			cb := CodeBlock{Code: linesText(n.Lines(), s.body)}
			if n.Info != nil {
				cb.Lang = infoLang(n.Info.Segment.Value(s.body))
			}
			u.code = append(u.code, cb)
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock:
			u.code = indentedCode(u.code, linesText(n.Lines(), s.body))
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock, *ast.LinkReferenceDefinition, *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			c := codeSpanText(n, s.body)
			u.prose = append(u.prose, c...)
			u.inline = append(u.inline, c)
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			u.prose = appendUnescaped(u.prose, n.Value(s.body))
			if n.SoftLineBreak() || n.HardLineBreak() {
				u.prose = append(u.prose, ' ')
			}
		case *ast.String:
			u.prose = append(u.prose, n.Value...)
		case *ast.AutoLink:
			u.prose = append(u.prose, n.Label(s.body)...)
		case *ast.Link:
			// Its text is walked into the prose as usual.
			if t := normalizeSpace(string(appendPlain(nil, n, s.body, len(s.body)))); t != "" {
				u.links = append(u.links, Link{Text: t, Target: LinkTarget(n.Destination)})
			}
		case *extast.TableCell:
			u.prose = append(u.prose, ' ')
		}
		return ast.WalkContinue, nil
	})
}

// LinkTarget returns a link destination as goldmark keeps it (as written)
// with its backslash escapes and character references resolved, as the
// HTML renderer does: "my\_options.md" is my_options.md. Link.Target is
// this; the web page resolves the links it shows the same way.
func LinkTarget(dest []byte) string {
	dest = util.UnescapePunctuations(dest)
	dest = util.ResolveNumericReferences(dest)
	return string(util.ResolveEntityNames(dest))
}

// linesText concatenates a block's line segments.
func linesText(lines *text.Segments, src []byte) string {
	var b strings.Builder
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// infoLang returns the language of a fence info string: its first word,
// lower-cased, without {...} attributes.
func infoLang(info []byte) string {
	info = bytes.TrimSpace(info)
	i := 0
	for i < len(info) && !isSpace(info[i]) && info[i] != '{' {
		i++
	}
	return strings.ToLower(string(info[:i]))
}

// indentedCode turns an indented code block into CodeBlocks. Fences
// indented four or more spaces (as inside JSX components) make goldmark
// see an indented code block holding the fences: each is unwrapped into a
// block of its own that keeps its language.
func indentedCode(dst []CodeBlock, code string) []CodeBlock {
	first, _, _ := strings.Cut(code, "\n")
	if _, _, ok := fenceOpen([]byte(first)); !ok {
		return append(dst, CodeBlock{Code: code})
	}
	lines := strings.Split(code, "\n")
	for i := 0; i < len(lines); {
		ch, n, ok := fenceOpen([]byte(lines[i]))
		if !ok {
			// Text between fences: keep it as plain code unless blank.
			j := i
			for j < len(lines) {
				if _, _, ok := fenceOpen([]byte(lines[j])); ok {
					break
				}
				j++
			}
			if t := strings.Trim(strings.Join(lines[i:j], "\n"), "\n"); strings.TrimSpace(t) != "" {
				dst = append(dst, CodeBlock{Code: t})
			}
			i = j
			continue
		}
		info := strings.TrimSpace(lines[i])
		info = strings.TrimLeft(info, "> \t")[n:]
		cb := CodeBlock{Lang: infoLang([]byte(info))}
		j := i + 1
		for j < len(lines) && !fenceClose([]byte(lines[j]), ch, n) {
			j++
		}
		cb.Code = strings.Join(lines[i+1:min(j, len(lines))], "\n")
		dst = append(dst, cb)
		i = j + 1
	}
	return dst
}

// codeSpanText returns the contents of an inline code span.
func codeSpanText(n *ast.CodeSpan, src []byte) string {
	var b []byte
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b = append(b, c.Value(src)...)
			if c.SoftLineBreak() {
				b = append(b, ' ')
			}
		case *ast.String:
			b = append(b, c.Value...)
		}
	}
	return string(b)
}

// appendCodeSpans appends the contents of the code spans under n.
func appendCodeSpans(dst []string, n ast.Node, src []byte) []string {
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if cs, ok := c.(*ast.CodeSpan); ok && entering {
			dst = append(dst, codeSpanText(cs, src))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return dst
}

// appendPlain appends the plain text of n's inline content: code span
// contents, the text of emphasis, links and images; no markup, no URLs.
func appendPlain(dst []byte, n ast.Node, src []byte, limit int) []byte {
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if p := c.Pos(); p >= limit {
			return ast.WalkStop, nil
		}
		switch c := c.(type) {
		case *ast.CodeSpan:
			dst = append(dst, codeSpanText(c, src)...)
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			seg := c.Segment
			if seg.Start >= limit {
				return ast.WalkStop, nil
			}
			if seg.Stop > limit {
				seg = seg.WithStop(limit)
			}
			dst = appendUnescaped(dst, seg.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				dst = append(dst, ' ')
			}
		case *ast.String:
			dst = append(dst, c.Value...)
		case *ast.AutoLink:
			dst = append(dst, c.Label(src)...)
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return dst
}

// appendUnescaped appends t with backslash escapes of ASCII punctuation
// resolved.
func appendUnescaped(dst, t []byte) []byte {
	if bytes.IndexByte(t, '\\') < 0 {
		return append(dst, t...)
	}
	for i := 0; i < len(t); i++ {
		if t[i] == '\\' && i+1 < len(t) && isASCIIPunct(t[i+1]) {
			i++
		}
		dst = append(dst, t[i])
	}
	return dst
}

func isASCIIPunct(b byte) bool {
	return (b >= '!' && b <= '/') || (b >= ':' && b <= '@') || (b >= '[' && b <= '`') || (b >= '{' && b <= '~')
}
