package aitemporal

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aisdkgo/ai"
)

// Input starts a run: the agent to run and the prompt. Set Prompt or
// Messages, not both.
type Input struct {
	// Agent names one of [Config.Agents].
	Agent string
	// Prompt is a single user message.
	Prompt string
	// Messages is the conversation so far.
	Messages []ai.Message
	// Stream publishes the run as UI message streams into
	// [Config.Stream] (see [Streaming]); the workers must have one.
	Stream bool
	// Carried is set by the workflow itself when a long run continues as a
	// new run ([Agent.ContinueAsNewAfter]): what the new run takes over
	// from the ones before it. Leave it nil.
	Carried *Carried
}

// Carried is the state a run hands to the run it continues as.
type Carried struct {
	// Steps are the steps of the earlier runs.
	Steps []Step `json:"steps"`
	// Discovered are the deferred tools found so far.
	Discovered []string `json:"discovered,omitempty"`
	// Usage is the usage of the earlier runs.
	Usage ai.Usage `json:"usage"`
	// Added is how many of the input's messages the earlier runs added
	// (the rest came with the first run's input).
	Added int `json:"added"`
	// Runs counts the earlier runs.
	Runs int `json:"runs"`
	// Deadline is when Timeout.Total ends the whole run, if it does.
	Deadline time.Time `json:"deadline,omitzero"`
	// StreamAfter is the After of the stream the run publishes to (see
	// [StreamKey]).
	StreamAfter string `json:"streamAfter,omitempty"`
}

type inputJSON struct {
	Agent    string          `json:"agent"`
	Prompt   string          `json:"prompt,omitempty"`
	Messages json.RawMessage `json:"messages,omitempty"`
	Stream   bool            `json:"stream,omitempty"`
	Carried  *Carried        `json:"carried,omitempty"`
}

