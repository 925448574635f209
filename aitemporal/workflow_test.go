package aitemporal_test

import (
	"context"
	"errors"
	"go.temporal.io/sdk/workflow"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// A three-step run: the model searches, calls the tool it found, and
// answers. Each step's model call sees exactly the tools discovered before
// it; the tool ran once, in an activity.
func TestToolSearchRun(t *testing.T) {
	var runs counter
	model := aitest.NewModel(
		toolStep(call("c1", "search", `{"query":"weather"}`)),
		toolStep(call("c2", "getWeather", `{"city":"Oslo"}`)),
		textStep("It is 21 degrees in Oslo."),
	)
	env := newEnv(t, config(model, travelTools(&runs, nil), nil))
	var started []string
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		started = append(started, info.ActivityType.Name)
	})
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Weather in Oslo?"})
	res := result(t, env)

	assert.Equal(t, "It is 21 degrees in Oslo.", res.Text)
	assert.Equal(t, ai.FinishStop, res.FinishReason)
	assert.Equal(t, []string{"getWeather"}, res.Discovered)
	require.Len(t, res.Steps, 3)
	assert.Equal(t, []int{0, 1, 2}, []int{res.Steps[0].Number, res.Steps[1].Number, res.Steps[2].Number})
	require.Len(t, res.Steps[1].ToolCalls, 1)
	assert.JSONEq(t, `{"city":"Oslo","temp":21}`, string(res.Steps[1].ToolCalls[0].Output))
	assert.Equal(t, 1, runs.get("getWeather"))
	assert.Equal(t, []string{aitemporal.GenerateActivity, aitemporal.GenerateActivity, aitemporal.ToolActivity, aitemporal.GenerateActivity},
		started, "the search runs in the workflow; the tool and the model calls are activities")

	calls := model.Calls()
	require.Len(t, calls, 3)
	assert.Equal(t, []string{"search"}, toolNames(calls[0]))
	assert.Equal(t, []string{"search", "getWeather"}, toolNames(calls[1]))
	assert.Equal(t, []string{"search", "getWeather"}, toolNames(calls[2]))
	assert.Equal(t, provider.SystemMessage{Content: "You plan trips."}, calls[0].Prompt[0])
	assert.JSONEq(t, `{"type":"json","value":{"city":"Oslo","temp":21}}`, jsonOf(t, toolResults(calls[2])["c2"]))

	// The response messages continue the conversation.
	require.Len(t, res.ResponseMessages, 5)
	assert.IsType(t, ai.AssistantMessage{}, res.ResponseMessages[4])

	v, err := env.QueryWorkflow(aitemporal.ProgressQuery)
	require.NoError(t, err)
	var p aitemporal.Progress
	require.NoError(t, v.Get(&p))
	assert.True(t, p.Done)
	assert.Len(t, p.Steps, 3)
	assert.Equal(t, []string{"getWeather"}, p.Discovered)
}

// A tool activity that fails is retried by its retry policy; the model
// only sees the result of the attempt that succeeded.
func TestToolActivityRetried(t *testing.T) {
	var runs counter
	var keys []string
	tools := travelTools(&runs, func(ctx context.Context, in cityIn, attempt int) (forecast, error) {
		key, ok := aitemporal.IdempotencyKey(ctx)
		require.True(t, ok, "a durable tool call has an idempotency key")
		keys = append(keys, key)
		if attempt == 1 {
			return forecast{}, errors.New("weather service unavailable")
		}
		return forecast{City: in.City, Temp: 18}, nil
	})
	model := aitest.NewModel(
		toolStep(call("c1", "search", `{"query":"weather"}`)),
		toolStep(call("c2", "getWeather", `{"city":"Bergen"}`)),
		textStep("18 degrees."),
	)
	env := newEnv(t, config(model, tools, nil))
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Weather in Bergen?"})
	res := result(t, env)
	assert.Equal(t, 2, runs.get("getWeather"))
	require.Len(t, keys, 2)
	assert.Equal(t, keys[0], keys[1], "the retry has the first attempt's idempotency key")
	assert.Contains(t, keys[0], "/c2", "the key names the call")
	assert.Empty(t, res.Steps[1].ToolCalls[0].Error)
	assert.JSONEq(t, `{"city":"Bergen","temp":18}`, string(res.Steps[1].ToolCalls[0].Output))
	assert.JSONEq(t, `{"type":"json","value":{"city":"Bergen","temp":18}}`, jsonOf(t, toolResults(model.Calls()[2])["c2"]))
}

