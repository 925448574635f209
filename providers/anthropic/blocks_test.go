package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

// Block types the recordings do not cover, in hand-written responses.

var codeAndMCPTools = []provider.Tool{
	&provider.ProviderTool{ID: "anthropic.code_execution_20250825", Name: "code"},
	&provider.ProviderTool{ID: "anthropic.advisor_20260301", Name: "ask", Args: map[string]any{"model": "claude-opus-4-5"}},
}

func TestGenerateBlockTypes(t *testing.T) {
	answer := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
	"content":[
		{"type":"redacted_thinking","data":"opaque"},
		{"type":"compaction","content":"Summary of earlier turns."},
		{"type":"server_tool_use","id":"s1","name":"bash_code_execution","input":{"command":"ls"}},
		{"type":"bash_code_execution_tool_result","tool_use_id":"s1","content":{"type":"bash_code_execution_result","stdout":"a.txt","stderr":"","return_code":0,"content":[]}},
		{"type":"server_tool_use","id":"s2","name":"code_execution","input":{"code":"print(1)"}},
		{"type":"code_execution_tool_result","tool_use_id":"s2","content":{"type":"code_execution_result","stdout":"1","stderr":"","return_code":0}},
		{"type":"server_tool_use","id":"s3","name":"advisor","input":{}},
		{"type":"advisor_tool_result","tool_use_id":"s3","content":{"type":"advisor_result","text":"Looks right."}},
		{"type":"mcp_tool_use","id":"m1","name":"lookup","server_name":"docs","input":{"q":"x"}},
		{"type":"mcp_tool_result","tool_use_id":"m1","is_error":false,"content":[{"type":"text","text":"found"}]},
		{"type":"text","text":"See the report.","citations":[{"type":"page_location","cited_text":"Revenue grew","document_index":0,"document_title":null,"start_page_number":2,"end_page_number":3}]},
		{"type":"fallback"}
	],
	"stop_reason":"refusal","stop_sequence":null,
	"stop_details":{"type":"refusal","category":"cyber","explanation":"no"},
	"container":{"id":"cont_1","expires_at":"2026-01-01T00:00:00Z"},
	"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":4,
		"iterations":[{"type":"compaction","input_tokens":100,"output_tokens":20},{"type":"message","input_tokens":10,"output_tokens":5},{"type":"advisor_message","input_tokens":7,"output_tokens":7}]}}`
	f := newFakeAPI(t, reply{body: answer})
	res := generate(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{
		Tools: codeAndMCPTools,
		Prompt: []provider.Message{provider.UserMessage{Content: []provider.UserPart{
			provider.FilePart{MediaType: "application/pdf", Filename: "q3.pdf", Data: provider.FileBytes{Data: []byte("%PDF")},
				ProviderOptions: provider.ProviderOptions{"anthropic": {"citations": map[string]any{"enabled": true}}}},
			provider.TextPart{Text: "Summarize"},
		}}},
	})
	require.Len(t, res.Content, 12)
	assert.Equal(t, provider.Reasoning{ProviderMetadata: provider.ProviderMetadata{"anthropic": {"redactedData": "opaque"}}}, res.Content[0])
	assert.Equal(t, provider.Text{Text: "Summary of earlier turns.", ProviderMetadata: provider.ProviderMetadata{"anthropic": {"type": "compaction"}}}, res.Content[1])
	assert.Equal(t, provider.ToolCall{ToolCallID: "s1", ToolName: "code", Input: `{"type":"bash_code_execution","command":"ls"}`, ProviderExecuted: true}, res.Content[2])
	r := res.Content[3].(provider.ToolResult)
	assert.Equal(t, "code", r.ToolName)
	assert.JSONEq(t, `{"type":"bash_code_execution_result","stdout":"a.txt","stderr":"","return_code":0,"content":[]}`, string(r.Result))
	assert.Equal(t, `{"type":"programmatic-tool-call","code":"print(1)"}`, res.Content[4].(provider.ToolCall).Input)
	assert.JSONEq(t, `{"type":"code_execution_result","stdout":"1","stderr":"","return_code":0,"content":[]}`, string(res.Content[5].(provider.ToolResult).Result))
	assert.Equal(t, provider.ToolCall{ToolCallID: "s3", ToolName: "ask", Input: "{}", ProviderExecuted: true}, res.Content[6])
	assert.JSONEq(t, `{"type":"advisor_result","text":"Looks right."}`, string(res.Content[7].(provider.ToolResult).Result))
	mcpMeta := provider.ProviderMetadata{"anthropic": {"type": "mcp-tool-use", "serverName": "docs"}}
	assert.Equal(t, provider.ToolCall{ToolCallID: "m1", ToolName: "lookup", Input: `{"q":"x"}`, ProviderExecuted: true, Dynamic: true, ProviderMetadata: mcpMeta}, res.Content[8])
	assert.Equal(t, provider.ToolResult{ToolCallID: "m1", ToolName: "lookup", Result: json.RawMessage(`[{"text":"found","type":"text"}]`), Dynamic: true, ProviderMetadata: mcpMeta}, res.Content[9])
	assert.Equal(t, provider.Text{Text: "See the report."}, res.Content[10])
	assert.Equal(t, provider.Source{
		SourceType: provider.SourceDocument, ID: "id-1", MediaType: "application/pdf", Title: "q3.pdf", Filename: "q3.pdf",
		ProviderMetadata: provider.ProviderMetadata{"anthropic": {"citedText": "Revenue grew", "startPageNumber": 2, "endPageNumber": 3}},
	}, res.Content[11])

	assert.Equal(t, provider.FinishReason{Unified: provider.FinishContentFilter, Raw: "refusal"}, res.FinishReason)
	// The executor iterations replace the top-level counts; the advisor's
	// are left out.
	assert.Equal(t, 114, *res.Usage.InputTokens.Total)
	assert.Equal(t, 110, *res.Usage.InputTokens.NoCache)
	assert.Equal(t, 25, *res.Usage.OutputTokens.Total)
	meta := res.ProviderMetadata["anthropic"]
	assert.Equal(t, map[string]any{"type": "refusal", "category": "cyber", "explanation": "no"}, meta["stopDetails"])
	assert.Equal(t, map[string]any{"id": "cont_1", "expiresAt": "2026-01-01T00:00:00Z", "skills": nil}, meta["container"])
	assert.Equal(t, []map[string]any{
		{"type": "compaction", "inputTokens": 100, "outputTokens": 20},
		{"type": "message", "inputTokens": 10, "outputTokens": 5},
		{"type": "advisor_message", "inputTokens": 7, "outputTokens": 7},
	}, meta["iterations"])
}

func TestStreamBlockTypes(t *testing.T) {
	events := []string{
		`{"type":"message_start","message":{"id":"msg_1","model":"m","content":[` +
			`{"type":"tool_use","id":"pre","name":"get_temp_data","input":{"city":"Oslo"},"caller":{"type":"code_execution_20250825","tool_id":"s0"}}],` +
			`"usage":{"input_tokens":3,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"opaque"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"s1","name":"text_editor_code_execution","input":{}}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"view\""}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":", \"path\": \"a.txt\"}"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"text_editor_code_execution_tool_result","tool_use_id":"s1","content":{"type":"text_editor_code_execution_view_result","content":"hi"}}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"Cited."}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","cited_text":"c","url":"https://a.example","title":"A","encrypted_index":"e"}}}`,
		`{"type":"content_block_stop","index":3}`,
		`{"type":"content_block_start","index":4,"content_block":{"type":"compaction","content":""}}`,
		`{"type":"content_block_delta","index":4,"delta":{"type":"compaction_delta","content":"Summary."}}`,
		`{"type":"content_block_stop","index":4}`,
		`{"type":"message_delta","delta":{"stop_reason":"pause_turn","stop_sequence":null},"usage":{"output_tokens":9,"cache_creation_input_tokens":7}}`,
		`{"type":"message_stop"}`,
	}
	f := newFakeAPI(t, reply{sse: true, body: sseBody(t, events)})
	parts := streamAll(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{Tools: codeAndMCPTools})
	assert.Equal(t, []string{
		"stream-start", "response-metadata",
		"tool-input-start", "tool-input-delta", "tool-input-end", "tool-call",
		"reasoning-start", "reasoning-end",
		"tool-input-start", "tool-input-delta", "tool-input-delta", "tool-input-end", "tool-call",
		"tool-result",
		"text-start", "text-delta", "source", "text-end",
		"text-start", "text-delta", "text-end",
		"finish",
	}, partTypes(parts))

	assert.Equal(t, provider.ToolCall{ToolCallID: "pre", ToolName: "get_temp_data", Input: `{"city":"Oslo"}`,
		ProviderMetadata: provider.ProviderMetadata{"anthropic": {"caller": map[string]any{"type": "code_execution_20250825", "toolId": "s0"}}}}, parts[5])
	assert.Equal(t, provider.ReasoningStart{ID: "0", ProviderMetadata: provider.ProviderMetadata{"anthropic": {"redactedData": "opaque"}}}, parts[6])
	assert.Equal(t, provider.ToolInputStart{ID: "s1", ToolName: "code", ProviderExecuted: true}, parts[8])
	// The sub-tool's name goes into the input, from the first delta on.
	assert.Equal(t, `{"type":"text_editor_code_execution","command": "view"`, parts[9].(provider.ToolInputDelta).Delta)
	call := parts[12].(provider.ToolCall)
	assert.Equal(t, "code", call.ToolName)
	assert.True(t, call.ProviderExecuted)
	assert.Equal(t, `{"type":"text_editor_code_execution","command":"view","path":"a.txt"}`, call.Input)
	assert.JSONEq(t, `{"type":"text_editor_code_execution_view_result","content":"hi"}`, string(parts[13].(provider.ToolResult).Result))

	src := parts[16].(provider.Source)
	assert.Equal(t, "https://a.example", src.URL)
	assert.Equal(t, "A", src.Title)
	end := parts[17].(provider.TextEnd)
	assert.Equal(t, "https://a.example", end.ProviderMetadata["anthropic"]["citations"].([]any)[0].(map[string]any)["url"])
	assert.Equal(t, provider.TextStart{ID: "4", ProviderMetadata: provider.ProviderMetadata{"anthropic": {"type": "compaction"}}}, parts[18])
	assert.Equal(t, provider.TextDelta{ID: "4", Delta: "Summary."}, parts[19])

	fin := parts[21].(provider.Finish)
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "pause_turn"}, fin.FinishReason)
	assert.Equal(t, 10, *fin.Usage.InputTokens.Total)
	assert.Equal(t, 7, *fin.Usage.InputTokens.CacheWrite)
	assert.Equal(t, 7, fin.ProviderMetadata["anthropic"]["cacheCreationInputTokens"])
	raw := fin.ProviderMetadata["anthropic"]["usage"].(map[string]any)
	assert.Equal(t, float64(9), raw["output_tokens"])
	assert.Equal(t, float64(3), raw["input_tokens"])
}

