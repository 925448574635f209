package aitemporal_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
)

// foldStored folds a stored stream, as durablechat serves it, into a
// message, continuing cont when it is not nil.
func foldStored(t *testing.T, store uistream.StreamStore, id string, cont *uistream.Message) uistream.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var opts uistream.ReadOptions
	if cont != nil {
		m := cloneMessage(t, *cont)
		opts.Message = &m
	}
	chunks := func(yield func(uistream.Chunk, error) bool) {
		if !yield(uistream.Start{MessageID: "m1"}, nil) {
			return
		}
		for c, err := range aitemporal.NormalizeStream(store.Read(ctx, id, 0)) {
			if !yield(c, err) {
				return
			}
		}
	}
	var msg uistream.Message
	for m, err := range uistream.ReadMessage(chunks, &opts) {
		require.NoError(t, err)
		msg = m
	}
	return msg
}

// TestStreamPublishing runs an agent that streams through an approval
// pause: the first stream ends with the signed approval request, the
// second continues the message with the approved call's output and the
// final text; the messages hold what the history records.
func TestStreamPublishing(t *testing.T) {
	var runs counter
	model := aitest.NewModel(
		toolStep(call("c1", "search", `{"query":"email"}`)),
		aitest.Response{Content: append([]provider.Content{aitest.Text("I will mail bob.")}, call("c2", "sendEmail", `{"to":"bob"}`)), FinishReason: aitest.ToolCalls},
		textStep("Done."),
	)
	secrets := [][]byte{[]byte("stream secret")}
	store := uistream.NewMemoryStore()
	cfg := config(model, travelTools(&runs, nil), func(a *aitemporal.Agent) { a.Options.ToolApprovalSecrets = secrets })
	cfg.Stream = &aitemporal.Streaming{Store: store}
	env := newEnv(t, cfg)
	var waiting aitemporal.Progress
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(aitemporal.ProgressQuery)
		require.NoError(t, err)
		require.NoError(t, v.Get(&waiting))
		require.Len(t, waiting.PendingApprovals, 1)
		p := waiting.PendingApprovals[0]
		env.SignalWorkflow(aitemporal.ApprovalSignal, aitemporal.Approval{ApprovalID: p.ApprovalID, Approved: true, Signature: p.Signature})
	}, time.Hour)
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Mail bob.", Stream: true})
	res := result(t, env)
	require.Len(t, res.Steps, 3)

	wid := "default-test-workflow-id"
	first := foldStored(t, store, aitemporal.DefaultStreamID(aitemporal.StreamKey{WorkflowID: wid}), nil)
	var kinds []string
	for _, p := range first.Parts {
		kinds = append(kinds, p.PartType())
	}
	assert.Equal(t, []string{"step-start", "tool-search", "step-start", "text", "tool-sendEmail"}, kinds)
	assert.Equal(t, "I will mail bob.", first.Parts[3].(uistream.TextPart).Text)
	assert.Equal(t, uistream.OutputAvailable, first.Parts[1].(uistream.ToolPart).State)
	mail := first.Parts[4].(uistream.ToolPart)
	require.Equal(t, uistream.ApprovalRequested, mail.State)
	assert.Equal(t, waiting.PendingApprovals[0].ApprovalID, mail.Approval.ID)
	assert.Equal(t, waiting.PendingApprovals[0].Signature, mail.Approval.Signature, "the request carries its signature")
	assert.True(t, ai.VerifyToolApprovalSignature(secrets, mail.Approval.Signature, mail.Approval.ID, "c2", "sendEmail", mail.Input))

	// The client answers; the run's next stream continues the message.
	answered := approve(t, first)
	second := foldStored(t, store, aitemporal.DefaultStreamID(aitemporal.StreamKey{WorkflowID: wid, After: mail.Approval.ID}), &answered)
	kinds = nil
	for _, p := range second.Parts {
		kinds = append(kinds, p.PartType())
	}
	assert.Equal(t, []string{"step-start", "tool-search", "step-start", "text", "tool-sendEmail", "step-start", "text"}, kinds)
	mail = second.Parts[4].(uistream.ToolPart)
	assert.Equal(t, uistream.OutputAvailable, mail.State)
	assert.JSONEq(t, `"sent to bob"`, string(mail.Output))
	assert.NotEmpty(t, mail.ToolMetadata[uistream.ResultSignatureKey], "the result is signed for the client to send back")
	assert.Equal(t, res.Text, second.Parts[6].(uistream.TextPart).Text)
	assert.Equal(t, 1, runs.get("sendEmail"))
}

