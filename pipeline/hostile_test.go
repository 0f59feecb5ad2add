package pipeline

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/fetch"
	"github.com/codex7/codex7/internal/gittest"
)

// The tests below each build a config of one hostile library (or several)
// and one healthy library, and check that the hostile one gives a clear
// skip (listed in its manifest, logged, counted) or a clear error, and
// that the healthy one is published and verifiable all the same.

const healthyID = "/acme/healthy"

// healthyRepo is a small ordinary library.
func healthyRepo(t testing.TB) *gittest.Repo {
	t.Helper()
	r := gittest.New(t, "main")
	r.Write(map[string]string{"docs/guide.md": "# Guide\n\n## Install\n\nRun the installer.\n"})
	r.Commit("docs")
	return r
}

// hostileBuild is the outcome of building a config with the healthy
// library: the result, the output directory and the logs (JSON lines).
type hostileBuild struct {
	res  *Result
	out  string
	logs *bytes.Buffer
}

// buildHostile parses a config listing libs (id to repo) plus the healthy
// library, builds it with opts, and checks that the healthy library was
// built and everything published verifies.
func buildHostile(t *testing.T, libs map[string]string, opts Options) hostileBuild {
	t.Helper()
	src := "libraries:\n  - id: " + healthyID + "\n    repo: " + healthyRepo(t).Dir + "\n"
	ids := make([]string, 0, len(libs))
	for id := range libs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		src += "  - id: " + id + "\n    repo: " + libs[id] + "\n"
	}
	cfg, err := config.Parse(strings.NewReader(src), "codex7.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return buildConfig(t, cfg, opts)
}

