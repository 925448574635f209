package ai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aisdkgo/ai/provider"
)

// run is the state of one GenerateText or StreamText call. It is the one
// step engine: both entry points prepare steps, parse and validate tool
// calls, decide approvals, execute tools and build messages through it.
type run struct {
	ctx    context.Context
	cancel context.CancelFunc
	opts   *GenerateTextOptions
	stream bool

	idx            *toolIndex
	routing        *routing
	searchRelevant bool
	discovery      discovery

	instructions   []SystemMessage
	messages       []Message // the next step's input messages
	toolsContext   map[string]any
	runtimeContext map[string]any

	steps            []*StepResult
	responseMessages []Message
	lastDefs         []provider.Tool // the previous step's tool definitions
	usage            usageSum
	newID            func() string
}

// newRun checks the options and sets up the per-call state. Errors here are
// returned before any model call.
func newRun(ctx context.Context, opts *GenerateTextOptions, stream bool) (*run, error) {
	if err := validateOptions(opts); err != nil {
		return nil, err
	}
	r := &run{opts: opts, stream: stream, toolsContext: opts.ToolsContext, runtimeContext: opts.RuntimeContext,
		steps: make([]*StepResult, 0, 4)}
	r.idx = indexOf(opts.Tools)
	if r.idx.err != nil {
		return nil, r.idx.err
	}
	var err error
	if r.routing, err = resolveRouting(r.idx, opts.ToolCallers); err != nil {
		return nil, err
	}
	if r.searchRelevant, err = checkSearchEligibility(r.idx, r.routing); err != nil {
		return nil, err
	}
	r.newID = opts.GenerateID
	if r.newID == nil {
		r.newID = randomID
	}
	if opts.Timeout.Total > 0 {
		r.ctx, r.cancel = context.WithTimeout(ctx, opts.Timeout.Total)
	} else {
		r.ctx, r.cancel = ctx, func() {}
	}
	return r, nil
}

func (r *run) close() { r.cancel() }

func validateOptions(o *GenerateTextOptions) error {
	if o.Model == nil {
		return &InvalidArgumentError{Parameter: "Model", Message: "a model is required"}
	}
	if o.ToolCallConcurrency < 0 {
		return &InvalidArgumentError{Parameter: "ToolCallConcurrency", Message: "must be >= 1, or 0 for no bound"}
	}
	if o.MaxOutputTokens != nil && *o.MaxOutputTokens < 1 {
		return &InvalidArgumentError{Parameter: "MaxOutputTokens", Message: "must be >= 1"}
	}
	if o.MaxRetries != nil && *o.MaxRetries < 0 {
		return &InvalidArgumentError{Parameter: "MaxRetries", Message: "must be >= 0"}
	}
	return nil
}

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func randomID() string {
	var b [30]byte
	copy(b[:], "aitxt-")
	// Each 64-bit random number yields ten characters of the 62-letter
	// alphabet (62^10 < 2^64); the slight bias is irrelevant for ids.
	var v uint64
	for i := 6; i < len(b); i++ {
		if (i-6)%10 == 0 {
			v = rand.Uint64()
		}
		b[i] = idAlphabet[v%uint64(len(idAlphabet))]
		v /= uint64(len(idAlphabet))
	}
	return string(b[:])
}

// standardizePrompt turns the instructions and prompt options into the
// initial messages.
func (r *run) standardizePrompt() error {
	o := r.opts
	if o.Instructions != "" {
		r.instructions = append(r.instructions, SystemMessage{Content: o.Instructions})
	}
	r.instructions = append(r.instructions, o.InstructionMessages...)
	switch {
	case o.Prompt != "" && o.Messages != nil:
		return &InvalidPromptError{Message: "set Prompt or Messages, not both"}
	case o.Prompt != "":
		r.messages = []Message{UserText(o.Prompt)}
	case o.Messages == nil:
		return &InvalidPromptError{Message: "a Prompt or Messages is required"}
	case len(o.Messages) == 0:
		return &InvalidPromptError{Message: "Messages must not be empty"}
	default:
		if !o.AllowSystemInMessages {
			for _, m := range o.Messages {
				if _, ok := m.(SystemMessage); ok {
					return &InvalidPromptError{Message: "system messages are not allowed in Messages; use Instructions, or set AllowSystemInMessages"}
				}
			}
		}
		r.messages = slices.Clip(o.Messages)
	}
	return nil
}

// step is the state of one step in progress.
type step struct {
	number   int
	model    provider.LanguageModel
	tools    *stepTools
	toolsVal stepTools
	messages []Message // the step's input messages (with caller messages), clipped
	grow     []Message // the same messages, with room to append the response
	call     provider.CallOptions
	ctx      context.Context
	cancel   context.CancelFunc
	contexts map[string]ctxResult // validated tool contexts, per tool
	mu       sync.Mutex
	// prelim, when set, receives preliminary results (streaming).
	prelim func(call ToolCall, value any)
}

