//go:build unix

package pipeline

import "syscall"

// processCPU returns the CPU time, user and system, this process has used
// in nanoseconds: the reading benchmark reports MB per CPU-second, which
// other jobs on a shared machine disturb far less than wall time.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
