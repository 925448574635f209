package aitemporal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/effect"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
)

// run is the workflow. It drives the ai package's engine with workflow
// effects: one ai.GenerateText per stretch between approval pauses, the
// conversation carried over as messages.
func (rt *runtime) run(wctx workflow.Context, in Input) (*Result, error) {
	agent, ok := rt.cfg.Agents[in.Agent]
	if !ok {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("aitemporal: no agent %q is registered", in.Agent), "UnknownAgent", nil)
	}
	st := &runState{}
	info := workflow.GetInfo(wctx)
	var pub *runPublisher
	if in.Stream {
		if rt.cfg.Stream == nil {
			return nil, temporal.NewNonRetryableApplicationError("aitemporal: the run asks for a stream and the workers have no Config.Stream", "NoStream", nil)
		}
		after := ""
		if in.Carried != nil {
			after = in.Carried.StreamAfter
		}
		pub = newRunPublisher(rt.cfg.Stream, agent, StreamKey{WorkflowID: info.WorkflowExecution.ID, After: after})
	}
	if err := workflow.SetQueryHandler(wctx, ProgressQuery, func() (Progress, error) { return st.progress(), nil }); err != nil {
		return nil, err
	}

	actx, cancelActivities := workflow.WithCancel(wctx)
	gctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	eff := &effects{rt: rt, agent: agent, agentName: in.Agent, root: actx, cancel: cancel, st: st, pub: pub}
	runID := strings.ReplaceAll(info.WorkflowExecution.RunID, "-", "")
	eff.idPrefix = "aitmp-" + runID[:min(len(runID), 12)]
	ctx := effect.With(withWorkflow(gctx, actx), eff)

	// The workflow's cancellation cancels the generation.
	workflow.Go(actx, func(c workflow.Context) {
		c.Done().Receive(c, nil)
		cancel(context.Canceled)
	})
	var timedOut error
	var deadline time.Time
	if total := agent.Options.Timeout.Total; total > 0 {
		deadline = workflow.Now(wctx).Add(total)
		if in.Carried != nil && !in.Carried.Deadline.IsZero() {
			deadline = in.Carried.Deadline // the first run's
		}
		workflow.Go(actx, func(c workflow.Context) {
			if err := workflow.NewTimer(c, max(deadline.Sub(workflow.Now(c)), time.Millisecond)).Get(c, nil); err == nil {
				timedOut = &ai.TimeoutError{Limit: "Total", Duration: total}
				cancel(timedOut)
				cancelActivities()
			}
		})
	}
	fail := func(err error) (*Result, error) {
		st.done = true
		if pub != nil {
			pub.finish(len(st.steps), uistream.Error{ErrorText: uistream.DefaultErrorText})
			dctx, _ := workflow.NewDisconnectedContext(wctx)
			pub.flush(dctx, true)
		}
		switch {
		case wctx.Err() != nil:
			return nil, temporal.NewCanceledError()
		case timedOut != nil:
			return nil, temporal.NewNonRetryableApplicationError(timedOut.Error(), "TimeoutError", nil)
		}
		return nil, err
	}

	opts := agent.Options
	opts.Timeout = ai.Timeout{}
	stop := opts.StopWhen
	if stop == nil {
		stop = ai.StepCountIs(1)
	}
	if c := in.Carried; c != nil {
		st.carry(c)
	}
	startSteps := len(st.prior)
	opts.StopWhen = func(ctx context.Context, steps []*ai.StepResult) (bool, error) {
		all := append(slices.Clip(st.prior), steps...)
		done, err := stop(ctx, all)
		if done || err != nil {
			return done, err
		}
		if agent.ContinueAsNewAfter.due(wctx, len(all)-startSteps) {
			st.continueAsNew = true
			return true, nil
		}
		return false, nil
	}
	onStepEnd, onToolEnd := opts.OnStepEnd, opts.OnToolExecutionEnd
	opts.OnStepEnd = func(s *ai.StepResult) {
		st.addStep(s)
		if pub != nil {
			pub.stepEnded(s, len(st.steps)-1)
		}
		if onStepEnd != nil {
			onStepEnd(s)
		}
	}
	opts.OnToolExecutionEnd = func(ev ai.ToolExecutionEndEvent) {
		if st.toolEnded(ev) && pub != nil {
			c := ev.ToolCall
			if ev.Err != nil {
				pub.output(ai.ToolError{ToolCallID: c.ToolCallID, ToolName: c.ToolName, Input: c.Input, Error: ev.Err, Dynamic: c.Dynamic}, len(st.steps))
			} else {
				pub.output(ai.ToolResult{ToolCallID: c.ToolCallID, ToolName: c.ToolName, Input: c.Input, Output: ev.Output, Dynamic: c.Dynamic}, len(st.steps))
			}
		}
		if onToolEnd != nil {
			onToolEnd(ev)
		}
	}

	messages := in.Messages
	if in.Prompt != "" && in.Messages == nil {
		messages = []ai.Message{ai.UserText(in.Prompt)}
	} else if in.Prompt != "" {
		return fail(temporal.NewNonRetryableApplicationError("aitemporal: set Prompt or Messages, not both", "InvalidPrompt", nil))
	}
	approvals := workflow.GetSignalChannel(wctx, ApprovalSignal)
	var added []ai.Message
	if c := in.Carried; c != nil && c.Added > 0 && c.Added <= len(messages) {
		added = slices.Clone(messages[len(messages)-c.Added:])
	}
	for {
		st.continueAsNew = false
		opts.Messages = messages
		opts.Tools = withDiscovered(agent.Options.Tools, st.discovered)
		res, err := ai.GenerateText(ctx, opts)
		if res != nil {
			st.prior = append(st.prior, res.Steps...)
			added = append(added, res.ResponseMessages...)
			messages = append(slices.Clip(messages), res.ResponseMessages...)
		}
		if err != nil {
			return fail(err)
		}
		pending := pendingApprovals(res)
		if len(pending) == 0 && st.continueAsNew {
			runs := 1
			if in.Carried != nil {
				runs += in.Carried.Runs
			}
			after := ""
			if pub != nil {
				pub.flush(actx, false)
				after = pub.key.After
			}
			return nil, workflow.NewContinueAsNewError(wctx, WorkflowName, Input{Agent: in.Agent, Messages: messages, Stream: in.Stream, Carried: &Carried{
				Steps: st.steps, Discovered: st.discovered, Usage: st.result(res, nil).Usage,
				Added: len(added), Runs: runs, Deadline: deadline, StreamAfter: after,
			}})
		}
		if pub != nil {
			pub.finish(len(st.steps), uistream.Finish{FinishReason: res.FinishReason})
			pub.flush(actx, true)
		}
		if len(pending) == 0 {
			st.done = true
			return st.result(res, added), nil
		}
		st.pending = pending
		answers, err := st.waitForApprovals(actx, approvals, pending, opts.ToolApprovalSecrets)
		if err != nil {
			return fail(err)
		}
		if pub != nil {
			pub.setKey(StreamKey{WorkflowID: info.WorkflowExecution.ID, After: pending[0].ApprovalID})
		}
		msg := ai.ToolMessage{}
		for i, a := range answers {
			msg.Content = append(msg.Content, ai.ToolApprovalResponsePart{ApprovalID: a.ApprovalID, Approved: a.Approved, Reason: a.Reason})
			if tc := st.call(pending[i].ToolCallID); tc != nil {
				tc.Approval = approvalWord(a.Approved)
			}
			if pub != nil && !a.Approved {
				pub.output(ai.ToolOutputDenied{ToolCallID: pending[i].ToolCallID, ToolName: pending[i].ToolName}, len(st.steps))
			}
		}
		st.pending = nil
		added = append(added, msg)
		messages = append(slices.Clip(messages), msg)
	}
}

