package uistream

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"sync"
	"time"

	"github.com/aisdkgo/ai"
)

// Errors of a [StreamStore]. Stores wrap them with the stream's id; test
// with errors.Is.
var (
	// ErrStreamNotFound: no stream has that id (never created, or expired).
	ErrStreamNotFound = errors.New("uistream: no such stream")
	// ErrStreamExists: Create was called with the id of a stream the
	// store still holds.
	ErrStreamExists = errors.New("uistream: the stream exists already")
	// ErrStreamFinished: a chunk was appended to a finished stream.
	ErrStreamFinished = errors.New("uistream: the stream is finished")
	// ErrStoreFull: the store reached one of its bounds (streams, bytes,
	// chunks of one stream).
	ErrStoreFull = errors.New("uistream: the stream store is full")
	// ErrTooManyStreams: a [Resumer] already runs its maximum of
	// producers.
	ErrTooManyStreams = errors.New("uistream: too many active streams")
)

// A StreamStore keeps the chunks of the streams that are being produced,
// so that a client that lost its connection (a reloaded page) can read a
// stream again from the start and follow it live, and so that a stop
// request reaches the producer wherever it runs. [MemoryStore] keeps them
// in this process; the redisstore package keeps them in Redis, shared by
// several servers.
//
// A stream is created, takes chunks in order (each one the JSON of a
// [Chunk], as [Marshal] gives it), and is finished once. Its chunks stay
// readable until the store's time to live has passed since its last write.
// The methods are safe for concurrent use.
type StreamStore interface {
	// Create starts an empty stream. It fails with ErrStreamExists when
	// the store still holds a stream with that id.
	Create(ctx context.Context, streamID string) error
	// Append adds one chunk to an unfinished stream (ErrStreamFinished,
	// ErrStreamNotFound, ErrStoreFull otherwise).
	Append(ctx context.Context, streamID string, chunk []byte) error
	// Finish marks the end of a stream: readers get its remaining chunks
	// and stop. Finishing a finished stream fails with ErrStreamFinished.
	Finish(ctx context.Context, streamID string) error
	// Read yields the chunks of a stream from the offset-th (0 is the
	// first) and then each new one as it is appended, until the stream is
	// finished (the sequence ends) or ctx is done (it ends with ctx's
	// error). A stream the store does not hold yields ErrStreamNotFound;
	// one that expires while it is read yields it too, after the chunks
	// read so far.
	Read(ctx context.Context, streamID string, offset int) iter.Seq2[[]byte, error]
	// Stop asks the producer of a stream to stop. It is recorded even when
	// the producer has not started watching yet.
	Stop(ctx context.Context, streamID string) error
	// Stopped returns a channel that is closed when a stop of the stream
	// is requested (at once when it was requested already). Watching ends
	// with ctx.
	Stopped(ctx context.Context, streamID string) (<-chan struct{}, error)
}

// A Resumer runs generations whose UI message streams outlive the request
// that started them: the chunks go into a [StreamStore] and every client,
// the one that posted and any that comes back later, reads them from
// there. A reloaded page that uses useChat with `resume: true` asks for
// the active stream of its chat (GET {api}/{chatId}/stream) and gets it
// replayed from the start, then live ([Resumer.Serve]).
//
// The application records which stream is the active one of each chat
// (the stream id it passed to [Resumer.Start]). The generation keeps
// running when its client goes away; only [Resumer.Stop] (a stop button),
// an error or [Resumer.Shutdown] end it early. Without a Resumer, [Write]
// stops the generation when the client goes away, as before.
//
// Set the fields before the first call; the zero value is not usable
// (Store is required).
type Resumer struct {
	// Store keeps the streams.
	Store StreamStore
	// MaxActive bounds the generations that run at once in this process;
	// Start fails with ErrTooManyStreams beyond it. Zero means 64.
	MaxActive int
	// StoreTimeout bounds each write to the store. Zero means 30 seconds.
	StoreTimeout time.Duration
	// KeepAlive is passed to the [Writer] of [Resumer.Serve].
	KeepAlive time.Duration
	// OnFinish, when set, is called after a generation ended and its
	// stream was finished, with the first error of the generation's
	// stream or the store (nil when all went well).
	OnFinish func(streamID string, err error)

	mu      sync.Mutex
	running map[string]context.CancelFunc
	wg      sync.WaitGroup
}

const (
	defaultMaxActive    = 64
	defaultStoreTimeout = 30 * time.Second
)

// Start runs a generation into the store under streamID, which must be
// new (use [NewID]). start is called with a context that carries ctx's
// values but not its cancellation: the generation goes on when the
// request that started it ends. That context is cancelled by
// [Resumer.Stop] (from any server that shares the store) and by
// [Resumer.Shutdown], and it carries a [Writer] into the stream, so that
// tools can write data parts ([FromContext]). The parts become chunks as
// with [Writer.WriteParts] (opts as there, OnFinish included; KeepAlive
// is not used).
//
// Start returns once the stream exists in the store, or the error of
// start (nothing is streamed then; the stream is finished empty) or of
// the store. Then read the stream with [Resumer.Serve].
func (r *Resumer) Start(ctx context.Context, streamID string, start func(ctx context.Context) (iter.Seq2[ai.Part, error], error), opts *Options) error {
	return r.launch(ctx, streamID, start, func(sw *Writer, parts iter.Seq2[ai.Part, error]) error {
		return sw.WriteParts(parts, opts)
	})
}

