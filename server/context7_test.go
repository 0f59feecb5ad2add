package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/context7"
	"github.com/codex7/codex7/context7/context7test"
	"github.com/codex7/codex7/libraries"
)

// connectWith is connect with server options.
func connectWith(t *testing.T, engine Engine, opts ...Option) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(engine, "test", opts...).Connect(ctx, st, nil)
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

// remoteFixture is a fake Context7 with the fixture libraries and two
// more named like the local fixture: one with its very id, which resolve
// must not list twice, and another.
func remoteFixture(t *testing.T) *context7test.Server {
	t.Helper()
	libs := append(context7test.Fixtures(),
		context7test.Library{ID: "/acme/widgets", Title: "Acme Widgets (Context7's copy)"},
		context7test.Library{ID: "/other/widgets-pro", Title: "Widgets Pro", Description: "Widgets, remotely", Versions: []string{"v2.0.0"}},
	)
	return context7test.NewServer(t, libs...)
}

func c7client(fake *context7test.Server, opts context7.Options) *context7.Client {
	opts.BaseURL = fake.BaseURL()
	if opts.APIKey == "" {
		opts.APIKey = context7test.Key
	}
	return context7.New(opts)
}

func TestContext7ToolListed(t *testing.T) {
	fake := remoteFixture(t)
	for name, tc := range map[string]struct {
		opts []Option
		want bool
	}{
		"without a client": {nil, false},
		"nil client":       {[]Option{WithContext7(nil)}, false},
		"with a client":    {[]Option{WithContext7(c7client(fake, context7.Options{}))}, true},
	} {
		t.Run(name, func(t *testing.T) {
			cs := connectWith(t, nil, tc.opts...)
			tools, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "get-context7-docs" })
			if (i >= 0) != tc.want {
				t.Fatalf("get-context7-docs listed: %v, want %v", i >= 0, tc.want)
			}
			if i < 0 {
				return
			}
			tool := tools.Tools[i]
			if !tool.Annotations.ReadOnlyHint || tool.Annotations.OpenWorldHint == nil || !*tool.Annotations.OpenWorldHint {
				t.Errorf("annotations %+v, want read-only and open-world", tool.Annotations)
			}
			for _, w := range []string{"REMOTE", "resolve-library-id", `tool "get-context7-docs"`, "get-library-docs", "libraryId", "topic", "mode", `"info"`, `"code"`, "page", "limit", "tokens", "Examples:"} {
				if !strings.Contains(tool.Description, w) {
					t.Errorf("description lacks %q", w)
				}
			}
			data, _ := json.Marshal(tool.InputSchema)
			var in struct {
				Properties map[string]struct {
					Type        string `json:"type"`
					Description string `json:"description"`
				} `json:"properties"`
			}
			json.Unmarshal(data, &in)
			for _, p := range []string{"libraryId", "topic", "mode", "page", "limit", "tokens", "context7CompatibleLibraryID", "query"} {
				if in.Properties[p].Description == "" {
					t.Errorf("input %s has no description: %s", p, data)
				}
			}
			if in.Properties["page"].Type != "integer" || in.Properties["limit"].Type != "integer" {
				t.Errorf("page and limit are %q and %q, want integer", in.Properties["page"].Type, in.Properties["limit"].Type)
			}
		})
	}
}

