//go:build unix

package sandbox

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDoorbell(t *testing.T) {
	f, err := newDoorbellFile()
	require.NoError(t, err)
	defer f.Close()
	// Two mappings of the same file, as the host and the worker have.
	host, err := mapDoorbell(f)
	require.NoError(t, err)
	defer host.close()
	worker, err := mapDoorbell(f)
	require.NoError(t, err)
	defer worker.close()

	// Nothing written: the watch gives up.
	assert.False(t, host.await(doorbellWorker, 0, time.Millisecond))
	// Written before the watch starts, or while it runs.
	worker.count(doorbellWorker).Add(10)
	assert.True(t, host.await(doorbellWorker, 0, time.Millisecond))
	assert.False(t, host.await(doorbellWorker, 10, time.Millisecond))
	go worker.count(doorbellWorker).Add(1)
	assert.True(t, host.await(doorbellWorker, 10, time.Minute))
	// The other count is separate.
	assert.Equal(t, uint64(0), worker.count(doorbellHost).Load())
	host.count(doorbellHost).Add(3)
	assert.True(t, worker.await(doorbellHost, 2, time.Minute))
}
