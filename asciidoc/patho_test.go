package asciidoc

import (
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

// pathoCase is a family of hostile inputs: gen(n) makes one of size n.
type pathoCase struct {
	name string
	big  int
	gen  func(n int) string
}

// pathoCases are inputs that would cost quadratic time or more in a
// careless reader.
func pathoCases() []pathoCase {
	rep := strings.Repeat
	return []pathoCase{
		{"sections", 100_000, func(n int) string { return rep("== Same\n\n", n) }},
		{"unclosed strong", 200_000, func(n int) string { return rep("*a ", n) + "\n" }},
		{"unclosed monospace", 200_000, func(n int) string { return rep("`a ", n) + "\n" }},
		{"nested spans", 100_000, func(n int) string { return rep("*_", n) + "x" + rep("_*", n) + "\n" }},
		{"unclosed xrefs", 100_000, func(n int) string { return rep("<<a ", n) + "\n" }},
		{"unclosed macros", 100_000, func(n int) string { return rep("xref:a[", n) + "\n" }},
		{"xref targets with spaces", 100_000, func(n int) string { return rep("xref:a b ", n) + "\n" }},
		{"natural xrefs", 100_000, func(n int) string { return rep("<<A b>> <<A b,t>> xref:A b[] ", n) + "\n\n== A b\n" }},
		{"inner anchors", 100_000, func(n int) string { return rep("== S\n\n[[x]]a [[y]]b\n\n", n) }},
		{"passthroughs", 100_000, func(n int) string { return rep("+a ", n) + "\n" }},
		{"unclosed pass macros", 100_000, func(n int) string { return rep(`pass:[a\] `, n) + "\n" }},
		{"id replacements", 100_000, func(n int) string { return "== " + rep("a--(C) -- \\... ", n) + "\n" }},
		{"attribute refs", 100_000, func(n int) string { return ":a: {a}{a}\n" + rep("{a}", n) + "\n" }},
		{"unclosed blocks", 10_000, func(n int) string { return rep("====\n----\n....\n", n) }},
		{"list items", 100_000, func(n int) string { return rep("* a\n** b\n. c\n", n) }},
		{"deep lists", 10_000, func(n int) string {
			var b strings.Builder
			for i := 1; i <= n; i++ {
				b.WriteString(rep("*", i%6+1) + " x\n+\n")
			}
			return b.String()
		}},
		{"table cells", 100_000, func(n int) string { return "|===\n" + rep("|a ", n) + "\n|===\n" }},
		{"zero cells", 100_000, func(n int) string { return "|===\n" + rep("|a 0*|b ", n) + "\n|===\n" }},
		{"csv quoted cell", 100_000, func(n int) string { return "[format=csv]\n|===\n\"" + rep("a,", n) + "\n|===\n" }},
		{"csv quoted lines", 100_000, func(n int) string { return "[format=csv]\n|===\n\"" + rep("a\n", n) + "|===\n" }},
		{"tsv tabs", 100_000, func(n int) string { return "[format=tsv]\n|===\n\"a" + rep("\t", n) + "\n|===\n" }},
		{"dsv escapes", 100_000, func(n int) string { return ":===\n" + rep(`a\:`, n) + "\n:===\n" }},
		{"raw pass tags", 100_000, func(n int) string { return "== +++" + rep("<a &amp;", n) + "+++\n\n== pass:[" + rep("<>", n) + "]\n" }},
		{"raw pass emphasis", 100_000, func(n int) string {
			return "== +++" + rep("<b><i>", n) + "x" + rep("</i></b>", n) + rep("<code>", n) + "+++\n"
		}},
		{"title anchors", 100_000, func(n int) string { return "== " + rep(" [[a \\[[a,", n) + "]]\n" }},
		{"rowspans", 100_000, func(n int) string { return "|===\n|a |b\n" + rep("|x .64+|y 2.3+|z ", n) + "\n|===\n" }},
		{"self includes", 10, func(n int) string { return rep("include::partial$self.adoc[]\n", n) }},
		{"conditionals", 100_000, func(n int) string { return rep("ifdef::x[]\n", n) + "text\n" }},
	}
}

// TestPathological splits every hostile input and checks that the text
// after it survives. It asserts no timing: a quadratic cost would make it
// run for hours and time out, and BenchmarkPathological gives the figures
// (a ratio near 10 between its two sizes is linear). Under the race
// detector, which slows this single-goroutine code tenfold and finds
// nothing in it, the inputs are a tenth of the size.
func TestPathological(t *testing.T) {
	if testing.Short() {
		t.Skip("splits megabytes of hostile input; skipped in -short mode")
	}
	for _, c := range pathoCases() {
		t.Run(c.name, func(t *testing.T) {
			n := c.big
			if raceEnabled && n >= 100 {
				n /= 10
			}
			src := c.gen(n) + "\n\nthe end of the document\n"
			doc, _, err := SplitReport("docs/modules/ROOT/pages/page.adoc", []byte(src), fuzzRepo(nil), markdown.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if c.name == "conditionals" {
				return // the end is inside the open conditionals
			}
			last := doc.Sections[len(doc.Sections)-1]
			if !strings.Contains(last.Prose, "the end of the document") && !strings.Contains(last.Text, "the end of the document") {
				t.Errorf("the end of the document is lost: last section %q", last.Text[max(0, len(last.Text)-200):])
			}
		})
	}
}
