package ai

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync/atomic"
	"time"

	"github.com/aisdkgo/ai/provider"
)

// StreamTextResult is a generation in progress. Read it once, with
// [StreamTextResult.Parts] or [StreamTextResult.TextStream]; the accessors
// (Wait, Text, Steps...) block until the generation ends and also work when
// nobody reads the stream, which they then consume themselves.
//
// The generation runs while the stream is read: a slow reader slows the
// model stream and the tools down instead of making memory grow, and
// breaking out of the loop cancels the model call and the running tools.
type StreamTextResult struct {
	r       *run
	started atomic.Bool
	done    chan struct{}
	result  *GenerateTextResult
	err     error
	st      streamer
}

// StreamText starts a generation like [GenerateText] and returns its stream
// of parts. It returns an error only for invalid options; everything that
// goes wrong later (the prompt, the model, the tools) arrives in the stream
// as an [ErrorPart] or [Abort], or as the error of the iteration when a
// tool's input callback fails.
func StreamText(ctx context.Context, opts StreamTextOptions) (*StreamTextResult, error) {
	r, err := newRun(ctx, &opts, true)
	if err != nil {
		return nil, err
	}
	return &StreamTextResult{r: r, done: make(chan struct{})}, nil
}

// Parts returns the stream of parts. It may be ranged over once; a second
// range yields [ErrStreamConsumed]. A non-nil error ends the stream.
func (s *StreamTextResult) Parts() iter.Seq2[Part, error] {
	return func(yield func(Part, error) bool) {
		if !s.started.CompareAndSwap(false, true) {
			yield(nil, ErrStreamConsumed)
			return
		}
		s.drive(yield)
	}
}

// TextStream returns the text deltas of the stream.
func (s *StreamTextResult) TextStream() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for p, err := range s.Parts() {
			if err != nil {
				yield("", err)
				return
			}
			if d, ok := p.(TextDelta); ok {
				if !yield(d.Delta, nil) {
					return
				}
			}
		}
	}
}

// Wait blocks until the generation ends, reading the stream itself if
// nobody does, and returns the result. The error is non-nil when no step
// finished, when the stream was cancelled, or when it failed.
func (s *StreamTextResult) Wait() (*GenerateTextResult, error) {
	if s.started.CompareAndSwap(false, true) {
		s.drive(func(Part, error) bool { return true })
	}
	<-s.done
	return s.result, s.err
}

// Text returns the final step's text.
func (s *StreamTextResult) Text() (string, error) {
	res, err := s.Wait()
	if res == nil {
		return "", err
	}
	return res.Text, err
}

// Steps returns the finished steps.
func (s *StreamTextResult) Steps() ([]*StepResult, error) {
	res, err := s.Wait()
	if res == nil {
		return nil, err
	}
	return res.Steps, err
}

// Usage returns the total usage.
func (s *StreamTextResult) Usage() (Usage, error) {
	res, err := s.Wait()
	if res == nil {
		return Usage{}, err
	}
	return res.Usage, err
}

// FinishReason returns the final step's finish reason.
func (s *StreamTextResult) FinishReason() (FinishReason, error) {
	res, err := s.Wait()
	if res == nil {
		return "", err
	}
	return res.FinishReason, err
}

// ResponseMessages returns the messages the generation added.
func (s *StreamTextResult) ResponseMessages() ([]Message, error) {
	res, err := s.Wait()
	if res == nil {
		return nil, err
	}
	return res.ResponseMessages, err
}

// streamer drives one stream: it runs the engine's steps and emits their
// parts to the reader.
type streamer struct {
	r       *run
	yield   func(Part, error) bool
	stopped bool  // the reader stopped
	aborted error // why the stream ends with an abort, when it does
	// abortErr is the error the stream ends with after an abort, when it
	// says more than aborted (a retry cut short keeps its attempts' errors).
	abortErr error
	noOutput error    // why no step could be recorded
	failures []error  // the errors of the error parts emitted
	usedIDs  []string // block ids of the finished steps
	cancel   context.CancelCauseFunc
	stepVal  streamStep // the running step, reused by each step
	// take reads the model's stream into stepVal (stepVal.take, made once
	// for every step).
	take func(provider.StreamPart, error) bool
}

