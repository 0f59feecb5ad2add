package markdown

import (
	"os"
	"testing"
)

// FuzzSplit checks that Split never panics and that its result keeps the
// invariants (see invariantErrors) for any path kind, with and without
// chunking.
func FuzzSplit(f *testing.F) {
	for _, in := range goldenInputs(f) {
		src, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, in[len(in)-3:] == "mdx", uint16(1200))
	}
	f.Add([]byte("## A {/*a*/}\n<Foo\n  x={{a: '}'}}\n/>\n::: tip\nx\n:::\n"), true, uint16(5))
	f.Add([]byte("---\ntitle: x\n---\n- # nested\n  text\n> ## quoted\n"), false, uint16(3))
	f.Fuzz(func(t *testing.T, src []byte, mdx bool, max uint16) {
		path := "docs/page.md"
		if mdx {
			path = "docs/page.mdx"
		}
		opts := Options{MaxSectionTokens: int(max)}
		doc, err := Split(path, src, opts)
		if err != nil {
			return // invalid UTF-8
		}
		if doc == nil {
			t.Fatal("got nil Document and nil error")
		}
		for _, e := range invariantErrors(path, src, opts) {
			t.Errorf("%s (input %q)", e, src)
		}
	})
}
