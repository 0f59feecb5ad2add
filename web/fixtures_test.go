package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/access"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
	"github.com/codex7/codex7/web"
)

// hostileDoc is a document written to attack the page that shows it:
// script tags, event handlers, javascript: links in every markdown form,
// HTML comments, and a raw HTML block. Rendered, it must be inert text.
const hostileDoc = `# Hostile page

Intro <script>window.__pwned = "inline script";</script> text.

<img src=x onerror="window.__pwned='onerror'">

<!-- secret comment: window.__pwned -->

[click me](javascript:window.__pwned='link')
[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)
<javascript:window.__pwned='autolink'>
![image](javascript:window.__pwned='image')

[ref link][evil]

[evil]: javascript:window.__pwned='reference'

## Raw block

<div onmouseover="window.__pwned='div'"><a href="javascript:window.__pwned='html link'">html link</a></div>

<iframe src="javascript:window.__pwned='iframe'"></iframe>

<style>body { display: none }</style>

` + "```html\n<script>this is code, shown as text</script>\n```\n"

// shared is the artifact directory dist builds once for the package's
// tests, which only read it; TestMain removes it.
var shared struct {
	once sync.Once
	dir  string
	ok   bool
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// dist returns the artifact directory of the bundled fixtures
// (/acme/widgets, /acme/cli, as `go run ./cmd/indexer build` builds them)
// and /evil/docs, whose one document is hostileDoc, built once for all the
// package's tests: they must not write to it.
func dist(tb testing.TB) string {
	tb.Helper()
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "codex7-web-dist-")
		if err != nil {
			tb.Fatal(err)
		}
		shared.dir = dir
		buildDist(tb, dir)
		shared.ok = true
	})
	if !shared.ok {
		tb.Fatal("the shared artifacts failed to build (see the first test's failure)")
	}
	return shared.dir
}

// buildDist builds dist's libraries into out, in one build: a build
// leaves out of the catalog the libraries its config does not list, so
// /evil/docs built after the fixtures would be the only library.
func buildDist(tb testing.TB, out string) {
	tb.Helper()
	cfg := fixturesConfig(tb)
	evil := gittest.New(tb, "main")
	evil.Write(map[string]string{"docs/hostile.md": hostileDoc})
	evil.Commit("hostile")
	extra, err := config.Parse(strings.NewReader("libraries:\n  - id: /evil/docs\n    title: Evil Docs\n    repo: "+evil.Dir+"\n"), "codex7.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Libraries = append(cfg.Libraries, extra.Libraries...)
	cfg.Allow.LocalRoots = append(cfg.Allow.LocalRoots, evil.Dir)
	buildtest.BuildConfig(tb, out, cfg)
}

// fixturesDist builds the bundled fixtures alone, as `go run
// ./cmd/indexer build` does, into a new artifact directory.
func fixturesDist(tb testing.TB) string {
	tb.Helper()
	out := tb.TempDir()
	buildFixtures(tb, out)
	return out
}

// buildFixtures builds the bundled fixtures into out.
func buildFixtures(tb testing.TB, out string) {
	tb.Helper()
	buildtest.BuildConfig(tb, out, fixturesConfig(tb))
}

// fixturesConfig is the config of a copy of the bundled fixtures.
func fixturesConfig(tb testing.TB) *config.Config {
	tb.Helper()
	cfg, err := config.Load(buildtest.Fixtures(tb, "..", nil))
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// openEngine opens an engine on dir.
func openEngine(tb testing.TB, dir string) *search.Engine {
	tb.Helper()
	e, err := search.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// Tokens of the test policy: one sees every library, one only /acme/cli.
const (
	tokenAll = "c7_all-the-libraries"
	tokenCLI = "c7_only-the-cli"
)

// testPolicy is a policy with tokenAll and tokenCLI.
func testPolicy(tb testing.TB) *access.Policy {
	tb.Helper()
	p, err := access.Parse(strings.NewReader(`tokens:
  - name: all
    sha256: `+access.HashToken(tokenAll)+`
    libraries: ["/*/*"]
    rate: 1000
  - name: cli
    sha256: `+access.HashToken(tokenCLI)+`
    libraries: ["/acme/cli"]
    rate: 1000
`), "tokens.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// testRepo gives every library a GitHub repository, for links.
func testRepo(library, _ string) string { return "https://github.com" + library }

// handler is the server's whole HTTP handler with the site mounted, as
// indexer serve builds it; pol may be nil.
func handler(engine *search.Engine, pol *access.Policy) http.Handler {
	return guardedHandler(engine, pol, nil)
}

// guardedHandler is handler with the server and site sharing guesses, the
// limit of unknown tokens, behind the trusted proxies (none: nil).
func guardedHandler(engine *search.Engine, pol *access.Policy, guesses *access.Guesses, trusted ...netip.Prefix) http.Handler {
	var auth func() *access.Policy
	if pol != nil {
		auth = func() *access.Policy { return pol }
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	site := web.New(engine, web.Options{Auth: auth, Repo: testRepo, Logger: log})
	return server.Handler(engine, "test", log, server.HTTPOptions{Auth: auth, Guesses: guesses, TrustedProxies: trusted, Site: site, SiteCookie: web.CookieName})
}

// mcpSession is a real MCP client of the server at base, with token as its
// bearer when not empty.
func mcpSession(tb testing.TB, base, token string) *mcp.ClientSession {
	tb.Helper()
	hc := &http.Client{Transport: bearerTransport{token}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "web-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// toolAnswer calls get-library-docs and returns its text and structured
// answer.
func toolAnswer(tb testing.TB, cs *mcp.ClientSession, args map[string]any) (string, *search.Answer) {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get-library-docs", Arguments: args})
	if err != nil {
		tb.Fatal(err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		tb.Fatalf("get-library-docs %v: %s", args, text.String())
	}
	var ans search.Answer
	if err := remarshal(res.StructuredContent, &ans); err != nil {
		tb.Fatal(err)
	}
	return text.String(), &ans
}

// serve starts h on a loopback test server.
func serve(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	ts := httptest.NewServer(h)
	tb.Cleanup(ts.Close)
	return ts
}

// serveRepo builds library id from a git repository of files, one
// commit, and serves the site on it without access control; it returns
// the server and the commit.
func serveRepo(tb testing.TB, id string, files map[string]string) (*httptest.Server, string) {
	tb.Helper()
	repo := gittest.New(tb, "main")
	repo.Write(files)
	commit := repo.Commit("docs")
	cfg, err := config.Parse(strings.NewReader("libraries:\n  - id: "+id+"\n    repo: "+repo.Dir+"\n"), "codex7.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Allow.LocalRoots = append(cfg.Allow.LocalRoots, repo.Dir)
	out := tb.TempDir()
	buildtest.BuildConfig(tb, out, cfg)
	return serve(tb, handler(openEngine(tb, out), nil)), commit
}
