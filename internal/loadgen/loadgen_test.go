package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/internal/waitfor"
	"github.com/codex7/codex7/pipeline"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
)

// fixtureServer builds the two fixture libraries (as server/mcp_test.go's
// fixtureEngine does) and serves them over streamable HTTP from an
// httptest server; it returns the MCP endpoint and the server.
func fixtureServer(t *testing.T) (string, *httptest.Server) {
	t.Helper()
	var src strings.Builder
	src.WriteString("libraries:\n")
	for _, l := range []struct{ id, dir string }{{"/acme/widgets", "acme-widgets"}, {"/acme/cli", "acme-cli"}} {
		w := gittest.New(t, "main")
		w.CopyDir("../../fixtures/docs/"+l.dir, "")
		w.Commit("docs")
		src.WriteString("  - id: " + l.id + "\n    repo: " + w.Dir + "\n")
	}
	cfg, err := config.Parse(strings.NewReader(src.String()), "codex7.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if res, err := pipeline.Build(context.Background(), cfg, pipeline.Options{Out: out}); err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	engine, err := search.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ts := httptest.NewServer(server.Handler(engine, "test", log, server.HTTPOptions{}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", ts
}

var fixtureIDs = []string{"/acme/widgets", "/acme/cli"}

// fixturePlan discovers the fixture libraries over MCP and plans queries
// over them.
func fixturePlan(t *testing.T, endpoint string) []Call {
	t.Helper()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, HTTP(endpoint)(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	libs, err := Discover(ctx, cs, fixtureIDs)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range libs {
		if len(l.Topics) == 0 || len(l.Paths) == 0 {
			t.Fatalf("discovered %+v, want topics and paths", l)
		}
	}
	return Plan(libs, []string{"create a widget", "deploy to production", "configuration file"})
}

// connectors are the two kinds of client a Generator drives a server
// with.
var connectors = []struct {
	name    string
	connect func(ctx context.Context, endpoint string, concurrency int, plan []Call) (*Generator, error)
}{
	{"sdk", func(ctx context.Context, endpoint string, concurrency int, plan []Call) (*Generator, error) {
		return Connect(ctx, HTTP(endpoint), concurrency, plan)
	}},
	{"lean", ConnectLean},
	{"mixed", ConnectMixed},
}

func TestRun(t *testing.T) {
	endpoint, _ := fixtureServer(t)
	plan := fixturePlan(t, endpoint)
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) { testRun(t, endpoint, plan, cn.connect) })
	}
}

func testRun(t *testing.T, endpoint string, plan []Call, connect func(context.Context, string, int, []Call) (*Generator, error)) {
	tests := []struct {
		name        string
		concurrency int
		opts        RunOptions
		wantCalls   int // 0: bounded by time, at least one
	}{
		{"count, one client", 1, RunOptions{Count: 25}, 25},
		{"count, four clients", 4, RunOptions{Count: 50, Duration: time.Minute}, 50},
		{"whole plan twice", 3, RunOptions{Count: 2 * len(plan)}, 2 * len(plan)},
		{"duration", 2, RunOptions{Duration: 300 * time.Millisecond, PID: ownPID(t), SampleEvery: 50 * time.Millisecond}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			g, err := connect(ctx, endpoint, tt.concurrency, plan)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			start := time.Now()
			r, err := g.Run(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			if r.Failed() != 0 {
				t.Fatalf("%v: errors %q", r, r.Errors)
			}
			if tt.wantCalls != 0 && r.OK != tt.wantCalls {
				t.Errorf("ok = %d, want %d", r.OK, tt.wantCalls)
			}
			if tt.wantCalls == 0 && (r.OK == 0 || took > tt.opts.Duration+5*time.Second) {
				t.Errorf("ok = %d in %v, want some within about %v", r.OK, took, tt.opts.Duration)
			}
			if r.Latency.N != r.OK || len(r.Latencies) != r.OK || !slices.IsSorted(r.Latencies) {
				t.Errorf("latency over %d calls (%d samples), want %d sorted", r.Latency.N, len(r.Latencies), r.OK)
			}
			if r.Latency.P50 <= 0 || r.Latency.P50 > r.Latency.P99 || r.Elapsed <= 0 || r.Throughput() <= 0 || r.Concurrency != tt.concurrency {
				t.Errorf("implausible result %v", r)
			}
			n := 0
			for _, s := range r.ByKind {
				n += s.N
			}
			if n != r.OK {
				t.Errorf("by kind %d calls, want %d", n, r.OK)
			}
			// Not PeakRSS >= an earlier RSS: Linux updates the peak
			// (VmHWM) from counters it syncs lazily, and it was seen
			// 36 KB below an RSS read 300 ms before.
			if n := len(r.Memory); tt.opts.PID != 0 && (n < 2 || r.Memory[0].RSS <= 0 || r.Memory[n-1].PeakRSS < r.Memory[0].RSS*9/10) {
				t.Errorf("memory samples %+v, want at least two plausible ones", r.Memory)
			}
			if r.ClientCPU <= 0 || r.ServerCPU < 0 {
				t.Errorf("CPU: client %v, server %v", r.ClientCPU, r.ServerCPU)
			}
		})
	}
}

