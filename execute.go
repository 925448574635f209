package ai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aisdkgo/ai/internal/effect"
	"github.com/aisdkgo/ai/internal/rawjson"
)

// This file is where tool calls run. Whoever asks for a call (the model,
// a resumed conversation, a code mode program, RunCodeMode), it goes the
// same way once it is validated and approved: executeCall checks the tool's
// context, fires the execution callbacks, bounds the call by its timeout,
// runs the tool through invokeTool (the only code that calls a tool's
// Execute or ExecuteStream) and encodes the output. No tool is special
// here: the search tool reaches the generation's discovery through
// ToolExecutionOptions.Discovery, as any tool may.

// toolContext returns a tool's validated context for the step. A context
// is validated once per step and tool.
func (r *run) toolContext(s *step, name string, t Tool) (any, error) {
	value := s.tools.toolsContext[name]
	sch := t.core().context
	if sch == nil {
		return value, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.contexts[name]; ok {
		return c.value, c.err
	}
	var err error
	if data, verr := sch.validateValue(value); verr != nil {
		err = &TypeValidationError{Value: data, Context: "tool context (" + name + ")", Cause: verr}
	}
	if s.contexts == nil {
		s.contexts = map[string]ctxResult{}
	}
	s.contexts[name] = ctxResult{value, err}
	return value, err
}

// inputHook runs one of a tool's input callbacks with the tool's context;
// a panic becomes an error.
func (r *run) inputHook(s *step, e *stepEntry, callID string, f func(ToolExecutionOptions) error) error {
	tctx, err := r.toolContext(s, e.name, e.tool)
	if err != nil {
		return err
	}
	opts := ToolExecutionOptions{ToolCallID: callID, Messages: s.messages, Context: tctx, Sandbox: s.tools.sandbox}
	return guard(ToolCall{ToolCallID: callID, ToolName: e.name}, func() error { return f(opts) })
}

// inputStart runs a call's OnInputStart.
func (r *run) inputStart(s *step, cs *callState) error {
	f := cs.entry.tool.core().onInputStart
	if f == nil {
		return nil
	}
	return r.inputHook(s, cs.entry, cs.call.ToolCallID, func(o ToolExecutionOptions) error { return f(s.ctx, o) })
}

// inputAvailable runs a call's OnInputAvailable with the validated input.
func (r *run) inputAvailable(s *step, cs *callState) error {
	f := cs.entry.tool.core().onInputAvailable
	if f == nil {
		return nil
	}
	value := cs.call.value
	return r.inputHook(s, cs.entry, cs.call.ToolCallID, func(o ToolExecutionOptions) error { return f(s.ctx, value, o) })
}

// guard runs a tool callback, turning a panic into an error.
func guard(call ToolCall, f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &ToolExecutionError{ToolName: call.ToolName, ToolCallID: call.ToolCallID, Panic: v}
		}
	}()
	return f()
}

// outcomeSink receives the outcomes of a step's executions as they happen
// (a stream emits them in completion order).
type outcomeSink interface {
	// preliminary receives a preliminary result of a streaming tool.
	preliminary(call ToolCall, value any)
	// done receives a final outcome.
	done(out ContentPart)
}

// executeAll runs the calls, at most ToolCallConcurrency at once, their
// execution starts observed in call order, and stores each outcome in its
// call. It returns the first fatal error; once there is one, no further
// call starts. A call left without an outcome was not started because the
// step was cancelled.
func (r *run) executeAll(s *step, calls []*callState, messages []Message, sink outcomeSink) error {
	if len(calls) == 1 && sink == nil {
		// Nothing runs concurrently.
		if s.ctx.Err() != nil {
			return nil
		}
		cs := calls[0]
		out, err := r.executeCall(s.ctx, s, cs.entry, &cs.call, messages, func() {}, nil)
		cs.outcome = out
		return err
	}
	var mu sync.Mutex
	var firstErr error
	r.eff.Parallel(s.ctx, len(calls), r.opts.ToolCallConcurrency, func(ctx context.Context, i int, started func()) {
		mu.Lock()
		stop := firstErr != nil
		mu.Unlock()
		if stop {
			return
		}
		cs := calls[i]
		var prelim func(any)
		if sink != nil && cs.entry.tool.core().streams {
			prelim = func(v any) { sink.preliminary(cs.call, v) }
		}
		out, err := r.executeCall(ctx, s, cs.entry, &cs.call, messages, started, prelim)
		mu.Lock()
		cs.outcome = out
		if err != nil && firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		if sink != nil && out != nil {
			sink.done(out)
		}
	})
	return firstErr
}

