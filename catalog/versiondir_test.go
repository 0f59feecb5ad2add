package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/synthdist"

	"github.com/codex7/codex7/artifacts"
)

// TestTransientFailuresAreRetried makes opening a version fail for a
// reason that passes (a file briefly away after verification, no file
// descriptors free): the request fails without being told the version was
// republished, the version is not refused, and the next request, and the
// next catalog, serve it.
func TestTransientFailuresAreRetried(t *testing.T) {
	const lib = "/acme/site"
	tests := []struct {
		name     string
		verified bool // the version was checksummed before the failure
		fail     func(t *testing.T, dir string) (restore func())
	}{
		{"store away after verification", true, func(t *testing.T, dir string) func() {
			store := filepath.Join(dir, artifacts.IndexDir, "sections.bin")
			if err := os.Rename(store, store+".away"); err != nil {
				t.Fatal(err)
			}
			return func() { os.Rename(store+".away", store) }
		}},
		// With n descriptors free, the request fails opening the index,
		// which holds two files open (0 and 1: the manifest is checked
		// again by its inode, without a descriptor); while verifying,
		// hashing (0) or opening the index (1).
		{"no descriptor free, verified", true, func(t *testing.T, dir string) func() { return starveFDs(t, 0) }},
		{"one descriptor free, verified", true, func(t *testing.T, dir string) func() { return starveFDs(t, 1) }},
		{"no descriptor free while verifying", false, func(t *testing.T, dir string) func() { return starveFDs(t, 0) }},
		{"one descriptor free while verifying", false, func(t *testing.T, dir string) func() { return starveFDs(t, 1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, e := servedSite(t)
			if tt.verified {
				st := e.acquire()
				err := st.vdirs["acme/site/main"].verify()
				st.release()
				if err != nil {
					t.Fatal(err)
				}
			}
			ctx := context.Background()
			req := func() error { _, err := ask(e, lib, "edition widgets"); return err }
			restore := tt.fail(t, artifacts.Dir(s.Out, lib, "main"))
			err := req()
			restore()
			if err == nil {
				t.Fatal("the request succeeded despite the failure")
			}
			t.Logf("request error: %v", err)
			if msg := err.Error(); strings.Contains(msg, "not served") || !strings.Contains(msg, "try again") {
				t.Errorf("error %q: a passing failure said to be a version not served; want it to say try again", msg)
			}
			if errors.Is(err, ErrStale) || strings.Contains(fmtErr(err), "republished") {
				t.Errorf("request error %v: a transient failure reported as a republished version", err)
			}
			if r := e.Status().Refused; len(r) != 0 {
				t.Errorf("refused %+v after a transient failure, want none", r)
			}
			if err := req(); err != nil {
				t.Errorf("next request: %v, want an answer", err)
			}
			if err := e.Reload(ctx); err != nil {
				t.Fatal(err)
			}
			if err := req(); err != nil {
				t.Errorf("after a reload: %v, want an answer", err)
			}
		})
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestDamageStaysRefused checks the other side: a checksum mismatch found
// when a version opens refuses it for good, through requests and reloads.
func TestDamageStaysRefused(t *testing.T) {
	s, e := servedSite(t)
	ctx := context.Background()
	store := filepath.Join(artifacts.Dir(s.Out, "/acme/site", "main"), artifacts.IndexDir, "sections.bin")
	good, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	flipByte(t, store)
	req := func() error { _, err := ask(e, "/acme/site", "edition widgets"); return err }
	if err := req(); !errors.Is(err, ErrVersionUnavailable) {
		t.Fatalf("damaged version: %v, want ErrVersionUnavailable", err)
	}
	os.WriteFile(store, good, 0o644)
	if err := req(); !errors.Is(err, ErrVersionUnavailable) {
		t.Errorf("next request: %v, want the refusal to stay", err)
	}
	e.Reload(ctx)
	if r := e.Status().Refused; len(r) != 1 || r[0].Path != "acme/site/main" {
		t.Errorf("refused after a reload: %+v, want acme/site/main", r)
	}
}

// TestStatusCountsServedVersions checks that a version refused after the
// catalog loaded (found by verification) stops counting as served at
// once, before the reload that leaves it out: /readyz and /metrics never
// count one version both as served and as refused.
func TestStatusCountsServedVersions(t *testing.T) {
	s, e := servedSite(t)
	before := e.Status()
	flipByte(t, filepath.Join(artifacts.Dir(s.Out, "/acme/site", "main"), artifacts.DocumentsFile))
	st := e.acquire()
	err := st.vdirs["acme/site/main"].verify()
	st.release()
	if !errors.Is(err, artifacts.ErrChecksum) {
		t.Fatalf("verify: %v, want a checksum mismatch", err)
	}
	got := e.Status()
	if len(got.Refused) != 1 || got.Versions != before.Versions-1 {
		t.Errorf("status: %d versions served, %d refused; want %d and 1", got.Versions, len(got.Refused), before.Versions-1)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if after := e.Status(); len(after.Refused) != 1 || after.Versions != got.Versions {
		t.Errorf("after the reload: %d versions served, %d refused; want %d and 1", after.Versions, len(after.Refused), got.Versions)
	}
}

// TestStatusDuringVerification checks that Status (what /readyz and
// /metrics call) answers at once while a version is being checksummed, and
// that two verifications of one version at once hash its files once: the
// second waits for the first's result.
func TestStatusDuringVerification(t *testing.T) {
	_, e := servedSite(t)
	st := e.acquire()
	defer st.release()
	sl := st.vdirs["acme/site/main"]
	// documents.json is the first file verified; a pipe stalls the hashing.
	feed := blockFile(t, filepath.Join(sl.dir, artifacts.DocumentsFile))
	results := make(chan error, 2)
	for range 2 {
		go func() { results <- sl.verify() }()
	}
	time.Sleep(50 * time.Millisecond) // both verifications start
	status := make(chan Status, 1)
	go func() { status <- e.Status() }()
	select {
	case got := <-status:
		if len(got.Refused) != 0 || got.Libraries != 2 {
			t.Errorf("status %+v during verification, want both libraries, none refused", got)
		}
	case <-time.After(2 * time.Second):
		t.Error("Status waited for a verification to finish")
	}
	feed() // one writer: a second hashing of the pipe would wait for ever
	for range 2 {
		select {
		case err := <-results:
			if err != nil {
				t.Errorf("verify: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a concurrent verification hashed the files again (it waits on the pipe)")
		}
	}
}

// TestTransientManifestFailureIsNotRefused makes a version's manifest
// unreadable for a reason that passes (here a directory in its place,
// EISDIR, standing for EIO): the catalog still loads and serves the
// version (a load reads no manifest), a request meets the error without
// the version being refused, and the next request, once the manifest
// reads, is answered.
func TestTransientManifestFailureIsNotRefused(t *testing.T) {
	s := buildtest.NewSite(t, t.TempDir())
	s.Build()
	manifest := filepath.Join(artifacts.Dir(s.Out, "/acme/site", "main"), artifacts.ManifestFile)
	if err := os.Rename(manifest, manifest+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(manifest, 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := Open([]string{s.Out}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if st := e.Status(); st.Libraries != 2 || len(st.Refused) != 0 {
		t.Fatalf("status %+v, want both libraries served, none refused", st)
	}
	if _, err := ask(e, "/acme/site", "edition"); !isReadDirError(err) {
		t.Fatalf("asking: %v, want the error of reading a directory (EISDIR)", err)
	}
	if r := e.Status().Refused; len(r) != 0 {
		t.Fatalf("refused %+v after a failure that passes, want none", r)
	}
	os.Remove(manifest)
	if err := os.Rename(manifest+".away", manifest); err != nil {
		t.Fatal(err)
	}
	if m, _ := markerOf(t, e); m != "marker1" {
		t.Errorf("answer from %s, want marker1", m)
	}
}

// TestDocumentsRetriedAfterShortage: reading documents.json of an open
// version while the process has no descriptor free fails that call only:
// the version is not refused, and the next call, once descriptors are
// free again, reads the documents (before, the failure was kept until
// the version closed, which a busy server may never do).
func TestDocumentsRetriedAfterShortage(t *testing.T) {
	_, e := servedSite(t)
	docs := func() ([]artifacts.DocumentInfo, error) {
		var out []artifacts.DocumentInfo
		err := e.With(func(st *Snapshot) error {
			_, v, err := st.Open(nil, "/acme/site")
			if err != nil {
				return err
			}
			out, err = v.Documents()
			return err
		})
		return out, err
	}
	if _, err := ask(e, "/acme/site", "edition widgets"); err != nil { // opened, index and all
		t.Fatal(err)
	}
	restore := starveFDs(t, 0)
	_, err := docs()
	restore()
	if err == nil {
		t.Skip("documents.json was read with no descriptor free")
	}
	t.Logf("while short of descriptors: %v", err)
	if msg := err.Error(); strings.Contains(msg, "not served") || !strings.Contains(msg, "try again") {
		t.Errorf("error %q: a passing shortage said to be a version not served; want it to say try again", msg)
	}
	if r := e.Status().Refused; len(r) != 0 {
		t.Errorf("refused %+v after a shortage, want none", r)
	}
	if d, err := docs(); err != nil || len(d) == 0 {
		t.Errorf("next call: %d documents, %v; want them read", len(d), err)
	}
}

// TestRemovedVersionRetried: a build or pull writes a catalog without a
// library, then removes its directory; a request on the catalog loaded
// before (the next poll has not come) is retried on the new one and told
// the library is not found, not that its version is damaged, whether the
// version was open or not, and nothing is refused. A directory gone while
// the catalog still lists it stays damage.
func TestRemovedVersionRetried(t *testing.T) {
	for _, opened := range []bool{false, true} {
		t.Run(fmt.Sprintf("opened %v", opened), func(t *testing.T) {
			dir := t.TempDir()
			if err := synthdist.Write(context.Background(), dir, synthdist.Options{Libraries: 2, Pages: 2}); err != nil {
				t.Fatal(err)
			}
			gone := synthdist.ID(1)
			e, err := Open([]string{dir}, Options{MaxOpen: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if opened {
				if _, err := ask(e, gone, "install"); err != nil {
					t.Fatal(err)
				}
				if _, err := ask(e, synthdist.ID(0), "install"); err != nil { // closes the other
					t.Fatal(err)
				}
			}
			release, err := artifacts.Lock(dir)
			if err != nil {
				t.Fatal(err)
			}
			cat, removed, err := artifacts.WriteCatalogKeeping(dir, nil, func(id, _ string) bool { return id != gone })
			if err != nil || cat.Library(gone) != nil || len(removed) != 1 {
				t.Fatalf("catalog without %s: %v, removed %v", gone, err, removed)
			}
			if err := artifacts.Remove(dir, removed[0]); err != nil {
				t.Fatal(err)
			}
			release()
			_, err = ask(e, gone, "install")
			if !errors.Is(err, ErrLibraryNotFound) || strings.Contains(fmtErr(err), "not served") {
				t.Errorf("request for the removed library: %v, want not found", err)
			}
			if r := e.Status().Refused; len(r) != 0 {
				t.Errorf("refused %+v, want none", r)
			}
			if _, err := ask(e, synthdist.ID(0), "install"); err != nil {
				t.Errorf("the library kept: %v", err)
			}
		})
	}
}

// TestVanishedVersionIsDamage: a version directory gone while catalog.json
// is still the one loaded (deleted by hand, a disk mishap) is damage, not
// a removal to retry: each request gets the version refused, saying its
// files are missing, and none loops on a stale catalog.
func TestVanishedVersionIsDamage(t *testing.T) {
	dir := t.TempDir()
	if err := synthdist.Write(context.Background(), dir, synthdist.Options{Libraries: 2, Pages: 2}); err != nil {
		t.Fatal(err)
	}
	gone := synthdist.ID(1)
	e, err := Open([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cat, err := artifacts.ReadCatalog(dir)
	if err != nil {
		t.Fatal(err)
	}
	rel := cat.Library(gone).Versions[0].Path
	if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // and again, on the catalog loaded since
		_, err = ask(e, gone, "install")
		if !errors.Is(err, ErrVersionUnavailable) || errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "missing") {
			t.Errorf("request %d for the vanished version: %v, want ErrVersionUnavailable saying the files are missing", i+1, err)
		}
	}
}
