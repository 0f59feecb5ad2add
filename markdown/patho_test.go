package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// pathoCase is a family of hostile inputs: gen(n) makes one of size n, in
// the family's own unit (headings, nesting depth, rows, bytes...).
// TestPathological splits gen(big); BenchmarkPathological times gen(big/10)
// and gen(big), whose ratio is about 10 when splitting is linear and 100
// when it is quadratic.
type pathoCase struct {
	name string
	big  int
	gen  func(n int) string
}

// pathoEnd ends every pathological input: TestPathological checks that it
// survives whatever comes before it.
const pathoEnd = "\n\nthe end of the document\n"

// pathoCases are the hostile inputs. Sizes stay under the build's 4 MiB
// file limit and are large enough that a quadratic cost would take hours:
// 10,000-deep nesting already cost seconds in goldmark before limitParse.
func pathoCases() []pathoCase {
	rep := strings.Repeat
	lines := func(n int, line func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(line(i))
			b.WriteByte('\n')
		}
		return b.String()
	}
	return []pathoCase{
		// Headings, with and without repeated anchors.
		{"headings", 100_000, func(n int) string { return rep("## h\n", n) }},
		{"same heading text", 100_000, func(n int) string { return rep("# Setup\ntext\n", n) }},
		{"setext headings", 100_000, func(n int) string { return rep("h\n--\n", n) }},
		// Nesting on one line (n is the depth) and on many lines.
		{"deep blockquotes", 1_000_000, func(n int) string { return rep(">", n) + " # h\n" }},
		{"deep spaced blockquotes", 1_000_000, func(n int) string { return rep("> ", n) + "x\n" }},
		{"deep lists", 1_000_000, func(n int) string { return rep("- ", n) + "item\n" }},
		{"deep ordered lists", 1_000_000, func(n int) string { return rep("1. ", n) + "item\n" }},
		{"deep quoted lists", 500_000, func(n int) string { return rep("> - ", n) + "item\n" }},
		{"deep quote lines", 1_000, func(n int) string { return rep(rep(">", 1000)+" x\n", n) }},
		{"deep indented lists", 10_000, func(n int) string {
			return lines(n, func(i int) string { return rep("  ", i%300) + "- a" })
		}},
		{"deep tab lists", 10_000, func(n int) string {
			return lines(n, func(i int) string { return rep("\t", i%300) + "- a" })
		}},
		{"lazy quote lines", 100_000, func(n int) string { return rep(">", 100) + " a\n" + rep("b\n", n) }},
		// Backticks (n is bytes).
		{"backtick runs", 1_000_000, func(n int) string {
			var b strings.Builder
			for i := 1; b.Len() < n; i++ {
				b.WriteString(rep("`", i) + "x")
			}
			return b.String()
		}},
		{"long backtick run", 1_000_000, func(n int) string { return rep("`", n/2) + "x" + rep("`", n/2-1) + "\n" }},
		{"unclosed code spans", 500_000, func(n int) string { return rep("`a ``b ", n) + "\n" }},
		{"fences", 100_000, func(n int) string { return rep("```\n", n) }},
		// Tables (n is rows or columns).
		{"table rows", 100_000, func(n int) string {
			return "| a | b | c |\n|---|---|---|\n" + rep("| x | `y` | *z* |\n", n)
		}},
		{"table columns", 100_000, func(n int) string { return rep("|a", n) + "|\n" + rep("|-", n) + "|\n" + rep("|x", n) + "|\n" }},
		{"tables", 100_000, func(n int) string { return rep("a|b\n-|-\n", n) }},
		// Links and reference definitions (n is openers or lines).
		{"link destinations", 500_000, func(n int) string { return rep("[a](", n) + "\n" }},
		{"angle link destinations", 500_000, func(n int) string { return rep("[a](<", n) + "\n" }},
		{"open link titles", 200_000, func(n int) string { return rep("[a](b \"\n", n) }},
		{"open paren link titles", 200_000, func(n int) string { return rep("[a](b (\n", n) }},
		{"reference definitions", 500_000, func(n int) string { return rep("[a]: b\n", n) + rep("[a] ", 1000) }},
		{"open definition titles", 200_000, func(n int) string { return rep("[a]: b \"\n", n) }},
		{"reference links in a paragraph", 200_000, func(n int) string { return "[a]: b\n\n" + rep("[a] [a]\n", n) }},
		{"open link labels", 200_000, func(n int) string { return rep("[a\n", n) + "]\n" }},
		{"brackets", 500_000, func(n int) string { return rep("[", n) + "a" + rep("]", n) + "\n" }},
		{"emphasis", 500_000, func(n int) string { return rep("**a *", n) + "\n" }},
		// Raw HTML left open (n is lines).
		{"open cdata", 200_000, func(n int) string { return rep("a <![CDATA[\n", n) }},
		{"open processing instructions", 200_000, func(n int) string { return rep("a <?\n", n) }},
		{"open declarations", 200_000, func(n int) string { return rep("a <!X\n", n) }},
		{"open attribute values", 200_000, func(n int) string { return rep("a <b c='\n", n) }},
		// What the cleaner drops (n is repetitions).
		{"unclosed tags", 100_000, func(n int) string { return rep("<a b=\"", n) }},
		{"unclosed braces", 100_000, func(n int) string { return rep("<a b={", n) }},
		{"unclosed tags lines", 100_000, func(n int) string { return rep("<Foo bar\n", n) }},
		{"unclosed comments", 100_000, func(n int) string { return rep("<!-- {/* {{< ", n) }},
		{"nested tags", 100_000, func(n int) string { return rep("<A>", n) + "x" + rep("</A>", n) + "\n" }},
		{"esm", 50_000, func(n int) string { return rep("export const a = {\n", n) }},
		{"admonitions", 100_000, func(n int) string { return rep("::: tip\n", n) }},
		{"unclosed scripts", 50_000, func(n int) string { return rep("<script>\n<style>\n", n) }},
		{"unclosed code shortcodes", 50_000, func(n int) string { return rep("{{< code-toggle >}}\n{{< highlight go >}}\n", n) }},
		{"comments around fences", 50_000, func(n int) string { return rep("<!--\n```\n-->\n~~~\n", n) }},
		{"mdc props unclosed", 50_000, func(n int) string { return rep("::card\n---\ntitle: x\n", n) }},
		{"mdc inline unclosed", 100_000, func(n int) string { return rep(" :a{", n) }},
		{"mdx anchors", 50_000, func(n int) string { return rep("*/}", 2*n) + "\n" + rep("x */}\n", n) }},
		{"tags with text", 50_000, func(n int) string { return rep("<Tab label=\"x\" title=\"y\">", n) }},
		{"indented mdx fences", 50_000, func(n int) string { return rep("      ```\n\t\tx\n", n) }},
		// Content tabs (n is openers or tabs; see collapseTabs).
		{"unclosed block tabs", 100_000, func(n int) string { return rep("/// tab | x\n", n) }},
		{"unclosed block tabs of every length", 2_000, func(n int) string { // each opener's closing line looked for
			var b strings.Builder
			for i := range n {
				b.WriteString(rep("/", 3+i) + " tab | x\n")
			}
			return b.String() + rep("x\n", 500*n)
		}},
		{"unclosed code groups", 100_000, func(n int) string { return rep("::: code-group\n```js [a]\nx\n```\n", n) }},
		{"unclosed tab items", 100_000, func(n int) string { return rep("<TabItem value=\"a\">\nx\n", n) }},
		{"version tabs", 100_000, func(n int) string { // groups of 30, each tab compared with those kept
			return lines(n, func(i int) string {
				return fmt.Sprintf("/// tab | Python 3.%d+\nline %d\n///%s", 40-i%30, i%2, rep("\n\npara", min(i%30/29, 1)))
			})
		}},
		{"one big group of tabs", 100_000, func(n int) string { return rep("=== \"Python 3.1+\"\n    x\n    y\n", n) }},
		{"big chunked section", 100_000, func(n int) string { return "## Big\n\n" + rep("para graph words here.\n\n", n) }},
	}
}

