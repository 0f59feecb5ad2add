package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/internal/loadgen"
	"github.com/codex7/codex7/internal/waitfor"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
)

// The serving benchmarks measure `indexer serve` over all of -corpus: the
// engine in-process, the real binary over streamable HTTP and stdio with
// the SDK's clients on loopback (internal/loadgen), cold start and memory.
// Run them through `task bench:serve`; docs/BENCHMARKS.md ("Serving") has
// the figures and how to read them.
var (
	// Not -artifacts: go test has its own flag of that name since Go 1.25.
	serveArtifacts = flag.String("artifacts-dir", "", "serve this artifact directory instead of building -corpus (cached in the temp dir)")
	evalFile       = flag.String("eval", filepath.Join("..", "..", "..", "shared", "eval", "dev.jsonl"), "evaluation file whose query texts make the serving workload")
	serverProfile  = flag.String("server-cpuprofile", "", "BenchmarkServeHTTP: write the server's CPU profile to this file (warm-up included)")
	serverMemProf  = flag.String("server-memprofile", "", "BenchmarkServeHTTP: write the server's heap profile to this file at its end")
	serverBin      = flag.String("server-bin", "", "run this indexer binary as the server instead of building this tree's (to compare builds)")
	loadTimeout    = flag.Duration("loadtime", time.Minute, "the longest one measured load may run, whatever -benchtime asks")
)