// pendingApprovals returns the approval requests of the final step that
// wait for a person.
func pendingApprovals(res *ai.GenerateTextResult) []PendingApproval {
	last := res.FinalStep()
	if last == nil {
		return nil
	}
	var out []PendingApproval
	for _, r := range last.ApprovalRequests() {
		if r.IsAutomatic {
			continue
		}
		out = append(out, PendingApproval{ApprovalID: r.ApprovalID, ToolCallID: r.ToolCall.ToolCallID,
			ToolName: r.ToolCall.ToolName, Input: r.ToolCall.Input, Reason: r.Reason, Signature: r.Signature})
	}
	return out
}

// waitForApprovals receives approval signals until every pending request
// has an answer, and returns the answers in request order. The first answer
// to a request counts. Signals that answer no pending request, answer one
// a second time, or (when the agent signs its approvals) approve a call
// without that call's signature are ignored and listed in the progress.
func (st *runState) waitForApprovals(ctx workflow.Context, ch workflow.ReceiveChannel, pending []PendingApproval, secrets [][]byte) ([]Approval, error) {
	answers := make([]*Approval, len(pending))
	left := len(pending)
	for left > 0 {
		var a Approval
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(ch, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &a) })
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		sel.Select(ctx)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		i, reason := screenApproval(a, pending, secrets)
		if reason == "" && answers[i] != nil {
			reason = "the request was already answered"
		}
		if reason != "" {
			st.ignoreApproval(ctx, a, reason)
			continue
		}
		answers[i] = &a
		left--
	}
	out := make([]Approval, len(answers))
	for i, a := range answers {
		out[i] = *a
	}
	return out, nil
}

