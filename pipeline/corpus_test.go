package pipeline

import (
	"context"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/internal/gittest"
)

var corpus = flag.String("corpus", filepath.Join("..", "..", "shared", "corpus"), "directory of real documentation trees (../shared/corpus)")

// corpusConfig makes every tree under -corpus a git repository (cached in
// the temp dir across runs) and returns a config listing them all, with the
// size of their markdown.
func corpusConfig(tb testing.TB) (*config.Config, map[string]string) {
	tb.Helper()
	entries, err := os.ReadDir(*corpus)
	if err != nil {
		tb.Skipf("no corpus at %s: %v", *corpus, err)
	}
	cache := filepath.Join(os.TempDir(), "codex7-corpus-repos")
	var src strings.Builder
	src.WriteString("libraries:\n")
	dirs := map[string]string{}
	for _, e := range entries {
		if !e.IsDir() || !strings.Contains(e.Name(), "__") {
			continue
		}
		id := "/" + strings.Replace(e.Name(), "__", "/", 1)
		dirs[id] = filepath.Join(*corpus, e.Name())
		repo := gittest.FromDir(tb, dirs[id], cache)
		src.WriteString("  - id: " + id + "\n    repo: " + repo + "\n")
	}
	if len(dirs) == 0 {
		tb.Skipf("no trees in %s", *corpus)
	}
	cfg, err := config.Parse(strings.NewReader(src.String()), "corpus.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	return cfg, dirs
}

// TestCorpus builds every real documentation tree and checks that no
// markdown file is lost: each one is a document, excluded by the default
// globs, or listed as skipped with a reason. It needs a few seconds without
// the race detector and is skipped with it (and with -short).
func TestCorpus(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("whole-corpus build: run without -short and -race (CI does)")
	}
	cfg, dirs := corpusConfig(t)
	out := t.TempDir()
	res, err := Build(context.Background(), cfg, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if probs, err := artifacts.Verify(out); err != nil || len(probs) > 0 {
		t.Fatalf("Verify: %v %v", probs, err)
	}
	excludes := config.DefaultExcludes(false)
	for _, lib := range res.Catalog.Libraries {
		v := lib.Version(lib.Latest)
		m, err := artifacts.ReadManifest(filepath.Join(out, filepath.FromSlash(v.Path)))
		if err != nil {
			t.Fatal(err)
		}
		var want, excluded int
		filepath.WalkDir(dirs[lib.ID], func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(Selection{}).reads(p) {
				return err
			}
			rel, _ := filepath.Rel(dirs[lib.ID], p)
			if matchAny(excludes, filepath.ToSlash(rel)) {
				excluded++
			} else {
				want++
			}
			return nil
		})
		if got := m.Counts.Documents + m.Counts.Skipped; got != want {
			t.Errorf("%s: %d documents + %d skipped, want %d markdown files (%d excluded by default)", lib.ID, m.Counts.Documents, m.Counts.Skipped, want, excluded)
		}
		for _, s := range m.Skipped {
			t.Logf("%s: skipped %s: %s", lib.ID, s.Path, s.Reason)
		}
		if m.Counts.Sections < m.Counts.Documents {
			t.Errorf("%s: %d sections for %d documents", lib.ID, m.Counts.Sections, m.Counts.Documents)
		}
		t.Logf("%s: %d documents, %d sections, %d topics, %d excluded by default", lib.ID, m.Counts.Documents, m.Counts.Sections, m.Counts.Topics, excluded)
	}

	// A few questions whose answers are known, as a retrieval smoke test
	// (the evaluation set in ../shared/eval measures ranking properly).
	for _, tc := range []struct{ lib, query, path string }{
		{"/tiangolo/fastapi", "CORSMiddleware allow origins", "docs/en/docs/tutorial/cors.md"},
		{"/vitejs/vite", "env variables import.meta.env", "docs/guide/env-and-mode.md"},
		{"/reactjs/react.dev", "useState", "src/content/reference/react/useState.md"},
	} {
		v := res.Catalog.Library(tc.lib)
		if v == nil {
			continue
		}
		r, err := index.Open(filepath.Join(out, filepath.FromSlash(v.Version(v.Latest).Path), artifacts.IndexDir))
		if err != nil {
			t.Fatal(err)
		}
		hits, err := r.Search(context.Background(), index.Query{Text: tc.query, Limit: 5})
		r.Close()
		found := false
		for _, h := range hits {
			found = found || h.Path == tc.path
		}
		if err != nil || !found {
			t.Errorf("%s %q: top 5 %v lack %s (err %v)", tc.lib, tc.query, hitPaths(hits), tc.path, err)
		}
	}
}

func hitPaths(hits []index.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}
