package aitemporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/canonjson"
	"github.com/aisdkgo/ai/internal/effect"
)

// Durable code mode. The code tool's call runs in workflow code; its
// program runs in the program activity, again from the start each time,
// with the ledger of the calls it made so far: their outcomes, recorded in
// the workflow's history. A call that is not in the ledger stops the run;
// the workflow runs it through the engine as any nested call (validation,
// approval policy, the tool activity), adds its outcome to the ledger and
// runs the program again, until it finishes.

// MaxProgramLedgerBytes bounds the source of a durable code mode program
// and the JSON of the calls it made (their inputs and outputs), which
// every run of the program activity carries; a program that goes past it
// fails with CODE_MODE_ERROR. Outputs kept in [Config.Store] count by
// their reference.
const MaxProgramLedgerBytes = 1 << 20

// programInput is the input of the program activity.
type programInput struct {
	Agent      string `json:"agent"`
	ToolName   string `json:"toolName"`
	ToolCallID string `json:"toolCallId"`
	Source     string `json:"source"`
	// Seed is a decimal string: JSON numbers hold 53 bits.
	Seed string `json:"seed"`
	// Time is the program's clock in Unix milliseconds.
	Time  int64         `json:"time"`
	Calls []programCall `json:"calls,omitempty"`
}

