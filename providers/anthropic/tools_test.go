package anthropic

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

func TestToolConstructors(t *testing.T) {
	tests := []struct {
		name string
		tool provider.ToolSpec
		id   string
		wire string
	}{
		{"regex", ToolSearchRegex(), "anthropic.tool_search_regex_20251119",
			`{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}`},
		{"bm25", ToolSearchBM25(), "anthropic.tool_search_bm25_20251119",
			`{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}`},
		{"web search", WebSearch(WebSearchArgs{MaxUses: 3, BlockedDomains: []string{"spam.example"},
			UserLocation: &UserLocation{City: "Berlin", Country: "DE"}}), "anthropic.web_search_20250305",
			`{"type":"web_search_20250305","name":"web_search","max_uses":3,"blocked_domains":["spam.example"],
			  "user_location":{"type":"approximate","city":"Berlin","country":"DE"}}`},
		{"web fetch", WebFetch(WebFetchArgs{AllowedDomains: []string{"docs.example"}, Citations: true, MaxContentTokens: 5000}),
			"anthropic.web_fetch_20250910",
			`{"type":"web_fetch_20250910","name":"web_fetch","allowed_domains":["docs.example"],"citations":{"enabled":true},"max_content_tokens":5000}`},
		{"code execution", CodeExecution(), "anthropic.code_execution_20250825",
			`{"type":"code_execution_20250825","name":"code_execution"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pt := ai.ProviderDefined(tt.tool)
			assert.Equal(t, tt.id, pt.ID())
			assert.Equal(t, ai.ProviderExecutedKind, pt.Kind())
			assert.False(t, pt.DeferLoading())
			body, _, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{
				Tools: []provider.Tool{&provider.ProviderTool{ID: pt.ID(), Name: "my_" + tt.name, Args: pt.Args()}},
			})
			assert.JSONEq(t, tt.wire, jsonOf(t, body["tools"].([]any)[0]))
		})
	}
}

// A whole generation with Anthropic's tool search: the recorded deferred
// run, driven by the ai package. The search result arrives one step after
// its call, and every request carries the history the API expects.
func TestDeferredToolSearchThroughStreamText(t *testing.T) {
	responses := chunkResponses(t, "anthropic-tool-search-deferred-regex.chunks.txt")
	var replies []reply
	for _, r := range responses {
		replies = append(replies, reply{sse: true, body: sseBody(t, r)})
	}
	f := newFakeAPI(t, replies...)

	type readInput struct {
		NoteID string `json:"noteId"`
	}
	readNoteTree := ai.NewTool(ai.ToolDef[readInput, map[string]any]{
		Description:     "Read the structure of a note.",
		ProviderOptions: DeferLoading(),
		Execute: func(ctx context.Context, in readInput, _ ai.ToolExecutionOptions) (map[string]any, error) {
			return map[string]any{"noteId": in.NoteID, "items": []string{"hi"}}, nil
		},
	})
	editor, err := ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{
		Description:     "Apply editor operations to a note.",
		ProviderOptions: DeferLoading(),
		Execute: func(ctx context.Context, in json.RawMessage, _ ai.ToolExecutionOptions) (any, error) {
			return "applied", nil
		},
	})
	require.NoError(t, err)

	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model:  testModel(t, f, "claude-sonnet-4-5"),
		Prompt: "Add a bullet saying bye to note d10aa585-982b-4bd9-984e-420f9b3717f7.",
		Tools: ai.Tools{
			{Name: "tool_search", Tool: ai.ProviderDefined(ToolSearchRegex())},
			{Name: "readNoteTree", Tool: readNoteTree},
			{Name: "executeEditorOperation", Tool: editor},
		},
		StopWhen: ai.StepCountIs(5),
	})
	require.NoError(t, err)
	final, err := res.Wait()
	require.NoError(t, err)
	require.Len(t, final.Steps, 3)
	assert.Contains(t, final.Text, "bye")

	// Every request declares the search tool and the deferred tools.
	for i := range 3 {
		body := f.bodyMap(t, i)
		assert.JSONEq(t, `[
			{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"},
			{"name":"readNoteTree","description":"Read the structure of a note.","defer_loading":true,"eager_input_streaming":true,
			 "input_schema":`+field(t, body["tools"].([]any)[1].(map[string]any), "input_schema")+`},
			{"name":"executeEditorOperation","description":"Apply editor operations to a note.","defer_loading":true,"eager_input_streaming":true,
			 "input_schema":`+field(t, body["tools"].([]any)[2].(map[string]any), "input_schema")+`}
		]`, field(t, body, "tools"), "request %d", i)
	}

	// Request 2: the first answer with its pending search call, and the
	// client tool's result.
	msgs := f.bodyMap(t, 1)["messages"].([]any)
	require.Len(t, msgs, 3)
	assistant := msgs[1].(map[string]any)["content"].([]any)
	require.Len(t, assistant, 3)
	assert.Equal(t, "text", assistant[0].(map[string]any)["type"])
	assert.JSONEq(t, `{"type":"server_tool_use","id":"srvtoolu_01H4HgrFsi9xizPtvnx1Tm7D","name":"tool_search_tool_regex",
		"input":{"pattern":"add|insert|bullet|create","limit":10},"caller":{"type":"direct"}}`, jsonOf(t, assistant[1]))
	assert.Equal(t, "toolu_01WPkY6CkyJnFsaCqY7SZ9FX", assistant[2].(map[string]any)["id"])
	results := msgs[2].(map[string]any)["content"].([]any)
	require.Len(t, results, 1)
	assert.Equal(t, "toolu_01WPkY6CkyJnFsaCqY7SZ9FX", results[0].(map[string]any)["tool_use_id"])

	// Request 3: the second answer opens with the deferred search result.
	msgs = f.bodyMap(t, 2)["messages"].([]any)
	require.Len(t, msgs, 5)
	assistant = msgs[3].(map[string]any)["content"].([]any)
	assert.JSONEq(t, `{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_01H4HgrFsi9xizPtvnx1Tm7D",
		"content":{"type":"tool_search_tool_search_result","tool_references":[
			{"type":"tool_reference","tool_name":"readNoteTree"},
			{"type":"tool_reference","tool_name":"executeEditorOperation"}]}}`, jsonOf(t, assistant[0]))
	assert.Equal(t, "tool_use", assistant[len(assistant)-1].(map[string]any)["type"])
	assert.Equal(t, "executeEditorOperation", assistant[len(assistant)-1].(map[string]any)["name"])
}

// jsonOf returns v as JSON text.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
