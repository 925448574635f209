package mcptools_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/mcptools"
	"github.com/aisdkgo/ai/provider"
)

// TestListChangedBetweenGenerations checks that a tool added while a
// generation runs stays out of that generation and shows in the next one.
func TestListChangedBetweenGenerations(t *testing.T) {
	ts := newServer(t, nil, func(s *mcp.Server) {
		addTool(s, "install", "Installs a plugin, which adds a tool.", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			addTool(s, "plugin", "The new tool.", textResult("plugin says %v"))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "installed"}}}, nil
		})
	})
	src := mcptools.NewSource(ts.session, &mcptools.Options{ListChanged: ts.changes})
	ctx := context.Background()

	// First generation: the model installs the plugin, waits for the
	// notification, then tries the new tool within the same generation.
	tools1, err := src.Tools(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"install"}, tools1.Names())
	model1 := &aitest.Model{Respond: func(_ context.Context, call int, _ *provider.CallOptions) (aitest.Response, error) {
		switch call {
		case 0:
			return aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "install", map[string]any{"text": "p"})}, FinishReason: aitest.ToolCalls}, nil
		case 1:
			ts.waitNotified(t)
			return aitest.Response{Content: []provider.Content{aitest.ToolCall("c2", "plugin", map[string]any{"text": "hi"})}, FinishReason: aitest.ToolCalls}, nil
		}
		return aitest.Response{Content: []provider.Content{aitest.Text("done")}}, nil
	}}
	res1, err := ai.GenerateText(ctx, ai.GenerateTextOptions{Model: model1, Prompt: "install", Tools: tools1, StopWhen: ai.StepCountIs(3)})
	require.NoError(t, err)
	for _, c := range model1.Calls() {
		assert.Equal(t, []string{"install"}, toolNames(c), "the first generation keeps its snapshot")
	}
	require.Len(t, res1.Steps, 3)
	errs := res1.Steps[1].ToolErrors()
	require.Len(t, errs, 1, "the new tool is unknown to the first generation")
	var noSuch *ai.NoSuchToolError
	assert.ErrorAs(t, errs[0].Error, &noSuch)

	// Second generation: the source lists again and the tool is there.
	tools2, err := src.Tools(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"install", "plugin"}, tools2.Names())
	assert.Equal(t, []string{"install"}, tools1.Names(), "the old snapshot is unchanged")
	res2, model2 := generation(t, ctx, tools2, "plugin", map[string]any{"text": "hi"})
	assert.Equal(t, []string{"install", "plugin"}, toolNames(model2.Calls()[0]))
	r, e := toolOutcome(t, res2)
	require.Nil(t, e)
	assert.Equal(t, "plugin says hi", r.Output.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text)
}

// TestGenerateWithToolSearch runs a full loop: the model sees only the
// search tool, finds a deferred MCP tool, and calls it in the next step.
func TestGenerateWithToolSearch(t *testing.T) {
	ts := newServer(t, nil, func(s *mcp.Server) {
		for i := range 40 {
			addTool(s, fmt.Sprintf("noise_%02d", i), fmt.Sprintf("Manages widget number %d.", i), textResult("%v"))
		}
		s.AddTool(&mcp.Tool{Name: "get_forecast", Description: "Weather forecast for a city.", InputSchema: objectSchema("city")},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{
					Content:           []mcp.Content{&mcp.TextContent{Text: `{"city":"Oslo","sky":"snow"}`}},
					StructuredContent: map[string]any{"city": "Oslo", "sky": "snow"},
				}, nil
			})
	})
	tools, err := mcptools.NewSource(ts.session, &mcptools.Options{Prefix: "wx_", DeferLoading: true}).Tools(context.Background())
	require.NoError(t, err)
	require.Len(t, tools, 41)

	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("s1", "tool_search", map[string]any{"query": "weather forecast"})}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "wx_get_forecast", map[string]any{"city": "Oslo"})}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text("Snow in Oslo.")}},
	)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:    model,
		Prompt:   "What is the weather in Oslo?",
		Tools:    append(tools, ai.NamedTool{Name: "tool_search", Tool: ai.ToolSearch()}),
		StopWhen: ai.StepCountIs(5),
	})
	require.NoError(t, err)
	assert.Equal(t, "Snow in Oslo.", res.Text)

	calls := model.Calls()
	require.Len(t, calls, 3)
	assert.Equal(t, []string{"tool_search"}, toolNames(calls[0]), "deferred tools cost nothing up front")
	assert.Equal(t, []string{"wx_get_forecast", "tool_search"}, toolNames(calls[1]))

	search := res.Steps[0].ToolResults()
	require.Len(t, search, 1)
	assert.Equal(t, "wx_get_forecast", search[0].Output.(ai.ToolSearchResult).Tools[0].Name)

	results := res.Steps[1].ToolResults()
	require.Len(t, results, 1)
	info, ok := mcptools.Info(results[0].ToolMetadata)
	require.True(t, ok)
	assert.Equal(t, "get_forecast", info.Name)
	var last provider.ToolResultOutput
	for _, m := range calls[2].Prompt {
		if tm, ok := m.(provider.ToolMessage); ok {
			last = tm.Content[len(tm.Content)-1].(provider.ToolResultPart).Output
		}
	}
	require.IsType(t, ai.JSONOutput{}, last)
	assert.JSONEq(t, `{"city":"Oslo","sky":"snow"}`, string(last.(ai.JSONOutput).Value))
}
