package asciidoc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/codex7/codex7/markdown"
)

// fuzzRepo is the repository fuzzed files are split in: it holds files
// to include, one of which includes itself.
func fuzzRepo(src []byte) fstest.MapFS {
	return fstest.MapFS{
		"docs/antora.yml":                       {Data: []byte("name: fz\nasciidoc:\n  attributes:\n    a: b@\n")},
		"docs/modules/ROOT/pages/page.adoc":     {Data: src},
		"docs/modules/ROOT/partials/self.adoc":  {Data: []byte("x\ninclude::partial$self.adoc[]\ninclude::partial$self.adoc[]\n")},
		"docs/modules/ROOT/examples/code.rb":    {Data: []byte("# tag::a[]\nputs 1\n# end::a[]\n")},
		"docs/modules/ROOT/partials/plain.adoc": {Data: []byte("== Partial\n\ntext\n")},
	}
}

// FuzzSplit checks that Split never panics, keeps the Document's
// invariants and takes bounded time, on any input.
func FuzzSplit(f *testing.F) {
	for _, in := range goldenInputs(f) {
		src, err := os.ReadFile(filepath.Join("testdata", in))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, uint16(1200))
	}
	for _, c := range pathoCases() {
		f.Add([]byte(c.gen(30)), uint16(40))
	}
	f.Add([]byte("include::partial$self.adoc[]\n== A\n[cols=3*]\n|===\n|a|b\n2+|c\n|===\n"), uint16(5))
	f.Add([]byte("[discrete]\n== pass:[<b>x</b>] [[id]]\n\n[format=csv]\n|===\n\"a,\"\"b\",c\n\n|===\n:===\na\\:b:c\n:===\n|===\n|a 0*|b\n|===\n"), uint16(20))
	f.Add([]byte(":sectids!:\n.T\n== pass:[<b>B</b> <code>c</code>][[x]]\n[[]]\n[[a, b c]]\n== T [[y,r]]\n.D\n[discrete]\n=== D\n|===\n|a .2+|b 0*|c\n2.2+|d\n|e\n|===\n"), uint16(30))
	f.Add([]byte("<<A b>> [[p]]x\n\n== A b [[t,T u]]\n\n<<A b,t>> xref:A b[] xref:x y.adoc#Z w[] [[i,R s]] anchor:m[M n]\n\n[[k,K]]\n.B c\n----\nc\n----\n<<R s>> <<K>> <<B c>> <<T u>>\n"), uint16(20))
	f.Add([]byte("A pass:[<b>x <i>y</i></b> <code>c</code>] +++<br><h2>z</h2>+++ `+++<b>c</b>+++` <<page.adoc>> <<page#id,t>> <<page.adoc#>>\n\n* pass:[<b>i\n|===\n|a 0+|b |c\n0.2+|d |e\n|===\n"), uint16(20))
	f.Fuzz(func(t *testing.T, src []byte, max uint16) {
		const p = "docs/modules/ROOT/pages/page.adoc"
		opts := markdown.Options{MaxSectionTokens: int(max)}
		doc, c, err := split(p, src, fuzzRepo(src), opts)
		if !utf8.Valid(src) {
			if !errors.Is(err, markdown.ErrInvalidUTF8) || doc != nil {
				t.Fatalf("got %v, %v for invalid UTF-8, want nil, ErrInvalidUTF8", doc, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkDocument(t, p, doc)
		// Conditionals hide text on purpose, includes add it.
		if strings.Contains(string(src), "if") || strings.Contains(string(src), "include::") {
			return
		}
		if lost := lostWords(src, doc, c.hidden); len(lost) > 0 {
			t.Errorf("words lost: %q", lost)
		}
	})
}
