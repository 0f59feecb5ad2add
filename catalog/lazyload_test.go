package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/synthdist"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/topics"
)

// reads returns, for libraries 0 to n-1 of a synthdist catalog, how often
// each latest version's manifest and topics.json were read.
func reads(t *testing.T, e *Loader, n int) (manifests, trees string) {
	t.Helper()
	st := e.current.Load()
	var m, tr []int32
	for i := range n {
		sl := st.latest[synthdist.ID(i)]
		if sl == nil {
			t.Fatalf("no latest version for %s", synthdist.ID(i))
		}
		m, tr = append(m, sl.manifests.Load()), append(tr, sl.topicsReads.Load())
	}
	return fmt.Sprint(m), fmt.Sprint(tr)
}

// sameRanking checks that e's library index ranks as one built from every
// latest version's topic tree read from disk does.
func sameRanking(t *testing.T, e *Loader, dir string) {
	t.Helper()
	cat, err := artifacts.ReadCatalog(dir)
	if err != nil {
		t.Fatal(err)
	}
	trees := map[string]*topics.Tree{}
	var words []string
	for _, l := range cat.Libraries {
		tree, err := artifacts.ReadTopics(filepath.Join(dir, filepath.FromSlash(l.Version(l.Latest).Path)))
		if err != nil {
			t.Fatal(err)
		}
		trees[l.ID] = tree
		words = append(words, tree.Names()...)
	}
	if len(words) == 0 {
		t.Fatal("no topic names: the test cannot tell an index with topics from one without")
	}
	want := libraries.NewIndex(cat, trees)
	for _, q := range words[:min(len(words), 8)] {
		w, g := want.Search(nil, q, "", 5), e.Libraries().Search(nil, q, "", 5)
		if len(w) == 0 {
			t.Errorf("%q: no library found by its topics", q)
		}
		if fmt.Sprint(ids(g)) != fmt.Sprint(ids(w)) {
			t.Errorf("%q: ranked %v, from the trees on disk %v", q, ids(g), ids(w))
		}
	}
}

func ids(ms []libraries.Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Library.ID)
	}
	return out
}

