package markdown

import (
	"errors"
	"os"
	"testing"
	"unicode/utf8"
)

// FuzzSplit checks that Split never panics and that its result keeps the
// invariants (see invariantErrors), losing no text, for any path kind,
// with and without chunking. The seeds are the golden inputs and small
// versions of the pathological inputs.
func FuzzSplit(f *testing.F) {
	for _, in := range goldenInputs(f) {
		src, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, in[len(in)-3:] == "mdx", uint16(1200))
	}
	for _, c := range pathoCases() {
		f.Add([]byte(c.gen(40)), false, uint16(50))
	}
	f.Add([]byte("## A {/*a*/}\n<Foo\n  x={{a: '}'}}\n/>\n::: tip\nx\n:::\n"), true, uint16(5))
	f.Add([]byte("---\ntitle: x\n---\n- # nested\n  text\n> ## quoted\n"), false, uint16(3))
	f.Fuzz(func(t *testing.T, src []byte, mdx bool, max uint16) {
		path := "docs/page.md"
		if mdx {
			path = "docs/page.mdx"
		}
		opts := Options{MaxSectionTokens: int(max)}
		if !utf8.Valid(src) {
			if doc, err := Split(path, src, opts); !errors.Is(err, ErrInvalidUTF8) || doc != nil {
				t.Fatalf("got %v, %v for invalid UTF-8, want nil, ErrInvalidUTF8", doc, err)
			}
			return
		}
		// invariantErrors splits src and checks the whole result.
		for _, e := range invariantErrors(path, src, opts) {
			t.Errorf("%s (input %q)", e, src)
		}
	})
}
