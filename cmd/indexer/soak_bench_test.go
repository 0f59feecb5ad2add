package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/internal/loadgen"
	"github.com/codex7/codex7/internal/waitfor"
)

// The soak benchmark: `indexer serve` under sustained load, to find what
// short benchmarks cannot (leaks of memory or goroutines, slowdowns over
// time, failures during hot reloads). Run it through `task bench:soak`.
var (
	soakTime    = flag.Duration("soaktime", time.Minute, "how long each BenchmarkServeSoak run loads the server")
	soakCalls   = flag.Int("soakcalls", 2_000_000, "the most calls one BenchmarkServeSoak run makes")
	soakPublish = flag.Duration("soakpublish", time.Second, "how often BenchmarkServeSoak/reload publishes a new build")
)

const (
	// soakConcurrency is the number of clients, each its own session and
	// connection.
	soakConcurrency = 64
	// soakWindow is the length of the RSS windows compared (see
	// loadgen.MemoryTrend): the first 10 s, the next 10 s, the last 10 s.
	soakWindow = 10 * time.Second
	// soakMaxGrowth is how far the last window's RSS median may exceed the
	// second's before the soak fails as a leak.
	soakMaxGrowth = 0.20
	// soakMinPublishes is the fewest builds the reload soak must publish
	// during a run of a minute or more.
	soakMinPublishes = 20
	// soakReloadInterval is how often the server looks for a new
	// catalog.json during the reload soak.
	soakReloadInterval = 250 * time.Millisecond
)

// soakLibraries are the libraries the reload soak republishes beside the
// corpus (see loadgen.Generations).
var soakLibraries = []string{"/soak/alpha", "/soak/beta"}

// BenchmarkServeSoak runs the real binary with --http on loopback over
// every library of -corpus and drives it with 64 clients (sessions and
// connections of their own; lean clients and the SDK's taking turns, see
// loadgen.ConnectMixed) for -soaktime (60 s) or -soakcalls calls,
// whichever ends first, with the mixed workload of BenchmarkServeHTTP
// (ranked and code-mode queries, topics, document reads, resolve). One op
// is one soak on a freshly started server; run it with -benchtime 1x.
//
// steady is the soak alone. reload also serves two small libraries that a
// publisher in this process rebuilds every -soakpublish (1 s) with
// artifacts.Publish and WriteCatalog, the server polling catalog.json
// every 250 ms; a fifth of the calls go to them, and every answer about
// them is checked to come wholly from one build, and none from an older
// build than an answer that had ended before its request was sent (see
// loadgen.Checker). The corpus is served from a copy made of hard links,
// so that the shared artifacts are never written.
//
// Both report throughput (calls/s), latency (p50-ms, p99-ms), the server's
// CPU time per call, its RSS sampled every second from /proc/PID/status
// (medians of the first 10 s, of 10-20 s and of the last 10 s, the max,
// and the growth of the last over 10-20 s in %), and the goroutines left
// in the server once every client has gone (from /metrics, after a grace
// of 2 s); reload adds the builds published, catalogs the server loaded,
// answers checked and builds they came from. Any failed call, any
// answer mixing builds or going back, an RSS growth over 20%, a goroutine
// left, fewer than 20 builds published in a minute, or a server not
// serving the last build 10 s after it was published fails the benchmark.
func BenchmarkServeSoak(b *testing.B) {
	b.Run("steady", func(b *testing.B) { soak(b, false) })
	b.Run("reload", func(b *testing.B) { soak(b, true) })
}

// soak runs b.N soaks, republishing the soak libraries during each if
// reload is set.
func soak(b *testing.B, reload bool) {
	bin := buildServer(b)
	dir := benchArtifacts(b)
	var gens *loadgen.Generations
	var extra []string
	if reload {
		dir = linkArtifacts(b, dir)
		gens = loadgen.NewGenerations(dir, soakLibraries...)
		if err := gens.Publish(context.Background(), 1); err != nil {
			b.Fatal(err)
		}
		extra = []string{"--reload-interval", soakReloadInterval.String()}
	}
	b.ResetTimer()
	for range b.N {
		soakOnce(b, bin, dir, gens, extra)
	}
}