type ctxResult struct {
	value any
	err   error
}

// prepare runs PrepareStep and builds the step's tools, messages and call
// options.
func (r *run) prepare() (*step, error) {
	n := len(r.steps)
	if n > 0 {
		if err := r.ctx.Err(); err != nil {
			return nil, context.Cause(r.ctx)
		}
	}
	o := r.opts
	s := &step{number: n, model: o.Model}
	var p *PrepareStepResult
	if o.PrepareStep != nil {
		var err error
		p, err = callPrepareStep(r.ctx, o.PrepareStep, PrepareStepOptions{
			StepNumber:       n,
			Steps:            r.steps,
			Model:            o.Model,
			Messages:         slices.Clip(r.messages),
			ResponseMessages: slices.Clip(r.responseMessages),
			Instructions:     r.instructions,
			ToolsContext:     r.toolsContext,
			RuntimeContext:   r.runtimeContext,
			Sandbox:          o.Sandbox,
		})
		if err != nil {
			return nil, err
		}
	}
	if p == nil {
		p = &PrepareStepResult{}
	}
	if p.Model != nil {
		s.model = p.Model
	}
	if p.Instructions != nil {
		r.instructions = p.Instructions
	}
	if p.Messages != nil {
		r.messages = slices.Clip(p.Messages)
	}
	if p.ToolsContext != nil {
		r.toolsContext = p.ToolsContext
	}
	if p.RuntimeContext != nil {
		r.runtimeContext = p.RuntimeContext
	}
	choice := o.ToolChoice
	if p.ToolChoice != nil {
		choice = *p.ToolChoice
	}
	active, activeSet := o.ActiveTools, o.ActiveTools != nil
	if p.ActiveTools != nil {
		active, activeSet = p.ActiveTools, true
	}
	order := o.ToolOrder
	if p.ToolOrder != nil {
		order = p.ToolOrder
	}
	sandbox := o.Sandbox
	if p.Sandbox != nil {
		sandbox = p.Sandbox
	}
	s.tools = &s.toolsVal
	if err := r.prepareTools(s.tools, active, activeSet, order, choice, r.toolsContext, sandbox); err != nil {
		return nil, err
	}
	tools := s.tools
	s.grow = appendCallerMessages(r.messages, tools.callerMessages)
	// Tools and callbacks get a clipped view, so an append of theirs never
	// writes into the conversation.
	s.messages = slices.Clip(s.grow)
	prompt, err := toPrompt(r.instructions, s.messages)
	if err != nil {
		return nil, err
	}
	s.call = provider.CallOptions{
		Prompt:           prompt,
		MaxOutputTokens:  or(p.MaxOutputTokens, o.MaxOutputTokens),
		Temperature:      or(p.Temperature, o.Temperature),
		TopP:             or(p.TopP, o.TopP),
		TopK:             or(p.TopK, o.TopK),
		PresencePenalty:  or(p.PresencePenalty, o.PresencePenalty),
		FrequencyPenalty: or(p.FrequencyPenalty, o.FrequencyPenalty),
		Seed:             or(p.Seed, o.Seed),
		StopSequences:    o.StopSequences,
		Tools:            tools.defs,
		ToolChoice:       tools.choice,
		IncludeRawChunks: o.IncludeRawChunks,
		Headers:          o.Headers,
		Reasoning:        o.Reasoning,
		ProviderOptions:  mergeOptions(o.ProviderOptions, p.ProviderOptions),
	}
	if p.StopSequences != nil {
		s.call.StopSequences = p.StopSequences
	}
	if o.Timeout.Step > 0 {
		s.ctx, s.cancel = context.WithTimeout(r.ctx, o.Timeout.Step)
	} else {
		s.ctx, s.cancel = r.ctx, func() {}
	}
	if o.OnStepStart != nil {
		callback("OnStepStart", func() {
			o.OnStepStart(StepStartEvent{StepNumber: n, Prompt: prompt, Tools: tools.defs, ToolChoice: tools.choice})
		})
	}
	return s, nil
}

func or[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

func callPrepareStep(ctx context.Context, f func(context.Context, PrepareStepOptions) (*PrepareStepResult, error), p PrepareStepOptions) (res *PrepareStepResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &CallbackPanicError{Callback: "PrepareStep", Panic: v}
		}
	}()
	return f(ctx, p)
}

// callback runs an observer callback; its panics are swallowed so that an
// observer cannot break a generation.
func callback(name string, f func()) {
	defer func() { _ = recover() }()
	f()
}

