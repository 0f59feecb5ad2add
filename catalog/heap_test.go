package catalog

import (
	"context"
	"log/slog"
	"math"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/syncbuf"
)

// TestHeapOverLimitWarned: a catalog whose live heap takes more than half
// the soft memory limit is warned about after its load, naming the limit
// to give; under a limit it fits, or with none, nothing is said. A reload
// of the same catalog does not check again.
func TestHeapOverLimitWarned(t *testing.T) {
	s := buildtest.NewSite(t, t.TempDir())
	s.Build()
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	for _, tt := range []struct {
		name  string
		limit int64
		warn  bool
	}{
		{"a limit the process is over", 1 << 20, true},
		{"a limit of a TiB", 1 << 40, false},
		{"no limit", math.MaxInt64, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs syncbuf.Buffer
			debug.SetMemoryLimit(tt.limit)
			e, err := Open([]string{s.Out}, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				debug.SetMemoryLimit(old)
				t.Fatal(err)
			}
			if err := e.Reload(context.Background()); err != nil {
				t.Error(err)
			}
			e.Close() // waits for the check, which runs in the background
			debug.SetMemoryLimit(old)
			got := logs.String()
			if n := strings.Count(got, "over half the soft memory limit"); n > 1 {
				t.Errorf("warned %d times for one catalog loaded twice, want once", n)
			}
			warned := strings.Contains(got, "over half the soft memory limit")
			if warned != tt.warn {
				t.Fatalf("warned %v, want %v:\n%s", warned, tt.warn, got)
			}
			if warned && (!strings.Contains(got, "--memory-limit-mib") || !strings.Contains(got, "suggested_limit_mib=")) {
				t.Errorf("the warning does not say what to do:\n%s", got)
			}
		})
	}
}
