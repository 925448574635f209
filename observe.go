package ai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/aisdkgo/ai/internal/effect"
	"github.com/aisdkgo/ai/internal/seq"
	"github.com/aisdkgo/ai/internal/streamfold"
	"github.com/aisdkgo/ai/provider"
)

// Observer watches generations as they run: the generation, each step, each
// model call (retries included) and each tool call, code mode's nested calls
// and [RunCodeMode] included. Set it on [GenerateTextOptions.Observer] or
// [RunCodeModeOptions.Observer]; package github.com/aisdkgo/ai/aiotel
// implements it with OpenTelemetry traces and package
// github.com/aisdkgo/ai/aislog with log/slog.
//
// Each Start method is called when the operation begins, with the context it
// runs in, and returns the context the operation runs in from then on and a
// function that is called exactly once when it ends. Returning a derived
// context (a span in it, for example) makes it the parent of everything
// inside: a step's model call and tool calls, a tool's own work (the context
// a tool's Execute receives descends from the one StartToolCall returned),
// a code mode program's nested calls. An operation ended by cancellation
// ends with an error that wraps the context's cause; every started
// operation ends, whatever happens. A generation's step and model call end
// before it does; a tool call ends before its step.
//
// Steps and model calls of one generation are observed one at a time; tool
// calls of a step may be observed concurrently, so an Observer must be safe
// for concurrent use. Observers must not modify what they are handed. A
// panicking Observer does not break the generation: the panic is swallowed
// (like a panicking callback's) and the operation goes on unobserved.
//
// The zero cost of an unused Observer is part of the contract: with a nil
// Observer the engine does no work for observation.
type Observer interface {
	// StartGeneration is called when a GenerateText or StreamText call (an
	// Agent's included) starts running: for StreamText when its stream is
	// first read.
	StartGeneration(ctx context.Context, g GenerationInfo) (context.Context, func(GenerationOutcome))
	// StartStep is called when a step is set up, right before its model
	// call.
	StartStep(ctx context.Context, s StepInfo) (context.Context, func(StepOutcome))
	// StartModelCall is called before a model call; for a stream it ends
	// when the model's stream ends.
	StartModelCall(ctx context.Context, m ModelCallInfo) (context.Context, func(ModelCallOutcome))
	// StartToolCall is called before a tool call executes: a call of the
	// model, an approved call of a resumed conversation, a code mode
	// program's call, or a [RunCodeMode] program itself.
	StartToolCall(ctx context.Context, t ToolCallInfo) (context.Context, func(ToolCallOutcome))
	// Retry is called when a model call failed with a retryable error and
	// is about to be retried, with the model call's context.
	Retry(ctx context.Context, r RetryInfo)
}

// GenerationInfo describes a generation that starts.
type GenerationInfo struct {
	// Stream is true for StreamText.
	Stream bool
	// Options are the generation's options (read only).
	Options *GenerateTextOptions
}

// TelemetrySettings identify a generation in what its [Observer] records
// (the reference's functionId and metadata telemetry settings). An
// observer reads them from [GenerationInfo.Options] when the generation
// starts; to attach them to the generation's steps, model calls and tool
// calls it keeps them in the context its StartGeneration returns, which
// all of them descend from.
type TelemetrySettings struct {
	// FunctionID names what the generation does for the application (an
	// endpoint, a use case), to group its telemetry: for example
	// "summarize-ticket". Observers may use it as a metric attribute, so
	// it should take few distinct values.
	FunctionID string
	// Metadata are key-value pairs to record with the generation, such as
	// a user or tenant id. Values should be strings, booleans, numbers or
	// slices of them; observers record other values as text (aiotel as
	// JSON). Observers that put them on metrics multiply the metric's
	// series by their distinct values.
	Metadata map[string]any
}