// appendCallerMessages adds the caller tools' catalog messages to the step
// messages, skipping a text equal to the latest plain user text (or to one
// already added).
func appendCallerMessages(messages []Message, texts []string) []Message {
	if len(texts) == 0 {
		return messages
	}
	latest, hasLatest := "", false
	for i := len(messages) - 1; i >= 0; i-- {
		if u, ok := messages[i].(UserMessage); ok {
			if t, ok := plainText(u); ok {
				latest, hasLatest = t, true
				break
			}
		}
	}
	var added []string
	out := messages
	for _, t := range texts {
		if hasLatest && t == latest || slices.Contains(added, t) {
			continue
		}
		added = append(added, t)
		out = append(slices.Clip(out), UserText(t))
	}
	return out
}

// plainText reports the text of a user message made of a single text part
// without provider options.
func plainText(u UserMessage) (string, bool) {
	if len(u.Content) != 1 || u.ProviderOptions != nil {
		return "", false
	}
	t, ok := u.Content[0].(TextPart)
	if !ok || t.ProviderOptions != nil {
		return "", false
	}
	return t.Text, true
}

// generate drives GenerateText.
func (r *run) generate() (*GenerateTextResult, error) {
	if err := r.standardizePrompt(); err != nil {
		return nil, err
	}
	if err := r.resume(nil); err != nil {
		return nil, err
	}
	for {
		s, err := r.prepare()
		if err != nil {
			return nil, err
		}
		more, err := r.generateStep(s)
		s.cancel()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
	}
	return r.result(), nil
}

func (r *run) result() *GenerateTextResult {
	res := &GenerateTextResult{Steps: slices.Clip(r.steps), Usage: r.usage.usage(), ResponseMessages: slices.Clip(r.responseMessages)}
	if last := res.FinalStep(); last != nil {
		res.Text = last.Text()
		res.FinishReason = last.FinishReason
		res.RawFinishReason = last.RawFinishReason
	}
	return res
}

// generateStep runs one non-streaming step and reports whether to go on.
func (r *run) generateStep(s *step) (bool, error) {
	res, err := r.callModel(s.ctx, func(ctx context.Context) (*provider.GenerateResult, error) {
		return s.model.Generate(ctx, &s.call)
	})
	if err != nil {
		return false, err
	}

	content := make([]ContentPart, 0, 2*len(res.Content)+1)
	var calls []ToolCall
	for _, c := range res.Content {
		switch c := c.(type) {
		case provider.ToolCall:
			call := r.parseCall(s, c)
			if calls == nil {
				calls = make([]ToolCall, 0, len(res.Content))
			}
			calls = append(calls, call)
			content = append(content, call)
		case provider.ToolResult:
			out, err := r.providerResult(c, calls, s)
			if err != nil {
				return false, err
			}
			content = append(content, out)
		case provider.ToolApprovalRequest:
			i := slices.IndexFunc(calls, func(tc ToolCall) bool { return tc.ToolCallID == c.ToolCallID })
			if i < 0 {
				return false, &ToolCallNotFoundForApprovalError{ToolCallID: c.ToolCallID, ApprovalID: c.ApprovalID}
			}
			content = append(content, ToolApprovalRequest{ApprovalID: c.ApprovalID, ToolCall: calls[i]})
		case nil:
		default:
			content = append(content, c.(ContentPart))
		}
	}
	finish := res.FinishReason
	if err := checkToolChoice(s, calls, finish.Unified, s.model); err != nil {
		return false, err
	}

	// Input callbacks and approval decisions, one call at a time in order.
	var requests []ContentPart
	var responses []ContentPart
	blocked := map[string]bool{}
	autoApproved := map[string]bool{}
	for _, call := range calls {
		if call.Invalid || !s.tools.exec {
			continue
		}
		e, ok := s.tools.execTool(call.ToolName)
		if !ok {
			continue
		}
		if err := r.inputCallbacks(s, e, call); err != nil {
			return false, err
		}
		req, resp, err := r.decideApproval(s, e, call)
		if err != nil {
			return false, err
		}
		if req == nil {
			continue
		}
		requests = append(requests, *req)
		switch {
		case resp == nil:
			blocked[call.ToolCallID] = true
		case resp.Approved:
			responses = append(responses, *resp)
			autoApproved[call.ToolCallID] = true
		default:
			responses = append(responses, *resp)
			blocked[call.ToolCallID] = true
		}
	}

	// Outputs: errors of invalid calls, then executions.
	var outputs []ContentPart
	for _, call := range calls {
		if call.Invalid && !call.ProviderExecuted {
			outputs = append(outputs, invalidCallError(call))
		}
	}
	var toRun []ToolCall
	if s.tools.exec && (finish.Unified == FinishStop || finish.Unified == FinishToolCalls) {
		toRun = runnable(calls, blocked)
	}
	executed, err := r.executeAll(s, toRun, s.messages, nil)
	if err != nil {
		return false, err
	}
	content = append(content, outputs...)
	for _, out := range executed {
		if out != nil && !autoApproved[callIDOf(out)] {
			content = append(content, out)
		}
	}
	content = append(content, requests...)
	content = append(content, responses...)
	for _, out := range executed {
		if out != nil && autoApproved[callIDOf(out)] {
			content = append(content, out)
		}
	}

	return r.finishStep(s, content, res.FinishReason, res.Usage, res.Warnings, res.ProviderMetadata, res.Request, res.Response)
}

