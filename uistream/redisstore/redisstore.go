// Package redisstore keeps resumable UI message streams in Redis: a
// [uistream.StreamStore] that several servers share, so that a client
// resumes a stream on any of them and a stop request reaches the server
// that runs the generation.
//
// Each stream is a Redis stream whose entries are its chunks in order,
// closed by an end entry; its key expires TTL after its last write. Readers
// follow it with XREAD; stop requests are a key (for a producer that starts
// watching late) and a message on a channel. The keys put the stream id in
// braces, so a cluster keeps them together.
//
//	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	resumer := &uistream.Resumer{Store: redisstore.New(client, nil)}
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/aisdkgo/ai/uistream"
)

// Options configure a [Store]. The zero value uses the defaults.
type Options struct {
	// Prefix starts every key. Empty means "uistream".
	Prefix string
	// TTL is how long a stream is kept after its last write. Zero means
	// uistream.DefaultStreamTTL.
	TTL time.Duration
	// MaxChunks bounds the chunks of one stream. Zero means
	// uistream.DefaultMaxStreamChunks.
	MaxChunks int
	// MaxChunkBytes bounds the size of one chunk. Zero means 16 MiB.
	MaxChunkBytes int
	// Block is how long one XREAD waits for new chunks before the reader
	// checks its context and whether the stream still exists. Zero means
	// one second.
	Block time.Duration
}

// Store is a [uistream.StreamStore] in Redis. Its methods are safe for
// concurrent use.
type Store struct {
	client redis.UniversalClient
	opts   Options
}

var _ uistream.StreamStore = (*Store)(nil)

// New returns a store that keeps its streams through client. opts may be
// nil.
func New(client redis.UniversalClient, opts *Options) *Store {
	s := &Store{client: client}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Prefix == "" {
		s.opts.Prefix = "uistream"
	}
	if s.opts.TTL <= 0 {
		s.opts.TTL = uistream.DefaultStreamTTL
	}
	if s.opts.MaxChunks <= 0 {
		s.opts.MaxChunks = uistream.DefaultMaxStreamChunks
	}
	if s.opts.MaxChunkBytes <= 0 {
		s.opts.MaxChunkBytes = 16 << 20
	}
	if s.opts.Block <= 0 {
		s.opts.Block = time.Second
	}
	return s
}

// Keys returns the Redis keys of a stream: its chunks, and its stop
// request (also the name of the channel stop requests are published on).
func (s *Store) Keys(streamID string) (chunks, stop string) {
	base := s.opts.Prefix + ":{" + streamID + "}:"
	return base + "chunks", base + "stop"
}

// The entries of a stream have the ids 0-1 (the start), 0-2 (the first
// chunk), and so on; their one field says what they are.
const (
	fieldStart = "s"
	fieldChunk = "d"
	fieldEnd   = "f"
)

// Errors the scripts reply with.
const (
	replyNotFound = "UISTREAM_NOTFOUND"
	replyExists   = "UISTREAM_EXISTS"
	replyFinished = "UISTREAM_FINISHED"
	replyFull     = "UISTREAM_FULL"
)

var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('UISTREAM_EXISTS') end
redis.call('XADD', KEYS[1], '0-1', 's', '')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 1
`)

// appendScript adds an entry after the last one, unless the stream is
// finished, and renews the time to live.
var appendScript = redis.NewScript(`
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last == 0 then return redis.error_reply('UISTREAM_NOTFOUND') end
if last[1][2][1] == 'f' then return redis.error_reply('UISTREAM_FINISHED') end
local seq = tonumber(string.match(last[1][1], '%-(%d+)$'))
if ARGV[1] == 'd' and seq - 1 >= tonumber(ARGV[4]) then return redis.error_reply('UISTREAM_FULL') end
redis.call('XADD', KEYS[1], '0-' .. (seq + 1), ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return seq + 1
`)

var stopScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('UISTREAM_NOTFOUND') end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
redis.call('PUBLISH', KEYS[2], '1')
return 1
`)

// scriptError turns a script's error reply into the store's errors.
func scriptError(err error, streamID string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, e := range []struct {
		reply string
		err   error
	}{
		{replyNotFound, uistream.ErrStreamNotFound},
		{replyExists, uistream.ErrStreamExists},
		{replyFinished, uistream.ErrStreamFinished},
		{replyFull, uistream.ErrStoreFull},
	} {
		if strings.Contains(msg, e.reply) {
			return fmt.Errorf("%w: %s", e.err, streamID)
		}
	}
	return fmt.Errorf("redisstore: stream %s: %w", streamID, err)
}

func (s *Store) ttlMillis() int64 { return s.opts.TTL.Milliseconds() }

// Create implements [uistream.StreamStore].
func (s *Store) Create(ctx context.Context, streamID string) error {
	chunks, stop := s.Keys(streamID)
	return scriptError(createScript.Run(ctx, s.client, []string{chunks, stop}, s.ttlMillis()).Err(), streamID)
}

