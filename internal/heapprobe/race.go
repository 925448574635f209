//go:build race

package heapprobe

// raceEnabled is true when the race detector is on: it slows a large
// answer's decoding tenfold and its figures are not the program's own.
const raceEnabled = true
