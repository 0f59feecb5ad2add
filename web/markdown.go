package web

import (
	"bytes"
	"html/template"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdownRenderer turns a document's markdown into HTML that is inert
// whatever the document holds:
//   - raw HTML, blocks and inline, is not passed through: goldmark without
//     html.WithUnsafe writes "<!-- raw HTML omitted -->" in its place, so
//     <script>, event-handler attributes and HTML comments never reach the
//     page as markup;
//   - link targets goldmark deems dangerous (javascript:, vbscript:,
//     file:, data: other than images) become empty;
//   - images are links to their source, never loaded: the site's policy
//     allows no image from elsewhere, and a document's relative images are
//     not served here;
//   - table cells are aligned without style attributes, which the policy
//     forbids.
//
// GitHub's extensions (tables, strikethrough, task lists, autolinks) are
// on, as the documents are mostly written for GitHub. Headings are moved
// down by shift levels (at most to h6), so that a section shown under a
// page's h3 keeps the page's heading outline in order. A heading's
// attributes ("## Title {#id}", which the reStructuredText reader writes
// for every title and some markdown sites use) are read so that they do
// not show as text, and dropped: the element around each section
// carries its anchor, and a document's classes or styles have no place
// on the page.
func newMarkdown(shift int) goldmark.Markdown {
	return goldmark.New(
		goldmark.WithParserOptions(parser.WithAttribute(), parser.WithASTTransformers(util.Prioritized(headingShift(shift), 100))),
		goldmark.WithExtensions(extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignNone)),
			extension.Strikethrough, extension.TaskList, extension.Linkify),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(imageAsLink{}, 100)),
		),
	)
}

// headingShift moves every heading down by its value and drops its
// attributes.
type headingShift int

func (s headingShift) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			h.Level = min(h.Level+int(s), 6)
			h.RemoveAttributes()
		}
		return ast.WalkContinue, nil
	})
}

// renderMarkdown renders src with md, each link's target passed through
// fix first when fix is not nil (see linker); a link fix returns nil for
// is shown as its text. The result is safe to put in a page as it is
// (the renderer judges the targets fix returns as it does any); on a
// renderer error the source is shown escaped instead.
func renderMarkdown(md goldmark.Markdown, src string, fix func(dest []byte) []byte) template.HTML {
	source := []byte(src)
	doc := md.Parser().Parse(text.NewReader(source))
	if fix != nil {
		var dead []*ast.Link
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if l, ok := n.(*ast.Link); ok && entering {
				if d := fix(l.Destination); d == nil && l.Destination != nil {
					dead = append(dead, l)
				} else {
					l.Destination = d
				}
			}
			return ast.WalkContinue, nil
		})
		for _, l := range dead {
			unwrap(l)
		}
	}
	var b bytes.Buffer
	if err := md.Renderer().Render(&b, source, doc); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(src) + "</pre>")
	}
	return template.HTML(b.String()) //nolint:gosec // goldmark escapes text and drops raw HTML (see newMarkdown)
}

// unwrap replaces n with its children.
func unwrap(n ast.Node) {
	parent := n.Parent()
	if parent == nil {
		return
	}
	for c := n.FirstChild(); c != nil; {
		next := c.NextSibling()
		parent.InsertBefore(parent, n, c)
		c = next
	}
	parent.RemoveChild(parent, n)
}

// imageAsLink renders an image as a link to its source labelled with its
// alt text, so that reading a document loads nothing.
type imageAsLink struct{}

func (imageAsLink) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindImage, renderImage)
}

func renderImage(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	alt := altText(n, source)
	if alt == "" {
		alt = "image"
	}
	dest := n.Destination
	w.WriteString(`<a class="image" href="`)
	if !html.IsDangerousURL(dest) {
		w.Write(util.EscapeHTML(util.URLEscape(dest, true)))
	}
	w.WriteString(`">[image: `)
	w.Write(util.EscapeHTML([]byte(alt)))
	w.WriteString(`]</a>`)
	return ast.WalkSkipChildren, nil
}

// altText is the plain text of an image's description.
func altText(n ast.Node, source []byte) string {
	var b bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(source))
		}
		if s, ok := c.(*ast.String); ok {
			b.Write(s.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
