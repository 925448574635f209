package openai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openai"
)

// wireTools sends tools (as the ai package hands them to a model) to a
// Responses model and returns the request's "tools".
func wireTools(t *testing.T, tools ai.Tools) string {
	t.Helper()
	var defs []provider.Tool
	for _, nt := range tools {
		pt, ok := nt.Tool.(*ai.ProviderTool)
		require.True(t, ok)
		defs = append(defs, &provider.ProviderTool{ID: pt.ID(), Name: nt.Name, Args: pt.Args()})
	}
	srv := replay.NewServer(t, replay.JSON([]byte(responsesOK)))
	res, err := newProvider(srv).Model("gpt-4o").Generate(context.Background(), &provider.CallOptions{Prompt: []provider.Message{userText("hi")}, Tools: defs})
	require.NoError(t, err)
	assert.Empty(t, res.Warnings)
	b, _ := json.Marshal(srv.Last(t).JSON(t)["tools"])
	return string(b)
}

func TestToolConstructors(t *testing.T) {
	threshold, compression := 0.4, 80
	tools := ai.Tools{
		{Name: "web", Tool: ai.ProviderDefined(openai.WebSearch(openai.WebSearchArgs{SearchContextSize: "high", AllowedDomains: []string{"go.dev"},
			UserLocation: &openai.UserLocation{Country: "FR", City: "Paris"}, ExternalWebAccess: new(false)}))},
		{Name: "webPreview", Tool: ai.ProviderDefined(openai.WebSearchPreview(openai.WebSearchPreviewArgs{SearchContextSize: "low"}))},
		{Name: "files", Tool: ai.ProviderDefined(openai.FileSearch(openai.FileSearchArgs{VectorStoreIDs: []string{"vs_1"}, MaxNumResults: 3, Ranker: "auto", ScoreThreshold: &threshold}))},
		{Name: "python", Tool: ai.ProviderDefined(openai.CodeInterpreter(openai.CodeInterpreterArgs{ContainerID: "cntr_1"}))},
		{Name: "draw", Tool: ai.ProviderDefined(openai.ImageGeneration(openai.ImageGenerationArgs{Size: "1024x1024", OutputCompression: &compression, MaskFileID: "file-m"}))},
		{Name: "docs", Tool: ai.ProviderDefined(openai.MCP(openai.MCPArgs{ServerLabel: "docs", ServerURL: "https://mcp.example.com", AllowedTools: []string{"read"}, RequireApproval: "always"}))},
		{Name: "search", Tool: ai.ProviderDefined(openai.ToolSearch(openai.ToolSearchArgs{Description: "Find tools."}))},
	}
	assert.JSONEq(t, `[
		{"type":"web_search","search_context_size":"high","filters":{"allowed_domains":["go.dev"]},"external_web_access":false,
		 "user_location":{"type":"approximate","country":"FR","city":"Paris"}},
		{"type":"web_search_preview","search_context_size":"low"},
		{"type":"file_search","vector_store_ids":["vs_1"],"max_num_results":3,"ranking_options":{"ranker":"auto","score_threshold":0.4}},
		{"type":"code_interpreter","container":"cntr_1"},
		{"type":"image_generation","size":"1024x1024","output_compression":80,"input_image_mask":{"file_id":"file-m"}},
		{"type":"mcp","server_label":"docs","server_url":"https://mcp.example.com","allowed_tools":["read"],"require_approval":"always"},
		{"type":"tool_search","description":"Find tools."}
	]`, wireTools(t, tools))
	for _, nt := range tools {
		assert.Equal(t, ai.ProviderExecutedKind, nt.Tool.Kind(), nt.Name)
	}
	custom := ai.ProviderDefined(openai.CustomTool(openai.CustomToolArgs{Name: "sql", Format: map[string]any{"type": "text"}}, func(context.Context, string) (any, error) { return nil, nil }))
	client := ai.ProviderDefined(openai.ClientToolSearch(openai.ToolSearchArgs{Parameters: map[string]any{"type": "object"}}, nil))
	assert.Equal(t, ai.ProviderDefinedKind, custom.Kind())
	assert.Equal(t, ai.ProviderDefinedKind, client.Kind())
	assert.JSONEq(t, `[{"type":"custom","name":"sql","format":{"type":"text"}},{"type":"tool_search","execution":"client","parameters":{"type":"object"}}]`,
		wireTools(t, ai.Tools{{Name: "sqlTool", Tool: custom}, {Name: "find", Tool: client}}))
}

func TestWebSearchThroughGenerateText(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/openai-web-search-tool.1.json")))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:  newProvider(srv).Model("gpt-5-mini"),
		Prompt: "What happened in tech today?",
		Tools:  ai.Tools{{Name: "news", Tool: ai.ProviderDefined(openai.WebSearch(openai.WebSearchArgs{}))}},
	})
	require.NoError(t, err)
	calls := res.ToolCalls()
	require.Len(t, calls, 3)
	for _, c := range calls {
		assert.Equal(t, "news", c.ToolName, "calls are reported under the application's name")
		assert.True(t, c.ProviderExecuted)
	}
	results := res.ToolResults()
	require.Len(t, results, 3)
	assert.Equal(t, "news", results[0].ToolName)
	assert.Contains(t, res.Text, "Short answer first")
	assert.Len(t, srv.Requests(), 1, "provider-executed tools need no second step")
}

func TestClientToolSearchThroughGenerateText(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/openai-client-tool-search.1.json")),
		replay.JSON(replay.Read(t, "testdata/openai-client-tool-search.2.json")))
	var gotArgs json.RawMessage
	search := ai.ProviderDefined(openai.ClientToolSearch(openai.ToolSearchArgs{
		Description: "Search for available tools based on what the user needs.",
		Parameters:  map[string]any{"type": "object", "properties": map[string]any{"goal": map[string]any{"type": "string"}}, "required": []any{"goal"}},
	}, func(ctx context.Context, arguments json.RawMessage) ([]json.RawMessage, error) {
		gotArgs = arguments
		return []json.RawMessage{json.RawMessage(`{"type":"function","name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}`)}, nil
	}))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:    newProvider(srv).Model("gpt-5.4"),
		Prompt:   "What's the weather in San Francisco?",
		Tools:    ai.Tools{{Name: "findTools", Tool: search}},
		StopWhen: ai.StepCountIs(2),
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"goal":"Find a tool to get current weather for San Francisco"}`, string(gotArgs))
	require.Len(t, srv.Requests(), 2)
	input, _ := json.Marshal(srv.Requests()[1].JSON(t)["input"])
	var items []map[string]any
	require.NoError(t, json.Unmarshal(input, &items))
	var output map[string]any
	for _, it := range items {
		if it["type"] == "tool_search_output" {
			output = it
		}
	}
	require.NotNil(t, output, "the search result goes back as a tool_search_output item")
	assert.Equal(t, "client", output["execution"])
	assert.Equal(t, "call_AEvXZ1rvYpxHh8QZb7wGlTGH", output["call_id"])
	assert.Equal(t, []any{map[string]any{"type": "function", "name": "get_weather", "description": "Get the weather",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}}}}}, output["tools"])
	require.Len(t, res.Steps, 2)
	var names []string
	for _, c := range res.ToolCalls() {
		names = append(names, c.ToolName)
	}
	assert.Equal(t, []string{"findTools", "get_weather"}, names, "the search ran, then the loaded tool was called")
	require.Len(t, res.ToolResults(), 1)
	assert.Equal(t, "findTools", res.ToolResults()[0].ToolName)
	assert.False(t, res.ToolResults()[0].ProviderExecuted)
}
