package ai

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/aisdkgo/ai/provider"
)

// GenerateTextOptions configure [GenerateText] and [StreamText]. Only Model
// and a prompt (Prompt or Messages) are required; every zero value means
// the default.
type GenerateTextOptions struct {
	// Model is the language model to call.
	Model provider.LanguageModel

	// Instructions are sent first, as a system message.
	Instructions string
	// InstructionMessages are sent after Instructions, one system message
	// each (use them to attach provider options, such as cache control).
	InstructionMessages []SystemMessage
	// Prompt is a single user message. Set Prompt or Messages, not both.
	Prompt string
	// Messages is the conversation so far.
	Messages []Message
	// AllowSystemInMessages permits system messages inside Messages.
	AllowSystemInMessages bool

	// Tools are the tools the model may call, in order.
	Tools Tools
	// ActiveTools limits the tools of every step to these names. Nil means
	// all tools; an empty, non-nil slice means none.
	ActiveTools []string
	// ToolChoice says whether and which tools the model should call
	// (auto when zero).
	ToolChoice ToolChoice
	// ToolOrder sends the named tools first, in this order, and the others
	// after them sorted by name. Nil keeps the order of Tools.
	ToolOrder []string
	// ToolsContext holds one value per tool name, handed to that tool's
	// callbacks and description function.
	ToolsContext map[string]any
	// RuntimeContext is an application value threaded through the whole
	// generation (PrepareStep, approval functions).
	RuntimeContext map[string]any
	// Sandbox is handed to tools and description functions.
	Sandbox Sandbox
	// ToolCallConcurrency bounds how many tool calls of one step run at
	// once; 0 means no bound.
	ToolCallConcurrency int
	// ToolApproval decides which tool calls need approval; see
	// [ToolApproval].
	ToolApproval *ToolApproval
	// ToolApprovalSecrets, when set, sign every approval request this
	// generation makes (with the first secret; see [SignToolApproval]) and
	// are required of every approval it resumes: an approved call runs only
	// when its request in Messages carries a signature that one of the
	// secrets verifies for that call's id, tool name and input. Otherwise
	// the generation fails with an [*InvalidToolApprovalSignatureError] and
	// nothing runs. Set them whenever Messages come from a client (a
	// browser, a queue): without them an approval is trusted as given.
	// More than one secret lets a secret be rotated.
	ToolApprovalSecrets [][]byte
	// ApprovalLedger, when set, is asked to claim each approval before the
	// call it approves runs on a resumed conversation; an approval claimed
	// before does not run its call again (the model gets a tool error
	// saying so). It closes the replay that signatures leave open: a client
	// that posts the same signed approval twice. See [NewApprovalLedger].
	ApprovalLedger ApprovalLedger
	// ToolCallers routes tools through caller tools such as a code mode
	// tool; see [CodeMode].
	ToolCallers []CallerRoute
	// RepairToolCall, when set, may fix a tool call that names an unknown
	// tool or has invalid input.
	RepairToolCall RepairFunc

	// StopWhen decides after each step with tool results whether to stop.
	// Nil means StepCountIs(1): a single model call.
	StopWhen StopCondition
	// PrepareStep, when set, is called before every step and may change
	// the step's model, tools, tool choice, messages and settings.
	PrepareStep func(ctx context.Context, p PrepareStepOptions) (*PrepareStepResult, error)

	// MaxRetries bounds the retries of a failed model call (nil means 2).
	// Only errors marked retryable are retried.
	MaxRetries *int
	// Timeout bounds the generation, each step and each tool call.
	Timeout Timeout
	// Headers are extra HTTP headers for the model calls.
	Headers provider.Header
	// ProviderOptions carry provider-specific settings.
	ProviderOptions ProviderOptions

	// Sampling settings, passed to the model as given when set.
	MaxOutputTokens  *int
	Temperature      *float64
	TopP             *float64
	TopK             *int
	PresencePenalty  *float64
	FrequencyPenalty *float64
	Seed             *int
	StopSequences    []string
	Reasoning        provider.ReasoningEffort

	// IncludeRawChunks asks [StreamText] to emit the provider's raw chunks.
	IncludeRawChunks bool

	// Output is what the generation produces (text when nil): its response
	// format goes with every model call, and the final step's text is
	// parsed into it; read it with [OutputOf]. See [Output].
	Output Output

	// OnStepStart is called before each model call.
	OnStepStart func(StepStartEvent)
	// OnStepEnd is called with each finished step.
	OnStepEnd func(*StepResult)
	// OnToolExecutionStart is called right before a tool executes.
	OnToolExecutionStart func(ToolExecutionStartEvent)
	// OnToolExecutionEnd is called when a tool execution ends.
	OnToolExecutionEnd func(ToolExecutionEndEvent)
	// Observer, when set, watches the generation, its steps, model calls,
	// retries and tool calls, for tracing, logging or metrics; see
	// [Observer].
	Observer Observer
	// Telemetry names the generation for its Observer: a function id and
	// metadata that package aiotel puts on spans and metrics and package
	// aislog on records. See [TelemetrySettings].
	Telemetry TelemetrySettings

	// GenerateID makes response and approval ids; tests set it to get
	// predictable ids.
	GenerateID func() string
}

