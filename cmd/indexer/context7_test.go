package main

import (
	"bytes"
	"context"
	"flag"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/context7/context7test"
)

// init keeps the tests hermetic: the servers they start inherit this
// process's environment, and a developer's CONTEXT7_API_KEY would make
// them call the real Context7. TestServeContext7 sets its own.
func init() {
	os.Unsetenv("CONTEXT7_API_KEY")
	os.Unsetenv("CONTEXT7_API_URL")
}

func TestContext7Flags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	for _, tc := range []struct {
		name    string
		env     map[string]string
		args    []string
		wantNil bool
		wantKey bool
		wantURL string
		wantLog []string
		wantErr bool
	}{
		{name: "nothing set", wantNil: true},
		{name: "key", env: map[string]string{"CONTEXT7_API_KEY": "ctx7sk-k"}, wantKey: true, wantURL: "https://context7.com/api", wantLog: []string{"cache=/"}},
		{name: "url from the environment", env: map[string]string{"CONTEXT7_API_URL": "http://c7.internal/api"}, wantURL: "http://c7.internal/api", wantLog: []string{"CONTEXT7_API_KEY is not set"}},
		{name: "url flag", args: []string{"--context7-url", "http://other/api"}, wantURL: "http://other/api"},
		{name: "memory", env: map[string]string{"CONTEXT7_API_KEY": "ctx7sk-k"}, args: []string{"--context7-cache-mem"}, wantKey: true, wantURL: "https://context7.com/api", wantLog: []string{"cache=memory"}},
		{name: "read-only cache dir", env: map[string]string{"CONTEXT7_API_KEY": "ctx7sk-k"}, args: []string{"--context7-cache-dir", filepath.Join(file, "cache")}, wantKey: true, wantURL: "https://context7.com/api", wantLog: []string{"caching in memory only", "cache=memory"}},
		{name: "bad ttl", env: map[string]string{"CONTEXT7_API_KEY": "ctx7sk-k"}, args: []string{"--context7-cache-ttl", "0s"}, wantErr: true},
		{name: "bad url", env: map[string]string{"CONTEXT7_API_KEY": "ctx7sk-k", "CONTEXT7_API_URL": "context7.com/api"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			f := addContext7Flags(fs, func(k string) string { return tc.env[k] })
			args := tc.args
			if !strings.Contains(strings.Join(args, " "), "--context7-cache-dir") {
				args = append(args, "--context7-cache-dir", t.TempDir())
			}
			if err := fs.Parse(args); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			c, err := f.client(slog.New(slog.NewTextHandler(&logs, nil)))
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if (c == nil) != tc.wantNil {
				t.Fatalf("client %v, want nil: %v", c, tc.wantNil)
			}
			if c == nil {
				return
			}
			if c.Configured() != tc.wantKey || c.BaseURL() != tc.wantURL {
				t.Errorf("configured %v, url %s; want %v, %s", c.Configured(), c.BaseURL(), tc.wantKey, tc.wantURL)
			}
			for _, w := range tc.wantLog {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("logs lack %q:\n%s", w, logs.String())
				}
			}
			if strings.Contains(logs.String(), "ctx7sk-k") {
				t.Error("the key is in the logs")
			}
		})
	}
	if d := defaultContext7CacheDir(); d != "" && !strings.HasSuffix(d, filepath.Join("codex7", "context7")) {
		t.Errorf("default cache dir %s", d)
	}
}

// TestServeContext7 runs the binary over stdio against a fake Context7:
// get-context7-docs answers, a second call is served from the cache
// directory, and resolve-library-id lists remote matches.
func TestServeContext7(t *testing.T) {
	bin, out := serveFixtures(t)
	fake := context7test.NewServer(t, context7test.Fixtures()...)
	cacheDir := t.TempDir()
	ctx := context.Background()
	cmd := exec.Command(bin, "serve", "--stdio", "--artifacts", out, "--context7-cache-dir", cacheDir)
	cmd.Env = append(os.Environ(), "CONTEXT7_API_KEY="+context7test.Key, "CONTEXT7_API_URL="+fake.BaseURL())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callText := func(tool string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	args := map[string]any{"libraryId": "/vercel/next.js", "topic": "routing"}
	first := callText("get-context7-docs", args)
	if !strings.Contains(first, "### Routing > Overview") {
		t.Errorf("get-context7-docs:\n%s", first)
	}
	n := fake.Count()
	if again := callText("get-context7-docs", args); again != first || fake.Count() != n {
		t.Errorf("the second call was not served from the cache (%d more requests)", fake.Count()-n)
	}
	if entries, _ := filepath.Glob(filepath.Join(cacheDir, "*.entry")); len(entries) == 0 {
		t.Error("nothing cached in --context7-cache-dir")
	}
	if text := callText("resolve-library-id", map[string]any{"libraryName": "next.js"}); !strings.Contains(text, `call get-context7-docs with libraryId "/vercel/next.js"`) {
		t.Errorf("resolve-library-id:\n%s", text)
	}
	cs.Close()
	cmd.Wait()
	if strings.Contains(stderr.String(), context7test.Key) {
		t.Error("the key is in the server's logs")
	}
	if !strings.Contains(stderr.String(), "context7.doc") {
		t.Errorf("no context7.doc span in the logs:\n%s", stderr.String())
	}
}
