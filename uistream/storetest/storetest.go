// Package storetest checks that a [uistream.StreamStore] behaves as the
// interface says: the order of chunks, readers that start before, during
// and after a stream, concurrent streams, stop requests and expiry. Store
// implementations call [Run] from their tests.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aisdkgo/ai/uistream"
)

// Run runs the checks. newStore returns an empty store (or one whose
// stream ids cannot collide with earlier runs); expire makes the store
// drop a stream as if its time to live had passed.
func Run(t *testing.T, newStore func(t *testing.T) uistream.StreamStore, expire func(t *testing.T, s uistream.StreamStore, streamID string)) {
	t.Run("Lifecycle", func(t *testing.T) { lifecycle(t, newStore(t)) })
	t.Run("ConcurrentWritersAndReaders", func(t *testing.T) { concurrent(t, newStore(t)) })
	t.Run("CancelledReader", func(t *testing.T) { cancelledReader(t, newStore(t)) })
	t.Run("Stop", func(t *testing.T) { stop(t, newStore(t)) })
	t.Run("Expiry", func(t *testing.T) { expiry(t, newStore(t), expire) })
}

// ID returns a stream id unique to this process and test.
func ID(t *testing.T, name string) string {
	return fmt.Sprintf("%s-%s-%s", t.Name(), name, uistream.NewID())
}

func chunk(stream string, i int) []byte {
	return fmt.Appendf(nil, `{"type":"text-delta","id":%q,"delta":"%d"}`, stream, i)
}

// readAll reads a stream until it ends.
func readAll(ctx context.Context, s uistream.StreamStore, id string, offset int) ([]string, error) {
	var out []string
	for c, err := range s.Read(ctx, id, offset) {
		if err != nil {
			return out, err
		}
		out = append(out, string(c))
	}
	return out, nil
}

func want(id string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, string(chunk(id, i)))
	}
	return out
}

