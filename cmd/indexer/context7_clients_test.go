package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/fixtures"
)

// Context7's own clients, which TestContext7Clients points at indexer
// serve's Context7-compatible API, are pinned in testdata/context7
// (package.json and package-lock.json, installed with npm ci): the official
// MCP server @upstash/context7-mcp, the SDK @upstash/context7-sdk and the
// ctx7 CLI. The MCP Inspector that drives the MCP server is the one pinned
// in testdata/clients.
const context7Dir = "testdata/context7"

// TestContext7Clients is the end-to-end proof that Context7's clients work
// unchanged against a self-hosted Codex7: it serves the fixtures over HTTP
// and points at http://host:port/api the official Context7 MCP server
// (CONTEXT7_API_URL; driven over stdio by the MCP Inspector CLI), the SDK
// (testdata/context7/sdk.mjs) and the ctx7 CLI (--base-url). Like
// TestClients it skips without node and npm unless CODEX7_REQUIRE_CLIENTS=1,
// and needs the npm registry once.
func TestContext7Clients(t *testing.T) {
	if testing.Short() {
		t.Skip("installs npm packages and runs Node.js clients")
	}
	start := time.Now()
	inspector := installClients(t)
	c7 := installPackages(t, context7Dir, "context7")
	t.Logf("npm packages ready in %v", time.Since(start).Round(time.Millisecond))
	bin, out := serveFixtures(t)
	api := strings.TrimSuffix(serveHTTP(t, bin, out), "/mcp") + "/api"
	version := fixtures.Branch

	t.Run("mcp", func(t *testing.T) { testContext7MCP(t, inspector, c7, api, version) })
	t.Run("sdk", func(t *testing.T) { testContext7SDK(t, c7, api, version) })
	t.Run("ctx7", func(t *testing.T) { testCtx7(t, c7, api, version) })
}

// testContext7MCP runs the official Context7 MCP server over stdio with
// CONTEXT7_API_URL set to api, and calls its tools with the Inspector CLI.
func testContext7MCP(t *testing.T, inspector, c7 clientInstall, api, version string) {
	cli := filepath.Join(inspector.dir, "node_modules", ".bin", "mcp-inspector")
	server := []string{"node", filepath.Join(c7.dir, "node_modules", "@upstash", "context7-mcp", "dist", "index.js"), "--transport", "stdio"}
	call := func(tool string, args ...string) []string {
		out := []string{"--method", "tools/call", "--tool-name", tool}
		for _, a := range args {
			out = append(out, "--tool-arg", a)
		}
		return out
	}
	const widgets = "Source: fixtures/docs/acme-widgets/"
	tests := []struct {
		name string
		args []string
		want []string // substrings of the text content
	}{
		{"resolve-library-id", call("resolve-library-id", "libraryName=widgets", "query=poll a data source"),
			[]string{"Context7-compatible library ID: /acme/widgets", "- Title: Acme Widgets", "- Versions: " + version, "- Source Reputation: Unknown"}},
		{"resolve-library-id by org", call("resolve-library-id", "libraryName=acme", "query=deploy"),
			[]string{"Context7-compatible library ID: /acme/widgets", "Context7-compatible library ID: /acme/cli"}},
		{"resolve-library-id unknown", call("resolve-library-id", "libraryName=no-such-library-anywhere", "query=x"),
			[]string{"No libraries found"}},
		{"query-docs", call("query-docs", "libraryId=/acme/widgets", "query=poll a data source"),
			[]string{"# /acme/widgets@" + version + " (commit ", widgets + "docs/guides/data-sources.md#polling"}},
		{"query-docs exact version", call("query-docs", "libraryId=/acme/widgets/"+version, "query=layout"),
			[]string{"# /acme/widgets@" + version + " (commit ", widgets}},
		{"query-docs unbuilt version", call("query-docs", "libraryId=/acme/widgets/v9.9.9", "query=layout"),
			[]string{`has no version "v9.9.9"; built versions: ` + version}},
		{"query-docs unknown library", call("query-docs", "libraryId=/acme/nope", "query=layout"),
			[]string{"library not found", "resolve-library-id"}},
	}
	t.Run("tools/list", func(t *testing.T) {
		got := runInspector(t, cli, inspector, api, server, []string{"--method", "tools/list"})
		var names []string
		for _, tool := range got.Result.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if want := []string{"query-docs", "resolve-library-id"}; !slices.Equal(names, want) {
			t.Errorf("tools = %v, want %v (the pinned @upstash/context7-mcp's)", names, want)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runInspector(t, cli, inspector, api, server, tt.args)
			text := textOf(got.Result.Content)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("text does not contain %q:\n%s", w, text)
				}
			}
		})
	}
}

