package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/context7"
	"github.com/codex7/codex7/context7/context7test"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/search"
)

// canary is written where a path that escapes the library would lead: in
// the library's repository outside its documentation, in the artifact
// directory, and beside it. No answer may ever contain it.
const canary = "CANARY-7f3a: this file must never be served"

// hostileTarget is a served Codex7 for the hostile tests.
type hostileTarget struct {
	url  string
	fake *context7test.Server // the Context7 behind get-context7-docs
}

// hostileServer builds the fixture widgets library (with a file excluded
// from its documentation and symlinks out of the tree in its repository)
// and serves it through Handler with the limits ListenAndServe gives its
// http.Server, and with get-context7-docs answered by a fake Context7.
func hostileServer(t *testing.T) *hostileTarget {
	t.Helper()
	engine, fake := hostileEngine(t)
	return &hostileTarget{url: serveHardened(t, engine, fake, HTTPOptions{}), fake: fake}
}

// serveHardened serves engine through Handler, with get-context7-docs
// answered by fake, behind the http.Server ListenAndServe runs, and
// returns its URL.
func serveHardened(t *testing.T, engine Engine, fake *context7test.Server, opts HTTPOptions) string {
	t.Helper()
	opts.Context7 = c7client(fake, context7.Options{})
	h := Handler(engine, "test", slog.New(slog.DiscardHandler), opts)
	ts := httptest.NewUnstartedServer(h)
	ts.Config = newHTTPServer(h, slog.New(slog.DiscardHandler))
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL
}

