package server

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	rtmetrics "runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/metrics"
)

// CatalogStats is what /metrics reports about the loaded catalog.
type CatalogStats struct {
	Ready     bool // a catalog is loaded
	Libraries int  // libraries being served
	Versions  int  // versions being served, over all libraries
	Refused   int  // versions refused (damaged or unreadable artifacts)
	// Unrankable counts the refused versions whose index the ranker cannot
	// read (index.ErrUnrankable): more than zero means a bluge or ice
	// upgrade index/segment.go does not cover, or an index Write did not
	// make.
	Unrankable int
	Open       int // versions whose index is open
	MaxOpen    int // the bound on Open (0: none)
	// Opens counts versions opened (again after an eviction included),
	// Evictions those closed to stay within MaxOpen, OpenHits the requests
	// that found their version open.
	Opens, Evictions, OpenHits int64
	Reloads                    int64 // catalogs loaded since start, the first one excluded
	// AnswerHits and AnswerMisses count answers served from the answer
	// cache and computed.
	AnswerHits, AnswerMisses int64
}

// catalogStats reports the engine's status.
func catalogStats(engine Engine) CatalogStats {
	st := engine.Status()
	cs := CatalogStats{Ready: st.Ready, Libraries: st.Libraries, Versions: st.Versions, Refused: len(st.Refused), Open: st.Open, MaxOpen: st.MaxOpen, Opens: st.Opens, Evictions: st.Evictions, OpenHits: st.OpenHits, Reloads: st.Reloads,
		AnswerHits: st.AnswerHits, AnswerMisses: st.AnswerMisses}
	for _, r := range st.Refused {
		if errors.Is(r.Cause, index.ErrUnrankable) {
			cs.Unrankable++
		}
	}
	return cs
}

// Tool call outcomes, the values of the outcome label.
const (
	outcomeOK            = iota // the tool answered
	outcomeToolError            // the tool answered with isError: bad arguments, unknown library…
	outcomeProtocolError        // a JSON-RPC error: unknown tool, malformed call
	numOutcomes
)

// otherLabel stands for every route or tool outside the known set, so that
// clients sending arbitrary paths or tool names cannot grow the series.
const otherLabel = "other"

// knownRoutes are the paths with a route label of their own.
// Every path under /api counts as the route /api.
func knownRoutes() []string { return []string{"/mcp", "/api", "/healthz", "/readyz", "/metrics"} }

// knownTools are the tools New registers, each with series of its own.
// TestKnownToolsMatchServer fails when New gains a tool not listed here.
func knownTools() []string {
	return []string{"resolve-library-id", "get-library-docs", "get-context7-docs"}
}

