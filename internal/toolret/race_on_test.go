//go:build race

package toolret

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = true
