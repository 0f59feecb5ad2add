package catalog

import (
	"context"
	"testing"

	"github.com/codex7/codex7/internal/synthdist"
)

// BenchmarkReopen asks 64 libraries in turn with MaxOpen 8, so that every
// request opens its version again after an eviction (verified once): what
// a server whose --max-open is far below the libraries asked pays per call.
//
//	go test -run '^$' -bench Reopen ./catalog/
func BenchmarkReopen(b *testing.B) {
	out := b.TempDir()
	if err := synthdist.Write(context.Background(), out, synthdist.Options{Libraries: 64, Pages: 20}); err != nil {
		b.Fatal(err)
	}
	e, err := Open([]string{out}, Options{MaxOpen: 8})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	b.ResetTimer()
	for i := range b.N {
		if _, err := ask(e, synthdist.ID(i%64), "river stone"); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if s := e.Status(); s.OpenHits > int64(b.N)/2 {
		b.Fatalf("%d of %d requests found their version open: not measuring reopening", s.OpenHits, b.N)
	}
}
