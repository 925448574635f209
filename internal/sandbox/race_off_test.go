//go:build !race

package sandbox

// raceEnabled reports whether the tests run under the race detector, which
// makes deep recursion in the engine about ten times slower.
const raceEnabled = false
