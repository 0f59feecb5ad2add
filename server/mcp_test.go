package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/codex7/codex7/tokens"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/search"
)

// fixtureEngine builds the fixture widgets library at v1.0.0 and main and
// opens an engine on the artifacts.
func fixtureEngine(t *testing.T) *search.Engine {
	t.Helper()
	w := gittest.New(t, "main")
	w.CopyDir("../fixtures/docs/acme-widgets", "")
	w.Commit("docs")
	w.Git("tag", "v1.0.0")
	src := "libraries:\n  - id: /acme/widgets\n    title: Acme Widgets\n    aliases: [widgets]\n    description: Dashboard widgets\n    repo: " + w.Dir + "\n    versions: [{ref: v1.0.0}, {ref: main}]\n"
	out := t.TempDir()
	buildtest.Build(t, out, src)
	engine, err := search.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })
	return engine
}

// connect serves engine and returns a real MCP client session over the
// SDK's in-memory transports.
func connect(t *testing.T, engine Engine) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(engine, "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) (text string, isError bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if out != nil {
		// Decode into a zero value: json.Unmarshal keeps fields a previous
		// call set that this answer omits.
		v := reflect.ValueOf(out).Elem()
		v.Set(reflect.Zero(v.Type()))
	}
	if out != nil && !res.IsError {
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatal(err)
		}
	}
	return text, res.IsError
}

func TestTools(t *testing.T) {
	cs := connect(t, fixtureEngine(t))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*mcp.Tool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = tool
	}
	for _, n := range []string{"resolve-library-id", "get-library-docs"} {
		tool := names[n]
		if tool == nil || !tool.Annotations.ReadOnlyHint || tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %s = %+v, want read-only with a description and an input schema", n, tool)
		}
	}
}

func TestResolveLibraryID(t *testing.T) {
	cs := connect(t, fixtureEngine(t))
	var out ResolveOutput
	text, isErr := call(t, cs, "resolve-library-id", map[string]any{"libraryName": "widgets"}, &out)
	if isErr || len(out.Matches) != 1 {
		t.Fatalf("resolve: %v %q %+v", isErr, text, out)
	}
	m := out.Matches[0]
	if m.ID != "/acme/widgets" || m.Source != "local" || m.Tool != "get-library-docs" || m.Relevance != 1 || m.Latest != "v1.0.0" || len(m.Versions) != 2 {
		t.Errorf("match = %+v", m)
	}
	if !strings.Contains(text, "call get-library-docs") {
		t.Errorf("text %q does not say which tool to call", text)
	}
	text, _ = call(t, cs, "resolve-library-id", map[string]any{"libraryName": "kubernetes"}, &out)
	if len(out.Matches) != 0 || !strings.Contains(text, "Only locally indexed libraries") {
		t.Errorf("unknown name: %q %+v", text, out)
	}
	if text, isErr := call(t, cs, "resolve-library-id", map[string]any{"libraryName": " "}, nil); !isErr || !strings.Contains(text, "libraryName is required") {
		t.Errorf("blank name: %v %q", isErr, text)
	}
}

