package ai_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

type mailIn struct {
	To string `json:"to"`
}

// mailTools returns tools a, b, c and d that record their runs.
func mailTools(runs *[]string, mu *sync.Mutex) ai.Tools {
	mk := func(name string) ai.Tool {
		return ai.NewTool(ai.ToolDef[mailIn, string]{
			Description: "send mail " + name,
			Execute: func(_ context.Context, in mailIn, _ ai.ToolExecutionOptions) (string, error) {
				mu.Lock()
				*runs = append(*runs, name)
				mu.Unlock()
				return name + " sent to " + in.To, nil
			},
		})
	}
	return ai.Tools{{Name: "a", Tool: mk("a")}, {Name: "b", Tool: mk("b")}, {Name: "c", Tool: mk("c")}, {Name: "d", Tool: mk("d")}}
}

func mixedApproval() *ai.ToolApproval {
	return &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{
		"a": ai.Rule(ai.Approved),
		"b": ai.Rule(ai.Denied.WithReason("nope")),
		"c": {Func: func(_ context.Context, in json.RawMessage, req ai.ApprovalRequest) (ai.ApprovalStatus, error) {
			return ai.RequiresApproval.WithReason("check " + req.ToolCall.ToolCallID), nil
		}},
	}}
}

func mixedCalls() aitest.Response {
	return toolStep(tc("c1", "a", `{"to":"x"}`), tc("c2", "b", `{"to":"x"}`), tc("c3", "c", `{"to":"x"}`), tc("c4", "d", `{"to":"x"}`))
}

func TestApprovalMixedInOneStep(t *testing.T) {
	var runs []string
	var mu sync.Mutex
	model := aitest.NewModel(mixedCalls(), textStep("never"))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: mailTools(&runs, &mu), ToolApproval: mixedApproval(),
		StopWhen: ai.StepCountIs(5), Prompt: "go", GenerateID: sequence(),
	})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"a", "d"}, runs, "b is denied and c waits; neither runs")
	assert.Len(t, res.Steps, 1, "the loop stops for the pending approval")
	var kinds []string
	for _, p := range res.Steps[0].Content {
		switch p := p.(type) {
		case ai.ToolCall:
			kinds = append(kinds, "call "+p.ToolName)
		case ai.ToolResult:
			kinds = append(kinds, "result "+p.ToolName)
		case ai.ToolApprovalRequest:
			kinds = append(kinds, "request "+p.ToolCall.ToolName)
		case ai.ToolApprovalResponse:
			kinds = append(kinds, "response "+p.ToolCall.ToolName)
		}
	}
	assert.Equal(t, []string{"call a", "call b", "call c", "call d", "result d",
		"request a", "request b", "request c", "response a", "response b", "result a"}, kinds)
	reqs := res.Steps[0].ApprovalRequests()
	assert.True(t, reqs[0].IsAutomatic)
	assert.Equal(t, "check c3", reqs[2].Reason)
	assert.False(t, reqs[2].IsAutomatic)
	tool := res.Steps[0].Response.Messages[1].(ai.ToolMessage)
	var shape []string
	for _, p := range tool.Content {
		switch p := p.(type) {
		case ai.ToolResultPart:
			shape = append(shape, "result "+p.ToolCallID+" "+p.Output.OutputType())
		case ai.ToolApprovalResponsePart:
			shape = append(shape, "response")
		}
	}
	assert.Equal(t, []string{"result c1 text", "response", "response", "result c2 execution-denied", "result c4 text"}, shape)
}

func TestApprovalMixedInOneStepStream(t *testing.T) {
	var runs []string
	var mu sync.Mutex
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: aitest.NewModel(mixedCalls()), Tools: mailTools(&runs, &mu), ToolApproval: mixedApproval(),
		StopWhen: ai.StepCountIs(5), Prompt: "go",
	})
	require.NoError(t, err)
	var parts []string
	for p, err := range res.Parts() {
		require.NoError(t, err)
		switch p := p.(type) {
		case ai.ToolCall:
			parts = append(parts, "call "+p.ToolName)
		case ai.ToolApprovalRequest:
			parts = append(parts, "request "+p.ToolCall.ToolName)
		case ai.ToolApprovalResponse:
			parts = append(parts, "response "+p.ToolCall.ToolName)
		case ai.ToolOutputDenied:
			parts = append(parts, "denied "+p.ToolName)
		case ai.ToolResult:
			parts = append(parts, "result "+p.ToolName)
		}
	}
	assert.Equal(t, []string{
		"call a", "request a", "response a",
		"call b", "request b", "response b", "denied b",
		"call c", "request c",
		"call d",
		"result a", "result d",
	}, parts)
	assert.ElementsMatch(t, []string{"a", "d"}, runs)
}

