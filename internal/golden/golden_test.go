package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, f) }

func TestJSON(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.golden.json")
	JSON(t, p, "x", map[string]int{"a": 1}, true)
	data, err := os.ReadFile(p)
	if err != nil || string(data) != "{\n  \"a\": 1\n}\n" {
		t.Fatalf("written %q, %v", data, err)
	}
	JSON(t, p, "x", map[string]int{"a": 1}, false)
	r := &recorder{TB: t}
	JSON(r, p, "x", map[string]int{"a": 2}, false)
	if len(r.errs) != 1 {
		t.Errorf("a different value: %d failures, want 1", len(r.errs))
	}
	if d := FirstDiff("a\nb\n", "a\nc\n"); !strings.Contains(d, "line 2") || !strings.Contains(d, "-want b") || !strings.Contains(d, "+got  c") {
		t.Errorf("FirstDiff = %q", d)
	}
}
