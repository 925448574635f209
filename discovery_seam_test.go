package ai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// Any tool can reach the generation's discovery through its execution
// options: here a tool that loads deferred tools by a naming rule of its
// own, without the search tool. What it loads is callable from the next
// step, and the search telemetry records it.
func TestDiscoveryIsOpenToAnyTool(t *testing.T) {
	var seen []string
	loader := ai.NewTool(ai.ToolDef[struct {
		Prefix string `json:"prefix"`
	}, []string]{Execute: func(ctx context.Context, in struct {
		Prefix string `json:"prefix"`
	}, eo ai.ToolExecutionOptions) ([]string, error) {
		cands, err := eo.Discovery.Candidates()
		if err != nil {
			return nil, err
		}
		var loaded []string
		for _, c := range cands {
			seen = append(seen, c.Name)
			if len(c.Name) >= len(in.Prefix) && c.Name[:len(in.Prefix)] == in.Prefix {
				loaded = append(loaded, c.Name)
			}
		}
		eo.Discovery.Load(loaded...)
		eo.Discovery.Record(ctx, in.Prefix, "", loaded, nil)
		return loaded, nil
	}})
	deferred := func() ai.Tool {
		return ai.NewTool(ai.ToolDef[map[string]any, string]{DeferLoading: true, Description: "x",
			Execute: func(context.Context, map[string]any, ai.ToolExecutionOptions) (string, error) { return "ok", nil }})
	}
	model := aitest.NewModel(
		toolStep(aitest.ToolCall("c1", "loader", `{"prefix":"mail"}`)),
		textStep("done"))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "go", StopWhen: ai.StepCountIs(3),
		Tools: ai.Tools{
			{Name: "toolSearch", Tool: ai.ToolSearch()},
			{Name: "loader", Tool: loader},
			{Name: "mailSend", Tool: deferred()}, {Name: "mailRead", Tool: deferred()}, {Name: "calendar", Tool: deferred()},
		},
	})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"mailSend", "mailRead", "calendar"}, seen)
	calls := model.Calls()
	require.Len(t, calls, 2)
	assert.NotContains(t, names(calls[0].Tools), "mailSend")
	assert.Subset(t, names(calls[1].Tools), []string{"mailSend", "mailRead"})
	assert.NotContains(t, names(calls[1].Tools), "calendar")
	require.NotNil(t, res.ToolSearch)
	require.Len(t, res.ToolSearch.Searches, 1)
	assert.Equal(t, "loader", res.ToolSearch.Searches[0].ToolName)

	// Outside a generation there is nothing to search.
	var d ai.Discovery
	assert.False(t, d.Available())
	_, err = d.Candidates()
	assert.Error(t, err)
}

// Any function tool named as a caller in ToolCallers gets the tools routed
// to it as its callees, in its description and its execution, and calls
// them as the generation calls the model's: validated, under the approval
// policy, with the execution callbacks. Here a tool of the test's own that
// runs every callee once.
func TestCalleesAreOpenToAnyTool(t *testing.T) {
	type lookupIn struct {
		Key string `json:"key"`
	}
	var ran []string
	lookup := func(name string) ai.Tool {
		return ai.NewTool(ai.ToolDef[lookupIn, string]{Description: "Looks " + name + " up.",
			Execute: func(_ context.Context, in lookupIn, eo ai.ToolExecutionOptions) (string, error) {
				ran = append(ran, name+"/"+eo.ToolCallID)
				return name + ":" + in.Key, nil
			}})
	}
	type batchIn struct {
		Input string `json:"input"`
	}
	var outcomes []string
	batch := ai.NewTool(ai.ToolDef[batchIn, []string]{
		DescriptionFunc: func(o ai.DescriptionOptions) string {
			d := "Runs every one of:"
			for _, nt := range o.Callees.Tools() {
				d += " " + nt.Name + " (" + o.Callees.Description(nt.Name) + ")"
			}
			return d
		},
		Execute: func(ctx context.Context, in batchIn, eo ai.ToolExecutionOptions) ([]string, error) {
			for i, nt := range eo.Callees.Tools() {
				out, err := eo.Callees.Call(ctx, nt.Name, json.RawMessage(in.Input), ai.CalleeCallOptions{
					ToolCallID: fmt.Sprintf("%s:%d", eo.ToolCallID, i), Messages: eo.Messages,
					Approve: func(_ context.Context, name string, input json.RawMessage) (ai.ApprovalStatus, error) {
						if strings.Contains(string(input), "secret") {
							return ai.ApprovalStatus{Kind: ai.ApprovalDenied, Reason: "not that one"}, nil
						}
						return ai.Approved, nil
					}})
				if err != nil {
					var cme *ai.CodeModeError
					require.ErrorAs(t, err, &cme)
					outcomes = append(outcomes, string(cme.Code))
					continue
				}
				outcomes = append(outcomes, string(out))
			}
			return outcomes, nil
		},
	})
	var started []string
	model := aitest.NewModel(
		toolStep(aitest.ToolCall("b1", "batch", `{"input":"{\"key\":\"k\"}"}`)),
		toolStep(aitest.ToolCall("b2", "batch", `{"input":"{\"key\":7}"}`)),
		toolStep(aitest.ToolCall("b3", "batch", `{"input":"{\"key\":\"secret\"}"}`)),
		textStep("done"))
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "go", StopWhen: ai.StepCountIs(5),
		Tools: ai.Tools{{Name: "batch", Tool: batch}, {Name: "users", Tool: lookup("users")}, {Name: "orders", Tool: lookup("orders")}},
		ToolCallers: []ai.CallerRoute{
			{Tool: "orders", Callers: []string{"batch"}},
			{Tool: "users", Callers: []string{"batch", ai.DirectCall}},
		},
		ToolApproval: &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{"orders": ai.Rule(ai.RequiresApproval)}},
		OnToolExecutionStart: func(e ai.ToolExecutionStartEvent) {
			started = append(started, e.ToolCall.ToolCallID)
		},
	})
	require.NoError(t, err)
	calls := model.Calls()
	require.Len(t, calls, 4)
	// The model sees the caller and the direct tool, not the routed-only
	// one; the caller's description lists its callees in route order.
	assert.Equal(t, []string{"batch", "users"}, names(calls[0].Tools))
	assert.Equal(t, "Runs every one of: orders (Looks orders up.) users (Looks users up.)", calls[0].Tools[0].(*provider.FunctionTool).Description)
	// b1: both run (orders approved by Approve); b2: the input is invalid
	// for both; b3: orders is denied, users needs no approval.
	assert.Equal(t, []string{`"orders:k"`, `"users:k"`,
		string(ai.CodeModeToolError), string(ai.CodeModeToolError),
		string(ai.CodeModeToolApprovalDenied), `"users:secret"`}, outcomes)
	assert.Equal(t, []string{"orders/b1:0", "users/b1:1", "users/b3:1"}, ran)
	assert.Equal(t, []string{"b1", "b1:0", "b1:1", "b2", "b3", "b3:1"}, started)

	// Outside a generation a tool has no callees.
	var c ai.Callees
	assert.Empty(t, c.Tools())
	_, err = c.Call(context.Background(), "users", json.RawMessage(`{}`), ai.CalleeCallOptions{})
	assert.Error(t, err)
}
