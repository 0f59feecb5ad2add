package web

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// live matches what would make rendered HTML run code or load something:
// elements that execute or embed, event-handler attributes, style, and
// link targets of dangerous schemes.
// Text is escaped, so every "<" in the output starts real markup.
var live = regexp.MustCompile(`(?i)<\s*(script|style|iframe|object|embed|img|svg|math|link|meta|base|form|input|textarea|video|audio|source)\b|<[a-z][^>]*\s(on[a-z]+|style)\s*=|<[a-z][^>]*(href|src|action|formaction)\s*=\s*"\s*(javascript|vbscript|data|file):`)

// liveMarkup is the first live markup in out, or "": what live matches,
// or an HTML comment other than goldmark's placeholder for raw HTML.
func liveMarkup(out string) string {
	if m := live.FindString(out); m != "" {
		return m
	}
	if i := strings.Index(strings.ReplaceAll(out, "<!-- raw HTML omitted -->", ""), "<!--"); i >= 0 {
		return "<!--"
	}
	return ""
}

// TestMarkdownInert renders hostile markdown straight through the
// renderer (the index's cleaning aside, which drops much of it first) and
// checks that nothing in the output is live, and that the text survives
// as text.
func TestMarkdownInert(t *testing.T) {
	md := newMarkdown(0)
	for _, tc := range []struct{ name, src, keep string }{
		{"script block", "<script>alert(1)</script>\n", ""},
		{"inline script", "a <script>alert(1)</script> b\n", "a"},
		{"onerror", `<img src=x onerror="alert(1)">` + "\n", ""},
		{"inline onerror", `text <img src=x onerror=alert(1)> more` + "\n", "more"},
		{"svg onload", "<svg onload=alert(1)>\n", ""},
		{"comment", "<!-- secret -->\n\nafter\n", "after"},
		{"inline comment", "before <!-- secret --> after\n", "after"},
		{"javascript link", "[x](javascript:alert(1))\n", "x"},
		{"JavaScript link", "[x](JaVaScRiPt:alert(1))\n", "x"},
		{"entity javascript link", "[x](&#106;avascript:alert(1))\n", "x"},
		{"vbscript link", "[x](vbscript:msgbox)\n", "x"},
		{"data link", "[x](data:text/html,<script>alert(1)</script>)\n", "x"},
		{"autolink", "<javascript:alert(1)>\n", ""},
		{"reference", "[x][r]\n\n[r]: javascript:alert(1)\n", "x"},
		{"image", "![alt](javascript:alert(1))\n", "[image: alt]"},
		{"remote image", "![logo](https://example.com/logo.png)\n", `href="https://example.com/logo.png"`},
		{"image title", `![a"b](x.png "t<script>")` + "\n", "[image: a&quot;b]"},
		{"html block", "<div onclick=alert(1)><a href=\"javascript:alert(1)\">y</a></div>\n", ""},
		{"style", "<style>body{display:none}</style>\n", ""},
		{"iframe", "<iframe src=\"javascript:alert(1)\"></iframe>\n", ""},
		{"table", "| a | b |\n|:-|-:|\n| <script>x</script> | 2 |\n", "<td>"},
		{"code", "```html\n<script>alert(1)</script>\n```\n", "&lt;script&gt;"},
		{"inline code", "`<img src=x onerror=alert(1)>`\n", "&lt;img"},
		{"heading", "# Title\n", "<h1>Title</h1>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := string(renderMarkdown(md, tc.src, nil))
			if m := liveMarkup(out); m != "" {
				t.Errorf("live markup %q in:\n%s", m, out)
			}
			if !strings.Contains(out, tc.keep) {
				t.Errorf("output lacks %q:\n%s", tc.keep, out)
			}
		})
	}
}

// TestHeadingShift: sections shown under an h3 have their headings moved
// below it, never past h6.
func TestHeadingShift(t *testing.T) {
	out := string(renderMarkdown(newMarkdown(3), "# A\n\n## B\n\n#### D\n", nil))
	for _, want := range []string{"<h4>A</h4>", "<h5>B</h5>", "<h6>D</h6>"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
}

// TestHeadingAttributes: a heading's {#id} and other attributes, which
// the reStructuredText reader writes on every title, are neither shown as
// text nor put on the heading (the section's element has the anchor, and
// a document's style has no place on the page).
func TestHeadingAttributes(t *testing.T) {
	for _, shift := range []int{0, 3} {
		out := string(renderMarkdown(newMarkdown(shift), "# Why Blueprints? {#why-blueprints}\n\n## Setext {.big style=\"color:red\"}\n\ntext {#not-a-heading}\n", nil))
		for _, want := range []string{fmt.Sprintf("<h%d>Why Blueprints?</h%d>", 1+shift, 1+shift), fmt.Sprintf("<h%d>Setext</h%d>", 2+shift, 2+shift), "text {#not-a-heading}"} {
			if !strings.Contains(out, want) {
				t.Errorf("shift %d: output lacks %s:\n%s", shift, want, out)
			}
		}
		if strings.Contains(out, "why-blueprints") || strings.Contains(out, "color") {
			t.Errorf("shift %d: an attribute reached the page:\n%s", shift, out)
		}
	}
}

// FuzzMarkdownInert checks that no markdown renders live markup.
func FuzzMarkdownInert(f *testing.F) {
	for _, s := range []string{"<script>x</script>", "[a](javascript:x)", "![a](b)", "<img onerror=x>", "<!-- c -->", "| a |\n|-|\n| b |", "<a href='javascript:x'>"} {
		f.Add(s)
	}
	md := newMarkdown(0)
	f.Fuzz(func(t *testing.T, src string) {
		out := string(renderMarkdown(md, src, nil))
		if m := liveMarkup(out); m != "" {
			t.Errorf("live markup %q from %q:\n%s", m, src, out)
		}
	})
}

// TestSafeNext lists where a login may send the browser back.
func TestSafeNextPaths(t *testing.T) {
	for next, want := range map[string]string{
		"/":                             "/",
		"/acme/cli?q=1#x":               "/acme/cli?q=1#x",
		"//evil.example":                "/",
		"///evil.example":               "/",
		"/\\evil.example":               "/",
		"\\\\evil.example":              "/",
		"https://evil.example":          "/",
		"javascript:alert(1)":           "/",
		"/a\nb":                         "/",
		"/a\x00":                        "/",
		" /acme":                        "/",
		"/" + strings.Repeat("a", 3000): "/",
	} {
		if got := safeNext(next); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", next, got, want)
		}
	}
}
