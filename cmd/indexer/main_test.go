package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/fixtures"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/syncbuf"
	"github.com/codex7/codex7/pipeline"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestHelpAndUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, exitUsage, "Usage:"},
		{[]string{"help"}, exitOK, "indexer build"},
		{[]string{"build", "--help"}, exitOK, "build only this library id"},
		{[]string{"verify", "--help"}, exitOK, "sha256"},
		{[]string{"search", "--help"}, exitOK, "comma-separated topic slugs"},
		{[]string{"version"}, exitOK, "artifact format"},
		{[]string{"serve", "--help"}, exitOK, "resolve-library-id"},
		{[]string{"serve", "--artifacts", "/nonexistent"}, exitUsage, "run 'indexer build' first"},
		{[]string{"serve", "--help"}, exitOK, "least recently used"},
		{[]string{"serve", "--max-open", "0"}, exitUsage, "--max-open >= 1"},
		{[]string{"serve", "--max-open", "-2"}, exitUsage, "--max-open >= 1"},
		{[]string{"eval", "--help"}, exitOK, "MRR@10"},
		{[]string{"version", "--help"}, exitOK, "artifact\nformat"},
		{[]string{"version", "extra"}, exitUsage, "unexpected argument"},
		{[]string{"route", "--help"}, exitOK, "rendezvous hashing"},
		{[]string{"route"}, exitUsage, "give --groups"},
		{[]string{"route", "--groups", "a", "--server", "a"}, exitUsage, "want GROUP=HOST:PORT"},
		{[]string{"route", "--groups", "a,a", "--config", "../../fixtures/codex7.yaml", "--out", os.TempDir()}, exitUsage, "named twice"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"build", "--nope"}, exitUsage, "flag provided but not defined"},
		{[]string{"build", "extra"}, exitUsage, "unexpected argument"},
		{[]string{"search", "--query", "x"}, exitUsage, "--library is required"},
		{[]string{"search", "--library", "/a/b"}, exitUsage, "give --query"},
		{[]string{"search", "--library", "/a/b", "--query", "x", "--limit", "0"}, exitUsage, "--limit"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exit %d, want %d; output %q does not contain %q", code, tt.code, stdout+stderr, tt.want)
			}
			if n := strings.Count(stdout+stderr, "Usage:"); n > 1 {
				t.Errorf("usage printed %d times", n)
			}
			if tt.code == exitOK && strings.Contains(strings.Join(tt.args, " "), "help") && stderr != "" {
				t.Errorf("help went to stderr: %q", stderr)
			}
		})
	}
}

func TestBuildConfigErrorNamesLine(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "codex7.yaml")
	os.WriteFile(cfg, []byte("libraries:\n  - id: acme/widgets\n    repo: /tmp/x\n"), 0o644)
	code, _, stderr := runCLI(t, "build", "--config", cfg, "--out", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "codex7.yaml:2") || !strings.Contains(stderr, "libraries[0].id") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming codex7.yaml:2 and libraries[0].id", code, stderr)
	}
}

// TestSummaryNamesRemoved: the build's summary says which versions left
// the dist because the config no longer names them.
func TestSummaryNamesRemoved(t *testing.T) {
	var b strings.Builder
	summarize(&b, &pipeline.Result{Removed: []string{"acme/cli/trunk", "acme/widgets/v1.0.0"}})
	if want := "removed 2 versions the config no longer names: acme/cli/trunk, acme/widgets/v1.0.0"; !strings.Contains(b.String(), want) {
		t.Errorf("summary %q lacks %q", b.String(), want)
	}
	b.Reset()
	summarize(&b, &pipeline.Result{})
	if strings.Contains(b.String(), "removed") {
		t.Errorf("summary %q mentions removals when there were none", b.String())
	}
}

// TestSummaryCountsInterrupted: versions an interrupted build did not
// get to are counted as interrupted, not failed, and the progress lines
// drop them from the versions in flight without a FAILED line.
func TestSummaryCountsInterrupted(t *testing.T) {
	var b strings.Builder
	summarize(&b, &pipeline.Result{Elapsed: 1500 * time.Millisecond, Versions: []pipeline.VersionResult{
		{Library: "/acme/cli", Version: "main", Stage: pipeline.StageBuilt, Documents: 4, Sections: 15},
		{Library: "/acme/widgets", Version: "main", Stage: pipeline.StageInterrupted, Err: context.Canceled},
		{Library: "/acme/docs", Version: "*", Stage: pipeline.StageInterrupted, Err: context.Canceled},
	}})
	if want := "built 1, up to date 0, failed 0, interrupted 2 library versions (4 documents, 15 sections) in 1.5s\n"; b.String() != want {
		t.Errorf("summary %q, want %q", b.String(), want)
	}
	var out strings.Builder
	p := &progress{w: &out, active: map[string]pipeline.Event{}, since: map[string]time.Time{}}
	p.event(pipeline.Event{Library: "/acme/widgets", Version: "main", Stage: pipeline.StageFetching})
	p.event(pipeline.Event{Library: "/acme/widgets", Version: "main", Stage: pipeline.StageInterrupted, Err: context.Canceled})
	p.event(pipeline.Event{Library: "/acme/docs", Version: "*", Stage: pipeline.StageFailed, Err: errors.New("no git repository there")})
	if len(p.active) != 0 || strings.Contains(out.String(), "canceled") || !strings.Contains(out.String(), "FAILED     /acme/docs: no git repository there") {
		t.Errorf("progress left %v in flight, or wrote:\n%s", p.active, out.String())
	}
}

