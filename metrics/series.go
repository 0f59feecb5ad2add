package metrics

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// key identifies a series within a family by its label values; a fixed
// array, so that looking one up allocates nothing.
type key [MaxLabels]string

// entry is one series of a family and the label values it is rendered with.
type entry[T any] struct {
	labels key // valid UTF-8
	series *T
}

// vec is the label-keyed set of series of one family. Lookups read an
// immutable map through an atomic pointer, without locking; creating a
// series copies the map under a mutex, which happens once per label set.
type vec[T any] struct {
	n         int
	newSeries func() *T
	mu        sync.Mutex // serializes writers of m
	m         atomic.Pointer[map[key]*entry[T]]
}

func (v *vec[T]) init(n int, newSeries func() *T) {
	v.n, v.newSeries = n, newSeries
	v.m.Store(&map[key]*entry[T]{})
}

// with returns the series for values, creating it on first use. Label
// values that are not valid UTF-8 are rendered with U+FFFD in place of the
// bad bytes, and values that become equal that way share a series.
func (v *vec[T]) with(name string, values []string) *T {
	if len(values) != v.n {
		panic(fmt.Sprintf("metrics: %s: %d label values for %d labels", name, len(values), v.n))
	}
	var k key
	copy(k[:], values)
	if e, ok := (*v.m.Load())[k]; ok {
		return e.series
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	old := *v.m.Load()
	if e, ok := old[k]; ok {
		return e.series
	}
	var clean key
	for i, s := range k {
		clean[i] = strings.ToValidUTF8(s, "\uFFFD")
	}
	m := make(map[key]*entry[T], len(old)+2)
	for k, e := range old {
		m[k] = e
	}
	e, ok := m[clean]
	if !ok {
		e = &entry[T]{labels: clean, series: v.newSeries()}
		m[clean] = e
	}
	m[k] = e
	v.m.Store(&m)
	return e.series
}

// entries returns the family's series sorted by label values, each once.
func (v *vec[T]) entries() []*entry[T] {
	m := *v.m.Load()
	es := make([]*entry[T], 0, len(m))
	for k, e := range m {
		if k == e.labels { // an entry is stored under its clean key once
			es = append(es, e)
		}
	}
	slices.SortFunc(es, func(a, b *entry[T]) int { return slices.Compare(a.labels[:], b.labels[:]) })
	return es
}

// CounterVec is a counter family: one Counter per combination of label
// values.
type CounterVec struct {
	desc
	vec vec[Counter]
}

// With returns the counter for the given label values, in the order the
// label names were registered, creating it at zero on first use. It panics
// if the number of values is wrong. Callers on a hot path may keep the
// result instead of calling With each time.
func (v *CounterVec) With(values ...string) *Counter { return v.vec.with(v.fname, values) }

// Counter is a monotonically increasing count. Its methods are safe for
// concurrent use.
type Counter struct {
	n atomic.Uint64
	_ [56]byte // a cache line of its own: no false sharing with a neighbour
}

// Inc adds one.
func (c *Counter) Inc() { c.n.Add(1) }

// Add adds n.
func (c *Counter) Add(n uint64) { c.n.Add(n) }

// HistogramVec is a histogram family: one Histogram per combination of
// label values, all with the same buckets.
type HistogramVec struct {
	desc
	upper []float64
	les   []string // upper rendered for the le label, then "+Inf"
	vec   vec[Histogram]
}

// With returns the histogram for the given label values, in the order the
// label names were registered, creating it empty on first use. It panics
// if the number of values is wrong. Callers on a hot path may keep the
// result instead of calling With each time.
func (v *HistogramVec) With(values ...string) *Histogram { return v.vec.with(v.fname, values) }

// Histogram counts observations in buckets and keeps their sum. Its methods
// are safe for concurrent use. A scrape reads each bucket once and derives
// the count from them, so _count always equals the +Inf bucket; _sum may
// include an observation whose bucket the same scrape missed, or the
// reverse.
type Histogram struct {
	upper  []float64       // shared with the family, read-only
	counts []atomic.Uint64 // per bucket, not cumulative; the last is +Inf
	_      [16]byte        // keeps sum off the cache line every Observe reads
	sum    atomic.Uint64   // float64 bits
	_      [56]byte
}

func newHistogram(upper []float64) *Histogram {
	return &Histogram{upper: upper, counts: make([]atomic.Uint64, len(upper)+1)}
}

// Observe records v. NaN is ignored: it would make the sum meaningless.
func (h *Histogram) Observe(v float64) {
	if math.IsNaN(v) {
		return
	}
	// The first bucket whose upper bound is >= v: le means "less or equal".
	h.counts[sort.SearchFloat64s(h.upper, v)].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// ObserveDuration records d in seconds, the unit Prometheus expects.
func (h *Histogram) ObserveDuration(d time.Duration) { h.Observe(d.Seconds()) }