func TestGetContext7Docs(t *testing.T) {
	fake := remoteFixture(t)
	cs := connectWith(t, fixtureEngine(t), WithContext7(c7client(fake, context7.Options{})))
	var out Context7Output
	text, isErr := call(t, cs, "get-context7-docs", map[string]any{"libraryId": "/vercel/next.js", "topic": "routing"}, &out)
	if isErr {
		t.Fatalf("error: %s", text)
	}
	if out.LibraryID != "/vercel/next.js" || out.Mode != "info" || out.Topic != "routing" || len(out.Snippets) != 1 || out.Snippets[0].Title != "Routing > Overview" || out.Tokens == 0 {
		t.Errorf("out = %+v", out)
	}
	if !strings.Contains(text, "### Routing > Overview") || !strings.Contains(text, "file-system routing") {
		t.Errorf("text:\n%s", text)
	}
	if q := fake.Last().URL.Query(); q.Get("libraryId") != "/vercel/next.js" || q.Get("query") != "routing" {
		t.Errorf("sent %s", fake.Last().URL)
	}

	// Context7's names, numbers as strings, and the code mode.
	text, isErr = call(t, cs, "get-context7-docs", map[string]any{"context7CompatibleLibraryID": "vercel/next.js", "query": "routing PPR", "mode": "code", "page": "2", "limit": 1}, &out)
	if isErr || out.Page != 2 || out.Pages != 2 || len(out.Snippets) != 1 || out.Snippets[0].Title != "Enable PPR" || !strings.Contains(text, "```js") {
		t.Errorf("aliases: %v %+v\n%s", isErr, out, text)
	}
	// A mode without snippets suggests the other.
	if text, isErr := call(t, cs, "get-context7-docs", map[string]any{"libraryId": "/acme/prose", "mode": "code"}, nil); isErr || !strings.Contains(text, "Try mode='info'.") {
		t.Errorf("no code: %v %q", isErr, text)
	}

	n := fake.Count()
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"topic": "routing"}, "libraryId is required"},
		{map[string]any{"libraryId": "/vercel/next.js", "mode": "poetry"}, `use "info" (guides and explanations, the default) or "code"`},
		{map[string]any{"libraryId": "/vercel/next.js", "page": "two"}, `page must be a whole number, got "two"`},
		{map[string]any{"libraryId": "/vercel/next.js", "limit": 2.5}, "limit must be a whole number, got 2.5"},
		{map[string]any{"libraryId": "/vercel/next.js", "limit": true}, "limit must be a whole number, got true"},
		{map[string]any{"libraryId": "/vercel/next.js", "version": "1"}, `unknown field "version"`},
		{map[string]any{"libraryId": "a/b/c/d"}, "invalid library id"},
		// A library indexed here: the get-library-docs call to make.
		{map[string]any{"libraryId": "/acme/widgets", "topic": "polling", "mode": "code", "tokens": 900}, `/acme/widgets is indexed on this server, with its topic tree and documents: call get-library-docs instead, with {"libraryId":"/acme/widgets","customQuery":"polling","mode":"code","tokens":900}`},
		{map[string]any{"libraryId": "/acme/widgets/main"}, `call get-library-docs instead, with {"libraryId":"/acme/widgets@main"}`},
		{map[string]any{"libraryId": "widgets", "topic": "polling"}, `{"libraryId":"/acme/widgets","customQuery":"polling"}`},
	} {
		if text, isErr := call(t, cs, "get-context7-docs", tc.args, nil); !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%v: isError %v, %q; want %q", tc.args, isErr, text, tc.want)
		}
	}
	if fake.Count() != n {
		t.Errorf("%d requests reached Context7 for refused or local calls, want none", fake.Count()-n)
	}

	// Context7's errors come back as clear messages.
	if text, isErr := call(t, cs, "get-context7-docs", map[string]any{"libraryId": "/nobody/nothing"}, nil); !isErr || !strings.Contains(text, "HTTP 404") || !strings.Contains(text, "call resolve-library-id first") {
		t.Errorf("404: %v %q", isErr, text)
	}
	fake.Override(func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Retry-After", "30")
		w.Header().Set("RateLimit-Limit", "1000")
		w.Header().Set("RateLimit-Remaining", "0")
		context7test.APIError(w, 429, "Too many requests", "")
		return true
	})
	text, isErr = call(t, cs, "get-context7-docs", map[string]any{"libraryId": "/vercel/next.js"}, nil)
	if !isErr || !strings.Contains(text, "HTTP 429") || !strings.Contains(text, "retry after 30s") || !strings.Contains(text, "remaining 0 of 1000") {
		t.Errorf("429: %v %q", isErr, text)
	}
	fake.Override(nil)
	if strings.Contains(text, context7test.Key) {
		t.Error("the key is in an answer")
	}
}

