package ai_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
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