// screenApproval finds the pending request an approval answers and checks
// its signature; reason says why the approval is ignored, if it is.
func screenApproval(a Approval, pending []PendingApproval, secrets [][]byte) (i int, reason string) {
	i = slices.IndexFunc(pending, func(p PendingApproval) bool { return p.ApprovalID == a.ApprovalID })
	switch {
	case i < 0:
		reason = "answers no pending request"
	case a.Approved && len(secrets) > 0 && a.Signature == "":
		reason = "missing signature"
	case a.Approved && len(secrets) > 0 && !ai.VerifyToolApprovalSignature(secrets, a.Signature, a.ApprovalID,
		pending[i].ToolCallID, pending[i].ToolName, pending[i].Input):
		reason = "invalid signature"
	}
	return i, reason
}

// ignoreApproval logs and records an approval signal that is not taken.
func (st *runState) ignoreApproval(ctx workflow.Context, a Approval, reason string) {
	workflow.GetLogger(ctx).Warn("aitemporal: ignoring an approval", "approvalId", a.ApprovalID, "reason", reason)
	st.ignore(IgnoredApproval{ApprovalID: a.ApprovalID, Approved: a.Approved, Reason: reason})
}

// maxIgnored bounds the ignored approvals a run remembers.
const maxIgnored = 100

// ignore records an ignored approval signal, keeping the latest ones.
func (st *runState) ignore(a IgnoredApproval) {
	if len(st.ignored) == maxIgnored {
		st.ignored = slices.Delete(st.ignored, 0, 1)
	}
	st.ignored = append(st.ignored, a)
}

// withDiscovered returns the tools with the deferred tools found in earlier
// stretches of the run loaded from the start, so that an approval pause
// does not hide them again.
func withDiscovered(tools ai.Tools, found []string) ai.Tools {
	if len(found) == 0 {
		return tools
	}
	out := slices.Clone(tools)
	for i, nt := range out {
		if nt.Tool.DeferLoading() && slices.Contains(found, nt.Name) {
			out[i].Tool = ai.WithDeferLoading(nt.Tool, false)
		}
	}
	return out
}

// runState is what the run reports: its steps, the tools it discovered and
// the approvals it waits for.
type runState struct {
	steps      []Step
	prior      []*ai.StepResult
	discovered []string
	pending    []PendingApproval
	ignored    []IgnoredApproval
	done       bool
	// carriedUsage is the usage of the runs this one continues.
	carriedUsage ai.Usage
	// continueAsNew is set when the run stopped to continue as new.
	continueAsNew bool
}