// TestStreamNeedsConfig: a run that asks for a stream from workers
// without a Config.Stream fails at once.
func TestStreamNeedsConfig(t *testing.T) {
	env := newEnv(t, config(aitest.NewModel(textStep("Hi.")), nil, nil))
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Hi.", Stream: true})
	require.True(t, env.IsWorkflowCompleted())
	require.ErrorContains(t, env.GetWorkflowError(), "no Config.Stream")
	require.ErrorContains(t, aitemporal.Register(newRegistry(), &aitemporal.Config{Stream: &aitemporal.Streaming{}}), "Stream.Store is required")
}

// TestStreamOfFailedRun: a run that fails ends its stream with an error
// chunk, and the stream is finished.
func TestStreamOfFailedRun(t *testing.T) {
	store := uistream.NewMemoryStore()
	cfg := config(aitest.NewModel(aitest.Response{Err: errors.New("the model is down")}), nil, nil)
	cfg.Stream = &aitemporal.Streaming{Store: store}
	env := newEnv(t, cfg)
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Hi.", Stream: true})
	require.True(t, env.IsWorkflowCompleted())
	require.Error(t, env.GetWorkflowError())

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var streamErr *uistream.StreamError
	for _, err := range uistream.ReadMessage(func(yield func(uistream.Chunk, error) bool) {
		for c, err := range aitemporal.NormalizeStream(store.Read(ctx, "default-test-workflow-id", 0)) {
			if !yield(c, err) {
				return
			}
		}
	}, nil) {
		if err != nil {
			require.ErrorAs(t, err, &streamErr)
		}
	}
	require.NotNil(t, streamErr, "the stream reports the failure")
	assert.Equal(t, uistream.DefaultErrorText, streamErr.ErrorText)
}

// TestStreamContinuesAsNew: a run that continues as new goes on publishing
// to the same stream, which ends once, with the last run.
func TestStreamContinuesAsNew(t *testing.T) {
	var runs counter
	model := aitest.NewModel(
		toolStep(call("c1", "search", `{"query":"weather"}`)),
		toolStep(call("c2", "getWeather", `{"city":"Bergen"}`)),
		textStep("18 degrees."),
	)
	store := uistream.NewMemoryStore()
	cfg := config(model, travelTools(&runs, nil), func(a *aitemporal.Agent) {
		a.ContinueAsNewAfter = aitemporal.ContinueAsNew{Steps: 2}
	})
	cfg.Stream = &aitemporal.Streaming{Store: store}
	env := newEnv(t, cfg)
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Weather in Bergen?", Stream: true})
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	var next aitemporal.Input
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	assert.True(t, next.Stream, "the new run streams too")

	env = newEnv(t, cfg)
	env.ExecuteWorkflow(aitemporal.WorkflowName, next)
	res := result(t, env)
	msg := foldStored(t, store, "default-test-workflow-id", nil)
	var kinds []string
	for _, p := range msg.Parts {
		kinds = append(kinds, p.PartType())
	}
	assert.Equal(t, []string{"step-start", "tool-search", "step-start", "tool-getWeather", "step-start", "text"}, kinds)
	assert.Equal(t, res.Text, msg.Parts[5].(uistream.TextPart).Text)
}