func lifecycle(t *testing.T, s uistream.StreamStore) {
	ctx := context.Background()
	id := ID(t, "a")
	if _, err := readAll(ctx, s, id, 0); !errors.Is(err, uistream.ErrStreamNotFound) {
		t.Fatalf("reading an unknown stream: %v; want ErrStreamNotFound", err)
	}
	if err := s.Append(ctx, id, chunk(id, 0)); !errors.Is(err, uistream.ErrStreamNotFound) {
		t.Fatalf("appending to an unknown stream: %v; want ErrStreamNotFound", err)
	}
	if err := s.Create(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, id); !errors.Is(err, uistream.ErrStreamExists) {
		t.Fatalf("creating a stream twice: %v; want ErrStreamExists", err)
	}
	for i := range 5 {
		if err := s.Append(ctx, id, chunk(id, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Finish(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, id, chunk(id, 5)); !errors.Is(err, uistream.ErrStreamFinished) {
		t.Fatalf("appending to a finished stream: %v; want ErrStreamFinished", err)
	}
	if err := s.Finish(ctx, id); !errors.Is(err, uistream.ErrStreamFinished) {
		t.Fatalf("finishing twice: %v; want ErrStreamFinished", err)
	}
	// A reader that starts after the stream ended gets all of it.
	for _, off := range []int{0, 2, 5, 9} {
		got, err := readAll(ctx, s, id, off)
		if err != nil {
			t.Fatal(err)
		}
		if w := want(id, min(off, 5), 5); !slices.Equal(got, w) {
			t.Errorf("from %d: got %q, want %q", off, got, w)
		}
	}
	// An empty finished stream reads as empty, not as missing.
	empty := ID(t, "empty")
	if err := s.Create(ctx, empty); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(ctx, empty); err != nil {
		t.Fatal(err)
	}
	if got, err := readAll(ctx, s, empty, 0); err != nil || len(got) != 0 {
		t.Errorf("empty stream: %q, %v", got, err)
	}
}

// concurrent writes several streams at once while readers follow them:
// some start before the first chunk, some in the middle, some after the
// end, and every one gets the whole stream in order.
func concurrent(t *testing.T, s uistream.StreamStore) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const streams, chunks, readers = 4, 150, 3
	var wg sync.WaitGroup
	errs := make(chan error, streams*(readers+2))
	check := func(id string, got []string, err error) {
		if err != nil {
			errs <- fmt.Errorf("%s: %w", id, err)
		} else if w := want(id, 0, chunks); !slices.Equal(got, w) {
			errs <- fmt.Errorf("%s: got %d chunks, want %d in order", id, len(got), len(w))
		}
	}
	for n := range streams {
		id := ID(t, fmt.Sprint(n))
		if err := s.Create(ctx, id); err != nil {
			t.Fatal(err)
		}
		// Readers that start before anything is written.
		for range readers {
			wg.Go(func() {
				got, err := readAll(ctx, s, id, 0)
				check(id, got, err)
			})
		}
		half := make(chan struct{})
		wg.Go(func() {
			for i := range chunks {
				if err := s.Append(ctx, id, chunk(id, i)); err != nil {
					errs <- err
					close(half)
					return
				}
				if i == chunks/2 {
					close(half)
				}
			}
			if err := s.Finish(ctx, id); err != nil {
				errs <- err
			}
			// A reader that starts after the end.
			got, err := readAll(ctx, s, id, 0)
			check(id, got, err)
		})
		// A reader that starts in the middle, from the start.
		wg.Go(func() {
			<-half
			got, err := readAll(ctx, s, id, 0)
			check(id, got, err)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func cancelledReader(t *testing.T, s uistream.StreamStore) {
	id := ID(t, "c")
	if err := s.Create(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(context.Background(), id, chunk(id, 0)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var got []string
	go func() {
		var err error
		got, err = readAll(ctx, s, id, 0)
		done <- err
	}()
	// The reader has the first chunk and waits for more; cancel it.
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled reader ended with %v; want context.Canceled", err)
	}
	if len(got) > 1 {
		t.Errorf("got %q", got)
	}
}

func stop(t *testing.T, s uistream.StreamStore) {
	ctx := context.Background()
	id := ID(t, "s")
	if err := s.Stop(ctx, id); !errors.Is(err, uistream.ErrStreamNotFound) {
		t.Errorf("stopping an unknown stream: %v; want ErrStreamNotFound", err)
	}
	if err := s.Create(ctx, id); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopped, err := s.Stopped(wctx, id)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
		t.Fatal("stopped before any stop request")
	default:
	}
	if err := s.Stop(ctx, id); err != nil {
		t.Fatal(err)
	}
	<-stopped // closed by the request; a store that loses it hangs here until the test's deadline
	// A watch that starts after the request sees it at once.
	later, err := s.Stopped(wctx, id)
	if err != nil {
		t.Fatal(err)
	}
	<-later
}

func expiry(t *testing.T, s uistream.StreamStore, expire func(*testing.T, uistream.StreamStore, string)) {
	ctx := context.Background()
	id := ID(t, "e")
	if err := s.Create(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, id, chunk(id, 0)); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(ctx, id); err != nil {
		t.Fatal(err)
	}
	expire(t, s, id)
	if got, err := readAll(ctx, s, id, 0); !errors.Is(err, uistream.ErrStreamNotFound) {
		t.Fatalf("an expired stream reads %q, %v; want ErrStreamNotFound", got, err)
	}
	// Its id can be used again.
	if err := s.Create(ctx, id); err != nil {
		t.Fatalf("creating a stream under an expired id: %v", err)
	}
	// An active stream expires too when nothing is written to it.
	active := ID(t, "idle")
	if err := s.Create(ctx, active); err != nil {
		t.Fatal(err)
	}
	expire(t, s, active)
	if err := s.Append(ctx, active, chunk(active, 0)); !errors.Is(err, uistream.ErrStreamNotFound) {
		t.Fatalf("appending to an expired stream: %v; want ErrStreamNotFound", err)
	}
}