// A tool error marked non-retryable is not retried: the model is told the
// error at once, and the run goes on.
func TestNonRetryableToolErrorReachesTheModel(t *testing.T) {
	var runs counter
	tools := travelTools(&runs, func(context.Context, cityIn, int) (forecast, error) {
		return forecast{}, aitemporal.NonRetryable(errors.New("no such city: Atlantis"))
	})
	model := aitest.NewModel(
		toolStep(call("c1", "search", `{"query":"weather"}`)),
		toolStep(call("c2", "getWeather", `{"city":"Atlantis"}`)),
		textStep("Atlantis does not exist."),
	)
	env := newEnv(t, config(model, tools, nil))
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Weather in Atlantis?"})
	res := result(t, env)
	assert.Equal(t, 1, runs.get("getWeather"), "not retried")
	assert.Equal(t, "no such city: Atlantis", res.Steps[1].ToolCalls[0].Error)
	assert.Equal(t, provider.ErrorTextOutput{Value: "no such city: Atlantis"}, toolResults(model.Calls()[2])["c2"])
	assert.Equal(t, "Atlantis does not exist.", res.Text)
}

// A tool error that stays after the last attempt reaches the model too.
func TestToolErrorAfterTheLastAttempt(t *testing.T) {
	var runs counter
	tools := travelTools(&runs, func(context.Context, cityIn, int) (forecast, error) {
		return forecast{}, errors.New("timeout talking to the weather service")
	})
	model := aitest.NewModel(
		toolStep(call("c1", "search", `{"query":"weather"}`)),
		toolStep(call("c2", "getWeather", `{"city":"Oslo"}`)),
		textStep("Sorry."),
	)
	env := newEnv(t, config(model, tools, nil))
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Weather?"})
	res := result(t, env)
	assert.Equal(t, 3, runs.get("getWeather"), "three attempts")
	assert.Equal(t, provider.ErrorTextOutput{Value: "timeout talking to the weather service"}, toolResults(model.Calls()[2])["c2"])
	assert.Equal(t, "Sorry.", res.Text)
}

// A call that needs approval waits for a signal; once approved it runs
// before the next model call, and the tools found before the pause stay
// visible.
func TestApprovalBySignal(t *testing.T) {
	for _, approved := range []bool{true, false} {
		t.Run(map[bool]string{true: "approved", false: "denied"}[approved], func(t *testing.T) {
			var runs counter
			model := aitest.NewModel(
				toolStep(call("c1", "search", `{"query":"email"}`)),
				toolStep(call("c2", "sendEmail", `{"to":"bob"}`)),
				textStep("Done."),
			)
			env := newEnv(t, config(model, travelTools(&runs, nil), nil))
			var waiting aitemporal.Progress
			env.RegisterDelayedCallback(func() {
				v, err := env.QueryWorkflow(aitemporal.ProgressQuery)
				require.NoError(t, err)
				require.NoError(t, v.Get(&waiting))
				require.Len(t, waiting.PendingApprovals, 1)
				assert.Equal(t, 0, runs.get("sendEmail"), "nothing runs before the answer")
				// An answer to no pending request is dropped.
				env.SignalWorkflow(aitemporal.ApprovalSignal, aitemporal.Approval{ApprovalID: "unknown", Approved: true})
				env.SignalWorkflow(aitemporal.ApprovalSignal, aitemporal.Approval{
					ApprovalID: waiting.PendingApprovals[0].ApprovalID, Approved: approved, Reason: "checked"})
			}, 48*time.Hour)
			env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Mail bob."})
			res := result(t, env)

			assert.Equal(t, "sendEmail", waiting.PendingApprovals[0].ToolName)
			assert.JSONEq(t, `{"to":"bob"}`, string(waiting.PendingApprovals[0].Input))
			assert.Len(t, waiting.Steps, 2)
			assert.Equal(t, "pending", waiting.Steps[1].ToolCalls[0].Approval)

			require.Len(t, res.Steps, 3)
			tc := res.Steps[1].ToolCalls[0]
			calls := model.Calls()
			require.Len(t, calls, 3)
			assert.Equal(t, []string{"search", "sendEmail"}, toolNames(calls[2]), "discovered before the pause")
			if approved {
				assert.Equal(t, 1, runs.get("sendEmail"))
				assert.Equal(t, "approved", tc.Approval)
				assert.JSONEq(t, `"sent to bob"`, string(tc.Output))
				assert.Equal(t, provider.TextOutput{Value: "sent to bob"}, toolResults(calls[2])["c2"])
			} else {
				assert.Equal(t, 0, runs.get("sendEmail"))
				assert.Equal(t, "denied", tc.Approval)
				assert.Equal(t, provider.ExecutionDeniedOutput{Reason: "checked"}, toolResults(calls[2])["c2"])
			}
			// The answer is part of the conversation the run returns.
			var answered bool
			for _, m := range res.ResponseMessages {
				if tm, ok := m.(ai.ToolMessage); ok {
					for _, p := range tm.Content {
						if r, ok := p.(ai.ToolApprovalResponsePart); ok {
							answered = r.ApprovalID == waiting.PendingApprovals[0].ApprovalID && r.Approved == approved
						}
					}
				}
			}
			assert.True(t, answered)
		})
	}
}

