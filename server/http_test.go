package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/codex7/codex7/context7"
	"github.com/codex7/codex7/internal/waitfor"
	"github.com/codex7/codex7/metrics"
)

// scrape fetches /metrics, checks it is the Prometheus text format, and
// returns every sample as "name{label="value",...}" (labels sorted by name)
// to its value; histograms give their _count and _sum.
func scrape(t *testing.T, base string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != metrics.ContentType {
		t.Fatalf("/metrics: status %d, Content-Type %q; want 200, %q", resp.StatusCode, resp.Header.Get("Content-Type"), metrics.ContentType)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.Metric {
			var ls []string
			for _, l := range m.Label {
				ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			slices.Sort(ls)
			labels := ""
			if len(ls) > 0 {
				labels = "{" + strings.Join(ls, ",") + "}"
			}
			switch {
			case m.Counter != nil:
				out[name+labels] = m.Counter.GetValue()
			case m.Gauge != nil:
				out[name+labels] = m.Gauge.GetValue()
			case m.Histogram != nil:
				out[name+"_count"+labels] = float64(m.Histogram.GetSampleCount())
				out[name+"_sum"+labels] = m.Histogram.GetSampleSum()
			}
		}
	}
	return out
}

// settle scrapes base until no request is in flight (scrapes aside), twice
// running, and returns the second scrape.
func settle(t *testing.T, base string) map[string]float64 {
	t.Helper()
	var m map[string]float64
	waitfor.Nil(t, 5*time.Second, "no request in flight", func() error {
		// A scrape renders its series in name order, the in-flight gauge
		// after the latency histogram: one that reads the gauge at 0 may
		// have rendered the histogram before the last request was timed.
		// Every request that gauge saw finish is whole in the next scrape.
		for range 2 {
			m = scrape(t, base)
			if n := m["codex7_http_requests_in_flight"]; n != 0 {
				return fmt.Errorf("%v requests in flight", n)
			}
		}
		return nil
	})
	return m
}

// moved returns the samples whose name starts with one of prefixes and
// whose value differs between before and after, with the difference. The
// scrapes' own series (route="/metrics") are left out: a scrape is
// counted once its handler returns, which can be after the client has read
// it and sent the next.
func moved(before, after map[string]float64, prefixes ...string) map[string]float64 {
	d := map[string]float64{}
	for k, v := range after {
		if strings.Contains(k, `route="/metrics"`) {
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) && v != before[k] {
				d[k] = v - before[k]
			}
		}
	}
	return d
}

func diffMaps(want, got map[string]float64) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			fmt.Fprintf(&b, "%s: got %v, want %v\n", k, got[k], want[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			fmt.Fprintf(&b, "%s: got %v, want no change\n", k, got[k])
		}
	}
	return b.String()
}

// TestMetricsCountCalls makes MCP calls through the SDK's client over
// streamable HTTP, then checks that /metrics moved by exactly those calls.
func TestMetricsCountCalls(t *testing.T) {
	engine := fixtureEngine(t)
	for _, p := range clientPaths {
		t.Run(p.name, func(t *testing.T) { testMetricsCountCalls(t, engine, p.version) })
	}
}

