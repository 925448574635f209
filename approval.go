package ai

import (
	"context"
	"encoding/json"
)

// ApprovalKind is a decision about a tool call.
type ApprovalKind int

// The approval kinds.
const (
	// ApprovalNotApplicable: the call needs no approval and runs.
	ApprovalNotApplicable ApprovalKind = iota
	// ApprovalRequired: the call waits for a person; the generation stops
	// with a [ToolApprovalRequest] and resumes when the caller appends a
	// [ToolApprovalResponsePart] to the messages and calls again.
	ApprovalRequired
	// ApprovalApproved: a policy approved the call; it runs, and the
	// decision is recorded.
	ApprovalApproved
	// ApprovalDenied: a policy denied the call; it does not run, and the
	// model is told it was denied.
	ApprovalDenied
)

// ApprovalStatus is a decision about a tool call with an optional reason.
type ApprovalStatus struct {
	Kind   ApprovalKind
	Reason string
}

// Shorthands for the common statuses.
var (
	NotApplicable    = ApprovalStatus{Kind: ApprovalNotApplicable}
	RequiresApproval = ApprovalStatus{Kind: ApprovalRequired}
	Approved         = ApprovalStatus{Kind: ApprovalApproved}
	Denied           = ApprovalStatus{Kind: ApprovalDenied}
)

// WithReason returns s with a reason.
func (s ApprovalStatus) WithReason(reason string) ApprovalStatus {
	s.Reason = reason
	return s
}

// ToolApproval decides which tool calls need approval. Decide, when set,
// decides every call; otherwise the tool's entry in Tools decides, then
// Default, then the tool's deprecated NeedsApproval; without any of them a
// call needs no approval.
type ToolApproval struct {
	// Decide decides for every call.
	Decide func(ctx context.Context, req ApprovalRequest) (ApprovalStatus, error)
	// Tools decides per tool name.
	Tools map[string]ApprovalRule
	// Default decides for tools without an entry in Tools.
	Default *ApprovalRule
}

// ApprovalRule is a fixed status, or a function of the call when Func is
// set.
type ApprovalRule struct {
	Status ApprovalStatus
	Func   func(ctx context.Context, input json.RawMessage, req ApprovalRequest) (ApprovalStatus, error)
}

// Rule returns a rule with a fixed status.
func Rule(s ApprovalStatus) ApprovalRule { return ApprovalRule{Status: s} }

// ApprovalRequest describes a call whose approval is being decided.
type ApprovalRequest struct {
	ToolCall ToolCall
	// Messages are the messages of the step that produced the call.
	Messages []Message
	// ToolContext is the tool's validated context.
	ToolContext    any
	RuntimeContext map[string]any
}

// RepairFunc may fix a tool call that failed to parse: it names an unknown
// tool (err is a *NoSuchToolError) or its input is invalid (err is an
// *InvalidToolInputError). It returns the fixed call, or nil to keep the
// error. A returned error becomes a *ToolCallRepairError on the call.
type RepairFunc func(ctx context.Context, r RepairRequest) (*RepairedCall, error)

// RepairRequest is what a [RepairFunc] receives.
type RepairRequest struct {
	ToolCallID string
	ToolName   string
	// Input is the input text as the model produced it.
	Input string
	// Err says what is wrong.
	Err error
	// Tools are the tools the model could call in the step.
	Tools Tools
	// Messages are the step's messages.
	Messages     []Message
	Instructions []SystemMessage
}

// InputSchema returns the JSON Schema of a tool's input, or nil.
func (r RepairRequest) InputSchema(toolName string) json.RawMessage {
	if t, ok := r.Tools.Get(toolName); ok {
		return t.core().input.raw
	}
	return nil
}

// RepairedCall is a repaired tool call: the tool to call and its input
// text.
type RepairedCall struct {
	ToolName string
	Input    string
}