// TestNoFlagBuildUsesFixtures runs what the README's first command runs:
// `indexer build` with no flags, in a copy of the repository's fixtures
// that is no git checkout: build makes their repository itself.
func TestNoFlagBuildUsesFixtures(t *testing.T) {
	t.Chdir(buildtest.CopyFixtures(t, "../.."))
	out := t.TempDir()
	code, _, stderr := runCLI(t, "build", "--out", out)
	if code != exitOK {
		t.Fatalf("build exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "fixtures/codex7.yaml") || !strings.Contains(stderr, "built 2") {
		t.Errorf("stderr %q: want the fixture config used and a summary of 2 versions built", stderr)
	}
	// Unchanged docs give the same commit: nothing to rebuild.
	if code, _, stderr := runCLI(t, "build", "--out", out); code != exitOK || !strings.Contains(stderr, "built 0, up to date 2") {
		t.Errorf("second build: exit %d, %q; want both versions up to date", code, stderr)
	}
	if code, stdout, _ := runCLI(t, "verify", out); code != exitOK || !strings.Contains(stdout, "ok") {
		t.Errorf("verify exit %d: %s", code, stdout)
	}

	code, stdout, stderr := runCLI(t, "search", "--artifacts", out, "--library", "acme/widgets", "--query", "environment variables theme", "--limit", "3", "--json")
	if code != exitOK {
		t.Fatalf("search exit %d: %s", code, stderr)
	}
	var got struct {
		Results []searchResult `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("search --json output is not JSON: %v\n%s", err, stdout)
	}
	if len(got.Results) == 0 {
		t.Fatal("no results")
	}
	r := got.Results[0]
	if r.Library != "/acme/widgets" || r.Version != fixtures.Branch || r.Heading != "Environment variables" || r.Relevance != 1 ||
		!strings.HasPrefix(r.Path, "fixtures/docs/acme-widgets/docs/getting-started/") || len(r.HeadingPath) != 2 || r.Tokens <= 0 {
		t.Errorf("first result = %+v", r)
	}
	// The heading as written, inline markup and explicit anchors included.
	code, stdout, _ = runCLI(t, "search", "--artifacts", out, "--library", "/acme/cli", "--query", "log in browser prompt", "--limit", "1", "--json")
	if code != exitOK || !strings.Contains(stdout, `"heading": "Log in {/*log-in*/}"`) || !strings.Contains(stdout, `"anchor": "log-in"`) {
		t.Errorf("exit %d, output %s; want the heading as written and its explicit anchor", code, stdout)
	}
	code, stdout, _ = runCLI(t, "search", "--artifacts", out, "--library", "/acme/cli", "--query", "install homebrew", "--limit", "1", "--text")
	if code != exitOK || !strings.Contains(stdout, "brew install acme/tap/acme") || strings.Contains(stdout, "<Tab") {
		t.Errorf("--text: exit %d, output %s; want the section's cleaned markdown", code, stdout)
	}
	if code, _, stderr := runCLI(t, "search", "--artifacts", out, "--library", "/acme/cli", "--version", "v9", "--query", "x"); code != exitUsage || !strings.Contains(stderr, "built versions: "+fixtures.Branch) {
		t.Errorf("unknown version: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "search", "--artifacts", out, "--library", "/acme/nope", "--query", "x"); code != exitUsage || !strings.Contains(stderr, "closest: /acme/") {
		t.Errorf("unknown library: exit %d, %q", code, stderr)
	}
	if code, _, _ := runCLI(t, "search", "--artifacts", out, "--library", "/acme/cli", "--query", "zzyzx"); code != exitNoMatch {
		t.Errorf("no match: exit %d, want %d", code, exitNoMatch)
	}

	// eval scores questions against the artifacts.
	qfile := filepath.Join(t.TempDir(), "q.jsonl")
	os.WriteFile(qfile, []byte(`{"library":"acme/cli","query":"log in browser prompt","expected":[{"path":"fixtures/docs/acme-cli/index.mdx","heading":"Log in {/*log-in*/}","heading_norm":"Log in"}]}`+"\n"), 0o644)
	if code, stdout, stderr := runCLI(t, "eval", "--artifacts", out, "--questions", qfile); code != exitOK || !strings.Contains(stdout, "overall") || !strings.Contains(stdout, "1.000") {
		t.Errorf("eval: exit %d, %q %q", code, stdout, stderr)
	}
	if code, stdout, stderr := runCLI(t, "eval", "--artifacts", out, "--questions", qfile, "--tokens", "1000"); code != exitOK || !strings.Contains(stdout, "at 1000 tokens") {
		t.Errorf("eval --tokens 1000: exit %d, %q %q", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, "eval", "--artifacts", out); code != exitUsage || !strings.Contains(stderr, "--questions") {
		t.Errorf("eval without questions: exit %d, %q", code, stderr)
	}

	// Corrupt one file: verify names it and fails.
	topics := filepath.Join(out, "acme", "cli", fixtures.Branch, "topics.json")
	os.WriteFile(topics, []byte("{}"), 0o644)
	if code, stdout, _ := runCLI(t, "verify", out); code != exitFailed || !strings.Contains(stdout, "acme/cli/"+fixtures.Branch+"/topics.json") {
		t.Errorf("verify after corruption: exit %d, %q", code, stdout)
	}
	// search on the damaged version: artifacts that cannot be read, exit 2,
	// with what to run.
	if code, _, stderr := runCLI(t, "search", "--artifacts", out, "--library", "/acme/cli", "--query", "deploy"); code != exitUsage || !strings.Contains(stderr, "indexer verify "+out) {
		t.Errorf("search on a damaged version: exit %d, %q; want %d and the way to see and mend it", code, stderr, exitUsage)
	}
}

func TestProgressLines(t *testing.T) {
	var b syncbuf.Buffer
	p := newProgress(&b)
	p.event(pipeline.Event{Library: "/a/b", Version: "main", Stage: pipeline.StageSplitting, Files: 3})
	p.event(pipeline.Event{Library: "/a/c", Version: "v1", Stage: pipeline.StageFetching})
	p.event(pipeline.Event{Library: "/a/b", Version: "main", Stage: pipeline.StageBuilt, Files: 3, Sections: 9, Elapsed: time.Second})
	p.event(pipeline.Event{Library: "/a/c", Version: "v1", Stage: pipeline.StageFailed, Err: fmt.Errorf("boom")})
	p.close()
	out := b.String()
	for _, want := range []string{"/a/b@main splitting 3 files", "built      /a/b@main", "9 sections", "FAILED     /a/c@v1: boom", "\r\033[K"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress output lacks %q:\n%q", want, out)
		}
	}
	if strings.HasSuffix(out, "files") {
		t.Error("live line left on screen after close")
	}
}

// TestBuildExitCodes checks that a build that ran and failed exits 1 (a
// lock another build holds), and only usage and config errors exit 2.
func TestBuildExitCodes(t *testing.T) {
	out := t.TempDir()
	release, err := artifacts.Lock(out)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if code, _, stderr := runCLI(t, "build", "--config", "../../fixtures/codex7.yaml", "--out", out); code != exitFailed || !strings.Contains(stderr, "locked") {
		t.Errorf("build into a locked directory: exit %d, %q; want 1 naming the lock", code, stderr)
	}
	if code, _, stderr := runCLI(t, "build", "--config", "../../fixtures/codex7.yaml", "--out", t.TempDir(), "--library", "/no/such"); code != exitUsage || !strings.Contains(stderr, "unknown library") {
		t.Errorf("build of an unknown library: exit %d, %q; want 2", code, stderr)
	}
}

// TestProfileErrors checks that a profile that cannot be written is an
// error, not a silently missing file.
func TestProfileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := startProfiles(filepath.Join(dir, "missing", "cpu.prof"), ""); err == nil {
		t.Error("a CPU profile in a missing directory started")
	}
	stop, err := startProfiles("", filepath.Join(dir, "missing", "mem.prof"))
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err == nil || !strings.Contains(err.Error(), "heap profile") {
		t.Errorf("stop with an unwritable heap profile: %v, want a heap profile error", err)
	}
	// A second CPU profile cannot start while one runs: its file is not
	// left behind.
	first := filepath.Join(dir, "first.prof")
	stop, err = startProfiles(first, "")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	second := filepath.Join(dir, "second.prof")
	if _, err := startProfiles(second, ""); err == nil {
		t.Error("a second CPU profile started")
	}
	if _, err := os.Stat(second); !os.IsNotExist(err) {
		t.Errorf("the second profile's file is left: %v", err)
	}
}