func (s *StreamTextResult) drive(yield func(Part, error) bool) {
	defer close(s.done)
	r := s.r
	defer r.cancel() // when the reader panics; release is not reached
	ctx, cancel := context.WithCancelCause(r.ctx)
	defer cancel(nil)
	r.ctx = ctx
	st := &s.st
	*st = streamer{r: r, yield: yield, cancel: cancel}
	st.take = st.stepVal.take
	s.result, s.err = r.observed(st.run)
	s.r, s.st = nil, streamer{}
	r.release()
}

// emit hands a part to the reader; false means stop.
func (st *streamer) emit(p Part) bool {
	if st.stopped {
		return false
	}
	if e, ok := p.(ErrorPart); ok {
		st.failures = append(st.failures, e.Err)
	}
	if !st.yield(p, nil) {
		st.stopped = true
		st.cancel(ErrStreamStopped)
		return false
	}
	return true
}

// fail ends the stream with an error of the iteration itself.
func (st *streamer) fail(err error) {
	if !st.stopped {
		st.stopped = true
		st.yield(nil, err)
	}
}

// abortFor records that ctx ended the stream.
func (st *streamer) abortFor(ctx context.Context) {
	if st.aborted == nil {
		st.aborted = context.Cause(ctx)
		if st.aborted == nil {
			st.aborted = context.Canceled
		}
	}
}

func (st *streamer) run() (*GenerateTextResult, error) {
	r := st.r
	if !st.emit(Start{}) {
		return nil, ErrStreamStopped
	}
	if err := r.standardizePrompt(); err != nil {
		st.emit(ErrorPart{Err: err})
		return nil, &NoOutputGeneratedError{Message: "check the stream for errors", Cause: err}
	}
	err := r.resume(&resumeHooks{
		denied: func(c ToolCall) bool {
			return st.emit(ToolOutputDenied{ToolCallID: c.ToolCallID, ToolName: c.ToolName})
		},
		invalid: func(e ToolError) bool { return st.emit(e) },
		run: func(s *step, calls []*callState) ([]ContentPart, error) {
			return st.runTools(s, calls, r.messages, nil)
		},
	})
	if st.stopped {
		return st.partial()
	}
	if err != nil {
		if r.ctx.Err() != nil {
			st.abortFor(r.ctx)
			return st.abort()
		}
		st.emit(ErrorPart{Err: err})
		return nil, &NoOutputGeneratedError{Message: "check the stream for errors", Cause: err}
	}
	if r.paused {
		// A resumed program paused again; its call and request were
		// streamed with the resumed outcomes.
		last := r.steps[len(r.steps)-1]
		st.emit(Finish{FinishReason: last.FinishReason, RawFinishReason: last.RawFinishReason, TotalUsage: r.usage.usage(new([8]int))})
		return r.result(), nil
	}
	for {
		s, err := r.prepare()
		if err != nil {
			if r.ctx.Err() != nil {
				st.abortFor(r.ctx)
				return st.abort()
			}
			var fatal *CallbackPanicError
			if errors.As(err, &fatal) {
				st.fail(err)
				return st.partialWith(err)
			}
			st.emit(ErrorPart{Err: err})
			st.noOutput = err
			break
		}
		more, err := st.step(s)
		r.endStep(s, st.stepErr(err))
		s.cancel()
		if st.stopped {
			if err != nil {
				return st.partialWith(err)
			}
			return st.partial()
		}
		if st.aborted != nil {
			return st.abort()
		}
		if err != nil {
			st.fail(err)
			return st.partialWith(err)
		}
		if !more {
			break
		}
	}
	if len(r.steps) == 0 {
		if st.noOutput != nil {
			var nog *NoOutputGeneratedError
			if errors.As(st.noOutput, &nog) {
				return nil, nog
			}
			return nil, &NoOutputGeneratedError{Message: "check the stream for errors", Cause: st.noOutput}
		}
		return nil, &NoOutputGeneratedError{Message: "check the stream for errors"}
	}
	last := r.steps[len(r.steps)-1]
	st.emit(Finish{FinishReason: last.FinishReason, RawFinishReason: last.RawFinishReason, TotalUsage: r.usage.usage(new([8]int))})
	if st.stopped {
		return st.partial()
	}
	_ = r.completeOutput(true) // read with OutputOf
	if len(st.failures) > 0 {
		return r.result(), &StreamFailedError{Errs: st.failures}
	}
	return r.result(), nil
}

