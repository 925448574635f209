package ai

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
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

// decideApproval resolves the approval status of a valid call. It returns
// nil when no approval applies; a request alone when the call waits for a
// person; a request and a response when a policy decided.
func (r *run) decideApproval(s *step, e *stepEntry, call ToolCall) (*ToolApprovalRequest, *ToolApprovalResponse, error) {
	if r.opts.ToolApproval == nil && e.tool.core().needsApproval == nil {
		return nil, nil, nil // no policy applies
	}
	status, err := r.approvalStatus(s.ctx, s, e, call, s.messages)
	if err != nil || status.Kind == ApprovalNotApplicable {
		return nil, nil, err
	}
	req := &ToolApprovalRequest{ApprovalID: r.newID(), ToolCall: call}
	req.Signature = r.signApproval(req.ApprovalID, call)
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

// approvalStatus applies the approval policy to a call: ToolApproval's
// Decide, else its rule for the tool, else its Default, else the tool's
// deprecated NeedsApproval. It is the one place where the policy is read,
// for direct, resumed and routed calls alike.
func (r *run) approvalStatus(ctx context.Context, s *step, e *stepEntry, call ToolCall, messages []Message) (status ApprovalStatus, err error) {
	ta := r.opts.ToolApproval
	c := e.tool.core()
	defer func() {
		if v := recover(); v != nil {
			err = &ToolExecutionError{ToolName: call.ToolName, ToolCallID: call.ToolCallID, Panic: v}
		}
	}()
	if ta != nil && ta.Decide != nil {
		tctx, _ := r.toolContext(s, call.ToolName, e.tool)
		return ta.Decide(ctx, ApprovalRequest{ToolCall: call, Messages: messages, ToolContext: tctx, RuntimeContext: r.runtimeContext})
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
		tctx, err := r.toolContext(s, call.ToolName, e.tool)
		if err != nil {
			return NotApplicable, err
		}
		return rule.Func(ctx, call.Input, ApprovalRequest{ToolCall: call, Messages: messages, ToolContext: tctx, RuntimeContext: r.runtimeContext})
	}
	if c.needsApproval != nil {
		tctx, err := r.toolContext(s, call.ToolName, e.tool)
		if err != nil {
			return NotApplicable, err
		}
		need, err := c.needsApproval(ctx, call.value, ApprovalOptions{ToolCallID: call.ToolCallID, Messages: messages, Context: tctx})
		if err != nil || !need {
			return NotApplicable, err
		}
		return RequiresApproval, nil
	}
	return NotApplicable, nil
}

// signApproval signs an approval request when approvals are signed.
func (r *run) signApproval(approvalID string, call ToolCall) string {
	if len(r.opts.ToolApprovalSecrets) == 0 {
		return ""
	}
	return SignToolApproval(r.opts.ToolApprovalSecrets[0], approvalID, call.ToolCallID, call.ToolName, call.Input)
}

// checkApprovalSignature verifies, when approvals are signed, that an
// approved call's request was signed for this very call.
func (r *run) checkApprovalSignature(a pendingApproval) error {
	if len(r.opts.ToolApprovalSecrets) == 0 {
		return nil
	}
	reason := ""
	switch {
	case a.signature == "":
		reason = "missing signature"
	case !VerifyToolApprovalSignature(r.opts.ToolApprovalSecrets, a.signature, a.approvalID, a.call.ToolCallID, a.call.ToolName, a.call.Input):
		reason = "invalid signature"
	default:
		return nil
	}
	return &InvalidToolApprovalSignatureError{ApprovalID: a.approvalID, ToolCallID: a.call.ToolCallID, Reason: reason}
}

// ApprovalLedger remembers which approvals have run their call, so that an
// approval answer sent twice (a client replaying a request, a retried
// POST) runs the call at most once. Implementations must be safe for
// concurrent use; one that several servers share (a database table with a
// unique key, a Redis SETNX) makes the guarantee hold across them.
type ApprovalLedger interface {
	// Claim records that the call approved by approvalID is about to run.
	// It reports false when the approval was claimed before. An error fails
	// the generation before anything runs.
	Claim(ctx context.Context, approvalID, toolCallID string) (bool, error)
}

// NewApprovalLedger returns an ApprovalLedger that keeps the last capacity
// claims in memory (100,000 when capacity is not positive). It holds for
// one process and forgets the oldest claims first; use a shared, durable
// ledger when several servers resume conversations or approvals may be
// replayed long after.
func NewApprovalLedger(capacity int) ApprovalLedger {
	if capacity <= 0 {
		capacity = 100_000
	}
	return &memoryLedger{capacity: capacity, seen: map[string]struct{}{}}
}

type memoryLedger struct {
	mu       sync.Mutex
	capacity int
	seen     map[string]struct{}
	order    []string // claim order, for forgetting the oldest
	head     int
}

func (l *memoryLedger) Claim(_ context.Context, approvalID, toolCallID string) (bool, error) {
	key := approvalID + "\x00" + toolCallID
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.seen[key]; ok {
		return false, nil
	}
	if len(l.order) < l.capacity {
		l.order = append(l.order, key)
	} else {
		delete(l.seen, l.order[l.head])
		l.order[l.head] = key
		l.head = (l.head + 1) % l.capacity
	}
	l.seen[key] = struct{}{}
	return true, nil
}
