package main

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// requireSignals skips the test: Windows cannot send SIGTERM or SIGHUP to
// another process (os.Process.Signal supports only os.Kill).
func requireSignals(t testing.TB) {
	t.Helper()
	t.Skip("Windows cannot send SIGTERM or SIGHUP to a process")
}

// processCPU returns the CPU time (user and kernel, every thread: the
// garbage collector's too) this process has used so far. On a machine
// shared with other work it is a steadier measure of a call's cost than
// wall time, which includes waiting for a core.
func processCPU(b *testing.B) time.Duration {
	b.Helper()
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user); err != nil {
		b.Fatal(err)
	}
	// The times are durations in 100 ns units, not instants: not
	// Filetime.Nanoseconds, which subtracts the epoch of 1601.
	ticks := func(ft windows.Filetime) int64 { return int64(ft.HighDateTime)<<32 | int64(ft.LowDateTime) }
	return time.Duration(ticks(kernel)+ticks(user)) * 100
}

// peakRSSKiB returns 0: Windows does not report an exited process's peak
// memory.
func peakRSSKiB(ps *os.ProcessState) int64 { return 0 }
