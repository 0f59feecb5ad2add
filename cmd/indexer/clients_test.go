package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/fixtures"
)

// The MCP clients TestClients runs are pinned in testdata/clients
// (package.json and package-lock.json, installed with npm ci): the MCP
// Inspector's CLI and the official TypeScript SDK, whose Client drives
// testdata/clients/sdk-client.mjs. Neither was written here, so they catch
// what the Go SDK's own client forgives.
const clientsDir = "testdata/clients"

// requireClientsEnv, set to 1 (as .ci/run does), turns TestClients' skips for
// a missing or too old node or npm into failures, so CI cannot pass without
// running the clients.
const requireClientsEnv = "CODEX7_REQUIRE_CLIENTS"

// npmCacheEnv names the directory the clients are installed under, instead
// of the user cache directory (e.g. a directory CI caches between runs).
const npmCacheEnv = "CODEX7_NPM_CACHE"

// minNodeMajor is the oldest Node.js the pinned clients are tested on. The
// Inspector declares node >= 22.19 but runs on 20, which CI has.
const minNodeMajor = 20

// TestClients runs MCP clients nobody here wrote against the built binary,
// over stdio and streamable HTTP: the Inspector CLI (tools/list with its
// schema portability checks, tools/call) and a script on the TypeScript
// SDK's Client, which parses every tool schema with the SDK's own zod
// schemas, validates structuredContent against each outputSchema, and calls
// both tools with ordinary and edge-case arguments.
func TestClients(t *testing.T) {
	if testing.Short() {
		t.Skip("installs npm packages and runs Node.js clients")
	}
	clients := installClients(t)
	bin, out := serveFixtures(t)
	url := serveHTTP(t, bin, out)
	stdio := []string{bin, "serve", "--stdio", "--artifacts", out}

	t.Run("inspector", func(t *testing.T) {
		testInspector(t, clients, stdio, url)
	})
	t.Run("sdk", func(t *testing.T) {
		for _, tr := range []struct {
			name string
			spec map[string]any
		}{
			{"stdio", map[string]any{"transport": "stdio", "command": stdio[0], "args": stdio[1:]}},
			{"http", map[string]any{"transport": "http", "url": url}},
		} {
			t.Run(tr.name, func(t *testing.T) {
				testSDKClient(t, clients, tr.spec, fixtures.Branch)
			})
		}
	})
}

// clientInstall is an npm ci of testdata/clients.
type clientInstall struct {
	dir  string // holds node_modules
	home string // HOME for the Inspector, so it reads no user catalog
}

// installClients returns the pinned clients, installing them with npm ci
// into a cache directory keyed by the lockfile and the platform unless they
// are there already. It skips the test when node or npm is missing or too
// old, unless CODEX7_REQUIRE_CLIENTS=1, and fails when npm ci does (CI has
// the registry).
func installClients(t *testing.T) clientInstall {
	t.Helper()
	return installPackages(t, clientsDir, "clients")
}

