package metrics

import (
	"io"
	"testing"
)

// The benchmarks record from b.RunParallel goroutines, so with -cpu 1,2,4
// they show the cost of one observation and how it holds up when every
// core hits the same series at once (the worst case: real traffic spreads
// over routes, codes and tools).

func BenchmarkCounterInc(b *testing.B) {
	c := NewRegistry().Counter("c_total", "h", "route", "code").With("/mcp", "200")
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Inc()
		}
	})
}

// BenchmarkCounterWithInc looks the series up by its label values each time,
// as the HTTP middleware does for the status code.
func BenchmarkCounterWithInc(b *testing.B) {
	v := NewRegistry().Counter("c_total", "h", "route", "code")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			v.With("/mcp", "200").Inc()
		}
	})
}

func BenchmarkHistogramObserve(b *testing.B) {
	h := NewRegistry().Histogram("h_seconds", "h", []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}, "tool").With("get-library-docs")
	b.RunParallel(func(pb *testing.PB) {
		v := 0.0
		for pb.Next() {
			h.Observe(v)
			v += 0.0001
			if v > 0.02 {
				v = 0
			}
		}
	})
}

// BenchmarkWriteText renders a registry the size of the server's.
func BenchmarkWriteText(b *testing.B) {
	r := NewRegistry()
	req := r.Counter("c_total", "h", "route", "code")
	lat := r.Histogram("h_seconds", "h", []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}, "route")
	for _, route := range []string{"/mcp", "/healthz", "/readyz", "/metrics", "other"} {
		for _, code := range []string{"200", "400", "404", "503"} {
			req.With(route, code).Inc()
		}
		lat.With(route).Observe(0.003)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := r.WriteText(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
