//go:build !unix

package sandbox

import (
	"errors"
	"os"
	"sync/atomic"
	"time"
)

// doorbell is not available on this system: both sides sleep in their
// reads.
type doorbell struct{}

const (
	doorbellWorker = 0
	doorbellHost   = 64
)

var errNoDoorbell = errors.New("sandbox: no doorbell on this system")

func newDoorbellFile() (*os.File, error) { return nil, errNoDoorbell }

func mapDoorbell(*os.File) (*doorbell, error) { return nil, errNoDoorbell }

func (d *doorbell) count(int) *atomic.Uint64 { return new(atomic.Uint64) }

func (d *doorbell) close() {}

func (d *doorbell) await(int, uint64, time.Duration) bool { return false }
