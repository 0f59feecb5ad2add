//go:build !race

package rst

// raceEnabled reports whether the race detector is on: timings mean
// little then.
const raceEnabled = false
