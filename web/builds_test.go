package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/topics"
	"github.com/codex7/codex7/web"
)

// republishing is the real engine, with a publish and a reload of the
// catalog after its first Documents or Topics call: what a build does
// when it finishes between the engine calls one page is made of.
type republishing struct {
	*search.Engine
	once    sync.Once
	publish func()
}

func (e *republishing) between() { e.once.Do(e.publish) }

func (e *republishing) Documents(ctx context.Context, id string) (*catalog.Resolved, []artifacts.DocumentInfo, error) {
	res, docs, err := e.Engine.Documents(ctx, id)
	e.between()
	return res, docs, err
}

func (e *republishing) Topics(ctx context.Context, id string) (*catalog.Resolved, *topics.Tree, error) {
	res, tree, err := e.Engine.Topics(ctx, id)
	e.between()
	return res, tree, err
}

// TestPagesOfOneBuild: a page made of several engine calls (a document's
// outline and source link, then its text; a library's topics, then its
// documents) shows one build even when a publish comes between the
// calls: the page is read again, and shows the new build throughout.
// Before, a document page linked build 1's commit around build 2's text.
func TestPagesOfOneBuild(t *testing.T) {
	for _, path := range []string{"/acme/site/-/doc/docs/guide.md", "/acme/site"} {
		t.Run(path, func(t *testing.T) {
			s := buildtest.NewSite(t, t.TempDir())
			s.Build()
			first := s.Repo.Git("rev-parse", "HEAD")
			e := &republishing{Engine: openEngine(t, s.Out)}
			e.publish = func() {
				s.Edition(2)
				s.Build()
				if err := e.Engine.Reload(context.Background()); err != nil {
					t.Error(err)
				}
			}
			ts := httptest.NewServer(web.New(e, web.Options{Repo: testRepo, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
			defer ts.Close()
			resp, err := http.Get(ts.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			second := s.Repo.Git("rev-parse", "HEAD")
			if resp.StatusCode != 200 || first == second {
				t.Fatalf("%d %.300s (commits %s, %s)", resp.StatusCode, body, first, second)
			}
			page := string(body)
			if strings.Contains(page, first[:12]) || !strings.Contains(page, second[:12]) {
				t.Errorf("page names build 1's commit (%.12s): %v, build 2's (%.12s): %v; want build 2's alone", first, strings.Contains(page, first[:12]), second, strings.Contains(page, second[:12]))
			}
			if strings.Contains(path, "/-/doc/") && (!strings.Contains(page, "marker2") || strings.Contains(page, "marker1")) {
				t.Errorf("document text is not build 2's alone: %.500s", page)
			}
		})
	}
}
