package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
)

// benchQueries are questions about the bundled fixtures.
var benchQueries = []struct{ library, query string }{
	{"/acme/widgets", "install widgets"},
	{"/acme/widgets", "chart options"},
	{"/acme/widgets", "theme environment variables"},
	{"/acme/cli", "deploy to production"},
	{"/acme/cli", "create a new app"},
}

// BenchmarkQueryPage measures a query page against the bundled fixtures
// (as `go run ./cmd/indexer build` builds them), one question after the
// other, and reports the latency's p50 and p99 in milliseconds:
//   - engine: Engine.Docs alone, what get-library-docs costs before MCP;
//   - page: the whole server handler (guard, site, engine, markdown, the
//     template), called in process;
//   - page-http: the same over a loopback HTTP connection, with a client.
//
// The engine keeps recent answers, so after the first round these measure
// a cached answer: the difference is the page's own cost. engine-nocache
// and page-nocache do the same with an engine that keeps none, so that
// every call ranks and packs again.
func BenchmarkQueryPage(b *testing.B) {
	dir := fixturesDist(b)
	engine := openEngine(b, dir)
	h := handler(engine, nil)
	uncached, err := search.OpenWith(dir, search.Options{AnswerCacheBytes: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { uncached.Close() })
	hUncached := handler(uncached, nil)
	ts := httptest.NewServer(h)
	b.Cleanup(ts.Close)
	paths := make([]string, len(benchQueries))
	for i, q := range benchQueries {
		paths[i] = q.library + "/-/query?" + url.Values{"q": {q.query}}.Encode()
	}
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		run  func(i int) error
	}{
		{"engine", func(i int) error {
			q := benchQueries[i%len(benchQueries)]
			_, err := engine.Docs(ctx, search.DocsRequest{Library: q.library, Query: q.query})
			return err
		}},
		{"page", func(i int) error { return servePage(b, h, paths[i%len(paths)]) }},
		{"engine-nocache", func(i int) error {
			q := benchQueries[i%len(benchQueries)]
			_, err := uncached.Docs(ctx, search.DocsRequest{Library: q.library, Query: q.query})
			return err
		}},
		{"page-nocache", func(i int) error { return servePage(b, hUncached, paths[i%len(paths)]) }},
		{"page-http", func(i int) error {
			resp, err := ts.Client().Get(ts.URL + paths[i%len(paths)])
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				return err
			}
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("%s: %d", paths[i%len(paths)], resp.StatusCode)
			}
			return nil
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := range benchQueries { // warm: open the versions, fill the caches
				if err := bc.run(i); err != nil {
					b.Fatal(err)
				}
			}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				if err := bc.run(i); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100])/1e6, "p99-ms")
		})
	}
}

// servePage serves GET path with h in process and fails b unless it is 200.
func servePage(b *testing.B, h http.Handler, path string) error {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: %d\n%s", path, rec.Code, rec.Body)
	}
	return nil
}

// BenchmarkMCPBesideSite measures get-library-docs over streamable HTTP
// (an SDK client on loopback, one call at a time) from the server's
// handler without the site (indexer serve --no-ui) and with it mounted at
// "/", as indexer serve runs by default: mounting the page must not slow
// the tools. It reports the p50 and p99 in milliseconds.
func BenchmarkMCPBesideSite(b *testing.B) {
	engine := openEngine(b, fixturesDist(b))
	log := slog.New(slog.DiscardHandler)
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{
		{"site-off", server.Handler(engine, "bench", log, server.HTTPOptions{})},
		{"site-on", handler(engine, nil)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ts := httptest.NewServer(bc.h)
			defer ts.Close()
			cs := mcpSession(b, ts.URL, "")
			ctx := context.Background()
			call := func(i int) {
				q := benchQueries[i%len(benchQueries)]
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-library-docs", Arguments: map[string]any{"libraryId": q.library, "customQuery": q.query}})
				if err != nil || res.IsError {
					b.Fatalf("%v: %v %+v", q, err, res)
				}
			}
			for i := range benchQueries {
				call(i)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				call(i)
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100])/1e6, "p99-ms")
		})
	}
}