// StreamTextOptions configure [StreamText]; they are the same as
// [GenerateTextOptions].
type StreamTextOptions = GenerateTextOptions

// Timeout bounds parts of a generation. Zero fields mean no bound.
type Timeout struct {
	// Total bounds the whole generation.
	Total time.Duration
	// Step bounds each step (model call and tool calls).
	Step time.Duration
	// Tool bounds each tool call.
	Tool time.Duration
	// Tools bounds the calls of individual tools, overriding Tool.
	Tools map[string]time.Duration
}

// StepStartEvent describes a step about to call the model.
type StepStartEvent struct {
	StepNumber int
	// Prompt is what the model receives.
	Prompt []provider.Message
	// Tools are the tool definitions the model receives.
	Tools      []provider.Tool
	ToolChoice ToolChoice
}

// ToolExecutionStartEvent describes a tool execution about to start.
type ToolExecutionStartEvent struct {
	StepNumber int
	ToolCall   ToolCall
	// Messages are the messages the call's step sent to the model.
	Messages []Message
	// Context is the tool's validated context.
	Context any
}

// ToolExecutionEndEvent describes a finished tool execution.
type ToolExecutionEndEvent struct {
	StepNumber int
	ToolCall   ToolCall
	// Output is the tool's result; Err is set instead when it failed.
	Output   any
	Err      error
	Duration time.Duration
}

// PrepareStepOptions describe the step about to run.
type PrepareStepOptions struct {
	StepNumber int
	// Steps are the finished steps.
	Steps []*StepResult
	Model provider.LanguageModel
	// Messages are what the step would send (after the instructions).
	Messages []Message
	// ResponseMessages are the messages generated so far.
	ResponseMessages []Message
	Instructions     []SystemMessage
	ToolsContext     map[string]any
	RuntimeContext   map[string]any
	Sandbox          Sandbox
}

// PrepareStepResult changes one step. Nil fields keep the current value.
// Model, ToolChoice, ActiveTools, ToolOrder, Sandbox, ProviderOptions and
// the sampling settings apply to this step only; Instructions, Messages,
// ToolsContext and RuntimeContext carry over to later steps.
type PrepareStepResult struct {
	Model            provider.LanguageModel
	ToolChoice       *ToolChoice
	ActiveTools      []string
	ToolOrder        []string
	Instructions     []SystemMessage
	Messages         []Message
	ToolsContext     map[string]any
	RuntimeContext   map[string]any
	Sandbox          Sandbox
	ProviderOptions  ProviderOptions
	MaxOutputTokens  *int
	Temperature      *float64
	TopP             *float64
	TopK             *int
	PresencePenalty  *float64
	FrequencyPenalty *float64
	Seed             *int
	StopSequences    []string
}

// StepResult is one finished step: one model call and the tool calls it
// asked for.
type StepResult struct {
	// StepNumber counts from 0.
	StepNumber int
	// Provider and ModelID name the model that answered.
	Provider string
	ModelID  string
	// Content is everything the step produced: the model's output with tool
	// calls parsed, then tool results, errors and approvals.
	Content []ContentPart
	// FinishReason says why the model stopped; RawFinishReason is the
	// provider's own value.
	FinishReason    FinishReason
	RawFinishReason string
	Usage           Usage
	Warnings        []Warning
	// Request and Response describe the model call.
	Request  *provider.RequestInfo
	Response ResponseInfo
	// ProviderMetadata is provider-specific data about the call.
	ProviderMetadata ProviderMetadata
	// ToolsContext is the tools context the step ran with.
	ToolsContext map[string]any

	// totalTokens holds the count Usage.TotalTokens points at when the
	// step's input and output totals are summed.
	totalTokens int
}

