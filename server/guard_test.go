package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/access"
	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/internal/syncbuf"
	"github.com/codex7/codex7/internal/waitfor"
	"github.com/codex7/codex7/metrics"
	"github.com/codex7/codex7/search"
)

// Tokens of guardPolicy.
const (
	widgetsToken = "c7_widgets-only"
	allToken     = "c7_everything"
	slowToken    = "c7_one-request"
)

func guardPolicy(t *testing.T) *access.Policy {
	t.Helper()
	src := "tokens:\n" +
		"  - {name: widgets, sha256: " + access.HashToken(widgetsToken) + ", libraries: [\"/acme/*\"]}\n" +
		"  - {name: all, sha256: " + access.HashToken(allToken) + ", libraries: [\"/*/*\"]}\n" +
		"  - {name: slow, sha256: " + access.HashToken(slowToken) + ", libraries: [\"/*/*\"], rate: 0.01, burst: 1}\n"
	p, err := access.Parse(strings.NewReader(src), "tokens.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// twoLibraries builds the fixture widgets library exactly as fixtureEngine
// does, plus /beta/cli, into a directory of artifacts.
func twoLibraries(t *testing.T) string {
	t.Helper()
	w := gittest.New(t, "main")
	w.CopyDir("../fixtures/docs/acme-widgets", "")
	w.Commit("docs")
	w.Git("tag", "v1.0.0")
	c := gittest.New(t, "main")
	c.CopyDir("../fixtures/docs/acme-cli", "")
	c.Commit("cli")
	src := "libraries:\n  - id: /acme/widgets\n    title: Acme Widgets\n    aliases: [widgets]\n    description: Dashboard widgets\n    repo: " + w.Dir + "\n    versions: [{ref: v1.0.0}, {ref: main}]\n" +
		"  - id: /beta/cli\n    title: Beta CLI\n    repo: " + c.Dir + "\n"
	out := t.TempDir()
	buildtest.Build(t, out, src)
	return out
}

func openEngine(t *testing.T, dir string, opts search.Options) *search.Engine {
	t.Helper()
	e, err := search.OpenWith(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// guarded serves engine under guardPolicy, with its audit lines in the
// returned buffer.
func guarded(t *testing.T, engine Engine) (*httptest.Server, *syncbuf.Buffer) {
	return guardedVia(t, engine, false)
}

// guardedVia is guarded, answering every MCP request through the SDK if
// sdkOnly (see HTTPOptions.sdkOnly).
func guardedVia(t *testing.T, engine Engine, sdkOnly bool) (*httptest.Server, *syncbuf.Buffer) {
	t.Helper()
	pol := guardPolicy(t)
	audit := &syncbuf.Buffer{}
	h := Handler(engine, "test", slog.New(slog.DiscardHandler), HTTPOptions{
		Auth:           func() *access.Policy { return pol },
		Audit:          slog.New(slog.NewJSONHandler(audit, nil)),
		AllowedOrigins: []string{"https://app.example"},
		sdkOnly:        sdkOnly,
	})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts, audit
}

// send sends a request with the given Authorization header ("" for none)
// and headers (Host among them) and returns the status, headers and body.
func send(t *testing.T, method, url, auth string, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if h := header["Host"]; h != "" {
		req.Host = h // the client sends req.Host, not the header
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

const pingBody = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

func TestAuthRequired(t *testing.T) {
	ts, _ := guarded(t, fixtureEngine(t))
	routes := []struct {
		name, method, path, body string
		open                     bool // answered without a token
	}{
		{"mcp", "POST", "/mcp", pingBody, false},
		{"api search", "GET", "/api/v2/libs/search?libraryName=widgets", "", false},
		{"api context", "GET", "/api/v2/context?libraryId=/acme/widgets&query=install", "", false},
		{"api unknown path", "GET", "/api/nothing", "", false},
		{"metrics", "GET", "/metrics", "", false},
		{"healthz", "GET", "/healthz", "", true},
		{"readyz", "GET", "/readyz", "", true},
	}
	auths := []struct {
		name, header string
		ok           bool
	}{
		{"none", "", false},
		{"unknown token", "Bearer c7_guess", false},
		{"hash of a token", "Bearer " + access.HashToken(allToken), false},
		{"basic scheme", "Basic " + allToken, false},
		{"empty bearer", "Bearer ", false},
		{"valid", "Bearer " + allToken, true},
		{"valid, scheme in lower case", "bearer " + allToken, true},
	}
	for _, rt := range routes {
		for _, a := range auths {
			t.Run(rt.name+"/"+a.name, func(t *testing.T) {
				code, h, body := send(t, rt.method, ts.URL+rt.path, a.header, rt.body, nil)
				want := rt.open || a.ok
				if want {
					if code == http.StatusUnauthorized {
						t.Fatalf("status 401 (%s), want the route's answer", body)
					}
					return
				}
				if code != http.StatusUnauthorized || h.Get("WWW-Authenticate") != `Bearer realm="codex7"` {
					t.Fatalf("status %d, WWW-Authenticate %q; want 401 with a Bearer challenge", code, h.Get("WWW-Authenticate"))
				}
				if !strings.Contains(body, "token") || strings.Contains(body, allToken) {
					t.Errorf("body %q: want a message about the token that does not repeat it", body)
				}
				if strings.HasPrefix(rt.path, "/api/") {
					var e struct{ Error, Message string }
					if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error != "unauthorized" || e.Message == "" {
						t.Errorf("body %q: want Context7's JSON error shape", body)
					}
				}
			})
		}
	}
}

// authClient is an MCP client over HTTP that sends token.
func authClient(t *testing.T, url, token string) *mcp.ClientSession {
	return authClientAt(t, url, token, "")
}

// clientPaths are the protocol versions an SDK client can speak to reach
// each path of the HTTP handler: the fast path for tool calls (the version
// today's agents speak) and the SDK's own handling (its latest version,
// whose calls the fast path leaves to it).
var clientPaths = []struct{ name, version string }{{"fast path", "2025-11-25"}, {"SDK", ""}}

// authClientAt is authClient speaking protocol version ("" for the SDK's
// latest).
func authClientAt(t *testing.T, url, token, version string) *mcp.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: bearerTransport{token}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "guard-test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestTokenScope checks that a library outside a token's patterns is
// answered for, over MCP and the REST API, exactly as on a server where it
// was never built, and that a token allowed it sees it.
func TestTokenScope(t *testing.T) {
	both := openEngine(t, twoLibraries(t), search.Options{})
	ts, _ := guarded(t, both)
	// The same server with /beta/cli never built, and no access control.
	alone := httptest.NewServer(Handler(fixtureEngine(t), "test", slog.New(slog.DiscardHandler), HTTPOptions{}))
	t.Cleanup(alone.Close)
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) {
			scoped, plain := authClientAt(t, ts.URL, widgetsToken, p.version), authClientAt(t, alone.URL, "", p.version)
			everything := authClientAt(t, ts.URL, allToken, p.version)
			testMCPScope(t, scoped, plain, everything)
		})
	}
	testAPIScope(t, ts, alone)
}

// testMCPScope checks that a client with a token for /acme/widgets only
// (scoped) gets the answers of a server without /beta/cli (plain), and that
// a client whose token sees both (everything) gets others.
func testMCPScope(t *testing.T, scoped, plain, everything *mcp.ClientSession) {
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"resolve-library-id", map[string]any{"libraryName": "cli"}},
		{"resolve-library-id", map[string]any{"libraryName": "beta", "detail": "full"}},
		{"resolve-library-id", map[string]any{"libraryName": "widgets", "detail": "full"}},
		{"get-library-docs", map[string]any{"libraryId": "/beta/cli", "customQuery": "install"}},
		{"get-library-docs", map[string]any{"libraryId": "beta cli", "customQuery": "install"}},
		{"get-library-docs", map[string]any{"libraryId": "cli", "path": "."}},
		{"get-library-docs", map[string]any{"libraryId": "/beta/cli@main", "customQuery": "install"}},
		{"get-library-docs", map[string]any{"libraryId": "/acme/widgets", "customQuery": "install"}},
	}
	differs := 0
	for _, c := range calls {
		got, gotErr := call(t, scoped, c.tool, c.args, nil)
		want, wantErr := call(t, plain, c.tool, c.args, nil)
		if got != want || gotErr != wantErr {
			t.Errorf("%s %v with the widgets token:\n%s\nwith /beta/cli never built:\n%s", c.tool, c.args, got, want)
		}
		if all, _ := call(t, everything, c.tool, c.args, nil); all != want {
			differs++
		}
	}
	if differs < 4 {
		t.Errorf("only %d calls answer differently for a token that sees /beta/cli: the scope hides nothing", differs)
	}
}

// testAPIScope is testMCPScope for the REST API.
func testAPIScope(t *testing.T, ts, alone *httptest.Server) {
	for _, path := range []string{
		"/api/v2/libs/search?libraryName=cli",
		"/api/v2/libs/search?libraryName=beta",
		"/api/v2/context?libraryId=/beta/cli&query=install",
		"/api/v2/context?libraryId=/beta/cli/main&query=install&type=json",
		"/api/v1/beta/cli?topic=install",
		"/api/v1/search?query=cli",
	} {
		code, _, got := send(t, "GET", ts.URL+path, "Bearer "+widgetsToken, "", nil)
		wantCode, _, want := send(t, "GET", alone.URL+path, "", "", nil)
		if code != wantCode || got != want {
			t.Errorf("GET %s with the widgets token: %d %s\nwith /beta/cli never built: %d %s", path, code, got, wantCode, want)
		}
		if _, _, all := send(t, "GET", ts.URL+path, "Bearer "+allToken, "", nil); !strings.Contains(all, "/beta/cli") && !strings.Contains(all, "Beta CLI") && !strings.Contains(all, "Acme CLI") {
			t.Errorf("GET %s with a token for every library: %s, want /beta/cli in it", path, all)
		}
	}
}

func TestRateLimitPerToken(t *testing.T) {
	ts, _ := guarded(t, fixtureEngine(t))
	url := ts.URL + "/api/v2/libs/search?libraryName=widgets"
	if code, _, body := send(t, "GET", url, "Bearer "+slowToken, "", nil); code != http.StatusOK {
		t.Fatalf("first request: %d %s", code, body)
	}
	code, h, body := send(t, "GET", url, "Bearer "+slowToken, "", nil)
	if code != http.StatusTooManyRequests {
		t.Fatalf("second request within the rate: %d %s, want 429", code, body)
	}
	if s, err := strconv.Atoi(h.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("Retry-After %q, want whole seconds", h.Get("Retry-After"))
	}
	if !strings.Contains(body, `"error":"rate_limited"`) || !strings.Contains(body, "slow") {
		t.Errorf("body %s: want Context7's JSON error naming the token", body)
	}
	if code, _, _ := send(t, "POST", ts.URL+"/mcp", "Bearer "+slowToken, pingBody, nil); code != http.StatusTooManyRequests {
		t.Errorf("MCP with the spent token: %d, want 429", code)
	}
	// Another token has a rate of its own.
	if code, _, _ := send(t, "GET", url, "Bearer "+allToken, "", nil); code != http.StatusOK {
		t.Errorf("another token: %d, want 200", code)
	}
}

func TestOriginAllowList(t *testing.T) {
	ts, _ := guarded(t, fixtureEngine(t))
	tests := []struct {
		origin string
		want   int
	}{
		{"", http.StatusOK},
		{"https://app.example", http.StatusOK},
		{"https://evil.example", http.StatusForbidden},
		{"http://app.example", http.StatusForbidden},
		{"https://app.example:8443", http.StatusForbidden},
		{"null", http.StatusForbidden},
		// What a DNS-rebinding page sends: its own origin, matching Host.
		{"http://" + strings.TrimPrefix(ts.URL, "http://"), http.StatusForbidden},
	}
	for _, tt := range tests {
		hdr := map[string]string{}
		if tt.origin != "" {
			hdr["Origin"] = tt.origin
		}
		code, _, body := send(t, "POST", ts.URL+"/mcp", "Bearer "+allToken, pingBody, hdr)
		if code != tt.want {
			t.Errorf("Origin %q: %d %s, want %d", tt.origin, code, body, tt.want)
		}
		if code == http.StatusForbidden && !strings.Contains(body, "--allow-origin") {
			t.Errorf("Origin %q: body %q, want the flag that allows it", tt.origin, body)
		}
	}
}

// auditLine is the shape of an audit log line.
type auditLine struct {
	Msg        string  `json:"msg"`
	Start      string  `json:"start"`
	RequestID  string  `json:"request_id"`
	Token      string  `json:"token"`
	Route      string  `json:"route"`
	Remote     string  `json:"remote"`
	Peer       string  `json:"peer"`
	Tool       string  `json:"tool"`
	Library    string  `json:"library"`
	Version    string  `json:"version"`
	Query      string  `json:"query"`
	Outcome    string  `json:"outcome"`
	Results    *int    `json:"results"`
	Status     int     `json:"status"`
	Bytes      int64   `json:"bytes"`
	DurationMS float64 `json:"duration_ms"`
}

func auditLines(t *testing.T, log string) map[string]auditLine {
	t.Helper()
	out := map[string]auditLine{}
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		var a auditLine
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		if a.Msg != "audit" {
			t.Fatalf("line %q in the audit log is not an audit line", l)
		}
		out[a.RequestID] = a
	}
	return out
}