// hostileEngine builds and opens the hostile tests' library and starts the
// fake Context7 behind it.
func hostileEngine(t *testing.T) (*search.Engine, *context7test.Server) {
	t.Helper()
	w := gittest.New(t, "main")
	w.CopyDir("../fixtures/docs/acme-widgets", "")
	w.Write(map[string]string{"private/secret.md": "# Secret\n\n" + canary + "\n"})
	for link, target := range map[string]string{"docs/passwd.md": "/etc/passwd", "docs/up.md": "../../secret.md"} {
		if err := os.Symlink(target, filepath.Join(w.Dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	w.Commit("docs")
	w.Git("tag", "v1.0.0")
	base := t.TempDir()
	out := filepath.Join(base, "artifacts")
	buildtest.Build(t, out, "libraries:\n  - id: /acme/widgets\n    title: Acme Widgets\n    aliases: [widgets]\n    description: Dashboard widgets\n    repo: "+w.Dir+
		"\n    versions: [{ref: v1.0.0}, {ref: main}]\n    exclude: [\"private/**\"]\n")
	for _, p := range []string{filepath.Join(base, "secret.md"), filepath.Join(out, "secret.md"), filepath.Join(out, "acme", "secret.md")} {
		if err := os.WriteFile(p, []byte(canary+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	engine, err := search.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })
	return engine, remoteFixture(t)
}

// Outcomes of a hostile request. None is a 5xx, a JSON-RPC internal
// error, a hang or a crash.
const (
	// toolError is a tool result with isError and a message.
	toolError = "tool error"
	// answered is a normal answer: the input was within what the tool
	// takes, or clamped with a note saying so.
	answered = "answer"
	// rpcError is a JSON-RPC error other than an internal one, for a
	// request that names no tool or whose params are not an object: the
	// SDK refuses it before any tool runs.
	rpcError = "JSON-RPC error"
	// refused is an HTTP 4xx with a message.
	refused = "HTTP 4xx"
)

// maxHostileAnswer bounds every answer to a hostile request, whatever its
// size: nothing it sends is repeated back at length (the fixture's normal
// answers are about 2.5 KB).
const maxHostileAnswer = 8 << 10

// mcpCase is one hostile request to /mcp: a tool call the SDK's client
// sends (tool and args), or a body posted as it is (raw), with method,
// Content-Type and Accept for raw requests ("" for the usual).
type mcpCase struct {
	name        string
	tool        string
	args        any
	raw         string
	method      string
	contentType string
	noAccept    bool
	want        string // toolError, answered, rpcError or refused
	status      int    // for refused: the status wanted
	says        string // a part of the message or answer
	// echoes marks what the SDK answers before any of Codex7's code runs,
	// quoting the request's id, method or undecodable params whole (the
	// id JSON-RPC requires): the answer is then bounded by the request's
	// size, which the 1 MiB body limit bounds, rather than by
	// maxHostileAnswer.
	echoes bool
}

// mcpResult is what a hostile request got.
type mcpResult struct {
	outcome string
	status  int
	text    string // the tool's text, the JSON-RPC error's message or the HTTP body
	bytes   int64  // the response body's size
}

// countingTransport records the status and body size of the last POST.
type countingTransport struct {
	status, bytes atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost {
		return resp, err
	}
	c.status.Store(int64(resp.StatusCode))
	c.bytes.Store(0)
	resp.Body = &countingBody{resp.Body, &c.bytes}
	return resp, nil
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// sdkCall calls a tool through the SDK's streamable HTTP client.
func sdkCall(ctx context.Context, cs *mcp.ClientSession, ct *countingTransport, tool string, args any) mcpResult {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	r := mcpResult{status: int(ct.status.Load()), bytes: ct.bytes.Load()}
	if err != nil {
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			r.outcome, r.text = rpcError, err.Error()
			if we.Code == jsonrpc.CodeInternalError {
				r.outcome = "JSON-RPC internal error"
			}
		} else {
			r.outcome, r.text = "client error", err.Error()
		}
		return r
	}
	r.outcome = answered
	if res.IsError {
		r.outcome = toolError
	}
	r.text = toolText(res)
	return r
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// rawPost sends body to /mcp as c says (see postMCP) and reads the
// answer: the tool result or JSON-RPC error in an SSE or JSON body, or the
// text of an HTTP error.
func rawPost(ctx context.Context, t *testing.T, url string, c mcpCase) mcpResult {
	t.Helper()
	a := postMCPWith(ctx, t, url, "2025-06-18", c, nil)
	r := mcpResult{status: a.status, bytes: int64(len(a.body)), text: a.body}
	if a.status >= 400 {
		r.outcome = refused
		return r
	}
	msg := a.data
	var m struct {
		Result *struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		r.outcome = fmt.Sprintf("HTTP %d, no JSON-RPC answer", a.status)
		return r
	}
	switch {
	case m.Error != nil:
		r.outcome, r.text = rpcError, fmt.Sprintf("%d %s", m.Error.Code, m.Error.Message)
		if m.Error.Code == -32603 {
			r.outcome = "JSON-RPC internal error"
		}
	case m.Result != nil:
		r.outcome, r.text = answered, ""
		if m.Result.IsError {
			r.outcome = toolError
		}
		for _, c := range m.Result.Content {
			r.text += c.Text
		}
	default:
		r.outcome = fmt.Sprintf("HTTP %d, empty JSON-RPC answer", a.status)
	}
	return r
}

// toolCall is a raw tools/call request with arguments as written.
func toolCall(tool, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// words returns n distinct words separated by spaces.
func words(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("w%d", i)
	}
	return strings.Join(ws, " ")
}

// repeatList returns n JSON strings of s and a number, as array items.
func repeatList(n int, s string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", s, i)
	}
	return out
}

// nested returns v inside n arrays.
func nested(n int, v any) any {
	for range n {
		v = []any{v}
	}
	return v
}

// hostileMCPCases are the requests of TestHostileMCP. docs is
// get-library-docs' libraryId.
func hostileMCPCases() []mcpCase {
	const docs, resolve, c7 = "get-library-docs", "resolve-library-id", "get-context7-docs"
	lib := func(kv ...any) map[string]any {
		m := map[string]any{"libraryId": "/acme/widgets"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	react := func(kv ...any) map[string]any {
		m := lib(kv...)
		if _, ok := m["libraryId"].(string); ok && m["libraryId"] == "/acme/widgets" {
			m["libraryId"] = "/facebook/react"
		}
		return m
	}
	big := strings.Repeat("a", 900<<10)
	return []mcpCase{
		// Path traversal: a path only ever names a document of the
		// artifact; it never reaches a file system.
		{name: "path ../../../etc/passwd", tool: docs, args: lib("path", "../../../etc/passwd"), want: toolError, says: `may not contain ".."`},
		{name: "path docs/../../secret.md", tool: docs, args: lib("path", "docs/../../secret.md"), want: toolError, says: `may not contain ".."`},
		{name: "path docs/guides/data-sources.md/../../../../secret.md", tool: docs, args: lib("path", "docs/guides/data-sources.md/../../../../secret.md"), want: toolError, says: `may not contain ".."`},
		// A leading slash is the repository's root (sites' links are
		// absolute): no document there, and nothing of this machine read.
		{name: "path absolute /etc/passwd", tool: docs, args: lib("path", "/etc/passwd"), want: toolError, says: `document not found: "etc/passwd"`},
		{name: "path absolute / with outline", tool: docs, args: lib("path", "/", "outline", true), want: toolError, says: "an outline is of a document"},
		{name: "path file:///etc/passwd", tool: docs, args: lib("path", "file:///etc/passwd"), want: toolError, says: "invalid path"},
		{name: `path C:\Windows\win.ini`, tool: docs, args: lib("path", `C:\Windows\win.ini`), want: toolError, says: "invalid path"},
		{name: `path ..\..\secret.md`, tool: docs, args: lib("path", `..\..\secret.md`), want: toolError, says: "invalid path"},
		{name: `path \\server\share\secret.md`, tool: docs, args: lib("path", `\\server\share\secret.md`), want: toolError, says: "invalid path"},
		{name: "path with NUL", tool: docs, args: lib("path", "docs/guides/data-sources.md\x00.png"), want: toolError, says: "invalid path"},
		{name: "path with ESC", tool: docs, args: lib("path", "docs/\x1b[2J.md"), want: toolError, says: "U+001B (a control character)"},
		{name: "path with a zero-width space", tool: docs, args: lib("path", "docs/guides/data-sources.md\u200b"), want: toolError, says: "U+200B (an invisible character)"},
		// Control and invisible characters in an id, a version or a topic
		// are refused wherever they are, never stripped.
		{name: "library id with NUL at the end", tool: docs, args: lib("libraryId", "/acme/widgets\x00"), want: toolError, says: "U+0000 (a control character)"},
		{name: "library id with a newline at the start", tool: docs, args: lib("libraryId", "\n/acme/widgets"), want: toolError, says: "U+000A (a control character)"},
		{name: "library id with a byte order mark", tool: docs, args: lib("libraryId", "\ufeff/acme/widgets"), want: toolError, says: "U+FEFF (an invisible character)"},
		{name: "version with a bidi override", tool: docs, args: lib("libraryId", "/acme/widgets@v1.0.0\u202e"), want: toolError, says: "U+202E (an invisible character)"},
		{name: "topic with a tab", tool: docs, args: lib("topics", []any{"polling\t"}), want: toolError, says: "U+0009 (a control character)"},
		{name: "path %2e%2e/%2e%2e/secret.md (never decoded)", tool: docs, args: lib("path", "%2e%2e/%2e%2e/secret.md"), want: toolError, says: "document not found"},
		{name: "path docs/..%2f..%2fsecret.md", tool: docs, args: lib("path", "docs/..%2f..%2fsecret.md"), want: toolError, says: "document not found"},
		{name: "path ....//....//secret.md", tool: docs, args: lib("path", "....//....//secret.md"), want: toolError, says: "document not found"},
		{name: "path fullwidth dots ．．/secret.md", tool: docs, args: lib("path", "．．/．．/secret.md"), want: toolError, says: "document not found"},
		{name: "path ~/.ssh/id_rsa", tool: docs, args: lib("path", "~/.ssh/id_rsa"), want: toolError, says: "document not found"},
		{name: "path /proc/self/environ", tool: docs, args: lib("path", "/proc/self/environ"), want: toolError, says: `document not found: "proc/self/environ"`},
		{name: "path private/secret.md (in the repo, not in the docs)", tool: docs, args: lib("path", "private/secret.md"), want: toolError, says: "document not found"},
		{name: "path docs/passwd.md (a symlink to /etc/passwd in the repo)", tool: docs, args: lib("path", "docs/passwd.md"), want: toolError, says: "document not found"},
		{name: "path docs/up.md (a symlink out of the repo)", tool: docs, args: lib("path", "docs/up.md", "outline", true), want: toolError, says: "document not found"},
		{name: "path 2,000 bytes", tool: docs, args: lib("path", strings.Repeat("a/", 1000)), want: toolError, says: "at most 1024"},
		{name: "path 900 KiB", tool: docs, args: lib("path", big), want: toolError, says: "at most 1024"},
		{name: "path 900 KiB absolute", tool: docs, args: lib("path", "/"+big), want: toolError, says: "at most 1024"},

		// Enormous and empty queries.
		{name: "customQuery 900 KiB", tool: docs, args: lib("customQuery", strings.Repeat("polling ", 115000)), want: toolError, says: "at most 4096"},
		{name: "customQuery 100 KiB of one word", tool: docs, args: lib("customQuery", strings.Repeat("a", 100<<10)), want: toolError, says: "at most 4096"},
		{name: "customQuery 10,000 words", tool: docs, args: lib("customQuery", words(10000)), want: toolError, says: "at most 4096"},
		{name: "query (alias) 900 KiB", tool: docs, args: lib("query", big), want: toolError, says: "at most 4096"},
		{name: "customQuery 4,096 bytes of one word", tool: docs, args: lib("customQuery", strings.Repeat("a", 4096)), want: answered, says: "No section"},
		{name: "customQuery 4,096 bytes of 900 words", tool: docs, args: lib("customQuery", words(1000)[:4096]), want: answered},
		{name: "customQuery empty", tool: docs, args: lib("customQuery", ""), want: answered, says: "Source: "},
		{name: "customQuery blanks", tool: docs, args: lib("customQuery", " \t\n "), want: answered, says: "Source: "},
		{name: "customQuery placeholder", tool: docs, args: lib("customQuery", "<relevant topic>"), want: answered, says: "Source: "},
		{name: "customQuery stop words only", tool: docs, args: lib("customQuery", "the of and"), want: answered, says: "No section"},
		{name: "resolve libraryName 900 KiB", tool: resolve, args: map[string]any{"libraryName": big}, want: toolError, says: "at most 200"},
		{name: "resolve libraryName empty", tool: resolve, args: map[string]any{"libraryName": ""}, want: toolError, says: "libraryName is required"},
		{name: "resolve query 900 KiB", tool: resolve, args: map[string]any{"libraryName": "widgets", "query": strings.Repeat("word ", 180000), "detail": "full"}, want: toolError, says: "at most 4096"},
		{name: "resolve query 4,096 bytes", tool: resolve, args: map[string]any{"libraryName": "widgets", "query": words(1000)[:4096], "detail": "full"}, want: answered, says: "/acme/widgets"},
		{name: "resolve detail 900 KiB", tool: resolve, args: map[string]any{"libraryName": "widgets", "detail": big}, want: toolError, says: "invalid detail"},
		{name: "get-context7-docs topic 900 KiB (remote)", tool: c7, args: react("topic", big), want: toolError, says: "at most 4096"},
		{name: "get-context7-docs topic 900 KiB (local library)", tool: c7, args: lib("topic", big), want: toolError, says: "at most 4096"},

		// Thousands of topics, and long ones.
		{name: "topics 10,000", tool: docs, args: lib("topics", repeatList(10000, "t")), want: toolError, says: "at most 100"},
		{name: "topics 100 unknown", tool: docs, args: lib("topics", repeatList(100, "t")), want: toolError, says: "topic not found"},
		{name: "topics 1 of 9,000 bytes", tool: docs, args: lib("topics", []any{strings.Repeat("q", 9000)}), want: toolError, says: "at most 256"},
		{name: "topics 100 of 256 bytes", tool: docs, args: lib("topics", repeatList(100, strings.Repeat("q", 250))), want: toolError, says: "topic not found"},
		{name: "topics 100 of 256 bytes, remote library", tool: docs, args: react("topics", repeatList(100, strings.Repeat("q", 250))), want: toolError, says: "get-context7-docs"},
		{name: "customQuery 4,096 bytes, remote library", tool: docs, args: react("customQuery", strings.Repeat("hooks ", 682)), want: toolError, says: "get-context7-docs"},
		{name: "topics [\"\"]", tool: docs, args: lib("topics", []any{""}), want: toolError, says: "give customQuery"},
		{name: "mode 900 KiB", tool: docs, args: lib("customQuery", "polling", "mode", big), want: toolError, says: "invalid mode"},
		{name: "get-context7-docs mode 900 KiB (local library)", tool: c7, args: lib("mode", big), want: toolError, says: "invalid mode"},

		// tokens and page: read by request.ParseWhole's rule (2, 2.0, 2e0
		// and "2" alike; beyond int32 as the nearest int32); out of range
		// is clamped with a note (tokens) or refused (page); what is not a
		// whole number is refused.
		{name: "tokens -1", tool: docs, args: lib("customQuery", "polling", "tokens", -1), want: answered, says: "raised to the minimum of 200"},
		{name: "tokens 0 (the default)", tool: docs, args: lib("customQuery", "polling", "tokens", 0), want: answered, says: "of 5000 tokens"},
		{name: "tokens 1e18 as an integer", tool: docs, args: lib("customQuery", "polling", "tokens", int64(1e18)), want: answered, says: "lowered to the maximum of 50000"},
		{name: "tokens math.MinInt64", tool: docs, args: lib("customQuery", "polling", "tokens", json.Number("-9223372036854775808")), want: answered, says: "raised to the minimum of 200"},
		{name: "tokens 1e308", tool: docs, args: lib("customQuery", "polling", "tokens", 1e308), want: answered, says: "lowered to the maximum of 50000"},
		{name: "tokens 1e19 (past int64)", tool: docs, args: lib("customQuery", "polling", "tokens", json.Number("10000000000000000000")), want: answered, says: "lowered to the maximum of 50000"},
		{name: "tokens 1.5", tool: docs, args: lib("customQuery", "polling", "tokens", 1.5), want: toolError, says: "tokens"},
		{name: `tokens "NaN"`, tool: docs, args: lib("customQuery", "polling", "tokens", "NaN"), want: toolError, says: `tokens must be a whole number, got "NaN"`},
		{name: `tokens "Infinity"`, tool: docs, args: lib("customQuery", "polling", "tokens", "Infinity"), want: toolError, says: "tokens"},
		{name: `tokens "5000" (a number as a string)`, tool: docs, args: lib("customQuery", "polling", "tokens", "5000"), want: answered, says: "of 5000 tokens"},
		{name: "tokens 500,000 digits", raw: toolCall(docs, `{"libraryId":"/acme/widgets","customQuery":"polling","tokens":`+strings.Repeat("9", 500000)+`}`), want: answered, says: "lowered to the maximum of 50000"},
		{name: "page -1", tool: docs, args: lib("customQuery", "polling", "page", -1), want: toolError, says: "pages start at 1"},
		{name: "page 0 (the first)", tool: docs, args: lib("customQuery", "polling", "page", 0), want: answered, says: "page 1 of 1"},
		{name: "page 10,001", tool: docs, args: lib("customQuery", "widget", "page", 10001), want: toolError, says: "no answer has more than 10000 pages"},
		{name: "page 1e18", tool: docs, args: lib("customQuery", "widget", "page", int64(1e18)), want: toolError, says: "no answer has more than 10000 pages"},
		{name: "page 2^62 (60×page wraps to 0)", tool: docs, args: lib("customQuery", "widget", "page", int64(1)<<62), want: toolError, says: "no answer has more than 10000 pages"},
		{name: "page 2e17 (60×page wraps negative)", tool: docs, args: lib("customQuery", "widget", "page", int64(2e17)), want: toolError, says: "no answer has more than 10000 pages"},
		{name: "page math.MaxInt64 of a document", tool: docs, args: lib("path", "docs/guides/data-sources.md", "page", json.Number("9223372036854775807")), want: toolError, says: "page"},
		{name: "page 1e308", tool: docs, args: lib("customQuery", "polling", "page", 1e308), want: toolError, says: "page"},
		{name: `page "NaN"`, tool: docs, args: lib("customQuery", "polling", "page", "NaN"), want: toolError, says: "page"},
		{name: "get-context7-docs page -1e18", tool: c7, args: react("page", int64(-1e18)), want: toolError, says: "pages start at 1"},
		{name: `get-context7-docs page "NaN"`, tool: c7, args: react("page", "NaN"), want: toolError, says: `page must be a whole number, got "NaN"`},
		{name: "get-context7-docs page -3", tool: c7, args: react("page", -3), want: toolError, says: "page -3: pages start at 1"},
		{name: "get-context7-docs limit 1e308", tool: c7, args: react("limit", 1e308), want: answered, says: "lowered to 10"},
		{name: "get-context7-docs tokens 1e18", tool: c7, args: react("tokens", int64(1e18)), want: answered, says: "lowered to 50000"},
		{name: "get-context7-docs tokens -1", tool: c7, args: react("tokens", -1), want: answered, says: "raised to 200"},
		{name: "resolve maxResults 1e18", tool: resolve, args: map[string]any{"libraryName": "widgets", "maxResults": int64(1e18)}, want: answered, says: "lowered to the maximum of 50"},
		{name: "resolve maxResults -1", tool: resolve, args: map[string]any{"libraryName": "widgets", "maxResults": -1}, want: answered, says: "/acme/widgets"},
		{name: "resolve maxResults 1e308", tool: resolve, args: map[string]any{"libraryName": "widgets", "maxResults": 1e308}, want: answered, says: "lowered to the maximum of 50"},
		{name: "resolve maxResults 1.5", tool: resolve, args: map[string]any{"libraryName": "widgets", "maxResults": 1.5}, want: toolError, says: "maxResults must be a whole number, got 1.5"},

		// Text that is not UTF-8: raw bytes (invalid JSON text, which
		// encoding/json would decode to U+FFFD) and lone surrogates.
		{name: "libraryId raw 0xff", raw: toolCall(docs, "{\"libraryId\":\"/acme/wid\xffgets\",\"customQuery\":\"polling\"}"), want: toolError, says: "not UTF-8"},
		{name: "customQuery raw 0xff 0xfe", raw: toolCall(docs, "{\"libraryId\":\"/acme/widgets\",\"customQuery\":\"poll\xff\xfeing\"}"), want: toolError, says: "not UTF-8"},
		{name: "path raw overlong / (0xc0 0xaf)", raw: toolCall(docs, "{\"libraryId\":\"/acme/widgets\",\"path\":\"docs\xc0\xaf..\xc0\xafsecret.md\"}"), want: toolError, says: "not UTF-8"},
		{name: "topics raw 0xed 0xb2 0x80 (an encoded surrogate)", raw: toolCall(docs, "{\"libraryId\":\"/acme/widgets\",\"topics\":[\"gu\xed\xb2\x80ides\"]}"), want: toolError, says: "not UTF-8"},
		{name: "mode raw 0x80", raw: toolCall(docs, "{\"libraryId\":\"/acme/widgets\",\"customQuery\":\"polling\",\"mode\":\"co\x80de\"}"), want: toolError, says: "not UTF-8"},
		{name: "parameter name raw 0xff", raw: toolCall(docs, "{\"libraryId\":\"/acme/widgets\",\"custom\xffQuery\":\"polling\"}"), want: toolError, says: "not UTF-8"},
		{name: "resolve libraryName raw 0xff", raw: toolCall(resolve, "{\"libraryName\":\"wid\xffgets\"}"), want: toolError, says: "not UTF-8"},
		{name: "get-context7-docs topic raw 0xff", raw: toolCall(c7, "{\"libraryId\":\"/facebook/react\",\"topic\":\"ho\xffoks\"}"), want: toolError, says: "not UTF-8"},
		{name: `customQuery lone low surrogate \udc80`, raw: toolCall(docs, `{"libraryId":"/acme/widgets","customQuery":"poll\udc80ing"}`), want: toolError, says: "lone UTF-16 surrogate"},
		{name: `libraryId lone high surrogate \ud800 at the end`, raw: toolCall(docs, `{"libraryId":"/acme/widgets\ud800","customQuery":"polling"}`), want: toolError, says: "lone UTF-16 surrogate"},
		{name: `path high surrogate then \u0041`, raw: toolCall(docs, `{"libraryId":"/acme/widgets","path":"docs/\uD800\u0041.md"}`), want: toolError, says: "lone UTF-16 surrogate"},
		{name: `resolve libraryName \udfff`, raw: toolCall(resolve, `{"libraryName":"\udfff"}`), want: toolError, says: "lone UTF-16 surrogate"},
		{name: `customQuery a surrogate pair \ud83d\ude00 (valid)`, raw: toolCall(docs, `{"libraryId":"/acme/widgets","customQuery":"polling \ud83d\ude00"}`), want: answered, says: "Polling"},
		{name: `customQuery an escaped backslash then udc80 (valid)`, raw: toolCall(docs, `{"libraryId":"/acme/widgets","customQuery":"polling \\udc80"}`), want: answered, says: "Polling"},

		// JSON of the wrong types.
		{name: "libraryId a number", tool: docs, args: map[string]any{"libraryId": 42}, want: toolError, says: "libraryId must be a string, got a number"},
		{name: "libraryId an array", tool: docs, args: map[string]any{"libraryId": []any{"/acme/widgets"}}, want: toolError, says: "libraryId"},
		{name: "libraryId an object", tool: docs, args: map[string]any{"libraryId": map[string]any{"id": "/acme/widgets"}}, want: toolError, says: "libraryId"},
		{name: "libraryId null", tool: docs, args: map[string]any{"libraryId": nil, "customQuery": "polling"}, want: toolError, says: "libraryId is required"},
		{name: "topics a string", tool: docs, args: lib("topics", "guides"), want: toolError, says: "topics must be an array of strings, got a string"},
		{name: "topics an object", tool: docs, args: lib("topics", map[string]any{"0": "guides"}), want: toolError, says: "topics"},
		{name: "topics numbers", tool: docs, args: lib("topics", []any{1, 2}), want: toolError, says: "topics must be an array of strings, got an item that is a number"},
		{name: "topics nested 900 deep", tool: docs, args: lib("topics", nested(900, "guides")), want: toolError, says: "topics must be an array of strings, got an item that is an array"},
		{name: "outline a string", tool: docs, args: lib("path", "docs/guides/data-sources.md", "outline", "yes"), want: toolError, says: "outline"},
		{name: "resolve libraryName a number", tool: resolve, args: map[string]any{"libraryName": 42}, want: toolError, says: "libraryName"},
		{name: "resolve libraryName null", tool: resolve, args: map[string]any{"libraryName": nil}, want: toolError, says: "libraryName is required"},
		{name: "get-context7-docs libraryId an array", tool: c7, args: map[string]any{"libraryId": []any{"/facebook/react"}}, want: toolError, says: "libraryId"},
		{name: "arguments an array", tool: docs, args: []any{"/acme/widgets", "polling"}, want: toolError, says: "the arguments must be an object of parameters, got an array"},
		{name: "arguments a string", tool: docs, args: "/acme/widgets polling", want: toolError, says: "the arguments must be an object of parameters, got a string"},
		{name: "arguments null", raw: toolCall(docs, "null"), want: toolError, says: "libraryId is required"},
		{name: "arguments nested 10,000 deep", raw: toolCall(docs, strings.Repeat("[", 10000)+strings.Repeat("]", 10000)), want: refused, status: http.StatusBadRequest, says: "nesting depth"},
		{name: "topics nested 10,000 deep", raw: toolCall(docs, `{"libraryId":"/acme/widgets","topics":`+strings.Repeat("[", 10000)+strings.Repeat("]", 10000)+`}`), want: refused, status: http.StatusBadRequest, says: "nesting depth"},
		{name: "params null", raw: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`, want: rpcError, says: "params"},
		{name: "params an array", raw: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["get-library-docs"]}`, want: rpcError, says: "invalid params"},
		{name: "tool name a number", raw: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, want: rpcError, says: "invalid params"},
		{name: "tool name unknown", raw: toolCall("../../etc/passwd", "{}"), want: rpcError, says: "this server has resolve-library-id, get-library-docs, get-context7-docs"},
		{name: "method unknown", raw: `{"jsonrpc":"2.0","id":1,"method":"tools/../../call","params":{}}`, want: refused, status: http.StatusBadRequest},
		{name: "jsonrpc 1.0", raw: `{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"get-library-docs","arguments":{}}}`, want: refused, status: http.StatusBadRequest},
		{name: "id an object", raw: `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/call","params":{"name":"get-library-docs","arguments":{}}}`, want: refused, status: http.StatusBadRequest},

		// Unknown and duplicate parameters.
		{name: "unknown parameter", tool: docs, args: lib("customQuery", "polling", "version", "1"), want: toolError, says: `unknown field "version"`},
		{name: "parameter name in another case", tool: docs, args: map[string]any{"LibraryId": "/acme/widgets", "customQuery": "polling"}, want: toolError, says: `did you mean "libraryId"`},
		{name: "unknown parameter named with 100 KiB", tool: docs, args: lib("customQuery", "polling", strings.Repeat("x", 100<<10), 1), want: toolError, says: "unknown field"},
		{name: "libraryId given twice", raw: toolCall(docs, `{"libraryId":"/acme/nope","libraryId":"/acme/widgets","customQuery":"polling"}`), want: toolError, says: `"libraryId" given twice`},
		{name: "libraryId given twice, once escaped", raw: toolCall(docs, `{"libraryId":"/acme/nope","libr\u0061ryId":"/acme/widgets","customQuery":"polling"}`), want: toolError, says: `"libraryId" given twice`},
		{name: "resolve libraryName given twice", raw: toolCall(resolve, `{"libraryName":"a","libraryName":"widgets"}`), want: toolError, says: "given twice"},

		// The request itself: size, Content-Type, Accept, method, body.
		{name: "body 2 MiB", raw: toolCall(docs, `{"libraryId":"/acme/widgets","customQuery":"`+strings.Repeat("a", 2<<20)+`"}`), want: refused, status: http.StatusRequestEntityTooLarge, says: "exceeds"},
		{name: "Content-Type text/plain", raw: toolCall(docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`), contentType: "text/plain", want: refused, status: http.StatusUnsupportedMediaType, says: "Content-Type"},
		{name: "Content-Type absent", raw: toolCall(docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`), contentType: "none", want: refused, status: http.StatusUnsupportedMediaType, says: "Content-Type"},
		{name: "Content-Type multipart/form-data", raw: "--x\r\n\r\n--x--", contentType: "multipart/form-data; boundary=x", want: refused, status: http.StatusUnsupportedMediaType, says: "Content-Type"},
		{name: "Accept absent", raw: toolCall(docs, `{"libraryId":"/acme/widgets","customQuery":"polling"}`), noAccept: true, want: refused, status: http.StatusBadRequest, says: "Accept"},
		{name: "body not JSON", raw: "libraryId=/acme/widgets", want: refused, status: http.StatusBadRequest, says: "malformed"},
		{name: "body not JSON, 900 KiB", raw: "libraryId=" + big, want: refused, status: http.StatusBadRequest, says: "malformed"},
		{name: "params an array of 900 KiB", raw: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["` + big + `"]}`, want: rpcError, says: "invalid params", echoes: true},
		{name: "tool name 900 KiB", raw: toolCall(big, "{}"), want: rpcError, says: "unknown tool"},
		{name: "method 900 KiB", raw: `{"jsonrpc":"2.0","id":1,"method":"` + big + `","params":{}}`, want: refused, status: http.StatusBadRequest, echoes: true},
		{name: "id a string of 900 KiB", raw: `{"jsonrpc":"2.0","id":"` + big + `","method":"tools/call","params":{"name":"get-library-docs","arguments":{}}}`, want: toolError, says: "libraryId is required", echoes: true},
		{name: "body empty", raw: "", want: refused, status: http.StatusBadRequest},
		{name: "body truncated JSON", raw: toolCall(docs, `{"libraryId":"/acme/widgets"`), want: refused, status: http.StatusBadRequest, says: "malformed"},
		{name: "body a batch (not in 2025-06-18)", raw: "[" + toolCall(docs, `{}`) + "," + toolCall(docs, `{}`) + "]", want: refused, status: http.StatusBadRequest, says: "batch"},
		{name: "method GET", method: http.MethodGet, want: refused, status: http.StatusMethodNotAllowed, says: "use POST"},
		{name: "method PUT", method: http.MethodPut, raw: toolCall(docs, `{}`), want: refused, status: http.StatusMethodNotAllowed},
		{name: "method PATCH", method: http.MethodPatch, raw: toolCall(docs, `{}`), want: refused, status: http.StatusMethodNotAllowed},
		{name: "method DELETE (no sessions kept)", method: http.MethodDelete, want: refused, status: http.StatusMethodNotAllowed},
		{name: "method OPTIONS", method: http.MethodOptions, want: refused, status: http.StatusMethodNotAllowed},
	}
}

// TestHostileMCP sends hostile requests to /mcp over real HTTP, through
// the SDK's streamable client where it can send them and as raw JSON-RPC
// POSTs where it cannot: each gets a tool error that explains, an HTTP
// 4xx with a message, or (for a request naming no tool) a JSON-RPC error
// other than an internal one; never a 5xx, an internal error, a hang or a
// crash; the answer stays under maxHostileAnswer bytes and never carries a
// file from outside the documentation; nothing refused reaches Context7;
// and a normal query is answered after each. Run with -v for the table of
// outcomes.
func TestHostileMCP(t *testing.T) {
	target := hostileServer(t)
	ct := &countingTransport{}
	hc := &http.Client{Transport: ct, Timeout: 20 * time.Second}
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hostile-test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: target.url + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	t.Log("| request | outcome | HTTP | bytes | ms | message |")
	t.Log("|---|---|---|---|---|---|")
	for _, tc := range hostileMCPCases() {
		t.Run(tc.name, func(t *testing.T) {
			remoteBefore := target.fake.Count()
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			start := time.Now()
			var got mcpResult
			if tc.tool != "" {
				got = sdkCall(cctx, cs, ct, tc.tool, tc.args)
			} else {
				got = rawPost(cctx, t, target.url, tc)
			}
			took := time.Since(start)
			t.Logf("| %s | %s | %d | %d | %d | %s |", tc.name, got.outcome, got.status, got.bytes, took.Milliseconds(), strings.ReplaceAll(clipText(strings.TrimSpace(got.text), 140), "\n", " "))
			if got.outcome != tc.want {
				t.Errorf("outcome %s (HTTP %d: %s), want %s", got.outcome, got.status, clipText(got.text, 300), tc.want)
			}
			if tc.want == refused && got.status != tc.status {
				t.Errorf("HTTP status %d, want %d", got.status, tc.status)
			}
			if got.status >= 500 {
				t.Errorf("HTTP status %d: a server error", got.status)
			}
			if !strings.Contains(got.text, tc.says) {
				t.Errorf("message %q does not say %q", clipText(got.text, 300), tc.says)
			}
			if strings.TrimSpace(got.text) == "" {
				t.Errorf("no message")
			}
			bound := int64(maxHostileAnswer)
			if tc.echoes {
				bound = int64(len(tc.raw)) + 1<<10
			}
			if got.bytes > bound {
				t.Errorf("answer of %d bytes, want at most %d: the request is repeated back", got.bytes, bound)
			}
			if strings.Contains(got.text, "CANARY") || strings.Contains(got.text, "root:x:0:0") {
				t.Errorf("a file from outside the documentation was served: %q", clipText(got.text, 300))
			}
			if n := target.fake.Count() - remoteBefore; tc.want != answered && n > 0 {
				t.Errorf("%d requests reached Context7 for a refused request", n)
			}
			// The server still answers a normal query.
			if r := sdkCall(ctx, cs, ct, "get-library-docs", map[string]any{"libraryId": "/acme/widgets", "customQuery": "polling"}); r.outcome != answered || !strings.Contains(r.text, "## Polling") {
				t.Fatalf("a normal query afterwards: %s %q", r.outcome, clipText(r.text, 300))
			}
		})
	}
}

// TestCheckArguments checks the argument checks on their own: what
// encoding/json accepts quietly is refused, and nothing valid is.
func TestCheckArguments(t *testing.T) {
	names := paramNames(reflect.TypeFor[DocsInput]())
	for _, tc := range []struct {
		args string
		want string // "" for no error
	}{
		{`{"libraryId":"/a/b","customQuery":"q"}`, ""},
		{`{"libraryId":"/a/b","libraryID":"/a/c"}`, ""}, // two aliases, each once
		{`{"customQuery":"\ud83d\ude00 \u00e9 \\udc80 \\\ud83d\ude00"}`, ""},
		{`{"customQuery":"\"\\"}`, ""},
		{`[1,2]`, ""},
		{`"x"`, ""},
		{"{\"customQuery\":\"\xff\"}", "byte 16 of the arguments is 0xff"},
		{`{"customQuery":"\udc80"}`, `lone UTF-16 surrogate (\udc80)`},
		{`{"customQuery":"\ud83d"}`, `lone UTF-16 surrogate (\ud83d)`},
		{`{"customQuery":"\ud83d\ud83d\ude00"}`, `lone UTF-16 surrogate (\ud83d)`},
		{`{"customQuery":"\\\udc80"}`, `lone UTF-16 surrogate (\udc80)`},
		{`{"\udc80":1}`, `lone UTF-16 surrogate (\udc80)`},
		{`{"page":1,"page":2}`, `parameter "page" given twice`},
		{`{"Page":1}`, `unknown field "Page": parameter names are case-sensitive; did you mean "page"?`},
		{`{"LIBRARYID":"/a/b"}`, `did you mean "libraryID"?`},
		{`{"nope":{"page":1,"page":2}}`, `unknown field "nope"`},
		{`{"topics":[{"a":1,"a":2}]}`, ""}, // nested keys are the decoder's business
	} {
		err := checkArguments([]byte(tc.args), names)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want no error", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}
