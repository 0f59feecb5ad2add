package notebook

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

// pathoCase is a family of hostile notebooks: gen(n) makes one of size n
// in the family's own unit (cells, outputs, bytes...). TestPathological
// splits gen(big); BenchmarkPathological times gen(big/10) and gen(big),
// whose ratio is about 10 when splitting is linear and 100 when it is
// quadratic.
type pathoCase struct {
	name string
	big  int
	gen  func(n int) []byte
}

// pathoEnd is the last markdown cell of every pathological notebook:
// TestPathological checks that it survives whatever comes before it.
const pathoEnd = "## The end\n\nthe end of the notebook\n"

// pathoNotebook returns a notebook of the given cells and a last markdown
// cell holding pathoEnd.
func pathoNotebook(cells ...map[string]any) []byte {
	cells = append(cells, mdCell(pathoEnd))
	b, err := json.Marshal(map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": map[string]any{}, "cells": cells})
	if err != nil {
		panic(err)
	}
	return b
}

// pathoCases are the hostile notebooks. Sizes stay under the build's 4 MiB
// file limit and are large enough that a quadratic cost would show.
func pathoCases() []pathoCase {
	rep := strings.Repeat
	stream := func(text string) map[string]any {
		return map[string]any{"output_type": "stream", "name": "stdout", "text": text}
	}
	return []pathoCase{
		{"markdown cells", 100_000, func(n int) []byte {
			cells := make([]map[string]any, n)
			for i := range cells {
				cells[i] = mdCell("## h\ntext")
			}
			return pathoNotebook(cells...)
		}},
		{"code cells", 100_000, func(n int) []byte {
			cells := make([]map[string]any, n)
			for i := range cells {
				cells[i] = codeCell("x", stream("y\n"))
			}
			return pathoNotebook(append([]map[string]any{mdCell("# T")}, cells...)...)
		}},
		{"stream outputs to merge", 200_000, func(n int) []byte {
			outs := make([]map[string]any, n)
			for i := range outs {
				outs[i] = stream("progress line\n")
			}
			return pathoNotebook(mdCell("# T"), codeCell("fit()", outs...))
		}},
		{"one long output line", 3_000_000, func(n int) []byte {
			return pathoNotebook(mdCell("# T"), codeCell("x", stream(rep("é", n/2))))
		}},
		{"many output lines", 300_000, func(n int) []byte {
			return pathoNotebook(mdCell("# T"), codeCell("x", stream(rep("a\n", n))))
		}},
		{"carriage returns", 1_000_000, func(n int) []byte {
			return pathoNotebook(mdCell("# T"), codeCell("x", stream(rep("\r12%\b", n/5))))
		}},
		{"unterminated escapes", 1_000_000, func(n int) []byte {
			return pathoNotebook(mdCell("# T"), codeCell("x", stream(rep("\x1b[1;", n/4))))
		}},
		{"unclosed comments", 500_000, func(n int) []byte { return pathoNotebook(mdCell(rep("<!--", n/4))) }},
		{"closed comments", 500_000, func(n int) []byte { return pathoNotebook(mdCell(rep("<!-- -->\n", n/9))) }},
		{"unclosed scripts", 500_000, func(n int) []byte { return pathoNotebook(mdCell(rep("<script>\n", n/9))) }},
		{"backtick runs", 1_000_000, func(n int) []byte {
			var b strings.Builder
			for i := 1; b.Len() < n; i++ {
				b.WriteString(rep("`", i) + "x")
			}
			return pathoNotebook(mdCell(b.String()))
		}},
		{"unclosed fences", 100_000, func(n int) []byte {
			cells := make([]map[string]any, n)
			for i := range cells {
				cells[i] = mdCell("```\nx")
			}
			return pathoNotebook(cells...)
		}},
		{"data uris", 3_000_000, func(n int) []byte {
			return pathoNotebook(mdCell("![a](data:image/png;base64," + rep("A", n) + ")"))
		}},
		{"data words", 1_000_000, func(n int) []byte { return pathoNotebook(mdCell(rep("(data:"+rep("a", 190), n/196))) }},
		{"backticks in code", 1_000_000, func(n int) []byte {
			return pathoNotebook(mdCell("# T"), codeCell(rep("`", n)))
		}},
	}
}

// TestPathological splits every hostile notebook at its full size and
// checks that the last cell's heading and text come out whole. It asserts
// no timing: a quadratic cost would make it run for hours and time out,
// and BenchmarkPathological gives the figures. Under the race detector
// the inputs are a tenth of the size.
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
			doc, err := Split("nb/patho.ipynb", tt.gen(n), nil, markdown.DefaultOptions())
			if err != nil {
				t.Fatalf("Split: %v", err)
			}
			checkDoc(t, doc)
			last := doc.Sections[len(doc.Sections)-1]
			if last.Heading != "The end" || !strings.HasSuffix(last.Text, "the end of the notebook") {
				t.Errorf("last section is %q: %q, want the end of the notebook", last.Heading, tail(last.Text, 60))
			}
		})
	}
}

// BenchmarkPathological splits every hostile notebook at a tenth of its
// full size and at its full size. Compare the two ns/op: linear work
// gives a ratio near 10.
func BenchmarkPathological(b *testing.B) {
	for _, tt := range pathoCases() {
		for _, n := range []int{tt.big / 10, tt.big} {
			b.Run(fmt.Sprintf("%s/n=%d", tt.name, n), func(b *testing.B) {
				src := tt.gen(n)
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					if _, err := Split("nb/patho.ipynb", src, nil, markdown.DefaultOptions()); err != nil {
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