// BenchmarkServeInProcess measures the engine without MCP or HTTP, every
// library opened first: one op is one Engine.Docs (docs) or Engine.Search
// (search) call of the workload's get-library-docs calls, one after the
// other. It reports the latency's p50 and p99 in milliseconds and the
// process's CPU time per call (cpu-ms/op, garbage collection included). Then
// mcp-http-cN serves the same engine with server.Handler on a loopback
// httptest server in this process and drives it as BenchmarkServeHTTP
// does: with -cpuprofile, it shows where a tool call's time goes beyond
// the engine (MCP, JSON, HTTP; client and server together).
func BenchmarkServeInProcess(b *testing.B) {
	dir, plan := servePlan(b)
	engine, err := search.OpenWith(dir, search.Options{CacheBytes: defaultCacheMiB << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer engine.Close()
	var docs []loadgen.Call
	for _, c := range plan {
		if c.Tool() == loadgen.ToolDocs {
			docs = append(docs, c)
		}
	}
	ctx := context.Background()
	runDocs := func(c loadgen.Call) error {
		_, err := engine.Docs(ctx, search.DocsRequest{Library: c.Library, Query: c.Query, Topics: c.Topics, Mode: c.Mode, Path: c.Path})
		return err
	}
	for _, c := range docs { // open and verify every library, fill the caches
		if err := runDocs(c); err != nil {
			b.Fatalf("%+v: %v", c, err)
		}
	}
	var searches []loadgen.Call
	for _, c := range docs {
		if c.Kind != loadgen.KindPath {
			searches = append(searches, c)
		}
	}
	runSearch := func(c loadgen.Call) error {
		_, err := engine.Search(ctx, search.Request{Library: c.Library, Query: c.Query, Topics: c.Topics, Mode: c.Mode, Limit: 10, WithText: true})
		return err
	}
	for _, bc := range []struct {
		name  string
		calls []loadgen.Call
		run   func(loadgen.Call) error
	}{{"docs", docs, runDocs}, {"search", searches, runSearch}} {
		b.Run(bc.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			var slow slowest
			b.ReportAllocs()
			cpu0 := processCPU(b)
			b.ResetTimer()
			for i := range b.N {
				c := bc.calls[i%len(bc.calls)]
				t0 := time.Now()
				if err := bc.run(c); err != nil {
					b.Fatalf("%+v: %v", c, err)
				}
				d := time.Since(t0)
				lat = append(lat, d)
				slow.add(d, c)
			}
			b.StopTimer()
			b.ReportMetric(ms(processCPU(b)-cpu0)/float64(b.N), "cpu-ms/op")
			slices.Sort(lat)
			reportLatency(b, loadgen.StatsOf(lat))
			if b.N >= 100 {
				slow.log(b)
			}
		})
	}
	ts := httptest.NewServer(server.Handler(engine, "bench", slog.New(slog.DiscardHandler), server.HTTPOptions{}))
	defer ts.Close()
	for _, c := range []int{1, 4} {
		b.Run(fmt.Sprintf("mcp-http-c%d", c), func(b *testing.B) { measureLoad(b, leanClients, ts.URL+"/mcp", plan, c, 0) })
	}
}

// BenchmarkServeHTTP runs the real binary with --http on loopback, warms
// it up with the whole workload (every library opened), then drives it
// with the load generator: one op is one tool call. latency-c1 is one
// client calling one call after the other; throughput-cN is N clients
// (N sessions, N connections) calling as fast as they are answered, in
// calls/s. The clients are lean ones (loadgen.ConnectLean), which leave
// the machine's CPU to the server, and, under sdk/, the SDK's own client,
// as Go agents run it. The load stops after b.N calls or -loadtime; any
// error fails the benchmark.
func BenchmarkServeHTTP(b *testing.B) {
	dir := benchArtifacts(b)
	var extra []string
	if *serverProfile != "" {
		extra = append(extra, "--cpuprofile", *serverProfile)
	}
	if *serverMemProf != "" {
		extra = append(extra, "--memprofile", *serverMemProf)
	}
	srv := startServer(b, buildServer(b), dir, extra...)
	defer srv.stop(b)
	if _, err := srv.waitReady(context.Background(), 30*time.Second); err != nil {
		b.Fatal(err)
	}
	plan := srv.plan(b)
	warm(b, leanClients, srv.endpoint(), plan, 4, 0)
	for _, c := range []struct {
		name        string
		concurrency int
		connect     connector
	}{
		{"latency-c1", 1, leanClients}, {"throughput-c4", 4, leanClients}, {"throughput-c16", 16, leanClients}, {"throughput-c64", 64, leanClients},
		{"sdk/latency-c1", 1, sdkClients}, {"sdk/throughput-c4", 4, sdkClients},
	} {
		b.Run(c.name, func(b *testing.B) { measureLoad(b, c.connect, srv.endpoint(), plan, c.concurrency, srv.pid()) })
	}
}

// connector opens a load generator's clients of an MCP endpoint.
type connector func(ctx context.Context, endpoint string, concurrency int, plan []loadgen.Call) (*loadgen.Generator, error)

func sdkClients(ctx context.Context, endpoint string, concurrency int, plan []loadgen.Call) (*loadgen.Generator, error) {
	return loadgen.Connect(ctx, loadgen.HTTP(endpoint), concurrency, plan)
}

var leanClients connector = loadgen.ConnectLean

// BenchmarkServeStdio runs the real binary with --stdio under the SDK's
// CommandTransport, as Claude Code or Cursor run it, warms it up with the
// whole workload, then measures one call after the other (one op is one
// tool call).
func BenchmarkServeStdio(b *testing.B) {
	dir, plan := servePlan(b)
	bin := buildServer(b)
	var cmd *exec.Cmd
	dial := func(int) mcp.Transport {
		cmd = exec.Command(bin, "serve", "--stdio", "--artifacts", dir)
		return &mcp.CommandTransport{Command: cmd}
	}
	ctx := context.Background()
	g, err := loadgen.Connect(ctx, dial, 1, plan)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	if r, err := g.Run(ctx, loadgen.RunOptions{Count: len(plan)}); err != nil || r.Failed() > 0 {
		b.Fatalf("warm-up: %v %v %q", err, r, r.Errors)
	}
	b.Run("latency-c1", func(b *testing.B) { runLoad(b, g, cmd.Process.Pid) })
}

// BenchmarkServeColdStart starts the real binary with --http on all of
// the artifacts, b.N times, and reports the medians of the time until
// /readyz answers 200 (ready-ms) and until the first get-library-docs
// answer for the largest library (first-docs-ms: connecting, the MCP
// handshake, opening and checksumming that library, and the search), both
// from just before the process is started. The artifacts are in the page
// cache: this is a restart, not a boot from cold disks.
func BenchmarkServeColdStart(b *testing.B) {
	dir, plan := servePlan(b)
	bin := buildServer(b)
	largest := largestLibrary(b, dir)
	var query string
	for _, c := range plan {
		if c.Kind == loadgen.KindQuery {
			query = c.Query
			break
		}
	}
	var ready, first []time.Duration
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		srv := startServer(b, bin, dir)
		r, err := srv.waitReady(ctx, 30*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, loadgen.HTTP(srv.endpoint())(0), nil)
		if err != nil {
			b.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: loadgen.ToolDocs, Arguments: map[string]any{"libraryId": largest, "customQuery": query}})
		f := time.Since(srv.started)
		cs.Close()
		if err != nil || res.IsError {
			b.Fatalf("first get-library-docs for %s: %v %+v", largest, err, res)
		}
		b.StopTimer() // shutdown may wait for a version's background checksum
		srv.stop(b)
		b.StartTimer()
		ready, first = append(ready, r), append(first, f)
	}
	b.StopTimer()
	slices.Sort(ready)
	slices.Sort(first)
	b.ReportMetric(ms(ready[len(ready)/2]), "ready-ms")
	b.ReportMetric(ms(first[len(first)/2]), "first-docs-ms")
}