func TestGetContext7DocsWithoutKeyOrTimeout(t *testing.T) {
	fake := remoteFixture(t)
	cs := connectWith(t, nil, WithContext7(context7.New(context7.Options{BaseURL: fake.BaseURL()})))
	text, isErr := call(t, cs, "get-context7-docs", map[string]any{"libraryId": "/vercel/next.js", "topic": "routing"}, nil)
	if !isErr || text != "[Context7 API key not configured]" || fake.Count() != 0 {
		t.Errorf("without a key: %v %q, %d requests", isErr, text, fake.Count())
	}

	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	fake.Override(func(w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return true
	})
	cs = connectWith(t, nil, WithContext7(c7client(fake, context7.Options{Timeout: 50 * time.Millisecond})))
	text, isErr = call(t, cs, "get-context7-docs", map[string]any{"libraryId": "/vercel/next.js"}, nil)
	if !isErr || !strings.Contains(text, "no answer from Context7 within 50ms") {
		t.Errorf("timeout: %v %q", isErr, text)
	}
}

func TestGetLibraryDocsPointsToContext7(t *testing.T) {
	fake := remoteFixture(t)
	engine := fixtureEngine(t)
	cs := connectWith(t, engine, WithContext7(c7client(fake, context7.Options{})))
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"libraryId": "/vercel/next.js", "customQuery": "routing"}, `call get-context7-docs with {"libraryId":"/vercel/next.js","topic":"routing"}`},
		{map[string]any{"libraryId": "vercel/next.js@v15.1.8", "topics": []string{"routing", "middleware"}, "mode": "code", "tokens": 3000}, `{"libraryId":"/vercel/next.js/v15.1.8","topic":"routing middleware","mode":"code","tokens":3000}`},
		{map[string]any{"libraryId": "/acme/widgetz", "customQuery": "x"}, "closest: /acme/widgets"},
	} {
		text, isErr := call(t, cs, "get-library-docs", tc.args, nil)
		if !isErr || !strings.Contains(text, tc.want) || !strings.Contains(text, "not indexed on this server") {
			t.Errorf("%v: %v %q; want %q", tc.args, isErr, text, tc.want)
		}
	}
	if fake.Count() != 0 {
		t.Error("get-library-docs called Context7")
	}
	// Without a key, get-library-docs says what it always said.
	cs = connectWith(t, engine, WithContext7(context7.New(context7.Options{BaseURL: fake.BaseURL()})))
	if text, _ := call(t, cs, "get-library-docs", map[string]any{"libraryId": "/vercel/next.js", "customQuery": "routing"}, nil); strings.Contains(text, "get-context7-docs") || !strings.Contains(text, "Call resolve-library-id") {
		t.Errorf("without a key: %q", text)
	}
}

