//go:build race

package asciidoc

// raceEnabled reports whether the race detector is on: timings mean
// little then.
const raceEnabled = true
