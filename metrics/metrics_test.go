package metrics

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the current output")

// sampleRegistry exercises every kind of family, escaping and edge of the
// format, with fixed values.
func sampleRegistry() *Registry {
	r := NewRegistry()
	req := r.Counter("test_requests_total", "Requests by route and code.", "route", "code")
	req.With("/mcp", "200").Add(41)
	req.With("/mcp", "200").Inc()
	req.With("/healthz", "200").Inc()
	req.With("/mcp", "503").Add(3)
	r.Counter("test_unused_total", "A family with no series yet.", "tool")
	esc := r.Counter("test_escaped_total", "Help with a backslash \\ and a\nnewline.", "value")
	esc.With(`quote " backslash \ newline` + "\n" + `end`).Inc()
	esc.With("bad \xff utf-8").Inc()
	esc.With("bad \xfe utf-8").Inc() // same rendering as the one above: same series
	r.Counter("test_plain_total", "A counter without labels.").With().Add(7)
	lat := r.Histogram("test_latency_seconds", "Latency by tool.", []float64{0.001, 0.01, 0.1, 1}, "tool")
	for _, v := range []float64{0.0005, 0.001, 0.002, 0.05, 0.1, 3, -1, math.NaN()} {
		lat.With("search").Observe(v)
	}
	lat.With("resolve").ObserveDuration(250 * time.Millisecond)
	r.GaugeFunc("test_libraries", "Loaded libraries.", func() float64 { return 12 })
	r.GaugeFunc("test_start_time_seconds", "Start time.", func() float64 { return 1767225600 })
	r.GaugeFunc("test_ratio", "A fraction.", func() float64 { return 0.25 })
	r.CounterFunc("test_hits_total", "Hits counted elsewhere.", func() float64 { return 42 })
	r.GaugeFunc("test_infinite", "An infinite gauge.", func() float64 { return math.Inf(1) })
	return r
}

func TestWriteTextGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleRegistry().WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "sample.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != string(want) {
		t.Errorf("WriteText differs from %s (go test -update to accept):\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
	var again bytes.Buffer
	sampleRegistry().WriteText(&again)
	if again.String() != buf.String() {
		t.Error("two renderings of the same registry differ")
	}
}

// TestParse parses the output with Prometheus's own text parser (a test-only
// dependency) and checks what the parser does not: types, label values
// after escaping, and that every histogram's buckets are cumulative and end
// in +Inf equal to _count.
func TestParse(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleRegistry().WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(&buf)
	if err != nil {
		t.Fatalf("Prometheus parser rejects the output: %v", err)
	}
	for _, tc := range []struct {
		name string
		typ  dto.MetricType
		n    int // series
	}{
		{"test_requests_total", dto.MetricType_COUNTER, 3},
		{"test_unused_total", dto.MetricType_COUNTER, 0},
		{"test_escaped_total", dto.MetricType_COUNTER, 2},
		{"test_plain_total", dto.MetricType_COUNTER, 1},
		{"test_latency_seconds", dto.MetricType_HISTOGRAM, 2},
		{"test_libraries", dto.MetricType_GAUGE, 1},
		{"test_infinite", dto.MetricType_GAUGE, 1},
	} {
		f := fams[tc.name]
		if f == nil {
			if tc.n > 0 {
				t.Errorf("%s: missing", tc.name)
			}
			continue
		}
		if f.GetType() != tc.typ || len(f.Metric) != tc.n {
			t.Errorf("%s: type %v with %d series, want %v with %d", tc.name, f.GetType(), len(f.Metric), tc.typ, tc.n)
		}
	}
	if got, want := fams["test_escaped_total"].GetHelp(), "Help with a backslash \\ and a\nnewline."; got != want {
		t.Errorf("help = %q, want %q", got, want)
	}
	var values []string
	for _, m := range fams["test_escaped_total"].Metric {
		values = append(values, m.Label[0].GetValue())
		if m.Counter.GetValue() != 1 && m.Counter.GetValue() != 2 {
			t.Errorf("escaped counter %q = %v", m.Label[0].GetValue(), m.Counter.GetValue())
		}
	}
	if want := []string{"bad \uFFFD utf-8", "quote \" backslash \\ newline\nend"}; strings.Join(values, "|") != strings.Join(want, "|") {
		t.Errorf("label values = %q, want %q", values, want)
	}
	for _, m := range fams["test_latency_seconds"].Metric {
		h := m.Histogram
		var prev uint64
		for _, b := range h.Bucket {
			if b.GetCumulativeCount() < prev {
				t.Errorf("%v: buckets not cumulative", m.Label)
			}
			prev = b.GetCumulativeCount()
		}
		// The parser folds the +Inf bucket into the sample count.
		if h.GetSampleCount() < prev {
			t.Errorf("%v: count %d below the last bucket %d", m.Label, h.GetSampleCount(), prev)
		}
	}
	search := fams["test_latency_seconds"].Metric[1]
	if got, want := search.Histogram.GetSampleCount(), uint64(7); got != want {
		t.Errorf("search count = %d, want %d (NaN ignored)", got, want)
	}
	if got, want := search.Histogram.GetSampleSum(), 0.0005+0.001+0.002+0.05+0.1+3-1; math.Abs(got-want) > 1e-9 {
		t.Errorf("search sum = %v, want %v", got, want)
	}
}

func TestRegisterPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(r *Registry)
	}{
		{"empty name", func(r *Registry) { r.Counter("", "h") }},
		{"name with dash", func(r *Registry) { r.Counter("a-b_total", "h") }},
		{"name starting with digit", func(r *Registry) { r.Counter("1a", "h") }},
		{"duplicate", func(r *Registry) { r.Counter("a_total", "h"); r.GaugeFunc("a_total", "h", func() float64 { return 0 }) }},
		{"reserved label", func(r *Registry) { r.Counter("a_total", "h", "__name") }},
		{"label with colon", func(r *Registry) { r.Counter("a_total", "h", "a:b") }},
		{"repeated label", func(r *Registry) { r.Counter("a_total", "h", "x", "x") }},
		{"too many labels", func(r *Registry) { r.Counter("a_total", "h", "a", "b", "c", "d", "e") }},
		{"le on a histogram", func(r *Registry) { r.Histogram("a", "h", []float64{1}, "le") }},
		{"no buckets", func(r *Registry) { r.Histogram("a", "h", nil) }},
		{"unsorted buckets", func(r *Registry) { r.Histogram("a", "h", []float64{1, 1}) }},
		{"infinite bucket", func(r *Registry) { r.Histogram("a", "h", []float64{1, math.Inf(1)}) }},
		{"too few values", func(r *Registry) { r.Counter("a_total", "h", "x", "y").With("1") }},
		{"too many values", func(r *Registry) { r.Histogram("a", "h", []float64{1}).With("1") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tc.f(NewRegistry())
		})
	}
}

func TestBucketsCopied(t *testing.T) {
	r := NewRegistry()
	b := []float64{1, 2}
	h := r.Histogram("a", "h", b)
	b[0] = 5
	h.With().Observe(1.5)
	var buf bytes.Buffer
	r.WriteText(&buf)
	if got, want := buf.String(), `a_bucket{le="1"} 0`+"\n"; !strings.Contains(got, want) {
		t.Errorf("changing the caller's slice changed the buckets:\n%s", got)
	}
}

// TestConcurrent records from many goroutines while scraping and checks
// that nothing is lost; run it with -race.
func TestConcurrent(t *testing.T) {
	r := NewRegistry()
	c := r.Counter("c_total", "h", "k")
	h := r.Histogram("h_seconds", "h", []float64{0.5}, "k")
	const workers, each = 8, 1000
	var wg sync.WaitGroup
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 20 {
			r.WriteText(new(bytes.Buffer))
		}
	}()
	for w := range workers {
		wg.Go(func() {
			k := []string{"even", "odd"}[w%2]
			for i := range each {
				c.With(k).Inc()
				h.With(k).Observe(float64(i % 2))
			}
		})
	}
	wg.Wait()
	<-done
	var buf bytes.Buffer
	r.WriteText(&buf)
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range fams["c_total"].Metric {
		if got, want := m.Counter.GetValue(), float64(workers/2*each); got != want {
			t.Errorf("counter %d = %v, want %v", i, got, want)
		}
	}
	for i, m := range fams["h_seconds"].Metric {
		hist := m.Histogram
		if got, want := hist.GetSampleCount(), uint64(workers/2*each); got != want {
			t.Errorf("histogram %d count = %d, want %d", i, got, want)
		}
		if got, want := hist.GetSampleSum(), float64(workers/2*each/2); got != want {
			t.Errorf("histogram %d sum = %v, want %v", i, got, want)
		}
		if got, want := hist.Bucket[0].GetCumulativeCount(), uint64(workers/2*each/2); got != want {
			t.Errorf("histogram %d bucket le=0.5 = %d, want %d", i, got, want)
		}
	}
}