func TestResolveMergesRemote(t *testing.T) {
	fake := remoteFixture(t)
	engine := fixtureEngine(t)
	cs := connectWith(t, engine, WithContext7(c7client(fake, context7.Options{})))
	schema := outputSchema(t, cs, "resolve-library-id")

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "resolve-library-id", Arguments: map[string]any{"libraryName": "widgets", "query": "polling"}})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var v any
	json.Unmarshal(raw, &v)
	if err := schema.Validate(v); err != nil {
		t.Errorf("output does not match its schema: %v\n%s", err, raw)
	}
	var out struct {
		Note    string           `json:"note"`
		Matches []map[string]any `json:"matches"`
	}
	json.Unmarshal(raw, &out)
	if len(out.Matches) != 2 {
		t.Fatalf("matches %v, want the local /acme/widgets then the remote /other/widgets-pro", out.Matches)
	}
	local, remote := out.Matches[0], out.Matches[1]
	if local["id"] != "/acme/widgets" || local["source"] != "local" || local["tool"] != "get-library-docs" {
		t.Errorf("first match %v", local)
	}
	if _, ok := local["topics"]; ok {
		t.Errorf("a local match at detail summary has topics: %v", local)
	}
	if remote["id"] != "/other/widgets-pro" || remote["source"] != "remote" || remote["tool"] != "get-context7-docs" || remote["match"] != "remote" {
		t.Errorf("remote match %v", remote)
	}
	if tp, ok := remote["topics"]; !ok || tp != nil {
		t.Errorf("remote topics %v (present %v), want null", tp, ok)
	}
	if d, ok := remote["documents"]; !ok || d != nil {
		t.Errorf("remote documents %v (present %v), want null", d, ok)
	}
	if rel := remote["relevance"].(float64); rel >= local["relevance"].(float64) || rel <= 0 {
		t.Errorf("remote relevance %v, want below the local %v", rel, local["relevance"])
	}
	if q := fake.Last().URL.Query(); q.Get("libraryName") != "widgets" || q.Get("query") != "polling" {
		t.Errorf("sent %s", fake.Last().URL)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, `source: remote (Context7); call get-context7-docs with libraryId "/other/widgets-pro"`) || !strings.Contains(text, "/other/widgets-pro/v2.0.0") {
		t.Errorf("text:\n%s", text)
	}

	var ro ResolveOutput
	text, _ = call(t, cs, "resolve-library-id", map[string]any{"libraryName": "next.js"}, &ro)
	if len(ro.Matches) != 1 || ro.Matches[0].ID != "/vercel/next.js" || ro.Matches[0].Relevance != 1 || !strings.Contains(ro.Note, "come from Context7") {
		t.Errorf("remote only: %+v\n%s", ro, text)
	}
	call(t, cs, "resolve-library-id", map[string]any{"libraryName": "nothing-like-it"}, &ro)
	if len(ro.Matches) != 0 || !strings.Contains(ro.Note, "No library here or on Context7 matches") {
		t.Errorf("no match: %+v", ro)
	}
	call(t, cs, "resolve-library-id", map[string]any{"libraryName": "dashboard"}, &ro)
	if len(ro.Matches) != 1 || ro.Matches[0].Match != libraries.MatchText || !strings.Contains(ro.Note, `No library named "dashboard" is indexed here or on Context7`) {
		t.Errorf("text match only: %+v", ro)
	}
	// maxResults bounds the whole answer, local matches first.
	call(t, cs, "resolve-library-id", map[string]any{"libraryName": "acme", "maxResults": 1}, &ro)
	if len(ro.Matches) != 1 || ro.Matches[0].Source != "local" {
		t.Errorf("maxResults 1: %+v", ro.Matches)
	}
	call(t, cs, "resolve-library-id", map[string]any{"libraryName": "acme", "maxResults": 2}, &ro)
	if len(ro.Matches) != 2 || ro.Matches[0].Source != "local" || ro.Matches[1].Source != "remote" {
		t.Errorf("maxResults 2: %+v", ro.Matches)
	}
}