func sequence() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return "id" + string(rune('0'+n))
	}
}

// pendingHistory is a conversation that ends with an approval request for
// a call of sendEmail, answered by response.
func pendingHistory(response ai.ToolApprovalResponsePart) []ai.Message {
	return []ai.Message{
		ai.UserText("mail bob"),
		ai.AssistantMessage{Content: []ai.AssistantPart{
			ai.ToolCallPart{ToolCallID: "c1", ToolName: "sendEmail", Input: json.RawMessage(`{"to":"bob"}`)},
			ai.ToolApprovalRequestPart{ApprovalID: "ap1", ToolCallID: "c1"},
		}},
		ai.ToolMessage{Content: []ai.ToolPart{response}},
	}
}

func approvalSearchTools(sent *[]string) ai.Tools {
	send := ai.NewTool(ai.ToolDef[mailIn, string]{
		Description:  "Send an email.",
		DeferLoading: true,
		NeedsApproval: func(context.Context, mailIn, ai.ApprovalOptions) (bool, error) {
			return true, nil
		},
		Execute: func(_ context.Context, in mailIn, _ ai.ToolExecutionOptions) (string, error) {
			*sent = append(*sent, in.To)
			return "sent", nil
		},
	})
	return ai.Tools{{Name: "search", Tool: ai.ToolSearch()}, {Name: "sendEmail", Tool: send}}
}

func TestApprovalAcrossSearchAndResume(t *testing.T) {
	var sent []string
	tools := approvalSearchTools(&sent)
	// First generation: search, find sendEmail, call it: it waits.
	first, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(
			toolStep(tc("c0", "search", `{"query":"email"}`)),
			toolStep(tc("c1", "sendEmail", `{"to":"bob"}`))),
		Tools: tools, StopWhen: ai.StepCountIs(5), Prompt: "mail bob",
	})
	require.NoError(t, err)
	require.Len(t, first.Steps, 2)
	reqs := first.Steps[1].ApprovalRequests()
	require.Len(t, reqs, 1)
	assert.Empty(t, sent)

	// The application stores the conversation and asks a person.
	history := append([]ai.Message{ai.UserText("mail bob")}, first.ResponseMessages...)
	data, err := json.Marshal(history)
	require.NoError(t, err)
	restored, err := ai.UnmarshalMessages(data)
	require.NoError(t, err)
	restored = append(restored, ai.ToolMessage{Content: []ai.ToolPart{
		ai.ToolApprovalResponsePart{ApprovalID: reqs[0].ApprovalID, Approved: true},
	}})

	// Second generation: the approved call runs before the model is called,
	// although this generation has not discovered sendEmail.
	model := aitest.NewModel(textStep("Mail sent."))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: tools, StopWhen: ai.StepCountIs(5), Messages: restored,
		OnToolExecutionStart: func(ai.ToolExecutionStartEvent) {
			assert.Empty(t, model.Calls(), "executed before the first model call")
		},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"bob"}, sent)
	assert.Equal(t, "Mail sent.", res.Text)
	require.IsType(t, ai.ToolMessage{}, res.ResponseMessages[0])
	prompt := model.Calls()[0].Prompt
	last := prompt[len(prompt)-1].(provider.ToolMessage)
	assert.Len(t, last.Content, 1, "the approval response is not sent to the model")
	assert.Equal(t, "c1", last.Content[0].(provider.ToolResultPart).ToolCallID)
	assert.Equal(t, []string{"search"}, names(model.Calls()[0].Tools), "discovery did not carry over")
}