func (st *streamer) partial() (*GenerateTextResult, error) {
	return st.partialWith(ErrStreamStopped)
}

func (st *streamer) partialWith(err error) (*GenerateTextResult, error) {
	if len(st.r.steps) == 0 {
		return nil, err
	}
	return st.r.result(), err
}

func (st *streamer) abort() (*GenerateTextResult, error) {
	st.emit(Abort{Reason: st.aborted.Error()})
	if st.abortErr != nil {
		return st.partialWith(st.abortErr)
	}
	return st.partialWith(st.aborted)
}

// reserveID keeps provider ids unique over the whole stream: an id already
// used by an earlier step is replaced by a generated one.
func (st *streamer) reserveID(id string, ss *streamStep) string {
	if slices.Contains(st.usedIDs, id) && !slices.Contains(ss.stepIDs, id) {
		id = st.r.newID()
	}
	if !slices.Contains(ss.stepIDs, id) {
		ss.stepIDs = append(ss.stepIDs, id)
	}
	return id
}

// streamStep is what a streaming step tracks beyond the engine's stepRun:
// open text and reasoning blocks, ids, and whether the model produced
// anything.
type streamStep struct {
	st       *streamer
	sr       *stepRun
	blocks   []*textBlock // the open text and reasoning blocks
	blockBuf [2]textBlock
	stepIDs  []string     // the block ids of this step
	inputs   []inputEntry // tools whose input is streaming
	started  bool         // start-step was emitted
	terminal bool         // a finish or error part arrived
	output   bool         // the model produced output
	// withhold is set when no tool may run (tool choice none): tool input
	// and calls are not streamed.
	withhold bool
	filter   *outputFilter // the output's partial values, if any
	// quit is set when the step ends without recording anything (the
	// reader stopped, or the step was cancelled); fatal holds an error
	// that ends the iteration.
	quit  bool
	fatal error
	// ended is set once take said the stream should not go on.
	ended bool
}

// inputEntry is a tool whose call's input is streaming.
type inputEntry struct {
	id string
	e  *stepEntry
}

// take handles one value of the model's stream and reports whether the
// stream should go on. Once it said no, a stream that yields more is
// ignored rather than handled.
func (ss *streamStep) take(part provider.StreamPart, err error) bool {
	if ss.ended {
		return false
	}
	ok := ss.handle(part, err)
	ss.ended = !ok
	return ok
}

// handle handles one value of the model's stream and reports whether the
// stream should go on. It ends the step's stream at an error value, at a
// fatal error (kept in fatal) and when the reader stopped.
func (ss *streamStep) handle(part provider.StreamPart, err error) bool {
	st, sr, s := ss.st, ss.sr, ss.sr.s
	if err != nil {
		if s.ctx.Err() != nil {
			st.abortFor(s.ctx)
			ss.quit = true
			return false
		}
		if !ss.startStep() {
			ss.quit = true
			return false
		}
		st.emit(ErrorPart{Err: err})
		sr.finish = provider.FinishReason{Unified: FinishError}
		ss.terminal = true
		return false
	}
	ok, err := ss.part(part)
	if err != nil {
		ss.fatal = err
		return false
	}
	return ok
}

// block returns the open block of an id.
func (ss *streamStep) block(id string, reasoning bool) *textBlock {
	for _, b := range ss.blocks {
		if b.key == id && b.reasoning == reasoning {
			return b
		}
	}
	return nil
}

