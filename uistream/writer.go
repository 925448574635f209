package uistream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"sync"
	"time"

	"github.com/aisdkgo/ai"
)

// streamHeaders are the response headers of a UI message stream.
var streamHeaders = map[string]string{
	"Content-Type":                  "text/event-stream",
	"Cache-Control":                 "no-cache",
	"Connection":                    "keep-alive",
	"X-Vercel-Ai-Ui-Message-Stream": "v1",
	"X-Accel-Buffering":             "no",
}

// ErrClosed is returned by a write to a closed [Writer].
var ErrClosed = errors.New("uistream: write to a closed stream")

// Write streams the parts of a [ai.StreamText] generation to w as a UI
// message stream, then ends it, and returns the first write error (a
// client that went away) or nil. opts may be nil.
//
// Pass the request's context to StreamText: when the client goes away the
// context is cancelled, which stops the model call and the tools. Write
// also stops reading the parts at the first failed write, which cancels
// the generation as well. The outcome of the generation itself (errors
// included, which the client sees masked) is what the result's Wait
// returns.
func Write(w http.ResponseWriter, parts iter.Seq2[ai.Part, error], opts *Options) (err error) {
	var keepAlive time.Duration
	if opts != nil {
		keepAlive = opts.KeepAlive
	}
	sw := NewWriter(w, keepAlive)
	defer func() {
		if cerr := sw.Close(); err == nil {
			err = cerr
		}
	}()
	return sw.WriteParts(parts, opts)
}

// Writer writes a UI message stream to an HTTP response: each chunk as a
// server-sent event, flushed at once, and "[DONE]" at the end. Its methods
// are safe for concurrent use, so tools can write data parts while the
// generation streams (see [NewContext]). A failed write (the client went
// away) makes every later write fail with the same error.
type Writer struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	rc     *http.ResponseController
	buf    bytes.Buffer
	err    error
	closed bool
	fold   *finisher // the end hook of the running WriteParts, if any
	// sink, when set, takes each chunk's JSON in place of the response
	// (a stream written into a [StreamStore]); there is no "[DONE]".
	sink    func(data []byte) error
	written chan struct{} // signals a write to the keep-alive loop
	stop    chan struct{}
	done    chan struct{}
}

// NewWriter starts a UI message stream on w: it sets the stream's
// headers (Content-Type: text/event-stream, Cache-Control: no-cache,
// Connection: keep-alive, X-Vercel-AI-UI-Message-Stream: v1 and
// X-Accel-Buffering: no, each unless the handler has set it already), sends
// the status 200 and flushes. With a positive keepAlive the stream opens with the comment
// ": stream-open" and a ": keep-alive" comment is sent whenever no chunk
// was written for that long. Close the writer to end the stream.
func NewWriter(w http.ResponseWriter, keepAlive time.Duration) *Writer {
	h := w.Header()
	for k, v := range streamHeaders {
		if h.Get(k) == "" {
			h.Set(k, v)
		}
	}
	sw := &Writer{w: w, rc: http.NewResponseController(w)}
	w.WriteHeader(http.StatusOK)
	sw.mu.Lock()
	if keepAlive > 0 {
		sw.buf.WriteString(": stream-open\n\n")
		sw.written = make(chan struct{}, 1)
		sw.stop = make(chan struct{})
		sw.done = make(chan struct{})
		go sw.keepAlive(keepAlive)
	}
	sw.flushLocked()
	sw.mu.Unlock()
	return sw
}

// newSinkWriter returns a writer that hands each chunk's JSON to sink; a
// failed sink makes every later write fail with its error.
func newSinkWriter(sink func(data []byte) error) *Writer {
	return &Writer{sink: sink}
}

// keepAlive writes a comment after every quiet interval.
func (sw *Writer) keepAlive(interval time.Duration) {
	defer close(sw.done)
	t := time.NewTimer(interval)
	defer t.Stop()
	for {
		select {
		case <-sw.stop:
			return
		case <-sw.written:
			t.Reset(interval)
		case <-t.C:
			sw.mu.Lock()
			if sw.err == nil && !sw.closed {
				sw.buf.WriteString(": keep-alive\n\n")
				sw.flushLocked()
			}
			sw.mu.Unlock()
			t.Reset(interval)
		}
	}
}

// Write sends one chunk.
func (sw *Writer) Write(c Chunk) error {
	b, err := Marshal(c)
	if err != nil {
		return &encodingError{chunk: c.ChunkType(), err: err}
	}
	return sw.writeChunk(c, b)
}