// Cancelling the workflow cancels the running tool through its context and
// ends the run as cancelled.
func TestCancellation(t *testing.T) {
	var runs counter
	toolCancelled := make(chan struct{})
	var env interface{ CancelWorkflow() }
	tools := travelTools(&runs, func(ctx context.Context, _ cityIn, _ int) (forecast, error) {
		env.CancelWorkflow()
		select {
		case <-ctx.Done():
			close(toolCancelled)
			return forecast{}, ctx.Err()
		case <-time.After(time.Minute):
			return forecast{}, errors.New("not cancelled")
		}
	})
	model := aitest.NewModel(
		toolStep(call("c1", "search", `{"query":"weather"}`)),
		toolStep(call("c2", "getWeather", `{"city":"Oslo"}`)),
		textStep("never"),
	)
	e := newEnv(t, config(model, tools, func(a *aitemporal.Agent) {
		a.ToolActivity.WaitForCancellation = true
	}))
	env = e
	e.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Weather?"})
	require.True(t, e.IsWorkflowCompleted())
	err := e.GetWorkflowError()
	require.Error(t, err)
	var canceled *temporal.CanceledError
	assert.ErrorAs(t, err, &canceled)
	select {
	case <-toolCancelled:
	case <-time.After(30 * time.Second):
		t.Error("the tool's context was not cancelled")
	}
	assert.Len(t, model.Calls(), 2, "no model call after the cancellation")
}

// Cancelling a run that waits for an approval ends it.
func TestCancellationWhileWaitingForApproval(t *testing.T) {
	var runs counter
	model := aitest.NewModel(
		toolStep(call("c1", "search", `{"query":"email"}`)),
		toolStep(call("c2", "sendEmail", `{"to":"bob"}`)),
	)
	env := newEnv(t, config(model, travelTools(&runs, nil), nil))
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Mail bob."})
	var canceled *temporal.CanceledError
	assert.ErrorAs(t, env.GetWorkflowError(), &canceled)
	assert.Equal(t, 0, runs.get("sendEmail"))
}

