package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/routing"
)

// TestCommentAtTopDoesNotRebuild checks that a change to the config that
// does not touch a library (a comment line above it) keeps its versions up
// to date: the config hash must not depend on where in the file the
// library's entry sits.
func TestCommentAtTopDoesNotRebuild(t *testing.T) {
	widgets, cli := fixtureRepos(t)
	src := `libraries:
  - id: /acme/widgets
    repo: ` + widgets.Dir + `
    versions: [{ref: v1.0.0}]
  - id: /acme/cli
    repo: ` + cli.Dir + `
`
	out := t.TempDir()
	build := func(src string) *Result {
		t.Helper()
		res := buildYAML(t, src, Options{Out: out})
		if res.Err() != nil {
			t.Fatal(res.Err())
		}
		return res
	}
	build(src)
	res := build("# our team's libraries\n" + src)
	for _, v := range res.Versions {
		if v.Stage != StageUpToDate {
			t.Errorf("%s@%s: %s after adding a comment line to the config, want %s", v.Library, v.Version, v.Stage, StageUpToDate)
		}
	}
}

// TestNewVersionDoesNotRebuildOthers checks that listing a new release
// under versions: builds that version only: the artifacts of the versions
// already listed do not depend on it.
func TestNewVersionDoesNotRebuildOthers(t *testing.T) {
	widgets, _ := fixtureRepos(t)
	out := t.TempDir()
	build := func(versions string) *Result {
		t.Helper()
		src := "libraries:\n  - id: /acme/widgets\n    repo: " + widgets.Dir + "\n    versions: " + versions + "\n"
		res := buildYAML(t, src, Options{Out: out})
		if res.Err() != nil {
			t.Fatal(res.Err())
		}
		return res
	}
	build("[{ref: v1.0.0}]")
	assertStages(t, build("[{ref: v1.0.0}, {ref: v1.1.0}]"), map[string]Stage{
		"/acme/widgets@v1.0.0": StageUpToDate, "/acme/widgets@v1.1.0": StageBuilt,
	})
}

// TestDocsGlobMatchingNothingFails checks that a docs: glob that selects no
// file (a typo: "doc/**" for docs/) is not published as a library version
// without documents, silently: the version fails, naming the glob.
func TestDocsGlobMatchingNothingFails(t *testing.T) {
	widgets, _ := fixtureRepos(t)
	src := "libraries:\n  - id: /acme/widgets\n    repo: " + widgets.Dir + "\n    versions: [{ref: v1.0.0}]\n    docs: [\"doc/**\"]\n"
	res := buildYAML(t, src, Options{Out: t.TempDir()})
	for _, v := range res.Versions {
		if v.Stage != StageFailed || !strings.Contains(v.Err.Error(), "doc/**") {
			t.Errorf("%s@%s: %s with %d documents, err %v; want failed naming the docs: glob that matches nothing", v.Library, v.Version, v.Stage, v.Documents, v.Err)
		}
	}
}

