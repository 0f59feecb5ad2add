package catalog

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/internal/synthdist"
)

// synthLoader writes a dist of n generated libraries and opens a loader
// on it with opts, closed when the test ends.
func synthLoader(t *testing.T, n int, opts Options) *Loader {
	t.Helper()
	out := t.TempDir()
	if err := synthdist.Write(context.Background(), out, synthdist.Options{Libraries: n, Pages: 2}); err != nil {
		t.Fatal(err)
	}
	e, err := Open([]string{out}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// passes returns how many checksum passes library i's version has had.
func passes(e *Loader, i int) int32 {
	st := e.current.Load()
	r, sl, err := st.resolve(nil, synthdist.ID(i))
	if err != nil || r == nil {
		panic(err)
	}
	return sl.passes.Load()
}

// TestMaxOpenEvictsLeastRecentlyUsed: beyond MaxOpen, the version used
// least recently closes; asked again, it opens again without its files
// being checksummed again, and the counts say so.
func TestMaxOpenEvictsLeastRecentlyUsed(t *testing.T) {
	e := synthLoader(t, 4, Options{MaxOpen: 2})
	askLib := func(i int) {
		t.Helper()
		if _, err := ask(e, synthdist.ID(i), "river"); err != nil {
			t.Fatalf("ask library %d: %v", i, err)
		}
	}
	type counts struct {
		Open                      int
		Opens, Evictions, OpenHit int64
	}
	check := func(when string, want counts) {
		t.Helper()
		s := e.Status()
		if got := (counts{s.Open, s.Opens, s.Evictions, s.OpenHits}); got != want {
			t.Errorf("%s: got %+v, want %+v", when, got, want)
		}
	}
	askLib(0)
	askLib(1)
	check("after 2 libraries", counts{Open: 2, Opens: 2})
	askLib(2)
	check("after 3 libraries", counts{Open: 2, Opens: 3, Evictions: 1})
	askLib(1) // 2 is now the least recently used
	check("after library 1 again", counts{Open: 2, Opens: 3, Evictions: 1, OpenHit: 1})
	askLib(0)
	check("after library 0 again", counts{Open: 2, Opens: 4, Evictions: 2, OpenHit: 1})
	askLib(1)
	check("after library 1 a third time", counts{Open: 2, Opens: 4, Evictions: 2, OpenHit: 2})
	if got := passes(e, 0); got != 1 {
		t.Errorf("library 0 was checksummed %d times over two openings, want 1", got)
	}
	if s := e.Status(); s.MaxOpen != 2 {
		t.Errorf("status MaxOpen %d, want 2", s.MaxOpen)
	}
}

// TestMaxOpenDefaultAndNone: 0 means DefaultMaxOpen; a negative MaxOpen
// keeps every version open.
func TestMaxOpenDefaultAndNone(t *testing.T) {
	if s := synthLoader(t, 1, Options{}).Status(); s.MaxOpen != DefaultMaxOpen {
		t.Errorf("default MaxOpen %d, want %d", s.MaxOpen, DefaultMaxOpen)
	}
	e := synthLoader(t, 3, Options{MaxOpen: -1})
	for i := range 3 {
		if _, err := ask(e, synthdist.ID(i), "river"); err != nil {
			t.Fatal(err)
		}
	}
	if s := e.Status(); s.Open != 3 || s.Evictions != 0 || s.MaxOpen != 0 {
		t.Errorf("no bound: open %d, evictions %d, max %d; want 3, 0, 0", s.Open, s.Evictions, s.MaxOpen)
	}
}

// TestVersionInUseNeverClosed runs many requests at once under a bound of
// one open version, each opening two libraries and using the first after
// opening the second: the first would be the one evicted, were it not
// held until its request ends. No request may fail, and once they all
// end, the bound holds again.
func TestVersionInUseNeverClosed(t *testing.T) {
	const libs, workers, rounds = 6, 16, 30
	e := synthLoader(t, libs, Options{MaxOpen: 1})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				a, b := (w+r)%libs, (w+2*r+1)%libs
				err := e.With(func(st *Snapshot) error {
					_, va, err := st.Open(nil, synthdist.ID(a))
					if err != nil {
						return err
					}
					if _, _, err := st.Open(nil, synthdist.ID(b)); err != nil {
						return err
					}
					hits, err := va.Search(context.Background(), index.Query{Text: "river stone", Limit: 3, WithText: true})
					if err != nil {
						return err
					}
					if len(hits) == 0 {
						return fmt.Errorf("library %d: no hits", a)
					}
					if _, err := va.Documents(); err != nil {
						return err
					}
					_, err = va.Document(hits[0].Path, true)
					return err
				})
				if err != nil {
					t.Errorf("worker %d round %d: %v", w, r, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	s := e.Status()
	if s.Open > 1 {
		t.Errorf("%d versions open once every request ended, want at most 1", s.Open)
	}
	if s.Evictions == 0 {
		t.Error("no version was evicted: the test did not exercise the bound")
	}
	for i := range libs {
		if got := passes(e, i); got > 1 {
			t.Errorf("library %d checksummed %d times, want at most 1", i, got)
		}
	}
}

// TestServedCatalogSharesVersions checks that the catalog served does not
// copy the versions of the catalog as read (which the loader keeps, to
// fall back on) when they are served as listed: at 50,000 libraries a
// copy is 150 bytes a version.
func TestServedCatalogSharesVersions(t *testing.T) {
	e := synthLoader(t, 3, Options{})
	st := e.current.Load()
	read := st.sources[0].catalog
	if len(st.catalog.Libraries) != 3 {
		t.Fatalf("served %d libraries, want 3", len(st.catalog.Libraries))
	}
	for i := range st.catalog.Libraries {
		served := &st.catalog.Libraries[i]
		listed := read.Library(served.ID)
		if listed == nil || len(listed.Versions) == 0 || len(served.Versions) != len(listed.Versions) {
			t.Fatalf("%s: served %+v, listed %+v", served.ID, served, listed)
		}
		if &served.Versions[0] != &listed.Versions[0] {
			t.Errorf("%s: the served catalog holds a copy of the versions listed", served.ID)
		}
	}
}
