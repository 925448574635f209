//go:build !race

package heapprobe

const raceEnabled = false