// carry takes over the state of the runs this one continues: their steps
// (as empty placeholders for StopWhen), usage and discovered tools.
func (st *runState) carry(c *Carried) {
	st.steps = slices.Clone(c.Steps)
	st.discovered = slices.Clone(c.Discovered)
	st.carriedUsage = c.Usage
	st.prior = make([]*ai.StepResult, len(c.Steps))
	for i := range st.prior {
		st.prior[i] = &ai.StepResult{}
	}
}

// due reports whether a run that took steps steps so far should continue
// as new.
func (c ContinueAsNew) due(w workflow.Context, steps int) bool {
	if c.Steps <= 0 && c.HistoryEvents <= 0 {
		return false
	}
	info := workflow.GetInfo(w)
	return c.Steps > 0 && steps >= c.Steps ||
		c.HistoryEvents > 0 && info.GetCurrentHistoryLength() >= c.HistoryEvents ||
		info.GetContinueAsNewSuggested()
}

func (st *runState) progress() Progress {
	return Progress{Steps: slices.Clone(st.steps), Discovered: slices.Clone(st.discovered),
		PendingApprovals: slices.Clone(st.pending), IgnoredApprovals: slices.Clone(st.ignored), Done: st.done}
}

func (st *runState) addStep(s *ai.StepResult) {
	step := Step{Number: len(st.steps), Provider: s.Provider, ModelID: s.ModelID, Text: s.Text(),
		FinishReason: s.FinishReason, Usage: s.Usage, ResponseID: s.Response.ID}
	find := func(id string) *ToolCall {
		for i := range step.ToolCalls {
			if step.ToolCalls[i].ToolCallID == id {
				return &step.ToolCalls[i]
			}
		}
		return nil
	}
	for _, p := range s.Content {
		switch p := p.(type) {
		case ai.ToolCall:
			tc := ToolCall{ToolCallID: p.ToolCallID, ToolName: p.ToolName, Input: p.Input}
			if p.Invalid && p.Error != nil {
				tc.Error = p.Error.Error()
			}
			step.ToolCalls = append(step.ToolCalls, tc)
		case ai.ToolResult:
			if tc := find(p.ToolCallID); tc != nil {
				tc.Output = outputJSON(p.Output)
			}
			if r, ok := p.Output.(ai.ToolSearchResult); ok {
				for _, c := range r.Tools {
					if !slices.Contains(st.discovered, c.Name) {
						st.discovered = append(st.discovered, c.Name)
					}
				}
			}
		case ai.ToolError:
			if tc := find(p.ToolCallID); tc != nil && p.Error != nil {
				tc.Error = p.Error.Error()
			}
		case ai.ToolApprovalRequest:
			if tc := find(p.ToolCall.ToolCallID); tc != nil {
				tc.Approval = "pending"
			}
		case ai.ToolApprovalResponse:
			if tc := find(p.ToolCall.ToolCallID); tc != nil {
				tc.Approval = approvalWord(p.Approved)
			}
		}
	}
	st.steps = append(st.steps, step)
}

func approvalWord(approved bool) string {
	if approved {
		return "approved"
	}
	return "denied"
}

// call returns the recorded call with the given id, latest step first.
func (st *runState) call(id string) *ToolCall {
	for i := len(st.steps) - 1; i >= 0; i-- {
		for j := range st.steps[i].ToolCalls {
			if st.steps[i].ToolCalls[j].ToolCallID == id {
				return &st.steps[i].ToolCalls[j]
			}
		}
	}
	return nil
}

// toolEnded records the outcome of a call approved after a pause, and
// reports whether it was one; the outcomes of a step's own calls arrive
// with the step.
func (st *runState) toolEnded(ev ai.ToolExecutionEndEvent) bool {
	tc := st.call(ev.ToolCall.ToolCallID)
	if tc == nil || tc.Approval == "" {
		return false
	}
	if ev.Err != nil {
		tc.Error = ev.Err.Error()
	} else {
		tc.Output = outputJSON(ev.Output)
	}
	return true
}