func testMetricsCountCalls(t *testing.T, engine Engine, version string) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ts := httptest.NewServer(Handler(engine, "test", slog.New(slog.DiscardHandler), HTTPOptions{Start: start}))
	defer ts.Close()
	ctx := context.Background()
	cs := authClientAt(t, ts.URL, "", version)

	before := settle(t, ts.URL)
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		isError bool
	}{
		{"resolve-library-id", map[string]any{"libraryName": "widgets"}, false},
		{"resolve-library-id", map[string]any{"libraryName": " "}, true},
		{"get-library-docs", map[string]any{"libraryId": "/acme/widgets", "customQuery": "polling"}, false},
		{"get-library-docs", map[string]any{"libraryId": "/acme/nope", "customQuery": "x"}, true},
		{"get-library-docs", map[string]any{"libraryId": "/acme/widgets", "customQuery": "environment"}, false},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || res.IsError != tc.isError {
			t.Fatalf("%s %v: err %v, isError %v; want isError %v", tc.tool, tc.args, err, res != nil && res.IsError, tc.isError)
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no-such-tool"}); err == nil {
		t.Fatal("calling an unknown tool: no error")
	}
	for _, path := range []string{"/nope", "/mcp"} { // 404, and 405 for GET /mcp
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	// The SDK may finish a request's handler just after the client has its
	// answer; scrape until nothing is in flight.
	after := settle(t, ts.URL)

	want := map[string]float64{
		`codex7_mcp_tool_calls_total{outcome="ok",tool="resolve-library-id"}`:         1,
		`codex7_mcp_tool_calls_total{outcome="tool_error",tool="resolve-library-id"}`: 1,
		`codex7_mcp_tool_calls_total{outcome="ok",tool="get-library-docs"}`:           2,
		`codex7_mcp_tool_calls_total{outcome="tool_error",tool="get-library-docs"}`:   1,
		`codex7_mcp_tool_calls_total{outcome="protocol_error",tool="other"}`:          1,
		`codex7_mcp_tool_call_duration_seconds_count{tool="resolve-library-id"}`:      2,
		`codex7_mcp_tool_call_duration_seconds_count{tool="get-library-docs"}`:        3,
		`codex7_mcp_tool_call_duration_seconds_count{tool="other"}`:                   1,
		`codex7_http_requests_total{code="200",route="/mcp"}`:                         5,
		`codex7_http_requests_total{code="400",route="/mcp"}`:                         1, // the unknown tool: stateless servers of the latest version answer protocol errors with 400
		`codex7_http_requests_total{code="405",route="/mcp"}`:                         1,
		`codex7_http_requests_total{code="404",route="other"}`:                        1,
		`codex7_http_request_duration_seconds_count{route="/mcp"}`:                    7,
		`codex7_http_request_duration_seconds_count{route="other"}`:                   1,
	}
	if version != "" { // earlier versions answer them in a 200
		delete(want, `codex7_http_requests_total{code="400",route="/mcp"}`)
		want[`codex7_http_requests_total{code="200",route="/mcp"}`] = 6
	}
	got := moved(before, after, "codex7_mcp_tool_calls_total", "codex7_mcp_tool_call_duration_seconds_count", "codex7_http_requests_total", "codex7_http_request_duration_seconds_count")
	if d := diffMaps(want, got); d != "" {
		t.Errorf("series moved other than by the calls made:\n%s", d)
	}
	for _, name := range []string{"codex7_mcp_tool_call_duration_seconds_sum", "codex7_http_request_duration_seconds_sum"} {
		if after[name+`{tool="get-library-docs"}`]+after[name+`{route="/mcp"}`] <= 0 {
			t.Errorf("%s did not grow", name)
		}
	}
	for name, want := range map[string]float64{
		"codex7_catalog_libraries":          1,
		"codex7_catalog_versions":           2,
		"codex7_process_start_time_seconds": float64(start.Unix()),
		"codex7_http_requests_in_flight":    0,
	} {
		if got := after[name]; got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for _, name := range []string{"codex7_go_goroutines", "codex7_go_heap_inuse_bytes"} {
		if after[name] <= 0 {
			t.Errorf("%s = %v, want > 0", name, after[name])
		}
	}
}

// TestCatalogStatsCallback checks that the catalog gauges come from the
// callback given, read at each scrape.
func TestCatalogStatsCallback(t *testing.T) {
	var stats atomic.Pointer[CatalogStats]
	ts := httptest.NewServer(Handler(nil, "test", slog.New(slog.DiscardHandler), HTTPOptions{
		Catalog: func() CatalogStats { return *stats.Load() },
	}))
	defer ts.Close()
	for _, want := range []CatalogStats{{Libraries: 3, Versions: 7}, {Libraries: 4, Versions: 9, Open: 2, MaxOpen: 64, Opens: 5, Evictions: 3, OpenHits: 11}} {
		stats.Store(&want)
		got := scrape(t, ts.URL)
		if got["codex7_catalog_libraries"] != float64(want.Libraries) || got["codex7_catalog_versions"] != float64(want.Versions) {
			t.Errorf("libraries %v, versions %v; want %+v", got["codex7_catalog_libraries"], got["codex7_catalog_versions"], want)
		}
		for name, n := range map[string]float64{
			"codex7_catalog_open_versions":           float64(want.Open),
			"codex7_catalog_max_open_versions":       float64(want.MaxOpen),
			"codex7_catalog_version_opens_total":     float64(want.Opens),
			"codex7_catalog_version_evictions_total": float64(want.Evictions),
			"codex7_catalog_version_open_hits_total": float64(want.OpenHits),
		} {
			if got[name] != n {
				t.Errorf("%s = %v, want %v", name, got[name], n)
			}
		}
	}
}

// TestInFlightCap holds one request open with a body that never ends and
// checks that, with a cap of one, the next request gets 503 with
// Retry-After while probes and /metrics still answer, and that the server
// takes requests again once the first is done.
func TestInFlightCap(t *testing.T) {
	ts := httptest.NewServer(Handler(nil, "test", slog.New(slog.DiscardHandler), HTTPOptions{MaxInFlight: 1, Catalog: func() CatalogStats { return CatalogStats{} }}))
	defer ts.Close()
	body, feed := io.Pipe()
	firstDone := make(chan int)
	go func() {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", body)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			firstDone <- 0
			return
		}
		resp.Body.Close()
		firstDone <- resp.StatusCode
	}()
	feed.Write([]byte(`{"jsonrpc":"2.0",`)) // the server is now reading the body
	waitfor.True(t, 5*time.Second, "the first request to count as in flight", func() bool {
		return scrape(t, ts.URL)["codex7_http_requests_in_flight"] == 1
	})

	resp, err := http.Post(ts.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || !strings.Contains(string(msg), "server busy") {
		t.Errorf("second request: %d, Retry-After %q, %q; want 503, 1, server busy", resp.StatusCode, resp.Header.Get("Retry-After"), msg)
	}
	for _, path := range []string{"/healthz", "/metrics"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s while full: %d, want 200", path, resp.StatusCode)
		}
	}

	feed.Close() // a truncated body: the SDK answers 400
	if code := <-firstDone; code != http.StatusBadRequest {
		t.Errorf("first request: %d, want 400", code)
	}
	settle(t, ts.URL) // the SDK's handler may return after the client has its answer
	resp, err = http.Get(ts.URL + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("after the first finished: %d, want 404 (not 503)", resp.StatusCode)
	}
	got := settle(t, ts.URL)
	if got[`codex7_http_requests_total{code="503",route="/mcp"}`] != 1 || got["codex7_http_requests_in_flight"] != 0 {
		t.Errorf("503s counted %v, in flight %v; want 1, 0", got[`codex7_http_requests_total{code="503",route="/mcp"}`], got["codex7_http_requests_in_flight"])
	}
}

// TestErrorsAreShort checks that refusals are one short text line: no
// stack, no HTML.
func TestErrorsAreShort(t *testing.T) {
	ts := httptest.NewServer(Handler(nil, "test", slog.New(slog.DiscardHandler), HTTPOptions{Catalog: func() CatalogStats { return CatalogStats{} }}))
	defer ts.Close()
	for _, tc := range []struct {
		method, path string
		code         int
		allow        string
	}{
		{"GET", "/nope", http.StatusNotFound, ""},
		{"POST", "/healthz", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"DELETE", "/metrics", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"GET", "/mcp", http.StatusMethodNotAllowed, "POST, DELETE"},
		{"PUT", "/mcp", http.StatusMethodNotAllowed, ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, ts.URL+tc.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.code {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.code)
			}
			if tc.allow != "" && resp.Header.Get("Allow") != tc.allow {
				t.Errorf("Allow %q, want %q", resp.Header.Get("Allow"), tc.allow)
			}
			checkShort(t, resp, body)
		})
	}
}

