package waitfor

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPoll(t *testing.T) {
	var calls atomic.Int32
	if !Poll(time.Minute, func() bool { return calls.Add(1) == 3 }) {
		t.Fatal("Poll gave up on a condition that held at the third check")
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("cond called %d times, want 3: checking stops once it holds", n)
	}
	calls.Store(0)
	if Poll(5*time.Millisecond, func() bool { calls.Add(1); return false }) {
		t.Error("Poll reported a condition that never held")
	}
	if n := calls.Load(); n < 2 {
		t.Errorf("cond called %d times in 5 ms, want a check at the start and one at the deadline", n)
	}
}

// recorder is a testing.TB that records Fatalf instead of stopping.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}

func TestFailureSaysWhatWasAwaited(t *testing.T) {
	r := &recorder{TB: t}
	True(r, time.Millisecond, "the server to start", func() bool { return false })
	if r.msg != "waited 1ms for the server to start" {
		t.Errorf("True: %q", r.msg)
	}
	r.msg = ""
	Nil(r, time.Millisecond, "/readyz to answer 200", func() error { return errors.New("503 loading") })
	if !strings.HasPrefix(r.msg, "waited 1ms for /readyz to answer 200: 503 loading") {
		t.Errorf("Nil: %q", r.msg)
	}
	r.msg = ""
	True(r, time.Second, "nothing", func() bool { return true })
	Nil(r, time.Second, "nothing", func() error { return nil })
	if r.msg != "" {
		t.Errorf("a condition that holds failed the test: %q", r.msg)
	}
}