// runnable returns the calls that may execute: valid, not run by the
// provider, not blocked by approval. It returns calls itself when all are.
func runnable(calls []ToolCall, blocked map[string]bool) []ToolCall {
	ok := func(c ToolCall) bool { return !c.Invalid && !c.ProviderExecuted && !blocked[c.ToolCallID] }
	all := true
	for _, c := range calls {
		if !ok(c) {
			all = false
			break
		}
	}
	if all {
		return calls
	}
	var out []ToolCall
	for _, c := range calls {
		if ok(c) {
			out = append(out, c)
		}
	}
	return out
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

// finishStep records a step, builds its messages and decides whether the
// generation goes on.
func (r *run) finishStep(s *step, content []ContentPart, finish provider.FinishReason, usage provider.Usage, warnings []provider.Warning, meta ProviderMetadata, req *provider.RequestInfo, resp *provider.ResponseInfo) (bool, error) {
	msgs, err := r.responseMessagesFor(s, content)
	if err != nil {
		return false, err
	}
	sr := &StepResult{
		StepNumber:       s.number,
		Provider:         s.model.Provider(),
		ModelID:          s.model.ModelID(),
		Content:          content,
		FinishReason:     finish.Unified,
		RawFinishReason:  finish.Raw,
		Usage:            usageFrom(usage),
		Warnings:         warnings,
		Request:          req,
		ProviderMetadata: meta,
		ToolsContext:     r.toolsContext,
	}
	if resp != nil {
		sr.Response = ResponseInfo{ID: resp.ID, Timestamp: resp.Timestamp, ModelID: resp.ModelID, Headers: resp.Headers}
	}
	if sr.Response.ID == "" {
		sr.Response.ID = r.newID()
	}
	if sr.Response.Timestamp.IsZero() {
		sr.Response.Timestamp = time.Now()
	}
	if sr.Response.ModelID == "" {
		sr.Response.ModelID = sr.ModelID
	}
	sr.Response.Messages = msgs
	r.steps = append(r.steps, sr)
	r.usage.add(sr.Usage)
	r.responseMessages = append(r.responseMessages, msgs...)
	r.messages = append(s.grow, msgs...)
	if f := r.opts.OnStepEnd; f != nil {
		callback("OnStepEnd", func() { f(sr) })
	}
	return r.shouldContinue(sr)
}

// shouldContinue applies the continuation rules after a step.
func (r *run) shouldContinue(sr *StepResult) (bool, error) {
	if sr.FinishReason == FinishInterrupted {
		return false, nil
	}
	clientCalls, outputs, denied := 0, 0, 0
	pendingDeferred := false
	for _, p := range sr.Content {
		switch p := p.(type) {
		case ToolCall:
			if !p.ProviderExecuted {
				clientCalls++
			}
		case ToolResult:
			if !p.ProviderExecuted {
				outputs++
			}
		case ToolError:
			if !p.ProviderExecuted {
				outputs++
			}
		case ToolApprovalResponse:
			if !p.Approved {
				denied++
			}
		}
	}
	if clientCalls == 0 {
		pendingDeferred = r.pendingDeferredResults()
	}
	if outputs+denied != clientCalls {
		return false, nil
	}
	if clientCalls == 0 && !pendingDeferred {
		return false, nil
	}
	stop := r.opts.StopWhen
	if stop == nil {
		stop = StepCountIs(1)
	}
	done, err := callStop(r.ctx, stop, r.steps)
	if err != nil {
		return false, err
	}
	return !done, nil
}

// pendingDeferredResults reports provider-executed calls of tools that
// deliver results later and have no result yet.
func (r *run) pendingDeferredResults() bool {
	pending := map[string]bool{}
	for _, s := range r.steps {
		for _, p := range s.Content {
			switch p := p.(type) {
			case ToolCall:
				if p.ProviderExecuted {
					if t, ok := r.idx.get(p.ToolName); ok {
						if pt, ok := t.(*ProviderTool); ok && pt.supportsDeferredResults {
							pending[p.ToolCallID] = true
						}
					}
				}
			case ToolResult:
				delete(pending, p.ToolCallID)
			case ToolError:
				delete(pending, p.ToolCallID)
			}
		}
	}
	return len(pending) > 0
}

func callStop(ctx context.Context, stop StopCondition, steps []*StepResult) (done bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &CallbackPanicError{Callback: "StopWhen", Panic: v}
		}
	}()
	return stop(ctx, steps)
}

