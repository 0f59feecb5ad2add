package catalog

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/codex7/codex7/internal/buildtest"
)

// TestStaleRetryAfterClose: a request in flight when the engine closes
// finds its version republished; its retry must not load a catalog.
func TestStaleRetryAfterClose(t *testing.T) {
	s := buildtest.NewSite(t, t.TempDir())
	s.Build()
	e, err := Open([]string{s.Out}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	err = e.With(func(st *Snapshot) error {
		calls++
		if calls == 1 {
			e.Close()
			return ErrStale
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
			_, e := servedSite(t)
			before := e.Status().Reloads
			var arrived sync.WaitGroup
			arrived.Add(n)
			var wg sync.WaitGroup
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					runs := 0
					err := e.With(func(st *Snapshot) error {
						runs++
						if runs > 1 {
							return nil
						}
						// Every request holds the first state before any
						// of them reports it stale.
						arrived.Done()
						arrived.Wait()
						return ErrStale
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

// TestPanickingRequestReleasesWhatItHeld: a request that panics (a bug the
// HTTP server recovers from, serving on) still gives back its catalog and
// the versions it opened: once a reload replaces that catalog, the index
// it opened closes, as after a request that returned.
func TestPanickingRequestReleasesWhatItHeld(t *testing.T) {
	s, e := servedSite(t)
	func() {
		defer func() {
			if v := recover(); v == nil {
				t.Error("the request's panic did not reach its caller")
			}
		}()
		e.With(func(st *Snapshot) error {
			if _, _, err := st.Open(nil, "/acme/site"); err != nil {
				return err
			}
			panic("a bug in a request")
		})
	}()
	old := e.current.Load().vdirs["acme/site/main"]
	if !old.isOpen() {
		t.Fatal("the version the request opened is not open")
	}
	s.Edition(2)
	s.Build()
	if _, err := e.reload(false); err != nil {
		t.Fatal(err)
	}
	if old.isOpen() {
		t.Error("the replaced version's index is still open: the panicking request kept its catalog")
	}
	if m, _ := markerOf(t, e); m != "marker2" {
		t.Errorf("answer from %s, want marker2", m)
	}
}
