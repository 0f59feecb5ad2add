// Package buildtest builds artifacts from a codex7.yaml written in a test,
// for the tests of the packages that read artifacts (search, server, the
// Context7-compatible API), and copies the bundled fixtures for tests that
// build them.
package buildtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/fixtures"
	"github.com/codex7/codex7/pipeline"
)

// Build parses configYAML (repos given as local paths, e.g. gittest
// repositories) and publishes every library version into out, failing tb
// on any error.
func Build(tb testing.TB, out, configYAML string) {
	tb.Helper()
	cfg, err := config.Parse(strings.NewReader(configYAML), "codex7.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	BuildConfig(tb, out, cfg)
}

// BuildConfig publishes every library version of cfg into out, failing tb
// on any error.
func BuildConfig(tb testing.TB, out string, cfg *config.Config) {
	tb.Helper()
	res, err := pipeline.Build(context.Background(), cfg, pipeline.Options{Out: out})
	if err != nil {
		tb.Fatal(err)
	}
	if err := res.Err(); err != nil {
		tb.Fatal(err)
	}
}

// CopyFixtures copies the bundled fixtures of the source tree at root
// (fixtures/codex7.yaml and fixtures/docs) into a new temporary directory,
// as its fixtures folder, and returns that directory: a tree to edit, or to
// run `indexer build` in, that shares nothing with root.
func CopyFixtures(tb testing.TB, root string) string {
	tb.Helper()
	dst := tb.TempDir()
	src := filepath.Join(root, "fixtures")
	if err := os.CopyFS(filepath.Join(dst, "fixtures", fixtures.DocsDir), os.DirFS(filepath.Join(src, fixtures.DocsDir))); err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(src, "codex7.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "fixtures", "codex7.yaml"), data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// Fixtures copies the bundled fixtures of the source tree at root (see
// CopyFixtures), calls edit, when not nil, with the copy's docs folder,
// makes the copy's repository (fixtures.Prepare) and returns the copy's
// codex7.yaml, ready for `indexer build --config`.
func Fixtures(tb testing.TB, root string, edit func(docs string)) string {
	tb.Helper()
	dir := filepath.Join(CopyFixtures(tb, root), "fixtures")
	if edit != nil {
		edit(filepath.Join(dir, fixtures.DocsDir))
	}
	if _, err := fixtures.Prepare(dir); err != nil {
		tb.Fatal(err)
	}
	return filepath.Join(dir, "codex7.yaml")
}