// parseCall turns a provider tool call into a validated ToolCall, or an
// invalid one, repairing it when a repair function is set.
func (r *run) parseCall(s *step, pc provider.ToolCall) ToolCall {
	call, err := r.parseOnce(s, pc)
	if err == nil {
		return call
	}
	if r.opts.RepairToolCall != nil && s.tools.exec {
		var nst *NoSuchToolError
		var iti *InvalidToolInputError
		if errors.As(err, &nst) || errors.As(err, &iti) {
			fixed, rerr := r.repair(s, pc, err)
			switch {
			case rerr != nil:
				err = &ToolCallRepairError{OriginalError: err, Cause: rerr}
			case fixed != nil:
				pc.ToolName = fixed.ToolName
				pc.Input = fixed.Input
				call, err = r.parseOnce(s, pc)
				if err == nil {
					return call
				}
			}
		}
	}
	return r.invalidCall(s, pc, err)
}

func (r *run) repair(s *step, pc provider.ToolCall, cause error) (fixed *RepairedCall, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &CallbackPanicError{Callback: "RepairToolCall", Panic: v}
		}
	}()
	return r.opts.RepairToolCall(s.ctx, RepairRequest{
		ToolCallID:   pc.ToolCallID,
		ToolName:     pc.ToolName,
		Input:        pc.Input,
		Err:          cause,
		Tools:        s.tools.modelTools(),
		Messages:     s.messages,
		Instructions: r.instructions,
	})
}

// parseOnce looks the tool up among the tools the model saw and validates
// the input.
func (r *run) parseOnce(s *step, pc provider.ToolCall) (ToolCall, error) {
	text := strings.TrimSpace(pc.Input)
	if text == "" {
		text = "{}"
	}
	if s.tools.none {
		if pc.ProviderExecuted && pc.Dynamic {
			return dynamicProviderCall(pc, text), nil
		}
		return ToolCall{}, &NoSuchToolError{ToolName: pc.ToolName}
	}
	e, ok := s.tools.modelTool(pc.ToolName)
	if !ok {
		if pc.ProviderExecuted && pc.Dynamic {
			return dynamicProviderCall(pc, text), nil
		}
		return ToolCall{}, &NoSuchToolError{ToolName: pc.ToolName, AvailableTools: s.tools.modelToolNames()}
	}
	c := e.tool.core()
	raw, value, err := c.parseInput(pc.ToolName, pc.Input)
	if err != nil {
		return ToolCall{}, err
	}
	return ToolCall{
		ToolCallID:       pc.ToolCallID,
		ToolName:         pc.ToolName,
		Input:            raw,
		ProviderExecuted: pc.ProviderExecuted,
		Dynamic:          e.tool.Kind() == DynamicKind,
		Title:            c.title,
		ToolMetadata:     c.metadata,
		ProviderMetadata: pc.ProviderMetadata,
		value:            value,
	}, nil
}

// parseInput turns a call's input text into validated JSON and the value the
// tool's callbacks receive. Empty input counts as {}. It is the one place
// where tool input is checked, for direct calls, resumed approvals and calls
// made by caller tools alike.
func (c *toolCore) parseInput(name, input string) (json.RawMessage, any, error) {
	text := strings.TrimSpace(input)
	if text == "" {
		text = "{}"
	}
	raw := json.RawMessage(text)
	if err := parseJSON(raw); err != nil {
		return nil, nil, &InvalidToolInputError{ToolName: name, ToolInput: input, Cause: &JSONParseError{Text: text, Cause: err}}
	}
	if err := c.input.validate(raw); err != nil {
		return nil, nil, &InvalidToolInputError{ToolName: name, ToolInput: input, Cause: &TypeValidationError{Value: raw, Cause: err}}
	}
	value, err := c.decode(raw)
	if err != nil {
		return nil, nil, &InvalidToolInputError{ToolName: name, ToolInput: input, Cause: &TypeValidationError{Value: raw, Cause: err}}
	}
	return raw, value, nil
}

