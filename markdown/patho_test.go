package markdown

import (
	"strings"
	"testing"
	"time"
)

// TestPathological checks that hostile inputs stay fast: cleaning and
// splitting are linear, so only goldmark's own costs remain.
func TestPathological(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("timing test; skipped in -short mode and under the race detector")
	}
	tests := []struct {
		name string
		src  string
	}{
		{"100k headings", strings.Repeat("## h\n", 100000)},
		{"100k same heading text", strings.Repeat("# Setup\ntext\n", 100000)},
		{"deep lists", func() string {
			var b strings.Builder
			for i := range 200 {
				b.WriteString(strings.Repeat("  ", i) + "- item\n")
			}
			return b.String()
		}()},
		{"deep quotes", strings.Repeat(">", 5000) + " # h\n"},
		{"unclosed tags", strings.Repeat("<a b=\"", 100000)},
		{"unclosed braces", strings.Repeat("<a b={", 100000)},
		{"unclosed tags lines", strings.Repeat("<Foo bar\n", 100000)},
		{"unclosed comments", strings.Repeat("<!-- {/* {{< ", 100000)},
		{"backticks", func() string {
			var b strings.Builder
			for i := 1; i < 1000; i++ {
				b.WriteString(strings.Repeat("`", i) + "x")
			}
			return b.String()
		}()},
		{"esm", strings.Repeat("export const a = {\n", 50000)},
		{"fences", strings.Repeat("```\n", 100000)},
		{"admonitions", strings.Repeat("::: tip\n", 100000)},
		{"unclosed scripts", strings.Repeat("<script>\n<style>\n", 50000)},
		{"unclosed code shortcodes", strings.Repeat("{{< code-toggle >}}\n{{< highlight go >}}\n", 50000)},
		{"comments around fences", strings.Repeat("<!--\n```\n-->\n~~~\n", 50000)},
		{"mdc props unclosed", strings.Repeat("::card\n---\ntitle: x\n", 50000)},
		{"mdc inline unclosed", strings.Repeat(" :a{", 100000)},
		{"mdx anchors", strings.Repeat("*/}", 100000) + "\n" + strings.Repeat("x */}\n", 50000)},
		{"tags with text", strings.Repeat("<Tab label=\"x\" title=\"y\">", 50000)},
		{"indented mdx fences", strings.Repeat("      ```\n\t\tx\n", 50000)},
		{"big chunked section", "## Big\n\n" + strings.Repeat("para graph words here.\n\n", 100000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			for _, p := range []string{"x.md", "x.mdx"} {
				if _, err := Split(p, []byte(tt.src), DefaultOptions()); err != nil {
					t.Fatal(err)
				}
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v for %d bytes", d, len(tt.src))
			}
			t.Logf("%v for %d bytes", time.Since(start), len(tt.src))
		})
	}
}
