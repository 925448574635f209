package ai

import "context"

// DefaultAgentSteps is the step limit of an [Agent] without StopWhen.
const DefaultAgentSteps = 20

// AgentOptions configure an [Agent]: every generation setting except the
// prompt, which each call brings.
type AgentOptions struct {
	// Settings are used for every call. Settings.Prompt and
	// Settings.Messages are ignored; StopWhen defaults to
	// StepCountIs(DefaultAgentSteps).
	Settings GenerateTextOptions
	// PrepareCall, when set, may change the options of each call (after the
	// call's own values are applied) or fail it.
	PrepareCall func(ctx context.Context, opts *GenerateTextOptions) error
}

// Agent is a reusable tool-calling loop: a model, its instructions and tools,
// and the settings of the loop, configured once and called many times.
//
// An Agent holds no state between calls: each call has its own discovery
// state, so tools one call found with [ToolSearch] stay hidden in the next.
// It is safe for concurrent use.
type Agent struct {
	opts AgentOptions
}

// NewAgent returns an agent with the given options.
func NewAgent(opts AgentOptions) *Agent {
	return &Agent{opts: opts}
}

// AgentCall is one call of an [Agent]: the prompt and the per-call values.
type AgentCall struct {
	// Prompt or Messages, as in [GenerateTextOptions].
	Prompt   string
	Messages []Message
	// ToolsContext and RuntimeContext replace the agent's when set.
	ToolsContext   map[string]any
	RuntimeContext map[string]any
	// Sandbox replaces the agent's when set.
	Sandbox Sandbox
	// Timeout replaces the agent's when any of its fields is set.
	Timeout Timeout
	// OnStepEnd, OnToolExecutionStart and OnToolExecutionEnd are called
	// after the agent's own callbacks of the same name.
	OnStepEnd            func(*StepResult)
	OnToolExecutionStart func(ToolExecutionStartEvent)
	OnToolExecutionEnd   func(ToolExecutionEndEvent)
}

// Options returns a copy of the agent's settings.
func (a *Agent) Options() AgentOptions { return a.opts }

// Tools returns the agent's tools.
func (a *Agent) Tools() Tools { return a.opts.Settings.Tools }

// options merges a call into the agent's settings.
func (a *Agent) options(ctx context.Context, call AgentCall) (GenerateTextOptions, error) {
	o := a.opts.Settings
	o.Prompt, o.Messages = call.Prompt, call.Messages
	if o.StopWhen == nil {
		o.StopWhen = StepCountIs(DefaultAgentSteps)
	}
	if call.ToolsContext != nil {
		o.ToolsContext = call.ToolsContext
	}
	if call.RuntimeContext != nil {
		o.RuntimeContext = call.RuntimeContext
	}
	if call.Sandbox != nil {
		o.Sandbox = call.Sandbox
	}
	if call.Timeout.Total != 0 || call.Timeout.Step != 0 || call.Timeout.Tool != 0 || call.Timeout.Tools != nil {
		o.Timeout = call.Timeout
	}
	o.OnStepEnd = chain(o.OnStepEnd, call.OnStepEnd)
	o.OnToolExecutionStart = chain(o.OnToolExecutionStart, call.OnToolExecutionStart)
	o.OnToolExecutionEnd = chain(o.OnToolExecutionEnd, call.OnToolExecutionEnd)
	if a.opts.PrepareCall != nil {
		if err := a.opts.PrepareCall(ctx, &o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// chain calls first, then second.
func chain[T any](first, second func(T)) func(T) {
	switch {
	case first == nil:
		return second
	case second == nil:
		return first
	}
	return func(v T) {
		callback("agent callback", func() { first(v) })
		second(v)
	}
}

// Generate runs the loop like [GenerateText].
func (a *Agent) Generate(ctx context.Context, call AgentCall) (*GenerateTextResult, error) {
	o, err := a.options(ctx, call)
	if err != nil {
		return nil, err
	}
	return GenerateText(ctx, o)
}

// Stream runs the loop like [StreamText].
func (a *Agent) Stream(ctx context.Context, call AgentCall) (*StreamTextResult, error) {
	o, err := a.options(ctx, call)
	if err != nil {
		return nil, err
	}
	return StreamText(ctx, o)
}