func TestAuditLog(t *testing.T) {
	engine := fixtureEngine(t)
	for _, via := range []struct {
		name    string
		sdkOnly bool
	}{{"fast path", false}, {"SDK", true}} {
		t.Run(via.name, func(t *testing.T) {
			ts, log := guardedVia(t, engine, via.sdkOnly)
			testAuditLog(t, ts, log)
		})
	}
}

func testAuditLog(t *testing.T, ts *httptest.Server, log *syncbuf.Buffer) {
	type req struct {
		method, path, auth, body string
		want                     auditLine
	}
	docsCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get-library-docs","arguments":{"libraryId":"/acme/widgets","customQuery":"install widgets"}}}`
	badCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get-library-docs","arguments":{"libraryId":"/acme/nothing","customQuery":"x"}}}`
	resolveCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"resolve-library-id","arguments":{"libraryName":"widgets"}}}`
	one := 1
	reqs := []req{
		{"POST", "/mcp", allToken, docsCall, auditLine{Token: "all", Route: "/mcp", Tool: "get-library-docs", Library: "/acme/widgets", Version: "v1.0.0", Query: "install widgets", Outcome: "ok", Status: 200}},
		{"POST", "/mcp", widgetsToken, badCall, auditLine{Token: "widgets", Route: "/mcp", Tool: "get-library-docs", Library: "/acme/nothing", Query: "x", Outcome: "tool_error", Status: 200}},
		{"POST", "/mcp", allToken, resolveCall, auditLine{Token: "all", Route: "/mcp", Tool: "resolve-library-id", Query: "widgets", Outcome: "ok", Results: &one, Status: 200}},
		{"POST", "/mcp", allToken, pingBody, auditLine{Token: "all", Route: "/mcp", Tool: "ping", Status: 200}},
		{"GET", "/api/v2/context?libraryId=/acme/widgets@v1.0.0&query=themes", widgetsToken, "", auditLine{Token: "widgets", Route: "/api", Tool: "v2 context", Library: "/acme/widgets", Version: "v1.0.0", Query: "themes", Status: 200}},
		{"GET", "/api/v2/libs/search?libraryName=widgets", "", "", auditLine{Route: "/api", Status: 401}},
		{"GET", "/api/v2/libs/search?libraryName=widgets", "c7_guess", "", auditLine{Route: "/api", Status: 401}},
	}
	ids := map[string]req{}
	bodies := map[string]int{}
	for _, r := range reqs {
		auth := ""
		if r.auth != "" {
			auth = "Bearer " + r.auth
		}
		code, h, body := send(t, r.method, ts.URL+r.path, auth, r.body, nil)
		if code != r.want.Status {
			t.Fatalf("%s %s: %d %s", r.method, r.path, code, body)
		}
		id := h.Get("X-Request-Id")
		if id == "" || ids[id].path != "" {
			t.Fatalf("%s %s: X-Request-Id %q, want a new id", r.method, r.path, id)
		}
		ids[id] = r
		bodies[id] = len(body)
	}
	// Probes are not audited.
	send(t, "GET", ts.URL+"/healthz", "", "", nil)
	send(t, "GET", ts.URL+"/readyz", "", "", nil)

	text := log.String()
	for _, secret := range []string{allToken, widgetsToken, "c7_guess"} {
		if strings.Contains(text, secret) {
			t.Errorf("the audit log holds the token %q", secret)
		}
	}
	lines := auditLines(t, text)
	if len(lines) != len(reqs) {
		t.Errorf("%d audit lines for %d requests:\n%s", len(lines), len(reqs), text)
	}
	for id, r := range ids {
		got, ok := lines[id]
		if !ok {
			t.Errorf("no audit line for request %s (%s %s)", id, r.method, r.path)
			continue
		}
		if _, err := time.Parse(time.RFC3339Nano, got.Start); err != nil || got.DurationMS <= 0 {
			t.Errorf("%s: start %q, duration %v ms: want a time and a duration", id, got.Start, got.DurationMS)
		}
		if got.Bytes != int64(bodies[id]) {
			t.Errorf("%s: bytes %d, want the body's %d", id, got.Bytes, bodies[id])
		}
		w := r.want
		if got.Token != w.Token || got.Route != w.Route || got.Tool != w.Tool || got.Library != w.Library || got.Version != w.Version ||
			got.Query != w.Query || got.Outcome != w.Outcome || got.Status != w.Status {
			t.Errorf("%s %s: audit %+v, want %+v", r.method, r.path, got, w)
		}
		if w.Results != nil && (got.Results == nil || *got.Results != *w.Results) {
			t.Errorf("%s %s: results %v, want %d", r.method, r.path, got.Results, *w.Results)
		}
		if w.Outcome == "ok" && w.Tool == "get-library-docs" && (got.Results == nil || *got.Results == 0) {
			t.Errorf("%s %s: results %v, want the sections returned", r.method, r.path, got.Results)
		}
	}
}

// TestAuditStdio checks that tool calls over stdio, where there is no HTTP
// layer, get an audit line each.
func TestAuditStdio(t *testing.T) {
	var log syncbuf.Buffer
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(fixtureEngine(t), "test", WithAudit(slog.New(slog.NewJSONHandler(&log, nil)))).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call(t, cs, "get-library-docs", map[string]any{"libraryId": "/acme/widgets@v1.0.0", "customQuery": "install"}, nil)
	call(t, cs, "resolve-library-id", map[string]any{"libraryName": "nothing-here"}, nil)
	lines := auditLines(t, log.String())
	if len(lines) != 2 {
		t.Fatalf("%d audit lines for 2 tool calls:\n%s", len(lines), log.String())
	}
	var tools []string
	for _, l := range lines {
		if l.Route != "stdio" || l.Outcome != "ok" || l.RequestID == "" || l.Results == nil {
			t.Errorf("line %+v: want route stdio, outcome ok, an id and results", l)
		}
		tools = append(tools, l.Tool+" "+l.Library+"@"+l.Version)
	}
	if !strings.Contains(strings.Join(tools, ","), "get-library-docs /acme/widgets@v1.0.0") {
		t.Errorf("lines for %v, want get-library-docs on /acme/widgets@v1.0.0", tools)
	}
}

// TestReadyzUnderAuth checks that /readyz tells everyone whether the server
// is ready but names a refused version only to a token that may see it.
func TestReadyzUnderAuth(t *testing.T) {
	dir := twoLibraries(t)
	p := filepath.Join(artifacts.Dir(dir, "/beta/cli", "main"), artifacts.TopicsFile)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ts, _ := guarded(t, openEngine(t, dir, search.Options{VerifyInBackground: true}))
	waitfor.Nil(t, 10*time.Second, "/readyz to name the damaged version", func() error {
		if _, _, body := send(t, "GET", ts.URL+"/readyz", "Bearer "+allToken, "", nil); !strings.Contains(body, "refused /beta/cli@main") {
			return fmt.Errorf("/readyz says %q", body)
		}
		return nil
	})
	for _, auth := range []string{"", "Bearer c7_guess", "Bearer " + widgetsToken} {
		code, _, body := send(t, "GET", ts.URL+"/readyz", auth, "", nil)
		if code != http.StatusOK || !strings.Contains(body, "1 refused") {
			t.Errorf("auth %q: %d %q, want 200 and the count", auth, code, body)
		}
		if strings.Contains(body, "/beta/cli") {
			t.Errorf("auth %q: %q names a library the caller may not see", auth, body)
		}
	}
}

// TestReadyzFeedErrorUnderAuth: a registry feed's error may name any
// library, so under access control /readyz gives its text only to a token
// that may read every library; to others, and without a token, the feed's
// state, times and count of refused versions remain.
func TestReadyzFeedErrorUnderAuth(t *testing.T) {
	pol := guardPolicy(t)
	feed := FeedStatus{Source: "oci://registry.example/docs:latest", Error: "pull refused /beta/cli@main", Failing: time.Unix(0, 0), NextTry: time.Unix(60, 0), Refused: 1}
	ts := httptest.NewServer(Handler(openEngine(t, twoLibraries(t), search.Options{}), "test", slog.New(slog.DiscardHandler), HTTPOptions{
		Auth:  func() *access.Policy { return pol },
		Feeds: func() []FeedStatus { return []FeedStatus{feed} },
	}))
	defer ts.Close()
	for auth, named := range map[string]bool{"": false, "Bearer c7_guess": false, "Bearer " + widgetsToken: false, "Bearer " + allToken: true} {
		_, _, body := send(t, "GET", ts.URL+"/readyz", auth, "", nil)
		if !strings.Contains(body, "feed oci://registry.example/docs:latest: nothing delivered yet; 1 versions refused; failing since") {
			t.Errorf("auth %q: %q, want the feed's state", auth, body)
		}
		if got := strings.Contains(body, "/beta/cli"); got != named {
			t.Errorf("auth %q: %q; the feed's error shown: %v, want %v", auth, body, got, named)
		}
	}
}

// TestNoListings checks that no path lists a directory or serves a file:
// the server has no file server, and paths that look like the artifact
// tree or try to climb out of it get a short 404.
func TestNoListings(t *testing.T) {
	engine := fixtureEngine(t)
	ts := httptest.NewServer(Handler(engine, "test", slog.New(slog.DiscardHandler), HTTPOptions{}))
	defer ts.Close()
	for _, path := range []string{"/", "/dist/", "/acme/", "/acme/widgets/main/manifest.json", "/catalog.json", "/api/", "/api/v2/", "/%2e%2e/", "/api/../catalog.json", "/mcp/", "/metrics/", "/.git/config"} {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.URL.Opaque = path // sent as written, not cleaned by the client
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Errorf("GET %s: %d, want a 4xx", path, resp.StatusCode)
		}
		for _, leak := range []string{"<a href", "catalog.json\"", "formatVersion", "manifest", engine.Dirs()[0], "goroutine"} {
			if strings.Contains(string(body), leak) {
				t.Errorf("GET %s: body %q shows %q", path, body, leak)
			}
		}
	}
}

// TestAuditPanic checks that a request whose handler panicked is audited
// with the 500 it gets, not the 200 a handler that wrote nothing implies.
func TestAuditPanic(t *testing.T) {
	var log syncbuf.Buffer
	g := &guard{origins: map[string]bool{}, audit: slog.New(slog.NewJSONHandler(&log, nil)), ids: newRequestIDs(), now: time.Now,
		next: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })}
	ts := httptest.NewServer(recoverPanics(slog.New(slog.DiscardHandler), g))
	defer ts.Close()
	code, _, _ := send(t, "GET", ts.URL+"/api/v2/libs/search?libraryName=x", "", "", nil)
	if code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", code)
	}
	for _, l := range auditLines(t, log.String()) {
		if l.Status != http.StatusInternalServerError {
			t.Errorf("audited status %d, want 500", l.Status)
		}
	}
}

// TestRefuseIsJSON checks that /api refusals are valid JSON whatever the
// message holds.
func TestRefuseIsJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	refuse(rec, "/api", http.StatusTooManyRequests, "rate_limited", "token \"ci\x01\" \u00e9 \\ </script>")
	var e struct{ Error, Message string }
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error != "rate_limited" || e.Message != "token \"ci\x01\" \u00e9 \\ </script>" {
		t.Errorf("body %q: %v, %+v", rec.Body.String(), err, e)
	}
}

// TestUnknownTokensLimited checks that an address that presented too many
// unknown tokens is refused with 429 on every route but the probes, known
// token or not, and that the refusal says when to retry.
func TestUnknownTokensLimited(t *testing.T) {
	pol := guardPolicy(t)
	reg := metrics.NewRegistry()
	h := Handler(fixtureEngine(t), "test", slog.New(slog.DiscardHandler), HTTPOptions{
		Auth:    func() *access.Policy { return pol },
		Guesses: access.NewGuesses(3),
		Metrics: reg,
	})
	ts := httptest.NewServer(h)
	defer ts.Close()
	api := ts.URL + "/api/v2/libs/search?libraryName=widgets"
	if code, _, _ := send(t, "GET", api, "Bearer "+allToken, "", nil); code != http.StatusOK {
		t.Fatalf("a known token: %d", code)
	}
	for i := range 3 {
		if code, _, body := send(t, "GET", api, fmt.Sprint("Bearer guess-", i), "", nil); code != http.StatusUnauthorized {
			t.Fatalf("unknown token %d: %d %s, want 401", i, code, body)
		}
	}
	code, hdr, body := send(t, "GET", api, "Bearer guess-3", "", nil)
	if code != http.StatusTooManyRequests || !strings.Contains(body, "too many unknown tokens from this address") || !strings.Contains(body, `"error":"too_many_guesses"`) {
		t.Fatalf("fourth unknown token: %d %s, want 429 naming the cause, in Context7's JSON error", code, body)
	}
	if s, err := strconv.Atoi(hdr.Get("Retry-After")); err != nil || s < 1 || s > 20 {
		t.Errorf("Retry-After %q, want the 20 s one guess takes at 3 a minute", hdr.Get("Retry-After"))
	}
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/api/v2/libs/search?libraryName=widgets", ""},
		{"POST", "/mcp", pingBody},
		{"GET", "/metrics", ""},
	} {
		if code, _, body := send(t, r.method, ts.URL+r.path, "Bearer "+allToken, r.body, nil); code != http.StatusTooManyRequests {
			t.Errorf("%s %s with a known token while out of guesses: %d %s, want 429", r.method, r.path, code, body)
		}
	}
	for _, probe := range []string{"/healthz", "/readyz"} {
		if code, _, body := send(t, "GET", ts.URL+probe, "Bearer "+allToken, "", nil); code != http.StatusOK {
			t.Errorf("GET %s while out of guesses: %d %s, want 200", probe, code, body)
		}
	}
	// Every token presented is counted: 1 known, 3 unknown, and 5 refused
	// (the fourth guess, 3 routes and /readyz with a known token; /healthz
	// reads no token).
	var text strings.Builder
	if err := reg.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`codex7_auth_tokens_total{result="known"} 1`, `codex7_auth_tokens_total{result="unknown"} 3`, `codex7_auth_tokens_total{result="refused"} 5`} {
		if !strings.Contains(text.String(), want+"\n") {
			t.Errorf("metrics lack %s:\n%s", want, grepLines(text.String(), "codex7_auth_tokens_total"))
		}
	}
}

// grepLines is text's lines that contain s.
func grepLines(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestUnknownCookieTokensLimited: tokens in the site's cookie spend the
// address's guesses as bearer headers do.
func TestUnknownCookieTokensLimited(t *testing.T) {
	pol := guardPolicy(t)
	site := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "the site") })
	h := Handler(fixtureEngine(t), "test", slog.New(slog.DiscardHandler), HTTPOptions{
		Auth:       func() *access.Policy { return pol },
		Guesses:    access.NewGuesses(3),
		Site:       site,
		SiteCookie: "c7",
	})
	ts := httptest.NewServer(h)
	defer ts.Close()
	cookie := func(tok string) map[string]string {
		return map[string]string{"Cookie": "c7=" + base64.RawURLEncoding.EncodeToString([]byte(tok))}
	}
	for i := range 3 {
		if code, _, body := send(t, "GET", ts.URL+"/acme/widgets", "", "", cookie(fmt.Sprint("guess-", i))); code != http.StatusOK {
			t.Fatalf("unknown cookie token %d: %d %s, want the site (without a login)", i, code, body)
		}
	}
	code, hdr, body := send(t, "GET", ts.URL+"/acme/widgets", "", "", cookie(allToken))
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" || !strings.Contains(body, "a right one too") {
		t.Errorf("a known cookie token after three unknown ones: %d %s, want 429 with Retry-After", code, body)
	}
}

// TestHealthzReadsNoToken: /healthz answers anyone and reads no token, so
// a probe with a wrong one spends none of its address's guesses.
func TestHealthzReadsNoToken(t *testing.T) {
	pol := guardPolicy(t)
	ts := httptest.NewServer(Handler(fixtureEngine(t), "test", slog.New(slog.DiscardHandler), HTTPOptions{
		Auth:    func() *access.Policy { return pol },
		Guesses: access.NewGuesses(1),
	}))
	defer ts.Close()
	for i := range 3 {
		if code, _, _ := send(t, "GET", ts.URL+"/healthz", fmt.Sprint("Bearer wrong-", i), "", nil); code != http.StatusOK {
			t.Fatalf("/healthz with a wrong token: %d", code)
		}
	}
	if code, _, body := send(t, "GET", ts.URL+"/api/v2/libs/search?libraryName=widgets", "Bearer "+allToken, "", nil); code != http.StatusOK {
		t.Errorf("a known token after probes with wrong ones: %d %s, want 200", code, body)
	}
}
