package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/codex7/codex7/artifacts"
)

// TestClosedEngineStaysClosed closes an engine and then tries each way a
// catalog could be loaded again: none may bring it back to serve with
// indexes nothing would close.
func TestClosedEngineStaysClosed(t *testing.T) {
	tests := []struct {
		name string
		// after runs once the engine is closed; watched is Watch's
		// catalog.json, to touch.
		after func(t *testing.T, e *Engine, catalog string)
	}{
		{"a watch tick after a build", func(t *testing.T, e *Engine, catalog string) {
			now := time.Now().Add(time.Second)
			if err := os.Chtimes(catalog, now, now); err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond) // ten ticks
		}},
		{"a reload", func(t *testing.T, e *Engine, catalog string) {
			if err := e.Reload(context.Background()); !errors.Is(err, ErrClosed) {
				t.Errorf("Reload after Close: %v, want ErrClosed", err)
			}
		}},
		{"a second close", func(t *testing.T, e *Engine, catalog string) {
			if err := e.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, t.TempDir())
			s.build()
			e, err := OpenWith(s.out, Options{VerifyInBackground: true})
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
			tt.after(t, e, filepath.Join(s.out, artifacts.CatalogFile))
			if st := e.Status(); st.Ready || st.Open != 0 || st.Libraries != 0 {
				t.Errorf("status after Close: %+v, want nothing served", st)
			}
			ctx := context.Background()
			calls := map[string]func() error{
				"Docs":      func() error { _, err := e.Docs(ctx, DocsRequest{Library: "/acme/site", Query: "edition"}); return err },
				"Search":    func() error { _, err := e.Search(ctx, Request{Library: "/acme/site", Query: "edition"}); return err },
				"Resolve":   func() error { _, err := e.Resolve("/acme/site"); return err },
				"Topics":    func() error { _, _, err := e.Topics(ctx, "/acme/site"); return err },
				"Documents": func() error { _, _, err := e.Documents(ctx, "/acme/site"); return err },
			}
			for name, call := range calls {
				if err := call(); !errors.Is(err, ErrClosed) {
					t.Errorf("%s after Close: %v, want ErrClosed", name, err)
				}
			}
		})
	}
}

// TestStaleRetryAfterClose: a request in flight when the engine closes
// finds its version republished; its retry must not load a catalog.
func TestStaleRetryAfterClose(t *testing.T) {
	s := newSite(t, t.TempDir())
	s.build()
	e, err := Open(s.out)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	err = e.with(func(st *state) error {
		calls++
		if calls == 1 {
			e.Close()
			return errStale
		}
		return nil
	})
	if !errors.Is(err, ErrClosed) || calls != 1 {
		t.Errorf("stale request across Close: %v after %d runs, want ErrClosed after 1", err, calls)
	}
	if st := e.Status(); st.Ready {
		t.Errorf("status %+v: a stale retry loaded a catalog after Close", st)
	}
}

// TestStaleRequestsShareOneReload has n requests find the same state out
// of date at once: the catalog is loaded again once, not once each.
func TestStaleRequestsShareOneReload(t *testing.T) {
	for _, n := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("%d requests", n), func(t *testing.T) {
			s := newSite(t, t.TempDir())
			s.build()
			e, err := Open(s.out)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			before := e.Status().Reloads
			var arrived sync.WaitGroup
			arrived.Add(n)
			var wg sync.WaitGroup
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					runs := 0
					err := e.with(func(st *state) error {
						runs++
						if runs > 1 {
							return nil
						}
						// Every request holds the first state before any
						// of them reports it stale.
						arrived.Done()
						arrived.Wait()
						return errStale
					})
					if err != nil || runs != 2 {
						t.Errorf("request: %v after %d runs, want success after 2", err, runs)
					}
				}()
			}
			wg.Wait()
			if got := e.Status().Reloads - before; got != 1 {
				t.Errorf("%d requests finding one state stale caused %d reloads, want 1", n, got)
			}
		})
	}
}
