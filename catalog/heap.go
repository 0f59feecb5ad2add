package catalog

import (
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// heapWarnShare is the share of the soft memory limit (GOMEMLIMIT,
// --memory-limit-mib) past which the live heap after a load is warned
// about: the collector lets the heap grow to twice the live heap before
// it collects, and caps that at the limit, so above half the limit it
// collects more and more often, and near the limit without end.
const heapWarnShare = 0.5

// heapCheckGrowth is how much a catalog must have grown, in libraries,
// since the heap was last checked for it to be checked again.
const heapCheckGrowth = 1.1

// maybeCheckHeap checks the heap (checkHeap) in the background after the
// first load, and after a load that grew the catalog by heapCheckGrowth
// since the last check: not after every publish, and never under the
// reload lock (the check collects). Called with e.reloadMu held.
func (e *Loader) maybeCheckHeap(libraries int) {
	if libraries == 0 || float64(libraries) < heapCheckGrowth*float64(e.heapChecked) {
		return
	}
	e.heapChecked = libraries
	e.done.Add(1)
	go func() {
		defer e.done.Done()
		checkHeap(e.log, libraries)
	}()
}

// checkHeap logs a warning, with the fix, when the live heap after a
// catalog load takes more than heapWarnShare of the soft memory limit.
// It collects once to know the live heap: it runs rarely, and a load
// allocates far more than a collection costs. Without a limit it does
// nothing.
func checkHeap(log *slog.Logger, libraries int) {
	limit := debug.SetMemoryLimit(-1) // reads the limit without changing it
	if limit <= 0 || limit == math.MaxInt64 {
		return
	}
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	live := sample[0].Value.Uint64()
	if float64(live) <= heapWarnShare*float64(limit) {
		return
	}
	mib := func(b float64) int64 { return int64(math.Ceil(b / (1 << 20))) }
	log.Warn("the live heap is over half the soft memory limit: the collector will run ever more often and answers slow down; raise --memory-limit-mib (GOMEMLIMIT), or also set GOGC=50 to trade CPU for memory",
		"libraries", libraries, "live_heap_mib", mib(float64(live)), "limit_mib", mib(float64(limit)),
		"suggested_limit_mib", mib(2.2*float64(live)), "suggested_limit_mib_with_gogc_50", mib(1.8*float64(live)))
}
