package ai

import (
	"encoding/json"
	"slices"

	"github.com/aisdkgo/ai/provider"
)

// resumeHooks let a stream emit what a resume produces. Nil hooks (or a
// nil *resumeHooks) mean a non-streaming generation.
type resumeHooks struct {
	// denied and invalid report a denied call and an approved call that
	// cannot run; they return false when the reader stopped.
	denied  func(call ToolCall) bool
	invalid func(e ToolError) bool
	// run executes the approved calls and returns their outcomes in the
	// order they are reported.
	run func(s *step, calls []*callState) ([]ContentPart, error)
}

type pendingApproval struct {
	approvalID string
	// signature is the request's signature, when it has one.
	signature  string
	call       ToolCallPart
	reason     string
	providerEx bool
	// settled is set when the conversation already holds the denial's
	// result, which is then not added again.
	settled bool
	// approved is the answer.
	approved bool
	// resolution is the answer to a paused program's call that asked for
	// input (the call's result in the conversation), when it is one.
	resolution json.RawMessage
}

// resume continues a generation whose last input message answers approval
// requests: approved calls run before the first model call, and one tool
// message with their results, the invalid approvals and the denials is
// added to the conversation (it is not a step).
func (r *run) resume(ev *resumeHooks) error {
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
	var approved, denied, programs []pendingApproval
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
		settled := false
		if ex, has := existing[req.ToolCallID]; has {
			// A call with a result is settled; a denial whose result is
			// already there is reported again (a stream emits the denial),
			// without a second result, as the reference does.
			if _, wasDenied := ex.Output.(ExecutionDeniedOutput); resp.Approved || !wasDenied {
				continue
			}
			settled = true
		}
		call, ok := calls[req.ToolCallID]
		if !ok {
			return &ToolCallNotFoundForApprovalError{ToolCallID: req.ToolCallID, ApprovalID: resp.ApprovalID}
		}
		if answered[call.ToolCallID] {
			continue
		}
		answered[call.ToolCallID] = true
		pa := pendingApproval{approvalID: resp.ApprovalID, signature: req.Signature, call: call, reason: resp.Reason, providerEx: call.ProviderExecuted || resp.ProviderExecuted,
			settled: settled, approved: resp.Approved}
		if isProgramCall(call) {
			// A paused call of a code mode program: the program resumes,
			// whatever the answer.
			programs = append(programs, pa)
			continue
		}
		if resp.Approved {
			approved = append(approved, pa)
		} else {
			denied = append(denied, pa)
		}
	}
	// Results of paused programs' calls answer what the calls asked for.
	for _, p := range last.Content {
		tr, ok := p.(ToolResultPart)
		if !ok {
			continue
		}
		call, ok := calls[tr.ToolCallID]
		if !ok || !isProgramCall(call) || answered[call.ToolCallID] {
			continue
		}
		answer, ok := inputAnswer(tr.Output)
		if !ok {
			return &InvalidCodeModeContinuationError{ToolCallID: call.ToolCallID, Reason: "the answer is not JSON or text"}
		}
		answered[call.ToolCallID] = true
		programs = append(programs, pendingApproval{call: call, resolution: answer})
	}
	if len(approved) == 0 && len(denied) == 0 && len(programs) == 0 {
		return nil
	}
	slices.SortStableFunc(approved, func(a, b pendingApproval) int {
		return slices.Index(callOrder, a.call.ToolCallID) - slices.Index(callOrder, b.call.ToolCallID)
	})

	// Signed approvals: every approved call must carry its own request's
	// signature before anything runs.
	for _, a := range approved {
		if a.providerEx {
			continue
		}
		if err := r.checkApprovalSignature(a); err != nil {
			return err
		}
	}

	// Re-check approved calls against the current tools and policy.
	s := r.resumeStep()
	var torun []*callState
	var invalid []ToolError
	for _, a := range programs {
		cs, err := r.resumeProgram(s, a, calls)
		if err != nil {
			return err
		}
		if cs == nil {
			continue
		}
		if l := r.opts.ApprovalLedger; l != nil {
			claim := a.approvalID
			if claim == "" {
				claim = a.call.ToolCallID + ":interrupt"
			}
			first, err := l.Claim(s.ctx, claim, a.call.ToolCallID)
			if err != nil {
				return err
			}
			if !first {
				invalid = append(invalid, ToolError{ToolCallID: cs.call.ToolCallID, ToolName: cs.call.ToolName, Input: cs.call.Input,
					Error: &ApprovalAlreadyUsedError{ApprovalID: a.approvalID, ToolCallID: a.call.ToolCallID}})
				continue
			}
		}
		torun = append(torun, cs)
	}
	for _, a := range approved {
		if a.providerEx {
			continue
		}
		e, ok := s.tools.execTool(a.call.ToolName)
		if !ok {
			// An approved call of a tool that is not registered keeps no
			// result: the conversation cannot go on (MissingToolResultsError
			// before the model call), as in the reference.
			continue
		}
		call, err := r.parseOnce(s, provider.ToolCall{ToolCallID: a.call.ToolCallID, ToolName: a.call.ToolName, Input: string(a.call.Input)})
		if err != nil {
			invalid = append(invalid, ToolError{ToolCallID: a.call.ToolCallID, ToolName: a.call.ToolName, Input: a.call.Input, Error: err, Dynamic: true})
			continue
		}
		status, err := r.approvalStatus(s.ctx, s, e, call, r.messages)
		if err != nil {
			return err
		}
		if status.Kind == ApprovalDenied {
			if status.Reason != "" {
				a.reason = status.Reason
			}
			denied = append(denied, a)
			continue
		}
		if !e.tool.core().executable() {
			continue
		}
		if l := r.opts.ApprovalLedger; l != nil {
			first, err := l.Claim(s.ctx, a.approvalID, call.ToolCallID)
			if err != nil {
				return err
			}
			if !first {
				invalid = append(invalid, ToolError{ToolCallID: call.ToolCallID, ToolName: call.ToolName, Input: call.Input,
					Error: &ApprovalAlreadyUsedError{ApprovalID: a.approvalID, ToolCallID: call.ToolCallID}})
				continue
			}
		}
		torun = append(torun, &callState{call: call, entry: e})
	}
	if ev == nil {
		ev = &resumeHooks{}
	}
	if ev.denied != nil {
		for _, d := range denied {
			if !ev.denied(ToolCall{ToolCallID: d.call.ToolCallID, ToolName: d.call.ToolName, Input: d.call.Input}) {
				return nil
			}
		}
	}
	if ev.invalid != nil {
		for _, e := range invalid {
			if !ev.invalid(e) {
				return nil
			}
		}
	}
	var outs []ContentPart
	if len(torun) > 0 {
		var err error
		if ev.run != nil {
			outs, err = ev.run(s, torun)
		} else {
			err = settled(s, torun, r.executeAll(s, torun, r.messages, nil))
			for _, cs := range torun {
				outs = append(outs, cs.outcome)
			}
		}
		if err != nil {
			return err
		}
	}
	var parts []ToolPart
	var paused []ContentPart
	for _, out := range outs {
		// A resumed program that paused again: its code call's output goes
		// into the tool message, the paused call and its request into a
		// step of their own (a stream reports them already expanded).
		switch p := out.(type) {
		case pausedProgram:
			paused = append(paused, p.call)
			if p.request != nil {
				paused = append(paused, *p.request)
			}
			out = p.result
		case ToolCall, ToolApprovalRequest:
			paused = append(paused, p)
			continue
		}
		i := slices.IndexFunc(torun, func(cs *callState) bool { return cs.call.ToolCallID == callIDOf(out) })
		mo, err := r.modelOutput(r.ctx, out, &torun[i].call)
		if err != nil {
			return err
		}
		parts = append(parts, ToolResultPart{ToolCallID: callIDOf(out), ToolName: toolNameOf(out), Output: mo})
	}
	for _, e := range invalid {
		parts = append(parts, ToolResultPart{ToolCallID: e.ToolCallID, ToolName: e.ToolName, Output: ErrorTextOutput{Value: errorText(e.Error)}})
	}
	for _, d := range denied {
		if d.settled {
			continue
		}
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
	if len(parts) > 0 {
		r.addMessages(slices.Clip(r.messages), []Message{ToolMessage{Content: parts}})
	}
	if len(paused) > 0 {
		return r.pausedStep(s, paused)
	}
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
		st.entries = append(st.entries, stepEntry{name: nt.Name, tool: nt.Tool, model: true})
	}
	if r.routing != nil {
		r.routeCallers(s)
		for i := range st.entries {
			st.entries[i].model = true
		}
	}
	if r.opts.Tools == nil {
		st.none = true
	}
	return s
}
