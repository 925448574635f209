package ai

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aisdkgo/ai/provider"
)

// Ping keeps a stream alive; it carries nothing.
type Ping = provider.Ping

// ErrStreamConsumed is returned by a second attempt to read a stream.
var ErrStreamConsumed = errors.New("ai: a stream can be read only once")

// ErrStreamStopped is what the result accessors return when the reader of
// [StreamTextResult.Parts] stopped before the end: the generation was
// cancelled at that point.
var ErrStreamStopped = errors.New("ai: the stream's reader stopped before the end")

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
				if !yield(d.Text, nil) {
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

// streamer drives one stream.
type streamer struct {
	r        *run
	yield    func(Part, error) bool
	stopped  bool // the reader stopped
	aborted  bool
	noOutput error // why no step could be recorded
	usedIDs  map[string]bool
	cancel   context.CancelCauseFunc
}

func (s *StreamTextResult) drive(yield func(Part, error) bool) {
	defer close(s.done)
	defer s.r.close()
	ctx, cancel := context.WithCancelCause(s.r.ctx)
	s.r.ctx = ctx
	defer cancel(nil)
	st := &streamer{r: s.r, yield: yield, cancel: cancel, usedIDs: map[string]bool{}}
	s.result, s.err = st.run()
}

// emit hands a part to the reader; false means stop.
func (st *streamer) emit(p Part) bool {
	if st.stopped {
		return false
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

func (st *streamer) abortReason() error {
	if err := context.Cause(st.r.ctx); err != nil {
		return err
	}
	return context.Canceled
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
	var resumed []Part
	var mu sync.Mutex
	err := r.resume(&resumeEvents{
		denied: func(c ToolCall) {
			resumed = append(resumed, ToolOutputDenied{ToolCallID: c.ToolCallID, ToolName: c.ToolName})
		},
		output: func(p ContentPart) {
			mu.Lock()
			resumed = append(resumed, p.(Part))
			mu.Unlock()
		},
	})
	for _, p := range resumed {
		if !st.emit(p) {
			return st.partial()
		}
	}
	if err != nil {
		if r.ctx.Err() != nil {
			return st.abort()
		}
		st.emit(ErrorPart{Err: err})
		return nil, &NoOutputGeneratedError{Message: "check the stream for errors", Cause: err}
	}
	for {
		s, err := r.prepare()
		if err != nil {
			if r.ctx.Err() != nil {
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
		s.cancel()
		if st.stopped {
			if err != nil {
				return st.partialWith(err)
			}
			return st.partial()
		}
		if st.aborted {
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
	st.emit(Finish{FinishReason: last.FinishReason, RawFinishReason: last.RawFinishReason, TotalUsage: r.usage.usage()})
	if st.stopped {
		return st.partial()
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
	reason := st.abortReason()
	st.emit(Abort{Reason: reason.Error()})
	return st.partialWith(reason)
}

// textBlock is a text or reasoning block being received.
type textBlock struct {
	index int    // position in the step content
	id    string // id in the stream
	buf   strings.Builder
	meta  ProviderMetadata
}

// add appends a delta; metadata on a delta replaces the block's. It reports
// whether the delta carried output.
func (b *textBlock) add(delta string, pm ProviderMetadata) bool {
	b.buf.WriteString(delta)
	if pm != nil {
		b.meta = pm
	}
	return delta != ""
}

// finish writes the block's text into its place in the step content.
func (b *textBlock) finish(content []ContentPart, reasoning bool) {
	if reasoning {
		content[b.index] = Reasoning{Text: b.buf.String(), ProviderMetadata: b.meta}
	} else {
		content[b.index] = Text{Text: b.buf.String(), ProviderMetadata: b.meta}
	}
}

// endBlock closes a block and returns its id in the stream (the provider's
// id for a block that was never opened).
func endBlock(blocks map[string]*textBlock, content []ContentPart, id string, pm ProviderMetadata, reasoning bool) string {
	b := blocks[id]
	if b == nil {
		return id
	}
	if pm != nil {
		b.meta = pm
	}
	b.finish(content, reasoning)
	delete(blocks, id)
	return b.id
}

// reserveID keeps provider ids unique over the whole stream: an id already
// used by an earlier step is replaced by a generated one.
func (st *streamer) reserveID(id string, step map[string]bool) string {
	if st.usedIDs[id] && !step[id] {
		id = st.r.newID()
	}
	step[id] = true
	return id
}

// step runs one streaming step and reports whether to go on. An error is
// fatal: it ends the iteration.
func (st *streamer) step(s *step) (bool, error) {
	r := st.r
	res, err := callModel(r, s.ctx, func(ctx context.Context) (res *provider.StreamResult, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = nil, &CallbackPanicError{Callback: "the model's Stream", Panic: v}
			}
		}()
		res, err = s.model.Stream(ctx, &s.call)
		if err == nil && (res == nil || res.Stream == nil) {
			err = &provider.InvalidResponseDataError{Message: "the model returned no stream"}
		}
		return res, err
	})
	if err != nil {
		if r.ctx.Err() != nil {
			st.aborted = true
			return false, nil
		}
		st.emit(ErrorPart{Err: err})
		st.noOutput = err
		return false, nil
	}

	var (
		content      []ContentPart
		calls        []ToolCall
		warnings     []Warning
		texts        = map[string]*textBlock{}
		reasonings   = map[string]*textBlock{}
		stepIDs      = map[string]bool{}
		started      bool
		terminal     bool
		output       bool
		finish       = provider.FinishReason{Unified: FinishOther}
		usage        provider.Usage
		meta         ProviderMetadata
		resp         provider.ResponseInfo
		violation    bool
		blocked      = map[string]bool{}
		withhold     = !s.tools.exec
		inputEntries = map[string]*stepEntry{}
	)
	if res.Response != nil {
		resp = *res.Response
	}
	startStep := func() bool {
		if started {
			return true
		}
		started = true
		return st.emit(StartStep{Warnings: warnings, Request: res.Request})
	}
	openBlock := func(blocks map[string]*textBlock, id string, pm ProviderMetadata, reasoning bool) *textBlock {
		b := &textBlock{index: len(content), id: st.reserveID(id, stepIDs), meta: pm}
		blocks[id] = b
		if reasoning {
			content = append(content, Reasoning{})
		} else {
			content = append(content, Text{})
		}
		return b
	}
	// hook calls a tool's input callback; an error ends the stream.
	hook := func(e *stepEntry, id string, f func(ToolExecutionOptions) error) error {
		tctx, err := r.toolContext(s, e.name, e.exec)
		if err != nil {
			return err
		}
		opts := ToolExecutionOptions{ToolCallID: id, Messages: s.messages, Context: tctx, Sandbox: s.tools.sandbox}
		return guard(ToolCall{ToolCallID: id, ToolName: e.name}, func() error { return f(opts) })
	}

loop:
	for part, err := range res.Stream {
		if err != nil {
			if r.ctx.Err() != nil {
				st.aborted = true
				return false, nil
			}
			if !startStep() {
				return false, nil
			}
			st.emit(ErrorPart{Err: err})
			finish = provider.FinishReason{Unified: FinishError}
			terminal = true
			break
		}
		if ss, ok := part.(provider.StreamStart); ok {
			warnings = ss.Warnings
			continue
		}
		if !startStep() {
			return false, nil
		}
		ok := true
		switch p := part.(type) {
		case provider.ResponseMetadata:
			if p.ID != "" {
				resp.ID = p.ID
			}
			if !p.Timestamp.IsZero() {
				resp.Timestamp = p.Timestamp
			}
			if p.ModelID != "" {
				resp.ModelID = p.ModelID
			}
		case provider.TextStart:
			b := openBlock(texts, p.ID, p.ProviderMetadata, false)
			ok = st.emit(TextStart{ID: b.id, ProviderMetadata: p.ProviderMetadata})
		case provider.TextDelta:
			b := texts[p.ID]
			if b == nil {
				b = openBlock(texts, p.ID, p.ProviderMetadata, false)
			}
			output = b.add(p.Delta, p.ProviderMetadata) || output
			// Empty text deltas without metadata are not passed on.
			if p.Delta != "" || p.ProviderMetadata != nil {
				ok = st.emit(TextDelta{ID: b.id, Text: p.Delta, ProviderMetadata: p.ProviderMetadata})
			}
		case provider.TextEnd:
			id := endBlock(texts, content, p.ID, p.ProviderMetadata, false)
			ok = st.emit(TextEnd{ID: id, Citations: p.Citations, ProviderMetadata: p.ProviderMetadata})
		case provider.ReasoningStart:
			b := openBlock(reasonings, p.ID, p.ProviderMetadata, true)
			ok = st.emit(ReasoningStart{ID: b.id, ProviderMetadata: p.ProviderMetadata})
		case provider.ReasoningDelta:
			b := reasonings[p.ID]
			if b == nil {
				b = openBlock(reasonings, p.ID, p.ProviderMetadata, true)
			}
			output = b.add(p.Delta, p.ProviderMetadata) || output
			ok = st.emit(ReasoningDelta{ID: b.id, Text: p.Delta, ProviderMetadata: p.ProviderMetadata})
		case provider.ReasoningEnd:
			id := endBlock(reasonings, content, p.ID, p.ProviderMetadata, true)
			ok = st.emit(ReasoningEnd{ID: id, ProviderMetadata: p.ProviderMetadata})
		case provider.ToolInputStart:
			if withhold {
				continue
			}
			part := ToolInputStart{ID: p.ID, ToolName: p.ToolName, InputEncoding: p.InputEncoding,
				ProviderExecuted: p.ProviderExecuted, Dynamic: p.Dynamic, ProviderMetadata: p.ProviderMetadata}
			if t, found := r.idx.get(p.ToolName); found {
				part.Dynamic = part.Dynamic || t.Kind() == DynamicKind
				part.Title = t.core().title
				part.ToolMetadata = t.core().metadata
			}
			if e, found := s.tools.execTool(p.ToolName); found && e.model {
				inputEntries[p.ID] = e
				if f := e.exec.core().onInputStart; f != nil {
					if err := hook(e, p.ID, func(o ToolExecutionOptions) error { return f(s.ctx, o) }); err != nil {
						return false, err
					}
				}
			}
			ok = st.emit(part)
		case provider.ToolInputDelta:
			if withhold {
				continue
			}
			if p.Delta != "" {
				output = true
			}
			if e := inputEntries[p.ID]; e != nil {
				if f := e.exec.core().onInputDelta; f != nil {
					if err := hook(e, p.ID, func(o ToolExecutionOptions) error { return f(s.ctx, p.Delta, o) }); err != nil {
						return false, err
					}
				}
			}
			ok = st.emit(p)
		case provider.ToolInputEnd:
			if withhold {
				continue
			}
			ok = st.emit(p)
		case provider.ToolCall:
			output = true
			if withhold {
				calls = append(calls, ToolCall{ToolCallID: p.ToolCallID, ToolName: p.ToolName})
				continue
			}
			call := r.parseCall(s, p)
			calls = append(calls, call)
			content = append(content, call)
			e, found := s.tools.execTool(call.ToolName)
			if found && !call.Invalid {
				// The callback sees the input before the reader sees the call.
				if f := e.exec.core().onInputAvailable; f != nil {
					if err := hook(e, call.ToolCallID, func(o ToolExecutionOptions) error { return f(s.ctx, call.value, o) }); err != nil {
						return false, err
					}
				}
			}
			if ok = st.emit(call); !ok {
				break
			}
			if call.Invalid {
				if !call.ProviderExecuted {
					te := invalidCallError(call)
					content = append(content, te)
					ok = st.emit(te)
				}
				break
			}
			if !found {
				break
			}
			req, resp, err := r.decideApproval(s, e, call)
			if err != nil {
				return false, err
			}
			if req == nil {
				break
			}
			content = append(content, *req)
			if ok = st.emit(*req); !ok || resp == nil {
				blocked[call.ToolCallID] = resp == nil || blocked[call.ToolCallID]
				break
			}
			content = append(content, *resp)
			if ok = st.emit(*resp); !ok {
				break
			}
			if !resp.Approved {
				blocked[call.ToolCallID] = true
				ok = st.emit(ToolOutputDenied{ToolCallID: call.ToolCallID, ToolName: call.ToolName})
			}
		case provider.ToolResult:
			out, _ := r.providerResult(p, calls, s)
			content = append(content, out)
			if !withhold {
				ok = st.emit(out.(Part))
			}
		case provider.ToolApprovalRequest:
			if withhold {
				continue
			}
			i := slices.IndexFunc(calls, func(c ToolCall) bool { return c.ToolCallID == p.ToolCallID })
			if i < 0 {
				ok = st.emit(ErrorPart{Err: &ToolCallNotFoundForApprovalError{ToolCallID: p.ToolCallID, ApprovalID: p.ApprovalID}})
				break
			}
			req := ToolApprovalRequest{ApprovalID: p.ApprovalID, ToolCall: calls[i]}
			content = append(content, req)
			ok = st.emit(req)
		case provider.Finish:
			terminal = true
			finish, usage, meta = p.FinishReason, p.Usage, p.ProviderMetadata
			if err := checkToolChoice(s, calls, finish.Unified, s.model); err != nil {
				violation = true
				finish = provider.FinishReason{Unified: FinishError, Raw: finish.Raw}
				ok = st.emit(ErrorPart{Err: err})
			}
		case provider.ErrorPart:
			terminal = true
			finish = provider.FinishReason{Unified: FinishError}
			ok = st.emit(ErrorPart{Err: p.Err})
		case provider.Raw:
			if r.opts.IncludeRawChunks {
				ok = st.emit(p)
			}
		case provider.Ping:
			ok = st.emit(p)
		case provider.File:
			output = true
			content = append(content, p)
			ok = st.emit(p)
		case provider.ReasoningFile:
			output = true
			content = append(content, p)
			ok = st.emit(p)
		case provider.Source:
			content = append(content, p)
			ok = st.emit(p)
		case provider.Custom:
			content = append(content, p)
			ok = st.emit(p)
		case nil:
		default:
			if pp, isPart := p.(Part); isPart {
				ok = st.emit(pp)
			}
		}
		if !ok {
			break loop
		}
	}
	if st.stopped {
		return false, nil
	}
	if r.ctx.Err() != nil {
		st.aborted = true
		return false, nil
	}
	for id := range stepIDs {
		st.usedIDs[id] = true
	}
	for _, b := range texts {
		b.finish(content, false)
	}
	for _, b := range reasonings {
		b.finish(content, true)
	}
	if !terminal && !output {
		err := &NoOutputGeneratedError{Message: "the model stream ended without a finish part"}
		st.emit(ErrorPart{Err: err})
		st.noOutput = err
		return false, nil
	}

	// Run the tools once the model has finished.
	if s.tools.exec && !violation && (finish.Unified == FinishStop || finish.Unified == FinishToolCalls) {
		var toRun []ToolCall
		for _, c := range calls {
			if !c.Invalid && !c.ProviderExecuted && !blocked[c.ToolCallID] {
				toRun = append(toRun, c)
			}
		}
		if len(toRun) > 0 {
			outs, err := st.execute(s, toRun)
			content = append(content, outs...)
			if st.stopped || r.ctx.Err() != nil {
				if !st.stopped {
					st.aborted = true
				}
				return false, nil
			}
			if err != nil {
				return false, err
			}
		}
	}

	usageStep := usageFrom(usage)
	more, err := r.finishStep(s, content, finish, usage, warnings, meta, res.Request, &resp)
	if err != nil {
		return false, err
	}
	sr := r.steps[len(r.steps)-1]
	if !st.emit(FinishStep{FinishReason: sr.FinishReason, RawFinishReason: sr.RawFinishReason, Usage: usageStep,
		Response: sr.Response, ProviderMetadata: meta}) {
		return false, nil
	}
	return more, nil
}

// settleWindow is how long, from the start of a step's tool executions,
// the stream holds back results while several calls are running. Results
// that arrive within it are emitted together, failures first and then in
// call order, so tools that finish at once (for example without any I/O)
// stream in a stable order however the goroutines are scheduled; after it,
// results stream in completion order as they arrive.
const settleWindow = 50 * time.Millisecond

// execute runs a step's calls and streams their preliminary and final
// results in completion order; it returns the final outputs in that order.
func (st *streamer) execute(s *step, calls []ToolCall) ([]ContentPart, error) {
	ch := make(chan Part, 16)
	s.prelim = func(call ToolCall, v any) {
		ch <- ToolResult{
			ToolCallID: call.ToolCallID, ToolName: call.ToolName, Input: call.Input, Output: v,
			Dynamic: call.Dynamic, Preliminary: true, ToolMetadata: call.ToolMetadata, ProviderMetadata: call.ProviderMetadata,
		}
	}
	var execErr error
	go func() {
		defer close(ch)
		_, execErr = st.r.executeAll(s, calls, s.messages, func(p ContentPart) { ch <- p.(Part) })
	}()
	index := func(p Part) int {
		id := callIDOf(p.(ContentPart))
		return slices.IndexFunc(calls, func(c ToolCall) bool { return c.ToolCallID == id })
	}
	var outs []ContentPart
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
			if tr, ok := p.(ToolResult); !ok || !tr.Preliminary {
				outs = append(outs, p.(ContentPart))
			}
			// Once the generation is cancelled, the failures of the tools it
			// cancelled are not news; the stream ends with an abort.
			if !st.stopped && st.r.ctx.Err() == nil && !st.emit(p) {
				s.cancel()
			}
		}
		batch = batch[:0]
	}
	// A single call has nothing to be ordered against.
	holding := len(calls) > 1
	timer := time.NewTimer(settleWindow)
	defer timer.Stop()
	for {
		if !holding {
			p, ok := <-ch
			if !ok {
				break
			}
			batch = append(batch, p)
			flush()
			continue
		}
		select {
		case p, ok := <-ch:
			if !ok {
				holding = false
				flush()
				return outs, execErr
			}
			batch = append(batch, p)
		case <-timer.C:
			holding = false
			flush()
		}
	}
	flush()
	return outs, execErr
}
