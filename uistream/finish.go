package uistream

import (
	"errors"
	"iter"
	"slices"
	"sync"

	"github.com/aisdkgo/ai"
)

// ErrStopped is the [FinishEvent.Err] of a stream whose reader stopped
// before the end: the range loop over [Chunks] was left early.
var ErrStopped = errors.New("uistream: the stream was not read to its end")

// FinishEvent is what [Options.OnFinish] receives when a stream ends: the
// conversation as the client will hold it, ready to be stored.
type FinishEvent struct {
	// Messages are the original messages with the response message last:
	// in place of the last original message when the response continued
	// it (a resumed approval), after them otherwise.
	Messages []Message
	// ResponseMessage is the assistant message the stream built, as
	// [ReadMessage] builds it: for a continuation, the continued message
	// with what this stream added.
	ResponseMessage Message
	// IsContinuation is set when the response continued the last original
	// message.
	IsContinuation bool
	// IsAborted is set when the generation was cancelled (an abort
	// chunk): the response message then holds what was streamed until
	// then, open text included.
	IsAborted bool
	// FinishReason is the finish chunk's reason; empty when the stream had
	// no finish chunk (an abort, a client that went away).
	FinishReason ai.FinishReason
	// Err is why the stream did not end normally, or nil: a [*StreamError]
	// for the first error chunk (its text as the client saw it; the
	// generation's own error is what its Wait returns), the write error of
	// a client that went away, [ErrStopped] for a reader of [Chunks] that
	// stopped early, or a [*ChunkError] for a chunk that did not fit the
	// message. The response message holds what was streamed until then.
	Err error
}

// finisher builds the response message of one stream and reports it once.
type finisher struct {
	mu       sync.Mutex
	b        *builder
	orig     []Message
	last     *Message
	onFinish func(FinishEvent)
	err      error
	done     bool
}

func newFinisher(opts *Options) *finisher {
	f := &finisher{orig: opts.OriginalMessages, onFinish: opts.OnFinish}
	if n := len(f.orig); n > 0 && f.orig[n-1].Role == RoleAssistant {
		f.last = &f.orig[n-1]
	}
	f.b = newBuilder(f.last, ResponseMessageID(f.orig, opts.MessageID))
	f.b.lazy = true
	return f
}

// add folds a chunk that is being sent.
func (f *finisher) add(c Chunk) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return
	}
	if _, err := f.b.add(c); err != nil && f.err == nil {
		f.err = err
	}
}

// finish calls OnFinish, once; err is why the stream ended early, if it
// did.
func (f *finisher) finish(err error) {
	f.mu.Lock()
	if f.done {
		f.mu.Unlock()
		return
	}
	f.done = true
	ev := FinishEvent{ResponseMessage: f.b.snapshot(), IsAborted: f.b.aborted, FinishReason: f.b.finishReason}
	switch {
	case f.b.errText != nil:
		ev.Err = &StreamError{ErrorText: *f.b.errText}
	case err != nil:
		ev.Err = err
	default:
		ev.Err = f.err
	}
	f.mu.Unlock()

	ev.IsContinuation = f.last != nil && ev.ResponseMessage.ID == f.last.ID
	orig := f.orig
	if ev.IsContinuation {
		orig = orig[:len(orig)-1]
	}
	ev.Messages = append(slices.Clone(orig), ev.ResponseMessage)
	f.onFinish(ev)
}

// finishing folds the chunks of seq as they are read and calls OnFinish
// when the reading ends.
func finishing(seq iter.Seq[Chunk], opts *Options) iter.Seq[Chunk] {
	return func(yield func(Chunk) bool) {
		f := newFinisher(opts)
		stopped := false
		for c := range seq {
			f.add(c)
			if !yield(c) {
				stopped = true
				break
			}
		}
		if stopped {
			f.finish(ErrStopped)
			return
		}
		f.finish(nil)
	}
}
