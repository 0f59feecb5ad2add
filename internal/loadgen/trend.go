package loadgen

import (
	"fmt"
	"slices"
	"time"
)

// MemoryTrend summarizes a server's RSS over a long run, to tell a leak
// from warm-up: the median of each of three windows of the run, and the
// peak. The first window holds the warm-up (indexes opened, caches
// filled); the second is the reference once warm; the last is the end of
// the run. A leak shows as a last window above the second.
type MemoryTrend struct {
	// Window is the length of each window.
	Window time.Duration
	// First, Second and Last are the median RSS, in bytes, of the samples
	// in [0, Window), [Window, 2*Window) and [end-Window, end], where end
	// is the last sample's time.
	First, Second, Last int64
	// Max is the highest RSS sampled, in bytes.
	Max int64
	// Samples counts the samples summarized.
	Samples int
}

// TrendOf summarizes samples (in time order, as Result.Memory holds them)
// over windows of length window. The run must span at least three windows,
// so that the last does not overlap the second, with a sample in each.
func TrendOf(samples []MemorySample, window time.Duration) (MemoryTrend, error) {
	t := MemoryTrend{Window: window, Samples: len(samples)}
	if window <= 0 || len(samples) == 0 {
		return t, fmt.Errorf("memory trend: %d samples, window %v: %w", len(samples), window, errBadOptions)
	}
	end := samples[len(samples)-1].At
	if end < 3*window {
		return t, fmt.Errorf("memory trend: run of %v is shorter than three windows of %v: %w", end, window, errBadOptions)
	}
	var first, second, last []int64
	for _, s := range samples {
		t.Max = max(t.Max, s.RSS)
		switch {
		case s.At < window:
			first = append(first, s.RSS)
		case s.At < 2*window:
			second = append(second, s.RSS)
		}
		if s.At >= end-window {
			last = append(last, s.RSS)
		}
	}
	if len(first) == 0 || len(second) == 0 {
		return t, fmt.Errorf("memory trend: no sample in the first or second %v: %w", window, errBadOptions)
	}
	t.First, t.Second, t.Last = medianOf(first), medianOf(second), medianOf(last)
	return t, nil
}

// Growth is how much the last window's median exceeds the second's, as a
// fraction (0.2 is 20% more; negative when it shrank).
func (t MemoryTrend) Growth() float64 {
	if t.Second == 0 {
		return 0
	}
	return float64(t.Last)/float64(t.Second) - 1
}

// String formats the trend in MiB.
func (t MemoryTrend) String() string {
	mib := func(n int64) float64 { return float64(n) / (1 << 20) }
	return fmt.Sprintf("RSS medians %.1f MiB (first %v), %.1f MiB (next %v), %.1f MiB (last %v): %+.1f%%; max %.1f MiB over %d samples",
		mib(t.First), t.Window, mib(t.Second), t.Window, mib(t.Last), t.Window, 100*t.Growth(), mib(t.Max), t.Samples)
}

// medianOf returns the median of xs (the upper one of an even count).
func medianOf(xs []int64) int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