// executeCall runs one validated, approved call of the tool e and returns
// its outcome, a [ToolResult] or a [ToolError]. A returned error (a tool
// context that fails its schema) is fatal to the generation. rec, when
// set, stores the result. started is called once OnToolExecutionStart has
// run; prelim, when set, receives preliminary results.
func (r *run) executeCall(ctx context.Context, s *step, e *stepEntry, call *ToolCall, messages []Message, started func(), prelim func(any)) (ContentPart, error) {
	tctx, err := r.toolContext(s, call.ToolName, e.tool)
	if err != nil {
		started()
		return nil, err
	}
	if f := r.opts.OnToolExecutionStart; f != nil {
		callback("OnToolExecutionStart", func() {
			f(ToolExecutionStartEvent{StepNumber: s.number, ToolCall: *call, Messages: messages, Context: tctx})
		})
	}
	started()
	cctx, cancel := withToolTimeout(ctx, r.toolTimeout(call.ToolName), call.ToolName)
	defer cancel()
	cctx, endObserved := r.startTool(cctx, s, call)
	var began time.Time
	if r.opts.OnToolExecutionEnd != nil {
		began = r.eff.Now()
	}
	opts := ToolExecutionOptions{ToolCallID: call.ToolCallID, Messages: messages, Context: tctx, Sandbox: s.tools.sandbox,
		Discovery: Discovery{r: r, s: s, tool: call.ToolName, callID: call.ToolCallID}, Callees: r.calleesOf(s, call.ToolName), resume: call.resume}
	output, execErr := r.invokeTool(cctx, s, e, call, opts, prelim)
	var paused *codePaused
	if execErr != nil {
		paused = pausedBy(execErr)
	}
	if paused != nil {
		// A code mode program paused: the call ends with the interrupt as
		// its output (observers see a result, not a failure).
		output, execErr = paused.raw, nil
	}
	var encoded json.RawMessage
	if execErr == nil {
		encoded, execErr = encodeOutput(call.ToolName, output)
	} else if errors.Is(execErr, context.DeadlineExceeded) && cctx.Err() != nil && ctx.Err() == nil {
		// The tool's own timeout expired: say which limit, not just
		// "context deadline exceeded".
		execErr = context.Cause(cctx)
	}
	if execErr != nil {
		output = nil
	}
	endObserved(output, execErr)
	if f := r.opts.OnToolExecutionEnd; f != nil {
		callback("OnToolExecutionEnd", func() {
			f(ToolExecutionEndEvent{StepNumber: s.number, ToolCall: *call, Output: output, Err: execErr, Duration: r.eff.Now().Sub(began)})
		})
	}
	if paused != nil && execErr == nil {
		// The step also reports the program's paused call (and its
		// approval request).
		return r.pausedOutcome(call, paused), nil
	}
	if execErr != nil {
		return ToolError{
			ToolCallID: call.ToolCallID, ToolName: call.ToolName, Input: call.Input, Error: execErr,
			Dynamic: call.Dynamic, ToolMetadata: call.ToolMetadata, ProviderMetadata: call.ProviderMetadata,
		}, nil
	}
	return ToolResult{
		ToolCallID: call.ToolCallID, ToolName: call.ToolName, Input: call.Input, Output: output,
		Dynamic: call.Dynamic, ToolMetadata: call.ToolMetadata, ProviderMetadata: call.ProviderMetadata,
		outputJSON: encoded,
	}, nil
}