// BenchmarkServeRSS starts the real binary with --http, b.N times, and
// loads it until every library has answered every kind of call: the whole
// workload at concurrency 4, then twice at 64, from the SDK's clients
// (whose protocol version the server answers through the SDK, the path
// that holds more memory per call). It reports the server's peak
// RSS (VmHWM) and its RSS at the end of the load (VmRSS, split into anon:
// heap and stacks, and file: mapped index pages), in MiB, as medians over
// the b.N servers, and the goroutines left once every client has closed
// its session and connection, minus those before the load (a leak shows
// as a positive count).
func BenchmarkServeRSS(b *testing.B) {
	dir := benchArtifacts(b)
	bin := buildServer(b)
	ctx := context.Background()
	var peak, end, anon, file, leaked []float64
	b.ResetTimer()
	for range b.N {
		srv := startServer(b, bin, dir)
		if _, err := srv.waitReady(ctx, 30*time.Second); err != nil {
			b.Fatal(err)
		}
		plan := srv.plan(b)
		before, err := loadgen.Gauge(ctx, http.DefaultClient, srv.base+"/metrics", "codex7_go_goroutines")
		if err != nil {
			b.Fatal(err)
		}
		warm(b, sdkClients, srv.endpoint(), plan, 4, srv.pid())
		var last loadgen.MemorySample
		for range 2 {
			mem := warm(b, sdkClients, srv.endpoint(), plan, 64, srv.pid())
			last = mem[len(mem)-1]
		}
		after, err := settledGauge(ctx, srv.base+"/metrics", "codex7_go_goroutines", before)
		if err != nil {
			b.Fatal(err)
		}
		st, err := loadgen.ReadProcStatus(srv.pid())
		if err != nil {
			b.Fatal(err)
		}
		srv.stop(b)
		peak = append(peak, mib(st.PeakRSS))
		end, anon, file = append(end, mib(last.RSS)), append(anon, mib(last.AnonRSS)), append(file, mib(last.FileRSS))
		leaked = append(leaked, after-before)
	}
	b.StopTimer()
	b.ReportMetric(median(peak), "peak-RSS-MiB")
	b.ReportMetric(median(end), "RSS-MiB")
	b.ReportMetric(median(anon), "anon-RSS-MiB")
	b.ReportMetric(median(file), "file-RSS-MiB")
	b.ReportMetric(median(leaked), "goroutines-leaked")
}

// measureLoad connects concurrency clients, then runs b.N calls of plan.
func measureLoad(b *testing.B, connect connector, endpoint string, plan []loadgen.Call, concurrency, pid int) {
	g, err := connect(context.Background(), endpoint, concurrency, plan)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	runLoad(b, g, pid)
}

// runLoad runs b.N calls (at most -loadtime) on g and reports latency,
// throughput and ns/op from what was measured, and, given the server's
// pid, the CPU time a call costs the server (server-CPU-ms/call) and the
// clients (client-CPU-ms/call: this process).
func runLoad(b *testing.B, g *loadgen.Generator, pid int) {
	b.ResetTimer()
	r, err := g.Run(context.Background(), loadgen.RunOptions{Count: b.N, Duration: *loadTimeout, PID: pid, SampleEvery: time.Minute})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if r.Failed() > 0 {
		b.Fatalf("%v: %q", r, r.Errors)
	}
	if r.Answered() < b.N {
		b.Logf("stopped by -loadtime %v after %d of %d calls", *loadTimeout, r.Answered(), b.N)
	}
	b.ReportMetric(float64(r.Elapsed.Nanoseconds())/float64(r.Answered()), "ns/op")
	b.ReportMetric(r.Throughput(), "calls/s")
	reportLatency(b, r.Latency)
	if pid != 0 {
		server, client := r.CPUPerCall()
		b.ReportMetric(ms(server), "server-CPU-ms/call")
		b.ReportMetric(ms(client), "client-CPU-ms/call")
	}
	if b.N >= 100 {
		for _, k := range []string{loadgen.KindQuery, loadgen.KindCode, loadgen.KindTopics, loadgen.KindPath, loadgen.KindResolve} {
			b.Logf("%-7s %v", k, r.ByKind[k])
		}
	}
}