// GenerationOutcome is how a generation ended.
type GenerationOutcome struct {
	// Result holds the finished steps; it may be nil when Err is set.
	Result *GenerateTextResult
	// Err is the generation's error, as GenerateText or Wait return it.
	Err error
}

// StepInfo describes a step that starts.
type StepInfo struct {
	StepNumber int
	Model      provider.LanguageModel
	// Tools are the names of the tools the model sees in this step, in the
	// order they are sent.
	Tools []string
	// Discovered are the deferred tools found by tool search before this
	// step and available in it (to the model, or to a caller tool such as
	// code mode).
	Discovered []string
	ToolChoice ToolChoice
}

// StepOutcome is how a step ended.
type StepOutcome struct {
	// Step is the recorded step; nil when the step failed before it could
	// be recorded.
	Step *StepResult
	// Err is why the step failed: the model call's error (in a stream also
	// when it arrived as an [ErrorPart]), a fatal error, or the cause of a
	// cancellation.
	Err error
}

// ModelCallInfo describes a model call that starts.
type ModelCallInfo struct {
	StepNumber int
	Model      provider.LanguageModel
	Stream     bool
	// Options are what the model receives (read only).
	Options *provider.CallOptions
	// MaxRetries is how often a retryable failure is retried.
	MaxRetries int
}

// ModelCallOutcome is how a model call ended.
type ModelCallOutcome struct {
	// Result is the model's response; for a stream it is assembled from the
	// stream's parts (text and reasoning blocks joined, the finish part's
	// reason and usage). It holds what arrived even when Err is set.
	Result *provider.GenerateResult
	// TimeToFirstChunk is, for a stream, the time from the call's start
	// (retries included) to the first part of the stream.
	TimeToFirstChunk time.Duration
	// Err is the call's error after retries, an error part of the stream,
	// or the cause of a cancellation.
	Err error
}

// ToolCallInfo describes a tool call that starts executing.
type ToolCallInfo struct {
	// StepNumber is the number of the step the call belongs to.
	StepNumber int
	// ToolCall is the validated call. The id of a code mode program's call
	// is "<code tool call id>:tool-<n>"; a [RunCodeMode] program is
	// observed as a call of a tool named "code".
	ToolCall ToolCall
}

// ToolCallOutcome is how a tool call ended.
type ToolCallOutcome struct {
	// Output is the tool's output; nil when Err is set.
	Output any
	// Err is the tool's error, which the model sees as a tool error.
	Err error
}

// RetryInfo describes a failed model call attempt that is retried.
type RetryInfo struct {
	// Attempt is the number of the attempt that failed, from 1.
	Attempt int
	// Delay is how long the call waits before the next attempt.
	Delay time.Duration
	// Err is the attempt's error.
	Err error
}

// WaitObserver is an optional interface of an [Observer]: an Observer
// that implements it learns when a model call waited before it was sent,
// for example in a rate limiter's queue. Code that makes a call wait (a
// middleware) reports it with [ReportWait].
type WaitObserver interface {
	// ModelCallWait is called, with the model call's context, after the
	// call waited.
	ModelCallWait(ctx context.Context, w WaitInfo)
}

// WaitInfo describes a wait of a model call before it was sent.
type WaitInfo struct {
	// Reason names what the call waited for, for example "requests" or
	// "tokens" (a rate limit's budget), "retry-after" (a server's request
	// to wait) or "queue" (calls ahead of it).
	Reason string
	// Duration is how long the call waited.
	Duration time.Duration
	// Tokens is the call's estimated token cost, when known.
	Tokens int
}

type waitObserverKey struct{}

// ReportWait hands w to the [WaitObserver] of the model call that ctx
// belongs to (the context a model and its middleware receive), if the
// generation's Observer is one. It does nothing otherwise.
func ReportWait(ctx context.Context, w WaitInfo) {
	if o, ok := ctx.Value(waitObserverKey{}).(WaitObserver); ok {
		callback("Observer.ModelCallWait", func() { o.ModelCallWait(ctx, w) })
	}
}

