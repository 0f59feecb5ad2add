// Package waitfor waits in tests for something another goroutine or
// process does (a server started, a file written, a reload seen) by
// checking for it until a deadline, instead of sleeping for a time that is
// too long on a fast machine and too short on a loaded one.
package waitfor

import (
	"testing"
	"time"
)

// maxInterval is the longest pause between two checks. Checks start 1 ms
// apart and back off to it, so a condition that holds soon is seen soon
// and one that takes seconds costs few checks.
const maxInterval = 25 * time.Millisecond

// Poll calls cond until it returns true, and reports whether it did
// before timeout passed (cond is called once more at the deadline). For
// callers that report a failure themselves; tests use True or Nil.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for pause := time.Millisecond; ; pause = min(2*pause, maxInterval) {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(pause, left))
	}
}

// True waits up to timeout for cond to return true, and otherwise fails
// tb with "waited <timeout> for <what>". Call it from the test's
// goroutine, as tb.Fatal requires.
func True(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	if !Poll(timeout, cond) {
		tb.Fatalf("waited %v for %s", timeout, what)
	}
}

// Nil waits up to timeout for cond to return nil, and otherwise fails tb
// with "waited <timeout> for <what>: <cond's last error>", the error
// saying what was seen instead.
func Nil(tb testing.TB, timeout time.Duration, what string, cond func() error) {
	tb.Helper()
	var last error
	if !Poll(timeout, func() bool { last = cond(); return last == nil }) {
		tb.Fatalf("waited %v for %s: %v", timeout, what, last)
	}
}
