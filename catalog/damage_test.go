package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/internal/buildtest"
)

// TestDamageAfterOpen damages files of versions already opened and
// verified: the request that meets the damage gets the version refused
// with a reason that names no server path, as damage found before opening
// does, and so does every request after it, while the rest is served.
func TestDamageAfterOpen(t *testing.T) {
	s := buildtest.NewSite(t, t.TempDir())
	s.Build()
	// A cache of one byte keeps no text block: every read goes to disk.
	e, err := Open([]string{s.Out}, Options{CacheBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	documents := func(id string) error {
		return e.With(func(st *Snapshot) error {
			_, v, err := st.Open(nil, id)
			if err == nil {
				_, err = v.Documents()
			}
			return err
		})
	}
	if _, err := ask(e, "/acme/site", "edition widgets"); err != nil {
		t.Fatal(err)
	}
	if _, err := ask(e, "/acme/other", "gardening"); err != nil {
		t.Fatal(err)
	}

	// sections.bin cut short under the open index.
	store := filepath.Join(artifacts.Dir(s.Out, "/acme/site", "main"), artifacts.IndexDir, "sections.bin")
	if err := os.Truncate(store, 64); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		_, err := ask(e, "/acme/site", "edition widgets")
		var verr *VersionError
		if !errors.As(err, &verr) || !errors.Is(err, ErrVersionUnavailable) || !errors.Is(err, index.ErrCorruptStore) {
			t.Fatalf("request %d after damage: %v, want a *VersionError wrapping ErrVersionUnavailable and index.ErrCorruptStore", i+1, err)
		}
		if strings.Contains(err.Error(), s.Out) {
			t.Errorf("request %d: the error names a server path: %v", i+1, err)
		}
		if !strings.HasPrefix(verr.Reason, artifacts.IndexDir+": ") {
			t.Errorf("request %d: reason %q does not name the index", i+1, verr.Reason)
		}
	}
	if r := e.Status().Refused; len(r) != 1 || r[0].Path != "acme/site/main" {
		t.Errorf("refused %+v, want acme/site/main", r)
	}

	// documents.json removed from an opened version.
	if err := os.Remove(filepath.Join(artifacts.Dir(s.Out, "/acme/other", "main"), artifacts.DocumentsFile)); err != nil {
		t.Fatal(err)
	}
	err = documents("/acme/other")
	if !errors.Is(err, ErrVersionUnavailable) || !errors.Is(err, artifacts.ErrMissing) {
		t.Fatalf("documents after removal: %v, want ErrVersionUnavailable and artifacts.ErrMissing", err)
	}
	if strings.Contains(err.Error(), s.Out) {
		t.Errorf("the error names a server path: %v", err)
	}
	if _, err := ask(e, "/acme/other", "gardening"); !errors.Is(err, ErrVersionUnavailable) {
		t.Errorf("a search of the version refused: %v, want ErrVersionUnavailable", err)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := e.Status().Refused; len(r) != 2 {
		t.Errorf("after a reload, refused %+v: want both versions", r)
	}
}

// TestOddQueryDoesNotRefuseVersion: a query is the request's own;
// however odd, it must not refuse the library version for every later
// request. One word of 2,600 letters, found nowhere, makes the typo
// corrector's Levenshtein DFA exceed vellum's state limit.
func TestOddQueryDoesNotRefuseVersion(t *testing.T) {
	_, e := servedSite(t)
	if _, err := ask(e, "/acme/site", "edition widgets"); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("abcdefghijklmnopqrstuvwxyz", 100) // 2,600 bytes, under request.MaxQueryBytes
	_, err := ask(e, "/acme/site", long)
	t.Logf("odd query: %v", err)
	if _, err := ask(e, "/acme/site", "edition widgets"); err != nil {
		t.Errorf("a normal query after the odd one: %v", err)
	}
	if r := e.Status().Refused; len(r) != 0 {
		t.Errorf("refused after one odd query: %+v", r)
	}
}
