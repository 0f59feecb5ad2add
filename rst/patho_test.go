package rst

import (
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/markdown"
)

// pathoCase is a family of hostile inputs: gen(n) makes one of size n in
// the family's own unit.
type pathoCase struct {
	name string
	big  int
	gen  func(n int) string
}

// pathoEnd ends every pathological input; it must survive.
const pathoEnd = "\n\nthe end of the document\n"

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
		{"titles", 50_000, func(n int) string { return rep("Title\n=====\n\n", n) }},
		{"title styles", 20_000, func(n int) string {
			chars := "=-~^\"'`#*+<>"
			return lines(n, func(i int) string { return "\nT\n" + rep(chars[i%len(chars):i%len(chars)+1], 4) })
		}},
		{"deep indentation", 20_000, func(n int) string {
			return lines(n, func(i int) string { return rep(" ", i%300) + "text" })
		}},
		{"deep bullets", 500_000, func(n int) string { return rep("- ", n) + "item\n" }},
		{"deep enumerations", 200_000, func(n int) string { return rep("1. ", n) + "item\n" }},
		{"nested directives", 20_000, func(n int) string {
			return lines(n, func(i int) string { return rep("   ", i%100) + ".. note::\n" })
		}},
		{"unclosed backticks", 200_000, func(n int) string { return rep("`a ", n) + "\n" }},
		{"unclosed literals", 200_000, func(n int) string { return rep("``a ", n) + "\n" }},
		{"unclosed roles", 200_000, func(n int) string { return rep(":func:`a ", n) + "\n" }},
		{"unclosed emphasis", 200_000, func(n int) string { return rep("*a **b |c ", n) + "\n" }},
		{"references", 200_000, func(n int) string { return rep("name_ `x <y>`_ [1]_ |s| ", n) + "\n" }},
		{"simple table borders", 50_000, func(n int) string { return rep("===  ===\nx\n", n) }},
		{"grid table starts", 50_000, func(n int) string { return rep("+---+\n| a |\n", n) }},
		{"long paragraph", 200_000, func(n int) string { return rep("word ", 5) + "\n" + rep("more text here\n", n) }},
		{"targets", 100_000, func(n int) string { return rep(".. _a:\n", n) + "T\n=\n" }},
		{"objects", 20_000, func(n int) string { return rep(".. function:: f(x)\n\n   Body.\n\n", n) }},
		{"noindex objects", 20_000, func(n int) string { return rep(".. function:: f(x)\n   :noindex:\n\n   Body.\n\n", n) }},
		{"definition lists", 100_000, func(n int) string { return rep("term\n   def\n", n) }},
		{"fields", 100_000, func(n int) string { return rep(":a: b\n", n) }},
		{"substitutions", 200_000, func(n int) string {
			return ".. |s| replace:: " + rep("*w* |u| ", 100) + "\n.. |u| unicode:: U+2610\n\n" + rep("|s| ", n) + "\n"
		}},
		{"list tables", 50_000, func(n int) string { return ".. list-table::\n\n" + rep("   * - a\n     -\n     - - b\n", n) }},
		{"quoted literal blocks", 100_000, func(n int) string { return rep("a::\n\n> b\n", n) }},
		{"nested glossaries", 20_000, func(n int) string {
			return lines(n, func(i int) string { return rep("   ", i%100) + ".. glossary::\n" + rep("   ", i%100+1) + "term\n" })
		}},
		{"glossary terms", 50_000, func(n int) string {
			return ".. glossary::\n\n" + rep("   ---\n      d\n", n) + "\n" + rep(":term:`---` :mod:`m` ", n) + "\n"
		}},
	}
}

// TestPathological splits every hostile input and checks that the text
// after it survives. It asserts no timing: a quadratic cost would make it
// run for hours and time out, and BenchmarkPathological gives the figures.
// Under the race detector the inputs are a tenth of the size.
func TestPathological(t *testing.T) {
	if testing.Short() {
		t.Skip("pathological inputs are slow in -short mode")
	}
	for _, c := range pathoCases() {
		t.Run(c.name, func(t *testing.T) {
			n := c.big
			if raceEnabled && n >= 100 {
				n /= 10
			}
			src := []byte(c.gen(n) + pathoEnd)
			start := time.Now()
			doc, err := Split("docs/p.rst", src, nil, markdown.DefaultOptions())
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			last := doc.Sections[len(doc.Sections)-1]
			if !strings.Contains(last.Prose, "the end of the document") {
				t.Errorf("the end of the document was lost: last section %q", last.Prose[max(0, len(last.Prose)-200):])
			}
			t.Logf("%d bytes in %v", len(src), took)
		})
	}
}

// BenchmarkPathological times each case at a tenth of its size and at
// its size: the ratio is about 10 when splitting is linear.
func BenchmarkPathological(b *testing.B) {
	for _, c := range pathoCases() {
		for _, n := range []int{c.big / 10, c.big} {
			src := []byte(c.gen(n) + pathoEnd)
			b.Run(c.name+"/"+itoa(n), func(b *testing.B) {
				for b.Loop() {
					if _, err := Split("docs/p.rst", src, nil, markdown.DefaultOptions()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