// ResponseInfo describes a model response.
type ResponseInfo struct {
	ID        string
	Timestamp time.Time
	ModelID   string
	Headers   provider.Header
	// Messages are the messages the step added to the conversation: the
	// assistant message and the tool message with results.
	Messages []Message
}

// Text returns the concatenated text of the step.
func (s *StepResult) Text() string {
	var first string
	n := 0
	var b strings.Builder
	for _, p := range s.Content {
		if t, ok := p.(Text); ok {
			if n == 0 {
				first = t.Text
			} else {
				if n == 1 {
					b.WriteString(first)
				}
				b.WriteString(t.Text)
			}
			n++
		}
	}
	if n <= 1 {
		return first
	}
	return b.String()
}

// ReasoningText returns the concatenated reasoning of the step.
func (s *StepResult) ReasoningText() string {
	var b strings.Builder
	for _, p := range s.Content {
		if r, ok := p.(Reasoning); ok {
			b.WriteString(r.Text)
		}
	}
	return b.String()
}

// ToolCalls returns the step's tool calls, invalid ones included.
func (s *StepResult) ToolCalls() []ToolCall { return partsOf[ToolCall](s.Content) }

// ToolResults returns the step's successful tool results.
func (s *StepResult) ToolResults() []ToolResult { return partsOf[ToolResult](s.Content) }

// ToolErrors returns the step's failed tool calls.
func (s *StepResult) ToolErrors() []ToolError { return partsOf[ToolError](s.Content) }

// ApprovalRequests returns the step's approval requests.
func (s *StepResult) ApprovalRequests() []ToolApprovalRequest {
	return partsOf[ToolApprovalRequest](s.Content)
}

