//go:build linux && !race

package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// workerMemorySlack is what a worker process may map beyond its memory at
// the start of a run and the run's Limits.MemoryBytes: the transform, the
// Go runtime, buffers.
const workerMemorySlack = 256 << 20

// limitWorkerMemory caps the private writable memory of the worker process
// (RLIMIT_DATA) for a run with the given engine memory limit. The engine's
// limit applies first; this one turns anything else that grows without
// bound, such as a source crafted to blow up the transform, into the end of
// the worker process instead of memory taken from the host. The race
// detector maps its shadow memory as data, so race builds have no such cap.
func limitWorkerMemory(memoryBytes int) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return
	}
	f := bytes.Fields(b)
	if len(f) < 6 {
		return
	}
	pages, err := strconv.ParseUint(string(f[5]), 10, 64)
	if err != nil {
		return
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_DATA, &lim) != nil {
		return
	}
	want := pages*uint64(os.Getpagesize()) + uint64(memoryBytes) + workerMemorySlack
	if lim.Max != ^uint64(0) && want > lim.Max {
		want = lim.Max
	}
	lim.Cur = want
	_ = syscall.Setrlimit(syscall.RLIMIT_DATA, &lim)
}