func checkShort(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q, want text/plain", ct)
	}
	if len(body) > 200 || bytes.Count(body, []byte("\n")) > 1 || bytes.Contains(body, []byte(".go:")) || bytes.Contains(body, []byte("goroutine")) {
		t.Errorf("body is not one short line: %q", body)
	}
}

// TestRecoverPanics checks that a panicking handler gets a short 500 and
// is counted, and that one which had begun its response is cut off.
func TestRecoverPanics(t *testing.T) {
	reg := metrics.NewRegistry()
	m := newServerMetrics(reg, func() CatalogStats { return CatalogStats{} }, func() int64 { return 0 }, time.Now())
	var logs bytes.Buffer
	h := m.observe(recoverPanics(slog.New(slog.NewTextHandler(&logs, nil)), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			w.Write([]byte("partial"))
		}
		panic("boom")
	})))
	ts := httptest.NewServer(h)
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", resp.StatusCode)
	}
	checkShort(t, resp, body)
	if !strings.Contains(logs.String(), "boom") || !strings.Contains(logs.String(), "goroutine") {
		t.Errorf("the panic and its stack are not logged: %s", logs.String())
	}
	// POST, which the client does not retry when the connection drops.
	if resp, err := http.Post(ts.URL+"/readyz", "text/plain", nil); err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil {
			t.Error("a response cut off by a panic arrived whole")
		}
	}
	var out bytes.Buffer
	reg.WriteText(&out)
	for _, want := range []string{`codex7_http_requests_total{route="/healthz",code="500"} 1`, `codex7_http_requests_total{route="/readyz",code="500"} 1`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("metrics lack %s:\n%s", want, out.String())
		}
	}
}