// latencyBuckets are the upper bounds, in seconds, of the latency
// histograms: fine around the 3 ms a tool call should take, coarse up to
// the tool timeout.
func latencyBuckets() []float64 {
	return []float64{.0005, .001, .002, .003, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
}

// serverMetrics holds the series the HTTP server records. Its maps are
// filled by newServerMetrics and only read afterwards, so request
// goroutines use them without locking.
type serverMetrics struct {
	requests *metrics.CounterVec           // by route and status code
	latency  map[string]*metrics.Histogram // by route
	tools    map[string]*toolSeries        // by tool name, with otherLabel
}

type toolSeries struct {
	calls   [numOutcomes]*metrics.Counter
	latency *metrics.Histogram
}

// newServerMetrics registers the server's series in reg: HTTP requests and
// latency, MCP tool calls and latency, the in-flight count, the catalog's
// size (stats is called at each scrape) and Go runtime basics. It panics if
// reg already has them.
func newServerMetrics(reg *metrics.Registry, stats func() CatalogStats, inFlight func() int64, start time.Time) *serverMetrics {
	m := &serverMetrics{
		requests: reg.Counter("codex7_http_requests_total", "HTTP requests answered, by route (/mcp, /api, /healthz, /readyz, /metrics or other) and status code.", "route", "code"),
		latency:  map[string]*metrics.Histogram{},
		tools:    map[string]*toolSeries{},
	}
	lat := reg.Histogram("codex7_http_request_duration_seconds", "Time from a request's headers being read to its handler returning, by route.", latencyBuckets(), "route")
	for _, r := range append(knownRoutes(), otherLabel) {
		m.latency[r] = lat.With(r)
	}
	calls := reg.Counter("codex7_mcp_tool_calls_total", "MCP tools/call requests by tool (other for unknown names) and outcome: ok, tool_error (the tool answered with isError) or protocol_error (a JSON-RPC error).", "tool", "outcome")
	toolLat := reg.Histogram("codex7_mcp_tool_call_duration_seconds", "Time to answer an MCP tools/call request, by tool.", latencyBuckets(), "tool")
	for _, t := range append(knownTools(), otherLabel) {
		s := &toolSeries{latency: toolLat.With(t)}
		for o, name := range [numOutcomes]string{"ok", "tool_error", "protocol_error"} {
			s.calls[o] = calls.With(t, name)
		}
		m.tools[t] = s
	}
	reg.GaugeFunc("codex7_http_requests_in_flight", "HTTP requests being served that count against the in-flight cap (all but /healthz, /readyz and /metrics).", func() float64 { return float64(inFlight()) })
	reg.GaugeFunc("codex7_catalog_libraries", "Libraries in the loaded catalog.", func() float64 { return float64(stats().Libraries) })
	reg.GaugeFunc("codex7_catalog_versions", "Library versions in the loaded catalog.", func() float64 { return float64(stats().Versions) })
	reg.GaugeFunc("codex7_catalog_refused_versions", "Library versions refused because their artifacts failed verification or could not be read.", func() float64 { return float64(stats().Refused) })
	reg.GaugeFunc("codex7_catalog_unrankable_versions", "Library versions refused because the ranker cannot read their index (a bluge or ice change index/segment.go does not cover).", func() float64 { return float64(stats().Unrankable) })
	reg.GaugeFunc("codex7_catalog_open_versions", "Library versions whose index is open.", func() float64 { return float64(stats().Open) })
	reg.GaugeFunc("codex7_catalog_max_open_versions", "The bound on open library versions (--max-open; 0: none).", func() float64 { return float64(stats().MaxOpen) })
	reg.CounterFunc("codex7_catalog_version_opens_total", "Library versions opened, again after an eviction included.", func() float64 { return float64(stats().Opens) })
	reg.CounterFunc("codex7_catalog_version_evictions_total", "Library versions closed, least recently used first, to keep at most --max-open open.", func() float64 { return float64(stats().Evictions) })
	reg.CounterFunc("codex7_catalog_version_open_hits_total", "Requests that found their library version already open.", func() float64 { return float64(stats().OpenHits) })
	reg.GaugeFunc("codex7_catalog_reloads", "Catalogs loaded since start, the first one excluded.", func() float64 { return float64(stats().Reloads) })
	reg.CounterFunc("codex7_answer_cache_hits_total", "get-library-docs answers served from the answer cache.", func() float64 { return float64(stats().AnswerHits) })
	reg.CounterFunc("codex7_answer_cache_misses_total", "get-library-docs answers computed (not in the answer cache).", func() float64 { return float64(stats().AnswerMisses) })
	reg.GaugeFunc("codex7_ready", "1 once a catalog is loaded, else 0.", func() float64 {
		if stats().Ready {
			return 1
		}
		return 0
	})
	reg.GaugeFunc("codex7_go_goroutines", "Goroutines that currently exist.", func() float64 { return float64(runtime.NumGoroutine()) })
	reg.GaugeFunc("codex7_go_heap_inuse_bytes", "Bytes in in-use heap spans (runtime.MemStats.HeapInuse), read without stopping the world.", heapInUse)
	startSec := float64(start.UnixNano()) / 1e9
	reg.GaugeFunc("codex7_process_start_time_seconds", "When the server started, in seconds since the Unix epoch.", func() float64 { return startSec })
	return m
}

// heapInUse is MemStats.HeapInuse from runtime/metrics: heap objects plus
// the free space in their spans.
func heapInUse() float64 {
	s := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	rtmetrics.Read(s)
	var n uint64
	for _, x := range s {
		if x.Value.Kind() == rtmetrics.KindUint64 {
			n += x.Value.Uint64()
		}
	}
	return float64(n)
}

// routeOf is the route label of a request path.
func routeOf(path string) string {
	switch path {
	case "/mcp", "/healthz", "/readyz", "/metrics":
		return path
	}
	if strings.HasPrefix(path, "/api/") {
		return "/api"
	}
	return otherLabel
}

// observe counts every request by route and status code and times it.
// It wraps the limiter's 503 answer and everything under the limiter, so
// refusals (503 when full, 403, 413) and panics are counted too: a handler that panics counts as 500, whether
// recoverPanics answered for it or cut its response off.
func (m *serverMetrics) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		route := routeOf(r.URL.Path)
		sw := &statusWriter{ResponseWriter: w}
		returned := false
		defer func() {
			code := sw.code
			switch {
			case !returned:
				code = http.StatusInternalServerError // panicked, answered or cut off
			case code == 0:
				code = http.StatusOK // nothing written: net/http sends 200
			}
			m.latency[route].ObserveDuration(time.Since(start))
			m.requests.With(route, strconv.Itoa(code)).Inc()
		}()
		next.ServeHTTP(sw, r)
		returned = true
	})
}

// statusWriter remembers the status code a handler sends. Unwrap lets
// http.ResponseController, which the SDK uses to flush event streams, reach
// the underlying writer.
type statusWriter struct {
	http.ResponseWriter
	code int // 0 until a final status is sent
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 && code >= 200 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// toolCalls is MCP receiving middleware that counts and times tools/call
// requests by tool and outcome; other methods pass through untouched.
func (m *serverMetrics) toolCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		s := m.tools[otherLabel]
		if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
			if t, ok := m.tools[r.Params.Name]; ok {
				s = t
			}
		}
		start := time.Now()
		res, err := next(ctx, method, req)
		s.latency.ObserveDuration(time.Since(start))
		outcome := outcomeOK
		if err != nil {
			outcome = outcomeProtocolError
		} else if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
			outcome = outcomeToolError
		}
		s.calls[outcome].Inc()
		return res, err
	}
}