// MultiObserver returns an Observer that hands every event to each of the
// observers, in order; each Start receives the context the previous one
// returned, and the end functions run in reverse order. Nil observers are
// skipped.
func MultiObserver(observers ...Observer) Observer {
	var m multiObserver
	for _, o := range observers {
		if o != nil {
			m = append(m, o)
		}
	}
	return m
}

type multiObserver []Observer

func multiStart[I, O any](ctx context.Context, m multiObserver, info I, start func(Observer, context.Context, I) (context.Context, func(O))) (context.Context, func(O)) {
	ends := make([]func(O), 0, len(m))
	for _, o := range m {
		var end func(O)
		ctx, end = guardStart(ctx, func(ctx context.Context) (context.Context, func(O)) { return start(o, ctx, info) })
		ends = append(ends, end)
	}
	return ctx, func(out O) {
		for i := len(ends) - 1; i >= 0; i-- {
			guardEnd(ends[i], out)
		}
	}
}

// StartGeneration implements [Observer].
func (m multiObserver) StartGeneration(ctx context.Context, g GenerationInfo) (context.Context, func(GenerationOutcome)) {
	return multiStart(ctx, m, g, Observer.StartGeneration)
}

// StartStep implements [Observer].
func (m multiObserver) StartStep(ctx context.Context, s StepInfo) (context.Context, func(StepOutcome)) {
	return multiStart(ctx, m, s, Observer.StartStep)
}

// StartModelCall implements [Observer].
func (m multiObserver) StartModelCall(ctx context.Context, c ModelCallInfo) (context.Context, func(ModelCallOutcome)) {
	return multiStart(ctx, m, c, Observer.StartModelCall)
}

// StartToolCall implements [Observer].
func (m multiObserver) StartToolCall(ctx context.Context, t ToolCallInfo) (context.Context, func(ToolCallOutcome)) {
	return multiStart(ctx, m, t, Observer.StartToolCall)
}

// Retry implements [Observer].
func (m multiObserver) Retry(ctx context.Context, r RetryInfo) {
	for _, o := range m {
		callback("Observer.Retry", func() { o.Retry(ctx, r) })
	}
}

// ModelCallWait implements [WaitObserver] for the observers that do.
func (m multiObserver) ModelCallWait(ctx context.Context, w WaitInfo) {
	for _, o := range m {
		if wo, ok := o.(WaitObserver); ok {
			callback("Observer.ModelCallWait", func() { wo.ModelCallWait(ctx, w) })
		}
	}
}

// ObserveSearch implements [SearchObserver]: it hands the search to each
// observer that implements it.
func (m multiObserver) ObserveSearch(ctx context.Context, rec SearchRecord) {
	for _, o := range m {
		if so, ok := o.(SearchObserver); ok {
			callback("Observer.ObserveSearch", func() { so.ObserveSearch(ctx, rec) })
		}
	}
}

// guardStart calls an observer's Start method; when it panics or returns no
// context, the operation goes on in ctx, unobserved.
func guardStart[O any](ctx context.Context, start func(context.Context) (context.Context, func(O))) (out context.Context, end func(O)) {
	defer func() {
		if recover() != nil || out == nil {
			out, end = ctx, nil
		}
	}()
	return start(ctx)
}

// guardEnd calls an end function, swallowing its panic.
func guardEnd[O any](end func(O), out O) {
	if end != nil {
		callback("Observer", func() { end(out) })
	}
}

// observation is a generation's open observed operations: steps and model
// calls run one at a time, so one of each is open at most. What is still
// open when the generation ends is ended with it.
type observation struct {
	step  func(StepOutcome)
	model func(ModelCallOutcome)
	// modelErr is the error of the step's model call, for the step.
	modelErr error
}