// TestServerLimits checks that every phase of a request has a deadline and
// that oversized headers are refused.
func TestServerLimits(t *testing.T) {
	hs := newHTTPServer(http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	for name, d := range map[string]time.Duration{
		"ReadHeaderTimeout": hs.ReadHeaderTimeout,
		"ReadTimeout":       hs.ReadTimeout,
		"WriteTimeout":      hs.WriteTimeout,
		"IdleTimeout":       hs.IdleTimeout,
	} {
		if d <= 0 {
			t.Errorf("%s = %v, want a deadline", name, d)
		}
	}
	if hs.ReadTimeout < hs.ReadHeaderTimeout || hs.WriteTimeout <= DefaultToolTimeout {
		t.Errorf("ReadTimeout %v, WriteTimeout %v: want ReadTimeout ≥ ReadHeaderTimeout and WriteTimeout > the tool timeout", hs.ReadTimeout, hs.WriteTimeout)
	}
	if hs.MaxHeaderBytes != maxHeaderBytes {
		t.Errorf("MaxHeaderBytes = %d, want %d", hs.MaxHeaderBytes, maxHeaderBytes)
	}

	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- ListenAndServe(ctx, "127.0.0.1:0", http.NotFoundHandler(), slog.New(slog.DiscardHandler), func(a net.Addr) { addrc <- a })
	}()
	addr := <-addrc
	req, _ := http.NewRequest("GET", "http://"+addr.String()+"/", nil)
	req.Header.Set("X-Big", strings.Repeat("a", 2*maxHeaderBytes))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("oversized headers: %d, want 431", resp.StatusCode)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

// TestToolTimeout checks that tools/call, and nothing else, runs with a
// deadline.
func TestToolTimeout(t *testing.T) {
	var deadline time.Time
	var has bool
	h := timeoutToolCalls(time.Minute)(func(ctx context.Context, _ string, _ mcp.Request) (mcp.Result, error) {
		deadline, has = ctx.Deadline()
		return nil, nil
	})
	for _, tc := range []struct {
		method string
		want   bool
	}{
		{"tools/call", true},
		{"tools/list", false},
	} {
		h(context.Background(), tc.method, nil)
		if has != tc.want || has && time.Until(deadline) > time.Minute {
			t.Errorf("%s: deadline %v (%v), want one: %v", tc.method, deadline, has, tc.want)
		}
	}
}

// TestKnownToolsMatchServer keeps knownTools in step with the tools New
// registers: a tool missing from it would be counted as "other".
func TestKnownToolsMatchServer(t *testing.T) {
	// With Context7 configured, the server has every tool it can have.
	cs := connectWith(t, fixtureEngine(t), WithContext7(c7client(remoteFixture(t), context7.Options{})))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range res.Tools {
		got = append(got, tool.Name)
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(knownTools()))
	if !slices.Equal(got, want) {
		t.Errorf("New registers %v; knownTools lists %v", got, want)
	}
}

// BenchmarkInstrumentation measures what the limiter and observe add to a
// request, around a handler that does nothing, and what toolCalls adds to
// a tool call. Run with -cpu 1,2,4.
func BenchmarkInstrumentation(b *testing.B) {
	m := newServerMetrics(metrics.NewRegistry(), func() CatalogStats { return CatalogStats{} }, func() int64 { return 0 }, time.Now())
	b.Run("http", func(b *testing.B) {
		lim := &limiter{max: -1, busy: http.NotFoundHandler()}
		lim.next = m.observe(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
		req := httptest.NewRequest("POST", "/mcp", nil)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			w := httptest.NewRecorder()
			for pb.Next() {
				lim.ServeHTTP(w, req)
			}
		})
	})
	b.Run("tools/call", func(b *testing.B) {
		h := m.toolCalls(func(context.Context, string, mcp.Request) (mcp.Result, error) { return &mcp.CallToolResult{}, nil })
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "get-library-docs"}}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				h(context.Background(), "tools/call", req)
			}
		})
	})
}