// installPackages is installClients for the package set in dir
// (package.json and package-lock.json); name prefixes its cache directory.
func installPackages(t *testing.T, dir, name string) clientInstall {
	t.Helper()
	skip := t.Skipf
	if os.Getenv(requireClientsEnv) == "1" {
		skip = t.Fatalf
	}
	var missing []string
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		skip("%s not on PATH: %s runs npm packages (%s), which need Node.js %d or later with npm", strings.Join(missing, " and "), t.Name(), dir, minNodeMajor)
	}
	v, err := exec.Command("node", "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v", err)
	}
	version := strings.TrimSpace(string(v))
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(version, "v"), ".", 2)[0])
	if major < minNodeMajor {
		skip("node %s is too old for the pinned npm packages of %s: need Node.js %d or later", version, dir, minNodeMajor)
	}

	h := sha256.New()
	for _, file := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(data)
	}
	fmt.Fprintf(h, "%s/%s node%d", runtime.GOOS, runtime.GOARCH, major)
	key := name + "-" + hex.EncodeToString(h.Sum(nil))[:16]

	root := os.Getenv(npmCacheEnv)
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatalf("no cache directory for the npm clients (%v): set %s", err, npmCacheEnv)
		}
		root = filepath.Join(cache, "codex7", "npm")
	}
	root, _ = filepath.Abs(root)
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	inst := clientInstall{dir: filepath.Join(root, key), home: t.TempDir()}
	if _, err := os.Stat(filepath.Join(inst.dir, "node_modules")); err == nil {
		return inst
	}
	removeStaleInstalls(root)

	// Install into a temporary directory and rename it into place, so a
	// killed or failed install is never mistaken for a complete one.
	tmp, err := os.MkdirTemp(root, key+".tmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for _, file := range []string{"package.json", "package-lock.json"} {
		data, _ := os.ReadFile(filepath.Join(dir, file))
		if err := os.WriteFile(filepath.Join(tmp, file), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	npm := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	npm.Dir = tmp
	// npm's download cache lives beside the installs: one directory to cache in CI.
	npm.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(root, "_cacache"), "npm_config_update_notifier=false")
	if msg, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v (%s needs the npm registry once; later runs use %s)\n%s", tmp, err, t.Name(), root, msg)
	}
	t.Logf("installed the npm packages of %s into %s in %v", dir, inst.dir, time.Since(start).Round(time.Millisecond))
	if err := os.Rename(tmp, inst.dir); err != nil {
		if _, serr := os.Stat(filepath.Join(inst.dir, "node_modules")); serr != nil {
			t.Fatal(err)
		}
		// Another test process installed the same clients first.
	}
	return inst
}

// removeStaleInstalls removes what installs killed over an hour ago left.
func removeStaleInstalls(root string) {
	tmps, _ := filepath.Glob(filepath.Join(root, "*-*.tmp-*"))
	for _, dir := range tmps {
		if fi, err := os.Stat(dir); err == nil && time.Since(fi.ModTime()) > time.Hour {
			os.RemoveAll(dir)
		}
	}
}

// serveHTTP starts the binary on a free loopback port and returns its MCP
// endpoint; the server is killed when the test ends.
func serveHTTP(t *testing.T, bin, out string) string {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--artifacts", out)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// The server logs the address it bound as JSON on stderr.
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving MCP over HTTP" {
				addr <- line.Addr
				break
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case a := <-addr:
		return "http://" + a + "/mcp"
	case <-time.After(15 * time.Second):
		t.Fatal("indexer serve --http logged no address within 15s")
		return ""
	}
}

