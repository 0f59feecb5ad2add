package synthdist

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/codex7/codex7/artifacts"
)

// TestWriteVerifies: a dist written by Write, tiny or not, from generated
// pages or a corpus, passes indexer verify's checks, lists every library
// once under its ID, and is the same bytes when written again.
func TestWriteVerifies(t *testing.T) {
	corpus := t.TempDir()
	for _, name := range []string{"a.md", "sub/b.md", "c.mdx"} {
		p := filepath.Join(corpus, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("# Title of "+name+"\n\nSome prose about stone rivers.\n\n## Usage\n\nCall it.\n"), 0o644)
	}
	for _, opts := range []Options{{Libraries: 5, Pages: 2}, {Libraries: 5, Pages: 2, Tiny: true}, {Libraries: 4, Pages: 2, Corpus: corpus}} {
		out := t.TempDir()
		if err := Write(context.Background(), out, opts); err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		problems, err := artifacts.Verify(out)
		if err != nil || len(problems) > 0 {
			t.Fatalf("%+v: verify: %v %v", opts, err, problems)
		}
		cat, err := artifacts.ReadCatalog(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(cat.Libraries) != opts.Libraries {
			t.Fatalf("%+v: %d libraries in the catalog", opts, len(cat.Libraries))
		}
		for i := range opts.Libraries {
			if cat.Library(ID(i)) == nil {
				t.Errorf("%+v: %s not in the catalog", opts, ID(i))
			}
		}
		again := t.TempDir()
		if err := Write(context.Background(), again, opts); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(filepath.Join(out, artifacts.CatalogFile))
		b, _ := os.ReadFile(filepath.Join(again, artifacts.CatalogFile))
		if string(a) != string(b) {
			t.Errorf("%+v: two writes gave different catalogs", opts)
		}
	}
}