// Code execution, advisor and MCP blocks go back into the history the way
// they came.
func TestRequestCodeExecutionAndMCPHistory(t *testing.T) {
	mcp := provider.ProviderOptions{"anthropic": {"type": "mcp-tool-use", "serverName": "docs"}}
	body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{Tools: codeAndMCPTools, Prompt: []provider.Message{
		provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "go"}}},
		provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.ToolCallPart{ToolCallID: "s1", ToolName: "code", ProviderExecuted: true, Input: json.RawMessage(`{"type":"bash_code_execution","command":"ls"}`)},
			provider.ToolResultPart{ToolCallID: "s1", ToolName: "code", Output: provider.JSONOutput{Value: json.RawMessage(`{"type":"bash_code_execution_result","stdout":"a","stderr":"","return_code":0,"content":[]}`)}},
			provider.ToolCallPart{ToolCallID: "s2", ToolName: "code", ProviderExecuted: true, Input: json.RawMessage(`{"type":"programmatic-tool-call","code":"print(1)"}`)},
			provider.ToolResultPart{ToolCallID: "s2", ToolName: "code", Output: provider.JSONOutput{Value: json.RawMessage(`{"type":"code_execution_result","stdout":"1","stderr":"","return_code":0}`)}},
			provider.ToolCallPart{ToolCallID: "s3", ToolName: "code", ProviderExecuted: true, Input: json.RawMessage(`{"command":"x"}`)},
			provider.ToolResultPart{ToolCallID: "s3", ToolName: "code", Output: provider.ErrorJSONOutput{Value: json.RawMessage(`{"type":"code_execution_tool_result_error","errorCode":"unavailable"}`)}},
			provider.ToolCallPart{ToolCallID: "a1", ToolName: "ask", ProviderExecuted: true, Input: json.RawMessage(`{"ignored":true}`)},
			provider.ToolResultPart{ToolCallID: "a1", ToolName: "ask", Output: provider.JSONOutput{Value: json.RawMessage(`{"type":"advisor_result","text":"ok"}`)}},
			provider.ToolCallPart{ToolCallID: "m1", ToolName: "lookup", ProviderExecuted: true, Input: json.RawMessage(`{"q":"x"}`), ProviderOptions: mcp},
			provider.ToolResultPart{ToolCallID: "m1", ToolName: "lookup", Output: provider.JSONOutput{Value: json.RawMessage(`[{"type":"text","text":"found"}]`)}, ProviderOptions: mcp},
		}},
	}})
	assert.Empty(t, warnings)
	assert.JSONEq(t, `[
		{"type":"server_tool_use","id":"s1","name":"bash_code_execution","input":{"command":"ls"}},
		{"type":"bash_code_execution_tool_result","tool_use_id":"s1","content":{"type":"bash_code_execution_result","stdout":"a","stderr":"","return_code":0,"content":[]}},
		{"type":"server_tool_use","id":"s2","name":"code_execution","input":{"code":"print(1)"}},
		{"type":"code_execution_tool_result","tool_use_id":"s2","content":{"type":"code_execution_result","stdout":"1","stderr":"","return_code":0,"content":[]}},
		{"type":"server_tool_use","id":"s3","name":"code_execution","input":{"command":"x"}},
		{"type":"code_execution_tool_result","tool_use_id":"s3","content":{"type":"code_execution_tool_result_error","error_code":"unavailable"}},
		{"type":"server_tool_use","id":"a1","name":"advisor","input":{}},
		{"type":"advisor_tool_result","tool_use_id":"a1","content":{"type":"advisor_result","text":"ok"}},
		{"type":"mcp_tool_use","id":"m1","name":"lookup","input":{"q":"x"},"server_name":"docs"},
		{"type":"mcp_tool_result","tool_use_id":"m1","is_error":false,"content":[{"type":"text","text":"found"}]}
	]`, field(t, body["messages"].([]any)[1].(map[string]any), "content"))
}