// soakOnce is one soak on a new server.
func soakOnce(b *testing.B, bin, dir string, gens *loadgen.Generations, extra []string) {
	ctx := context.Background()
	b.StopTimer()
	srv := startServer(b, bin, dir, extra...)
	defer srv.stop(b)
	if _, err := srv.waitReady(ctx, 30*time.Second); err != nil {
		b.Fatal(err)
	}
	plan := soakPlan(b, srv, gens)
	metricsURL := srv.base + "/metrics"
	before, err := loadgen.Gauge(ctx, http.DefaultClient, metricsURL, "codex7_go_goroutines")
	if err != nil {
		b.Fatal(err)
	}
	reloads0, err := loadgen.Gauge(ctx, http.DefaultClient, metricsURL, "codex7_catalog_reloads")
	if err != nil {
		b.Fatal(err)
	}
	// Half the clients speak the protocol version agents speak today (the
	// server's fast path), half the SDK's latest (the SDK's path).
	g, err := loadgen.ConnectMixed(ctx, srv.endpoint(), soakConcurrency, plan)
	if err != nil {
		b.Fatal(err)
	}
	opts := loadgen.RunOptions{Count: *soakCalls, Duration: *soakTime, PID: srv.pid(), SampleEvery: time.Second}
	var pub *publisher
	var check *loadgen.Checker
	if gens != nil {
		check = gens.Checker()
		opts.Check = check.Check
		pub = startPublisher(gens, *soakPublish)
	}
	b.StartTimer()
	r, err := g.Run(ctx, opts)
	b.StopTimer()
	var published int
	if pub != nil {
		var perr error
		if published, perr = pub.stop(); perr != nil {
			b.Errorf("publisher: %v", perr)
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	if cerr := g.Close(); cerr != nil {
		b.Errorf("closing the clients: %v", cerr)
	}
	after, err := settledGauge(ctx, metricsURL, "codex7_go_goroutines", before)
	if err != nil {
		b.Fatal(err)
	}
	reloads, err := loadgen.Gauge(ctx, http.DefaultClient, metricsURL, "codex7_catalog_reloads")
	if err != nil {
		b.Fatal(err)
	}

	b.Logf("%v", r)
	for _, k := range []string{loadgen.KindQuery, loadgen.KindCode, loadgen.KindTopics, loadgen.KindPath, loadgen.KindResolve} {
		b.Logf("%-7s %v", k, r.ByKind[k])
	}
	b.Logf("RSS MiB every second: %s", rssSeries(r.Memory))
	server, _ := r.CPUPerCall()
	b.ReportMetric(float64(r.Answered()), "calls")
	b.ReportMetric(r.Throughput(), "calls/s")
	reportLatency(b, r.Latency)
	b.ReportMetric(ms(server), "server-CPU-ms/call")
	b.ReportMetric(float64(r.Failed()), "errors")
	b.ReportMetric(after-before, "goroutines-leaked")
	if r.Failed() > 0 {
		b.Errorf("%d calls failed: %q", r.Failed(), r.Errors)
	}
	if after > before {
		b.Errorf("%v goroutines in the server 2 s after every client left, %v before the load", after, before)
	}
	trend, terr := loadgen.TrendOf(r.Memory, soakWindow)
	switch {
	case terr != nil:
		b.Logf("no RSS trend: %v", terr)
	default:
		b.Logf("%v", trend)
		b.ReportMetric(mib(trend.First), "RSS-first10s-MiB")
		b.ReportMetric(mib(trend.Second), "RSS-10-20s-MiB")
		b.ReportMetric(mib(trend.Last), "RSS-last10s-MiB")
		b.ReportMetric(mib(trend.Max), "RSS-max-MiB")
		b.ReportMetric(100*trend.Growth(), "RSS-growth-%")
		if trend.Growth() > soakMaxGrowth {
			b.Errorf("RSS grew %.1f%% from 10-20 s to the last 10 s (at most %.0f%%): %v", 100*trend.Growth(), 100*soakMaxGrowth, trend)
		}
	}
	if gens == nil {
		return
	}
	answers, seen := check.Observed()
	b.Logf("%d builds published every %v; the server loaded %v catalogs; %d answers checked, from %d builds", published, *soakPublish, reloads-reloads0, answers, len(seen))
	b.ReportMetric(float64(published), "publishes")
	b.ReportMetric(reloads-reloads0, "reloads")
	b.ReportMetric(float64(answers), "checked-answers")
	b.ReportMetric(float64(len(seen)), "builds-seen")
	if err := check.Verify(); err != nil {
		b.Error(err)
	}
	if published < soakMinPublishes && *soakTime >= time.Minute {
		b.Errorf("%d builds published in %v, want at least %d", published, r.Elapsed.Round(time.Second), soakMinPublishes)
	}
	if len(seen) < published/2 {
		b.Errorf("answers came from %d builds of %d published: the load did not run across the publishes", len(seen), published+1)
	}
	if err := servesBuild(ctx, srv.endpoint(), soakLibraries[0], published+1, 10*time.Second); err != nil {
		b.Error(err)
	}
}

// soakPlan is the workload: BenchmarkServeHTTP's over the corpus and,
// with gens, one call in five over gens' libraries, asked what they
// answer.
func soakPlan(b *testing.B, srv *serverProc, gens *loadgen.Generations) []loadgen.Call {
	b.Helper()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, loadgen.HTTP(srv.endpoint())(0), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	cat, err := artifacts.ReadCatalog(srv.dir)
	if err != nil {
		b.Fatal(err)
	}
	corpus := &artifacts.Catalog{FormatVersion: cat.FormatVersion}
	for _, l := range cat.Libraries {
		if !strings.HasPrefix(l.ID, "/soak/") {
			corpus.Libraries = append(corpus.Libraries, l)
		}
	}
	plan := discoverPlan(b, cs, corpus)
	if gens == nil {
		return plan
	}
	libs, err := loadgen.Discover(ctx, cs, gens.Libraries())
	if err != nil {
		b.Fatal(err)
	}
	return loadgen.Mix(plan, loadgen.Plan(libs, loadgen.GenerationQueries()), 4)
}

// publisher publishes generation after generation at a fixed interval. Its
// goroutine alone writes n and err; stop reads them once it has ended.
type publisher struct {
	quit chan struct{}
	done chan struct{}
	n    int // the last generation published
	err  error
}

// startPublisher publishes generation 2, 3, … of gens every interval until
// stopped or a publish fails.
func startPublisher(gens *loadgen.Generations, every time.Duration) *publisher {
	p := &publisher{quit: make(chan struct{}), done: make(chan struct{}), n: 1}
	go func() {
		defer close(p.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
			}
			if err := gens.Publish(context.Background(), p.n+1); err != nil {
				p.err = err
				return
			}
			p.n++
		}
	}()
	return p
}

// stop ends the publishing and returns how many generations were
// published after the first, and the error that stopped it early, if any.
func (p *publisher) stop() (int, error) {
	close(p.quit)
	<-p.done
	return p.n - 1, p.err
}

// servesBuild asks for library's documentation until the answer comes
// from generation n, for up to wait.
func servesBuild(ctx context.Context, endpoint, library string, n int, wait time.Duration) error {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, loadgen.HTTP(endpoint)(0), nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	want := loadgen.GenerationCommit(n)
	var last string
	if waitfor.Poll(wait, func() bool {
		var res *mcp.CallToolResult
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: loadgen.ToolDocs, Arguments: map[string]any{"libraryId": library, "customQuery": loadgen.GenerationQueries()[0]}})
		if err == nil && !res.IsError {
			if m, ok := res.StructuredContent.(map[string]any); ok {
				last, _ = m["commit"].(string)
			}
		}
		return last == want
	}) {
		return nil
	}
	return fmt.Errorf("%s: %v after the last publish, the server answers from commit %.12s (%v), want %.12s", library, wait, last, err, want)
}

// rssSeries formats the samples' RSS in MiB, one per sample.
func rssSeries(samples []loadgen.MemorySample) string {
	var s strings.Builder
	for i, m := range samples {
		if i > 0 {
			s.WriteByte(' ')
		}
		fmt.Fprintf(&s, "%.0f", mib(m.RSS))
	}
	return s.String()
}

// linkArtifacts returns a copy of the artifact directory src in a
// temporary directory, made of hard links (copies where linking fails), so
// that builds published into the copy leave src alone: a publish replaces
// directories and catalog.json by rename, never writing into a file.
// Hidden entries (the build lock, the staging area) are left out.
func linkArtifacts(b *testing.B, src string) string {
	b.Helper()
	dst := filepath.Join(b.TempDir(), "artifacts")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if os.Link(p, target) == nil {
			return nil
		}
		return copyFile(p, target)
	})
	if err != nil {
		b.Fatalf("copy the artifacts: %v", err)
	}
	return dst
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