func dynamicProviderCall(pc provider.ToolCall, text string) ToolCall {
	input := json.RawMessage(text)
	if !json.Valid(input) {
		input, _ = json.Marshal(text)
	}
	return ToolCall{
		ToolCallID:       pc.ToolCallID,
		ToolName:         pc.ToolName,
		Input:            input,
		ProviderExecuted: true,
		Dynamic:          true,
		ProviderMetadata: pc.ProviderMetadata,
	}
}

// invalidCall records a call that could not be parsed. Its input is the
// parsed JSON when the text parses, else the text as a JSON string.
func (r *run) invalidCall(s *step, pc provider.ToolCall, err error) ToolCall {
	input := json.RawMessage(strings.TrimSpace(pc.Input))
	if !json.Valid(input) {
		input, _ = json.Marshal(pc.Input)
	}
	call := ToolCall{
		ToolCallID:       pc.ToolCallID,
		ToolName:         pc.ToolName,
		Input:            input,
		ProviderExecuted: pc.ProviderExecuted,
		Dynamic:          true,
		Invalid:          true,
		Error:            err,
		ProviderMetadata: pc.ProviderMetadata,
	}
	if e, ok := s.tools.modelTool(pc.ToolName); ok {
		call.Title = e.tool.core().title
		call.ToolMetadata = e.tool.core().metadata
	}
	return call
}

func invalidCallError(call ToolCall) ToolError {
	return ToolError{
		ToolCallID:       call.ToolCallID,
		ToolName:         call.ToolName,
		Input:            call.Input,
		Error:            call.Error,
		Dynamic:          true,
		ToolMetadata:     call.ToolMetadata,
		ProviderMetadata: call.ProviderMetadata,
	}
}

// providerResult converts the result of a provider-executed call.
// providerResult converts the result of a provider-executed call. Its input
// is the call's; in a stream the dynamic flag is the provider's alone, in a
// non-streaming step the call's. A result whose call is not in the step is
// an error in a non-streaming step, unless the tool delivers results later
// (then it has no input).
func (r *run) providerResult(c provider.ToolResult, calls []ToolCall, s *step) (ContentPart, error) {
	var input json.RawMessage
	dynamic := c.Dynamic
	var meta map[string]any
	if i := slices.IndexFunc(calls, func(tc ToolCall) bool { return tc.ToolCallID == c.ToolCallID }); i >= 0 {
		input = calls[i].Input
		meta = calls[i].ToolMetadata
		if !r.stream {
			dynamic = calls[i].Dynamic
		}
	} else if !r.stream {
		t, _ := r.idx.get(c.ToolName)
		pt, ok := t.(*ProviderTool)
		if !ok || !pt.supportsDeferredResults {
			return nil, fmt.Errorf("the provider returned a result for tool call %s, which is not in the response", c.ToolCallID)
		}
		meta = pt.c.metadata
	}
	if c.IsError {
		return ToolError{
			ToolCallID: c.ToolCallID, ToolName: c.ToolName, Input: input,
			Error: &ProviderToolError{Value: c.Result}, ProviderExecuted: true, Dynamic: dynamic,
			ToolMetadata: meta, ProviderMetadata: c.ProviderMetadata,
		}, nil
	}
	return ToolResult{
		ToolCallID: c.ToolCallID, ToolName: c.ToolName, Input: input, Output: c.Result,
		ProviderExecuted: true, Dynamic: dynamic, Preliminary: c.Preliminary,
		ToolMetadata: meta, ProviderMetadata: c.ProviderMetadata,
	}, nil
}

// ProviderToolError is the error of a provider-executed tool call: the
// provider's JSON description of the failure.
type ProviderToolError struct {
	Value json.RawMessage
}

// Error implements the error interface.
func (e *ProviderToolError) Error() string { return string(e.Value) }

// checkToolChoice enforces a none, required or specific tool choice.
func checkToolChoice(s *step, calls []ToolCall, finish FinishReason, model provider.LanguageModel) error {
	choice := s.tools.choice
	var violated bool
	switch choice.Type {
	case ToolChoiceNone:
		violated = len(calls) > 0
	case ToolChoiceRequired:
		violated = len(calls) == 0 && finish != FinishInterrupted
	case ToolChoiceTool:
		violated = finish != FinishInterrupted && !slices.ContainsFunc(calls, func(c ToolCall) bool { return c.ToolName == choice.ToolName })
	}
	if !violated {
		return nil
	}
	return &ToolChoiceViolationError{ToolChoice: choice, FinishReason: finish, Provider: model.Provider(), ModelID: model.ModelID()}
}

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

