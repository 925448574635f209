//go:build unix

package sandbox

import (
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// A doorbell is a page of memory a worker and its host share, in which each
// counts the bytes it has written to the other's pipe. A side that expects
// an answer within microseconds (see hostSpin and workerSpin) watches the
// other's count for a while before it sleeps in a read of the pipe: a
// thread that sleeps and is woken costs tens of microseconds of processor
// time on a virtual machine, as much as a tool call's JavaScript. Nothing
// but that wait depends on the counts: a wrong count, whatever the other
// side wrote there, only ends the watch early or late.
type doorbell struct {
	mem []byte
}

// Offsets of the counts in the page, on cache lines of their own.
const (
	doorbellWorker = 0  // bytes the worker wrote to the host
	doorbellHost   = 64 // bytes the host wrote to the worker
	doorbellSize   = 4096
)

// newDoorbellFile returns a file to share a doorbell through, already
// removed from the file system.
func newDoorbellFile() (*os.File, error) {
	f, err := os.CreateTemp("", "aisdkgo-sandbox-")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name())
	if err := f.Truncate(doorbellSize); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// mapDoorbell maps the doorbell shared through f.
func mapDoorbell(f *os.File) (*doorbell, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var mem []byte
	cerr := rc.Control(func(fd uintptr) {
		mem, err = syscall.Mmap(int(fd), 0, doorbellSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	})
	if cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	return &doorbell{mem: mem}, nil
}

func (d *doorbell) count(off int) *atomic.Uint64 {
	return (*atomic.Uint64)(unsafe.Pointer(&d.mem[off]))
}

// close unmaps the doorbell.
func (d *doorbell) close() { _ = syscall.Munmap(d.mem) }

// doorbellYield is how often a watch gives the processor to other threads,
// such as the other side of the doorbell when it runs on the same one.
const doorbellYield = 10 * time.Microsecond

// await watches the count at off for up to max, until it passes read, and
// reports whether it did.
func (d *doorbell) await(off int, read uint64, max time.Duration) bool {
	c := d.count(off)
	start := time.Now()
	yield := doorbellYield
	for i := 1; ; i++ {
		if c.Load() > read {
			return true
		}
		if i%64 != 0 {
			continue
		}
		switch since := time.Since(start); {
		case since >= max:
			return false
		case since >= yield:
			yield += doorbellYield
			yieldThread()
		}
	}
}
