package artifacts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/markdown"
	"github.com/codex7/codex7/topics"
)

func testVersion(id, version, commit string) *Version {
	s := &markdown.Section{Anchor: "intro", Heading: "Intro", Title: "Intro", Level: 1, Parts: 1,
		HeadingPath: []string{"Intro"}, Prose: "Intro hello", Text: "# Intro\n\nhello", Tokens: 4}
	return &Version{
		Manifest: Manifest{
			Library: Library{ID: id, Title: "Lib"}, Version: version, Repo: "/srv/repo", Ref: version,
			Commit: commit, BuiltAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), IndexerVersion: "test",
			ConfigHash: "abc", Counts: Counts{Documents: 1, Sections: 1, Tokens: 4},
		},
		Topics:    &topics.Tree{Categories: []topics.Category{{Slug: "guides", Name: "Guides", Sections: 1, Tokens: 4}}},
		Documents: []DocumentInfo{{Path: "README.md", Title: "Intro", Tokens: 4, Outline: []Outline{{Anchor: "intro", Title: "Intro", Level: 1, Line: 1, Tokens: 4}}}},
		Entries:   []index.Entry{{Path: "README.md", Section: s, Topics: []string{"guides"}}},
	}
}

func publish(t *testing.T, out string, vs ...*Version) *Catalog {
	t.Helper()
	release, err := Lock(out)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, v := range vs {
		if err := Publish(context.Background(), out, v); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := WriteCatalog(out, map[string]string{"/acme/lib": "main"})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// publishedVersion publishes /acme/lib@main into a fresh directory and
// returns the directory, the version's and its manifest as read back.
func publishedVersion(t *testing.T) (out, dir string, m *Manifest) {
	t.Helper()
	out = t.TempDir()
	publish(t, out, testVersion("/acme/lib", "main", "c1"))
	dir = Dir(out, "/acme/lib", "main")
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return out, dir, m
}

func TestPublishAndRead(t *testing.T) {
	out := t.TempDir()
	cat := publish(t, out, testVersion("/acme/lib", "v1.0.0", "c1"), testVersion("/acme/lib", "main", "c2"), testVersion("/other/x", "v2", "c3"), testVersion("/other/x", "v10", "c4"))
	if got := len(cat.Libraries); got != 2 {
		t.Fatalf("libraries = %d, want 2", got)
	}
	if l := cat.Library("/acme/lib"); l == nil || l.Latest != "main" || len(l.Versions) != 2 {
		t.Errorf("acme = %+v, want latest main (from config) and 2 versions", l)
	}
	if l := cat.Library("/OTHER/x"); l == nil || l.Latest != "v10" {
		t.Errorf("other = %+v, want latest v10 (highest semver)", l)
	}
	dir := Dir(out, "/acme/lib", "v1.0.0")
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.FormatVersion != FormatVersion || m.Commit != "c1" || len(m.Files) < 3 {
		t.Errorf("manifest = %+v", m)
	}
	for _, f := range []string{TopicsFile, DocumentsFile} {
		if _, ok := m.Files[f]; !ok {
			t.Errorf("manifest does not list %s", f)
		}
	}
	if docs, err := ReadDocuments(dir); err != nil || len(docs) != 1 || docs[0].Path != "README.md" {
		t.Errorf("documents = %+v, %v", docs, err)
	}
	if tree, err := ReadTopics(dir); err != nil || tree.Categories[0].Slug != "guides" {
		t.Errorf("topics = %+v, %v", tree, err)
	}
	r, err := index.Open(filepath.Join(dir, IndexDir))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if hits, err := r.Search(context.Background(), index.Query{Text: "hello"}); err != nil || len(hits) != 1 {
		t.Errorf("search = %v, %v", hits, err)
	}
	if probs, err := Verify(out); err != nil || len(probs) != 0 {
		t.Errorf("Verify = %v, %v; want no problems", probs, err)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if fi, _ := d.Info(); fi != nil && fi.Mode().Perm()&0o044 != 0o044 {
			t.Errorf("%s mode %v is not readable by others", p, fi.Mode())
		}
		return nil
	})
	if entries, _ := os.ReadDir(filepath.Join(out, stagingDir)); len(entries) != 0 {
		t.Errorf("staging not empty after publish: %v", entries)
	}
}

func TestPublishIsReproducible(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	publish(t, a, testVersion("/acme/lib", "main", "c1"))
	publish(t, b, testVersion("/acme/lib", "main", "c1"))
	for _, f := range []string{CatalogFile, "acme/lib/main/" + ManifestFile, "acme/lib/main/" + TopicsFile, "acme/lib/main/" + DocumentsFile} {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if string(x) != string(y) || len(x) == 0 {
			t.Errorf("%s differs between identical builds", f)
		}
	}
}

func TestPublishReplacesVersion(t *testing.T) {
	out := t.TempDir()
	publish(t, out, testVersion("/acme/lib", "main", "c1"))
	publish(t, out, testVersion("/acme/lib", "main", "c2"))
	m, err := ReadManifest(Dir(out, "/acme/lib", "main"))
	if err != nil || m.Commit != "c2" {
		t.Fatalf("manifest = %+v, %v; want commit c2", m, err)
	}
	cat, _ := ReadCatalog(out)
	if v := cat.Library("/acme/lib").Version("main"); v == nil || v.Commit != "c2" {
		t.Errorf("catalog version = %+v, want commit c2", v)
	}
	if probs, _ := Verify(out); len(probs) != 0 {
		t.Errorf("Verify = %v", probs)
	}
}

func TestPublishCancelledLeavesOldVersion(t *testing.T) {
	out := t.TempDir()
	publish(t, out, testVersion("/acme/lib", "main", "c1"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	release, _ := Lock(out)
	err := Publish(ctx, out, testVersion("/acme/lib", "main", "c2"))
	release()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Publish error = %v, want context.Canceled", err)
	}
	if m, _ := ReadManifest(Dir(out, "/acme/lib", "main")); m == nil || m.Commit != "c1" {
		t.Errorf("old version replaced by a cancelled publish: %+v", m)
	}
	if entries, _ := os.ReadDir(filepath.Join(out, stagingDir)); len(entries) != 0 {
		t.Errorf("staging left behind: %v", entries)
	}
}

func TestVerifyFindsEveryBadFile(t *testing.T) {
	out := t.TempDir()
	publish(t, out, testVersion("/acme/lib", "main", "c1"), testVersion("/acme/lib", "v1", "c0"))
	v := "acme/lib/main/"
	// Flip a byte in topics.json, delete documents.json, add a stray file,
	// and write an unknown format version into the other version's manifest.
	p := filepath.Join(out, v+TopicsFile)
	data, _ := os.ReadFile(p)
	data[5] ^= 0xff
	os.WriteFile(p, data, 0o644)
	os.Remove(filepath.Join(out, v+DocumentsFile))
	os.WriteFile(filepath.Join(out, v+"stray.txt"), []byte("x"), 0o644)
	mp := filepath.Join(out, "acme/lib/v1/"+ManifestFile)
	mdata, _ := os.ReadFile(mp)
	os.WriteFile(mp, []byte(strings.Replace(string(mdata), fmt.Sprintf(`"format_version": %d`, FormatVersion), `"format_version": 99`, 1)), 0o644)

	probs, err := Verify(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]error{
		v + DocumentsFile:             ErrMissing,
		v + "stray.txt":               ErrUnexpected,
		v + TopicsFile:                ErrChecksum,
		"acme/lib/v1/" + ManifestFile: ErrFormatVersion,
	}
	if len(probs) != len(want) {
		t.Errorf("got %d problems %v, want %d", len(probs), probs, len(want))
	}
	for _, p := range probs {
		if w, ok := want[p.Path]; !ok || !errors.Is(p.Err, w) {
			t.Errorf("problem %s, want %v", p, w)
		}
	}
}

func TestVerifyCatalog(t *testing.T) {
	out := t.TempDir()
	publish(t, out, testVersion("/acme/lib", "main", "c1"))
	os.RemoveAll(Dir(out, "/acme/lib", "main"))
	probs, _ := Verify(out)
	if len(probs) != 1 || !errors.Is(probs[0].Err, ErrMissing) || probs[0].Path != "acme/lib/main/manifest.json" {
		t.Errorf("Verify = %v, want the missing version named", probs)
	}
	os.WriteFile(filepath.Join(out, CatalogFile), []byte("{not json"), 0o644)
	probs, _ = Verify(out)
	if len(probs) != 1 || !errors.Is(probs[0].Err, ErrCorrupt) {
		t.Errorf("Verify = %v, want a corrupt catalog", probs)
	}
}

// TestSealedFiles changes manifest.json and catalog.json in ways that
// keep them valid JSON (bit rot in a number or a title, an edit by hand):
// only their own checksum can tell, and Verify and the readers must.
func TestSealedFiles(t *testing.T) {
	tests := []struct {
		file      string
		old, new  string
		read      func(out string) error
		wantError error
	}{
		{"acme/lib/main/" + ManifestFile, `"sections": 1`, `"sections": 3`, func(out string) error {
			_, err := ReadManifest(Dir(out, "/acme/lib", "main"))
			return err
		}, ErrChecksum},
		{"acme/lib/main/" + ManifestFile, `"title": "Lib"`, `"title": "Lab"`, func(out string) error {
			_, err := ReadManifest(Dir(out, "/acme/lib", "main"))
			return err
		}, ErrChecksum},
		// A changed checksum value no longer matches the content.
		{"acme/lib/main/" + ManifestFile, `"checksum": "`, `"checksum": "0`, func(out string) error {
			_, err := ReadManifest(Dir(out, "/acme/lib", "main"))
			return err
		}, ErrCorrupt},
		{CatalogFile, `"latest": "main"`, `"latest": "mains"`, func(out string) error {
			_, err := ReadCatalog(out)
			return err
		}, ErrChecksum},
		{CatalogFile, `"checksum"`, `"checksun"`, func(out string) error {
			_, err := ReadCatalog(out)
			return err
		}, ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.file+" "+tt.new, func(t *testing.T) {
			out := t.TempDir()
			publish(t, out, testVersion("/acme/lib", "main", "c1"))
			if err := tt.read(out); err != nil {
				t.Fatalf("before the change: %v", err)
			}
			p := filepath.Join(out, filepath.FromSlash(tt.file))
			data, _ := os.ReadFile(p)
			changed := strings.Replace(string(data), tt.old, tt.new, 1)
			if changed == string(data) {
				t.Fatalf("%s lacks %s", tt.file, tt.old)
			}
			var v any
			if err := json.Unmarshal([]byte(changed), &v); err != nil {
				t.Fatalf("the change breaks the JSON: %v", err)
			}
			os.WriteFile(p, []byte(changed), 0o644)
			if err := tt.read(out); !errors.Is(err, tt.wantError) || !strings.Contains(err.Error(), tt.file[strings.LastIndex(tt.file, "/")+1:]) {
				t.Errorf("read: %v, want %v naming the file", err, tt.wantError)
			}
			probs, err := Verify(out)
			if err != nil || len(probs) != 1 || probs[0].Path != tt.file || !errors.Is(probs[0].Err, tt.wantError) {
				t.Errorf("Verify = %v, %v; want %s: %v", probs, err, tt.file, tt.wantError)
			}
		})
	}
}

// TestEncodeRoundTrips checks that what EncodeManifest and EncodeCatalog
// write is what Publish and WriteCatalog write, and reads back.
func TestEncodeRoundTrips(t *testing.T) {
	out, dir, m := publishedVersion(t)
	written, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	if data, err := EncodeManifest(m); err != nil || string(data) != string(written) {
		t.Errorf("EncodeManifest gives other bytes than Publish wrote (%v):\n%s\n%s", err, data, written)
	}
	m.Files["extra"] = strings.Repeat("0", 64)
	data, _ := EncodeManifest(m)
	if got, err := ParseManifest(data); err != nil || got.Files["extra"] == "" {
		t.Errorf("ParseManifest(EncodeManifest(m)) = %v, %v", got, err)
	}
	cat, err := ReadCatalog(out)
	if err != nil {
		t.Fatal(err)
	}
	written, _ = os.ReadFile(filepath.Join(out, CatalogFile))
	if data, err := EncodeCatalog(cat); err != nil || string(data) != string(written) {
		t.Errorf("EncodeCatalog gives other bytes than WriteCatalog wrote (%v)", err)
	}
	// The sealed bytes are the struct rendered with its checksum set: seal
	// splices the sum in instead of rendering twice, and must not differ.
	if again, err := marshal(cat); err != nil || string(again) != string(written) {
		t.Errorf("catalog.json is not its catalog rendered with the checksum (%v):\n%s\n%s", err, written, again)
	}
	if again, err := marshal(m); err != nil || string(again) != string(data) {
		t.Errorf("a sealed manifest is not the manifest rendered with its checksum (%v)", err)
	}
}

func TestLockIsExclusiveAndCleansStaging(t *testing.T) {
	out := t.TempDir()
	publish(t, out, testVersion("/acme/lib", "main", "c1"))
	catalog, _ := os.ReadFile(filepath.Join(out, CatalogFile))
	// What a build killed mid-publish or mid-catalog-write leaves.
	stale := filepath.Join(out, stagingDir, "crashed-123")
	os.MkdirAll(filepath.Join(stale, IndexDir), 0o755)
	tmpCatalog := filepath.Join(out, "."+CatalogFile+"-4242")
	os.WriteFile(tmpCatalog, catalog[:len(catalog)/2], 0o644)
	release, err := Lock(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{stale, tmpCatalog} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s survived Lock: %v", p, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(out, CatalogFile)); string(got) != string(catalog) {
		t.Error("Lock changed catalog.json")
	}
	if _, err := Lock(out); !errors.Is(err, ErrLocked) {
		t.Errorf("second Lock error = %v, want ErrLocked", err)
	}
	release()
	if r2, err := Lock(out); err != nil {
		t.Errorf("Lock after release: %v", err)
	} else {
		r2()
	}
}

func TestLatestOf(t *testing.T) {
	for want, names := range map[string][]string{
		"v1.10.0": {"main", "v1.9.0", "v1.10.0", "v2.0.0-rc1"},
		"main":    {"main", "canary"},
		"2.1":     {"1.9", "2.1", "2.0.5"},
		"":        nil,
	} {
		if got := LatestOf(names); got != want {
			t.Errorf("LatestOf(%v) = %q, want %q", names, got, want)
		}
	}
}

// TestPreviousFormatRefused checks that artifacts of the previous format
// (3: sections.bin without a text dictionary) are refused with
// ErrFormatVersion and a message saying to rebuild, not misread.
func TestPreviousFormatRefused(t *testing.T) {
	out := t.TempDir()
	publish(t, out, testVersion("/acme/lib", "main", "c1"))
	old := func(p string) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.Replace(string(data), fmt.Sprintf(`"format_version": %d`, FormatVersion), fmt.Sprintf(`"format_version": %d`, FormatVersion-1), 1))
		os.WriteFile(p, data, 0o644)
	}
	dir := Dir(out, "/acme/lib", "main")
	old(filepath.Join(dir, ManifestFile))
	old(filepath.Join(out, CatalogFile))
	if _, err := ReadManifest(dir); !errors.Is(err, ErrFormatVersion) || !strings.Contains(err.Error(), "rebuild") {
		t.Errorf("ReadManifest = %v, want ErrFormatVersion saying to rebuild", err)
	}
	if _, err := ReadCatalog(out); !errors.Is(err, ErrFormatVersion) || !strings.Contains(err.Error(), "rebuild") {
		t.Errorf("ReadCatalog = %v, want ErrFormatVersion saying to rebuild", err)
	}
}