// TestLoadReadsNoVersionFile: a catalog that lists its versions' manifest
// sums and latest topics loads without reading any version's file (what
// makes 50,000 versions load in seconds), ranks libraries by their topics
// as the trees on disk say, reads a version's manifest once on its first
// use, and a reload of the unchanged catalog reads nothing again.
func TestLoadReadsNoVersionFile(t *testing.T) {
	const n = 5
	dir := t.TempDir()
	if err := synthdist.Write(context.Background(), dir, synthdist.Options{Libraries: n, Pages: 2}); err != nil {
		t.Fatal(err)
	}
	e, err := Open([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	none := fmt.Sprint(make([]int32, n))
	if m, tr := reads(t, e, n); m != none || tr != none {
		t.Errorf("after the load: manifests read %s, topics.json %s; want none", m, tr)
	}
	sameRanking(t, e, dir)
	if _, err := ask(e, synthdist.ID(2), "install"); err != nil {
		t.Fatal(err)
	}
	want := "[0 0 1 0 0]"
	if m, tr := reads(t, e, n); m != want || tr != want {
		t.Errorf("after one library was asked: manifests read %s, topics.json %s; want %s", m, tr, want)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m, tr := reads(t, e, n); m != want || tr != want {
		t.Errorf("after a reload of the same catalog: manifests read %s, topics.json %s; want %s", m, tr, want)
	}
}

// TestLoadOlderCatalog: a catalog written before catalogs listed manifest
// sums and topics is still served: the load reads each latest version's
// manifest and tree once, for the library index, which ranks alike; a
// reload of it reads them no more.
func TestLoadOlderCatalog(t *testing.T) {
	const n = 5
	dir := t.TempDir()
	if err := synthdist.Write(context.Background(), dir, synthdist.Options{Libraries: n, Pages: 2}); err != nil {
		t.Fatal(err)
	}
	cat, err := artifacts.ReadCatalog(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cat.Libraries {
		for j := range cat.Libraries[i].Versions {
			v := &cat.Libraries[i].Versions[j]
			v.Manifest, v.Topics = "", nil
		}
	}
	data, err := artifacts.EncodeCatalog(cat)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, artifacts.CatalogFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Open([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	once := fmt.Sprint([]int32{1, 1, 1, 1, 1})
	if m, tr := reads(t, e, n); m != once || tr != once {
		t.Errorf("after the load: manifests read %s, topics.json %s; want %s", m, tr, once)
	}
	sameRanking(t, e, dir)
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m, tr := reads(t, e, n); m != once || tr != once {
		t.Errorf("after a reload: manifests read %s, topics.json %s; want %s", m, tr, once)
	}
	if a, err := ask(e, synthdist.ID(4), "install"); err != nil || a.Commit == "" {
		t.Errorf("asking: %+v, %v", a, err)
	}
}

// TestResolvedNamesTheBuildOnDisk: what Resolve says a version is (its
// build, by which answers are cached, and its commit) is the manifest on
// disk, whatever catalog.json lists: a directory republished after the
// catalog was written, or a catalog rewritten to list another build for a
// manifest that stayed.
func TestResolvedNamesTheBuildOnDisk(t *testing.T) {
	s := buildtest.NewSite(t, t.TempDir())
	s.Build()
	dir := replaceVersion(t, s, nil)
	_, sum, err := artifacts.ReadManifestSum(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open([]string{s.Out}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	check := func(when string) {
		t.Helper()
		r, err := e.Resolve(context.Background(), "/acme/site")
		if err != nil {
			t.Fatal(err)
		}
		if r.Build != sum || r.Version.Commit != manifestCommit(t, dir) || r.Version.Manifest != sum {
			t.Errorf("%s: resolved build %.12s, commit %.12s; the manifest on disk is %.12s of commit %.12s", when, r.Build, r.Version.Commit, sum, manifestCommit(t, dir))
		}
	}
	check("republished under the catalog, before any answer")
	// A catalog that lists another build for the manifest still there.
	cat, err := artifacts.ReadCatalog(s.Out)
	if err != nil {
		t.Fatal(err)
	}
	v := cat.Library("/acme/site").Version("main")
	v.Commit, v.Manifest = "bogus", strings.Repeat("1", 64)
	data, err := artifacts.EncodeCatalog(cat)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Out, artifacts.CatalogFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("a catalog listing another build")
}

// TestRefusalLiftedWhenTheManifestReturns: a version refused because its
// manifest was missing serves again once the manifest is back, even with
// the same bytes the catalog lists (as a pull installs a good copy).
func TestRefusalLiftedWhenTheManifestReturns(t *testing.T) {
	s, e := servedSite(t)
	manifest := filepath.Join(artifacts.Dir(s.Out, "/acme/site", "main"), artifacts.ManifestFile)
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(manifest); err != nil {
		t.Fatal(err)
	}
	if _, err := ask(e, "/acme/site", "edition"); !errors.Is(err, artifacts.ErrMissing) {
		t.Fatalf("asking with the manifest gone: %v, want ErrMissing", err)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := e.Status().Refused; len(r) != 1 {
		t.Fatalf("refused %+v, want the version without its manifest", r)
	}
	if err := os.WriteFile(manifest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := e.Status().Refused; len(r) != 0 {
		t.Fatalf("refused %+v once the manifest is back, want none", r)
	}
	if m, _ := markerOf(t, e); m != "marker1" {
		t.Errorf("answer from %s, want marker1", m)
	}
}

// TestRefusedVersionStaysRefused: once a version is refused for damage,
// its topics are not served from the same catalog and no checksum pass
// runs again (background verification would hash it after every load).
func TestRefusedVersionStaysRefused(t *testing.T) {
	s, e := servedSite(t)
	flipByte(t, filepath.Join(artifacts.Dir(s.Out, "/acme/site", "main"), "index", "sections.bin"))
	if _, err := ask(e, "/acme/site", "edition"); !errors.Is(err, artifacts.ErrChecksum) {
		t.Fatalf("asking the damaged version: %v, want ErrChecksum", err)
	}
	sl := e.current.Load().vdirs["acme/site/main"]
	passes := sl.passes.Load()
	if err := sl.verify(); !errors.Is(err, artifacts.ErrChecksum) {
		t.Errorf("verify after the refusal: %v, want the refusal", err)
	}
	if got := sl.passes.Load(); got != passes {
		t.Errorf("checksum passes %d after the refusal, want %d: the refused version was hashed again", got, passes)
	}
	if _, _, err := e.Topics(context.Background(), "/acme/site"); err == nil {
		t.Error("the refused version's topics were served")
	}
}

// TestRefusalRecordedOnce: requests that find a manifest unreadable at
// once refuse the version once, and a load looking at the refusal meanwhile
// (reusable) reads what the refusal recorded without a race (-race).
func TestRefusalRecordedOnce(t *testing.T) {
	s := buildtest.NewSite(t, t.TempDir())
	s.Build()
	dir := artifacts.Dir(s.Out, "/acme/site", "main")
	if err := os.WriteFile(filepath.Join(dir, artifacts.ManifestFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		sl := &versionDir{dir: dir, library: "/acme/site", version: "main"}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if _, err := sl.described(); !errors.Is(err, artifacts.ErrCorrupt) {
					t.Errorf("described: %v, want ErrCorrupt", err)
				}
			})
		}
		wg.Go(func() {
			for sl.refusal() == nil {
				runtime.Gosched()
			}
			if !reusable(sl, dir, "") {
				t.Error("a refusal for the manifest still there is not reused")
			}
		})
		wg.Wait()
		if n := sl.manifests.Load(); n != 1 {
			t.Errorf("the manifest was read %d times, want once: the refusal is recorded once", n)
		}
	}
}