// TestRemovedFromConfigNotServed checks that a full build makes the
// output what the config says: a version dropped from versions:, a
// version renamed and a library removed leave the catalog and the
// directory (and Result.Removed names them), while a --library build and
// a library whose remote cannot be listed keep what is there.
func TestRemovedFromConfigNotServed(t *testing.T) {
	widgets, cli := fixtureRepos(t)
	out := t.TempDir()
	build := func(src string, libs ...string) *Result {
		t.Helper()
		res := buildYAML(t, src, Options{Out: out, Libraries: libs})
		return res
	}
	listed := func(cat *artifacts.Catalog) string {
		var got []string
		for _, l := range cat.Libraries {
			for _, v := range l.Versions {
				got = append(got, l.ID+"@"+v.Version)
				if _, err := os.Stat(artifacts.Dir(out, l.ID, v.Version)); err != nil {
					t.Errorf("%s@%s is listed, but: %v", l.ID, v.Version, err)
				}
			}
		}
		return strings.Join(got, " ")
	}
	first := `libraries:
  - id: /acme/widgets
    repo: ` + widgets.Dir + `
    versions: [{ref: v1.0.0}, {ref: v1.1.0}, {ref: main}]
  - id: /acme/cli
    repo: ` + cli.Dir + `
`
	if res := build(first); res.Err() != nil {
		t.Fatal(res.Err())
	}
	// v1.0.0 dropped, main renamed dev, /acme/cli removed: a --library
	// build of widgets leaves cli and widgets' old versions alone.
	second := `libraries:
  - id: /acme/widgets
    repo: ` + widgets.Dir + `
    versions: [{ref: v1.1.0}, {ref: main, name: dev}]
`
	res := build(second, "/acme/widgets")
	if got, want := listed(res.Catalog), "/acme/cli@trunk /acme/cli@v0.9.0 /acme/widgets@dev /acme/widgets@main /acme/widgets@v1.0.0 /acme/widgets@v1.1.0"; got != want || len(res.Removed) > 0 {
		t.Errorf("--library build: catalog %s, removed %v; want %s, nothing removed", got, res.Removed, want)
	}
	res = build(second)
	if res.Err() != nil {
		t.Fatal(res.Err())
	}
	if got, want := listed(res.Catalog), "/acme/widgets@dev /acme/widgets@v1.1.0"; got != want {
		t.Errorf("catalog lists %v after the config dropped /acme/widgets@v1.0.0, renamed @main to @dev and removed /acme/cli; want %s", got, want)
	}
	if got, want := strings.Join(res.Removed, " "), "acme/cli/trunk acme/cli/v0.9.0 acme/widgets/main acme/widgets/v1.0.0"; got != want {
		t.Errorf("removed %q, want %q", got, want)
	}
	for _, rel := range []string{"acme/cli", "acme/widgets/main", "acme/widgets/v1.0.0"} {
		if _, err := os.Stat(filepath.Join(out, rel)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still on disk (%v)", rel, err)
		}
	}
	// A library whose remote cannot be listed keeps its versions.
	if res := build(first); res.Err() != nil {
		t.Fatal(res.Err())
	}
	broken := strings.Replace(first, "repo: "+cli.Dir, "repo: "+filepath.Join(t.TempDir(), "gone"), 1)
	res = build(broken)
	if res.Err() == nil {
		t.Fatal("a build from a missing repository succeeded")
	}
	if got := listed(res.Catalog); !strings.Contains(got, "/acme/cli@trunk /acme/cli@v0.9.0") || len(res.Removed) > 0 {
		t.Errorf("with cli's remote unreachable: catalog %s, removed %v; want cli's versions kept", got, res.Removed)
	}
}

// TestAddedGroupRebuildsOnlyMovedLibraries checks deploy/replicas'
// promise: adding a replica group "moves only the libraries the new group
// wins, so only those are built anew". A group's build of its new config
// keeps the libraries it still holds up to date.
func TestAddedGroupRebuildsOnlyMovedLibraries(t *testing.T) {
	widgets, _ := fixtureRepos(t)
	var b strings.Builder
	b.WriteString("libraries:\n")
	var libs []routing.Library
	for i := range 12 {
		id := fmt.Sprintf("/acme/lib%02d", i)
		libs = append(libs, routing.Library{ID: id})
		fmt.Fprintf(&b, "  - id: %s\n    repo: %s\n    versions: [{ref: v1.0.0}]\n", id, widgets.Dir)
	}
	src := []byte(b.String())
	out := t.TempDir()
	build := func(groups ...string) (map[string]string, *Result) {
		t.Helper()
		assign, err := routing.Assign(libs, groups, routing.ByLibrary)
		if err != nil {
			t.Fatal(err)
		}
		data, err := routing.SplitConfig(src, "codex7.yaml", assign, "g0")
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Parse(bytes.NewReader(data), "codex7.g0.yaml")
		if err != nil {
			t.Fatal(err)
		}
		res, err := Build(context.Background(), cfg, Options{Out: out})
		if err != nil || res.Err() != nil {
			t.Fatal(err, res.Err())
		}
		return assign, res
	}
	build("g0", "g1")
	assign, res := build("g0", "g1", "g2")
	for _, v := range res.Versions {
		if assign[v.Library] == "g0" && v.Stage != StageUpToDate {
			t.Errorf("%s stayed in group g0 when g2 was added, but its build is %s, want %s", v.Library, v.Stage, StageUpToDate)
		}
	}
}