// invokeTool runs the tool's own code for one call: its Execute or
// ExecuteStream, through the generation's effects (in this process for a
// tool that only uses the generation's state).
// A panic becomes an error. It is the only code in this module that calls a
// tool's execute function.
func (r *run) invokeTool(ctx context.Context, s *step, e *stepEntry, call *ToolCall, opts ToolExecutionOptions, prelim func(any)) (out any, err error) {
	c := e.tool.core()
	if c.execute == nil {
		return nil, fmt.Errorf("tool %q cannot be executed: it has no execute function", call.ToolName)
	}
	if _, local := r.eff.(localEffects); local || c.inEngine {
		// The local effects run the tool right here.
		defer func() {
			if v := recover(); v != nil {
				out, err = nil, &ToolExecutionError{ToolName: call.ToolName, ToolCallID: call.ToolCallID, Panic: v}
			}
		}()
		return c.execute(ctx, call.value, opts, prelim)
	}
	// The function may be kept by the effects: it holds copies, not call.
	name, id, value, eo := call.ToolName, call.ToolCallID, call.value, opts
	out, err = r.eff.Invoke(ctx, effect.Call{ToolName: name, ToolCallID: id, Input: call.Input, Step: s.number},
		func(ctx context.Context) (out any, err error) {
			defer func() {
				if v := recover(); v != nil {
					out, err = nil, &ToolExecutionError{ToolName: name, ToolCallID: id, Panic: v}
				}
			}()
			return c.execute(ctx, value, eo, prelim)
		})
	if raw, ok := out.(json.RawMessage); ok && err == nil && c.typedOutput {
		// An execution elsewhere returns JSON: the result and ToModelOutput
		// get the tool's output type, as when the tool runs here.
		if out, err = c.decodeOutput(raw); err != nil {
			return nil, &ToolOutputError{ToolName: call.ToolName, Cause: err}
		}
	}
	return out, err
}

// executable reports whether the tool runs in this process.
func (c *toolCore) executable() bool { return c.execute != nil }

func (r *run) toolTimeout(name string) time.Duration {
	if d, ok := r.opts.Timeout.Tools[name]; ok {
		return d
	}
	return r.opts.Timeout.Tool
}

// withToolTimeout bounds a tool call by d (no bound when d <= 0).
func withToolTimeout(ctx context.Context, d time.Duration, name string) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, &TimeoutError{Limit: "Tool", ToolName: name, Duration: d})
}

// encodeOutput returns the JSON of a tool's output for the model, or a
// *ToolOutputError when it has none. Strings need none: they are sent as
// text. Raw JSON is checked and compacted.
func encodeOutput(name string, v any) (raw json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			raw, err = nil, &ToolOutputError{ToolName: name, Panic: p}
		}
	}()
	switch v := v.(type) {
	case string:
		return nil, nil
	case nil:
		return json.RawMessage("null"), nil
	case json.RawMessage:
		if len(v) == 0 {
			return json.RawMessage("null"), nil
		}
		compact, ok := rawjson.Compact(v)
		if !ok {
			return nil, &ToolOutputError{ToolName: name, Cause: errors.New("the raw JSON output is not valid JSON")}
		}
		return compact, nil
	case ToolSearchResult:
		return searchOutput(v), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &ToolOutputError{ToolName: name, Cause: err}
	}
	return b, nil
}

// modelOutput converts a client tool result or error for the model. call
// is the result's call, whose decoded input ToModelOutput receives; rec,
// when set, stores the output.
func (r *run) modelOutput(ctx context.Context, p ContentPart, call *ToolCall) (ToolResultOutput, error) {
	switch p := p.(type) {
	case ToolError:
		return ErrorTextOutput{Value: errorText(p.Error)}, nil
	case ToolResult:
		if t, ok := r.idx.get(p.ToolName); ok {
			if f := t.core().toModelOutput; f != nil {
				var out ToolResultOutput
				err := guard(*call, func() error {
					var err error
					out, err = f(ctx, p.ToolCallID, call.value, p.Output)
					return err
				})
				if err == nil && out == nil {
					out = defaultModelOutput(p)
				}
				return out, err
			}
		}
		return defaultModelOutput(p), nil
	}
	return nil, fmt.Errorf("no model output for %T", p)
}