// ownPID returns this process's id for RunOptions.PID, or 0 on a system
// where Run cannot sample a process (ReadProcCPU fails with
// errors.ErrUnsupported: neither Linux nor Windows).
func ownPID(t *testing.T) int {
	t.Helper()
	if _, err := ReadProcCPU(os.Getpid()); errors.Is(err, errors.ErrUnsupported) {
		t.Logf("no process sampling: %v", err)
		return 0
	}
	return os.Getpid()
}

// TestRunErrors checks that tool errors and transport errors are counted
// apart and that neither stops a run.
func TestRunErrors(t *testing.T) {
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			endpoint, ts := fixtureServer(t)
			testRunErrors(t, endpoint, ts, cn.connect)
		})
	}
}

func testRunErrors(t *testing.T, endpoint string, ts *httptest.Server, connect func(context.Context, string, int, []Call) (*Generator, error)) {
	ctx := context.Background()
	bad := []Call{{Kind: KindQuery, Library: "/acme/nothing", Query: "widgets"}, {Kind: KindQuery, Library: "/acme/widgets", Query: "widgets"}}
	g, err := connect(ctx, endpoint, 2, bad)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	r, err := g.Run(ctx, RunOptions{Count: 10})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK != 5 || r.ToolErrors != 5 || r.TransportErrors != 0 || r.ProtocolErrors != 0 || len(r.Errors) != 5 {
		t.Fatalf("got %v %q, want 5 answers and 5 tool errors", r, r.Errors)
	}
	if !strings.Contains(r.Errors[0], "/acme/nothing") {
		t.Errorf("error %q does not name the call", r.Errors[0])
	}

	ts.CloseClientConnections()
	ts.Close()
	r, err = g.Run(ctx, RunOptions{Count: 4})
	if err != nil {
		t.Fatal(err)
	}
	if r.TransportErrors != 4 || r.Answered() != 0 || r.Latency.N != 0 {
		t.Errorf("after the server closed: %v %q, want 4 transport errors", r, r.Errors)
	}
}

func TestRunCanceled(t *testing.T) {
	endpoint, _ := fixtureServer(t)
	g, err := Connect(context.Background(), HTTP(endpoint), 2, fixturePlan(t, endpoint))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	r, err := g.Run(ctx, RunOptions{Count: 1 << 30})
	if err != context.DeadlineExceeded || r.Failed() != 0 {
		t.Errorf("run = %v, %v; want the context's error and no failures counted", r, err)
	}
}

func TestRunOptions(t *testing.T) {
	if _, err := Connect(context.Background(), HTTP("http://127.0.0.1:1/mcp"), 0, []Call{{}}); err == nil {
		t.Error("Connect with concurrency 0: no error")
	}
	if _, err := Connect(context.Background(), HTTP("http://127.0.0.1:1/mcp"), 1, nil); err == nil {
		t.Error("Connect with no plan: no error")
	}
	g := &Generator{plan: []Call{{}}}
	if _, err := g.Run(context.Background(), RunOptions{}); err == nil {
		t.Error("Run without count or duration: no error")
	}
	if _, err := g.Run(context.Background(), RunOptions{Count: 1}); err == nil {
		t.Error("Run without sessions: no error")
	}
}

