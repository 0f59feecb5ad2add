package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeStdio runs the built binary as an MCP server over stdio and
// drives it with the SDK's client, as Claude Code or Cursor would.
func TestServeStdio(t *testing.T) {
	root, _ := filepath.Abs("../..")
	if err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Run(); err != nil {
		t.Skip("not a git checkout with commits: the fixture config indexes this repository")
	}
	bin := filepath.Join(t.TempDir(), "indexer")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := t.TempDir()
	build := exec.Command(bin, "build", "--config", filepath.Join(root, "fixtures", "codex7.yaml"), "--out", out)
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, msg)
	}
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
	if res.IsError || !strings.Contains(text, "Source: /acme/cli@main fixtures/docs/acme-cli/") || !strings.Contains(text, "deploy:prod") {
		t.Errorf("get-library-docs over stdio: isError %v\n%s", res.IsError, text)
	}
}