// With signed approvals, a signal that answers no request, or approves the
// pending call without its signature, is ignored and listed in the
// progress; the signed answer runs the call once.
func TestApprovalSignalsChecked(t *testing.T) {
	var runs counter
	model := aitest.NewModel(
		toolStep(call("c1", "search", `{"query":"email"}`)),
		toolStep(call("c2", "sendEmail", `{"to":"bob"}`)),
		textStep("Done."),
	)
	secrets := [][]byte{[]byte("workflow secret")}
	env := newEnv(t, config(model, travelTools(&runs, nil), func(a *aitemporal.Agent) { a.Options.ToolApprovalSecrets = secrets }))
	var waiting, after aitemporal.Progress
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(aitemporal.ProgressQuery)
		require.NoError(t, err)
		require.NoError(t, v.Get(&waiting))
		require.Len(t, waiting.PendingApprovals, 1)
		p := waiting.PendingApprovals[0]
		require.True(t, ai.VerifyToolApprovalSignature(secrets, p.Signature, p.ApprovalID, p.ToolCallID, p.ToolName, p.Input))
		env.SignalWorkflow(aitemporal.ApprovalSignal, aitemporal.Approval{ApprovalID: "never-issued", Approved: true})
		env.SignalWorkflow(aitemporal.ApprovalSignal, aitemporal.Approval{ApprovalID: p.ApprovalID, Approved: true})
		env.SignalWorkflow(aitemporal.ApprovalSignal, aitemporal.Approval{ApprovalID: p.ApprovalID, Approved: true,
			Signature: ai.SignToolApproval([]byte("other"), p.ApprovalID, p.ToolCallID, p.ToolName, p.Input)})
	}, time.Hour)
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(aitemporal.ProgressQuery)
		require.NoError(t, err)
		require.NoError(t, v.Get(&after))
		assert.Equal(t, 0, runs.get("sendEmail"), "nothing runs on an ignored approval")
		p := waiting.PendingApprovals[0]
		env.SignalWorkflow(aitemporal.ApprovalSignal, aitemporal.Approval{ApprovalID: p.ApprovalID, Approved: true, Signature: p.Signature})
	}, 2*time.Hour)
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Mail bob."})
	result(t, env)
	assert.Equal(t, 1, runs.get("sendEmail"))
	var reasons []string
	for _, ig := range after.IgnoredApprovals {
		reasons = append(reasons, ig.ApprovalID+": "+ig.Reason)
	}
	p := waiting.PendingApprovals[0]
	assert.Equal(t, []string{"never-issued: answers no pending request", p.ApprovalID + ": missing signature", p.ApprovalID + ": invalid signature"}, reasons)
	assert.Len(t, after.PendingApprovals, 1, "the run still waits")
}

// A run bounded to two steps per workflow run continues as new after the
// second step; the new run takes over the conversation, the steps, the
// usage and the discovered tools, and ends as one long run would.
func TestContinueAsNew(t *testing.T) {
	var runs counter
	usage := func(r aitest.Response) aitest.Response {
		r.Usage = provider.Usage{InputTokens: provider.InputTokens{Total: new(10)}, OutputTokens: provider.OutputTokens{Total: new(1)}}
		return r
	}
	model := aitest.NewModel(
		usage(toolStep(call("c1", "search", `{"query":"weather"}`))),
		usage(toolStep(call("c2", "getWeather", `{"city":"Bergen"}`))),
		usage(textStep("18 degrees.")),
	)
	cfg := config(model, travelTools(&runs, nil), func(a *aitemporal.Agent) {
		a.ContinueAsNewAfter = aitemporal.ContinueAsNew{Steps: 2}
	})
	env := newEnv(t, cfg)
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Weather in Bergen?"})
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	var next aitemporal.Input
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.NotNil(t, next.Carried)
	assert.Len(t, next.Carried.Steps, 2)
	assert.Equal(t, []string{"getWeather"}, next.Carried.Discovered)
	assert.Equal(t, 1, next.Carried.Runs)

	env = newEnv(t, cfg)
	env.ExecuteWorkflow(aitemporal.WorkflowName, next)
	res := result(t, env)
	assert.Equal(t, "18 degrees.", res.Text)
	require.Len(t, res.Steps, 3)
	assert.Equal(t, []int{0, 1, 2}, []int{res.Steps[0].Number, res.Steps[1].Number, res.Steps[2].Number})
	assert.Equal(t, 30, *res.Usage.InputTokens, "usage of both runs")
	assert.Equal(t, []string{"getWeather"}, res.Discovered)
	assert.Equal(t, 1, runs.get("getWeather"), "nothing ran twice")
	calls := model.Calls()
	require.Len(t, calls, 3)
	assert.Contains(t, toolNames(calls[2]), "getWeather", "the discovered tool is loaded in the new run")
	// The response messages cover both runs: two steps with tool results,
	// then the answer.
	assert.Len(t, res.ResponseMessages, 5)
}
