package loadgen

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/fetch"
)

// TestMakeSynthetic generates a small catalog twice, in two caches, and
// checks it is the same both times (commits included), that the config
// loads and that every repository is a real one whose pages can be cloned;
// a third call reuses the cached catalog rather than generating it again.
func TestMakeSynthetic(t *testing.T) {
	corpus := t.TempDir()
	for name, body := range map[string]string{
		"acme__a/docs/intro.md":      "# Intro\n\nHello.\n",
		"acme__a/docs/guide/use.md":  "# Use\n\n## Step\n\nDo it.\n",
		"beta__b/README.md":          "# Beta\n\nText.\n",
		"beta__b/notes.txt":          "not markdown",
		"beta__b/docs/huge.md":       string(make([]byte, maxSyntheticPage+1)),
		"beta__b/docs/ref/api/x.md":  "# X\n\n```go\nx()\n```\n",
		"beta__b/docs/ref/api/y.md":  "# Y\n",
		"gamma__c/content/en/idx.md": "# Index\n",
	} {
		p := filepath.Join(corpus, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := Spec{Libraries: 3, Pages: 4, Corpus: corpus}
	heads := func(s *Synthetic) []string {
		t.Helper()
		cfg, err := config.Load(s.Config)
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Libraries) != spec.Libraries {
			t.Fatalf("config lists %d libraries, want %d", len(cfg.Libraries), spec.Libraries)
		}
		var out []string
		for i, lib := range cfg.Libraries {
			if lib.ID != s.IDs[i] || lib.ID != SyntheticID(i) {
				t.Errorf("library %d is %s, want %s", i, lib.ID, SyntheticID(i))
			}
			url := filepath.Join(s.Dir, filepath.FromSlash(lib.Repo))
			refs, err := fetch.ListRefs(context.Background(), url, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := refs.Resolve(refs.Head)
			if err != nil || refs.Head != "main" {
				t.Fatalf("head %q: %v", refs.Head, err)
			}
			snap, err := fetch.Clone(context.Background(), url, res, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			err = fs.WalkDir(snap, ".", func(_ string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					n++
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if n != spec.Pages {
				t.Errorf("%s holds %d files, want %d pages", lib.ID, n, spec.Pages)
			}
			out = append(out, res.Commit)
		}
		return out
	}
	a, err := MakeSynthetic(spec, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := MakeSynthetic(spec, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ha, hb := heads(a), heads(b)
	for i := range ha {
		if ha[i] != hb[i] {
			t.Errorf("library %d: commit %s in one cache, %s in the other: generation is not deterministic", i, ha[i], hb[i])
		}
	}
	if ha[0] == ha[1] {
		t.Errorf("libraries 0 and 1 have the same commit %s: want different pages", ha[0])
	}
	// Cached: a marker file inside a repository survives a second call.
	marker := filepath.Join(a.Dir, "marker")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := MakeSynthetic(spec, filepath.Dir(a.Dir)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("second call regenerated the cached catalog: %v", err)
	}
	if _, err := MakeSynthetic(Spec{Libraries: 0, Pages: 1, Corpus: corpus}, t.TempDir()); err == nil {
		t.Error("zero libraries: want an error")
	}
}