// defaultModelOutput sends strings as text and anything else as JSON.
func defaultModelOutput(p ToolResult) ToolResultOutput {
	if s, ok := p.Output.(string); ok {
		return TextOutput{Value: s}
	}
	if p.outputJSON != nil {
		return JSONOutput{Value: p.outputJSON}
	}
	raw, err := encodeOutput(p.ToolName, p.Output)
	if err != nil {
		return ErrorTextOutput{Value: err.Error()}
	}
	return JSONOutput{Value: raw}
}

func init() { effect.RunTool = runToolElsewhere }

// runToolElsewhere runs one call of a tool outside a generation, for a
// runtime that executes tools in another process: the call's input was
// validated by the generation, so it is only decoded here.
func runToolElsewhere(ctx context.Context, tool any, ec effect.Call) (json.RawMessage, error) {
	t, ok := tool.(Tool)
	if !ok || t == nil {
		return nil, fmt.Errorf("ai: %T is not a tool", tool)
	}
	c := t.core()
	value, err := c.decode(ec.Input)
	if err != nil {
		return nil, &InvalidToolInputError{ToolName: ec.ToolName, ToolInput: string(ec.Input), Cause: &TypeValidationError{Value: ec.Input, Cause: err}}
	}
	r := &run{opts: &GenerateTextOptions{}, eff: localEffects{}}
	s := &step{number: ec.Step, ctx: ctx, cancel: func() {}}
	s.tools = &s.toolsVal
	e := &stepEntry{name: ec.ToolName, tool: t}
	call := ToolCall{ToolCallID: ec.ToolCallID, ToolName: ec.ToolName, Input: ec.Input, value: value}
	out, err := r.invokeTool(ctx, s, e, &call, ToolExecutionOptions{ToolCallID: ec.ToolCallID}, nil)
	if err != nil {
		return nil, err
	}
	raw, err := encodeOutput(ec.ToolName, out)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		// A string output.
		return json.Marshal(out)
	}
	return raw, nil
}

// RunsHere reports whether t runs in this program (it has an Execute). A tool without one is run by the client of the
// generation, which hands its result back in the messages; a
// provider-executed tool is run by the provider.
func RunsHere(t Tool) bool { return t.core().executable() }

// ModelOutput converts a tool result kept as JSON (for example in a chat
// client's history) for the model, as the loop converts a fresh one: the
// input and output are decoded into the tool's types and handed to its
// ToModelOutput; without one, a string output is sent as text and anything
// else as JSON.
func ModelOutput(ctx context.Context, t Tool, toolCallID string, input, output json.RawMessage) (ToolResultOutput, error) {
	if t == nil {
		return nil, errors.New("ai: ModelOutput needs a tool")
	}
	c := t.core()
	if len(output) == 0 {
		output = json.RawMessage("null")
	}
	if c.toModelOutput == nil || c.decodeOutput == nil {
		return storedModelOutput(output), nil
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	in, err := c.decode(input)
	if err != nil {
		return nil, &InvalidToolInputError{ToolInput: string(input), Cause: &TypeValidationError{Value: input, Cause: err}}
	}
	out, err := c.decodeOutput(output)
	if err != nil {
		return nil, &TypeValidationError{Value: output, Context: "tool output", Cause: err}
	}
	var mo ToolResultOutput
	err = guard(ToolCall{ToolCallID: toolCallID}, func() error {
		var err error
		mo, err = c.toModelOutput(ctx, toolCallID, in, out)
		return err
	})
	if err != nil {
		return nil, err
	}
	if mo == nil {
		return storedModelOutput(output), nil
	}
	return mo, nil
}

// storedModelOutput is the default model output of a result kept as JSON.
func storedModelOutput(output json.RawMessage) ToolResultOutput {
	var s string
	if json.Unmarshal(output, &s) == nil {
		return TextOutput{Value: s}
	}
	return JSONOutput{Value: output}
}