// warm runs the whole plan once on concurrency new clients, failing on any
// error, and returns the memory samples of pid (if not 0), taken every
// 100 ms.
func warm(b *testing.B, connect connector, endpoint string, plan []loadgen.Call, concurrency, pid int) []loadgen.MemorySample {
	b.Helper()
	ctx := context.Background()
	g, err := connect(ctx, endpoint, concurrency, plan)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	r, err := g.Run(ctx, loadgen.RunOptions{Count: len(plan), Duration: *loadTimeout, PID: pid, SampleEvery: 100 * time.Millisecond})
	if err != nil || r.Failed() > 0 || r.Answered() != len(plan) {
		b.Fatalf("whole workload: %v %v %q", err, r, r.Errors)
	}
	return r.Memory
}

// slowest keeps the five slowest calls of a benchmark, slowest first, to
// say what its tail is made of.
type slowest []slowCall

type slowCall struct {
	d time.Duration
	c loadgen.Call
}

func (s *slowest) add(d time.Duration, c loadgen.Call) {
	if len(*s) == 5 && d <= (*s)[4].d {
		return
	}
	*s = append(*s, slowCall{d, c})
	slices.SortFunc(*s, func(a, b slowCall) int { return int(b.d - a.d) })
	*s = (*s)[:min(len(*s), 5)]
}

func (s slowest) log(b *testing.B) {
	for _, x := range s {
		b.Logf("slow: %6.2f ms %s %s %q %v %s", ms(x.d), x.c.Kind, x.c.Library, x.c.Query, x.c.Topics, x.c.Path)
	}
}