// TestNoSessionsKept sends many initialize requests that never say goodbye,
// as careless clients do: a stateless server keeps nothing for them.
func TestNoSessionsKept(t *testing.T) {
	ts := httptest.NewServer(Handler(fixtureEngine(t), "test", slog.New(slog.DiscardHandler), HTTPOptions{}))
	defer ts.Close()
	before := runtime.NumGoroutine()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"careless","version":"1"}}}`
	for i := 0; i < 300; i++ {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") != "" {
			t.Fatalf("initialize: status %d, session %q; want 200 and no session", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
		}
	}
	// The last answers' goroutines end just after their responses.
	if !waitfor.Poll(5*time.Second, func() bool { return runtime.NumGoroutine() <= before+20 }) {
		t.Errorf("%d goroutines 5 s after 300 initializes, %d before: sessions kept", runtime.NumGoroutine(), before)
	}
}

// TestToolTimeoutMessage checks that a call cut off by the tool deadline
// tells the agent what happened and what to try, not "context deadline
// exceeded".
func TestToolTimeoutMessage(t *testing.T) {
	ts := httptest.NewServer(Handler(fixtureEngine(t), "test", slog.New(slog.DiscardHandler), HTTPOptions{ToolTimeout: time.Nanosecond}))
	defer ts.Close()
	cs := authClient(t, ts.URL, "")
	text, isErr := call(t, cs, "get-library-docs", map[string]any{"libraryId": "/acme/widgets", "customQuery": "install"}, nil)
	if !isErr || !strings.Contains(text, "time limit") || strings.Contains(text, "deadline exceeded") {
		t.Errorf("isError %v, %q: want the time limit explained", isErr, text)
	}
}
