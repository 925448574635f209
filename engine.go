package ai

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aisdkgo/ai/internal/effect"
	"github.com/aisdkgo/ai/provider"
)

// run is the state of one generation. It is the one step engine:
// GenerateText, StreamText, Agent, resumed conversations and RunCodeMode all
// prepare steps, consume model output, decide on tool calls, execute them
// and build messages through it. Its effects (model calls, tool executions,
// concurrency, the clock, ids) go through eff.
type run struct {
	ctx    context.Context
	cancel context.CancelFunc
	opts   *GenerateTextOptions
	stream bool
	eff    effect.Effects

	idx            *toolIndex
	routing        *routing
	searchRelevant bool
	discovery      discovery

	instructions   []SystemMessage
	messages       []Message // the next step's input messages
	toolsContext   map[string]any
	runtimeContext map[string]any

	steps []*StepResult
	// responseMessages are the messages the steps added, when they are
	// not simply messages[responseFrom:] (see addMessages).
	responseMessages []Message
	responseFrom     int
	responseInline   bool
	lastDefs         []provider.Tool // the previous step's tool definitions
	prompt           promptBuilder
	usage            usageSum

	clock time.Time // the first reading of the wall clock (see now)
	// repeatSetup is set when the next step's tools and call options are
	// the last step's (see prepare).
	repeatSetup bool

	// The options, and the running step's setup and state, reused by each
	// step.
	optsVal GenerateTextOptions
	stepVal step
	srVal   stepRun

	obs *observation // what the Observer watches that is open; nil without one
	out outputState

	// paused is set when a resumed code mode program paused again: the
	// generation ends with the step that reports it.
	paused bool
}

// newRun checks the options and sets up the per-call state. Errors here are
// returned before any model call.
func newRun(ctx context.Context, o *GenerateTextOptions, stream bool) (*run, error) {
	if err := validateOptions(o); err != nil {
		return nil, err
	}
	idx := indexOf(o.Tools)
	if idx.err != nil {
		return nil, idx.err
	}
	r := &run{optsVal: *o, stream: stream, idx: idx}
	opts := &r.optsVal
	r.opts, r.toolsContext, r.runtimeContext = opts, opts.ToolsContext, opts.RuntimeContext
	var err error
	if r.routing, err = resolveRouting(r.idx, opts.ToolCallers); err != nil {
		return nil, err
	}
	if r.searchRelevant, err = checkSearchEligibility(r.idx, r.routing); err != nil {
		return nil, err
	}
	if err := checkCodeEngines(r.idx); err != nil {
		return nil, err
	}
	r.eff = effectsFor(ctx, opts.GenerateID)
	r.ctx, r.cancel = withTimeout(ctx, opts.Timeout.Total, "Total")
	return r, nil
}

// release ends a finished generation.
func (r *run) release() {
	r.cancel()
}

// effectsFor returns the effects a generation on ctx performs: those set by
// an integration, or the local ones.
func effectsFor(ctx context.Context, newID func() string) effect.Effects {
	eff := effect.From(ctx)
	if eff == nil {
		eff = localEffects{}
	}
	if newID != nil {
		eff = idEffects{eff, newID}
	}
	return eff
}

// now returns the current time. With the local effects, the generation
// reads the wall clock once and later times are that reading plus the
// monotonic time since, which costs one clock read instead of two.
func (r *run) now() time.Time {
	if _, local := r.eff.(localEffects); !local {
		return r.eff.Now()
	}
	if r.clock.IsZero() {
		r.clock = time.Now()
		return r.clock
	}
	return r.clock.Add(time.Since(r.clock))
}

// newID returns a fresh id from the generation's effects.
func (r *run) newID() string {
	return r.eff.NewID()
}

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
	return checkOutput(o.Output)
}