// MarshalJSON writes the input with the messages in the TypeScript AI
// SDK's shape.
func (in Input) MarshalJSON() ([]byte, error) {
	j := inputJSON{Agent: in.Agent, Prompt: in.Prompt, Stream: in.Stream, Carried: in.Carried}
	if in.Messages != nil {
		var err error
		if j.Messages, err = json.Marshal(in.Messages); err != nil {
			return nil, err
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (in *Input) UnmarshalJSON(data []byte) error {
	var j inputJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*in = Input{Agent: j.Agent, Prompt: j.Prompt, Stream: j.Stream, Carried: j.Carried}
	if len(j.Messages) > 0 && string(j.Messages) != "null" {
		var err error
		if in.Messages, err = ai.UnmarshalMessages(j.Messages); err != nil {
			return fmt.Errorf("messages: %w", err)
		}
	}
	return nil
}

// Result is the outcome of a run.
type Result struct {
	// Text is the final step's text.
	Text string
	// FinishReason is the final step's.
	FinishReason ai.FinishReason
	// Usage is the sum over all steps.
	Usage ai.Usage
	// Steps are all steps of the run, numbered from 0 across approval
	// pauses.
	Steps []Step
	// Discovered are the deferred tools tool searches found, in the order
	// they were first found.
	Discovered []string
	// ResponseMessages are the messages the run added to the conversation,
	// approval answers included: append them to the input messages to
	// continue the conversation.
	ResponseMessages []ai.Message
}

type resultJSON struct {
	Text             string          `json:"text"`
	FinishReason     ai.FinishReason `json:"finishReason"`
	Usage            ai.Usage        `json:"usage"`
	Steps            []Step          `json:"steps"`
	Discovered       []string        `json:"discovered,omitempty"`
	ResponseMessages json.RawMessage `json:"responseMessages"`
}

// MarshalJSON writes the result with the messages in the TypeScript AI
// SDK's shape.
func (r Result) MarshalJSON() ([]byte, error) {
	msgs, err := json.Marshal(nonNil(r.ResponseMessages))
	if err != nil {
		return nil, err
	}
	return json.Marshal(resultJSON{r.Text, r.FinishReason, r.Usage, nonNil(r.Steps), r.Discovered, msgs})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Result) UnmarshalJSON(data []byte) error {
	var j resultJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*r = Result{Text: j.Text, FinishReason: j.FinishReason, Usage: j.Usage, Steps: j.Steps, Discovered: j.Discovered}
	if len(j.ResponseMessages) > 0 {
		var err error
		if r.ResponseMessages, err = ai.UnmarshalMessages(j.ResponseMessages); err != nil {
			return fmt.Errorf("responseMessages: %w", err)
		}
	}
	return nil
}

// Step is a finished step of a run: one model call and the tool calls it
// asked for.
type Step struct {
	// Number counts the run's steps from 0.
	Number       int             `json:"number"`
	Provider     string          `json:"provider"`
	ModelID      string          `json:"modelId"`
	Text         string          `json:"text,omitempty"`
	ToolCalls    []ToolCall      `json:"toolCalls,omitempty"`
	FinishReason ai.FinishReason `json:"finishReason"`
	Usage        ai.Usage        `json:"usage"`
	// ResponseID is the provider's response id (or one the run made).
	ResponseID string `json:"responseId,omitempty"`
}

// ToolCall is a tool call of a step and what became of it.
type ToolCall struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Input      json.RawMessage `json:"input"`
	// Output is the tool's output as JSON, once it ran successfully.
	Output json.RawMessage `json:"output,omitempty"`
	// Error is the failure the model was told about: an invalid call or a
	// failed execution.
	Error string `json:"error,omitempty"`
	// Approval is "pending", "approved" or "denied" for a call that needed
	// approval, and empty otherwise.
	Approval string `json:"approval,omitempty"`
}

// Approval answers an approval request of a run; send it with the
// [ApprovalSignal] (see [Approve]).
type Approval struct {
	// ApprovalID is the id of the request (see [Progress.PendingApprovals]).
	ApprovalID string `json:"approvalId"`
	Approved   bool   `json:"approved"`
	// Reason is passed to the model with a denial.
	Reason string `json:"reason,omitempty"`
	// Signature is the request's signature ([PendingApproval.Signature]).
	// When the agent signs its approvals (Options.ToolApprovalSecrets), an
	// approval without the signature of the pending call is ignored: a
	// server that forwards what a browser posted passes on the signature
	// the browser got with the request, and a forged answer runs nothing.
	Signature string `json:"signature,omitempty"`
}

// IgnoredApproval is an approval signal the run did not take.
type IgnoredApproval struct {
	ApprovalID string `json:"approvalId"`
	Approved   bool   `json:"approved"`
	// Reason says why: "answers no pending request", "the request was
	// already answered", "missing signature" or "invalid signature".
	Reason string `json:"reason"`
}

// Progress is what the [ProgressQuery] reports about a run.
type Progress struct {
	// Steps are the finished steps.
	Steps []Step `json:"steps"`
	// Discovered are the deferred tools found so far.
	Discovered []string `json:"discovered,omitempty"`
	// PendingApprovals are the calls the run waits on, in call order.
	PendingApprovals []PendingApproval `json:"pendingApprovals,omitempty"`
	// IgnoredApprovals are the latest approval signals (at most 100) that
	// the run did not take, oldest first.
	IgnoredApprovals []IgnoredApproval `json:"ignoredApprovals,omitempty"`
	// Done is true once the run has finished.
	Done bool `json:"done"`
}

// PendingApproval is a tool call waiting for an [Approval].
type PendingApproval struct {
	ApprovalID string          `json:"approvalId"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Input      json.RawMessage `json:"input"`
	// Reason is the policy's reason for asking, if any.
	Reason string `json:"reason,omitempty"`
	// Signature is the request's signature when the agent signs its
	// approvals; an approving [Approval] must carry it.
	Signature string `json:"signature,omitempty"`
}

// ToolFailure is the error of a tool call whose activity failed for good
// (after its retries). The model is told Message.
type ToolFailure struct {
	ToolName string
	// Message is the tool's error message.
	Message string
	// Type is the error's type as Temporal records it: the Go type name of
	// the tool's error, or the type of a *temporal.ApplicationError.
	Type string
	// Err is the activity error.
	Err error
}

// WorkerLost is the [ToolFailure.Type] of a call whose last attempt was cut
// off because its worker stopped heartbeating (it crashed, or lost its
// connection), rather than failing on its own.
const WorkerLost = "WorkerLost"

// Error returns the tool's error message.
func (e *ToolFailure) Error() string { return e.Message }

// Unwrap returns the activity error.
func (e *ToolFailure) Unwrap() error { return e.Err }

// outputJSON returns a tool output as JSON for a Step.
func outputJSON(v any) json.RawMessage {
	switch v := v.(type) {
	case nil:
		return json.RawMessage("null")
	case json.RawMessage:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		s, _ := json.Marshal(fmt.Sprint(v))
		return s
	}
	return b
}
