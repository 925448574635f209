package redisstore_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/redistest"
	"github.com/aisdkgo/ai/uistream"
	"github.com/aisdkgo/ai/uistream/redisstore"
	"github.com/aisdkgo/ai/uistream/storetest"
)

// TestRedisStreamStore runs the store checks against a real Redis server:
// concurrent writers and readers, readers that start after the end,
// stop requests through the server, and expiry.
func TestRedisStreamStore(t *testing.T) {
	client := redistest.Client(t)
	opts := &redisstore.Options{Prefix: "test-" + uistream.NewID(), Block: 50 * time.Millisecond}
	storetest.Run(t,
		func(*testing.T) uistream.StreamStore { return redisstore.New(client, opts) },
		func(t *testing.T, s uistream.StreamStore, id string) { expire(t, client, s.(*redisstore.Store), id) })

	t.Run("TTL", func(t *testing.T) {
		ctx := context.Background()
		s := redisstore.New(client, &redisstore.Options{Prefix: opts.Prefix, TTL: time.Hour})
		id := storetest.ID(t, "ttl")
		if err := s.Create(ctx, id); err != nil {
			t.Fatal(err)
		}
		key, stop := s.Keys(id)
		if err := client.PExpire(ctx, key, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		// A write renews the time to live.
		if err := s.Append(ctx, id, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		if ttl := client.PTTL(ctx, key).Val(); ttl <= time.Minute || ttl > time.Hour {
			t.Errorf("after a write the stream lives %v more; want up to an hour", ttl)
		}
		if err := s.Stop(ctx, id); err != nil {
			t.Fatal(err)
		}
		if ttl := client.PTTL(ctx, stop).Val(); ttl <= 0 || ttl > time.Hour {
			t.Errorf("the stop request lives %v; want up to an hour", ttl)
		}
	})

	// A reader waiting for chunks of a stream that expires ends with
	// ErrStreamNotFound.
	t.Run("ExpiresWhileRead", func(t *testing.T) {
		ctx := context.Background()
		s := redisstore.New(client, opts)
		id := storetest.ID(t, "gone")
		if err := s.Create(ctx, id); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, id, []byte(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
		read := make(chan error, 1)
		got := make(chan []byte, 1)
		go func() {
			for c, err := range s.Read(ctx, id, 0) {
				if err != nil {
					read <- err
					return
				}
				got <- c
			}
			read <- nil
		}()
		<-got // the reader has the chunk and waits for more
		expire(t, client, s, id)
		if err := <-read; !errors.Is(err, uistream.ErrStreamNotFound) {
			t.Errorf("the reader ended with %v; want ErrStreamNotFound", err)
		}
	})

	t.Run("ChunkBound", func(t *testing.T) {
		ctx := context.Background()
		s := redisstore.New(client, &redisstore.Options{Prefix: opts.Prefix, MaxChunks: 2, MaxChunkBytes: 4})
		id := storetest.ID(t, "b")
		if err := s.Create(ctx, id); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, id, []byte("12345")); !errors.Is(err, uistream.ErrStoreFull) {
			t.Errorf("a chunk of 5 bytes with MaxChunkBytes 4: %v", err)
		}
		for range 2 {
			if err := s.Append(ctx, id, []byte("1")); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Append(ctx, id, []byte("1")); !errors.Is(err, uistream.ErrStoreFull) {
			t.Errorf("a third chunk with MaxChunks 2: %v", err)
		}
		if err := s.Finish(ctx, id); err != nil {
			t.Errorf("finishing a full stream: %v", err)
		}
	})
}

// expire makes the stream's keys expire now and waits until Redis says
// they are gone.
func expire(t *testing.T, client *redis.Client, s *redisstore.Store, id string) {
	t.Helper()
	ctx := context.Background()
	key, stop := s.Keys(id)
	for _, k := range []string{key, stop} {
		if err := client.PExpire(ctx, k, time.Millisecond).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for client.Exists(ctx, key, stop).Val() != 0 {
		time.Sleep(time.Millisecond)
	}
}

// A stop request made on one server reaches the generation that another
// server runs, through Redis; the stream ends with an abort chunk.
func TestRedisStopAcrossServers(t *testing.T) {
	client := redistest.Client(t)
	opts := &redisstore.Options{Prefix: "test-" + uistream.NewID(), Block: 50 * time.Millisecond}
	finished := make(chan error, 1)
	running := make(chan struct{})
	a := &uistream.Resumer{Store: redisstore.New(client, opts), OnFinish: func(_ string, err error) { finished <- err }}
	b := &uistream.Resumer{Store: redisstore.New(client, opts)}
	err := a.Start(context.Background(), "s1", func(ctx context.Context) (iter.Seq2[ai.Part, error], error) {
		return func(yield func(ai.Part, error) bool) {
			if !yield(ai.Start{}, nil) {
				return
			}
			close(running)
			<-ctx.Done() // runs until stopped
			yield(ai.Abort{Reason: ctx.Err().Error()}, nil)
		}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-running
	if err := b.Stop(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	if err := <-finished; err != nil {
		t.Fatal(err)
	}
	var chunks []string
	for c, err := range b.Store.Read(context.Background(), "s1", 0) {
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, string(c))
	}
	if len(chunks) != 2 || !strings.Contains(chunks[0], `"start"`) || chunks[1] != `{"type":"abort","reason":"context canceled"}` {
		t.Errorf("the stream is %q; want start and abort", chunks)
	}
}
