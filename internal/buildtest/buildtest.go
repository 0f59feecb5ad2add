// Package buildtest builds artifacts from a codex7.yaml written in a test,
// for the tests of the packages that read artifacts (search, server, the
// Context7-compatible API).
package buildtest

import (
	"context"
	"strings"
	"testing"

	"github.com/codex7/codex7/config"
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
	res, err := pipeline.Build(context.Background(), cfg, pipeline.Options{Out: out})
	if err != nil {
		tb.Fatal(err)
	}
	if err := res.Err(); err != nil {
		tb.Fatal(err)
	}
}