// inspectorOutput is what the Inspector CLI prints with --format json.
type inspectorOutput struct {
	Result struct {
		Tools []struct {
			Name         string         `json:"name"`
			InputSchema  map[string]any `json:"inputSchema"`
			OutputSchema map[string]any `json:"outputSchema"`
		} `json:"tools"`
		IsError           bool            `json:"isError"`
		Content           []content       `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	} `json:"result"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// inspectorExitToolError is the Inspector CLI's exit code for a tools/call
// whose result has isError.
const inspectorExitToolError = 5

func testInspector(t *testing.T, clients clientInstall, stdio []string, url string) {
	inspector := filepath.Join(clients.dir, "node_modules", ".bin", "mcp-inspector")
	call := func(tool string, args ...string) []string {
		out := []string{"--method", "tools/call", "--tool-name", tool}
		for _, a := range args {
			out = append(out, "--tool-arg", a)
		}
		return out
	}
	list := []string{"--method", "tools/list", "--strict"}
	tests := []struct {
		name      string
		transport string // stdio or http
		era       string // --protocol-era; the CLI's default is legacy
		args      []string
		wantExit  int
		check     func(t *testing.T, got inspectorOutput, stderr string)
	}{
		{"stdio tools/list", "stdio", "", list, 0, checkToolList},
		{"http tools/list", "http", "", list, 0, checkToolList},
		// 2026-07-28, sessionless. Over HTTP the server refuses it (it keeps
		// sessions) with the error that makes an auto client fall back.
		{"stdio modern era tools/list", "stdio", "modern", list, 0, checkToolList},
		{"http auto era resolve", "http", "auto", call("resolve-library-id", "libraryName=widgets"), 0, checkResolve},
		{"stdio resolve", "stdio", "", call("resolve-library-id", "libraryName=widgets"), 0, checkResolve},
		{"http resolve", "http", "", call("resolve-library-id", "libraryName=widgets"), 0, checkResolve},
		{"stdio docs", "stdio", "", call("get-library-docs", "libraryId=/acme/widgets", "customQuery=poll a data source", "tokens=1000"), 0, checkDocs},
		{"http docs topics", "http", "", call("get-library-docs", "libraryId=/acme/widgets", "customQuery=polling", `topics=["data-sources"]`), 0, checkDocs},
		{"stdio docs unknown library", "stdio", "", call("get-library-docs", "libraryId=/nope/nothing", "customQuery=x"), inspectorExitToolError, checkToolError("resolve-library-id")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"--cli", "--format", "json"}
			if tt.era != "" {
				args = append(args, "--protocol-era", tt.era)
			}
			args = append(args, tt.args...)
			if tt.transport == "http" {
				args = append(args, "--transport", "http", "--server-url", url)
			} else {
				args = append(append(args, "--"), stdio...)
			}
			cmd := exec.Command(inspector, args...)
			cmd.Env = append(os.Environ(), "HOME="+clients.home, "NO_COLOR=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			code := 0
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantExit {
				t.Fatalf("mcp-inspector %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, tt.wantExit, stdout.Bytes(), stderr.Bytes())
			}
			var got inspectorOutput
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("mcp-inspector printed no JSON: %v\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
			}
			tt.check(t, got, stderr.String())
		})
	}
}

// strictClean matches the summary of --strict when it found no errors.
var strictClean = regexp.MustCompile(`(?m)^0 errors, `)

// checkToolList wants both tools with object input and output schemas, and
// none of the Inspector's schema portability findings (--strict prints them
// on stderr) about an inputSchema, which agents hand to their models.
func checkToolList(t *testing.T, got inspectorOutput, stderr string) {
	t.Helper()
	var names []string
	for _, tool := range got.Result.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema["type"] != "object" || tool.OutputSchema["type"] != "object" {
			t.Errorf("%s: inputSchema type %v, outputSchema type %v; want object and object", tool.Name, tool.InputSchema["type"], tool.OutputSchema["type"])
		}
	}
	slices.Sort(names)
	if want := []string{"get-library-docs", "resolve-library-id"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	if !strictClean.MatchString(stderr) || strings.Contains(stderr, "Path: inputSchema") {
		t.Errorf("the Inspector's --strict checks: %s\nwant 0 errors and no finding about an inputSchema", stderr)
	}
}

func checkResolve(t *testing.T, got inspectorOutput, _ string) {
	t.Helper()
	var sc struct {
		Matches []struct{ ID, Tool string } `json:"matches"`
	}
	if err := json.Unmarshal(got.Result.StructuredContent, &sc); err != nil || got.Result.IsError {
		t.Fatalf("structuredContent %s (%v), isError %v", got.Result.StructuredContent, err, got.Result.IsError)
	}
	if len(sc.Matches) == 0 || sc.Matches[0].ID != "/acme/widgets" || sc.Matches[0].Tool != "get-library-docs" {
		t.Errorf("matches = %+v, want /acme/widgets first, with tool get-library-docs", sc.Matches)
	}
	if text := textOf(got.Result.Content); !strings.Contains(text, "1. /acme/widgets") {
		t.Errorf("text = %q, want it to name /acme/widgets", text)
	}
}

func checkDocs(t *testing.T, got inspectorOutput, _ string) {
	t.Helper()
	var sc docsOutput
	if err := json.Unmarshal(got.Result.StructuredContent, &sc); err != nil || got.Result.IsError {
		t.Fatalf("structuredContent %s (%v), isError %v: %s", got.Result.StructuredContent, err, got.Result.IsError, textOf(got.Result.Content))
	}
	checkProvenance(t, sc, "/acme/widgets", "fixtures/docs/acme-widgets/")
	if text := textOf(got.Result.Content); !strings.Contains(text, "# /acme/widgets@") || !strings.Contains(text, "Source: fixtures/docs/acme-widgets/") {
		t.Errorf("text does not cite its sources:\n%s", text)
	}
}

func checkToolError(want string) func(*testing.T, inspectorOutput, string) {
	return func(t *testing.T, got inspectorOutput, _ string) {
		t.Helper()
		if text := textOf(got.Result.Content); !got.Result.IsError || !strings.Contains(text, want) {
			t.Errorf("isError %v, text %q; want a tool error mentioning %q", got.Result.IsError, text, want)
		}
	}
}

func textOf(cs []content) string {
	var b strings.Builder
	for _, c := range cs {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// docsOutput is the part of get-library-docs' structuredContent the tests read.
type docsOutput struct {
	Library  string `json:"library"`
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Sections []struct {
		Library     string   `json:"library"`
		Version     string   `json:"version"`
		Commit      string   `json:"commit"`
		Path        string   `json:"path"`
		Anchor      string   `json:"anchor"`
		HeadingPath []string `json:"heading_path"`
		Tokens      int      `json:"tokens"`
	} `json:"sections"`
	Page      int `json:"page"`
	Pages     int `json:"pages"`
	Documents []struct {
		Path string `json:"path"`
	} `json:"documents"`
}

var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// checkProvenance wants at least one section, each naming library, its
// version and full commit, and a file under pathPrefix. The anchor may be
// empty: a document's lead section, before any heading, is its top.
func checkProvenance(t *testing.T, got docsOutput, library, pathPrefix string) {
	t.Helper()
	if got.Library != library || got.Version == "" || !commitRE.MatchString(got.Commit) {
		t.Errorf("library %q version %q commit %q; want %s, a version and a full commit", got.Library, got.Version, got.Commit, library)
	}
	if len(got.Sections) == 0 {
		t.Fatal("no sections")
	}
	for _, s := range got.Sections {
		if s.Library != got.Library || s.Version != got.Version || s.Commit != got.Commit ||
			!strings.HasPrefix(s.Path, pathPrefix) || len(s.HeadingPath) == 0 || s.Tokens <= 0 {
			t.Errorf("section %+v: want the answer's library, version and commit, a path under %s, a heading path and tokens", s, pathPrefix)
		}
	}
}

// sdkOutput is what testdata/clients/sdk-client.mjs prints.
type sdkOutput struct {
	SDK             string `json:"sdk"`
	ProtocolVersion string `json:"protocolVersion"`
	Server          struct {
		Name string `json:"name"`
	} `json:"server"`
	Tools []struct {
		Name         string         `json:"name"`
		InputSchema  map[string]any `json:"inputSchema"`
		OutputSchema map[string]any `json:"outputSchema"`
		SchemaErrors []string       `json:"schemaErrors"`
	} `json:"tools"`
	Calls []struct {
		Name              string          `json:"name"`
		ArgumentsValid    *bool           `json:"argumentsValid"`
		ArgumentsErrors   []string        `json:"argumentsErrors"`
		IsError           bool            `json:"isError"`
		Text              string          `json:"text"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Error             string          `json:"error"`
	} `json:"calls"`
}

// sdkCase is one tools/call made through the TypeScript SDK's Client.
type sdkCase struct {
	name string
	tool string
	args map[string]any
	// invalidArgs says the arguments break the tool's inputSchema, so a
	// client validating them would not send them; the server must still
	// answer with a tool error, not a protocol error.
	invalidArgs bool
	wantIsError bool
	wantText    string // a substring of the text content
	// check, if set, reads the structured content.
	check func(t *testing.T, structured json.RawMessage)
}

func sdkCases(version string) []sdkCase {
	docs := func(library, pathPrefix string) func(*testing.T, json.RawMessage) {
		return func(t *testing.T, raw json.RawMessage) {
			t.Helper()
			var got docsOutput
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			checkProvenance(t, got, library, pathPrefix)
		}
	}
	matches := func(wantIDs ...string) func(*testing.T, json.RawMessage) {
		return func(t *testing.T, raw json.RawMessage) {
			t.Helper()
			var got struct {
				Matches []struct {
					ID       string   `json:"id"`
					Versions []string `json:"versions"`
					Latest   string   `json:"latest"`
				} `json:"matches"`
			}
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, m := range got.Matches {
				ids = append(ids, m.ID)
				if m.Latest != version || !slices.Contains(m.Versions, version) {
					t.Errorf("%s: versions %v latest %q, want %q", m.ID, m.Versions, m.Latest, version)
				}
			}
			if len(ids) < len(wantIDs) || !slices.Equal(ids[:len(wantIDs)], wantIDs) {
				t.Errorf("matches %v, want %v first", ids, wantIDs)
			}
			if len(wantIDs) == 0 && len(ids) > 0 {
				t.Errorf("matches %v, want none", ids)
			}
		}
	}
	const widgetsDocs = "fixtures/docs/acme-widgets/"
	return []sdkCase{
		{name: "resolve by name", tool: "resolve-library-id", args: map[string]any{"libraryName": "widgets"}, wantText: "1. /acme/widgets", check: matches("/acme/widgets")},
		{name: "resolve by alias, one result", tool: "resolve-library-id", args: map[string]any{"libraryName": "acme-widgets", "maxResults": 1, "query": "dashboards"}, check: matches("/acme/widgets")},
		{name: "resolve by id", tool: "resolve-library-id", args: map[string]any{"libraryName": "/acme/cli"}, check: matches("/acme/cli")},
		{name: "resolve unknown", tool: "resolve-library-id", args: map[string]any{"libraryName": "no-such-library-anywhere"}, wantText: "No library here matches", check: matches()},
		{name: "resolve without libraryName", tool: "resolve-library-id", args: map[string]any{}, invalidArgs: true, wantIsError: true, wantText: "libraryName"},
		{name: "docs", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets", "customQuery": "poll a data source", "tokens": 1000}, wantText: "# /acme/widgets@" + version, check: docs("/acme/widgets", widgetsDocs)},
		{name: "docs with Context7's names", tool: "get-library-docs", args: map[string]any{"context7CompatibleLibraryID": "/acme/widgets", "topic": "environment variables"}, check: docs("/acme/widgets", widgetsDocs)},
		{name: "docs libraryID and query aliases", tool: "get-library-docs", args: map[string]any{"libraryID": "acme/cli", "query": "deploy to production"}, check: docs("/acme/cli", "fixtures/docs/acme-cli/")},
		{name: "docs exact version", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets@" + version, "customQuery": "layout"}, check: docs("/acme/widgets", widgetsDocs)},
		{name: "docs topics", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets", "customQuery": "example", "topics": []string{"data-sources"}}, check: docs("/acme/widgets", widgetsDocs+"docs/guides/data-sources.md")},
		{name: "docs topics without query", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets", "topics": []string{"configuration"}}, check: docs("/acme/widgets", widgetsDocs)},
		{name: "docs mode code", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets", "customQuery": "create a widget", "mode": "code"}, check: docs("/acme/widgets", widgetsDocs)},
		{name: "docs tokens below minimum", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets", "customQuery": "widgets", "tokens": 10}, wantText: "raised to the minimum of 200", check: docs("/acme/widgets", widgetsDocs)},
		{name: "docs tokens above maximum", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets", "customQuery": "widgets", "tokens": 1000000}, wantText: "lowered to the maximum of 50000", check: docs("/acme/widgets", widgetsDocs)},
		{name: "docs folder listing", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets", "path": "fixtures/docs/acme-widgets/docs/guides"}, check: func(t *testing.T, raw json.RawMessage) {
			var got docsOutput
			json.Unmarshal(raw, &got)
			if len(got.Documents) == 0 || !strings.HasPrefix(got.Documents[0].Path, widgetsDocs+"docs/guides/") {
				t.Errorf("documents %+v, want the guides", got.Documents)
			}
		}},
		{name: "docs whole document", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets", "path": "fixtures/docs/acme-widgets/docs/guides/data-sources.md", "page": 1}, check: func(t *testing.T, raw json.RawMessage) {
			var got docsOutput
			json.Unmarshal(raw, &got)
			if got.Page != 1 || got.Pages < 1 {
				t.Errorf("page %d of %d, want page 1 of at least 1", got.Page, got.Pages)
			}
		}},
		{name: "docs unknown library", tool: "get-library-docs", args: map[string]any{"libraryId": "/nope/nothing", "customQuery": "x"}, wantIsError: true, wantText: "resolve-library-id"},
		{name: "docs unbuilt version", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets@v9.9.9", "customQuery": "x"}, wantIsError: true, wantText: "built versions"},
		{name: "docs unknown topic", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets", "topics": []string{"no-such-topic"}}, wantIsError: true, wantText: "data-sources"},
		{name: "docs without libraryId", tool: "get-library-docs", args: map[string]any{"customQuery": "cors"}, wantIsError: true, wantText: "resolve-library-id"},
		{name: "docs tokens as a string", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets", "tokens": "lots"}, invalidArgs: true, wantIsError: true, wantText: "tokens"},
		{name: "docs unknown argument", tool: "get-library-docs", args: map[string]any{"libraryId": "/acme/widgets", "customQuery": "x", "version": "1"}, invalidArgs: true, wantIsError: true, wantText: "version"},
	}
}

// testSDKClient runs sdk-client.mjs with spec (the transport) and
// sdkCases, then checks what the TypeScript SDK's Client saw.
func testSDKClient(t *testing.T, clients clientInstall, spec map[string]any, version string) {
	cases := sdkCases(version)
	var calls []map[string]any
	for _, c := range cases {
		calls = append(calls, map[string]any{"name": c.name, "tool": c.tool, "arguments": c.args})
	}
	spec["calls"] = calls
	specFile := filepath.Join(t.TempDir(), "spec.json")
	data, _ := json.Marshal(spec)
	if err := os.WriteFile(specFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// Node resolves the script's imports from its own directory, so it
	// runs from inside the install.
	src, err := os.ReadFile(filepath.Join(clientsDir, "sdk-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.CreateTemp(clients.dir, "sdk-client-*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(script.Name())
	if _, err := script.Write(src); err != nil {
		t.Fatal(err)
	}
	script.Close()

	var stdout, stderr bytes.Buffer
	cmd := exec.Command("node", script.Name(), specFile)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node sdk-client.mjs: %v\nstderr: %s", err, stderr.Bytes())
	}
	var got sdkOutput
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("sdk-client.mjs printed no JSON: %v\n%s", err, stdout.Bytes())
	}

	if got.Server.Name != "codex7" {
		t.Errorf("server name %q, want codex7", got.Server.Name)
	}
	var names []string
	for _, tool := range got.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema["type"] != "object" || tool.OutputSchema["type"] != "object" {
			t.Errorf("%s: inputSchema type %v, outputSchema type %v; want object and object", tool.Name, tool.InputSchema["type"], tool.OutputSchema["type"])
		}
		if len(tool.SchemaErrors) > 0 {
			t.Errorf("%s: not valid JSON Schema 2020-12:\n%s", tool.Name, strings.Join(tool.SchemaErrors, "\n"))
		}
	}
	slices.Sort(names)
	if want := []string{"get-library-docs", "resolve-library-id"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}

	if len(got.Calls) != len(cases) {
		t.Fatalf("%d calls reported, want %d", len(got.Calls), len(cases))
	}
	for i, c := range cases {
		r := got.Calls[i]
		t.Run(c.name, func(t *testing.T) {
			if r.Error != "" {
				t.Fatalf("%s %v: the client threw %s", c.tool, c.args, r.Error)
			}
			if r.ArgumentsValid == nil {
				t.Fatalf("the client found no inputSchema for %s", c.tool)
			}
			if *r.ArgumentsValid == c.invalidArgs {
				t.Errorf("arguments valid against inputSchema = %v %v, want %v", *r.ArgumentsValid, r.ArgumentsErrors, !c.invalidArgs)
			}
			if r.IsError != c.wantIsError || !strings.Contains(r.Text, c.wantText) {
				t.Errorf("isError %v, text:\n%s\nwant isError %v and text containing %q", r.IsError, r.Text, c.wantIsError, c.wantText)
			}
			if c.check != nil && !r.IsError {
				c.check(t, r.StructuredContent)
			}
		})
	}
}