func TestPlan(t *testing.T) {
	libs := []Library{
		{ID: "/a/one", Topics: []string{"t1", "t2"}, Paths: []string{"p1"}},
		{ID: "/b/two"}, // no topics or paths: queries instead
		{ID: "/c/three", Topics: []string{"x"}, Paths: []string{"q1", "q2"}},
	}
	queries := []string{"q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9"}
	plan := Plan(libs, queries)
	if again := Plan(libs, queries); !reflect.DeepEqual(plan, again) {
		t.Fatalf("Plan is not deterministic:\n%+v\n%+v", plan, again)
	}
	if want := 2 * len(pattern) * len(libs); len(plan) != want {
		t.Fatalf("len(plan) = %d, want %d", len(plan), want)
	}
	type key struct{ lib, kind string }
	kinds := map[key]int{}
	asked := map[key]bool{}
	for i, c := range plan {
		lib := c.Library
		if c.Kind == KindResolve {
			lib = "/" + c.Name
		}
		kinds[key{lib, c.Kind}]++
		if c.Query != "" {
			asked[key{c.Library, c.Query}] = true
		}
		if i > 0 && plan[i-1].Library == c.Library && c.Library != "" {
			t.Errorf("calls %d and %d are both for %s: libraries should take turns", i-1, i, c.Library)
		}
		args := c.Args()
		switch c.Kind {
		case KindResolve:
			if c.Tool() != ToolResolve || args["libraryName"] == "" || len(args) != 1 {
				t.Errorf("resolve call %+v: %s %v", c, c.Tool(), args)
			}
		case KindCode:
			if args["mode"] != "code" || args["customQuery"] == nil {
				t.Errorf("code call %v", args)
			}
		case KindTopics:
			if args["customQuery"] != nil || len(args["topics"].([]string)) != 1 {
				t.Errorf("topics call %v", args)
			}
		case KindPath:
			if args["path"] == nil {
				t.Errorf("path call %v", args)
			}
		}
	}
	for _, l := range []string{"/a/one", "/c/three"} {
		for _, k := range []string{KindQuery, KindCode, KindTopics, KindPath} {
			if kinds[key{l, k}] == 0 {
				t.Errorf("no %s call for %s", k, l)
			}
		}
		for _, q := range queries {
			if !asked[key{l, q}] {
				t.Errorf("%s never asked %q", l, q)
			}
		}
	}
	for _, k := range []string{KindTopics, KindPath} {
		if kinds[key{"/b/two", k}] != 0 {
			t.Errorf("%s call for /b/two, which has none", k)
		}
	}
	for _, name := range []string{"/one", "/two", "/three"} {
		if kinds[key{name, KindResolve}] == 0 {
			t.Errorf("no resolve call for %s", name)
		}
	}
	if Plan(nil, queries) != nil || Plan(libs, nil) != nil {
		t.Error("Plan without libraries or queries is not empty")
	}
}