func TestSchemaForNativeOutput(t *testing.T) {
	schema := json.RawMessage(`{
		"$defs":{"item":{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}},
		"type":"object",
		"properties":{
			"when":{"type":"string","format":"date"},
			"site":{"type":"string","format":"idn-hostname"},
			"items":{"type":"array","items":{"$ref":"#/$defs/item"},"maxItems":3},
			"choice":{"oneOf":[{"type":"string"},{"type":"number"}]}
		},
		"required":["when","site","items","choice"]}`)
	assert.True(t, nativeSchemaOK(schema))
	assert.JSONEq(t, `{
		"type":"object",
		"$defs":{"item":{"type":"object","properties":{"n":{"type":"integer","description":"minimum: 1."}},"additionalProperties":false,"required":["n"]}},
		"properties":{
			"when":{"type":"string","format":"date"},
			"site":{"type":"string","description":"format: idn-hostname."},
			"items":{"type":"array","items":{"$ref":"#/$defs/item"},"description":"max items: 3."},
			"choice":{"anyOf":[{"type":"string"},{"type":"number"}]}
		},
		"additionalProperties":false,
		"required":["when","site","items","choice"]}`, string(sanitizeSchema(schema)))

	for name, s := range map[string]string{
		"open object":       `{"type":"object"}`,
		"map":               `{"type":"object","additionalProperties":{"type":"string"}}`,
		"self reference":    `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}},"required":["next"]}},"$ref":"#/$defs/n"}`,
		"optional overload": `{"type":"object","properties":{"a":{},"b":{},"c":{},"d":{},"e":{},"f":{},"g":{},"h":{},"i":{},"j":{},"k":{}}}`,
	} {
		assert.False(t, nativeSchemaOK(json.RawMessage(s)), name)
	}

	// A schema native outputs cannot represent falls back to the JSON tool.
	body, _, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{ResponseFormat: &provider.ResponseFormat{
		Type: "json", Schema: json.RawMessage(`{"type":"object","additionalProperties":{"type":"number"}}`)}})
	assert.NotContains(t, body, "output_config")
	assert.Equal(t, "json", body["tools"].([]any)[0].(map[string]any)["name"])
}
