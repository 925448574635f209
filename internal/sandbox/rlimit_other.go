//go:build !linux || race

package sandbox

// limitWorkerMemory caps the memory of a worker process where the system
// allows it; here it does not.
func limitWorkerMemory(memoryBytes int) {}