func TestReadQueries(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		wantErr  bool
	}{
		{"eval lines", `{"library": "a/b", "query": "cors", "expected": []}
{"library": "a/b", "query": " proxy websocket "}

{"library": "c/d", "query": "cors"}
`, []string{"cors", "proxy websocket"}, false},
		{"no query field", `{"library": "a/b"}`, nil, false},
		{"not json", "{\"query\": \"ok\"}\nnope\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadQueries(strings.NewReader(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStats(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = ms(i + 1)
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		want   Stats
	}{
		{"none", nil, Stats{}},
		{"one", []time.Duration{ms(3)}, Stats{N: 1, Min: ms(3), Mean: ms(3), P50: ms(3), P90: ms(3), P99: ms(3), Max: ms(3)}},
		{"1 to 100 ms", hundred, Stats{N: 100, Min: ms(1), Mean: ms(50) + ms(1)/2, P50: ms(50), P90: ms(90), P99: ms(99), Max: ms(100)}},
		{"two", []time.Duration{ms(1), ms(9)}, Stats{N: 2, Min: ms(1), Mean: ms(5), P50: ms(1), P90: ms(9), P99: ms(9), Max: ms(9)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StatsOf(tt.sorted); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseProcStatus(t *testing.T) {
	tests := []struct {
		name, in string
		want     ProcStatus
		wantErr  bool
	}{
		{"linux", "Name:\tindexer\nVmPeak:\t 1000 kB\nVmHWM:\t   40960 kB\nVmRSS:\t   20480 kB\nRssAnon:\t   16384 kB\nRssFile:\t    4096 kB\nThreads:\t7\n", ProcStatus{RSS: 20 << 20, PeakRSS: 40 << 20, AnonRSS: 16 << 20, FileRSS: 4 << 20, Threads: 7}, false},
		{"before linux 4.5", "VmHWM:\t2 kB\nVmRSS:\t1 kB\nThreads:\t1\n", ProcStatus{RSS: 1 << 10, PeakRSS: 2 << 10, Threads: 1}, false},
		{"missing", "Name:\tx\nVmRSS:\t1 kB\n", ProcStatus{}, true},
		{"garbled", "VmRSS:\tmany kB\nVmHWM:\t1 kB\nThreads:\t1\n", ProcStatus{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcStatus([]byte(tt.in))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
	if _, err := os.Stat("/proc/self/status"); err == nil || runtime.GOOS == "windows" {
		if st, err := ReadProcStatus(os.Getpid()); err != nil || st.RSS <= 0 || st.PeakRSS < st.RSS || st.Threads < 1 {
			t.Errorf("own status = %+v, %v", st, err)
		}
	}
}

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		name, in string
		want     time.Duration
		wantErr  bool
	}{
		{"plain", "4242 (indexer) S 1 4242 4242 0 -1 4194560 1 0 0 0 150 25 0 0 20 0 9 0 1 2 3\n", 1750 * time.Millisecond, false},
		{"command with spaces and parens", "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 2 3\n", 70 * time.Millisecond, false},
		{"truncated", "7 (x) R 1 7", 0, true},
		{"no command", "garbage", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcStat([]byte(tt.in))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil || runtime.GOOS == "windows" {
		if _, err := ReadProcCPU(os.Getpid()); err != nil {
			t.Errorf("own CPU time: %v", err)
		}
	}
}

func TestGauge(t *testing.T) {
	_, ts := fixtureServer(t)
	ctx := context.Background()
	n, err := Gauge(ctx, http.DefaultClient, ts.URL+"/metrics", "codex7_go_goroutines")
	if err != nil || n < 1 {
		t.Errorf("goroutines = %v, %v", n, err)
	}
	if _, err := Gauge(ctx, http.DefaultClient, ts.URL+"/metrics", "codex7_no_such_series"); err == nil {
		t.Error("missing series: no error")
	}
	if _, err := Gauge(ctx, http.DefaultClient, ts.URL+"/nowhere", "x"); err == nil {
		t.Error("404: no error")
	}
}

func TestIsProtocolError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"invalid params from the server", fmt.Errorf("calling: %w", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad"}), true},
		{"method not found", &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound}, true},
		{"rejected by the client's transport", fmt.Errorf("sending: %w", &jsonrpc.Error{Code: codeRejectedByTransport}), false},
		{"client closing", &jsonrpc.Error{Code: codeClientClosing}, false},
		{"connection closed", fmt.Errorf("%w: calling", mcp.ErrConnectionClosed), false},
		{"plain", errors.New("dial tcp: refused"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isProtocolError(tt.err); got != tt.want {
				t.Errorf("isProtocolError(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// TestCloseReleases checks that a closed generator leaves no goroutine
// behind, in the clients or in the server (both in this process): the soak
// test's leak check relies on it.
func TestCloseReleases(t *testing.T) {
	endpoint, _ := fixtureServer(t)
	plan := fixturePlan(t, endpoint)
	ctx := context.Background()
	http.DefaultClient.CloseIdleConnections() // fixturePlan's session
	// The closed connection's goroutines, client's and server's, end soon
	// after: count from when they have.
	before := quietGoroutines(t)
	g, err := Connect(ctx, HTTP(endpoint), 8, plan)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := g.Run(ctx, RunOptions{Count: 40}); err != nil || r.Failed() > 0 {
		t.Fatalf("%v %v", r, err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if !waitfor.Poll(5*time.Second, func() bool { return runtime.NumGoroutine() <= before }) {
		t.Errorf("%d goroutines 5 s after Close, %d before Connect", runtime.NumGoroutine(), before)
	}
}

// quietGoroutines waits until runtime.NumGoroutine has held still for
// 50 ms, goroutines that were ending having ended, and returns it.
func quietGoroutines(t *testing.T) int {
	t.Helper()
	n, since := runtime.NumGoroutine(), time.Now()
	waitfor.True(t, 5*time.Second, "the goroutine count to hold still for 50 ms", func() bool {
		if m := runtime.NumGoroutine(); m != n {
			n, since = m, time.Now()
			return false
		}
		return time.Since(since) >= 50*time.Millisecond
	})
	return n
}
