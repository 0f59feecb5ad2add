//go:build race

package markdown

// raceEnabled reports whether the race detector is on: timings mean
// little then.
const raceEnabled = true