// input returns the tool whose input streams under a call id.
func (ss *streamStep) input(id string) *stepEntry {
	for _, in := range ss.inputs {
		if in.id == id {
			return in.e
		}
	}
	return nil
}

// step runs one streaming step and reports whether to go on. An error is
// fatal: it ends the iteration.
func (st *streamer) step(s *step) (bool, error) {
	r := st.r
	res, err := r.modelStream(s)
	if err != nil {
		if s.ctx.Err() != nil {
			st.abortFor(s.ctx)
			if errors.Is(err, st.aborted) {
				// The same error GenerateText returns.
				st.abortErr = err
			}
			return false, nil
		}
		st.emit(ErrorPart{Err: err})
		st.noOutput = err
		return false, nil
	}
	sr := s.newStepRun(r, st)
	// Room for a call and its result, or a few blocks, before growing.
	sr.content = make([]ContentPart, 0, 4)
	sr.finish, sr.request = provider.FinishReason{Unified: FinishOther}, res.Request
	if res.Response != nil {
		sr.response = *res.Response
	}
	ss := &st.stepVal
	// The lists' storage is reused: nothing refers to an ended step's.
	*ss = streamStep{st: st, sr: sr, withhold: !s.tools.exec,
		blocks: ss.blocks[:0], stepIDs: ss.stepIDs[:0], inputs: ss.inputs[:0]}
	ss.filter = newOutputFilter(ss)
	res.Stream(st.take)
	if ss.quit {
		return false, nil
	}
	if ss.fatal != nil {
		return false, ss.fatal
	}
	if st.stopped {
		return false, nil
	}
	if s.ctx.Err() != nil {
		st.abortFor(s.ctx)
		return false, nil
	}
	st.usedIDs = append(st.usedIDs, ss.stepIDs...)
	for _, b := range ss.blocks {
		b.finish(sr.content)
	}
	if !ss.terminal && !ss.output {
		err := &NoOutputGeneratedError{Message: "the model stream ended without a finish part"}
		st.emit(ErrorPart{Err: err})
		st.noOutput = err
		return false, nil
	}

	// Run the tools once the model has finished.
	if torun := sr.runnable(); len(torun) > 0 {
		sr.content, err = st.runTools(s, torun, s.messages, sr.content)
		if st.stopped {
			return false, nil
		}
		if s.ctx.Err() != nil {
			st.abortFor(s.ctx)
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	more, err := r.finishStep(s, sr, sr.assemble())
	if last := sr.result; last != nil {
		// A step whose messages failed still reports its end first.
		if !ss.flushText() || !st.emit(FinishStep{FinishReason: last.FinishReason, RawFinishReason: last.RawFinishReason, Usage: last.Usage,
			Response: last.Response, ProviderMetadata: sr.meta}) {
			return false, nil
		}
	}
	return more, err
}

// startStep emits start-step before the step's first part.
func (ss *streamStep) startStep() bool {
	if ss.started {
		return true
	}
	ss.started = true
	return ss.st.emit(StartStep{Warnings: ss.sr.warnings, Request: ss.sr.request})
}

// openBlock starts a text or reasoning block at the end of the content.
func (ss *streamStep) openBlock(id string, pm ProviderMetadata, reasoning bool) *textBlock {
	sr := ss.sr
	var b *textBlock
	for i := range ss.blockBuf {
		if !ss.blockBuf[i].used {
			b = &ss.blockBuf[i]
			break
		}
	}
	if b == nil {
		b = new(textBlock)
	}
	*b = textBlock{used: true, key: id, reasoning: reasoning, index: len(sr.content), id: ss.st.reserveID(id, ss), meta: pm}
	ss.blocks = append(ss.blocks, b)
	// The block's place in the content; it is filled when the block ends.
	sr.content = append(sr.content, nil)
	return b
}

// endBlock closes a block and returns its id in the stream.
func (ss *streamStep) endBlock(b *textBlock, pm ProviderMetadata) string {
	if pm != nil {
		b.meta = pm
	}
	b.finish(ss.sr.content)
	if i := slices.Index(ss.blocks, b); i >= 0 {
		ss.blocks = slices.Delete(ss.blocks, i, i+1)
	}
	id := b.id
	*b = textBlock{} // free for the next block
	return id
}

// orphan streams a delta or end of a block that was never started, and then
// an error part: the part is not kept in the step's content.
func (ss *streamStep) orphan(p Part, msg string) (bool, error) {
	if !ss.st.emit(p) {
		return false, nil
	}
	return ss.st.emit(ErrorPart{Err: &StreamProtocolError{Message: msg}}), nil
}

// part handles one part of the model's stream. It reports false when the
// reader stopped; an error is fatal.
func (ss *streamStep) part(part provider.StreamPart) (bool, error) {
	st, sr, s := ss.st, ss.sr, ss.sr.s
	r := st.r
	if p, ok := part.(provider.StreamStart); ok {
		sr.warnings = p.Warnings
		return true, nil
	}
	if !ss.startStep() {
		return false, nil
	}
	switch p := part.(type) {
	case provider.ResponseMetadata:
		if p.ID != "" {
			sr.response.ID = p.ID
		}
		if !p.Timestamp.IsZero() {
			sr.response.Timestamp = p.Timestamp
		}
		if p.ModelID != "" {
			sr.response.ModelID = p.ModelID
		}
	case provider.TextStart:
		b := ss.openBlock(p.ID, p.ProviderMetadata, false)
		if p.ID != b.id {
			p.ID = b.id
			part = p
		}
		return ss.emitText(part), nil
	case provider.TextDelta:
		b := ss.block(p.ID, false)
		if b == nil {
			// As in the reference: the delta is streamed but not kept, and
			// an error part follows.
			return ss.orphan(part, "text part "+p.ID+" not found")
		}
		ss.output = b.add(p.Delta, p.ProviderMetadata) || ss.output
		// Empty text deltas without metadata are not passed on.
		if p.Delta != "" || p.ProviderMetadata != nil {
			if p.ID != b.id {
				p.ID = b.id
				part = p
			}
			return ss.emitText(part), nil
		}
	case provider.TextEnd:
		b := ss.block(p.ID, false)
		if b == nil {
			return ss.orphan(part, "text part "+p.ID+" not found")
		}
		id := ss.endBlock(b, p.ProviderMetadata)
		if p.ID != id {
			p.ID = id
			part = p
		}
		return ss.emitText(part), nil
	case provider.ReasoningStart:
		b := ss.openBlock(p.ID, p.ProviderMetadata, true)
		if p.ID != b.id {
			p.ID = b.id
			part = p
		}
		return st.emit(part), nil
	case provider.ReasoningDelta:
		b := ss.block(p.ID, true)
		if b == nil {
			return ss.orphan(part, "reasoning part "+p.ID+" not found")
		}
		ss.output = b.add(p.Delta, p.ProviderMetadata) || ss.output
		if p.ID != b.id {
			p.ID = b.id
			part = p
		}
		return st.emit(part), nil
	case provider.ReasoningEnd:
		b := ss.block(p.ID, true)
		if b == nil {
			return ss.orphan(part, "reasoning part "+p.ID+" not found")
		}
		id := ss.endBlock(b, p.ProviderMetadata)
		if p.ID != id {
			p.ID = id
			part = p
		}
		return st.emit(part), nil
	case provider.ToolInputStart:
		if ss.withhold {
			return true, nil
		}
		out := ToolInputStart{ID: p.ID, ToolName: p.ToolName, InputEncoding: p.InputEncoding,
			ProviderExecuted: p.ProviderExecuted, Dynamic: p.Dynamic, ProviderMetadata: p.ProviderMetadata}
		if t, found := r.idx.get(p.ToolName); found {
			out.Dynamic = out.Dynamic || t.Kind() == DynamicKind
			out.Title = t.core().title
			out.ToolMetadata = t.core().metadata
		}
		if e, found := s.tools.execTool(p.ToolName); found && e.model {
			ss.inputs = append(ss.inputs, inputEntry{p.ID, e})
			if f := e.tool.core().onInputStart; f != nil {
				if err := r.inputHook(s, e, p.ID, func(o ToolExecutionOptions) error { return f(s.ctx, o) }); err != nil {
					return false, err
				}
			}
		}
		return st.emit(out), nil
	case provider.ToolInputDelta:
		if ss.withhold {
			return true, nil
		}
		if p.Delta != "" {
			ss.output = true
		}
		if e := ss.input(p.ID); e != nil {
			if f := e.tool.core().onInputDelta; f != nil {
				if err := r.inputHook(s, e, p.ID, func(o ToolExecutionOptions) error { return f(s.ctx, p.Delta, o) }); err != nil {
					return false, err
				}
			}
		}
		return st.emit(part), nil
	case provider.ToolInputEnd:
		if ss.withhold {
			return true, nil
		}
		return st.emit(part), nil
	case provider.ToolCall:
		ss.output = true
		if ss.withhold {
			// Recorded for the tool choice check only.
			sr.calls = append(sr.calls, &callState{call: ToolCall{ToolCallID: p.ToolCallID, ToolName: p.ToolName}})
			return true, nil
		}
		return sr.toolCall(p)
	case provider.ToolResult:
		out, _ := sr.providerResult(p)
		if !ss.withhold {
			return st.emit(out.(Part)), nil
		}
	case provider.ToolApprovalRequest:
		if ss.withhold {
			return true, nil
		}
		req, err := sr.approvalRequest(p)
		if err != nil {
			return st.emit(ErrorPart{Err: err}), nil
		}
		return st.emit(*req), nil
	case provider.Finish:
		ss.terminal = true
		sr.finish, sr.usage, sr.meta = p.FinishReason, p.Usage, p.ProviderMetadata
		if err := sr.checkToolChoice(); err != nil {
			sr.violation = true
			sr.finish = provider.FinishReason{Unified: FinishError, Raw: sr.finish.Raw}
			return st.emit(ErrorPart{Err: err}), nil
		}
	case provider.ErrorPart:
		ss.terminal = true
		sr.finish = provider.FinishReason{Unified: FinishError}
		return st.emit(ErrorPart{Err: p.Err}), nil
	case provider.Raw:
		if r.opts.IncludeRawChunks {
			return st.emit(Raw(p)), nil
		}
	case provider.Ping:
		return st.emit(Ping{}), nil
	case provider.File, provider.ReasoningFile, provider.Source, provider.Custom:
		c, _ := contentFrom(p.(provider.Content))
		if _, isSource := p.(provider.Source); !isSource {
			if _, isCustom := p.(provider.Custom); !isCustom {
				ss.output = true
			}
		}
		sr.content = append(sr.content, c)
		return st.emit(c.(Part)), nil
	}
	return true, nil
}

// settleWindow is how long, from the start of a step's tool executions,
// the stream holds back results while several calls are running. Results
// that arrive within it are emitted together, failures first and then in
// call order, so tools that finish at once (for example without any I/O)
// stream in a stable order however the goroutines are scheduled; after it,
// results stream in completion order as they arrive.
const settleWindow = 50 * time.Millisecond

// chanSink passes a stream's tool outcomes to the goroutine that emits them.
type chanSink chan Part

func (c chanSink) preliminary(call ToolCall, v any) {
	c <- ToolResult{
		ToolCallID: call.ToolCallID, ToolName: call.ToolName, Input: call.Input, Output: v,
		Dynamic: call.Dynamic, Preliminary: true, ToolMetadata: call.ToolMetadata, ProviderMetadata: call.ProviderMetadata,
	}
}

func (c chanSink) done(out ContentPart) { c <- out.(Part) }

// runTools executes calls and streams their preliminary and final outcomes
// in completion order; it returns outs with the final outcomes appended in
// that order.
func (st *streamer) runTools(s *step, calls []*callState, messages []Message, outs []ContentPart) ([]ContentPart, error) {
	if len(calls) == 1 {
		return st.runTool(s, calls[0], messages, outs)
	}
	ch := make(chanSink, 16)
	var execErr error
	go func() {
		defer close(ch)
		execErr = st.r.executeAll(s, calls, messages, ch)
	}()
	index := func(p Part) int {
		id := callIDOf(p.(ContentPart))
		return slices.IndexFunc(calls, func(c *callState) bool { return c.call.ToolCallID == id })
	}
	var batch []Part
	// Within a batch, failures come first: a tool that fails at once
	// settles before one that succeeds at once (as in the reference, whose
	// success path has more asynchronous steps), then call order.
	failed := func(p Part) int {
		if _, ok := p.(ToolError); ok {
			return 0
		}
		return 1
	}
	flush := func() {
		slices.SortStableFunc(batch, func(a, b Part) int {
			if fa, fb := failed(a), failed(b); fa != fb {
				return fa - fb
			}
			return index(a) - index(b)
		})
		for _, p := range batch {
			if tr, ok := p.(ToolResult); ok && tr.Preliminary {
				if !st.stopped && s.ctx.Err() == nil && !st.emit(p) {
					s.cancel()
				}
				continue
			}
			for _, q := range expandOutcome(p.(ContentPart)) {
				outs = append(outs, q)
				// Once the step is cancelled, the failures of the tools it
				// cancelled are not news; the stream ends with an abort.
				if !st.stopped && s.ctx.Err() == nil && !st.emit(q.(Part)) {
					s.cancel()
				}
			}
		}
		batch = batch[:0]
	}
	// A single call has nothing to be ordered against.
	holding := len(calls) > 1
	timer := time.NewTimer(settleWindow)
	defer timer.Stop()
	for holding {
		select {
		case p, ok := <-ch:
			if !ok {
				holding = false
				break
			}
			batch = append(batch, p)
		case <-timer.C:
			holding = false
		}
	}
	flush()
	for p := range ch {
		batch = append(batch, p)
		flush()
	}
	return outs, settled(s, calls, execErr)
}

// runTool executes a single call on the reader's goroutine, emitting its
// preliminary results and its outcome as they come: with nothing to order
// them against, no goroutine or channel is needed.
func (st *streamer) runTool(s *step, cs *callState, messages []Message, outs []ContentPart) ([]ContentPart, error) {
	var prelim func(any)
	if cs.entry.tool.core().streams {
		prelim = func(v any) {
			c := cs.call
			st.emitOutcome(s, ToolResult{ToolCallID: c.ToolCallID, ToolName: c.ToolName, Input: c.Input, Output: v, Dynamic: c.Dynamic,
				Preliminary: true, ToolMetadata: c.ToolMetadata, ProviderMetadata: c.ProviderMetadata})
		}
	}
	var out ContentPart
	var err error
	if s.ctx.Err() == nil {
		out, err = st.r.executeCall(s.ctx, s, cs.entry, &cs.call, messages, func() {}, prelim)
	}
	cs.outcome = out
	if out != nil {
		for _, q := range expandOutcome(out) {
			st.emitOutcome(s, q.(Part))
			outs = append(outs, q)
		}
	}
	return outs, settled(s, []*callState{cs}, err)
}

// emitOutcome streams a tool's outcome or preliminary result. Once the step
// is cancelled, the failure of a tool it cancelled is not news: the stream
// ends with an abort.
func (st *streamer) emitOutcome(s *step, p Part) {
	if !st.stopped && s.ctx.Err() == nil && !st.emit(p) {
		s.cancel()
	}
}

// settled returns the error of a step's executions: a cancelled step is an
// error (wrapping the cause), and so is a call left without an outcome.
func settled(s *step, calls []*callState, err error) error {
	if s.ctx.Err() != nil {
		return context.Cause(s.ctx)
	}
	if err != nil {
		return err
	}
	for _, cs := range calls {
		if cs.outcome == nil {
			return context.Canceled
		}
	}
	return nil
}

func callIDOf(p ContentPart) string {
	switch p := p.(type) {
	case ToolResult:
		return p.ToolCallID
	case ToolError:
		return p.ToolCallID
	}
	return ""
}