func buildConfig(t *testing.T, cfg *config.Config, opts Options) hostileBuild {
	t.Helper()
	b := hostileBuild{out: t.TempDir(), logs: &bytes.Buffer{}}
	opts.Out = b.out
	opts.Getenv = func(string) string { return "" }
	opts.Logger = slog.New(slog.NewJSONHandler(&lockedWriter{w: b.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	res, err := Build(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	b.res = res
	if got := b.version(t, healthyID); got.Stage != StageBuilt || got.Documents != 1 {
		t.Errorf("healthy library: stage %s, %d documents, err %v; want built with 1 document", got.Stage, got.Documents, got.Err)
	}
	if probs, err := artifacts.Verify(b.out); err != nil || len(probs) > 0 {
		t.Errorf("Verify = %v, %v", probs, err)
	}
	if cat, err := artifacts.ReadCatalog(b.out); err != nil || cat.Library(healthyID) == nil {
		t.Errorf("catalog lacks the healthy library: %v", err)
	}
	return b
}

// version returns the single version result of library id.
func (b hostileBuild) version(t *testing.T, id string) VersionResult {
	t.Helper()
	var found []VersionResult
	for _, v := range b.res.Versions {
		if v.Library == id {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: %d version results, want 1: %+v", id, len(found), found)
	}
	return found[0]
}

// skipped returns the published manifest's skipped files of id, by path.
func (b hostileBuild) skipped(t *testing.T, id string) map[string]string {
	t.Helper()
	m, err := artifacts.ReadManifest(artifacts.Dir(b.out, id, "main"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range m.Skipped {
		out[s.Path] = s.Reason
	}
	return out
}

// documents returns the published documents' paths of id.
func (b hostileBuild) documents(t *testing.T, id string) []string {
	t.Helper()
	docs, err := artifacts.ReadDocuments(artifacts.Dir(b.out, id, "main"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range docs {
		out = append(out, d.Path)
	}
	return out
}

// logged reports whether a log line holds every fragment.
func (b hostileBuild) logged(fragments ...string) bool {
	for _, line := range strings.Split(b.logs.String(), "\n") {
		ok := true
		for _, f := range fragments {
			ok = ok && strings.Contains(line, f)
		}
		if ok {
			return true
		}
	}
	return false
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestBuildSymlinks: symbolic links out of the tree, to /etc/passwd, to a
// directory, in a loop and one named docs/index.md are skipped, logged and
// counted; nothing they point at is indexed.
func TestBuildSymlinks(t *testing.T) {
	r := gittest.New(t, "main")
	r.Write(map[string]string{"README.md": "# Lib\n", "docs/guide.md": "# Guide\n"})
	for name, target := range map[string]string{
		"docs/index.md": "/etc/passwd", "docs/up.md": "../../../../etc/passwd", "docs/etc": "/etc",
		"docs/loop-a.md": "loop-b.md", "docs/loop-b.md": "loop-a.md", "docs/self.md": "self.md",
	} {
		if err := os.Symlink(target, filepath.Join(r.Dir, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	r.Commit("links")
	b := buildHostile(t, map[string]string{"/evil/links": r.Dir}, Options{})
	v := b.version(t, "/evil/links")
	if v.Stage != StageBuilt || v.Omitted != 6 || v.Skipped != 5 {
		t.Errorf("stage %s, omitted %d, skipped %d; want built, 6 omitted, 5 skipped (the .md links)", v.Stage, v.Omitted, v.Skipped)
	}
	skipped := b.skipped(t, "/evil/links")
	for _, p := range []string{"docs/index.md", "docs/up.md", "docs/loop-a.md", "docs/loop-b.md", "docs/self.md"} {
		if skipped[p] != "symbolic link (not followed)" {
			t.Errorf("%s: skipped reason %q", p, skipped[p])
		}
		if !b.logged(`"omitted tree entry"`, `"path":"`+p+`"`, "symbolic link (not followed)") {
			t.Errorf("%s: not logged", p)
		}
	}
	if got := strings.Join(b.documents(t, "/evil/links"), ","); got != "README.md,docs/guide.md" {
		t.Errorf("documents %s, want README.md,docs/guide.md", got)
	}
}

// TestBuildUnsafeNames: names with "..", a slash, invalid UTF-8, control
// characters, 300 bytes, and a duplicate are skipped with their reasons;
// names that differ only in case are two documents. A NUL in a name makes
// a tree that does not decode (git will not send it; read in process, it
// is malformed): that library fails with a clear error.
func TestBuildUnsafeNames(t *testing.T) {
	r := gittest.New(t, "main")
	page := r.Blob("# Page\n\nText.\n")
	escape := r.Tree(gittest.File("escape.md", r.Blob("# Escaped\n")))
	r.CommitTree(r.Tree(
		gittest.File("ok.md", page),
		gittest.Dir("..", escape),
		gittest.File("a/b.md", page),
		gittest.File("\xff.md", page),
		gittest.File("bad\x1b]0;pwned\x07.md", page),
		gittest.File(strings.Repeat("n", 300)+".md", page),
		gittest.File("dup.md", r.Blob("# First\n")),
		gittest.File("dup.md", r.Blob("# Second\n")),
		gittest.File("README.md", r.Blob("# Upper\n")),
		gittest.File("readme.md", r.Blob("# Lower\n")),
	), "names")
	nul := gittest.New(t, "main")
	blob := nul.Blob("# Page\n")
	nul.CommitTree(nul.RawTree(append([]byte("100644 a\x00b.md\x00"), blob[:]...)), "a NUL in a name")
	b := buildHostile(t, map[string]string{"/evil/names": r.Dir, "/evil/nul": nul.Dir}, Options{})
	if v := b.version(t, "/evil/nul"); v.Stage != StageFailed || !strings.Contains(v.Err.Error(), "malformed tree") {
		t.Errorf("NUL in a name: stage %s, err %v; want failed, the tree malformed", v.Stage, v.Err)
	}
	v := b.version(t, "/evil/names")
	if v.Stage != StageBuilt || v.Omitted != 6 || v.Skipped != 5 {
		t.Errorf("stage %s, omitted %d, skipped %d, err %v; want built, 6 omitted, 5 skipped", v.Stage, v.Omitted, v.Skipped, v.Err)
	}
	// ".." is a folder whose name starts with a dot: the default excludes
	// leave hidden folders out, so it is logged but not listed as skipped.
	if !b.logged(`"omitted tree entry"`, `"path":".."`, `would leave its directory`) {
		t.Error(`".." not logged`)
	}
	want := map[string]string{
		`"a/b.md"`:                       "name contains a slash",
		`"\xff.md"`:                      "name is not valid UTF-8",
		`"bad\x1b]0;pwned\a.md"`:         "name contains control characters",
		strings.Repeat("n", 300) + ".md": "name longer than 255 bytes",
		"dup.md":                         "a second entry of the same name in its directory",
	}
	got := b.skipped(t, "/evil/names")
	for p, reason := range want {
		if got[p] != reason {
			t.Errorf("skipped %q: reason %q, want %q", p, got[p], reason)
		}
	}
	if docs := strings.Join(b.documents(t, "/evil/names"), ","); docs != "README.md,dup.md,ok.md,readme.md" {
		t.Errorf("documents %s; want README.md and readme.md as two documents, the first dup.md, ok.md", docs)
	}
	if strings.Contains(b.logs.String(), "\x1b") || strings.Contains(b.logs.String(), "\x07") {
		t.Error("a control character from a file name reached the logs")
	}
}

// TestBuildSubmodulesAndDepth: gitlinks are not followed and 500 nested
// levels are cut at fetch.DefaultMaxDepth; both are skipped and the rest
// indexed.
func TestBuildSubmodulesAndDepth(t *testing.T) {
	other := gittest.New(t, "main")
	other.Write(map[string]string{"private.md": "# Private\n\nNot for this library.\n"})
	sub := other.Commit("private")
	mods := gittest.New(t, "main")
	mods.CommitTree(mods.Tree(
		gittest.File("ok.md", mods.Blob("# Ok\n")),
		gittest.Dir("docs", mods.Tree(gittest.Gitlink("lib", plumbing.NewHash(sub)))),
	), "submodule")
	deep := gittest.Deep(t, 500)
	b := buildHostile(t, map[string]string{"/evil/submodule": mods.Dir, "/evil/deep": deep.Dir}, Options{})

	if v := b.version(t, "/evil/submodule"); v.Stage != StageBuilt || v.Omitted != 1 || v.Skipped != 1 {
		t.Errorf("submodule: %+v", v)
	}
	if got := b.skipped(t, "/evil/submodule")["docs/lib"]; got != "submodule (not followed)" {
		t.Errorf("docs/lib skipped with %q", got)
	}
	if docs := strings.Join(b.documents(t, "/evil/submodule"), ","); docs != "ok.md" {
		t.Errorf("submodule documents %s, want ok.md", docs)
	}
	if !b.logged(`"omitted tree entry"`, `"path":"docs/lib"`, "submodule (not followed)") {
		t.Error("submodule not logged")
	}

	v := b.version(t, "/evil/deep")
	if v.Stage != StageBuilt || v.Documents != fetch.DefaultMaxDepth || v.Skipped != 1 {
		t.Errorf("deep: stage %s, %d documents, %d skipped; want built, %d, 1", v.Stage, v.Documents, v.Skipped, fetch.DefaultMaxDepth)
	}
	cut := strings.TrimSuffix(strings.Repeat("d/", fetch.DefaultMaxDepth), "/")
	if got := b.skipped(t, "/evil/deep")[cut]; got != fmt.Sprintf("directory deeper than %d levels", fetch.DefaultMaxDepth) {
		t.Errorf("deep: %s skipped with %q", cut, got)
	}
}

// peakHeap samples the heap's objects every millisecond until the
// returned func is called, which returns the highest value seen.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); <-finished; return peak.Load() }
}

// TestBuildHugeFiles: a 40 MiB markdown file, a 24 MiB binary named .md, a
// 64 MiB zlib bomb and a small binary .md are skipped with their reasons,
// and the whole build's heap grows far less than any of them.
func TestBuildHugeFiles(t *testing.T) {
	r := gittest.New(t, "main")
	r.CommitTree(r.Tree(gittest.Dir("docs", r.Tree(
		gittest.File("huge.md", r.BlobFrom(gittest.Lorem(40<<20))),
		gittest.File("binary.md", r.BlobFrom(gittest.Random(1, 24<<20))),
		gittest.File("bomb.md", r.BlobFrom(gittest.Zeros(64<<20))),
		gittest.File("small-binary.md", r.Blob("# Looks like markdown\x00\x01\x02")),
		gittest.File("page.md", r.Blob("# Page\n\nIndexed.\n")),
	))), "huge files")
	runtime.GC()
	base := peakHeap()()
	stop := peakHeap()
	start := time.Now()
	b := buildHostile(t, map[string]string{"/evil/huge": r.Dir}, Options{})
	elapsed, peak := time.Since(start), stop()
	growth := int64(peak) - int64(base)
	t.Logf("built 128 MiB of oversized files in %v; heap peak %.1f MiB (%.1f MiB above the %.1f MiB before)",
		elapsed.Round(time.Millisecond), float64(peak)/(1<<20), float64(growth)/(1<<20), float64(base)/(1<<20))
	if growth > 48<<20 {
		t.Errorf("heap grew by %d MiB; want under 48 MiB (no oversized file held)", growth>>20)
	}
	v := b.version(t, "/evil/huge")
	if v.Stage != StageBuilt || v.Documents != 1 || v.Skipped != 4 {
		t.Errorf("stage %s, %d documents, %d skipped, err %v; want built, 1, 4", v.Stage, v.Documents, v.Skipped, v.Err)
	}
	got := b.skipped(t, "/evil/huge")
	for p, want := range map[string]string{
		"docs/huge.md":         fmt.Sprintf("larger than %d bytes (%d)", DefaultMaxFileBytes, 40<<20),
		"docs/binary.md":       fmt.Sprintf("larger than %d bytes (%d)", DefaultMaxFileBytes, 24<<20),
		"docs/bomb.md":         fmt.Sprintf("larger than %d bytes (%d)", DefaultMaxFileBytes, 64<<20),
		"docs/small-binary.md": "binary file",
	} {
		if got[p] != want {
			t.Errorf("%s skipped with %q, want %q", p, got[p], want)
		}
		if !b.logged(`"skipped file"`, `"path":"`+p+`"`) {
			t.Errorf("%s: skip not logged", p)
		}
	}
}

// TestBuildManyFiles: a four-object pack that expands to 200,000 files,
// 20,000 real markdown files in one tree, and 48 files of 64 KiB, against
// limits lowered through Options: each fails with its sentinel, quickly,
// and the healthy library is published.
func TestBuildManyFiles(t *testing.T) {
	bomb := gittest.TreeBomb(t, 200, 1000, ".md")
	many := gittest.TreeBomb(t, 20, 1000, ".md")
	heavy := gittest.New(t, "main")
	files := map[string]string{}
	for i := range 48 {
		files[fmt.Sprintf("p%02d.md", i)] = fmt.Sprintf("# Page %d\n\n%s", i, strings.Repeat(fmt.Sprintf("Line %d.\n", i), 64<<10/9))
	}
	heavy.Write(files)
	heavy.Commit("3 MiB of markdown")

	runtime.GC()
	stop := peakHeap()
	start := time.Now()
	b := buildHostile(t, map[string]string{"/evil/bomb": bomb.Dir, "/evil/many": many.Dir, "/evil/heavy": heavy.Dir},
		Options{Fetch: fetch.Limits{MaxEntries: 50_000}, MaxFiles: 5_000, MaxTotalBytes: 1 << 20})
	elapsed, peak := time.Since(start), stop()
	t.Logf("three hostile libraries refused and one built in %v, heap peak %.1f MiB", elapsed.Round(time.Millisecond), float64(peak)/(1<<20))
	for id, want := range map[string]error{"/evil/bomb": fetch.ErrTooManyEntries, "/evil/many": ErrTooManyFiles, "/evil/heavy": ErrTooManyBytes} {
		v := b.version(t, id)
		if v.Stage != StageFailed || !errors.Is(v.Err, want) {
			t.Errorf("%s: stage %s, err %v; want failed with %v", id, v.Stage, v.Err, want)
		}
		if !b.logged(`"build failed"`, id) {
			t.Errorf("%s: failure not logged", id)
		}
	}
	err := b.res.Err()
	for _, want := range []string{"more than 50000 entries", "holds 20000 markdown files, more than the 5000", "adds up to 2.9 MiB, more than the 1.0 MiB"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Err() = %v, want it to say %q", err, want)
		}
	}
}

// TestBuildRefusesAddresses builds libraries whose repo: the config check
// would refuse, set in code so that only fetch stands in the way, and one
// that passes the config check but leads outside the roots through a
// symlink: fetch refuses each before contacting it.
func TestBuildRefusesAddresses(t *testing.T) {
	ln := gittest.Listen(t)
	outside := healthyRepo(t)
	healthy := healthyRepo(t)
	if err := os.Symlink(outside.Dir, filepath.Join(healthy.Dir, "link")); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "pwned")
	path := filepath.Join(healthy.Dir, "codex7.yaml")
	src := "libraries:\n  - id: " + healthyID + "\n    repo: .\n    docs: [\"docs/**\"]\n  - id: /evil/symlink\n    repo: ./link\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("Load: %v (the symlink passes the lexical check; fetch must catch it)", err)
	}
	addr := ln.Addr
	refused := map[string]error{
		"/evil/ext":     fetch.ErrTransportNotAllowed,
		"/evil/git":     fetch.ErrTransportNotAllowed,
		"/evil/ssh":     fetch.ErrTransportNotAllowed,
		"/evil/http":    fetch.ErrTransportNotAllowed,
		"/evil/outside": fetch.ErrOutsideRoots,
		"/evil/symlink": fetch.ErrOutsideRoots,
	}
	cfg.Libraries = append(cfg.Libraries,
		config.Library{ID: "/evil/ext", Repo: "ext::sh -c touch% " + marker},
		config.Library{ID: "/evil/git", Repo: "git://" + addr + "/x"},
		config.Library{ID: "/evil/ssh", Repo: "ssh://git@" + addr + "/x"},
		config.Library{ID: "/evil/http", Repo: "http://" + addr + "/x"},
		config.Library{ID: "/evil/outside", Repo: outside.Dir},
	)
	b := buildConfig(t, cfg, Options{})
	for id, want := range refused {
		if v := b.version(t, id); v.Stage != StageFailed || !errors.Is(v.Err, want) {
			t.Errorf("%s: stage %s, err %v; want failed with %v", id, v.Stage, v.Err, want)
		}
		if !b.logged(`"build failed"`, id) {
			t.Errorf("%s: failure not logged", id)
		}
	}
	if n := ln.Conns(); n != 0 {
		t.Errorf("%d connections made to refused addresses", n)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the ext:: command ran")
	}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "libraries[2].repo: git remote-helper") {
		t.Errorf("Validate = %v; want the config check to refuse them too", err)
	}
}

var million = flag.Bool("million", false, "run TestBuildMillionFiles: trees of a million files under the default limits")

// TestBuildMillionFiles builds, under the default limits, a four-object
// pack that expands to 1,001,000 tree entries (refused by fetch at
// 1,000,000) and one of 999,999 entries, 999,000 of them markdown (cloned
// and walked, then refused by the selection's 100,000-file limit), next to
// the healthy library. It reports time and heap peak. Run with
// go test ./pipeline -run TestBuildMillionFiles -million -v.
func TestBuildMillionFiles(t *testing.T) {
	if !*million {
		t.Skip("run with -million")
	}
	over := gittest.TreeBomb(t, 1000, 1000, ".md")
	under := gittest.TreeBomb(t, 999, 1000, ".md")
	for _, tt := range []struct {
		id, dir string
		want    error
	}{
		{"/evil/over", over.Dir, fetch.ErrTooManyEntries},
		{"/evil/under", under.Dir, ErrTooManyFiles},
	} {
		runtime.GC()
		stop := peakHeap()
		start := time.Now()
		b := buildHostile(t, map[string]string{tt.id: tt.dir}, Options{})
		elapsed, peak := time.Since(start), stop()
		v := b.version(t, tt.id)
		if v.Stage != StageFailed || !errors.Is(v.Err, tt.want) {
			t.Errorf("%s: stage %s, err %v; want failed with %v", tt.id, v.Stage, v.Err, tt.want)
		}
		t.Logf("%s: %v in %v, heap peak %.0f MiB", tt.id, v.Err, elapsed.Round(time.Millisecond), float64(peak)/(1<<20))
	}
}