// inputCallbacks runs OnInputStart and OnInputAvailable of a call in a
// non-streaming step.
func (r *run) inputCallbacks(s *step, e *stepEntry, call ToolCall) error {
	c := e.exec.core()
	if c.onInputStart == nil && c.onInputAvailable == nil {
		return nil
	}
	tctx, err := r.toolContext(s, call.ToolName, e.exec)
	if err != nil {
		return err
	}
	opts := ToolExecutionOptions{ToolCallID: call.ToolCallID, Messages: s.messages, Context: tctx, Sandbox: s.tools.sandbox}
	if c.onInputStart != nil {
		if err := guard(call, func() error { return c.onInputStart(s.ctx, opts) }); err != nil {
			return err
		}
	}
	if c.onInputAvailable != nil {
		if err := guard(call, func() error { return c.onInputAvailable(s.ctx, call.value, opts) }); err != nil {
			return err
		}
	}
	return nil
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

// decideApproval resolves the approval status of a valid call. It returns
// nil when no approval applies; a request alone when the call waits for a
// person; a request and a response when a policy decided.
func (r *run) decideApproval(s *step, e *stepEntry, call ToolCall) (*ToolApprovalRequest, *ToolApprovalResponse, error) {
	status, err := r.approvalStatus(s, e, call, s.messages)
	if err != nil || status.Kind == ApprovalNotApplicable {
		return nil, nil, err
	}
	req := &ToolApprovalRequest{ApprovalID: r.newID(), ToolCall: call}
	switch status.Kind {
	case ApprovalRequired:
		req.Reason = status.Reason
		return req, nil, nil
	case ApprovalApproved, ApprovalDenied:
		req.IsAutomatic = true
		return req, &ToolApprovalResponse{
			ApprovalID:       req.ApprovalID,
			ToolCall:         call,
			Approved:         status.Kind == ApprovalApproved,
			Reason:           status.Reason,
			ProviderExecuted: call.ProviderExecuted,
		}, nil
	}
	return nil, nil, fmt.Errorf("unknown approval kind %d", status.Kind)
}

// approvalStatus applies the approval policy to a call.
func (r *run) approvalStatus(s *step, e *stepEntry, call ToolCall, messages []Message) (status ApprovalStatus, err error) {
	ta := r.opts.ToolApproval
	c := e.exec.core()
	defer func() {
		if v := recover(); v != nil {
			err = &ToolExecutionError{ToolName: call.ToolName, ToolCallID: call.ToolCallID, Panic: v}
		}
	}()
	if ta != nil && ta.Decide != nil {
		tctx, _ := r.toolContext(s, call.ToolName, e.exec)
		return ta.Decide(s.ctx, ApprovalRequest{ToolCall: call, Messages: messages, ToolContext: tctx, RuntimeContext: r.runtimeContext})
	}
	var rule *ApprovalRule
	if ta != nil {
		if rl, ok := ta.Tools[call.ToolName]; ok {
			rule = &rl
		} else if ta.Default != nil {
			rule = ta.Default
		}
	}
	if rule != nil {
		if rule.Func == nil {
			return rule.Status, nil
		}
		tctx, err := r.toolContext(s, call.ToolName, e.exec)
		if err != nil {
			return NotApplicable, err
		}
		return rule.Func(s.ctx, call.Input, ApprovalRequest{ToolCall: call, Messages: messages, ToolContext: tctx, RuntimeContext: r.runtimeContext})
	}
	if c.needsApproval != nil {
		tctx, err := r.toolContext(s, call.ToolName, e.exec)
		if err != nil {
			return NotApplicable, err
		}
		need, err := c.needsApproval(s.ctx, call.value, ApprovalOptions{ToolCallID: call.ToolCallID, Messages: messages, Context: tctx})
		if err != nil || !need {
			return NotApplicable, err
		}
		return RequiresApproval, nil
	}
	return NotApplicable, nil
}

// executeAll runs the calls (at most ToolCallConcurrency at once) and
// returns their outputs in call order; a call without an executable tool
// has a nil output. done, when set, is called with each output as it
// completes (the stream emits in completion order).
func (r *run) executeAll(s *step, calls []ToolCall, messages []Message, done func(ContentPart)) ([]ContentPart, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	outs := make([]ContentPart, len(calls))
	if len(calls) == 1 && done == nil {
		out, err := r.execute(s, calls[0], messages, nil)
		outs[0] = out
		return outs, err
	}
	limit := r.opts.ToolCallConcurrency
	if limit <= 0 || limit > len(calls) {
		limit = len(calls)
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for i, call := range calls {
		sem <- struct{}{}
		mu.Lock()
		stop := firstErr != nil
		mu.Unlock()
		if stop || s.ctx.Err() != nil {
			<-sem
			break
		}
		wg.Add(1)
		start := make(chan struct{})
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out, err := r.execute(s, call, messages, start)
			mu.Lock()
			outs[i] = out
			if err != nil && firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
			if done != nil && out != nil {
				done(out)
			}
		}()
		// Wait until the execution has fired its start callback, so that
		// starts are observed in call order.
		<-start
	}
	wg.Wait()
	return outs, firstErr
}

// execute runs one call. started, when set, is closed once the start
// callback has run (or the call turned out not to be executable).
func (r *run) execute(s *step, call ToolCall, messages []Message, started chan struct{}) (out ContentPart, err error) {
	signal := func() {
		if started != nil {
			close(started)
			started = nil
		}
	}
	defer signal()
	e, ok := s.tools.execTool(call.ToolName)
	if !ok {
		return nil, nil
	}
	c := e.exec.core()
	if c.execute == nil && c.search == nil {
		return nil, nil
	}
	tctx, err := r.toolContext(s, call.ToolName, e.exec)
	if err != nil {
		return nil, err
	}
	if f := r.opts.OnToolExecutionStart; f != nil {
		callback("OnToolExecutionStart", func() {
			f(ToolExecutionStartEvent{StepNumber: s.number, ToolCall: call, Messages: messages, Context: tctx})
		})
	}
	signal()
	ctx := s.ctx
	if d := r.toolTimeout(call.ToolName); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	began := time.Now()
	opts := ToolExecutionOptions{ToolCallID: call.ToolCallID, Messages: messages, Context: tctx, Sandbox: s.tools.sandbox}
	var output any
	var execErr error
	if c.search != nil {
		output, execErr = r.runSearch(ctx, s, call, c.search)
	} else {
		output, execErr = runTool(ctx, c, call, opts, s.preliminary(call))
	}
	if f := r.opts.OnToolExecutionEnd; f != nil {
		callback("OnToolExecutionEnd", func() {
			f(ToolExecutionEndEvent{StepNumber: s.number, ToolCall: call, Output: output, Err: execErr, Duration: time.Since(began)})
		})
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
	}, nil
}

func (r *run) runSearch(ctx context.Context, s *step, call ToolCall, cfg *searchConfig) (out any, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &ToolExecutionError{ToolName: call.ToolName, ToolCallID: call.ToolCallID, Panic: v}
		}
	}()
	in, _ := call.value.(searchInput)
	return r.search(ctx, s.tools, call.ToolName, cfg, in.Query)
}