func (s *Store) add(ctx context.Context, streamID, field string, data []byte) error {
	chunks, stop := s.Keys(streamID)
	err := appendScript.Run(ctx, s.client, []string{chunks, stop}, field, data, s.ttlMillis(), s.opts.MaxChunks).Err()
	return scriptError(err, streamID)
}

// Append implements [uistream.StreamStore].
func (s *Store) Append(ctx context.Context, streamID string, chunk []byte) error {
	if len(chunk) > s.opts.MaxChunkBytes {
		return fmt.Errorf("%w: a chunk of %d bytes for stream %s", uistream.ErrStoreFull, len(chunk), streamID)
	}
	return s.add(ctx, streamID, fieldChunk, chunk)
}

// Finish implements [uistream.StreamStore].
func (s *Store) Finish(ctx context.Context, streamID string) error {
	return s.add(ctx, streamID, fieldEnd, nil)
}

// entrySeq is the sequence number of an entry id "0-N".
func entrySeq(id string) int {
	_, n, _ := strings.Cut(id, "-")
	seq, _ := strconv.Atoi(n)
	return seq
}

// lastEntry returns the last entry of a stream; ok is false when the
// stream does not exist.
func (s *Store) lastEntry(ctx context.Context, key string) (msg redis.XMessage, ok bool, err error) {
	msgs, err := s.client.XRevRangeN(ctx, key, "+", "-", 1).Result()
	if err != nil || len(msgs) == 0 {
		return redis.XMessage{}, false, err
	}
	return msgs[0], true, nil
}

// Read implements [uistream.StreamStore].
func (s *Store) Read(ctx context.Context, streamID string, offset int) iter.Seq2[[]byte, error] {
	key, _ := s.Keys(streamID)
	return func(yield func([]byte, error) bool) {
		// after is the id of the last entry read: chunk i has the id 0-(i+2).
		after := fmt.Sprintf("0-%d", max(offset, 0)+1)
		// atEnd reports whether the stream ended before what was read,
		// or yields an error and reports true.
		atEnd := func() bool {
			last, ok, err := s.lastEntry(ctx, key)
			switch {
			case err != nil:
				yield(nil, s.readError(ctx, streamID, err))
				return true
			case !ok:
				yield(nil, fmt.Errorf("%w: %s", uistream.ErrStreamNotFound, streamID))
				return true
			}
			_, end := last.Values[fieldEnd]
			return end && entrySeq(last.ID) <= entrySeq(after)
		}
		if atEnd() {
			return
		}
		for {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			res, err := s.client.XRead(ctx, &redis.XReadArgs{
				Streams: []string{key, after}, Count: 512, Block: s.opts.Block,
			}).Result()
			if errors.Is(err, redis.Nil) {
				// Nothing new: the stream may have expired, or the reader
				// may have started past its end.
				if atEnd() {
					return
				}
				continue
			}
			if err != nil {
				yield(nil, s.readError(ctx, streamID, err))
				return
			}
			for _, st := range res {
				for _, m := range st.Messages {
					after = m.ID
					if _, end := m.Values[fieldEnd]; end {
						return
					}
					d, ok := m.Values[fieldChunk].(string)
					if !ok {
						continue // the start entry
					}
					if !yield([]byte(d), nil) {
						return
					}
				}
			}
		}
	}
}

func (s *Store) readError(ctx context.Context, streamID string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return fmt.Errorf("redisstore: reading stream %s: %w", streamID, err)
}

// Stop implements [uistream.StreamStore].
func (s *Store) Stop(ctx context.Context, streamID string) error {
	chunks, stop := s.Keys(streamID)
	return scriptError(stopScript.Run(ctx, s.client, []string{chunks, stop}, s.ttlMillis()).Err(), streamID)
}

// Stopped implements [uistream.StreamStore]. It holds a subscription
// until a stop request comes or ctx is done.
func (s *Store) Stopped(ctx context.Context, streamID string) (<-chan struct{}, error) {
	chunks, stop := s.Keys(streamID)
	ps := s.client.Subscribe(ctx, stop)
	if _, err := ps.Receive(ctx); err != nil {
		ps.Close()
		return nil, fmt.Errorf("redisstore: watching stream %s: %w", streamID, err)
	}
	// A request made before the subscription left its key.
	n, err := s.client.Exists(ctx, chunks, stop).Result()
	if err == nil && n == 0 {
		err = fmt.Errorf("%w: %s", uistream.ErrStreamNotFound, streamID)
	}
	if err != nil {
		ps.Close()
		return nil, err
	}
	stopped := make(chan struct{})
	if n == 2 {
		ps.Close()
		close(stopped)
		return stopped, nil
	}
	msgs := ps.Channel()
	go func() {
		defer ps.Close()
		select {
		case <-msgs:
			close(stopped)
		case <-ctx.Done():
		}
	}()
	return stopped, nil
}
