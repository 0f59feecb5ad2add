package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/internal/gittest"
)

// TestBuildRefusesUnsafeRefNames: a repository's context7.json that lists
// ".." or "." as a version (or a server advertising such a ref) must not
// name a directory: such a version fails with ErrBadRef, and every other
// version, of this library and of others, is built and published as usual.
// Before, "/acme/cli@.." was published over the whole /acme directory.
func TestBuildRefusesUnsafeRefNames(t *testing.T) {
	widgets, _ := fixtureRepos(t)
	cli := gittest.New(t, "trunk")
	cli.CopyDir("../fixtures/docs/acme-cli", "")
	cli.Write(map[string]string{"context7.json": `{"previousVersions":[{"tag":".."},{"tag":"."}],"branchVersions":[{"branch":"..lock"}]}`})
	cli.Commit("docs")
	cfg := fixtureConfig(t, widgets, cli)
	out := t.TempDir()
	res, err := Build(context.Background(), cfg, Options{Out: out, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, v := range res.Versions {
		switch v.Version {
		case "..", ".", "..lock":
			bad++
			if v.Stage != StageFailed || !errors.Is(v.Err, ErrBadRef) {
				t.Errorf("%s@%s: stage %s, err %v; want failed with ErrBadRef", v.Library, v.Version, v.Stage, v.Err)
			}
		default:
			if v.Stage != StageBuilt {
				t.Errorf("%s@%s: stage %s (%v), want built", v.Library, v.Version, v.Stage, v.Err)
			}
		}
	}
	if bad != 3 {
		t.Errorf("%d unsafe versions reported, want 3: %+v", bad, res.Versions)
	}
	if l := res.Catalog.Library("/acme/cli"); l == nil || l.Latest != "trunk" || len(l.Versions) != 1 {
		t.Errorf("catalog's /acme/cli = %+v, want trunk alone, and latest", l)
	}
	for _, v := range []string{"v1.0.0", "v1.1.0", "next"} {
		if _, err := os.Stat(filepath.Join(artifacts.Dir(out, "/acme/widgets", v), artifacts.ManifestFile)); err != nil {
			t.Errorf("/acme/widgets@%s: %v", v, err)
		}
	}
	if probs, err := artifacts.Verify(out); err != nil || len(probs) > 0 {
		t.Fatalf("Verify = %v, %v", probs, err)
	}
}