// runInspector runs the Inspector CLI against the Context7 MCP server over
// stdio and returns what it printed. The server gets only the environment
// the Inspector passes it with -e: CONTEXT7_API_URL, and telemetry off.
func runInspector(t *testing.T, cli string, inspector clientInstall, api string, server, args []string) inspectorOutput {
	t.Helper()
	all := append([]string{"--cli", "--format", "json",
		"-e", "CONTEXT7_API_URL=" + api, "-e", "OTEL_SDK_DISABLED=true"}, args...)
	all = append(append(all, "--"), server...)
	cmd := exec.Command(cli, all...)
	cmd.Env = append(os.Environ(), "HOME="+inspector.home, "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcp-inspector %s: %v\nstdout: %s\nstderr: %s", strings.Join(all, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	var got inspectorOutput
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("mcp-inspector printed no JSON: %v\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	if got.Result.IsError {
		t.Fatalf("tool error: %s", textOf(got.Result.Content))
	}
	return got
}

// sdkResult is what testdata/context7/sdk.mjs prints.
type sdkResult struct {
	SDK        string   `json:"sdk"`
	Requests   []string `json:"requests"`
	SearchJSON []struct {
		ID            string   `json:"id"`
		Name          string   `json:"name"`
		Description   string   `json:"description"`
		TotalSnippets int      `json:"totalSnippets"`
		Versions      []string `json:"versions"`
	} `json:"searchJSON"`
	SearchTxt   string `json:"searchTxt"`
	ContextJSON []struct {
		Title   string `json:"title"`
		Content string `json:"content"`
		Source  string `json:"source"`
	} `json:"contextJSON"`
	ContextTxt   string `json:"contextTxt"`
	VersionTxt   string `json:"versionTxt"`
	UnknownError string `json:"unknownError"`
}

func testContext7SDK(t *testing.T, c7 clientInstall, api, version string) {
	stdout := runNodeScript(t, c7, filepath.Join(context7Dir, "sdk.mjs"), api, version)
	var got sdkResult
	if err := json.Unmarshal(stdout, &got); err != nil {
		t.Fatalf("sdk.mjs printed no JSON: %v\n%s", err, stdout)
	}
	if len(got.SearchJSON) == 0 || got.SearchJSON[0].ID != "/acme/widgets" || got.SearchJSON[0].Name != "Acme Widgets" ||
		got.SearchJSON[0].TotalSnippets <= 0 || !slices.Contains(got.SearchJSON[0].Versions, version) {
		t.Errorf("searchLibrary json = %+v, want /acme/widgets (Acme Widgets) first, with snippets and version %s", got.SearchJSON, version)
	}
	if !strings.Contains(got.SearchTxt, "- Context7-compatible library ID: /acme/widgets") {
		t.Errorf("searchLibrary txt = %q, want it to name /acme/widgets", got.SearchTxt)
	}
	if len(got.ContextJSON) == 0 {
		t.Fatal("getContext json: no documentation")
	}
	code := false
	for _, d := range got.ContextJSON {
		if d.Title == "" || d.Content == "" || !strings.HasPrefix(d.Source, "fixtures/docs/acme-widgets/") {
			t.Errorf("getContext json: %+v, want a title, content and a source under fixtures/docs/acme-widgets/", d)
		}
		code = code || strings.Contains(d.Content, "```ts\n")
	}
	if !code {
		t.Errorf("getContext json: no code example in %+v", got.ContextJSON)
	}
	if !strings.Contains(got.ContextTxt, "# /acme/widgets@") || !strings.Contains(got.ContextTxt, "Source: fixtures/docs/acme-widgets/") {
		t.Errorf("getContext txt does not cite its sources:\n%s", got.ContextTxt)
	}
	if !strings.Contains(got.VersionTxt, "# /acme/widgets@"+version+" (commit ") {
		t.Errorf("getContext of /acme/widgets/%s txt:\n%s\nwant that version", version, got.VersionTxt)
	}
	if !strings.HasPrefix(got.UnknownError, "Context7Error: library_not_found") {
		t.Errorf("getContext of an unknown library threw %q, want Context7Error: library_not_found", got.UnknownError)
	}
	for _, u := range got.Requests {
		if !strings.HasPrefix(u, api+"/v2/") {
			t.Errorf("the SDK requested %s, want %s/v2/...", u, api)
		}
	}
}

// runNodeScript runs script from inside the install, where node resolves
// its imports, with args, and returns its stdout.
func runNodeScript(t *testing.T, inst clientInstall, script string, args ...string) []byte {
	t.Helper()
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(inst.dir, strings.TrimSuffix(filepath.Base(script), ".mjs")+"-*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(src); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("node", append([]string{f.Name()}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\nstderr: %s", script, err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// testCtx7 runs the ctx7 CLI's library and docs commands with --base-url
// (the server's root: ctx7 adds /api itself), as a user of a self-hosted
// Context7 would.
func testCtx7(t *testing.T, c7 clientInstall, api, version string) {
	ctx7 := filepath.Join(c7.dir, "node_modules", "ctx7", "dist", "index.js")
	root := strings.TrimSuffix(api, "/api")
	home := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantExit int
		want     []string // substrings of stdout
	}{
		{"library", []string{"library", "widgets", "poll a data source"}, 0, []string{"Context7-compatible library ID: /acme/widgets", "Versions: " + version}},
		{"library --json", []string{"library", "widgets", "--json"}, 0, []string{`"id": "/acme/widgets"`}},
		{"docs", []string{"docs", "/acme/widgets", "poll a data source"}, 0, []string{"# /acme/widgets@" + version, "Source: fixtures/docs/acme-widgets/docs/guides/data-sources.md#polling"}},
		{"docs --json", []string{"docs", "/acme/widgets", "poll a data source", "--json"}, 0, []string{`"codeSnippets": [`, `"codeId": "fixtures/docs/acme-widgets/`}},
		{"docs exact version", []string{"docs", "/acme/widgets/" + version, "layout"}, 0, []string{"# /acme/widgets@" + version + " (commit "}},
		{"docs unknown library", []string{"docs", "/acme/nope", "layout", "--json"}, 1, []string{"library not found", "resolve-library-id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("node", append([]string{ctx7, "--base-url", root}, tt.args...)...)
			cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_STATE_HOME="+home, "NO_COLOR=1", "CTX7_TELEMETRY_DISABLED=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantExit {
				t.Fatalf("ctx7 %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(tt.args, " "), code, tt.wantExit, stdout.Bytes(), stderr.Bytes())
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("ctx7 %s: stdout does not contain %q:\n%s\nstderr: %s", strings.Join(tt.args, " "), w, stdout.Bytes(), stderr.Bytes())
				}
			}
		})
	}
}