// maxRetries returns the retry setting of model calls.
func (r *run) maxRetries() effect.Retry {
	if r.opts.MaxRetries != nil {
		return effect.Retry{Max: *r.opts.MaxRetries}
	}
	return effect.Retry{Max: defaultMaxRetries}
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
		// Room for the messages of the first steps.
		r.messages = append(make([]Message, 0, 8), UserText(o.Prompt))
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

// step is the setup of one step: its model, tools, messages and call
// options.
type step struct {
	loop     bool // false for the pseudo-steps outside the loop
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
}

type ctxResult struct {
	value any
	err   error
}

// prepare runs PrepareStep and builds the step's tools, messages and call
// options.
func (r *run) prepare() (*step, error) {
	n := len(r.steps)
	if err := r.ctx.Err(); err != nil {
		return nil, context.Cause(r.ctx)
	}
	o := r.opts
	// The step's tools and call options are set whole below; clearing the
	// rest is enough.
	s := &r.stepVal
	s.loop, s.number, s.model, s.contexts = true, n, o.Model, nil
	s.messages, s.grow, s.ctx, s.cancel = nil, nil, nil, nil
	var p *PrepareStepResult
	if o.PrepareStep != nil {
		var err error
		p, err = callPrepareStep(r.ctx, o.PrepareStep, PrepareStepOptions{
			StepNumber:       n,
			Steps:            r.steps,
			Model:            o.Model,
			Messages:         slices.Clip(r.messages),
			ResponseMessages: r.responseSoFar(),
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
		p = &noPreparation
	}
	if p.Model != nil {
		s.model = p.Model
	}
	if p.Instructions != nil {
		r.instructions = p.Instructions
	}
	if p.Messages != nil {
		if r.responseInline {
			// The response messages can no longer be read off the
			// conversation.
			r.responseMessages = slices.Clone(r.messages[r.responseFrom:])
			r.responseInline = false
		}
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
	// Without PrepareStep, deferred tools, callers or description
	// functions, a step's tools and call options are the previous step's;
	// only the prompt changes.
	repeat := r.repeatSetup
	r.repeatSetup = false
	s.tools = &s.toolsVal
	if !repeat {
		if err := r.prepareTools(s, active, activeSet, order, choice, r.toolsContext, sandbox); err != nil {
			return nil, err
		}
	}
	tools := s.tools
	s.grow = appendCallerMessages(r.messages, tools.callerMessages)
	// Tools and callbacks get a clipped view, so an append of theirs never
	// writes into the conversation.
	s.messages = slices.Clip(s.grow)
	prompt, err := r.prompt.build(r.instructions, s.messages)
	if err != nil {
		return nil, err
	}
	if repeat {
		s.call.Prompt = prompt
	} else {
		r.setCallOptions(s, p, prompt)
	}
	r.repeatSetup = o.PrepareStep == nil && !r.searchRelevant && r.routing == nil && !tools.none && r.idx.staticDefs() != nil
	s.ctx, s.cancel = withTimeout(r.ctx, o.Timeout.Step, "Step")
	if o.OnStepStart != nil {
		callback("OnStepStart", func() {
			o.OnStepStart(StepStartEvent{StepNumber: n, Prompt: prompt, Tools: tools.defs, ToolChoice: tools.choice})
		})
	}
	r.startStep(s)
	return s, nil
}

// setCallOptions sets the call options of a step from the options and
// the step's preparation.
func (r *run) setCallOptions(s *step, p *PrepareStepResult, prompt []provider.Message) {
	o, tools := r.opts, s.tools
	s.call = provider.CallOptions{
		Prompt:           prompt,
		MaxOutputTokens:  cmp.Or(p.MaxOutputTokens, o.MaxOutputTokens),
		Temperature:      cmp.Or(p.Temperature, o.Temperature),
		TopP:             cmp.Or(p.TopP, o.TopP),
		TopK:             cmp.Or(p.TopK, o.TopK),
		PresencePenalty:  cmp.Or(p.PresencePenalty, o.PresencePenalty),
		FrequencyPenalty: cmp.Or(p.FrequencyPenalty, o.FrequencyPenalty),
		Seed:             cmp.Or(p.Seed, o.Seed),
		StopSequences:    o.StopSequences,
		ResponseFormat:   responseFormatOf(o.Output),
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
}

// noPreparation is the PrepareStepResult of a step nothing changes; it is
// only read.
var noPreparation PrepareStepResult

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

// emitter receives the parts of a streaming step; emit reports false when
// the reader stopped.
type emitter interface {
	emit(p Part) bool
}

// stepRun is one step in progress: the model's output as it arrives, the
// decisions on its tool calls and their outcomes. Both entry points run
// steps through it; a streaming step adds emission (out), not a second body.
type stepRun struct {
	r   *run
	s   *step
	out emitter // nil when nothing is streamed

	content []ContentPart // in arrival order
	calls   []*callState  // the step's tool calls, in order
	states  []callState   // storage for calls; read through calls

	finish   provider.FinishReason
	usage    provider.Usage
	meta     ProviderMetadata
	warnings []Warning
	request  *provider.RequestInfo
	response provider.ResponseInfo

	// violation is set when the model ignored the tool choice: nothing
	// executes and the step finishes with an error.
	violation bool

	// result is the step's result once finishStep built it.
	result *StepResult
}

// callState is one tool call of a step and what became of it.
type callState struct {
	call ToolCall
	// entry is the tool that executes the call; nil when none does.
	entry *stepEntry
	// invalid is the tool error of an invalid client call.
	invalid *ToolError
	// request and response are the call's approval decision, if any.
	request  *ToolApprovalRequest
	response *ToolApprovalResponse
	// blocked is true when approval keeps the call from running.
	blocked bool
	// outcome is the result or error of the execution.
	outcome ContentPart
}

// newCallState returns the state of a new call of the step.
func (sr *stepRun) newCallState(call ToolCall) *callState {
	// When states grows, the calls so far stay where they are; only the
	// new one is taken from the grown storage.
	sr.states = append(sr.states, callState{call: call})
	cs := &sr.states[len(sr.states)-1]
	sr.calls = append(sr.calls, cs)
	return cs
}

// newStepRun returns the state of a step that starts running.
func (s *step) newStepRun(r *run, out emitter) *stepRun {
	sr := &r.srVal
	// The storage of calls is reused: no call of an earlier step is
	// running or referred to once its step ended.
	*sr = stepRun{r: r, s: s, out: out, calls: sr.calls[:0], states: sr.states[:0]}
	return sr
}

// emit hands a part to the reader, when there is one.
func (sr *stepRun) emit(p Part) bool {
	if sr.out == nil {
		return true
	}
	return sr.out.emit(p)
}

// streaming reports whether the step's parts are streamed.
func (sr *stepRun) streaming() bool { return sr.r.stream }

// findCall returns the state of the call with the given id.
func (sr *stepRun) findCall(id string) *callState {
	for _, c := range sr.calls {
		if c.call.ToolCallID == id {
			return c
		}
	}
	return nil
}

// toolCall records a tool call of the model: it is parsed and validated at
// once; in a stream it is also committed (input callbacks, approval) and
// emitted.
func (sr *stepRun) toolCall(pc provider.ToolCall) (bool, error) {
	call := sr.r.parseCall(sr.s, pc)
	cs := sr.newCallState(call)
	if e, ok := sr.s.tools.execTool(call.ToolName); ok {
		cs.entry = e
	}
	part := ContentPart(call)
	sr.content = append(sr.content, part)
	if !sr.streaming() {
		return true, nil
	}
	if cs.entry != nil && !call.Invalid {
		// The callback sees the input before the reader sees the call.
		if err := sr.r.inputAvailable(sr.s, cs); err != nil {
			return false, err
		}
	}
	if !sr.emit(part.(Part)) {
		return false, nil
	}
	return sr.decide(cs)
}

// commit runs the input callbacks and the approval decision of every call
// of a non-streaming step, in order, once the whole response is known.
func (sr *stepRun) commit() error {
	for _, cs := range sr.calls {
		if cs.call.Invalid || cs.entry == nil {
			continue
		}
		if err := sr.r.inputStart(sr.s, cs); err != nil {
			return err
		}
		if err := sr.r.inputAvailable(sr.s, cs); err != nil {
			return err
		}
		if _, err := sr.decide(cs); err != nil {
			return err
		}
	}
	for _, cs := range sr.calls {
		if cs.call.Invalid && !cs.call.ProviderExecuted {
			te := invalidCallError(cs.call)
			cs.invalid = &te
		}
	}
	return nil
}

// decide applies the approval policy to a call, and in a stream reports an
// invalid call's error. It reports false when the reader stopped.
func (sr *stepRun) decide(cs *callState) (bool, error) {
	call := cs.call
	if call.Invalid {
		if sr.streaming() && !call.ProviderExecuted {
			te := invalidCallError(call)
			cs.invalid = &te
			sr.content = append(sr.content, te)
			return sr.emit(te), nil
		}
		return true, nil
	}
	if cs.entry == nil {
		return true, nil
	}
	req, resp, err := sr.r.decideApproval(sr.s, cs.entry, call)
	if err != nil || req == nil {
		return true, err
	}
	cs.request, cs.response = req, resp
	cs.blocked = resp == nil || !resp.Approved
	if !sr.streaming() {
		return true, nil
	}
	sr.content = append(sr.content, *req)
	if !sr.emit(*req) {
		return false, nil
	}
	if resp == nil {
		return true, nil
	}
	sr.content = append(sr.content, *resp)
	if !sr.emit(*resp) {
		return false, nil
	}
	if !resp.Approved {
		return sr.emit(ToolOutputDenied{ToolCallID: call.ToolCallID, ToolName: call.ToolName}), nil
	}
	return true, nil
}

// providerResult records the result of a provider-executed call.
func (sr *stepRun) providerResult(c provider.ToolResult) (ContentPart, error) {
	out, err := sr.r.providerResult(c, sr.calls)
	if err != nil {
		return nil, err
	}
	sr.content = append(sr.content, out)
	return out, nil
}

// approvalRequest records the provider asking for approval of one of its
// calls.
func (sr *stepRun) approvalRequest(c provider.ToolApprovalRequest) (*ToolApprovalRequest, error) {
	cs := sr.findCall(c.ToolCallID)
	if cs == nil {
		return nil, &ToolCallNotFoundForApprovalError{ToolCallID: c.ToolCallID, ApprovalID: c.ApprovalID}
	}
	req := ToolApprovalRequest{ApprovalID: c.ApprovalID, ToolCall: cs.call}
	sr.content = append(sr.content, req)
	return &req, nil
}

// checkToolChoice enforces the step's tool choice once the model finished.
func (sr *stepRun) checkToolChoice() error {
	return checkToolChoice(sr.s, sr.calls, sr.finish.Unified, sr.s.model)
}

// runnable returns the calls that execute: valid, run here, not blocked by
// approval, and only when the model finished normally. It returns sr.calls
// itself when every call runs.
func (sr *stepRun) runnable() []*callState {
	if !sr.s.tools.exec || sr.violation {
		return nil
	}
	if f := sr.finish.Unified; f != FinishStop && f != FinishToolCalls {
		return nil
	}
	runs := func(cs *callState) bool {
		return !cs.call.Invalid && !cs.call.ProviderExecuted && !cs.blocked && cs.entry != nil && cs.entry.tool.core().executable()
	}
	n := 0
	for _, cs := range sr.calls {
		if runs(cs) {
			n++
		}
	}
	if n == len(sr.calls) {
		return sr.calls
	}
	out := make([]*callState, 0, n)
	for _, cs := range sr.calls {
		if runs(cs) {
			out = append(out, cs)
		}
	}
	return out
}

// execute runs the step's runnable calls without streaming them.
func (sr *stepRun) execute() error {
	torun := sr.runnable()
	if len(torun) == 0 {
		return nil
	}
	return settled(sr.s, torun, sr.r.executeAll(sr.s, torun, sr.s.messages, nil))
}

// assemble returns the step's content: in a stream, everything in the order
// it was streamed (executed outcomes in completion order, which the stream
// appended as they came); in a non-streaming step, the model's output, then
// the errors of invalid calls, the outcomes of executed calls in call order,
// the approval requests and responses, and last the outcomes of
// automatically approved calls.
func (sr *stepRun) assemble() []ContentPart {
	if sr.streaming() {
		return sr.content
	}
	content := sr.content
	for _, cs := range sr.calls {
		if cs.invalid != nil {
			content = append(content, *cs.invalid)
		}
	}
	for _, cs := range sr.calls {
		if cs.outcome != nil && cs.request == nil {
			content = append(content, expandOutcome(cs.outcome)...)
		}
	}
	for _, cs := range sr.calls {
		if cs.request != nil {
			content = append(content, *cs.request)
		}
	}
	for _, cs := range sr.calls {
		if cs.response != nil {
			content = append(content, *cs.response)
		}
	}
	for _, cs := range sr.calls {
		if cs.outcome != nil && cs.request != nil {
			content = append(content, cs.outcome)
		}
	}
	return content
}

// finishStep records a step, builds its messages and decides whether the
// generation goes on.
//
// The step result is built before the messages, and kept in sr.result even
// when they fail (a ToModelOutput that fails or panics), so that a stream
// reports the step's end before the error, as the reference does.
func (r *run) finishStep(s *step, sr *stepRun, content []ContentPart) (bool, error) {
	content = slices.Clip(content)
	res := sr.response
	st := &StepResult{
		StepNumber:       s.number,
		Provider:         s.model.Provider(),
		ModelID:          s.model.ModelID(),
		Content:          content,
		FinishReason:     sr.finish.Unified,
		RawFinishReason:  sr.finish.Raw,
		Warnings:         sr.warnings,
		Request:          sr.request,
		ProviderMetadata: sr.meta,
		ToolsContext:     r.toolsContext,
		Response:         ResponseInfo{ID: res.ID, Timestamp: res.Timestamp, ModelID: res.ModelID, Headers: res.Headers},
	}
	st.Usage = usageFrom(sr.usage, &st.totalTokens)
	if st.Response.ID == "" {
		st.Response.ID = r.newID()
	}
	if st.Response.Timestamp.IsZero() {
		st.Response.Timestamp = r.now()
	}
	if st.Response.ModelID == "" {
		st.Response.ModelID = st.ModelID
	}
	sr.result = st
	var buf [2]Message
	msgs, err := r.responseMessagesFor(buf[:0], s, sr.calls, content)
	if err != nil {
		return false, err
	}
	st.Response.Messages = r.addMessages(s.grow, msgs)
	if r.steps == nil {
		r.steps = make([]*StepResult, 0, 4)
	}
	r.steps = append(r.steps, st)
	r.usage.add(st.Usage)
	if f := r.opts.OnStepEnd; f != nil {
		callback("OnStepEnd", func() { f(st) })
	}
	return r.shouldContinue(st)
}

// addMessages appends the messages a step (or a resumption) added to the
// conversation, which continues from conv, and to the response messages,
// and returns them as stored in the conversation. Both grow by append, so
// a long generation copies each message a constant number of times on
// average. Slices handed out (a step's messages, a prompt, a result) are
// clipped, so an append never writes where they can see it.
//
// While each step continues the conversation the last one left (no
// PrepareStep replaced the messages), the response messages are the
// conversation's tail and are not stored apart.
func (r *run) addMessages(conv, msgs []Message) []Message {
	if len(msgs) == 0 {
		r.messages = conv
		return nil
	}
	n := len(conv)
	continues := n == len(r.messages) && (n == 0 || &conv[0] == &r.messages[0])
	switch {
	case r.responseMessages == nil && !r.responseInline && continues:
		r.responseInline, r.responseFrom = true, n
	case r.responseInline && !continues:
		r.responseMessages = slices.Clone(r.messages[r.responseFrom:])
		r.responseInline = false
	}
	conv = append(conv, msgs...)
	r.messages = conv
	if !r.responseInline {
		r.responseMessages = append(r.responseMessages, msgs...)
	}
	return slices.Clip(conv[n:])
}

// responseSoFar returns the messages the steps added so far.
func (r *run) responseSoFar() []Message {
	if r.responseInline {
		return slices.Clip(r.messages[r.responseFrom:])
	}
	return slices.Clip(r.responseMessages)
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
	if !r.idx.deferredResults {
		return false
	}
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

// textBlock is a text or reasoning block being received.
type textBlock struct {
	used      bool
	key       string // the provider's id
	reasoning bool
	index     int    // position in the step content
	id        string // id in the stream
	first     string // the text while it is a single delta
	buf       strings.Builder
	meta      ProviderMetadata
}

// add appends a delta; metadata on a delta replaces the block's. It reports
// whether the delta carried output.
func (b *textBlock) add(delta string, pm ProviderMetadata) bool {
	switch {
	case b.buf.Len() > 0:
		b.buf.WriteString(delta)
	case b.first == "":
		b.first = delta
	case delta != "":
		b.buf.WriteString(b.first)
		b.buf.WriteString(delta)
	}
	if pm != nil {
		b.meta = pm
	}
	return delta != ""
}

// text returns the block's text so far.
func (b *textBlock) text() string {
	if b.buf.Len() > 0 {
		return b.buf.String()
	}
	return b.first
}

// finish writes the block's text into its place in the step content.
func (b *textBlock) finish(content []ContentPart) {
	if b.reasoning {
		content[b.index] = Reasoning{Text: b.text(), ProviderMetadata: b.meta}
	} else {
		content[b.index] = Text{Text: b.text(), ProviderMetadata: b.meta}
	}
}

// contentFrom converts provider output the loop passes on unchanged.
func contentFrom(c provider.Content) (ContentPart, bool) {
	switch c := c.(type) {
	case provider.Text:
		return Text(c), true
	case provider.Reasoning:
		return Reasoning(c), true
	case provider.File:
		return File(c), true
	case provider.ReasoningFile:
		return ReasoningFile(c), true
	case provider.Source:
		return Source(c), true
	case provider.Custom:
		return Custom(c), true
	}
	return nil, false
}