func TestGetLibraryDocs(t *testing.T) {
	cs := connect(t, fixtureEngine(t))
	var out DocsOutput
	text, isErr := call(t, cs, "get-library-docs", map[string]any{"libraryId": "/acme/widgets@main", "customQuery": "stop polling destroy a widget", "tokens": 600}, &out)
	if isErr {
		t.Fatalf("error: %s", text)
	}
	if out.Version != "main" || len(out.Commit) != 40 || len(out.Sections) == 0 {
		t.Fatalf("out = %+v", out)
	}
	s := out.Sections[0]
	if s.Path != "docs/api/create-widget.md" || s.Anchor != "widgetdestroy" || s.Library != "/acme/widgets" {
		t.Errorf("first section = %+v", s)
	}
	// The budget covers what the agent reads, head and foot included.
	if n := tokens.Count(text); n > 600 || out.Tokens != n {
		t.Errorf("the text is %d tokens (the answer says %d) for a budget of 600", n, out.Tokens)
	}
	if !strings.Contains(text, "# /acme/widgets@main (commit "+out.Commit[:12]+")") || !strings.Contains(text, "Source: docs/api/create-widget.md#widgetdestroy") || !strings.Contains(text, "w.destroy()") {
		t.Errorf("text lacks provenance or content:\n%s", text)
	}
	for _, s := range out.Sections {
		if s.Text != "" {
			t.Errorf("structured section %s#%s carries its text, which is in the text content", s.Path, s.Anchor)
		}
	}

	// Context7's parameter names work as aliases; tiny budgets are raised.
	text, isErr = call(t, cs, "get-library-docs", map[string]any{"context7CompatibleLibraryID": "acme/widgets", "topic": "environment variables", "tokens": 10}, &out)
	if isErr || out.Version != "v1.0.0" || !strings.Contains(text, "raised to the minimum of 200") || len(out.Sections) == 0 {
		t.Errorf("aliases: %v %q %+v", isErr, text, out)
	}

	// mode: code keeps sections with code; an empty mode suggests the other.
	if _, isErr := call(t, cs, "get-library-docs", map[string]any{"libraryId": "/acme/widgets", "customQuery": "environment variables theme", "mode": "code"}, &out); isErr {
		t.Fatal("mode code failed")
	}
	for _, s := range out.Sections {
		if s.Path == "docs/getting-started/installation.md" && s.Anchor == "environment-variables" {
			t.Error("mode code returned a prose-only section")
		}
	}
	// "esbuild" is only in a prose list: info finds it, code does not and
	// says to try info.
	if _, _ = call(t, cs, "get-library-docs", map[string]any{"libraryId": "/acme/widgets", "customQuery": "esbuild bundler", "mode": "info"}, &out); len(out.Sections) != 1 {
		t.Errorf("mode info: %d sections, want the Requirements section", len(out.Sections))
	}
	if text, _ := call(t, cs, "get-library-docs", map[string]any{"libraryId": "/acme/widgets", "customQuery": "esbuild bundler", "mode": "code"}, &out); len(out.Sections) != 0 || !strings.Contains(text, "Try mode='info'") {
		t.Errorf("mode code: %d sections, %q; want none and a suggestion to try info", len(out.Sections), text)
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"libraryId": "/acme/widgets", "customQuery": "x", "mode": "poetry"}, `use "info"`},
		{map[string]any{"customQuery": "x"}, "call resolve-library-id first"},
		{map[string]any{"libraryId": "/acme/nope", "customQuery": "x"}, "Call resolve-library-id"},
		{map[string]any{"libraryId": "/acme/widgets@v9", "customQuery": "x"}, "built versions: main, v1.0.0"},
		{map[string]any{"libraryId": "/acme/widgets", "topics": []string{"astrology"}}, "this version has:"},
	} {
		if text, isErr := call(t, cs, "get-library-docs", tc.args, nil); !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%v: isError %v, %q; want %q", tc.args, isErr, text, tc.want)
		}
	}
}

// TestDocsWithoutQuery: get-library-docs with no question, as agents call
// Context7's, answers with the library's overview, as the Context7 API
// does without a topic; empty topics stay an error.
func TestDocsWithoutQuery(t *testing.T) {
	cs := connect(t, fixtureEngine(t))
	text, isErr := call(t, cs, "get-library-docs", map[string]any{"libraryId": "/acme/widgets"}, nil)
	if isErr || !strings.Contains(text, "Source: ") {
		t.Errorf("no customQuery: isError %v, %q; want the overview's sections", isErr, text)
	}
	if text, isErr := call(t, cs, "get-library-docs", map[string]any{"libraryId": "/acme/widgets", "topics": []string{""}}, nil); !isErr || !strings.Contains(text, "give customQuery") {
		t.Errorf("empty topic: isError %v, %q; want the error", isErr, text)
	}
}

