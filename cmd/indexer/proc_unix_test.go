//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// requireSignals lets the test go on: it may send SIGTERM and SIGHUP to
// the processes it starts.
func requireSignals(t testing.TB) { t.Helper() }

// processCPU returns the CPU time (user and system, every thread: the
// garbage collector's too) this process has used so far. On a machine
// shared with other work it is a steadier measure of a call's cost than
// wall time, which includes waiting for a core.
func processCPU(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSSKiB returns the peak resident set size of the exited process ps
// in KiB (getrusage's ru_maxrss, which macOS gives in bytes), or 0.
func peakRSSKiB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