// observed runs a generation (f) under the observer.
func (r *run) observed(f func() (*GenerateTextResult, error)) (res *GenerateTextResult, err error) {
	o := r.opts.Observer
	if o == nil {
		return f()
	}
	r.obs = &observation{}
	ctx, end := guardStart(r.ctx, func(ctx context.Context) (context.Context, func(GenerationOutcome)) {
		return o.StartGeneration(ctx, GenerationInfo{Stream: r.stream, Options: r.opts})
	})
	r.ctx = ctx
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("ai: panic: %v", v)
			r.endOpen(err)
			guardEnd(end, GenerationOutcome{Err: err})
			panic(v)
		}
		r.endOpen(err)
		guardEnd(end, GenerationOutcome{Result: res, Err: err})
	}()
	return f()
}

// endOpen ends the model call and step still open when the generation
// ends.
func (r *run) endOpen(err error) {
	if err == nil {
		err = errors.New("ai: the generation ended first")
	}
	if end := r.obs.model; end != nil {
		r.obs.model = nil
		guardEnd(end, ModelCallOutcome{Err: err})
	}
	if end := r.obs.step; end != nil {
		r.obs.step = nil
		guardEnd(end, StepOutcome{Err: err})
	}
}

// startStep starts observing a prepared step; its context becomes the
// step's.
func (r *run) startStep(s *step) {
	o := r.opts.Observer
	if o == nil {
		return
	}
	info := StepInfo{StepNumber: s.number, Model: s.model, ToolChoice: s.tools.choice}
	for _, d := range s.tools.defs {
		info.Tools = append(info.Tools, toolDefName(d))
	}
	for _, e := range s.tools.entries {
		if e.tool.core().deferLoading && !s.tools.undeferred {
			info.Discovered = append(info.Discovered, e.name)
		}
	}
	s.ctx, r.obs.step = guardStart(s.ctx, func(ctx context.Context) (context.Context, func(StepOutcome)) {
		return o.StartStep(ctx, info)
	})
}

func toolDefName(d provider.Tool) string {
	switch d := d.(type) {
	case *provider.FunctionTool:
		return d.Name
	case *provider.ProviderTool:
		return d.Name
	}
	return ""
}

// endStep ends the observation of a step: err is why it failed, if it did.
func (r *run) endStep(s *step, err error) {
	if r.obs == nil || r.obs.step == nil {
		return
	}
	end := r.obs.step
	if m := r.obs.model; m != nil {
		r.obs.model = nil
		guardEnd(m, ModelCallOutcome{Err: cmpErr(err, errors.New("ai: the step ended first"))})
	}
	r.obs.step = nil
	out := StepOutcome{Err: err}
	if s.number < len(r.steps) && r.steps[s.number].StepNumber == s.number {
		out.Step = r.steps[s.number]
		if err == nil && out.Step.FinishReason == FinishError {
			out.Err = cmpErr(r.obs.modelErr, errors.New("ai: the model finished with an error"))
		}
	}
	r.obs.modelErr = nil
	guardEnd(end, out)
}

func cmpErr(err, fallback error) error {
	if err != nil {
		return err
	}
	return fallback
}

// stepErr returns why a streaming step failed, if it did; err is what the
// step returned.
func (st *streamer) stepErr(err error) error {
	switch {
	case err != nil:
		return err
	case st.aborted != nil:
		return st.aborted
	case st.stopped:
		return ErrStreamStopped
	}
	return st.noOutput
}

// modelGenerate makes a step's non-streaming model call.
func (r *run) modelGenerate(s *step) (*provider.GenerateResult, error) {
	o := r.opts.Observer
	if o == nil {
		return r.eff.Generate(s.ctx, s.model, &s.call, r.maxRetries())
	}
	ctx, rt := r.startModelCall(o, s, false)
	res, err := r.eff.Generate(ctx, s.model, &s.call, rt)
	if end := r.obs.model; end != nil {
		r.obs.model = nil
		guardEnd(end, ModelCallOutcome{Result: res, Err: err})
	}
	return res, err
}

