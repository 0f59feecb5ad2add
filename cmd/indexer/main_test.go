package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/internal/gittest"
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
		{[]string{"eval", "--help"}, exitOK, "MRR@10"},
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

// TestNoFlagBuildUsesFixtures runs what the README's first command runs:
// `indexer build` from the repository root, with no flags.
func TestNoFlagBuildUsesFixtures(t *testing.T) {
	root, _ := filepath.Abs("../..")
	if err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Run(); err != nil {
		t.Skip("not a git checkout with commits: the fixture config indexes this repository")
	}
	t.Chdir(root)
	if _, err := os.Stat(defaultConfig); err == nil {
		t.Skip("./codex7.yaml exists and would be used instead of the fixtures")
	}
	out := t.TempDir()
	code, _, stderr := runCLI(t, "build", "--out", out)
	if code != exitOK {
		t.Fatalf("build exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "fixtures/codex7.yaml") || !strings.Contains(stderr, "built 2") {
		t.Errorf("stderr %q: want the fixture config used and a summary of 2 versions built", stderr)
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
	if r.Library != "/acme/widgets" || r.Version != fixtureVersion(t, root) || r.Heading != "Environment variables" || r.Relevance != 1 ||
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
	if code, _, stderr := runCLI(t, "search", "--artifacts", out, "--library", "/acme/cli", "--version", "v9", "--query", "x"); code != exitUsage || !strings.Contains(stderr, "built versions: "+fixtureVersion(t, root)) {
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
	if code, _, stderr := runCLI(t, "eval", "--artifacts", out); code != exitUsage || !strings.Contains(stderr, "--questions") {
		t.Errorf("eval without questions: exit %d, %q", code, stderr)
	}

	// Corrupt one file: verify names it and fails.
	topics := filepath.Join(out, "acme", "cli", fixtureVersion(t, root), "topics.json")
	os.WriteFile(topics, []byte("{}"), 0o644)
	if code, stdout, _ := runCLI(t, "verify", out); code != exitFailed || !strings.Contains(stdout, "acme/cli/"+fixtureVersion(t, root)+"/topics.json") {
		t.Errorf("verify after corruption: exit %d, %q", code, stdout)
	}
}

// TestKilledBuildLeavesArtifactsIntact kills real build processes with
// SIGKILL at moments spread over a build and checks after each that the
// published artifacts are complete and verifiable, then that a normal build
// recovers without cleanup by hand.
func TestKilledBuildLeavesArtifactsIntact(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and a large repository")
	}
	bin := filepath.Join(t.TempDir(), "indexer")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo := gittest.New(t, "main")
	files := map[string]string{}
	for i := 0; i < 1500; i++ {
		files[fmt.Sprintf("docs/part%02d/page%04d.md", i%20, i)] = fmt.Sprintf("# Page %d\n\n%s\n\n## Usage\n\n```go\nfmt.Println(%d)\n```\n\n## Details %d\n\n%s\n",
			i, strings.Repeat("Some prose about widgets and gadgets. ", 40), i, i, strings.Repeat("More words here. ", 60))
	}
	repo.Write(files)
	repo.Commit("v1")
	cfg := filepath.Join(t.TempDir(), "codex7.yaml")
	os.WriteFile(cfg, []byte("allow: {local_roots: ["+repo.Dir+"]}\nlibraries:\n  - id: /acme/big\n    repo: "+repo.Dir+"\n  - id: /acme/big2\n    repo: "+repo.Dir+"\n"), 0o644)
	out := t.TempDir()

	build := func(ctx context.Context) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, "build", "--config", cfg, "--out", out, "--force")
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGKILL) }
		return cmd
	}
	start := time.Now()
	if out, err := build(context.Background()).CombinedOutput(); err != nil {
		t.Fatalf("first build: %v\n%s", err, out)
	}
	full := time.Since(start)
	before, err := os.ReadFile(filepath.Join(out, artifacts.CatalogFile))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 8; i++ {
		delay := full * time.Duration(i) / 9
		ctx, cancel := context.WithTimeout(context.Background(), delay)
		err := build(ctx).Run()
		cancel()
		probs, verr := artifacts.Verify(out)
		if verr != nil || len(probs) > 0 {
			t.Fatalf("after a kill at %v (err %v): Verify = %v, %v", delay, err, probs, verr)
		}
		cat, err := artifacts.ReadCatalog(out)
		if err != nil || len(cat.Libraries) != 2 {
			t.Fatalf("after a kill at %v: catalog %+v, %v", delay, cat, err)
		}
	}
	if out, err := build(context.Background()).CombinedOutput(); err != nil {
		t.Fatalf("build after kills: %v\n%s", err, out)
	}
	if left, _ := os.ReadDir(filepath.Join(out, ".staging")); len(left) != 0 {
		t.Errorf("staging not cleaned after recovery: %d entries", len(left))
	}
	after, _ := os.ReadFile(filepath.Join(out, artifacts.CatalogFile))
	if !bytes.Equal(before, after) {
		t.Error("catalog differs after recovering from kills of identical builds")
	}
}

func TestProgressLines(t *testing.T) {
	var b syncBuffer
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

// syncBuffer is a bytes.Buffer safe for the progress ticker's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
