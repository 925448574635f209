package ai

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/aisdkgo/ai/provider"
)

// resumeEvents receives what a resume produces, for StreamText.
type resumeEvents struct {
	denied func(call ToolCall)
	output func(p ContentPart)
}

type pendingApproval struct {
	approvalID string
	call       ToolCallPart
	reason     string
	providerEx bool
}

// resume continues a generation whose last input message answers approval
// requests: approved calls run before the first model call, and one tool
// message with their results, the invalid approvals and the denials is
// added to the conversation (it is not a step).
func (r *run) resume(ev *resumeEvents) error {
	if len(r.messages) == 0 {
		return nil
	}
	last, ok := r.messages[len(r.messages)-1].(ToolMessage)
	if !ok {
		return nil
	}
	calls := map[string]ToolCallPart{}
	var callOrder []string
	requests := map[string]ToolApprovalRequestPart{}
	for _, m := range r.messages {
		a, ok := m.(AssistantMessage)
		if !ok {
			continue
		}
		for _, p := range a.Content {
			switch p := p.(type) {
			case ToolCallPart:
				if _, seen := calls[p.ToolCallID]; !seen {
					callOrder = append(callOrder, p.ToolCallID)
				}
				calls[p.ToolCallID] = p
			case ToolApprovalRequestPart:
				requests[p.ApprovalID] = p
			}
		}
	}
	existing := map[string]ToolResultPart{}
	for _, p := range last.Content {
		if tr, ok := p.(ToolResultPart); ok {
			existing[tr.ToolCallID] = tr
		}
	}
	var approved, denied []pendingApproval
	answered := map[string]bool{}
	for _, p := range last.Content {
		resp, ok := p.(ToolApprovalResponsePart)
		if !ok {
			continue
		}
		req, ok := requests[resp.ApprovalID]
		if !ok {
			return &InvalidToolApprovalError{ApprovalID: resp.ApprovalID}
		}
		skipResult := false
		if ex, has := existing[req.ToolCallID]; has {
			_, wasDenied := ex.Output.(ExecutionDeniedOutput)
			if resp.Approved || !wasDenied {
				continue
			}
			skipResult = true
		}
		call, ok := calls[req.ToolCallID]
		if !ok {
			return &ToolCallNotFoundForApprovalError{ToolCallID: req.ToolCallID, ApprovalID: resp.ApprovalID}
		}
		if answered[call.ToolCallID] {
			continue
		}
		answered[call.ToolCallID] = true
		pa := pendingApproval{approvalID: resp.ApprovalID, call: call, reason: resp.Reason, providerEx: call.ProviderExecuted || resp.ProviderExecuted}
		if resp.Approved {
			approved = append(approved, pa)
		} else if !skipResult {
			denied = append(denied, pa)
		}
	}
	if len(approved) == 0 && len(denied) == 0 {
		return nil
	}
	slices.SortStableFunc(approved, func(a, b pendingApproval) int {
		return slices.Index(callOrder, a.call.ToolCallID) - slices.Index(callOrder, b.call.ToolCallID)
	})

	// Re-check approved calls against the current tools and policy.
	s := r.resumeStep()
	var toRun []ToolCall
	var invalid []ToolError
	var kept []pendingApproval
	for _, a := range approved {
		if a.providerEx {
			continue
		}
		e, ok := s.tools.execTool(a.call.ToolName)
		if !ok {
			invalid = append(invalid, ToolError{ToolCallID: a.call.ToolCallID, ToolName: a.call.ToolName, Input: a.call.Input,
				Error: &NoSuchToolError{ToolName: a.call.ToolName, AvailableTools: r.idx.tools.Names()}, Dynamic: true})
			continue
		}
		call, err := r.parseOnce(s, provider.ToolCall{ToolCallID: a.call.ToolCallID, ToolName: a.call.ToolName, Input: string(a.call.Input)})
		if err != nil {
			invalid = append(invalid, ToolError{ToolCallID: a.call.ToolCallID, ToolName: a.call.ToolName, Input: a.call.Input, Error: err, Dynamic: true})
			continue
		}
		status, err := r.approvalStatus(s, e, call, r.messages)
		if err != nil {
			return err
		}
		if status.Kind == ApprovalDenied {
			reason := status.Reason
			if reason == "" {
				reason = a.reason
			}
			a.reason = reason
			denied = append(denied, a)
			continue
		}
		kept = append(kept, a)
		toRun = append(toRun, call)
	}
	if ev != nil && ev.denied != nil {
		for _, d := range denied {
			ev.denied(ToolCall{ToolCallID: d.call.ToolCallID, ToolName: d.call.ToolName, Input: d.call.Input})
		}
	}
	if ev != nil && ev.output != nil {
		for _, e := range invalid {
			ev.output(e)
		}
	}
	var done func(ContentPart)
	var completed []ContentPart
	var mu sync.Mutex
	if ev != nil && ev.output != nil {
		done = func(p ContentPart) {
			mu.Lock()
			defer mu.Unlock()
			completed = append(completed, p)
			ev.output(p)
		}
	}
	outs, err := r.executeAll(s, toRun, r.messages, done)
	if err != nil {
		return err
	}
	if done == nil {
		completed = outs
	}
	var parts []ToolPart
	for _, out := range completed {
		if out == nil {
			continue
		}
		i := slices.IndexFunc(toRun, func(c ToolCall) bool { return c.ToolCallID == callIDOf(out) })
		mo, err := r.modelOutput(r.ctx, out, toRun[i])
		if err != nil {
			return err
		}
		parts = append(parts, ToolResultPart{ToolCallID: callIDOf(out), ToolName: toolNameOf(out), Output: mo})
	}
	for _, e := range invalid {
		parts = append(parts, ToolResultPart{ToolCallID: e.ToolCallID, ToolName: e.ToolName, Output: ErrorTextOutput{Value: errorText(e.Error)}})
	}
	for _, d := range denied {
		if d.providerEx {
			if r.stream {
				continue
			}
			parts = append(parts, ToolResultPart{
				ToolCallID: d.call.ToolCallID, ToolName: d.call.ToolName,
				Output: ExecutionDeniedOutput{Reason: d.reason, ProviderOptions: ProviderOptions{"openai": {"approvalId": d.approvalID}}},
			})
			continue
		}
		parts = append(parts, ToolResultPart{ToolCallID: d.call.ToolCallID, ToolName: d.call.ToolName, Output: ExecutionDeniedOutput{Reason: d.reason}})
	}
	if len(parts) == 0 {
		return nil
	}
	msg := ToolMessage{Content: parts}
	r.responseMessages = append(r.responseMessages, msg)
	r.messages = append(slices.Clip(r.messages), msg)
	_ = kept
	_ = json.Valid
	return nil
}

// resumeStep is the pseudo-step approved calls run in when a generation
// resumes: every tool is executable, deferred or not.
func (r *run) resumeStep() *step {
	s := &step{number: 0, model: r.opts.Model, messages: r.messages, ctx: r.ctx, cancel: func() {}}
	s.tools = &s.toolsVal
	st := s.tools
	*st = stepTools{choice: ToolChoice{Type: ToolChoiceAuto}, exec: true, toolsContext: r.toolsContext, sandbox: r.opts.Sandbox}
	for _, nt := range r.opts.Tools {
		st.entries = append(st.entries, stepEntry{name: nt.Name, tool: nt.Tool, exec: nt.Tool, model: true})
	}
	if r.routing != nil {
		r.routeCallers(st)
		for i := range st.entries {
			st.entries[i].model = true
		}
	}
	if r.opts.Tools == nil {
		st.none = true
	}
	return s
}
