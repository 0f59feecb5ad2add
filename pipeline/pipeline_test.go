package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/internal/gittest"
)

// fixtureRepos makes two git repositories from fixtures/docs: widgets with
// tags v1.0.0 and v1.1.0 and a branch, cli with a context7.json listing a
// previous version.
func fixtureRepos(t *testing.T) (widgets, cli *gittest.Repo) {
	t.Helper()
	widgets = gittest.New(t, "main")
	widgets.CopyDir("../fixtures/docs/acme-widgets", "")
	widgets.Commit("docs v1.0")
	widgets.Git("tag", "v1.0.0")
	widgets.Write(map[string]string{"docs/guides/themes.md": "# Themes\n\nCustom themes are CSS custom properties.\n"})
	widgets.Commit("docs v1.1")
	widgets.Git("tag", "-a", "v1.1.0", "-m", "release 1.1.0")
	widgets.Git("branch", "next")

	cli = gittest.New(t, "trunk")
	cli.CopyDir("../fixtures/docs/acme-cli", "")
	cli.Commit("old docs")
	cli.Git("tag", "v0.9.0")
	cli.Write(map[string]string{
		"context7.json":            `{"$schema":"https://context7.com/schema/context7.json","projectTitle":"Acme CLI","excludeFolders":["reference"],"previousVersions":[{"tag":"v0.9.0"}],"rules":["x"]}`,
		"commands/logs.md":         "# acme logs\n\nStreams the app's logs.\n",
		"node_modules/x/README.md": "# vendored\n",
	})
	cli.Commit("new docs")
	return widgets, cli
}