// modelStream starts a step's streaming model call; the observation ends
// when its stream does.
func (r *run) modelStream(s *step) (*provider.StreamResult, error) {
	o := r.opts.Observer
	if o == nil {
		return r.eff.Stream(s.ctx, s.model, &s.call, r.maxRetries())
	}
	began := time.Now()
	ctx, rt := r.startModelCall(o, s, true)
	res, err := r.eff.Stream(ctx, s.model, &s.call, rt)
	if err != nil {
		if end := r.obs.model; end != nil {
			r.obs.model = nil
			guardEnd(end, ModelCallOutcome{Err: err})
		}
		return res, err
	}
	out := *res
	out.Stream = r.observeStream(s, res, began)
	return &out, nil
}

// startModelCall starts observing a model call.
func (r *run) startModelCall(o Observer, s *step, stream bool) (context.Context, effect.Retry) {
	rt := r.maxRetries()
	info := ModelCallInfo{StepNumber: s.number, Model: s.model, Stream: stream, Options: &s.call, MaxRetries: rt.Max}
	ctx, end := guardStart(s.ctx, func(ctx context.Context) (context.Context, func(ModelCallOutcome)) {
		return o.StartModelCall(ctx, info)
	})
	r.obs.model = end
	if wo, ok := o.(WaitObserver); ok {
		ctx = context.WithValue(ctx, waitObserverKey{}, wo)
	}
	rt.Notify = func(attempt int, delay time.Duration, err error) {
		callback("Observer.Retry", func() { o.Retry(ctx, RetryInfo{Attempt: attempt, Delay: delay, Err: err}) })
	}
	return ctx, rt
}

// observeStream wraps a model stream so that the model call's observation
// sees its first part and ends with it.
func (r *run) observeStream(s *step, res *provider.StreamResult, began time.Time) iter.Seq2[provider.StreamPart, error] {
	return func(yield func(provider.StreamPart, error) bool) {
		acc := streamfold.New(res.Request, res.Response)
		var first time.Duration
		var failure error
		finish := func() {
			end := r.obs.model
			if end == nil {
				return
			}
			r.obs.model = nil
			if failure == nil && s.ctx.Err() != nil {
				failure = context.Cause(s.ctx)
			}
			r.obs.modelErr = failure
			guardEnd(end, ModelCallOutcome{Result: acc.Result(), TimeToFirstChunk: first, Err: failure})
		}
		defer finish()
		seq.Each(res.Stream, func(p provider.StreamPart, err error) bool {
			if first == 0 {
				first = max(time.Since(began), 1)
			}
			if err != nil {
				failure = err
			} else if e, ok := p.(provider.ErrorPart); ok && failure == nil {
				failure = cmpErr(e.Err, errors.New("ai: the model stream reported an error"))
			} else {
				_ = acc.Add(p) // the step reports a part out of place
			}
			return yield(p, err)
		})
	}
}

// noEnd is the end function of an unobserved tool call.
var noEnd = func(any, error) {}

// startTool starts observing a tool call; ctx is the call's context. It
// returns the context the tool runs in and the function that ends the
// observation.
func (r *run) startTool(ctx context.Context, s *step, call *ToolCall) (context.Context, func(output any, err error)) {
	o := r.opts.Observer
	if o == nil {
		return ctx, noEnd
	}
	ctx, end := guardStart(ctx, func(ctx context.Context) (context.Context, func(ToolCallOutcome)) {
		return o.StartToolCall(ctx, ToolCallInfo{StepNumber: s.number, ToolCall: *call})
	})
	return ctx, func(output any, err error) { guardEnd(end, ToolCallOutcome{Output: output, Err: err}) }
}

// codeInputJSON is the input of a code tool call that runs js.
func codeInputJSON(js string) json.RawMessage {
	b, _ := json.Marshal(codeInput{JS: js})
	return b
}
