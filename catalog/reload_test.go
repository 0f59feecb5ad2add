package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/internal/buildtest"
)

// servedSite builds a site's first edition and opens a loader on it,
// closed when the test ends.
func servedSite(t *testing.T) (*buildtest.Site, *Loader) {
	t.Helper()
	s := buildtest.NewSite(t, t.TempDir())
	s.Build()
	e, err := Open([]string{s.Out}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return s, e
}

// answer is what ask found: the library version's commit and the text of
// its best section.
type answer struct {
	Commit string
	Text   string
}

// ask searches the library version id names for query, as a request does:
// on one Snapshot, retried on a fresh one when a version was republished
// under it.
func ask(e *Loader, id, query string) (*answer, error) {
	var a *answer
	err := e.With(func(st *Snapshot) error {
		r, v, err := st.Open(nil, id)
		if err != nil {
			return err
		}
		hits, err := v.Search(context.Background(), index.Query{Text: query, Limit: 1, WithText: true})
		if err != nil {
			return err
		}
		a = &answer{Commit: r.Version.Commit}
		if len(hits) > 0 {
			a.Text = hits[0].Text
		}
		return nil
	})
	return a, err
}

// markerOf returns the edition a search answer came from.
func markerOf(t *testing.T, e *Loader) (string, string) {
	t.Helper()
	a, err := ask(e, "/acme/site", "edition widgets")
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.Index(a.Text, "marker"); i >= 0 {
		return a.Text[i : i+len("marker")+1], a.Commit
	}
	t.Fatalf("no edition in %+v", a)
	return "", ""
}

func TestReloadPicksUpANewBuild(t *testing.T) {
	s, e := servedSite(t)
	if m, _ := markerOf(t, e); m != "marker1" {
		t.Fatalf("first answer from %s, want marker1", m)
	}
	s.Edition(2)
	s.Build()
	if changed, err := e.reload(false); err != nil || !changed {
		t.Fatalf("reload after a build: changed %v, err %v", changed, err)
	}
	m, commit := markerOf(t, e)
	if m != "marker2" || commit != strings.TrimSpace(s.Repo.Git("rev-parse", "HEAD")) {
		t.Errorf("after reload: %s at %s, want marker2 at HEAD", m, commit)
	}
	if changed, _ := e.reload(false); changed {
		t.Error("reload with an unchanged json swapped the state")
	}
	if st := e.Status(); st.Reloads != 1 || !st.Ready || st.Libraries != 2 {
		t.Errorf("status %+v, want ready, 2 libraries, 1 reload", st)
	}
}

// TestReloadUnderLoad rebuilds the library again and again while searches
// run: no search fails, and each answer is wholly one build's, its text
// matching its commit.
func TestReloadUnderLoad(t *testing.T) {
	s := buildtest.NewSite(t, t.TempDir())
	s.Build()
	commits := map[string]string{strings.TrimSpace(s.Repo.Git("rev-parse", "HEAD")): "marker1"}
	var mu sync.Mutex
	e, err := Open([]string{s.Out}, Options{VerifyInBackground: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go e.Watch(ctx, 5*time.Millisecond)
	var wg sync.WaitGroup
	var answers, failures atomic.Int64
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				a, err := ask(e, "/acme/site", "edition widgets")
				if err != nil {
					failures.Add(1)
					t.Errorf("search during reloads: %v", err)
					return
				}
				answers.Add(1)
				mu.Lock()
				want, ok := commits[a.Commit]
				mu.Unlock()
				text := a.Text
				if !ok || !strings.Contains(text, want+" ") {
					t.Errorf("answer at commit %.12s has %q, want %s", a.Commit, text, want)
					return
				}
			}
		}()
	}
	for n := 2; n <= 6; n++ {
		s.Edition(n)
		head := strings.TrimSpace(s.Repo.Git("rev-parse", "HEAD"))
		mu.Lock()
		commits[head] = fmt.Sprintf("marker%d", n)
		mu.Unlock()
		s.Build()
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	if answers.Load() == 0 || failures.Load() > 0 {
		t.Errorf("%d answers, %d failures", answers.Load(), failures.Load())
	}
	e.reload(false)
	if m, _ := markerOf(t, e); m != "marker6" {
		t.Errorf("final answer from %s, want marker6", m)
	}
}

// TestRepublishedUnderTheCatalog swaps a new build of a version directory
// in without touching json, as a build does just before it writes
// the catalog: a request opening the version then must not fail or mix
// builds; it is retried on a fresh state and answers from the new build.
func TestRepublishedUnderTheCatalog(t *testing.T) {
	for _, tt := range []struct {
		name             string
		opened, newHeads bool
		want             string
	}{
		{"not yet opened", false, false, "marker2"},
		// An open version keeps answering from the build it opened (its
		// files stay open) until the catalog is reloaded…
		{"opened", true, false, "marker1"},
		// …unless what it reads on first use (documents.json) changed: then
		// the request moves to the new build.
		{"opened, documents changed", true, true, "marker2"},
	} {
		t.Run(tt.name, func(t *testing.T) { testRepublished(t, tt.opened, tt.newHeads, tt.want) })
	}
}

// testRepublished republishes the version directory under the catalog,
// with the version not yet opened or opened (its documents.json, read on
// first use, not yet read), then reads a document.
func testRepublished(t *testing.T, opened, newHeads bool, want string) {
	s, e := servedSite(t)
	if opened {
		markerOf(t, e)
	}
	// Each answer must name the build its text comes from.
	commits := map[string]string{"marker1": manifestCommit(t, artifacts.Dir(s.Out, "/acme/site", "main"))}
	var files map[string]string
	if newHeads {
		files = map[string]string{"docs/guide.md": "# Guide\n\n## Edition\n\nThis is edition marker2 of the guide about widgets and polling.\n\n## New\n\nA new part.\n"}
	}
	dir := replaceVersion(t, s, files)
	commits["marker2"] = manifestCommit(t, dir)
	if commits["marker1"] == commits["marker2"] {
		t.Fatal("both builds have the same commit: the test cannot tell them apart")
	}
	var doc []index.Hit
	err := e.With(func(st *Snapshot) error {
		_, v, err := st.Open(nil, "/acme/site")
		if err != nil {
			return err
		}
		// As a path read does: documents.json first, checked against the
		// manifest, which finds the version republished.
		if _, err := v.Documents(); err != nil {
			return err
		}
		doc, err = v.Document("docs/guide.md", true)
		return err
	})
	if err != nil || len(doc) < 2 {
		t.Fatalf("reading the document: %d sections, %v", len(doc), err)
	}
	if text := doc[1].Text; !strings.Contains(text, want) {
		t.Errorf("document read %q, want %s", text, want)
	}
	if m, commit := markerOf(t, e); m != want || commit != commits[m] {
		t.Errorf("answer from %s naming commit %.12s, want %s of commit %.12s", m, commit, want, commits[want])
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m, commit := markerOf(t, e); m != "marker2" || commit != commits[m] {
		t.Errorf("after a reload: answer from %s naming commit %.12s, want marker2 of commit %.12s", m, commit, commits["marker2"])
	}
}

// replaceVersion swaps a new build of the site's /acme/site@main (edition
// 2, with files written over it when given) into its version directory
// without writing the catalog, as a build does before it writes the
// catalog, and returns the directory.
func replaceVersion(t *testing.T, s *buildtest.Site, files map[string]string) string {
	t.Helper()
	other := buildtest.NewSite(t, t.TempDir())
	other.Repo = s.Repo
	s.Edition(2)
	if files != nil {
		s.Repo.Write(files)
		s.Repo.Commit("more changes")
	}
	other.Config = s.Config
	other.Build()
	dir := artifacts.Dir(s.Out, "/acme/site", "main")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(artifacts.Dir(other.Out, "/acme/site", "main"), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// manifestCommit is the commit the manifest of the version directory dir
// names.
func manifestCommit(t *testing.T, dir string) string {
	t.Helper()
	m, err := artifacts.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m.Commit
}

func TestRefusedVersionsAndTheRest(t *testing.T) {
	tests := []struct {
		name   string
		damage func(dir string)
		reason error
	}{
		{"a flipped byte in the index", func(dir string) { flipByte(t, filepath.Join(dir, "index", "sections.bin")) }, artifacts.ErrChecksum},
		{"documents.json truncated", func(dir string) { os.Truncate(filepath.Join(dir, artifacts.DocumentsFile), 10) }, artifacts.ErrChecksum},
		{"documents.json deleted", func(dir string) { os.Remove(filepath.Join(dir, artifacts.DocumentsFile)) }, artifacts.ErrMissing},
		{"an unknown format", func(dir string) {
			p := filepath.Join(dir, artifacts.ManifestFile)
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), fmt.Sprintf(`"format_version": %d`, artifacts.FormatVersion), `"format_version": 99`, 1)), 0o644)
		}, artifacts.ErrFormatVersion},
		// Damage the checksums cannot see (the manifest was rewritten to
		// match) is found opening the index.
		{"a damaged store whose checksum matches", func(dir string) {
			p := filepath.Join(dir, "index", "sections.bin")
			data, _ := os.ReadFile(p)
			data[len(data)-1] ^= 0xff // the trailer's magic
			os.WriteFile(p, data, 0o644)
			setChecksum(t, dir, "index/sections.bin", data)
		}, index.ErrCorruptStore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := buildtest.NewSite(t, t.TempDir())
			s.Build()
			tt.damage(artifacts.Dir(s.Out, "/acme/site", "main"))
			e, err := Open([]string{s.Out}, Options{VerifyInBackground: true})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			// The other library is served as if nothing happened.
			if a, err := ask(e, "/acme/other", "gardening tomatoes"); err != nil || a.Text == "" {
				t.Fatalf("the sound library: %v, %+v", err, a)
			}
			_, err = ask(e, "/acme/site", "edition")
			if !errors.Is(err, ErrVersionUnavailable) || !errors.Is(err, tt.reason) {
				t.Fatalf("the damaged library: %v, want ErrVersionUnavailable and %v", err, tt.reason)
			}
			if strings.Contains(err.Error(), s.Out) {
				t.Errorf("the error names a server path: %v", err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				st := e.Status()
				if len(st.Refused) == 1 && st.Libraries == 1 {
					r := st.Refused[0]
					if r.Library != "/acme/site" || r.Version != "main" || r.Reason == "" || !errors.Is(r.Cause, tt.reason) {
						t.Errorf("refused %+v, want /acme/site@main because of %v", r, tt.reason)
					}
					if strings.Contains(r.Reason, s.Out) {
						t.Errorf("reason %q names a server path", r.Reason)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("status %+v: want the damaged version refused and left out of the catalog", st)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if e.Catalog().Library("/acme/site") != nil {
				t.Error("the refused library is still in the catalog served")
			}
		})
	}
}

// setChecksum records data as the checksum of the file name in the
// manifest of the version directory dir.
func setChecksum(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	m, err := artifacts.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	m.Files[name] = hex.EncodeToString(sum[:])
	raw, err := artifacts.EncodeManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, artifacts.ManifestFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

func flipByte(t *testing.T, p string) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBadCatalogKeepsThePreviousOne(t *testing.T) {
	s, e := servedSite(t)
	p := filepath.Join(s.Out, artifacts.CatalogFile)
	os.Rename(p, p+".good")
	os.WriteFile(p, []byte("{not json"), 0o644)
	if err := e.Reload(context.Background()); !errors.Is(err, artifacts.ErrCorrupt) {
		t.Errorf("reload of a corrupt catalog: %v, want ErrCorrupt", err)
	}
	if m, _ := markerOf(t, e); m != "marker1" {
		t.Errorf("answer from %s, want the previous catalog's marker1", m)
	}
	if st := e.Status(); !st.Ready || !strings.Contains(st.LastError, "corrupt") {
		t.Errorf("status %+v: want ready with the load error", st)
	}
	os.Rename(p+".good", p)
	if err := e.Reload(context.Background()); err != nil || e.Status().LastError != "" {
		t.Errorf("reload of the good catalog: %v, status %+v", err, e.Status())
	}
}

func TestEmptyDirectoryBecomesReady(t *testing.T) {
	out := t.TempDir()
	if _, err := Open([]string{out}, Options{}); err == nil {
		t.Fatal("Open of an empty directory succeeded")
	}
	e, err := Open([]string{out}, Options{AllowEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := ask(e, "/acme/site", "x"); !errors.Is(err, ErrNotReady) {
		t.Errorf("before a build: %v, want ErrNotReady", err)
	}
	if e.Status().Ready {
		t.Error("ready before any catalog")
	}
	buildtest.NewSite(t, out).Build()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Watch(ctx, 5*time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for !e.Status().Ready {
		if time.Now().After(deadline) {
			t.Fatal("Watch did not load the catalog a build published")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if m, _ := markerOf(t, e); m != "marker1" {
		t.Errorf("answer from %s, want marker1", m)
	}
}

// TestRetiredIndexesClose checks that a reload closes the indexes only the
// old catalog used, once no request holds them.
func TestRetiredIndexesClose(t *testing.T) {
	s, e := servedSite(t)
	markerOf(t, e)
	held := e.acquire()
	old := held.vdirs["acme/site/main"]
	s.Edition(2)
	s.Build()
	if _, err := e.reload(false); err != nil {
		t.Fatal(err)
	}
	if !old.isOpen() {
		t.Fatal("an index closed while a request held its state")
	}
	unchanged := held.vdirs["acme/other/main"]
	held.release()
	if old.isOpen() {
		t.Error("the replaced version's index is still open after its last request")
	}
	if e.current.Load().vdirs["acme/other/main"] != unchanged {
		t.Error("an unchanged version was not carried over to the new state")
	}
}

// TestCatalogReadRetriedAfterShortage: a catalog.json that could not be
// read for a reason that passes (here no file descriptor free) is read
// again at the next poll though the file did not change, both before any
// catalog was served and when a publish replaced the one served.
func TestCatalogReadRetriedAfterShortage(t *testing.T) {
	s := buildtest.NewSite(t, t.TempDir())
	s.Build()
	restore := starveFDs(t, 0)
	e, err := Open([]string{s.Out}, Options{AllowEmpty: true})
	restore()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if st := e.Status(); st.Ready {
		t.Fatalf("status %+v: ready though catalog.json could not be read", st)
	}
	if changed, err := e.reload(false); err != nil || !changed {
		t.Fatalf("poll once descriptors are free: changed %v, err %v; want the catalog loaded", changed, err)
	}
	if m, _ := markerOf(t, e); m != "marker1" {
		t.Fatalf("answer from %s, want marker1", m)
	}
	listed := func() string {
		t.Helper()
		l := e.Catalog().Library("/acme/site")
		if l == nil || len(l.Versions) != 1 {
			t.Fatalf("catalog served lists %+v, want /acme/site at one version", l)
		}
		return l.Versions[0].Commit
	}
	first := listed()
	s.Edition(2)
	s.Build()
	restore = starveFDs(t, 0)
	_, err = e.reload(false)
	restore()
	if err == nil || listed() != first {
		t.Fatalf("poll without a descriptor free: err %v, commit %s served; want an error and the previous catalog (%s)", err, listed(), first)
	}
	if _, err := e.reload(false); err != nil {
		t.Fatalf("poll once descriptors are free: %v", err)
	}
	if got, want := listed(), strings.TrimSpace(s.Repo.Git("rev-parse", "HEAD")); got != want {
		t.Errorf("catalog served lists commit %s, want the new catalog's %s", got, want)
	}
	if st := e.Status(); st.LastError != "" {
		t.Errorf("status %+v: want no error once the catalog was read", st)
	}
}
