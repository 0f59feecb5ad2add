//go:build unix

package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codex7/codex7/internal/synthdist"
)

// tinyDist returns a dist of n tiny synthetic libraries (synthdist), written
// on first use into the user cache dir, where BenchmarkServeScale finds it
// too.
func tinyDist(b *testing.B, n int) string {
	b.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "codex7", "synthdist", fmt.Sprintf("tiny-%d-20", n))
	if _, err := synthdist.Cached(context.Background(), dir, synthdist.Options{Libraries: n, Pages: 20, Tiny: true}); err != nil {
		b.Fatal(err)
	}
	return dir
}

// cpuTime is the CPU time the process has used, user and system: on a
// machine shared with other work, it says what a load costs better than
// the time it takes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapMB is the live heap after a collection, in MiB.
func heapMB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// BenchmarkCatalogScale loads catalogs of 1,000 to 50,000 tiny library
// versions in process and reports the load (load-ms), the live heap it
// leaves (heap-MB), a forced reload of the unchanged catalog (reload-ms),
// the CPU time of both (load-cpu-ms, reload-cpu-ms: the process's, the
// background goroutines' included), and resolving a library by bare name (resolve-us) and ranking libraries
// for a name (search-us), as resolve-library-id and /api/v2/libs/search do.
//
//	go test -run '^$' -bench CatalogScale -benchtime 3x ./catalog/
func BenchmarkCatalogScale(b *testing.B) {
	for _, n := range []int{1000, 5000, 50000} {
		b.Run(fmt.Sprintf("libs=%d", n), func(b *testing.B) {
			dir := tinyDist(b, n)
			base := heapMB()
			var load, reload, resolve, search, loadCPU, reloadCPU time.Duration
			var heap float64
			for range b.N {
				start, cpu := time.Now(), cpuTime()
				e, err := Open([]string{dir}, Options{})
				if err != nil {
					b.Fatal(err)
				}
				load += time.Since(start)
				loadCPU += cpuTime() - cpu
				heap += heapMB() - base
				start, cpu = time.Now(), cpuTime()
				if err := e.Reload(context.Background()); err != nil {
					b.Fatal(err)
				}
				reload += time.Since(start)
				reloadCPU += cpuTime() - cpu
				const asks = 200
				start = time.Now()
				for k := range asks {
					id := synthdist.ID(k * 7919 % n)
					name := id[strings.LastIndexByte(id, '/')+1:]
					if _, err := e.Resolve(context.Background(), name); err != nil {
						b.Fatal(err)
					}
				}
				resolve += time.Since(start) / asks
				start = time.Now()
				for k := range asks {
					id := synthdist.ID(k * 7919 % n)
					name := id[strings.LastIndexByte(id, '/')+1:]
					if m := e.Libraries().Search(nil, name[:strings.LastIndexByte(name, '-')], "", 10); len(m) == 0 {
						b.Fatalf("no match for %s", name)
					}
				}
				search += time.Since(start) / asks
				e.Close()
			}
			b.ReportMetric(float64(load.Milliseconds())/float64(b.N), "load-ms")
			b.ReportMetric(heap/float64(b.N), "heap-MB")
			b.ReportMetric(float64(reload.Milliseconds())/float64(b.N), "reload-ms")
			b.ReportMetric(float64(loadCPU.Milliseconds())/float64(b.N), "load-cpu-ms")
			b.ReportMetric(float64(reloadCPU.Milliseconds())/float64(b.N), "reload-cpu-ms")
			b.ReportMetric(float64(resolve.Microseconds())/float64(b.N), "resolve-us")
			b.ReportMetric(float64(search.Microseconds())/float64(b.N), "search-us")
		})
	}
}
