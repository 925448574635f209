package aitemporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/streamfold"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
)

// PublishActivity is the name of the activity that appends a run's
// finished steps to its UI message stream (see [Streaming]).
const PublishActivity = "aitemporal.Publish"

// MarkerName is the name of the transient data chunks ("data-aitemporal")
// that mark the groups of a published stream; see [Streaming].
const MarkerName = "aitemporal"

// Streaming publishes the runs that ask for it ([Input.Stream]) as UI
// message streams, the protocol of the AI SDK's useChat, into a
// [uistream.StreamStore] that every worker and the web servers share (for
// example the redisstore package's).
//
// # What is published
//
// A run publishes one stream per stretch: the stretch up to its first
// approval pause, then one per answered pause. While a model call runs,
// its activity appends the model's text, reasoning and tool input deltas
// as they arrive, heartbeating as usual. Once a step is over (its tools
// ran, or its approvals are requested), the workflow appends the step as
// the history records it: its text, tool calls, tool outputs and errors,
// and the approval requests with their signatures. A stretch ends with a
// finish chunk, and the stream is finished.
//
// Each of these groups of chunks starts with a transient data chunk named
// [MarkerName] that says which step it belongs to and, for a model call,
// which attempt. Writers are at least once (a worker may die after it
// appended and before the server heard of it; a retried model call
// streams its answer again), so the stored stream may hold a group twice
// or a model call's partial answer followed by its retry. [Marker] and
// [NormalizeStream] turn the stored chunks into the stream a client
// should see; the durablechat package serves it.
//
// # What a client sees when a model call is retried
//
// A model call cut off by a crash is retried on another worker, which
// streams the answer from the start. The client then receives a
// reset-step chunk, which the AI SDK's useChat (version 7) understands:
// it drops the parts the current step received so far, and the retry's
// chunks rebuild the step. When a step is over, its recorded content is
// sent once more after a reset-step, so the message the client ends with
// is the one the history records, whatever the attempts streamed. The
// text and reasoning parts a model call streams have ids that name the step
// and the attempt ("s2.1-..."), so that chunks a superseded attempt still
// writes (a worker cut off from the server but not from the store) are
// left out; tool input streams only inside the current attempt's group,
// and the recorded step replaces whatever it showed.
type Streaming struct {
	// Store keeps the streams. It is required.
	Store uistream.StreamStore
	// StreamID names the stream of a stretch of a run. Nil means
	// [DefaultStreamID]. The web servers must derive the ids the same way.
	StreamID func(StreamKey) string
	// StoreTimeout bounds each write to the store. Zero means 10 seconds.
	StoreTimeout time.Duration
}

// StreamKey identifies one stretch of a run: the run's first stretch has
// an empty After, the stretch that follows an approval pause has the id
// of the first approval request of that pause.
type StreamKey struct {
	WorkflowID string
	After      string
}

// DefaultStreamID is the workflow id, followed by "/" and After for the
// stretches after approval pauses. A workflow id should name one chat
// turn, not be reused for another one while the store keeps its streams.
func DefaultStreamID(k StreamKey) string {
	if k.After == "" {
		return k.WorkflowID
	}
	return k.WorkflowID + "/" + k.After
}

func (s *Streaming) streamID(k StreamKey) string {
	if s.StreamID != nil {
		return s.StreamID(k)
	}
	return DefaultStreamID(k)
}

// Marker is the data of a [MarkerName] chunk: what the group of chunks
// that follows it holds.
type Marker struct {
	// Kind is "model" (the deltas of one attempt of a model call), "step"
	// (a finished step as the history records it), "outputs" (the
	// outcomes of calls answered after an approval pause) or "finish" (the
	// end of the stretch).
	Kind string `json:"kind"`
	// Step is the number of the step, counted from 0 over the whole run.
	Step int `json:"step"`
	// Attempt is the attempt of the model call, from 1.
	Attempt int `json:"attempt,omitempty"`
}

// The kinds of [Marker].
const (
	MarkModel   = "model"
	MarkStep    = "step"
	MarkOutputs = "outputs"
	MarkFinish  = "finish"
)

func markerChunk(m Marker) json.RawMessage {
	b, err := uistream.Marshal(uistream.Data{Name: MarkerName, Data: m, Transient: true})
	if err != nil {
		panic(err) // a Marker always encodes
	}
	return b
}

// streamTarget tells the model activity where to publish.
type streamTarget struct {
	ID   string `json:"id"`
	Step int    `json:"step"`
}

// publishInput is the input of the publish activity.
type publishInput struct {
	StreamID string            `json:"streamId"`
	Chunks   []json.RawMessage `json:"chunks"`
	// Finish finishes the stream after the chunks.
	Finish bool `json:"finish,omitempty"`
}

// publisher appends chunks to one stream for one activity attempt. After a
// failed write it stops publishing: the stream then lacks the rest of the
// attempt's deltas, which the recorded step replaces anyway.
type publisher struct {
	s      *Streaming
	id     string
	failed error
}