func fixtureConfig(t *testing.T, widgets, cli *gittest.Repo) *config.Config {
	t.Helper()
	src := `libraries:
  - id: /acme/widgets
    title: Acme Widgets
    repo: ` + widgets.Dir + `
    versions: [{ref: v1.0.0}, {ref: v1.1.0}, {ref: next}]
  - id: /acme/cli
    repo: file://` + cli.Dir + `
allow:
  local_roots: [` + widgets.Dir + `, ` + cli.Dir + `]
`
	cfg, err := config.Parse(strings.NewReader(src), "codex7.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dir = t.TempDir() // as Load sets it: the repos lie outside, under allow.local_roots
	return cfg
}

func stages(res *Result) map[string]Stage {
	out := map[string]Stage{}
	for _, v := range res.Versions {
		out[v.Library+"@"+v.Version] = v.Stage
	}
	return out
}

func TestBuildEndToEnd(t *testing.T) {
	widgets, cli := fixtureRepos(t)
	cfg := fixtureConfig(t, widgets, cli)
	out := t.TempDir()
	ctx := context.Background()
	build := func() *Result {
		t.Helper()
		res, err := Build(ctx, cfg, Options{Out: out, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		return res
	}

	// First build: everything is built.
	res := build()
	want := map[string]Stage{
		"/acme/widgets@v1.0.0": StageBuilt, "/acme/widgets@v1.1.0": StageBuilt, "/acme/widgets@next": StageBuilt,
		"/acme/cli@trunk": StageBuilt, "/acme/cli@v0.9.0": StageBuilt,
	}
	assertStages(t, res, want)
	if probs, err := artifacts.Verify(out); err != nil || len(probs) > 0 {
		t.Fatalf("Verify = %v, %v", probs, err)
	}
	cat := res.Catalog
	if l := cat.Library("/acme/widgets"); l.Latest != "v1.1.0" || l.Title != "Acme Widgets" {
		t.Errorf("widgets latest %q title %q, want v1.1.0 (highest semver) and the config title", l.Latest, l.Title)
	}
	if l := cat.Library("/acme/cli"); l.Latest != "trunk" || l.Title != "Acme CLI" {
		t.Errorf("cli latest %q title %q, want the default branch and context7.json's projectTitle", l.Latest, l.Title)
	}

	// What was indexed: versions differ, defaults and context7.json exclude.
	docs := func(lib, version string) []string {
		infos, err := artifacts.ReadDocuments(artifacts.Dir(out, lib, version))
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, d := range infos {
			paths = append(paths, d.Path)
		}
		return paths
	}
	if got := strings.Join(docs("/acme/widgets", "v1.1.0"), ","); !strings.Contains(got, "docs/guides/themes.md") || strings.Contains(got, "CHANGELOG") {
		t.Errorf("widgets v1.1.0 documents = %s; want themes.md and no CHANGELOG", got)
	}
	if got := strings.Join(docs("/acme/widgets", "v1.0.0"), ","); strings.Contains(got, "themes.md") {
		t.Errorf("widgets v1.0.0 has a document from v1.1.0: %s", got)
	}
	trunk := strings.Join(docs("/acme/cli", "trunk"), ",")
	if !strings.Contains(trunk, "commands/logs.md") || strings.Contains(trunk, "reference/") || strings.Contains(trunk, "node_modules") {
		t.Errorf("cli trunk documents = %s; want logs.md, reference/ excluded by context7.json, node_modules by default", trunk)
	}
	if old := strings.Join(docs("/acme/cli", "v0.9.0"), ","); !strings.Contains(old, "reference/config-file.md") {
		t.Errorf("cli v0.9.0 (no context7.json then) documents = %s; want reference/ kept", old)
	}
	m, _ := artifacts.ReadManifest(artifacts.Dir(out, "/acme/widgets", "v1.1.0"))
	if m.Commit != widgets.Git("rev-parse", "v1.1.0^{commit}") || m.Ref != "v1.1.0" {
		t.Errorf("manifest commit %s ref %s, want the tag's commit", m.Commit, m.Ref)
	}
	r, err := index.Open(filepath.Join(artifacts.Dir(out, "/acme/widgets", "v1.1.0"), artifacts.IndexDir))
	if err != nil {
		t.Fatal(err)
	}
	hits, err := r.Search(ctx, index.Query{Text: "destroy widget", Limit: 1})
	r.Close()
	if err != nil || len(hits) == 0 || hits[0].Path != "docs/api/create-widget.md" {
		t.Errorf("search destroy widget = %+v, %v", hits, err)
	}

	// Second build: nothing changed, nothing rebuilt, bytes untouched.
	before := snapshotJSON(t, out)
	assertStages(t, build(), map[string]Stage{
		"/acme/widgets@v1.0.0": StageUpToDate, "/acme/widgets@v1.1.0": StageUpToDate, "/acme/widgets@next": StageUpToDate,
		"/acme/cli@trunk": StageUpToDate, "/acme/cli@v0.9.0": StageUpToDate,
	})
	if after := snapshotJSON(t, out); after != before {
		t.Error("a no-op rebuild changed the JSON artifacts")
	}

	// Change one file on cli's default branch: only that version is rebuilt.
	cli.Write(map[string]string{"commands/logs.md": "# acme logs\n\nStreams the app's logs, with --follow.\n"})
	cli.Commit("logs: --follow")
	assertStages(t, build(), map[string]Stage{
		"/acme/widgets@v1.0.0": StageUpToDate, "/acme/widgets@v1.1.0": StageUpToDate, "/acme/widgets@next": StageUpToDate,
		"/acme/cli@trunk": StageBuilt, "/acme/cli@v0.9.0": StageUpToDate,
	})
	if probs, _ := artifacts.Verify(out); len(probs) > 0 {
		t.Fatalf("Verify after incremental build = %v", probs)
	}

	// --force rebuilds everything and gives byte-identical JSON.
	before = snapshotJSON(t, out)
	res, err = Build(ctx, cfg, Options{Out: out, Force: true, Getenv: func(string) string { return "" }})
	if err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	if after := snapshotJSON(t, out); after != before {
		t.Error("a forced rebuild of the same commits changed the JSON artifacts")
	}
}

func assertStages(t *testing.T, res *Result, want map[string]Stage) {
	t.Helper()
	got := stages(res)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s, want %s", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("versions %v, want %v", got, want)
	}
}

// snapshotJSON concatenates every JSON artifact under out, in path order.
func snapshotJSON(t *testing.T, out string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			data, _ := os.ReadFile(p)
			b.WriteString(p + "\n")
			b.Write(data)
		}
		return nil
	})
	return b.String()
}