// TestEveryBuiltVersionCanBeNamed checks that every version the build
// publishes can be asked for: a tag such as a changesets monorepo's
// "widgets@1.0.0", or semver build metadata ("v1.1.0+docs"), is a valid
// git ref, and the config takes it as the version's name.
func TestEveryBuiltVersionCanBeNamed(t *testing.T) {
	widgets, _ := fixtureRepos(t)
	widgets.Git("tag", "widgets@1.0.0", "v1.0.0")
	widgets.Git("tag", "v1.1.0+docs", "v1.1.0")
	src := "libraries:\n  - id: /acme/widgets\n    repo: " + widgets.Dir + "\n    versions: [{ref: widgets@1.0.0}, {ref: v1.1.0+docs}]\n"
	res := buildYAML(t, src, Options{Out: t.TempDir()})
	if res.Err() != nil {
		t.Fatal(res.Err())
	}
	for _, l := range res.Catalog.Libraries {
		for _, v := range l.Versions {
			for _, id := range []string{l.ID + "@" + v.Version, l.ID + "/" + v.Version} {
				if key, err := request.ParseKey(id); err != nil || key.Version != v.Version {
					t.Errorf("version %q was built, but no agent can ask for it: ParseKey(%q) = %+v, %v", v.Version, id, key, err)
				}
			}
		}
	}
}

// TestLatestNamingNoVersionIsReported checks latest: on a library whose
// versions come from the repository (no versions: list, which Validate
// cannot check): a latest that names none of them (a typo, "v2.0" for
// "v2.0.0") must not silently make the oldest tagged version the one agents
// get by default.
func TestLatestNamingNoVersionIsReported(t *testing.T) {
	_, cli := fixtureRepos(t) // trunk, and v0.9.0 from context7.json
	src := "libraries:\n  - id: /acme/cli\n    repo: " + cli.Dir + "\n    latest: v1.0\n"
	res := buildYAML(t, src, Options{Out: t.TempDir()})
	if res.Err() == nil || !strings.Contains(res.Err().Error(), "v1.0") {
		t.Errorf("latest: v1.0 names no version of /acme/cli (trunk, v0.9.0), yet the build succeeded (err %v) with latest %q",
			res.Err(), res.Catalog.Library("/acme/cli").Latest)
	}
	if got := res.Catalog.Library("/acme/cli").Latest; got != "trunk" {
		t.Errorf("latest = %q, want the default branch, as with no latest:", got)
	}
}

// TestTopicOverrideMatchingNothingIsReported checks that a topics: override
// whose paths and headings cover no section (a typo in its glob) is not
// published as an empty topic without a word: the build warns, naming the
// topic and its glob.
func TestTopicOverrideMatchingNothingIsReported(t *testing.T) {
	widgets, _ := fixtureRepos(t)
	src := "libraries:\n  - id: /acme/widgets\n    repo: " + widgets.Dir + "\n    versions: [{ref: v1.0.0}]\n" +
		"    topics:\n      - name: Widget API\n        paths: [\"doc/api/**\"]\n"
	var logs bytes.Buffer
	out := t.TempDir()
	if res := buildYAML(t, src, Options{Out: out, Logger: slog.New(slog.NewTextHandler(&logs, nil))}); res.Err() != nil {
		t.Fatal(res.Err())
	}
	tree, err := artifacts.ReadTopics(artifacts.Dir(out, "/acme/widgets", "v1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tree.Categories {
		for _, tp := range c.Topics {
			if tp.Slug == "widget-api" && tp.Sections == 0 && !strings.Contains(logs.String(), "doc/api/**") {
				t.Errorf("topic %q covers no section (its glob doc/api/** matches no document) and the build said nothing; log:\n%s", tp.Name, logs.String())
			}
		}
	}
}

// TestLibraryNamedTwiceBuiltOnce checks --library given the same library
// twice (in two of the forms it accepts): each version is built once, and
// the result counts it once.
func TestLibraryNamedTwiceBuiltOnce(t *testing.T) {
	widgets, cli := fixtureRepos(t)
	cfg := fixtureConfig(t, widgets, cli)
	res, err := Build(context.Background(), cfg, Options{Out: t.TempDir(), Libraries: []string{"/acme/widgets", "acme/widgets"}})
	if err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	if len(res.Versions) != 3 {
		var got []string
		for _, v := range res.Versions {
			got = append(got, v.Library+"@"+v.Version+":"+string(v.Stage))
		}
		t.Errorf("widgets has 3 versions, but the build reports %d: %v", len(res.Versions), got)
	}
}

// buildYAML builds the config src into opts.Out, failing the test when the
// build cannot start (a config error, a locked output); per-version
// failures are in the result.
func buildYAML(t *testing.T, src string, opts Options) *Result {
	t.Helper()
	cfg, err := config.Parse(strings.NewReader(src), "codex7.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Build(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