func TestApprovalDeniedNeverRuns(t *testing.T) {
	var sent []string
	model := aitest.NewModel(textStep("Not sent."))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: approvalSearchTools(&sent), StopWhen: ai.StepCountIs(5),
		Messages: pendingHistory(ai.ToolApprovalResponsePart{ApprovalID: "ap1", Approved: false, Reason: "user said no"}),
	})
	require.NoError(t, err)
	assert.Empty(t, sent)
	denied := res.ResponseMessages[0].(ai.ToolMessage).Content[0].(ai.ToolResultPart).Output
	assert.Equal(t, ai.ExecutionDeniedOutput{Reason: "user said no"}, denied)

	// The same through the stream.
	sent = nil
	stream, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: aitest.NewModel(textStep("Not sent.")), Tools: approvalSearchTools(&sent), StopWhen: ai.StepCountIs(5),
		Messages: pendingHistory(ai.ToolApprovalResponsePart{ApprovalID: "ap1", Approved: false}),
	})
	require.NoError(t, err)
	parts, err := collect(t, stream)
	require.NoError(t, err)
	assert.Equal(t, []string{"start", "tool-output-denied", "start-step", "text-start", "text-delta Not sent.", "text-end", "finish-step stop", "finish stop"}, parts)
	assert.Empty(t, sent)
}

func TestApprovalResponseForUnknownRequest(t *testing.T) {
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(textStep("x")), Tools: approvalSearchTools(new([]string)),
		Messages: pendingHistory(ai.ToolApprovalResponsePart{ApprovalID: "nope", Approved: true}),
	})
	var ia *ai.InvalidToolApprovalError
	require.ErrorAs(t, err, &ia)
	assert.Equal(t, "nope", ia.ApprovalID)
}

func TestApprovalPolicyDecidesEveryCall(t *testing.T) {
	var runs []string
	var mu sync.Mutex
	var seen []string
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(toolStep(tc("c1", "a", `{"to":"x"}`), tc("c2", "b", `{"to":"y"}`)), textStep("done")),
		Tools: mailTools(&runs, &mu), StopWhen: ai.StepCountIs(5), Prompt: "go",
		ToolApproval: &ai.ToolApproval{Decide: func(_ context.Context, req ai.ApprovalRequest) (ai.ApprovalStatus, error) {
			seen = append(seen, req.ToolCall.ToolName)
			if req.ToolCall.ToolName == "b" {
				return ai.Denied, nil
			}
			return ai.Approved, nil
		}},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, seen)
	assert.Equal(t, []string{"a"}, runs)
	assert.Len(t, res.Steps, 2, "auto-decided calls let the loop go on")
}

func TestRepairToolCall(t *testing.T) {
	var mu sync.Mutex
	var got []mailIn
	tool := ai.NewTool(ai.ToolDef[mailIn, string]{Execute: func(_ context.Context, in mailIn, _ ai.ToolExecutionOptions) (string, error) {
		mu.Lock() // the calls run in parallel
		defer mu.Unlock()
		got = append(got, in)
		return "ok", nil
	}})
	var errs []error
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(toolStep(tc("c1", "mial", `{"to":"a"}`), tc("c2", "mail", `{"to":1}`), tc("c3", "mail", `{"to":2}`))),
		Tools: ai.Tools{{Name: "mail", Tool: tool}}, Prompt: "go",
		RepairToolCall: func(_ context.Context, r ai.RepairRequest) (*ai.RepairedCall, error) {
			errs = append(errs, r.Err)
			assert.NotNil(t, r.InputSchema("mail"))
			switch r.ToolCallID {
			case "c1":
				return &ai.RepairedCall{ToolName: "mail", Input: r.Input}, nil
			case "c2":
				return &ai.RepairedCall{ToolName: "mail", Input: `{"to":"one"}`}, nil
			}
			return nil, errors.New("cannot")
		},
	})
	require.NoError(t, err)
	assert.ElementsMatch(t, []mailIn{{To: "a"}, {To: "one"}}, got)
	var nst *ai.NoSuchToolError
	assert.ErrorAs(t, errs[0], &nst)
	var iti *ai.InvalidToolInputError
	assert.ErrorAs(t, errs[1], &iti)
	calls := res.ToolCalls()
	assert.False(t, calls[0].Invalid)
	assert.Equal(t, "mail", calls[0].ToolName)
	var re *ai.ToolCallRepairError
	require.ErrorAs(t, calls[2].Error, &re)
	assert.EqualError(t, re.Cause, "cannot")
}
