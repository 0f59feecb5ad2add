package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codex7/codex7/fixtures"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/internal/waitfor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeStdio runs the built binary as an MCP server over stdio and
// drives it with the SDK's client, as Claude Code or Cursor would.
func TestServeStdio(t *testing.T) {
	bin, out := serveFixtures(t)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "serve", "--stdio", "--artifacts", out)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-library-docs", Arguments: map[string]any{
		"libraryId": "/acme/cli", "customQuery": "deploy to production scope", "tokens": 1000}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(text, "# /acme/cli@"+fixtures.Branch+" (commit ") || !strings.Contains(text, "Source: fixtures/docs/acme-cli/") || !strings.Contains(text, "deploy:prod") {
		t.Errorf("get-library-docs over stdio: isError %v\n%s", res.IsError, text)
	}
}

// serveFixtures builds the binary and the fixture artifacts, from a copy
// of the fixtures as they are on disk.
func serveFixtures(t *testing.T) (bin, out string) {
	t.Helper()
	cfg := buildtest.Fixtures(t, "../..", nil)
	bin = testBinary(t)
	out = t.TempDir()
	build := exec.Command(bin, "build", "--config", cfg, "--out", out)
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, msg)
	}
	return bin, out
}

// TestServeHTTP runs the built binary as a streamable HTTP server and
// drives it with the SDK's client, then stops it with SIGTERM.
func TestServeHTTP(t *testing.T) {
	bin, out := serveFixtures(t)
	profiles := t.TempDir()
	cpuProf, memProf := filepath.Join(profiles, "cpu.prof"), filepath.Join(profiles, "mem.prof")
	srv := startServer(t, bin, out, "--cpuprofile", cpuProf, "--memprofile", memProf)
	cmd, base := srv.cmd, srv.base
	waitReady(t, base)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "resolve-library-id", Arguments: map[string]any{"libraryName": "widgets"}})
	cs.Close()
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "/acme/widgets") {
		t.Fatalf("resolve over HTTP: %v %+v", err, res)
	}
	// The web page is served at / beside /mcp.
	if code, body := httpGet(t, base+"/"); code != http.StatusOK || !strings.Contains(body, "<h1>Catalog</h1>") || !strings.Contains(body, "/acme/widgets") {
		t.Errorf("GET /: %d\n%s", code, body)
	}
	requireSignals(t)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Error("server did not stop on SIGTERM")
	}
	// The profiles are written at shutdown, in pprof's gzipped format.
	for _, p := range []string{cpuProf, memProf} {
		if data, err := os.ReadFile(p); err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
			t.Errorf("%s: %d bytes, %v; want a gzipped profile", filepath.Base(p), len(data), err)
		}
	}
}

// TestServeNoUI: with --no-ui, / is not served, and the rest is.
func TestServeNoUI(t *testing.T) {
	bin, out := serveFixtures(t)
	base := startServer(t, bin, out, "--no-ui").base
	waitReady(t, base)
	for path, want := range map[string]int{"/": http.StatusNotFound, "/acme/widgets": http.StatusNotFound, "/healthz": http.StatusOK, "/api/v1/search?query=widgets": http.StatusOK} {
		if code, body := httpGet(t, base+path); code != want {
			t.Errorf("GET %s with --no-ui: %d, want %d\n%s", path, code, want, body)
		}
	}
}

// TestServeReloadsOnSIGHUP rebuilds the artifacts under a running server
// that does not poll (--reload-interval 0): the answers stay the old
// build's until SIGHUP, then come from the new one.
func TestServeReloadsOnSIGHUP(t *testing.T) {
	// Unix only: SIGHUP, and a rebuild replacing a version directory the
	// server has open, which Windows refuses.
	requireSignals(t)
	bin, _ := serveFixtures(t)
	repo := gittest.New(t, "main")
	edition := func(n int) {
		repo.Write(map[string]string{"docs/guide.md": fmt.Sprintf("# Guide\n\n## Edition\n\nThis is edition marker%d of the guide.\n", n)})
		repo.Commit(fmt.Sprint("edition ", n))
	}
	edition(1)
	cfg := filepath.Join(t.TempDir(), "codex7.yaml")
	if err := os.WriteFile(cfg, []byte("allow: {local_roots: ["+repo.Dir+"]}\nlibraries:\n  - id: /acme/site\n    repo: "+repo.Dir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	build := func() {
		t.Helper()
		if msg, err := exec.Command(bin, "build", "--config", cfg, "--out", out).CombinedOutput(); err != nil {
			t.Fatalf("build: %v\n%s", err, msg)
		}
	}
	build()
	srv := startServer(t, bin, out, "--reload-interval", "0")
	cmd, base := srv.cmd, srv.base
	waitReady(t, base)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hup-test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	marker := func() string {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get-library-docs", Arguments: map[string]any{"libraryId": "/acme/site", "customQuery": "edition guide"}})
		if err != nil || res.IsError {
			t.Fatalf("get-library-docs: %v %+v", err, res)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		i := strings.Index(text, "marker")
		if i < 0 {
			t.Fatalf("no marker in %q", text)
		}
		return text[i : i+len("marker")+1]
	}
	if m := marker(); m != "marker1" {
		t.Fatalf("first answer from %s, want marker1", m)
	}
	edition(2)
	build()
	if m := marker(); m != "marker1" {
		t.Fatalf("before SIGHUP, with polling off: answer from %s, want marker1", m)
	}
	cmd.Process.Signal(syscall.SIGHUP)
	waitfor.True(t, 10*time.Second, "SIGHUP to load the new build (marker2)", func() bool { return marker() == "marker2" })
}

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitReady(t testing.TB, base string) {
	t.Helper()
	waitfor.Nil(t, 10*time.Second, base+"/readyz to answer 200", func() error {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	})
}