// runTool calls a tool's execute function, turning a panic into an error.
func runTool(ctx context.Context, c *toolCore, call ToolCall, opts ToolExecutionOptions, preliminary func(any)) (out any, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, &ToolExecutionError{ToolName: call.ToolName, ToolCallID: call.ToolCallID, Panic: v}
		}
	}()
	return c.execute(ctx, call.value, opts, preliminary)
}

func (r *run) toolTimeout(name string) time.Duration {
	if d, ok := r.opts.Timeout.Tools[name]; ok {
		return d
	}
	return r.opts.Timeout.Tool
}

// preliminary returns the callback that streams a call's preliminary
// results, or nil when nobody listens.
func (s *step) preliminary(call ToolCall) func(any) {
	if s.prelim == nil {
		return nil
	}
	return func(v any) { s.prelim(call, v) }
}

// modelOutput converts a client tool result or error for the model. call
// is the result's call, whose decoded input ToModelOutput receives.
func (r *run) modelOutput(ctx context.Context, p ContentPart, call ToolCall) (ToolResultOutput, error) {
	switch p := p.(type) {
	case ToolError:
		return ErrorTextOutput{Value: errorText(p.Error)}, nil
	case ToolResult:
		if t, ok := r.idx.get(p.ToolName); ok {
			if f := t.core().toModelOutput; f != nil {
				var out ToolResultOutput
				err := guard(call, func() error {
					var err error
					out, err = f(ctx, p.ToolCallID, call.value, p.Output)
					return err
				})
				if err == nil && out == nil {
					out = defaultModelOutput(p.Output)
				}
				return out, err
			}
		}
		return defaultModelOutput(p.Output), nil
	}
	return nil, fmt.Errorf("no model output for %T", p)
}

// defaultModelOutput sends strings as text and anything else as JSON.
func defaultModelOutput(v any) ToolResultOutput {
	switch v := v.(type) {
	case string:
		return TextOutput{Value: v}
	case ToolSearchResult:
		return JSONOutput{Value: searchOutput(v)}
	case json.RawMessage:
		if len(v) == 0 {
			return JSONOutput{Value: json.RawMessage("null")}
		}
		return JSONOutput{Value: v}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ErrorTextOutput{Value: "the tool's output cannot be encoded as JSON: " + err.Error()}
	}
	return JSONOutput{Value: b}
}