// TestPathological splits every hostile input at its full size, as
// markdown and as MDX, and checks that the result keeps the invariants,
// losing no text (the end of the document included). It asserts no
// timing: a quadratic cost would make it run for hours and time out, and
// BenchmarkPathological gives the figures. Under the race detector, which
// slows this single-goroutine code tenfold and finds nothing in it, the
// inputs are a tenth of the size.
func TestPathological(t *testing.T) {
	if testing.Short() {
		t.Skip("splits megabytes of hostile input; skipped in -short mode")
	}
	for _, tt := range pathoCases() {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.big
			if raceEnabled {
				n /= 10
			}
			src := []byte(tt.gen(n) + pathoEnd)
			for _, p := range []string{"x.md", "x.mdx"} {
				doc, errs := checkDocument(p, src, DefaultOptions())
				for _, e := range errs {
					t.Errorf("%s: %s", p, e)
				}
				if doc == nil {
					continue
				}
				last := doc.Sections[len(doc.Sections)-1]
				if !strings.HasSuffix(last.Text, strings.TrimSpace(pathoEnd)) {
					t.Errorf("%s: last section ends %q, want the end of the document", p, tail(last.Text, 60))
				}
			}
		})
	}
}

// BenchmarkPathological splits every hostile input at a tenth of its full
// size and at its full size (as markdown; b.SetBytes gives the input
// size). Compare the two ns/op: linear work gives a ratio near 10.
func BenchmarkPathological(b *testing.B) {
	for _, tt := range pathoCases() {
		for _, n := range []int{tt.big / 10, tt.big} {
			b.Run(fmt.Sprintf("%s/n=%d", tt.name, n), func(b *testing.B) {
				src := []byte(tt.gen(n) + pathoEnd)
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					if _, err := Split("x.md", src, DefaultOptions()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	return s[max(0, len(s)-n):]
}