// TestVerifyStaleCatalog publishes a new build of a version without
// writing the catalog, as a build or pull killed between the two leaves
// it: the files are sound, and Verify says the catalog is out of date,
// naming both commits; writing the catalog clears it.
func TestVerifyStaleCatalog(t *testing.T) {
	out := t.TempDir()
	publish(t, out, testVersion("/acme/lib", "main", "c1aaaaaaaaaaaaaaaa"))
	release, err := Lock(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := Publish(context.Background(), out, testVersion("/acme/lib", "main", "c2bbbbbbbbbbbbbbbb")); err != nil {
		t.Fatal(err)
	}
	probs, err := Verify(out)
	if err != nil || len(probs) != 1 || !errors.Is(probs[0].Err, ErrStale) || probs[0].Path != CatalogFile ||
		!strings.Contains(probs[0].Err.Error(), "c1aaaaaaaaaa") || !strings.Contains(probs[0].Err.Error(), "c2bbbbbbbbbb") {
		t.Errorf("Verify = %v, %v; want catalog.json out of date, naming both commits", probs, err)
	}
	if _, err := WriteCatalog(out, nil); err != nil {
		t.Fatal(err)
	}
	release()
	if probs, _ := Verify(out); len(probs) != 0 {
		t.Errorf("Verify after the catalog is written = %v, want none", probs)
	}
}

// TestCatalogListsManifestSumsAndTopics: catalog.json lists each version's
// manifest sum (the sha256 of its bytes) and its latest version's topic
// names, which a server loads by instead of reading every version; a
// catalog written again for the same builds takes the names from the
// previous catalog instead of reading every topics.json.
func TestCatalogListsManifestSumsAndTopics(t *testing.T) {
	out := t.TempDir()
	old := testVersion("/acme/lib", "v1", "c1")
	old.Topics = &topics.Tree{Categories: []topics.Category{{Slug: "old", Name: "Old things"}}}
	cur := testVersion("/acme/lib", "v2", "c2")
	cur.Topics = &topics.Tree{Categories: []topics.Category{{Slug: "guides", Name: "Guides",
		Topics: []topics.Topic{{Slug: "routing", Name: "Routing"}}}}}
	cat := publish(t, out, old, cur)
	lib := cat.Library("/acme/lib")
	if lib == nil || lib.Latest != "v2" {
		t.Fatalf("catalog %+v, want /acme/lib at v2", cat)
	}
	for _, v := range lib.Versions {
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(v.Path), ManifestFile))
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(data); v.Manifest != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: manifest sum %q, want the sha256 of manifest.json", v.Version, v.Manifest)
		}
	}
	if got := lib.Version("v2").Topics; fmt.Sprint(got) != "[Guides Routing]" {
		t.Errorf("latest version's topics %q, want [Guides Routing]", got)
	}
	if got := lib.Version("v1").Topics; got != nil {
		t.Errorf("an older version lists topics %q, want none", got)
	}
	// Written again for the same builds, the names come from the previous
	// catalog: topics.json is not read (here it could not be).
	topicsFile := filepath.Join(out, filepath.FromSlash(lib.Version("v2").Path), TopicsFile)
	if err := os.Rename(topicsFile, topicsFile+".away"); err != nil {
		t.Fatal(err)
	}
	again, err := WriteCatalog(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Library("/acme/lib").Version("v2").Topics; fmt.Sprint(got) != "[Guides Routing]" {
		t.Errorf("topics written again %q, want [Guides Routing] from the previous catalog (topics.json was read)", got)
	}
	// A build without previous topics and a tree it cannot read lists the
	// rest, leaving that version's topics out (a server reads the tree).
	data, err := EncodeCatalog(&Catalog{Libraries: []CatalogLib{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, CatalogFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	unread, err := WriteCatalog(out, nil)
	if err != nil {
		t.Fatalf("an unreadable topics.json failed the catalog: %v", err)
	}
	if l := unread.Library("/acme/lib"); l == nil || len(l.Versions) != 2 || l.Version("v2").Topics != nil {
		t.Errorf("catalog %+v, want both versions listed, v2 without topics", unread)
	}
	os.Rename(topicsFile+".away", topicsFile)
	if again, err = WriteCatalog(out, nil); err != nil {
		t.Fatal(err)
	}
	// A catalog whose sum is not the manifest's is out of date.
	again.Libraries[0].Versions[0].Manifest = strings.Repeat("0", 64)
	if data, err = EncodeCatalog(again); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, CatalogFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if probs, _ := Verify(out); len(probs) != 1 || !errors.Is(probs[0].Err, ErrStale) || !strings.Contains(probs[0].Err.Error(), "manifest sha256 000000000000") {
		t.Errorf("Verify of a catalog listing another manifest sum = %v, want it out of date, naming the sums", probs)
	}
}

// TestUnsafePlacesRefused: a library id or version that would not name a
// directory of its own ("..", ".", hidden, with a separator) is refused by
// Publish, Stage, Install and Remove with ErrBadName, and nothing
// published is touched: "/acme/x@.." would have replaced all of /acme.
func TestUnsafePlacesRefused(t *testing.T) {
	out := t.TempDir()
	publish(t, out, testVersion("/acme/lib", "main", "c1"))
	release, err := Lock(out)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, place := range [][2]string{{"/acme/x", ".."}, {"/acme/x", "."}, {"/acme/x", ".staging"}, {"/acme/x", "a/b"}, {"/acme/x", `a\b`}, {"/acme/x", ""}, {"/acme/..", "v1"}, {"/../x", "v1"}, {"/acme", "v1"}, {"/acme/x/y", "v1"}} {
		id, version := place[0], place[1]
		if err := Publish(context.Background(), out, testVersion(id, version, "c2")); !errors.Is(err, ErrBadName) {
			t.Errorf("Publish %s@%s: %v, want ErrBadName", id, version, err)
		}
		if _, err := Stage(out, id, version); !errors.Is(err, ErrBadName) {
			t.Errorf("Stage %s@%s: %v, want ErrBadName", id, version, err)
		}
		stage, err := Stage(out, "/acme/lib", "main")
		if err != nil {
			t.Fatal(err)
		}
		if err := Install(stage, out, id, version); !errors.Is(err, ErrBadName) {
			t.Errorf("Install %s@%s: %v, want ErrBadName", id, version, err)
		}
	}
	for _, rel := range []string{"acme/lib/..", "acme/..", "acme/lib/main/..", "../acme/lib"} {
		if err := Remove(out, rel); !errors.Is(err, ErrBadName) {
			t.Errorf("Remove %s: %v, want ErrBadName", rel, err)
		}
	}
	if probs, err := Verify(out); err != nil || len(probs) > 0 {
		t.Fatalf("Verify = %v, %v; want the published version untouched", probs, err)
	}
	if _, err := os.Stat(filepath.Join(Dir(out, "/acme/lib", "main"), ManifestFile)); err != nil {
		t.Fatal(err)
	}
}

// TestManifestFilesStayInside: a manifest (a pulled layer's, say) that
// lists a file outside its version's directory is corrupt, and a listed
// file that is a link or a device is reported, not followed: before,
// "../../dev/zero" made verification hash without end.
func TestManifestFilesStayInside(t *testing.T) {
	_, dir, m := publishedVersion(t)
	rewrite := func(files map[string]string) {
		t.Helper()
		m.Files = files
		data, err := EncodeManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sums := m.Files
	for _, name := range []string{"../../../../../../dev/zero", "/etc/passwd", "index/../../x", `index\x`, ".", ""} {
		rewrite(map[string]string{name: strings.Repeat("0", 64)})
		if _, err := ReadManifest(dir); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "not a path inside") {
			t.Errorf("manifest listing %q: %v, want ErrCorrupt", name, err)
		}
		if probs := VerifyVersion(dir); len(probs) != 1 || probs[0].Path != ManifestFile || !errors.Is(probs[0].Err, ErrCorrupt) {
			t.Errorf("VerifyVersion with %q listed: %v, want the manifest corrupt", name, probs)
		}
	}
	// A listed file that is a link (to a device, or out of the directory).
	for _, target := range []string{"/dev/zero", "../../../main/" + ManifestFile} {
		files := map[string]string{"link": strings.Repeat("0", 64)}
		for k, v := range sums {
			files[k] = v
		}
		rewrite(files)
		os.Remove(filepath.Join(dir, "link"))
		if err := os.Symlink(target, filepath.Join(dir, "link")); err != nil {
			t.Skip("no symlinks here:", err)
		}
		probs := VerifyVersion(dir)
		if len(probs) != 1 || probs[0].Path != "link" || !errors.Is(probs[0].Err, ErrCorrupt) || !strings.Contains(probs[0].Err.Error(), "not a regular file") {
			t.Errorf("VerifyVersion with a link to %s: %v, want link reported as not a regular file", target, probs)
		}
	}
}

// TestPublishSyncsNewParents publishes the first version of a library, so
// that its org and project directories are created: each must be synced
// into its parent before Publish returns, or a crash after the catalog
// lists the version (catalog.json's own sync covers only out) can lose
// the directories and the version with them.
func TestPublishSyncsNewParents(t *testing.T) {
	out := t.TempDir()
	release, err := Lock(out)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	var synced []string
	defer func(f func(string) error) { syncDir = f }(syncDir)
	syncDir = func(dir string) error {
		synced = append(synced, filepath.Clean(dir))
		return syncDirectory(dir)
	}
	if err := Publish(context.Background(), out, testVersion("/acme/lib", "main", "c1")); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{out, filepath.Join(out, "acme"), filepath.Join(out, "acme", "lib")} {
		if !slices.Contains(synced, filepath.Clean(dir)) {
			t.Errorf("%s was not synced after an entry was made in it; synced %v", dir, synced)
		}
	}
}

// TestSyncTreeOfStagedFiles syncs a staged tree whose files were made
// read-only, as install does after publishModes. On Windows a file opened
// only for reading cannot be flushed (ERROR_ACCESS_DENIED), which failed
// every publish there; elsewhere this passes either way.
func TestSyncTreeOfStagedFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, IndexDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{TopicsFile, filepath.Join(IndexDir, "seg")} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if err := publishModes(dir); err != nil {
		t.Fatal(err)
	}
	if err := syncTree(dir); err != nil {
		t.Errorf("syncTree: %v", err)
	}
}

// TestExchangeByRenames swaps a staged directory into a version's place
// with the three renames used where renameat2 cannot exchange: the version
// holds the staged files, the stage the previous ones, and nothing is left
// beside them.
func TestExchangeByRenames(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "stage"), filepath.Join(dir, "final")
	for d, body := range map[string]string{a: "new", b: "old"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, ManifestFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := exchangeByRenames(a, b); err != nil {
		t.Fatal(err)
	}
	for d, want := range map[string]string{a: "old", b: "new"} {
		got, err := os.ReadFile(filepath.Join(d, ManifestFile))
		if err != nil || string(got) != want {
			t.Errorf("%s holds %q (%v), want %q", d, got, err, want)
		}
	}
	if _, err := os.Lstat(a + ".old"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s.old left behind: %v", a, err)
	}
}
