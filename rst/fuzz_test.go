package rst

import (
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/codex7/codex7/markdown"
)

// FuzzSplit checks that Split never panics, keeps every plain word of its
// input (see plainWords) and numbers sections within the file.
// TestPathological bounds its time: a wall-clock limit here would fail on
// a busy machine. The seeds are the golden inputs and small pathological
// inputs.
func FuzzSplit(f *testing.F) {
	for _, in := range goldenInputs(f) {
		src, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, uint16(1200))
	}
	for _, c := range pathoCases() {
		f.Add([]byte(c.gen(20)), uint16(50))
	}
	f.Add([]byte(".. _a:\n\nT\n=\n\n.. _b:\n\n.. figure:: x.png\n   :name: c\n\n   A _`d`.\n\n:ref:`b` :ref:`c`\n"), uint16(5))
	f.Add([]byte("T\n=\n\n.. include:: inc.rst\n\n.. code-block::\n\n   x\n"), uint16(5))
	f.Add([]byte("T\n=\n\nS\n-\n\n.. py:class:: A\n\n   a\n\n   .. py:method:: f()\n\n      f\n\n.. confval:: C\n   :noindex:\n\n   c\n"), uint16(5))
	f.Add([]byte(".. |s| replace:: **s** |u|\n.. |u| unicode:: U+2610\n\n.. parsed-literal::\n\n   |s| `a\n   <u>`_\n\n"+
		".. list-table::\n\n   * -\n     - - x\n   * - |u|\n     -\n\n1. - a\n\n| b::\n\n> q\n"), uint16(50))
	f.Add([]byte("T\n=\n\n:term:`a b` :term:`!x` :mod:`~m.n` :ref:`l` :ref:`t`\n\n.. glossary::\n   :sorted:\n\n   A\n   b : c\n      d\n\n"+
		"   .. x\n      y\n\n   ---\n      e\n\n.. module:: m.n\n\n.. automodule:: m\n   :noindex:\n\n.. _l:\n\n.. include:: lab.rst\n"), uint16(50))
	repo := fstest.MapFS{
		"docs/inc.rst": {Data: []byte("Inc\n---\n\ntext ``code``\n\n.. include:: inc.rst\n")},
		"docs/lab.rst": {Data: []byte(".. _t:\n\nT\n-\n\n.. _u:\n\nu\n\n.. glossary::\n\n   u\n      v\n")},
		"docs/app.py":  {Data: []byte("class A:\n    def f(self):\n        pass\n")},
	}
	f.Fuzz(func(t *testing.T, src []byte, max uint16) {
		opts := markdown.Options{MaxSectionTokens: int(max)}
		doc, err := Split("docs/page.rst", src, repo, opts)
		if !utf8.Valid(src) {
			if !errors.Is(err, markdown.ErrInvalidUTF8) || doc != nil {
				t.Fatalf("got %v, %v for invalid UTF-8, want nil, ErrInvalidUTF8", doc, err)
			}
			return
		}
		if err != nil && !errors.Is(err, ErrDropped) {
			t.Fatalf("Split: %v", err)
		}
		lines := 1
		for _, b := range src {
			if b == '\n' {
				lines++
			}
		}
		ids := map[string]bool{}
		for i, s := range doc.Sections {
			if s.Line < 1 || s.Line > lines {
				t.Errorf("section %d line %d outside the file's %d lines", i, s.Line, lines)
			}
			ids[s.Anchor] = true
		}
		// Inner anchors are on first chunks, each once, none empty and
		// none a section's anchor.
		for i, s := range doc.Sections {
			if len(s.InnerAnchors) > 0 && s.Part != 0 {
				t.Errorf("section %d, part %d, has inner anchors %q", i, s.Part, s.InnerAnchors)
			}
			for _, a := range s.InnerAnchors {
				if a == "" || ids[a] {
					t.Errorf("section %d: inner anchor %q empty or taken", i, a)
				}
				ids[a] = true
			}
		}
		// An entry is within the heading of a section that encloses it.
		for i, s := range doc.Sections {
			if s.Within == "" {
				continue
			}
			found := false
			for p := s.Parent; p >= 0 && !found; p = doc.Sections[p].Parent {
				found = doc.Sections[p].Heading == s.Within
			}
			if !found {
				t.Errorf("section %d (%q) is within %q, which no enclosing section is headed", i, s.Heading, s.Within)
			}
		}
		if m := missingWords(src, doc); len(m) > 0 {
			t.Errorf("words lost: %q (input %q)", m[:min(len(m), 10)], src)
		}
		// Every word of the markdown the reader wrote (heading anchors
		// aside) survives markdown.Split: nothing is cleaned away.
		c := newConverter("docs/page.rst", repo)
		ls := splitLines(string(src), 0)
		c.prescan(ls)
		c.blocks(ls, true, 0)
		md, _ := c.w.finish()
		have := map[string]bool{}
		for _, s := range doc.Sections {
			for _, w := range splitWords(s.Text) {
				have[w] = true
			}
		}
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "#") {
				if i := strings.LastIndex(line, " {#"); i >= 0 {
					line = line[:i]
				}
			}
			for _, w := range splitWords(line) {
				if !have[w] {
					t.Errorf("markdown word %q lost by markdown.Split (line %q, input %q)", w, line, src)
				}
			}
		}
	})
}
