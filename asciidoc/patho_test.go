package asciidoc

import (
	"strings"
	"testing"
	"time"

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
		{"passthroughs", 100_000, func(n int) string { return rep("+a ", n) + "\n" }},
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
		{"self includes", 10, func(n int) string { return rep("include::partial$self.adoc[]\n", n) }},
		{"conditionals", 100_000, func(n int) string { return rep("ifdef::x[]\n", n) + "text\n" }},
	}
}

// TestPathological checks that hostile inputs are split in bounded time
// and that text after them survives.
func TestPathological(t *testing.T) {
	for _, c := range pathoCases() {
		t.Run(c.name, func(t *testing.T) {
			src := c.gen(c.big) + "\n\nthe end of the document\n"
			start := time.Now()
			doc, _, err := SplitReport("docs/modules/ROOT/pages/page.adoc", []byte(src), fuzzRepo(nil), markdown.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
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