func (p *publisher) write(ctx context.Context, chunk []byte) error {
	if p.failed != nil {
		return p.failed
	}
	ctx, cancel := context.WithTimeout(ctx, cmpDuration(p.s.StoreTimeout, 10*time.Second))
	defer cancel()
	err := p.s.Store.Append(ctx, p.id, chunk)
	if errors.Is(err, uistream.ErrStreamNotFound) {
		// The web server creates the stream before it starts or
		// continues the run; a run started otherwise creates it here.
		if cerr := p.s.Store.Create(ctx, p.id); cerr != nil && !errors.Is(cerr, uistream.ErrStreamExists) {
			err = cerr
		} else {
			err = p.s.Store.Append(ctx, p.id, chunk)
		}
	}
	if err != nil {
		p.failed = fmt.Errorf("aitemporal: publishing to stream %s: %w", p.id, err)
	}
	return p.failed
}

func cmpDuration(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// publish is the publish activity.
func (rt *runtime) publish(ctx context.Context, in publishInput) error {
	s := rt.cfg.Stream
	if s == nil || s.Store == nil {
		return errors.New("aitemporal: this worker has no Config.Stream")
	}
	p := &publisher{s: s, id: in.StreamID}
	for _, c := range in.Chunks {
		if err := p.write(ctx, c); err != nil {
			if errors.Is(err, uistream.ErrStreamFinished) {
				return nil // an earlier attempt got through
			}
			return err
		}
	}
	if in.Finish {
		fctx, cancel := context.WithTimeout(ctx, cmpDuration(s.StoreTimeout, 10*time.Second))
		defer cancel()
		if err := s.Store.Finish(fctx, in.StreamID); err != nil && !errors.Is(err, uistream.ErrStreamFinished) {
			return fmt.Errorf("aitemporal: finishing stream %s: %w", in.StreamID, err)
		}
	}
	return nil
}

// streamModel makes one model call as a stream, publishes its deltas and
// returns the result the call would have returned from Generate.
func (rt *runtime) streamModel(ctx context.Context, m provider.LanguageModel, opts *provider.CallOptions, target *streamTarget) (res *provider.GenerateResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, &ai.CallbackPanicError{Callback: "the model's Stream", Panic: v}
		}
	}()
	attempt := int(activity.GetInfo(ctx).Attempt)
	pub := &publisher{s: rt.cfg.Stream, id: target.ID}
	emit := func(c uistream.Chunk) {
		if pub.failed != nil {
			return
		}
		b, err := uistream.Marshal(c)
		if err == nil {
			err = pub.write(ctx, b)
		}
		if err != nil {
			pub.failed = err
			activity.GetLogger(ctx).Warn("aitemporal: the model call's deltas are not published", "error", err)
		}
	}
	emit(uistream.Data{Name: MarkerName, Data: Marker{Kind: MarkModel, Step: target.Step, Attempt: attempt}, Transient: true})
	prefix := fmt.Sprintf("s%d.%d-", target.Step, attempt)

	sr, err := m.Stream(ctx, opts)
	if err != nil {
		return nil, err
	}
	if sr == nil || sr.Stream == nil {
		return nil, &provider.InvalidResponseDataError{Message: "the model returned no stream"}
	}
	fold := streamfold.New(sr.Request, sr.Response)
	for part, err := range sr.Stream {
		if err != nil {
			return nil, err
		}
		if p, ok := part.(provider.ErrorPart); ok {
			if p.Err == nil {
				return nil, errors.New("the model's stream reported an error")
			}
			return nil, p.Err
		}
		if err := fold.Add(part); err != nil {
			return nil, err
		}
		switch p := part.(type) {
		case provider.TextStart:
			emit(uistream.TextStart{ID: prefix + p.ID, ProviderMetadata: p.ProviderMetadata})
		case provider.TextDelta:
			if p.Delta != "" {
				emit(uistream.TextDelta{ID: prefix + p.ID, Delta: p.Delta, ProviderMetadata: p.ProviderMetadata})
			}
		case provider.TextEnd:
			emit(uistream.TextEnd{ID: prefix + p.ID, ProviderMetadata: p.ProviderMetadata})
		case provider.ReasoningStart:
			emit(uistream.ReasoningStart{ID: prefix + p.ID, ProviderMetadata: p.ProviderMetadata})
		case provider.ReasoningDelta:
			emit(uistream.ReasoningDelta{ID: prefix + p.ID, Delta: p.Delta, ProviderMetadata: p.ProviderMetadata})
		case provider.ReasoningEnd:
			emit(uistream.ReasoningEnd{ID: prefix + p.ID, ProviderMetadata: p.ProviderMetadata})
		case provider.ToolInputStart:
			var dyn *bool
			if p.Dynamic {
				dyn = new(true)
			}
			emit(uistream.ToolInputStart{ToolCallID: p.ID, ToolName: p.ToolName, InputEncoding: p.InputEncoding,
				ProviderExecuted: p.ProviderExecuted, ProviderMetadata: p.ProviderMetadata, Dynamic: dyn, Title: p.Title})
		case provider.ToolInputDelta:
			if p.Delta != "" {
				emit(uistream.ToolInputDelta{ToolCallID: p.ID, InputTextDelta: p.Delta})
			}
		}
	}
	if !fold.Finished() {
		return nil, &provider.InvalidResponseDataError{Message: "the model's stream ended without a finish part"}
	}
	// Blocks the model never ended keep the text they got.
	return fold.Result(), nil
}

