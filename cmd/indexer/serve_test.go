package main

import (
	"context"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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
	if res.IsError || !strings.Contains(text, "Source: /acme/cli@"+fixtureVersion(t, "../..")+" fixtures/docs/acme-cli/") || !strings.Contains(text, "deploy:prod") {
		t.Errorf("get-library-docs over stdio: isError %v\n%s", res.IsError, text)
	}
}

// serveFixtures builds the binary and the fixture artifacts.
func serveFixtures(t *testing.T) (bin, out string) {
	t.Helper()
	root, _ := filepath.Abs("../..")
	if err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Run(); err != nil {
		t.Skip("not a git checkout with commits: the fixture config indexes this repository")
	}
	bin = filepath.Join(t.TempDir(), "indexer")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out = t.TempDir()
	build := exec.Command(bin, "build", "--config", filepath.Join(root, "fixtures", "codex7.yaml"), "--out", out)
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, msg)
	}
	return bin, out
}

// fixtureVersion is the version name the fixture config gives its
// libraries: the branch checked out at root (the default branch of the
// repository it indexes), '/' replaced by '-'. It is "main" on main but not
// in a worktree on another branch.
func fixtureVersion(t *testing.T, root string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "symbolic-ref", "--short", "HEAD").Output()
	if err != nil {
		t.Fatalf("git symbolic-ref HEAD: %v (the fixtures are built from the checkout's branch)", err)
	}
	return strings.ReplaceAll(strings.TrimSpace(string(out)), "/", "-")
}

// TestServeHTTP runs the built binary as a streamable HTTP server and
// drives it with the SDK's client, then stops it with SIGTERM.
func TestServeHTTP(t *testing.T) {
	bin, out := serveFixtures(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "--http", addr, "--artifacts", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	base := "http://" + addr
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
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
}
