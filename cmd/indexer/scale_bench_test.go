package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/internal/loadgen"
	"github.com/codex7/codex7/internal/synthdist"
)

// The scale benchmark: `indexer serve` over catalogs of 1,000, 5,000 and
// 50,000 libraries (docs/BENCHMARKS.md, "Catalog scale"). Run one size at
// a time, with -benchtime 1x:
//
//	go test -run '^$' -bench 'ServeScale/libs=5000$' -benchtime 1x -timeout 60m ./cmd/indexer/
var (
	scaleSoak   = flag.Duration("scalesoak", 20*time.Second, "how long BenchmarkServeScale's soak at concurrency 16 lasts")
	scaleFirst  = flag.Int("scalefirst", 0, "how many libraries BenchmarkServeScale asks once (0: all)")
	scaleMaxOpn = flag.String("scale-max-open", "", "--max-open for BenchmarkServeScale's server (default: the server's)")
	scaleMemMiB = flag.String("scale-memory-limit-mib", "", "--memory-limit-mib for BenchmarkServeScale's server (default: the server's)")
)

// scaleSizes are the catalog sizes of BenchmarkServeScale: the two
// smaller ones of real-ish libraries (20 pages of -corpus each, their own
// index), the largest of tiny ones sharing their files (see synthdist).
var scaleSizes = []struct {
	libs int
	tiny bool
}{{1000, false}, {5000, false}, {50000, true}}

// BenchmarkServeScale starts the real binary over a synthetic catalog
// (synthdist, cached under the user cache dir) and reports: the time from
// start to /readyz answering 200 (ready-s), the server's RSS once ready,
// get-library-docs latency on libraries never asked before (first-p50-ms,
// first-p99-ms; one client, every library once, in random order), the RSS
// after that, resolve-library-id latency (resolve-p50-ms, 500 calls by
// project name), and the RSS during a soak at concurrency 16 over every
// library for -scalesoak (soak-rss-max-MB, soak-rss-end-MB), with its
// latency. Any failed call fails it.
func BenchmarkServeScale(b *testing.B) {
	for _, sz := range scaleSizes {
		b.Run(fmt.Sprintf("libs=%d", sz.libs), func(b *testing.B) {
			dir := scaleDist(b, sz.libs, sz.tiny)
			bin := buildServer(b)
			b.ResetTimer()
			for range b.N {
				scaleOnce(b, bin, dir, sz.libs)
			}
		})
	}
}

// scaleDist returns a synthetic dist of n libraries, written on first use
// into the user cache dir.
func scaleDist(b *testing.B, n int, tiny bool) string {
	b.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	opts := synthdist.Options{Libraries: n, Pages: 20, Tiny: tiny}
	kind := "tiny"
	if !tiny {
		if _, err := os.Stat(*corpus); err != nil {
			b.Skipf("no corpus at %s", *corpus)
		}
		opts.Corpus, kind = *corpus, "corpus"
	}
	dir := filepath.Join(cache, "codex7", "synthdist", fmt.Sprintf("%s-%d-%d", kind, n, opts.Pages))
	start := time.Now()
	wrote, err := synthdist.Cached(context.Background(), dir, opts)
	if err != nil {
		b.Fatal(err)
	}
	if !wrote {
		return dir
	}
	b.Logf("wrote %d libraries in %v to %s", n, time.Since(start).Round(time.Millisecond), dir)
	return dir
}

func scaleOnce(b *testing.B, bin, dir string, n int) {
	ctx := context.Background()
	b.StopTimer()
	var extra []string
	if *scaleMaxOpn != "" {
		extra = append(extra, "--max-open", *scaleMaxOpn)
	}
	if *scaleMemMiB != "" {
		extra = append(extra, "--memory-limit-mib", *scaleMemMiB)
	}
	srv := startServer(b, bin, dir, extra...)
	defer srv.stop(b)
	ready, err := srv.waitReady(ctx, 5*time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(ready.Seconds(), "ready-s")
	rss := func() float64 {
		st, err := loadgen.ReadProcStatus(srv.pid())
		if err != nil {
			b.Fatal(err)
		}
		return float64(st.RSS) / (1 << 20)
	}
	time.Sleep(time.Second) // the background checksum pass starts
	b.ReportMetric(rss(), "rss-ready-MB")

	rnd := rand.New(rand.NewPCG(1, 2))
	order := rnd.Perm(n)
	if *scaleFirst > 0 && *scaleFirst < n {
		order = order[:*scaleFirst]
	}
	queries := []string{"how to configure", "getting started", "install", "error handling", "example usage"}
	var first []loadgen.Call
	for k, i := range order {
		first = append(first, loadgen.Call{Kind: loadgen.KindQuery, Library: synthdist.ID(i), Query: queries[k%len(queries)]})
	}
	res := scaleRun(b, srv, 1, first, loadgen.RunOptions{Count: len(first)})
	b.ReportMetric(ms(res.Latency.P50), "first-p50-ms")
	b.ReportMetric(ms(res.Latency.P99), "first-p99-ms")
	b.ReportMetric(rss(), "rss-asked-MB")

	var resolve []loadgen.Call
	for k := range 500 {
		id := synthdist.ID(rnd.IntN(n))
		name := id[strings.LastIndexByte(id, '/')+1:]
		if k%2 == 1 { // a bare project name, without its number
			name = name[:strings.LastIndexByte(name, '-')]
		}
		resolve = append(resolve, loadgen.Call{Kind: loadgen.KindResolve, Name: name})
	}
	res = scaleRun(b, srv, 1, resolve, loadgen.RunOptions{Count: len(resolve)})
	b.ReportMetric(ms(res.Latency.P50), "resolve-p50-ms")
	b.ReportMetric(ms(res.Latency.P99), "resolve-p99-ms")

	var soak []loadgen.Call
	for k, i := range rnd.Perm(n) {
		soak = append(soak, loadgen.Call{Kind: loadgen.KindQuery, Library: synthdist.ID(i), Query: queries[k%len(queries)]})
	}
	res = scaleRun(b, srv, 16, soak, loadgen.RunOptions{Duration: *scaleSoak, PID: srv.pid()})
	var peak int64
	for _, s := range res.Memory {
		peak = max(peak, s.RSS)
	}
	b.ReportMetric(float64(peak)/(1<<20), "soak-rss-max-MB")
	b.ReportMetric(rss(), "soak-rss-end-MB")
	b.ReportMetric(res.Throughput(), "soak-calls/s")
	cpu, _ := res.CPUPerCall()
	b.ReportMetric(float64(cpu.Microseconds()), "soak-server-cpu-us/call")
	b.ReportMetric(ms(res.Latency.P50), "soak-p50-ms")
	b.ReportMetric(ms(res.Latency.P99), "soak-p99-ms")
	b.Logf("soak: %v", res)
}

// scaleRun replays calls on srv with c lean clients.
func scaleRun(b *testing.B, srv *serverProc, c int, calls []loadgen.Call, opts loadgen.RunOptions) *loadgen.Result {
	b.Helper()
	ctx := context.Background()
	g, err := loadgen.ConnectLean(ctx, srv.endpoint(), c, calls)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	res, err := g.Run(ctx, opts)
	if err != nil {
		b.Fatal(err)
	}
	if res.Failed() > 0 {
		b.Fatalf("%d calls failed: %v", res.Failed(), res.Errors)
	}
	return res
}