// stepParts turns a finished step into the parts a stream of it would
// have had (without the step's start and finish), with text ids made from
// the step's number.
func stepParts(s *ai.StepResult) iter.Seq2[ai.Part, error] {
	return func(yield func(ai.Part, error) bool) {
		for i, c := range s.Content {
			id := fmt.Sprintf("s%d-%d", s.StepNumber, i)
			var parts []ai.Part
			switch c := c.(type) {
			case ai.Text:
				parts = []ai.Part{ai.TextStart{ID: id, ProviderMetadata: c.ProviderMetadata},
					ai.TextDelta{ID: id, Delta: c.Text}, ai.TextEnd{ID: id, Citations: c.Citations}}
			case ai.Reasoning:
				parts = []ai.Part{ai.ReasoningStart{ID: id, ProviderMetadata: c.ProviderMetadata},
					ai.ReasoningDelta{ID: id, Delta: c.Text}, ai.ReasoningEnd{ID: id}}
			case ai.Part:
				parts = []ai.Part{c}
			}
			for _, p := range parts {
				if !yield(p, nil) {
					return
				}
			}
		}
	}
}

// runPublisher collects, in workflow code, the chunks of the finished
// steps of a run that streams, and publishes them with the publish
// activity.
type runPublisher struct {
	s      *Streaming
	key    StreamKey
	id     string
	opts   uistream.Options
	outbox []json.RawMessage
	// outputsOpen is set while the outputs group of a stretch is open.
	outputsOpen bool
}

func newRunPublisher(s *Streaming, agent *Agent, key StreamKey) *runPublisher {
	p := &runPublisher{s: s, opts: uistream.Options{
		OmitStart: true, OmitFinish: true, SendSources: true,
		Tools: agent.Options.Tools, ResultSecrets: agent.Options.ToolApprovalSecrets,
	}}
	p.setKey(key)
	return p
}

func (p *runPublisher) setKey(k StreamKey) {
	p.key, p.id = k, p.s.streamID(k)
}

// add appends the chunks of parts to the outbox.
func (p *runPublisher) add(parts iter.Seq2[ai.Part, error]) {
	for c := range uistream.Chunks(parts, &p.opts) {
		switch c.(type) {
		case uistream.StartStep, uistream.FinishStep:
			continue
		}
		b, err := uistream.Marshal(c)
		if err != nil {
			// An output that does not encode: the client is told, as
			// a local stream tells it.
			b, _ = uistream.Marshal(uistream.Error{ErrorText: uistream.DefaultErrorText})
		}
		p.outbox = append(p.outbox, b)
	}
}

// stepEnded records a finished step (number n over the whole run).
func (p *runPublisher) stepEnded(s *ai.StepResult, n int) {
	p.outputsOpen = false
	p.outbox = append(p.outbox, markerChunk(Marker{Kind: MarkStep, Step: n}))
	p.add(stepParts(s))
	b, _ := uistream.Marshal(uistream.FinishStep{})
	p.outbox = append(p.outbox, b)
}

// output records the outcome of a call answered after a pause; steps is
// the number of steps so far.
func (p *runPublisher) output(part ai.Part, steps int) {
	if !p.outputsOpen {
		p.outbox = append(p.outbox, markerChunk(Marker{Kind: MarkOutputs, Step: steps}))
		p.outputsOpen = true
	}
	p.add(func(yield func(ai.Part, error) bool) { yield(part, nil) })
}

// finish records the end of the stretch.
func (p *runPublisher) finish(steps int, c uistream.Chunk) {
	p.outbox = append(p.outbox, markerChunk(Marker{Kind: MarkFinish, Step: steps}))
	if b, err := uistream.Marshal(c); err == nil {
		p.outbox = append(p.outbox, b)
	}
}

// flush publishes the outbox (and finishes the stream when finish is
// set). A failure to publish does not fail the run: its result is the
// history's, and the stream is a view of it.
func (p *runPublisher) flush(w workflow.Context, finish bool) {
	if len(p.outbox) == 0 && !finish {
		return
	}
	in := publishInput{StreamID: p.id, Chunks: p.outbox, Finish: finish}
	p.outbox = nil
	p.outputsOpen = false
	ao := workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2, MaximumAttempts: 5},
	}
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(w, ao), PublishActivity, in).Get(w, nil); err != nil {
		workflow.GetLogger(w).Warn("aitemporal: publishing to the run's stream failed", "stream", p.id, "error", err)
	}
}
