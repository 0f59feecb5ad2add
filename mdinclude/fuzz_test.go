package mdinclude

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzExpand checks, on any page, that Expand does not fail, that a page
// it does not change comes back as it was, that the line map has one
// line of the page, in order, for each line of the text, and that Files,
// when set, names a file for each line of the text too, each a file of
// the repository other than the page, or "".
func FuzzExpand(f *testing.F) {
	for _, s := range []string{
		"{!../../../docs_src/app.py!}\n",
		"```\n{!> shared.md !}\n```\n",
		"--8<--\nsnippets/note.md:1:2\n--8<--\n",
		"--8<-- \"snippets/note.md:-2,1:1,:-9\"\n",
		"  --8<-- \"snippets/sections.md:usage\"\n;--8<-- 'x'\n",
		"<<< @/snippets/code.ts#snippet{1,2 ts} [a.ts]\n",
		"<!--@include: ./parts/basics.md{2,}-->\n",
		"{{#include listing.rs:main}} \\{{#playground listing.rs}}\n",
		"--8<--\n",
		"{!{!x!}!}",
		"import Install from '../_install.mdx';\n\n  <Install a=\"b\" />\n",
		"# A {!parts/outer.md!}\n  {!parts/two.md!}x{!parts/intro.md!}\n",
		"--8<-- \"docs/parts/outer-snip.md\"\n",
	} {
		f.Add("docs/en/docs/index.md", s)
		f.Add("site/guide/deploy.md", s)
		f.Add("book/src/chapter_2.md", s)
		f.Add("web/docs/guide/setup.mdx", s)
	}
	fsys := repo()
	for p, f := range originsRepo() {
		fsys[p] = f
	}
	f.Fuzz(func(t *testing.T, page, src string) {
		r := Expand(page, []byte(src), fsys)
		if r.Lines == nil {
			if !bytes.Equal(r.Text, []byte(src)) {
				t.Fatalf("text changed without a line map: %q", r.Text)
			}
			if r.Files != nil {
				t.Fatalf("files %q without a line map", r.Files)
			}
			return
		}
		if r.Files != nil && len(r.Files) != len(r.Lines) {
			t.Fatalf("%d files for %d lines of text", len(r.Files), len(r.Lines))
		}
		for _, f := range r.Files {
			if _, ok := fsys[f]; f != "" && (!ok || f == page) {
				t.Fatalf("a line of %q, which is the page or no file", f)
			}
		}
		pageLines := strings.Count(strings.TrimSuffix(src, "\n"), "\n") + 1
		if n := bytes.Count(bytes.TrimSuffix(r.Text, []byte{'\n'}), []byte{'\n'}) + 1; len(r.Lines) != n {
			t.Fatalf("%d mapped lines for %d lines of text", len(r.Lines), n)
		}
		for i, l := range r.Lines {
			if l < 1 || l > pageLines || (i > 0 && l < r.Lines[i-1]) {
				t.Fatalf("line map %v out of the page's %d lines", r.Lines, pageLines)
			}
		}
		for _, d := range r.Dropped {
			if d.Line < 1 || d.Line > pageLines {
				t.Fatalf("dropped %v on no line of the page", d)
			}
		}
	})
}
