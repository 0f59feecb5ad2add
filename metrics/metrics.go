// Package metrics is a small in-process metrics registry that renders the
// Prometheus text exposition format 0.0.4. It has counters and histograms
// with a fixed set of label names, and gauges read from a callback at scrape
// time: what a read-only server needs, without prometheus/client_golang's
// dependencies.
//
// Registration panics on a programmer error (an invalid or duplicate name,
// unsorted buckets), like http.ServeMux.Handle does: it happens once at
// start-up with constant arguments. Recording is safe for concurrent use and
// costs one or two atomic operations; rendering is deterministic (families
// sorted by name, series by label values).
package metrics

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// ContentType is the media type of the text exposition format that
// Registry.WriteText produces.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// MaxLabels is the largest number of label names a family may have. It
// keeps series lookups free of allocations (the key is a fixed array); a
// family that needs more labels should be split.
const MaxLabels = 4

// Registry holds metric families and renders them. The zero value is not
// usable; call NewRegistry. All methods are safe for concurrent use.
type Registry struct {
	mu       sync.Mutex
	families []family // sorted by name
}

// family is one metric family: a name, help, type and its series.
type family interface {
	name() string
	// write appends the family's HELP, TYPE and sample lines to b.
	write(b []byte) []byte
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{}
}

// Counter registers a counter family and returns it. labels are its label
// names, fixed for its life; Prometheus convention is a name ending in
// _total. It panics if a name is invalid or already registered.
func (r *Registry) Counter(name, help string, labels ...string) *CounterVec {
	v := &CounterVec{desc: newDesc(name, help, labels, false)}
	v.vec.init(len(labels), func() *Counter { return new(Counter) })
	r.add(v)
	return v
}

// Histogram registers a histogram family with the given bucket upper bounds
// (strictly increasing, finite; the +Inf bucket is implicit) and returns
// it. The registry keeps its own copy of buckets. It panics if a name is
// invalid or already registered, a label is called "le", or the buckets are
// not strictly increasing.
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *HistogramVec {
	if len(buckets) == 0 {
		panic(fmt.Sprintf("metrics: histogram %s: no buckets", name))
	}
	for i, b := range buckets {
		if math.IsNaN(b) || math.IsInf(b, 0) || (i > 0 && b <= buckets[i-1]) {
			panic(fmt.Sprintf("metrics: histogram %s: buckets must be finite and strictly increasing, got %v", name, buckets))
		}
	}
	upper := slices.Clone(buckets)
	les := make([]string, 0, len(upper)+1)
	for _, b := range upper {
		les = append(les, string(appendFloat(nil, b)))
	}
	les = append(les, "+Inf")
	v := &HistogramVec{desc: newDesc(name, help, labels, true), upper: upper, les: les}
	v.vec.init(len(labels), func() *Histogram { return newHistogram(upper) })
	r.add(v)
	return v
}

// GaugeFunc registers a gauge without labels whose value is f's result at
// each scrape. f is called from the scraping goroutine, possibly
// concurrently with other scrapes, so it must be safe for concurrent use
// and quick. It panics if name is invalid or already registered.
func (r *Registry) GaugeFunc(name, help string, f func() float64) {
	r.add(&gaugeFunc{desc: newDesc(name, help, nil, false), f: f})
}

// CounterFunc registers a counter without labels whose value is f's result
// at each scrape, for counts kept elsewhere; f must never decrease, be safe
// for concurrent use and quick. It panics if name is invalid or already
// registered.
func (r *Registry) CounterFunc(name, help string, f func() float64) {
	r.add(&gaugeFunc{desc: newDesc(name, help, nil, false), f: f, typ: "counter"})
}

// add inserts f in name order, panicking on a duplicate name.
func (r *Registry) add(f family) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i, found := slices.BinarySearchFunc(r.families, f.name(), func(g family, name string) int {
		switch {
		case g.name() < name:
			return -1
		case g.name() > name:
			return 1
		}
		return 0
	})
	if found {
		panic(fmt.Sprintf("metrics: %s registered twice", f.name()))
	}
	r.families = slices.Insert(r.families, i, f)
}

// desc is what every family has: name, help and label names.
type desc struct {
	fname  string
	help   string
	labels []string
}

func (d *desc) name() string { return d.fname }

func newDesc(name, help string, labels []string, histogram bool) desc {
	if !validMetricName(name) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", name))
	}
	if len(labels) > MaxLabels {
		panic(fmt.Sprintf("metrics: %s: %d labels, at most %d", name, len(labels), MaxLabels))
	}
	for i, l := range labels {
		switch {
		case !validLabelName(l):
			panic(fmt.Sprintf("metrics: %s: invalid label name %q", name, l))
		case histogram && l == "le":
			panic(fmt.Sprintf("metrics: %s: a histogram may not have a label named le", name))
		case slices.Contains(labels[:i], l):
			panic(fmt.Sprintf("metrics: %s: label %q given twice", name, l))
		}
	}
	return desc{fname: name, help: help, labels: slices.Clone(labels)}
}

// validMetricName reports whether s matches [a-zA-Z_:][a-zA-Z0-9_:]*.
func validMetricName(s string) bool {
	for i, c := range []byte(s) {
		if !(c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// validLabelName reports whether s matches [a-zA-Z_][a-zA-Z0-9_]* and does
// not start with the reserved "__".
func validLabelName(s string) bool {
	for i, c := range []byte(s) {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != "" && (len(s) < 2 || s[:2] != "__")
}

// gaugeFunc is a gauge (or, with typ "counter", a counter) read from a
// callback.
type gaugeFunc struct {
	desc
	f   func() float64
	typ string // "" means gauge
}
