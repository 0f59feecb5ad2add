package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/internal/loadgen"
)

var (
	scaleLibs  = flag.String("scale-libs", "1000", "comma-separated library counts of BenchmarkScaleBuild's synthetic catalogs")
	scalePages = flag.Int("scale-pages", 20, "pages per library of BenchmarkScaleBuild's synthetic catalogs")
	scaleArgs  = flag.String("scale-args", "", "extra build flags for BenchmarkScaleBuild, space-separated (e.g. --cpuprofile /tmp/cpu.prof)")
)

// BenchmarkScaleBuild builds synthetic catalogs (internal/loadgen: N
// libraries of -scale-pages pages from -corpus, each its own git
// repository, generated once into the user cache directory) with the real
// binary: a full build into an empty dist, then a no-op rebuild of the
// same config. It reports each one's wall time, CPU time (user + sys, the
// git processes it starts included) and the build process's peak RSS. Run it as
//
//	go test -run '^$' -bench ScaleBuild -benchtime 1x -count 3 ./cmd/indexer/ -scale-libs 1000,5000
func BenchmarkScaleBuild(b *testing.B) {
	if _, err := os.Stat(*corpus); err != nil {
		b.Skipf("no corpus at %s: %v", *corpus, err)
	}
	bin := testBinary(b)
	for _, field := range strings.Split(*scaleLibs, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil {
			b.Fatalf("-scale-libs %q: %v", *scaleLibs, err)
		}
		syn, err := loadgen.MakeSynthetic(loadgen.Spec{Libraries: n, Pages: *scalePages, Corpus: *corpus}, "")
		if err != nil {
			b.Fatal(err)
		}
		out := b.TempDir()
		run := func(b *testing.B, wantBuilt bool) {
			var elapsed time.Duration
			var maxRSS int64
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				if wantBuilt && i > 0 {
					os.RemoveAll(out)
				}
				args := append([]string{"build", "--config", syn.Config, "--out", out}, strings.Fields(*scaleArgs)...)
				cmd := exec.Command(bin, args...)
				start := time.Now()
				outb, err := cmd.CombinedOutput()
				elapsed += time.Since(start)
				if err != nil {
					b.Fatalf("build: %v\n%s", err, tail(outb))
				}
				if want := fmt.Sprintf("built %d, ", map[bool]int{true: n, false: 0}[wantBuilt]); !strings.Contains(string(outb), want) {
					b.Fatalf("build summary does not say %q:\n%s", want, tail(outb))
				}
				// the build's CPU, its git processes included (they are
				// its children, waited for)
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				if rss := peakRSSKiB(cmd.ProcessState); rss > maxRSS {
					maxRSS = rss
				}
			}
			b.ReportMetric(elapsed.Seconds()/float64(b.N), "s/build")
			b.ReportMetric(float64(elapsed.Microseconds())/float64(b.N)/float64(n), "µs/library")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/build")
			if maxRSS > 0 {
				b.ReportMetric(float64(maxRSS)/1024, "peak-RSS-MiB")
			}
		}
		b.Run(fmt.Sprintf("libs=%d/build", n), func(b *testing.B) { run(b, true) })
		b.Run(fmt.Sprintf("libs=%d/noop", n), func(b *testing.B) { run(b, false) })
	}
}

// tail is the end of a command's output, for an error message.
func tail(out []byte) string {
	if len(out) > 4000 {
		out = out[len(out)-4000:]
	}
	return string(out)
}
