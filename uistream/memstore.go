package uistream

import (
	"context"
	"fmt"
	"iter"
	"sync"
	"time"
)

// Defaults of a [MemoryStore].
const (
	DefaultStreamTTL       = 24 * time.Hour
	DefaultMaxStreams      = 1000
	DefaultMaxStoredBytes  = 64 << 20
	DefaultMaxStreamChunks = 100_000
)

// MemoryStore is a [StreamStore] that keeps the streams in this process:
// resumption works as long as the client comes back to the same server.
// It is bounded: at most MaxStreams streams and MaxBytes bytes of chunks;
// when a bound is reached, the finished streams that were written least
// recently make room first, and a write that still does not fit fails
// with ErrStoreFull. A stream expires TTL after its last write. Set the
// fields before first use; the zero value uses the defaults.
type MemoryStore struct {
	// TTL is how long a stream is kept after its last write. Zero means
	// DefaultStreamTTL.
	TTL time.Duration
	// MaxStreams bounds the streams held at once. Zero means
	// DefaultMaxStreams.
	MaxStreams int
	// MaxBytes bounds the bytes of all chunks held. Zero means
	// DefaultMaxStoredBytes.
	MaxBytes int
	// MaxChunks bounds the chunks of one stream. Zero means
	// DefaultMaxStreamChunks.
	MaxChunks int

	mu      sync.Mutex
	streams map[string]*memStream
	bytes   int
	// now is the clock; tests replace it.
	now func() time.Time
}

type memStream struct {
	chunks   [][]byte
	bytes    int
	finished bool
	expires  time.Time
	// changed is closed and replaced at every write, waking the readers.
	changed chan struct{}
	stop    chan struct{}
	stopped bool
}

// NewMemoryStore returns an empty store with the default bounds.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

func (m *MemoryStore) clock() time.Time {
	if m.now != nil {
		return m.now()
	}
	return time.Now()
}

func (m *MemoryStore) ttl() time.Duration {
	if m.TTL > 0 {
		return m.TTL
	}
	return DefaultStreamTTL
}

func orDefaultInt(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// lookupLocked returns a stream that has not expired, dropping expired
// ones it meets.
func (m *MemoryStore) lookupLocked(id string) *memStream {
	s := m.streams[id]
	if s != nil && !m.clock().Before(s.expires) {
		m.dropLocked(id, s)
		return nil
	}
	return s
}

func (m *MemoryStore) dropLocked(id string, s *memStream) {
	delete(m.streams, id)
	m.bytes -= s.bytes
	close(s.changed)
}

// makeRoomLocked drops expired streams, then the finished streams written
// least recently, until a stream more (newStream) and n more bytes fit.
func (m *MemoryStore) makeRoomLocked(newStream bool, n int) bool {
	maxStreams := orDefaultInt(m.MaxStreams, DefaultMaxStreams)
	maxBytes := orDefaultInt(m.MaxBytes, DefaultMaxStoredBytes)
	fits := func() bool {
		k := len(m.streams)
		if newStream {
			k++
		}
		return k <= maxStreams && m.bytes+n <= maxBytes
	}
	if fits() {
		return true
	}
	now := m.clock()
	for id, s := range m.streams {
		if !now.Before(s.expires) {
			m.dropLocked(id, s)
		}
	}
	for !fits() {
		var oldID string
		var old *memStream
		for id, s := range m.streams {
			if s.finished && (old == nil || s.expires.Before(old.expires)) {
				oldID, old = id, s
			}
		}
		if old == nil {
			return false
		}
		m.dropLocked(oldID, old)
	}
	return true
}

// Create implements [StreamStore].
func (m *MemoryStore) Create(_ context.Context, streamID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lookupLocked(streamID) != nil {
		return fmt.Errorf("%w: %s", ErrStreamExists, streamID)
	}
	if !m.makeRoomLocked(true, 0) {
		return fmt.Errorf("%w: %d streams", ErrStoreFull, len(m.streams))
	}
	if m.streams == nil {
		m.streams = map[string]*memStream{}
	}
	m.streams[streamID] = &memStream{
		expires: m.clock().Add(m.ttl()),
		changed: make(chan struct{}),
		stop:    make(chan struct{}),
	}
	return nil
}

// write runs f on an unfinished stream and wakes its readers.
// n is the size of an appended chunk, -1 for no chunk.
func (m *MemoryStore) write(streamID string, n int, f func(s *memStream) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.lookupLocked(streamID)
	if s == nil {
		return fmt.Errorf("%w: %s", ErrStreamNotFound, streamID)
	}
	if s.finished {
		return fmt.Errorf("%w: %s", ErrStreamFinished, streamID)
	}
	if n >= 0 {
		if len(s.chunks) >= orDefaultInt(m.MaxChunks, DefaultMaxStreamChunks) {
			return fmt.Errorf("%w: stream %s has %d chunks", ErrStoreFull, streamID, len(s.chunks))
		}
		if !m.makeRoomLocked(false, n) {
			return fmt.Errorf("%w: %d bytes held", ErrStoreFull, m.bytes)
		}
	}
	if err := f(s); err != nil {
		return err
	}
	s.expires = m.clock().Add(m.ttl())
	close(s.changed)
	s.changed = make(chan struct{})
	return nil
}

// Append implements [StreamStore].
func (m *MemoryStore) Append(_ context.Context, streamID string, chunk []byte) error {
	c := append([]byte(nil), chunk...)
	return m.write(streamID, len(c), func(s *memStream) error {
		s.chunks = append(s.chunks, c)
		s.bytes += len(c)
		m.bytes += len(c)
		return nil
	})
}

// Finish implements [StreamStore].
func (m *MemoryStore) Finish(_ context.Context, streamID string) error {
	return m.write(streamID, -1, func(s *memStream) error {
		s.finished = true
		return nil
	})
}

// Read implements [StreamStore].
func (m *MemoryStore) Read(ctx context.Context, streamID string, offset int) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		offset := max(offset, 0)
		for {
			m.mu.Lock()
			s := m.lookupLocked(streamID)
			if s == nil {
				m.mu.Unlock()
				yield(nil, fmt.Errorf("%w: %s", ErrStreamNotFound, streamID))
				return
			}
			var chunks [][]byte
			if offset < len(s.chunks) {
				chunks = s.chunks[offset:len(s.chunks):len(s.chunks)]
			}
			finished, changed, expires := s.finished, s.changed, s.expires
			m.mu.Unlock()

			for _, c := range chunks {
				if !yield(c, nil) {
					return
				}
			}
			offset += len(chunks)
			if len(chunks) > 0 {
				continue // more may have come while yielding
			}
			if finished {
				return
			}
			wait := time.NewTimer(expires.Sub(m.clock()))
			select {
			case <-ctx.Done():
				wait.Stop()
				yield(nil, ctx.Err())
				return
			case <-changed:
			case <-wait.C:
			}
			wait.Stop()
		}
	}
}

// Stop implements [StreamStore].
func (m *MemoryStore) Stop(_ context.Context, streamID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.lookupLocked(streamID)
	if s == nil {
		return fmt.Errorf("%w: %s", ErrStreamNotFound, streamID)
	}
	if !s.stopped {
		s.stopped = true
		close(s.stop)
	}
	return nil
}

// Stopped implements [StreamStore].
func (m *MemoryStore) Stopped(_ context.Context, streamID string) (<-chan struct{}, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.lookupLocked(streamID)
	if s == nil {
		return nil, fmt.Errorf("%w: %s", ErrStreamNotFound, streamID)
	}
	return s.stop, nil
}