// programCall is a call of the program: with its outcome in the ledger,
// without one when the program activity reports it as the next to run.
type programCall struct {
	Seq    int             `json:"seq"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  *programError   `json:"error,omitempty"`
}

// programError is a failed call or program as the program sees it: a
// *ai.CodeModeError, or (Host) a tool failure the program sees redacted.
type programError struct {
	Code    string         `json:"code,omitempty"`
	Name    string         `json:"name,omitempty"`
	Message string         `json:"message,omitempty"`
	Details map[string]any `json:"details,omitempty"`
	Host    bool           `json:"host,omitempty"`
}

func (e *programError) err() error {
	if e.Host {
		return errRecordedFailure
	}
	return &ai.CodeModeError{Code: e.Code, Name: e.Name, Message: e.Message, Details: e.Details}
}

var errRecordedFailure = errors.New("aitemporal: the tool call failed")

func programErrorOf(err error) *programError {
	var ce *ai.CodeModeError
	if errors.As(err, &ce) {
		return &programError{Code: ce.Code, Name: ce.Name, Message: ce.Message, Details: ce.Details}
	}
	return &programError{Host: true}
}

// programOutput is the result of the program activity: the program's
// value or error when it finished, else the calls it made that the ledger
// lacks (in sequence order).
type programOutput struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error *programError   `json:"error,omitempty"`
	Calls []programCall   `json:"calls,omitempty"`
}

// codeCallKey keys the code tool's call on the context of its execution in
// workflow code.
type codeCallKey struct{}

// isCaller reports whether the agent routes tools to the named tool (a code
// mode tool): its execution runs in workflow code, its program in the
// program activity.
func (a *Agent) isCaller(name string) bool {
	for _, r := range a.Options.ToolCallers {
		for _, c := range r.Callers {
			if c == name && c != ai.DirectCall {
				return true
			}
		}
	}
	return false
}

// programSeed derives the seed of a program's Math.random from the run and
// the code call: the same on every replay and every run of the program.
func programSeed(w workflow.Context, toolCallID string) uint64 {
	info := workflow.GetInfo(w)
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s", info.WorkflowExecution.ID, info.WorkflowExecution.RunID, toolCallID)
	return h.Sum64() | 1
}

// RunProgram runs a code mode program durably (see [effect.Programs]).
func (e *effects) RunProgram(ctx context.Context, p effect.Program) (json.RawMessage, error) {
	w := e.workflow(ctx)
	code, ok := ctx.Value(codeCallKey{}).(effect.Call)
	if !ok {
		return nil, errors.New("aitemporal: a code mode program ran outside its tool call")
	}
	in := programInput{Agent: e.agentName, ToolName: code.ToolName, ToolCallID: p.ToolCallID, Source: p.Source,
		Seed: fmt.Sprint(programSeed(w, p.ToolCallID)), Time: workflow.Now(w).UnixMilli()}
	ao := e.agent.toolOptions(code.ToolName)
	size := len(p.Source)
	for {
		if size > MaxProgramLedgerBytes {
			return nil, &ai.CodeModeError{Code: ai.CodeModeErrorCode, Name: "CodeModeError", Message: fmt.Sprintf(
				"The program and its tool calls take more than the %d bytes a durable run records for one program.", MaxProgramLedgerBytes)}
		}
		var out programOutput
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(w, ao), ProgramActivity, in).Get(w, &out)
		if err != nil {
			e.ended(w)
			return nil, toolFailure(code.ToolName, ao, err)
		}
		if out.Error != nil {
			if out.Error.Host {
				return nil, errors.New("aitemporal: the program failed")
			}
			return nil, out.Error.err()
		}
		if len(out.Calls) == 0 {
			if out.Value == nil {
				return json.RawMessage("null"), nil
			}
			return out.Value, nil
		}
		for i, c := range out.Calls {
			if c.Seq <= 0 || slices.ContainsFunc(in.Calls, func(r programCall) bool { return r.Seq == c.Seq }) ||
				slices.ContainsFunc(out.Calls[:i], func(r programCall) bool { return r.Seq == c.Seq }) {
				return nil, protocolError(fmt.Sprintf("The program activity reported call %d, which is not a new call.", c.Seq))
			}
		}
		// The calls were dispatched together: they run together, as they
		// would in a local run.
		recs := make([]programCall, len(out.Calls))
		e.Parallel(ctx, len(out.Calls), 0, func(ctx context.Context, i int, started func()) {
			started()
			c := out.Calls[i]
			res, err := p.CallTool(ctx, c.Seq, c.Name, c.Input)
			recs[i] = programCall{Seq: c.Seq, Name: c.Name, Input: c.Input}
			if err != nil {
				recs[i].Error = programErrorOf(err)
			} else {
				recs[i].Output = cmpOrNull(res)
			}
		})
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for _, rec := range recs {
			raw, merr := json.Marshal(rec)
			if merr != nil {
				return nil, merr
			}
			size += len(raw)
			in.Calls = append(in.Calls, rec)
		}
	}
}

func cmpOrNull(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage("null")
	}
	return v
}

func protocolError(msg string) *ai.CodeModeError {
	return &ai.CodeModeError{Code: ai.CodeModeProtocolError, Name: "CodeModeProtocolError", Message: msg}
}

// ApproveProgramCall waits for the approval signal of a program's call that
// needs a person's approval (see [effect.Programs]). Calls of programs that
// run at once may wait together: whichever receives a signal keeps it for
// the call it answers.
func (e *effects) ApproveProgramCall(ctx context.Context, call effect.Call) (bool, string, error) {
	w := e.workflow(ctx)
	secrets := e.agent.Options.ToolApprovalSecrets
	p := PendingApproval{ApprovalID: call.ToolCallID + ":approval", ToolCallID: call.ToolCallID, ToolName: call.ToolName, Input: call.Input}
	if len(secrets) > 0 {
		p.Signature = ai.SignToolApproval(secrets[0], p.ApprovalID, p.ToolCallID, p.ToolName, p.Input)
	}
	e.st.pending = append(e.st.pending, p)
	defer func() {
		e.st.pending = slices.DeleteFunc(e.st.pending, func(q PendingApproval) bool { return q.ApprovalID == p.ApprovalID })
	}()
	ch := workflow.GetSignalChannel(w, ApprovalSignal)
	for {
		if a, ok := e.answers[p.ApprovalID]; ok {
			delete(e.answers, p.ApprovalID)
			return a.Approved, a.Reason, nil
		}
		if e.receiving {
			err := workflow.Await(w, func() bool {
				_, ok := e.answers[p.ApprovalID]
				return ok || !e.receiving
			})
			if err != nil {
				e.ended(w)
				return false, "", err
			}
			continue
		}
		e.receiving = true
		var a Approval
		sel := workflow.NewSelector(w)
		sel.AddReceive(ch, func(c workflow.ReceiveChannel, _ bool) { c.Receive(w, &a) })
		sel.AddReceive(w.Done(), func(workflow.ReceiveChannel, bool) {})
		sel.Select(w)
		e.receiving = false
		if err := w.Err(); err != nil {
			e.ended(w)
			return false, "", err
		}
		_, reason := screenApproval(a, e.st.pending, secrets)
		if _, dup := e.answers[a.ApprovalID]; dup && reason == "" {
			reason = "the request was already answered"
		}
		if reason != "" {
			e.st.ignoreApproval(w, a, reason)
			continue
		}
		if e.answers == nil {
			e.answers = map[string]Approval{}
		}
		e.answers[a.ApprovalID] = a
	}
}

// runProgram is the program activity: one run of a code mode program, its
// recorded calls answered from the ledger. It stops at the first call the
// ledger lacks and reports the calls made by then that it lacks.
func (rt *runtime) runProgram(ctx context.Context, in programInput) (programOutput, error) {
	agent, ok := rt.cfg.Agents[in.Agent]
	if !ok {
		return programOutput{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf("aitemporal: no agent %q is registered on this worker", in.Agent), "UnknownAgent", nil)
	}
	tool, ok := agent.Options.Tools.Get(in.ToolName)
	if !ok {
		return programOutput{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf("aitemporal: agent %q has no tool %q on this worker", in.Agent, in.ToolName), "UnknownTool", nil)
	}
	var seed uint64
	if _, err := fmt.Sscan(in.Seed, &seed); err != nil {
		return programOutput{}, temporal.NewNonRetryableApplicationError("aitemporal: invalid program seed", "InvalidInput", err)
	}
	recorded := make(map[int]programCall, len(in.Calls))
	for _, c := range in.Calls {
		if rt.cfg.Store != nil && c.Error == nil {
			var so StoredOutput
			if json.Unmarshal(c.Output, &so) == nil {
				data, err := rt.cfg.Store.Get(ctx, so.Key)
				if err != nil {
					return programOutput{}, fmt.Errorf("aitemporal: reading stored output %q: %w", so.Key, err)
				}
				c.Output = data
			}
		}
		recorded[c.Seq] = c
	}

	rctx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	var (
		mu       sync.Mutex
		pending  []programCall
		replayed int
		diverged *ai.CodeModeError
	)
	// halt ends the run without an answer to the call: the program never
	// sees what happens next.
	halt := func() (json.RawMessage, error) {
		stopRun()
		<-rctx.Done()
		return nil, rctx.Err()
	}
	callTool := func(_ context.Context, seq int, name string, input json.RawMessage) (json.RawMessage, error) {
		mu.Lock()
		rec, ok := recorded[seq]
		switch {
		case ok && (rec.Name != name || !canonjson.Equal(rec.Input, input)):
			if diverged == nil {
				diverged = protocolError(fmt.Sprintf("The program made a different tool call than when it ran before: call %d is %q, it was %q. "+
					"Programs must not depend on the order in which concurrent tool calls finish.", seq, name, rec.Name))
			}
			mu.Unlock()
			return halt()
		case ok:
			replayed++
			mu.Unlock()
			if rec.Error != nil {
				return nil, rec.Error.err()
			}
			return rec.Output, nil
		}
		pending = append(pending, programCall{Seq: seq, Name: name, Input: slices.Clone(input)})
		mu.Unlock()
		return halt()
	}
	stop := heartbeat(ctx)
	value, err := effect.RunProgram(rctx, tool, effect.Program{Source: in.Source, ToolCallID: in.ToolCallID, Seed: seed,
		Time: time.UnixMilli(in.Time), CallTool: callTool})
	stop()
	if ctx.Err() != nil {
		return programOutput{}, ctx.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	switch {
	case diverged != nil:
		return programOutput{Error: programErrorOf(diverged)}, nil
	case len(pending) > 0:
		slices.SortFunc(pending, func(a, b programCall) int { return a.Seq - b.Seq })
		return programOutput{Calls: pending}, nil
	case err == nil && replayed < len(recorded):
		return programOutput{Error: programErrorOf(protocolError(fmt.Sprintf(
			"The program finished after %d of the %d tool calls it made when it ran before.", replayed, len(recorded))))}, nil
	case err != nil:
		var ce *ai.CodeModeError
		switch {
		case errors.As(err, &ce) && ce.Code == ai.CodeModeConcurrencyLimit:
			// The worker was busy: another attempt may find room.
			return programOutput{}, temporal.NewApplicationError(ce.Error(), ce.Code)
		case errors.As(err, &ce):
			return programOutput{Error: programErrorOf(ce)}, nil
		}
		return programOutput{}, temporal.NewNonRetryableApplicationError(err.Error(), fmt.Sprintf("%T", err), err)
	}
	return programOutput{Value: value}, nil
}
