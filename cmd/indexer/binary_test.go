package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// testBinary builds this tree's indexer binary once per test process,
// into a directory TestMain removes, and returns its path: the tests and
// benchmarks that run the real binary share it instead of each building
// their own.
func testBinary(tb testing.TB) string {
	tb.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "codex7-test-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "indexer")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	return binPath
}