func (st *runState) result(last *ai.GenerateTextResult, added []ai.Message) *Result {
	res := &Result{Text: last.Text, FinishReason: last.FinishReason, Steps: st.steps,
		Discovered: st.discovered, ResponseMessages: added, Usage: st.carriedUsage}
	for _, s := range st.prior {
		res.Usage = addUsage(res.Usage, s.Usage)
	}
	return res
}

func addUsage(a, b ai.Usage) ai.Usage {
	add := func(x, y *int) *int {
		if x == nil && y == nil {
			return nil
		}
		n := 0
		if x != nil {
			n += *x
		}
		if y != nil {
			n += *y
		}
		return &n
	}
	return ai.Usage{
		InputTokens: add(a.InputTokens, b.InputTokens),
		InputTokenDetails: ai.InputTokenDetails{
			NoCacheTokens:    add(a.InputTokenDetails.NoCacheTokens, b.InputTokenDetails.NoCacheTokens),
			CacheReadTokens:  add(a.InputTokenDetails.CacheReadTokens, b.InputTokenDetails.CacheReadTokens),
			CacheWriteTokens: add(a.InputTokenDetails.CacheWriteTokens, b.InputTokenDetails.CacheWriteTokens),
		},
		OutputTokens: add(a.OutputTokens, b.OutputTokens),
		OutputTokenDetails: ai.OutputTokenDetails{
			TextTokens:      add(a.OutputTokenDetails.TextTokens, b.OutputTokenDetails.TextTokens),
			ReasoningTokens: add(a.OutputTokenDetails.ReasoningTokens, b.OutputTokenDetails.ReasoningTokens),
		},
		TotalTokens: add(a.TotalTokens, b.TotalTokens),
	}
}

// effects perform a generation's effects in workflow code: model calls and
// tool executions are activities, concurrency is workflow coroutines, the
// clock is workflow time and ids count up from the run id.
type effects struct {
	rt        *runtime
	agent     *Agent
	agentName string
	// root is the workflow context of the activities; it is cancelled with
	// the run.
	root     workflow.Context
	cancel   context.CancelCauseFunc
	idPrefix string
	ids      int
	// st is the run's state; pub, when set, publishes the run's stream.
	st  *runState
	pub *runPublisher
	// answers holds the approval signals taken for programs' calls and
	// not yet collected by the call they answer; receiving is set while
	// one of those calls receives a signal for all of them.
	answers   map[string]Approval
	receiving bool
}

type workflowKey struct{}

// withWorkflow records the workflow context of the coroutine that runs
// with ctx: a coroutine blocks only through its own workflow context.
func withWorkflow(ctx context.Context, w workflow.Context) context.Context {
	return context.WithValue(ctx, workflowKey{}, w)
}

func (e *effects) workflow(ctx context.Context) workflow.Context {
	if w, ok := ctx.Value(workflowKey{}).(workflow.Context); ok {
		return w
	}
	return e.root
}

// ended cancels the generation when the run was cancelled, so that the
// engine reports the cancellation rather than the failed activity.
func (e *effects) ended(w workflow.Context) {
	if w.Err() != nil {
		e.cancel(context.Canceled)
	}
}

func (e *effects) Generate(ctx context.Context, m provider.LanguageModel, opts *provider.CallOptions, rt effect.Retry) (*provider.GenerateResult, error) {
	name, ok := e.rt.modelName(m)
	if !ok {
		return nil, fmt.Errorf("aitemporal: the model %s %s is not one of Config.Models", m.Provider(), m.ModelID())
	}
	w := e.workflow(ctx)
	in := generateInput{Model: name, Options: opts}
	if e.pub != nil {
		e.pub.flush(w, false)
		in.Stream = &streamTarget{ID: e.pub.id, Step: len(e.st.steps)}
	}
	var out generateOutput
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(w, e.agent.modelOptions(rt.Max)), GenerateActivity, in).Get(w, &out)
	if err != nil {
		e.ended(w)
		return nil, err
	}
	if out.Result == nil {
		return nil, &provider.InvalidResponseDataError{Message: "the model activity returned no result"}
	}
	return out.Result, nil
}