// writeData sends one chunk given as its JSON.
func (sw *Writer) writeData(data []byte) error { return sw.writeChunk(nil, data) }

// writeChunk sends one chunk given as its JSON; c, when not nil, is the
// chunk itself, folded into the response message for OnFinish.
func (sw *Writer) writeChunk(c Chunk, data []byte) error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.err != nil {
		return sw.err
	}
	if sw.closed {
		return ErrClosed
	}
	if sw.sink != nil {
		if err := sw.sink(data); err != nil {
			sw.err = err
			return err
		}
		if sw.fold != nil && c != nil {
			sw.fold.add(c)
		}
		return nil
	}
	sw.buf.WriteString("data: ")
	sw.buf.Write(data)
	sw.buf.WriteString("\n\n")
	if sw.fold != nil && c != nil {
		sw.fold.add(c)
	}
	sw.flushLocked()
	if sw.written != nil {
		select {
		case sw.written <- struct{}{}:
		default:
		}
	}
	return sw.err
}

// WriteParts sends the chunks of a [ai.StreamText] generation (see
// [Chunks]) and returns the first write error. It stops reading the parts
// at a failed write, which cancels the generation. A chunk that cannot be
// encoded (a tool output that is not JSON-encodable) ends the stream with
// an [Error] chunk, formatted by opts.OnError. With opts.OnFinish set, the
// chunks written meanwhile are folded into the response message, which
// OnFinish receives before WriteParts returns.
func (sw *Writer) WriteParts(parts iter.Seq2[ai.Part, error], opts *Options) (err error) {
	if opts != nil && opts.OnFinish != nil {
		f := newFinisher(opts)
		sw.mu.Lock()
		sw.fold = f
		sw.mu.Unlock()
		defer func() {
			sw.mu.Lock()
			sw.fold = nil
			sw.mu.Unlock()
			f.finish(err)
		}()
	}
	for c := range chunks(parts, opts) {
		if err := sw.Write(c); err != nil {
			var ee *encodingError
			if errors.As(err, &ee) {
				text := DefaultErrorText
				if opts != nil && opts.OnError != nil {
					text = opts.OnError(err)
				}
				if werr := sw.Write(Error{ErrorText: text}); werr != nil {
					return werr
				}
			}
			return err
		}
	}
	return nil
}

// encodingError is a chunk that cannot be encoded as JSON.
type encodingError struct {
	chunk string
	err   error
}

func (e *encodingError) Error() string {
	return fmt.Sprintf("uistream: encoding a %s chunk: %v", e.chunk, e.err)
}

func (e *encodingError) Unwrap() error { return e.err }

// Close ends the stream with "[DONE]" and stops the keep-alive comments.
// It returns the first write error, if any. Closing twice is harmless.
func (sw *Writer) Close() error {
	sw.mu.Lock()
	if sw.closed {
		err := sw.err
		sw.mu.Unlock()
		return err
	}
	sw.closed = true
	if sw.err == nil && sw.sink == nil {
		sw.buf.WriteString("data: [DONE]\n\n")
		sw.flushLocked()
	}
	err := sw.err
	sw.mu.Unlock()
	if sw.stop != nil {
		close(sw.stop)
		<-sw.done
	}
	return err
}

// flushLocked writes the buffer and flushes the response.
func (sw *Writer) flushLocked() {
	if sw.err != nil {
		sw.buf.Reset()
		return
	}
	if sw.buf.Len() > 0 {
		_, err := sw.w.Write(sw.buf.Bytes())
		sw.buf.Reset()
		if err != nil {
			sw.err = fmt.Errorf("uistream: writing the stream: %w", err)
			return
		}
	}
	if err := sw.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		sw.err = fmt.Errorf("uistream: flushing the stream: %w", err)
	}
}

type writerKey struct{}

// NewContext returns a copy of ctx carrying w, so that code running inside
// the generation (a tool's Execute gets a context derived from the one
// given to StreamText) can write its own chunks, such as data parts that
// show progress, with [FromContext].
func NewContext(ctx context.Context, w *Writer) context.Context {
	return context.WithValue(ctx, writerKey{}, w)
}

// FromContext returns the writer stored in ctx by [NewContext].
func FromContext(ctx context.Context) (*Writer, bool) {
	w, ok := ctx.Value(writerKey{}).(*Writer)
	return w, ok
}