func TestBuildFailuresDoNotStopOthers(t *testing.T) {
	widgets, cli := fixtureRepos(t)
	src := `libraries:
  - id: /acme/widgets
    repo: ` + widgets.Dir + `
    versions: [{ref: v1.0.0}, {ref: v9.9.9}]
  - id: /acme/missing
    repo: ` + filepath.Join(t.TempDir(), "nope") + `
  - id: /acme/cli
    repo: ` + cli.Dir + `
`
	cfg, err := config.Parse(strings.NewReader(src), "codex7.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := Build(context.Background(), cfg, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	got := stages(res)
	if got["/acme/widgets@v1.0.0"] != StageBuilt || got["/acme/cli@trunk"] != StageBuilt {
		t.Errorf("good versions not built: %v", got)
	}
	if got["/acme/widgets@v9.9.9"] != StageFailed || got["/acme/missing@*"] != StageFailed {
		t.Errorf("bad versions not failed: %v", got)
	}
	err = res.Err()
	if err == nil || !strings.Contains(err.Error(), "v9.9.9") || !strings.Contains(err.Error(), "/acme/missing") {
		t.Errorf("Err() = %v, want both failures named", err)
	}
	if probs, _ := artifacts.Verify(out); len(probs) > 0 {
		t.Errorf("Verify = %v", probs)
	}
	if _, err := Build(context.Background(), cfg, Options{Out: out, Libraries: []string{"/acme/nope"}}); !errors.Is(err, ErrUnknownLibrary) {
		t.Errorf("unknown --library error = %v, want ErrUnknownLibrary", err)
	}
	res, err = Build(context.Background(), cfg, Options{Out: out, Libraries: []string{"acme/cli"}})
	if err != nil || len(res.Versions) != 2 {
		t.Errorf("--library acme/cli built %v, %v; want only cli's versions", stages(res), err)
	}
}

func TestBuildCancelledKeepsPublished(t *testing.T) {
	widgets, cli := fixtureRepos(t)
	cfg := fixtureConfig(t, widgets, cli)
	out := t.TempDir()
	if res, err := Build(context.Background(), cfg, Options{Out: out}); err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	before := snapshotJSON(t, out)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, cfg, Options{Out: out, Force: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled build error = %v, want context.Canceled", err)
	}
	if probs, _ := artifacts.Verify(out); len(probs) > 0 {
		t.Errorf("Verify after a cancelled build = %v", probs)
	}
	if snapshotJSON(t, out) != before {
		t.Error("a cancelled build changed published artifacts")
	}
}

// TestBuildInterruptedListsPublished: a first build stopped after its
// first version is published leaves a catalog that lists that version
// (so verify accepts the directory and serve reads it), reports the
// versions it did not build as interrupted, not failed, and its time.
func TestBuildInterruptedListsPublished(t *testing.T) {
	widgets, cli := fixtureRepos(t)
	cfg := fixtureConfig(t, widgets, cli)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := Build(ctx, cfg, Options{Out: out, Jobs: 1, Progress: func(e Event) {
		if e.Stage == StageBuilt {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted build error = %v, want context.Canceled", err)
	}
	var built []string
	interrupted := 0
	for _, v := range res.Versions {
		switch v.Stage {
		case StageBuilt:
			built = append(built, v.Library+"@"+v.Version)
		case StageInterrupted:
			interrupted++
		default:
			t.Errorf("%s@%s: stage %s (%v), want built or interrupted", v.Library, v.Version, v.Stage, v.Err)
		}
	}
	if len(built) == 0 || interrupted == 0 {
		t.Fatalf("built %v and %d interrupted; want both", built, interrupted)
	}
	if len(res.Failed()) != 0 || res.Elapsed <= 0 {
		t.Errorf("Failed() = %v, Elapsed = %v", res.Failed(), res.Elapsed)
	}
	cat, err := artifacts.ReadCatalog(out)
	if err != nil {
		t.Fatalf("no catalog after an interrupted first build: %v", err)
	}
	var listed []string
	for _, l := range cat.Libraries {
		for _, v := range l.Versions {
			listed = append(listed, l.ID+"@"+v.Version)
		}
	}
	slices.Sort(built)
	slices.Sort(listed)
	if !slices.Equal(listed, built) {
		t.Errorf("catalog lists %v, want the published %v", listed, built)
	}
	if probs, err := artifacts.Verify(out); err != nil || len(probs) > 0 {
		t.Errorf("Verify = %v, %v", probs, err)
	}
}

// TestBuildRepairsDamagedVersion checks that a published version whose
// files no longer match its manifest is rebuilt by the next build, not
// kept as up to date, while intact versions are skipped.
func TestBuildRepairsDamagedVersion(t *testing.T) {
	widgets, cli := fixtureRepos(t)
	cfg := fixtureConfig(t, widgets, cli)
	out := t.TempDir()
	if res, err := Build(context.Background(), cfg, Options{Out: out}); err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	cat, err := artifacts.ReadCatalog(out)
	if err != nil {
		t.Fatal(err)
	}
	lib := cat.Libraries[0]
	damaged := artifacts.Dir(out, lib.ID, lib.Latest)
	p := filepath.Join(damaged, artifacts.DocumentsFile)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x20
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Build(context.Background(), cfg, Options{Out: out})
	if err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	rebuilt := 0
	for _, v := range res.Versions {
		switch {
		case v.Library == lib.ID && v.Version == lib.Latest:
			if v.Stage == StageUpToDate {
				t.Errorf("%s@%s damaged but kept as up to date", v.Library, v.Version)
			}
			rebuilt++
		case v.Stage != StageUpToDate:
			t.Errorf("%s@%s intact but %s, want up to date", v.Library, v.Version, v.Stage)
		}
	}
	if rebuilt != 1 {
		t.Errorf("the damaged version is not among the results: %v", stages(res))
	}
	if probs, _ := artifacts.Verify(out); len(probs) > 0 {
		t.Errorf("Verify after the repairing build = %v", probs)
	}
}