func (e *effects) Stream(context.Context, provider.LanguageModel, *provider.CallOptions, effect.Retry) (*provider.StreamResult, error) {
	return nil, errors.New("aitemporal: durable runs do not stream")
}

func (e *effects) Invoke(ctx context.Context, call effect.Call, local func(context.Context) (any, error)) (any, error) {
	if e.agent.isCaller(call.ToolName) {
		// A code mode tool runs here, in workflow code: its program runs
		// in the program activity and its calls go through the engine
		// (see RunProgram).
		return local(context.WithValue(ctx, codeCallKey{}, call))
	}
	w := e.workflow(ctx)
	ao := e.agent.toolOptions(call.ToolName)
	var out toolOutput
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(w, ao), ToolActivity, toolInput{
		Agent: e.agentName, ToolName: call.ToolName, ToolCallID: call.ToolCallID, Input: call.Input, Step: call.Step,
	}).Get(w, &out)
	if err != nil {
		e.ended(w)
		return nil, toolFailure(call.ToolName, ao, err)
	}
	if out.Stored != nil {
		return *out.Stored, nil
	}
	if out.Output == nil {
		return nil, errors.New("aitemporal: the tool activity returned no output")
	}
	return out.Output, nil
}

// toolFailure turns the error of a tool activity into the error the model
// is told about.
func toolFailure(name string, ao workflow.ActivityOptions, err error) error {
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) {
		return err
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		d := ao.StartToCloseTimeout
		switch timeout.TimeoutType() {
		case enums.TIMEOUT_TYPE_HEARTBEAT:
			// The tool heartbeats from its own goroutine for as long as it
			// runs: a missed heartbeat means the worker was lost, not that
			// the tool took too long.
			return &ToolFailure{ToolName: name, Type: WorkerLost, Err: err, Message: fmt.Sprintf(
				"tool %s did not finish: the worker running it was lost (no heartbeat for %s), and so were its retries", name, ao.HeartbeatTimeout)}
		case enums.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE:
			d = ao.ScheduleToCloseTimeout
		case enums.TIMEOUT_TYPE_SCHEDULE_TO_START:
			d = ao.ScheduleToStartTimeout
		}
		return &ToolFailure{ToolName: name, Message: (&ai.TimeoutError{Limit: "Tool", ToolName: name, Duration: d}).Error(), Type: "TimeoutError", Err: err}
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return &ToolFailure{ToolName: name, Message: app.Message(), Type: app.Type(), Err: err}
	}
	return &ToolFailure{ToolName: name, Message: err.Error(), Err: err}
}

func (e *effects) Parallel(ctx context.Context, n, limit int, task func(ctx context.Context, i int, started func())) {
	w := e.workflow(ctx)
	// Waits for launched tasks hold on when the run is cancelled: their
	// activities are cancelled and they return soon.
	wait, _ := workflow.NewDisconnectedContext(w)
	if limit <= 0 || limit > n {
		limit = n
	}
	running := 0
	for i := range n {
		if err := workflow.Await(w, func() bool { return running < limit || ctx.Err() != nil }); err != nil {
			e.ended(w)
		}
		if ctx.Err() != nil {
			break
		}
		running++
		started := false
		workflow.Go(w, func(c workflow.Context) {
			defer func() {
				running--
				started = true
			}()
			task(withWorkflow(ctx, c), i, func() { started = true })
		})
		_ = workflow.Await(wait, func() bool { return started })
	}
	_ = workflow.Await(wait, func() bool { return running == 0 })
}

func (e *effects) Now() time.Time { return workflow.Now(e.root) }

func (e *effects) NewID() string {
	e.ids++
	return fmt.Sprintf("%s-%d", e.idPrefix, e.ids)
}