// launch is [Resumer.Start] with the writing of the parts given: write
// runs in the generation's goroutine with a writer into the stream.
func (r *Resumer) launch(ctx context.Context, streamID string, start func(ctx context.Context) (iter.Seq2[ai.Part, error], error), write func(sw *Writer, parts iter.Seq2[ai.Part, error]) error) error {
	if streamID == "" {
		return errors.New("uistream: Start needs a stream id")
	}
	gctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.mu.Lock()
	max := r.MaxActive
	if max <= 0 {
		max = defaultMaxActive
	}
	if len(r.running) >= max {
		r.mu.Unlock()
		cancel()
		return ErrTooManyStreams
	}
	if _, dup := r.running[streamID]; dup {
		r.mu.Unlock()
		cancel()
		return fmt.Errorf("%w: %s", ErrStreamExists, streamID)
	}
	if r.running == nil {
		r.running = map[string]context.CancelFunc{}
	}
	r.running[streamID] = cancel
	r.wg.Add(1)
	r.mu.Unlock()
	release := func() {
		cancel()
		r.mu.Lock()
		delete(r.running, streamID)
		r.mu.Unlock()
		r.wg.Done()
	}

	sctx, scancel := r.storeContext(ctx)
	err := r.Store.Create(sctx, streamID)
	scancel()
	if err != nil {
		release()
		return err
	}
	sw := newSinkWriter(func(b []byte) error {
		sctx, cancel := r.storeContext(gctx)
		defer cancel()
		if err := r.Store.Append(sctx, streamID, b); err != nil {
			return fmt.Errorf("uistream: storing stream %s: %w", streamID, err)
		}
		return nil
	})
	stopped, err := r.Store.Stopped(gctx, streamID)
	if err == nil {
		var parts iter.Seq2[ai.Part, error]
		parts, err = start(NewContext(gctx, sw))
		if err == nil {
			go func() {
				defer release()
				go func() {
					select {
					case <-stopped:
						cancel()
					case <-gctx.Done():
					}
				}()
				err := write(sw, parts)
				sw.Close()
				if ferr := r.finish(gctx, streamID); err == nil {
					err = ferr
				}
				if r.OnFinish != nil {
					r.OnFinish(streamID, err)
				}
			}()
			return nil
		}
	}
	sw.Close()
	r.finish(gctx, streamID)
	release()
	return err
}

// storeContext is the context of one store operation: not cancelled with
// the generation (the chunks that report a stop must still be stored),
// but bounded in time.
func (r *Resumer) storeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d := r.StoreTimeout
	if d <= 0 {
		d = defaultStoreTimeout
	}
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

func (r *Resumer) finish(ctx context.Context, streamID string) error {
	sctx, cancel := r.storeContext(ctx)
	defer cancel()
	return r.Store.Finish(sctx, streamID)
}

// Stop asks the generation of a stream to stop, wherever it runs (the
// request goes through the store). The stream then ends with an abort
// chunk, as a stopped generation does.
func (r *Resumer) Stop(ctx context.Context, streamID string) error {
	r.mu.Lock()
	cancel := r.running[streamID]
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return r.Store.Stop(ctx, streamID)
}

// Shutdown stops the generations of this process and waits until their
// streams are finished, or until ctx is done.
func (r *Resumer) Shutdown(ctx context.Context) error {
	r.mu.Lock()
	for _, cancel := range r.running {
		cancel()
	}
	r.mu.Unlock()
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Serve answers a client with the stream streamID: its chunks from the
// first, then the new ones as they come, until the stream is finished or
// the client goes away. It answers 204 No Content when streamID is empty
// or the store does not hold the stream, which is what useChat expects
// when there is nothing to resume. A store error before the first chunk
// is a 500; one after it ends the stream with an [Error] chunk (the
// generic text; the error is returned).
//
// Mount it for the resume request of useChat:
//
//	mux.HandleFunc("GET /api/chat/{id}/stream", func(w http.ResponseWriter, r *http.Request) {
//		resumer.Serve(w, r, activeStream(r.PathValue("id")))
//	})
func (r *Resumer) Serve(w http.ResponseWriter, req *http.Request, streamID string) error {
	if streamID == "" {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	next, stop := iter.Pull2(r.Store.Read(req.Context(), streamID, 0))
	defer stop()
	chunk, err, ok := next()
	if errors.Is(err, ErrStreamNotFound) {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if err != nil {
		WriteError(w, &RequestError{Status: http.StatusInternalServerError, Message: "the stream cannot be read"})
		return err
	}
	sw := NewWriter(w, r.KeepAlive)
	for ok {
		if err != nil {
			if req.Context().Err() == nil {
				sw.Write(Error{ErrorText: DefaultErrorText})
			}
			sw.Close()
			return err
		}
		if werr := sw.writeData(chunk); werr != nil {
			sw.Close()
			return werr
		}
		chunk, err, ok = next()
	}
	return sw.Close()
}