func reportLatency(b *testing.B, s loadgen.Stats) {
	b.ReportMetric(ms(s.P50), "p50-ms")
	b.ReportMetric(ms(s.P99), "p99-ms")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mib(n int64) float64 { return float64(n) / (1 << 20) }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// settledGauge scrapes a gauge until it is back to at most want, for up to
// two seconds (sessions end asynchronously), and returns the last value.
func settledGauge(ctx context.Context, url, name string, want float64) (float64, error) {
	var v float64
	var err error
	waitfor.Poll(2*time.Second, func() bool {
		v, err = loadgen.Gauge(ctx, http.DefaultClient, url, name)
		return err != nil || v <= want
	})
	return v, err
}

// servePlan returns the artifact directory to serve (-artifacts-dir, or
// -corpus built into a cache) and the workload over all of its libraries,
// discovered through an in-process MCP server.
func servePlan(b *testing.B) (string, []loadgen.Call) {
	b.Helper()
	dir := benchArtifacts(b)
	engine, err := search.OpenWith(dir, search.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer engine.Close()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.New(engine, "bench").Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	return dir, discoverPlan(b, cs, engine.Catalog())
}

// discoverPlan makes the workload over every library of cat, asking cs
// for their topics and documents, with the queries of -eval.
func discoverPlan(b *testing.B, cs *mcp.ClientSession, cat *artifacts.Catalog) []loadgen.Call {
	b.Helper()
	f, err := os.Open(*evalFile)
	if err != nil {
		b.Skipf("no evaluation file for the workload's queries: %v", err)
	}
	defer f.Close()
	queries, err := loadgen.ReadQueries(f)
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	for _, l := range cat.Libraries {
		ids = append(ids, l.ID)
	}
	libs, err := loadgen.Discover(context.Background(), cs, ids)
	if err != nil {
		b.Fatal(err)
	}
	return loadgen.Plan(libs, queries)
}

// benchArtifacts returns -artifacts-dir, or else the artifacts of every tree
// of -corpus, built by the real binary into a directory of the temp dir
// named for the artifact format version. The build is incremental, so
// after the first run it only checks that nothing changed (a few
// milliseconds per library).
func benchArtifacts(b *testing.B) string {
	b.Helper()
	if *serveArtifacts != "" {
		if _, err := artifacts.ReadCatalog(*serveArtifacts); err != nil {
			b.Fatalf("-artifacts-dir: %v", err)
		}
		return *serveArtifacts
	}
	artifactsOnce.Do(func() { artifactsDir, artifactsErr = buildCorpusArtifacts(b) })
	if artifactsErr != nil {
		b.Fatal(artifactsErr)
	}
	if artifactsDir == "" {
		b.Skipf("no corpus at %s", *corpus)
	}
	return artifactsDir
}

var (
	artifactsOnce sync.Once
	artifactsDir  string
	artifactsErr  error
)

// buildCorpusArtifacts builds -corpus as BenchmarkBuild does (each tree a
// git repository cached in the temp dir). It returns "" without an error
// when there is no corpus.
func buildCorpusArtifacts(b *testing.B) (string, error) {
	entries, err := os.ReadDir(*corpus)
	if err != nil {
		return "", nil
	}
	cache := filepath.Join(os.TempDir(), "codex7-corpus-repos")
	var cfg strings.Builder
	cfg.WriteString("allow: {local_roots: [" + cache + "]}\nlibraries:\n")
	for _, e := range entries {
		if e.IsDir() && strings.Contains(e.Name(), "__") {
			repo := gittest.FromDir(b, filepath.Join(*corpus, e.Name()), cache)
			cfg.WriteString("  - id: /" + strings.Replace(e.Name(), "__", "/", 1) + "\n    repo: " + repo + "\n")
		}
	}
	out := filepath.Join(os.TempDir(), "codex7-serve-artifacts", fmt.Sprintf("format-%d", artifacts.FormatVersion))
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	cfgFile := filepath.Join(out, "..", fmt.Sprintf("format-%d.yaml", artifacts.FormatVersion))
	if err := os.WriteFile(cfgFile, []byte(cfg.String()), 0o644); err != nil {
		return "", err
	}
	start := time.Now()
	if msg, err := exec.Command(buildServer(b), "build", "--config", cfgFile, "--out", out).CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the corpus artifacts: %w\n%s", err, msg)
	}
	b.Logf("corpus artifacts in %s, up to date in %v", out, time.Since(start).Round(time.Millisecond))
	return out, nil
}

// TestMain removes the binary testBinary built, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// buildServer returns -server-bin, or this tree's binary (testBinary).
func buildServer(b *testing.B) string {
	b.Helper()
	if *serverBin != "" {
		return *serverBin
	}
	return testBinary(b)
}

// largestLibrary returns the id of the library with the most sections.
func largestLibrary(b *testing.B, dir string) string {
	b.Helper()
	cat, err := artifacts.ReadCatalog(dir)
	if err != nil {
		b.Fatal(err)
	}
	best, most := "", -1
	for _, l := range cat.Libraries {
		for _, v := range l.Versions {
			if v.Version == l.Latest && v.Counts.Sections > most {
				best, most = l.ID, v.Counts.Sections
			}
		}
	}
	return best
}

func (s *serverProc) endpoint() string { return s.base + "/mcp" }

func (s *serverProc) pid() int { return s.cmd.Process.Pid }

// waitReady polls /readyz every millisecond until it answers 200 and
// returns the time since the process was started.
func (s *serverProc) waitReady(ctx context.Context, timeout time.Duration) (time.Duration, error) {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.Now().Add(timeout)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/readyz", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(s.started), nil
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("server not ready after %v: %v", timeout, err)
		}
		// A fixed 1 ms, not waitfor's backoff: the interval is the
		// resolution of the start-up time this measures.
		time.Sleep(time.Millisecond)
	}
}

// plan discovers the server's libraries over HTTP and returns the workload.
func (s *serverProc) plan(b *testing.B) []loadgen.Call {
	b.Helper()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, loadgen.HTTP(s.endpoint())(0), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	cat, err := artifacts.ReadCatalog(s.dir)
	if err != nil {
		b.Fatal(err)
	}
	return discoverPlan(b, cs, cat)
}