func TestResolveRemoteFailure(t *testing.T) {
	fake := remoteFixture(t)
	engine := fixtureEngine(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	for name, tc := range map[string]struct {
		fail     func(w http.ResponseWriter, r *http.Request) bool
		timeout  time.Duration
		wantNote string
	}{
		"500": {func(w http.ResponseWriter, r *http.Request) bool {
			context7test.APIError(w, 500, "internal_server_error", "boom")
			return true
		}, 0, "Context7 could not be searched (HTTP 500: boom. Context7 failed: try again later): only libraries indexed here are listed."},
		"timeout": {func(w http.ResponseWriter, r *http.Request) bool {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return true
		}, 50 * time.Millisecond, "Context7 could not be searched (no answer in time): only libraries indexed here are listed."},
		"401": {func(w http.ResponseWriter, r *http.Request) bool {
			context7test.APIError(w, 401, "invalid_api_key", "Invalid or expired API key")
			return true
		}, 0, "Context7 could not be searched (the API key was refused)"},
	} {
		t.Run(name, func(t *testing.T) {
			fake.Override(tc.fail)
			t.Cleanup(func() { fake.Override(nil) })
			cs := connectWith(t, engine, WithContext7(c7client(fake, context7.Options{Timeout: tc.timeout})))
			var out ResolveOutput
			text, isErr := call(t, cs, "resolve-library-id", map[string]any{"libraryName": "widgets"}, &out)
			if isErr || len(out.Matches) != 1 || out.Matches[0].ID != "/acme/widgets" || out.Matches[0].Source != "local" {
				t.Fatalf("%v %+v\n%s", isErr, out, text)
			}
			if !strings.Contains(out.Note, tc.wantNote) || strings.Count(out.Note, "\n") > 0 {
				t.Errorf("note %q, want one line with %q", out.Note, tc.wantNote)
			}
			call(t, cs, "resolve-library-id", map[string]any{"libraryName": "next.js"}, &out)
			if len(out.Matches) != 0 || !strings.Contains(out.Note, `No library here matches "next.js", and Context7 could not be searched`) {
				t.Errorf("nothing local: %+v", out)
			}
		})
	}
}

func TestResolveWithoutKeyStaysLocal(t *testing.T) {
	fake := remoteFixture(t)
	cs := connectWith(t, fixtureEngine(t), WithContext7(context7.New(context7.Options{BaseURL: fake.BaseURL()})))
	var out ResolveOutput
	text, _ := call(t, cs, "resolve-library-id", map[string]any{"libraryName": "next.js"}, &out)
	if len(out.Matches) != 0 || !strings.Contains(text, "Only locally indexed libraries") || fake.Count() != 0 {
		t.Errorf("%+v %q, %d requests", out, text, fake.Count())
	}
}

func TestHTTPServesContext7(t *testing.T) {
	fake := remoteFixture(t)
	ts := httptest.NewServer(Handler(fixtureEngine(t), "test", slog.New(slog.NewTextHandler(io.Discard, nil)), HTTPOptions{Context7: c7client(fake, context7.Options{})}))
	defer ts.Close()
	hc, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	var out Context7Output
	if text, isErr := call(t, hc, "get-context7-docs", map[string]any{"libraryId": "/facebook/react", "topic": "hooks", "mode": "code"}, &out); isErr || len(out.Snippets) != 1 {
		t.Errorf("over HTTP: %v %q", isErr, text)
	}
}

// outputSchema returns a tool's published output schema, resolved.
func outputSchema(t *testing.T, cs *mcp.ClientSession, tool string) *jsonschema.Resolved {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name != tool {
			continue
		}
		data, _ := json.Marshal(tl.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	t.Fatalf("%s not listed", tool)
	return nil
}

func TestContext7OutputMatchesSchema(t *testing.T) {
	fake := remoteFixture(t)
	cs := connectWith(t, nil, WithContext7(c7client(fake, context7.Options{})))
	schema := outputSchema(t, cs, "get-context7-docs")
	for _, args := range []map[string]any{
		{"libraryId": "/vercel/next.js", "topic": "routing"},
		{"libraryId": "/acme/prose", "mode": "code"},
		{"libraryId": "/acme/big", "topic": "budgets", "tokens": 300},
		{"libraryId": "next.js"},
		{"libraryId": "/acme/many", "topic": "t", "page": 99, "limit": 1},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get-context7-docs", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%v: %v %+v", args, err, res)
		}
		data, _ := json.Marshal(res.StructuredContent)
		var v any
		json.Unmarshal(data, &v)
		if err := schema.Validate(v); err != nil {
			t.Errorf("%v: output does not match its schema: %v\n%s", args, err, data)
		}
		if strings.Contains(string(data), "run()") || strings.Contains(string(data), "words fill") {
			t.Errorf("%v: the structured output carries the snippets' text", args)
		}
	}
}

// TestGetContext7DocsLocalLibraryUnbuiltVersion: a library indexed here,
// asked of get-context7-docs at a version that is not built, is still a
// local library. The answer must say so (with the versions built), and
// its id must not be sent to Context7: it may be a private library.
func TestGetContext7DocsLocalLibraryUnbuiltVersion(t *testing.T) {
	fake := remoteFixture(t)
	cs := connectWith(t, fixtureEngine(t), WithContext7(c7client(fake, context7.Options{})))
	for _, id := range []string{"/acme/widgets/v9.9.9", "/acme/widgets@v9.9.9"} {
		n := fake.Count()
		text, isErr := call(t, cs, "get-context7-docs", map[string]any{"libraryId": id, "topic": "polling"}, nil)
		if fake.Count() != n {
			t.Errorf("%s: %d requests sent to Context7 (last %s) for a library indexed here", id, fake.Count()-n, fake.Last().URL)
		}
		if !isErr || !strings.Contains(text, "v1.0.0") || !strings.Contains(text, "get-library-docs") {
			t.Errorf("%s: isError %v, %q; want the versions built here and get-library-docs", id, isErr, text)
		}
	}
}