func partsOf[T ContentPart](content []ContentPart) []T {
	var out []T
	for _, p := range content {
		if t, ok := p.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// GenerateTextResult is the outcome of a generation.
type GenerateTextResult struct {
	// Text is the final step's text.
	Text string
	// FinishReason and RawFinishReason are the final step's.
	FinishReason    FinishReason
	RawFinishReason string
	// Usage is the sum over all steps.
	Usage Usage
	// Steps are all steps in order.
	Steps []*StepResult
	// ResponseMessages are the messages the generation added to the
	// conversation (append them to your history to continue it).
	ResponseMessages []Message
	// ToolSearch summarises the generation's tool searches and the calls
	// of deferred tools; nil when the generation has no search tool.
	ToolSearch *SearchSummary

	output *outputValue // read with OutputOf
	// textOutput is 1 (generate) or 2 (stream) when the generation had no
	// Output: its text output is worked out when asked for.
	textOutput int8
	// usageCounts holds the counts Usage points at.
	usageCounts [8]int
}

// FinalStep returns the last step.
func (r *GenerateTextResult) FinalStep() *StepResult {
	if len(r.Steps) == 0 {
		return nil
	}
	return r.Steps[len(r.Steps)-1]
}

// Content returns the content of all steps.
func (r *GenerateTextResult) Content() []ContentPart {
	var out []ContentPart
	for _, s := range r.Steps {
		out = append(out, s.Content...)
	}
	return out
}

// ToolCalls returns the tool calls of all steps.
func (r *GenerateTextResult) ToolCalls() []ToolCall { return partsOf[ToolCall](r.Content()) }

// ToolResults returns the tool results of all steps.
func (r *GenerateTextResult) ToolResults() []ToolResult { return partsOf[ToolResult](r.Content()) }

// ToolErrors returns the failed tool calls of all steps.
func (r *GenerateTextResult) ToolErrors() []ToolError { return partsOf[ToolError](r.Content()) }

// Warnings returns the warnings of all steps.
func (r *GenerateTextResult) Warnings() []Warning {
	var out []Warning
	for _, s := range r.Steps {
		out = append(out, s.Warnings...)
	}
	return out
}

// GenerateText runs a generation: it calls the model, runs the tools it
// asks for, and calls it again with the results until a stop condition
// holds (one step by default, see [GenerateTextOptions.StopWhen]).
//
// Tool failures do not fail the generation: an unknown tool, invalid input,
// or an error or panic in a tool becomes a tool error the model sees in the
// next step. GenerateText returns an error for invalid options or an
// invalid prompt (before any model call, with a nil result), and for
// failures after the generation started: a model call that failed (after
// retries), a tool choice the model ignored, failing input callbacks or
// ToModelOutput functions, and cancellation of ctx or an expired
// [Timeout] (the error then wraps [context.Canceled] or
// [context.DeadlineExceeded]). After such a failure the result is not nil:
// it holds the steps that finished before it. A step cut short by the
// failure is not among them, so every tool call of a returned step has an
// outcome. With an [GenerateTextOptions.Output], a final text that is not
// that output is a *[NoObjectGeneratedError], returned with the full
// result.
func GenerateText(ctx context.Context, opts GenerateTextOptions) (*GenerateTextResult, error) {
	r, err := newRun(ctx, &opts, false)
	if err != nil {
		return nil, err
	}
	defer r.cancel() // when a panic goes through; release is not reached
	res, err := r.observed(r.generate)
	r.release()
	return res, err
}

// generate drives GenerateText.
func (r *run) generate() (*GenerateTextResult, error) {
	if err := r.standardizePrompt(); err != nil {
		return nil, err
	}
	if err := r.resume(nil); err != nil {
		return r.result(), r.failure(r.ctx, err)
	}
	if r.paused {
		return r.result(), nil
	}
	for {
		s, err := r.prepare()
		if err != nil {
			return r.result(), r.failure(r.ctx, err)
		}
		more, err := r.generateStep(s)
		if err != nil {
			err = r.failure(s.ctx, err)
		}
		r.endStep(s, err)
		s.cancel()
		if err != nil {
			return r.result(), err
		}
		if !more {
			break
		}
	}
	if err := r.completeOutput(false); err != nil {
		return r.result(), err
	}
	return r.result(), nil
}

// failure returns the error a generation fails with: when ctx ended, an
// error that wraps its cause.
func (r *run) failure(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	cause := context.Cause(ctx)
	if errors.Is(err, cause) {
		return err
	}
	return cause
}

// generateStep runs one non-streaming step and reports whether to go on.
func (r *run) generateStep(s *step) (bool, error) {
	res, err := r.modelGenerate(s)
	if err != nil {
		return false, err
	}
	sr := s.newStepRun(r, nil)
	sr.finish, sr.usage, sr.meta, sr.warnings, sr.request = res.FinishReason, res.Usage, res.ProviderMetadata, res.Warnings, res.Request
	r.out.structured = res.StructuredOutputText
	if res.Response != nil {
		sr.response = *res.Response
	}
	// Room for the output and, for tool calls, their outcomes.
	sr.content = make([]ContentPart, 0, 2*len(res.Content)+1)
	for _, c := range res.Content {
		switch c := c.(type) {
		case provider.ToolCall:
			if _, err := sr.toolCall(c); err != nil {
				return false, err
			}
		case provider.ToolResult:
			if _, err := sr.providerResult(c); err != nil {
				return false, err
			}
		case provider.ToolApprovalRequest:
			if _, err := sr.approvalRequest(c); err != nil {
				return false, err
			}
		case nil:
		default:
			if p, ok := contentFrom(c); ok {
				sr.content = append(sr.content, p)
			}
		}
	}
	if err := sr.checkToolChoice(); err != nil {
		return false, err
	}
	if err := sr.commit(); err != nil {
		return false, err
	}
	if err := sr.execute(); err != nil {
		return false, err
	}
	return r.finishStep(s, sr, sr.assemble())
}

// result returns the generation's result so far.
func (r *run) result() *GenerateTextResult {
	res := &GenerateTextResult{Steps: slices.Clip(r.steps), ResponseMessages: r.responseSoFar(), output: r.out.value}
	res.Usage = r.usage.usage(&res.usageCounts)
	if r.out.lazy {
		res.textOutput = 1
		if r.out.stream {
			res.textOutput = 2
		}
	}
	res.ToolSearch = r.searchSummary()
	if last := res.FinalStep(); last != nil {
		res.Text = last.Text()
		res.FinishReason = last.FinishReason
		res.RawFinishReason = last.RawFinishReason
	}
	return res
}
