package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/pipeline"
)

// TestClosedEngineStaysClosed closes an engine and then tries each way a
// catalog could be loaded again: none may bring it back to serve with
// indexes nothing would close.
func TestClosedEngineStaysClosed(t *testing.T) {
	tests := []struct {
		name string
		// after runs once the engine is closed; watched is Watch's
		// catalog.json, to touch.
		after func(t *testing.T, e *Engine, catalogFile string)
	}{
		{"a watch tick after a build", func(t *testing.T, e *Engine, catalogFile string) {
			now := time.Now().Add(time.Second)
			if err := os.Chtimes(catalogFile, now, now); err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond) // ten ticks
		}},
		{"a reload", func(t *testing.T, e *Engine, catalogFile string) {
			if err := e.Reload(context.Background()); !errors.Is(err, catalog.ErrClosed) {
				t.Errorf("Reload after Close: %v, want catalog.ErrClosed", err)
			}
		}},
		{"a second close", func(t *testing.T, e *Engine, catalogFile string) {
			if err := e.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := buildtest.NewSite(t, t.TempDir())
			s.Build()
			e, err := OpenWith(s.Out, Options{VerifyInBackground: true})
			if err != nil {
				t.Fatal(err)
			}
			markerOf(t, e)
			// Watch runs on a context that outlives the engine, as a
			// server's signal context does.
			watching := make(chan struct{})
			go func() {
				defer close(watching)
				e.Watch(context.Background(), 5*time.Millisecond)
			}()
			e.Close()
			select {
			case <-watching:
			case <-time.After(5 * time.Second):
				t.Fatal("Watch still runs after Close")
			}
			tt.after(t, e, filepath.Join(s.Out, artifacts.CatalogFile))
			if st := e.Status(); st.Ready || st.Open != 0 || st.Libraries != 0 {
				t.Errorf("status after Close: %+v, want nothing served", st)
			}
			ctx := context.Background()
			calls := map[string]func() error{
				"Docs":      func() error { _, err := e.Docs(ctx, DocsRequest{Library: "/acme/site", Query: "edition"}); return err },
				"Search":    func() error { _, err := e.Search(ctx, Request{Library: "/acme/site", Query: "edition"}); return err },
				"Resolve":   func() error { _, err := e.Resolve(ctx, "/acme/site"); return err },
				"Topics":    func() error { _, _, err := e.Topics(ctx, "/acme/site"); return err },
				"Documents": func() error { _, _, err := e.Documents(ctx, "/acme/site"); return err },
			}
			for name, call := range calls {
				if err := call(); !errors.Is(err, catalog.ErrClosed) {
					t.Errorf("%s after Close: %v, want catalog.ErrClosed", name, err)
				}
			}
		})
	}
}

// TestFindLibrariesOneCatalog loads two catalogs in turn, whose latest
// version of /acme/lib differs (v1 has one document, v2 two), while
// FindLibraries runs: each answer's documents must be those of the latest
// version it names, never the other catalog's.
func TestFindLibrariesOneCatalog(t *testing.T) {
	repo := gittest.New(t, "main")
	repo.Write(map[string]string{"docs/a.md": "# A\n\nWidgets poll a data source.\n"})
	repo.Commit("v1")
	repo.Git("tag", "v1")
	repo.Write(map[string]string{"docs/b.md": "# B\n\nWidgets stream events.\n"})
	repo.Commit("v2")
	repo.Git("tag", "v2")
	cfg, err := config.Parse(strings.NewReader("libraries:\n  - id: /acme/lib\n    repo: "+repo.Dir+"\n    versions: [{ref: v1}, {ref: v2}]\n    latest: v1\n"), "codex7.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if res, err := pipeline.Build(context.Background(), cfg, pipeline.Options{Out: out}); err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	catalogFile := filepath.Join(out, artifacts.CatalogFile)
	v1, err := os.ReadFile(catalogFile)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := artifacts.ReadCatalog(out)
	if err != nil || len(cat.Libraries) != 1 || cat.Libraries[0].Latest != "v1" {
		t.Fatalf("catalog %+v, %v: want /acme/lib, latest v1", cat, err)
	}
	cat.Libraries[0].Latest = "v2"
	v2, err := artifacts.EncodeCatalog(cat)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			data := v1
			if i%2 == 0 {
				data = v2
			}
			// A build replaces catalog.json by rename.
			if err := os.WriteFile(catalogFile+".tmp", data, 0o644); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(catalogFile+".tmp", catalogFile); err != nil {
				t.Error(err)
				return
			}
			if err := e.Reload(context.Background()); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	answers, mixed := 0, 0
	for ctx.Err() == nil {
		res, err := e.FindLibraries(context.Background(), libraries.Request{Name: "/acme/lib", Detail: "full"})
		if err != nil || len(res.Matches) != 1 {
			t.Fatalf("FindLibraries: %+v, %v", res, err)
		}
		m := res.Matches[0]
		answers++
		if len(m.Docs)+m.DocsLeftOut != m.Documents || m.Problem != "" {
			mixed++
			if mixed == 1 {
				t.Errorf("latest %s has %d documents, but %d are listed (%+v): documents of another catalog", m.Latest, m.Documents, len(m.Docs)+m.DocsLeftOut, m.Docs)
			}
		}
	}
	wg.Wait()
	if mixed > 0 {
		t.Errorf("%d of %d answers mixed two catalogs", mixed, answers)
	}
}

// markerOf returns the edition of a buildtest.Site a search answer came
// from, and the answer's commit.
func markerOf(t *testing.T, e *Engine) (string, string) {
	t.Helper()
	a, err := e.Docs(context.Background(), DocsRequest{Library: "/acme/site", Query: "edition widgets"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range a.Sections {
		if i := strings.Index(s.Text, "marker"); i >= 0 {
			return s.Text[i : i+len("marker")+1], a.Commit
		}
	}
	t.Fatalf("no edition in %+v", a)
	return "", ""
}