func TestHTTP(t *testing.T) {
	engine := fixtureEngine(t)
	ts := httptest.NewServer(Handler(engine, "test", slog.New(slog.DiscardHandler), HTTPOptions{}))
	defer ts.Close()
	for path, want := range map[string]string{"/healthz": "ok", "/readyz": "ready: 1 libraries, 2 versions"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d %q, want %q", path, resp.StatusCode, body, want)
		}
	}
	ctx := context.Background()
	hc, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	var out ResolveOutput
	if text, isErr := call(t, hc, "resolve-library-id", map[string]any{"libraryName": "acme widgets"}, &out); isErr || len(out.Matches) == 0 || out.Matches[0].ID != "/acme/widgets" {
		t.Errorf("over HTTP: %v %q %+v", isErr, text, out)
	}
	// A browser page on another origin, and a DNS-rebinding Host header on
	// a loopback connection, are refused.
	for name, set := range map[string]func(*http.Request){
		"cross-origin": func(r *http.Request) {
			r.Header.Set("Origin", "https://evil.example")
			r.Header.Set("Sec-Fetch-Site", "cross-site")
		},
		"rebinding": func(r *http.Request) { r.Host = "evil.example:80" },
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		set(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", name, resp.StatusCode)
		}
	}
	// A body over the limit is refused, not read.
	resp, err := http.Post(ts.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`+strings.Repeat("a", 2<<20)+`"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 || resp.StatusCode >= 500 {
		t.Errorf("oversized body: status %d, want a 4xx", resp.StatusCode)
	}
}

func TestListenAndServeShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- ListenAndServe(ctx, "127.0.0.1:0", http.NotFoundHandler(), slog.New(slog.DiscardHandler), func(a net.Addr) { addrc <- a })
	}()
	addr := <-addrc
	if resp, err := http.Get("http://" + addr.String() + "/"); err != nil || resp.StatusCode != 404 {
		t.Fatalf("server not answering: %v", err)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("shutdown error: %v", err)
	}
}

func TestGetLibraryDocsPath(t *testing.T) {
	cs := connect(t, fixtureEngine(t))
	var out DocsOutput
	text, isErr := call(t, cs, "get-library-docs", map[string]any{"libraryId": "/acme/widgets", "path": "docs/guides/data-sources.md", "tokens": 500}, &out)
	if isErr || out.Page != 1 || out.Pages < 1 || !strings.Contains(text, "# Data sources") || !strings.Contains(text, "## Polling") {
		t.Fatalf("document page 1: %v %+v\n%s", isErr, out, text)
	}
	var all []string
	for page := 1; page <= out.Pages; page++ {
		var o DocsOutput
		call(t, cs, "get-library-docs", map[string]any{"libraryId": "/acme/widgets", "path": "docs/guides/data-sources.md", "tokens": 500, "page": page}, &o)
		for _, s := range o.Sections {
			if len(all) == 0 || all[len(all)-1] != s.Anchor { // a section continued across pages
				all = append(all, s.Anchor)
			}
		}
	}
	if strings.Join(all, ",") != "data-sources,polling,example,streaming,example-1,error-handling" {
		t.Errorf("pages together hold %v, want every section once, in order", all)
	}
	text, isErr = call(t, cs, "get-library-docs", map[string]any{"libraryId": "/acme/widgets", "path": "docs/api"}, &out)
	if isErr || len(out.Documents) != 1 || out.Documents[0].Path != "docs/api/create-widget.md" || !strings.Contains(text, "createWidget") {
		t.Errorf("folder: %v %q %+v", isErr, text, out)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"libraryId": "/acme/widgets", "path": "../../etc/passwd"}, "may not contain"},
		{map[string]any{"libraryId": "/acme/widgets", "path": "/etc/passwd"}, `document not found: "etc/passwd"`},
		{map[string]any{"libraryId": "/acme/widgets", "path": `\\server\x.md`}, "relative to the repository root"},
		{map[string]any{"libraryId": "/acme/widgets", "path": "docs/nope.md"}, "document not found"},
		{map[string]any{"libraryId": "/acme/widgets", "path": "README.md", "page": 99}, "page 99 of README.md"},
	} {
		if text, isErr := call(t, cs, "get-library-docs", tc.args, nil); !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%v: isError %v, %q; want %q", tc.args, isErr, text, tc.want)
		}
	}
}
