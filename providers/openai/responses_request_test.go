package openai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
)

const responsesOK = `{"id":"resp_1","created_at":1,"model":"m","output":[{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"ok","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1}}`

func responsesBody(t *testing.T, modelID string, opts *provider.CallOptions) (map[string]any, []provider.Warning) {
	t.Helper()
	srv := replay.NewServer(t, replay.JSON([]byte(responsesOK)))
	res, err := newProvider(srv).Responses(modelID).Generate(context.Background(), opts)
	require.NoError(t, err)
	return srv.Last(t).JSON(t), res.Warnings
}

func callWith(tools []provider.Tool, choice provider.ToolChoice) *provider.CallOptions {
	return &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, Tools: tools, ToolChoice: choice}
}

func TestResponsesRequestBodies(t *testing.T) {
	weather := &provider.FunctionTool{Name: "weather", Description: "Get the weather.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`), Strict: new(true)}
	search := &provider.ProviderTool{ID: "openai.web_search", Name: "search"}
	grammar := &provider.ProviderTool{ID: "openai.custom", Name: "sql", Args: map[string]any{"name": "sql_query",
		"description": "Write SQL.", "format": map[string]any{"type": "grammar", "syntax": "lark", "definition": "start: /.+/"}}}
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)
	toolResult := func(out provider.ToolResultOutput) *provider.CallOptions {
		return &provider.CallOptions{Prompt: []provider.Message{
			userText("go"),
			provider.AssistantMessage{Content: []provider.AssistantPart{provider.ToolCallPart{ToolCallID: "c1", ToolName: "weather", Input: json.RawMessage(`{"city":"Paris"}`)}}},
			provider.ToolMessage{Content: []provider.ToolPart{provider.ToolResultPart{ToolCallID: "c1", ToolName: "weather", Output: out}}},
		}}
	}
	withOpts := func(o map[string]any) *provider.CallOptions {
		return &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ProviderOptions: provider.ProviderOptions{"openai": o}}
	}

	tests := []struct {
		name     string
		model    string
		opts     *provider.CallOptions
		want     string
		absent   []string
		warnings []provider.Warning
	}{
		{
			name:   "plain text",
			model:  "gpt-4o",
			opts:   prompt("hi"),
			want:   `{"model":"gpt-4o","input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}]}`,
			absent: []string{"tools", "tool_choice", "store", "include", "reasoning", "text", "temperature", "stream"},
		},
		{
			name:  "system and several turns",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{
				provider.SystemMessage{Content: "Be brief."},
				userText("Hi"),
				provider.AssistantMessage{Content: []provider.AssistantPart{provider.TextPart{Text: "Hello"},
					provider.TextPart{Text: "Again", ProviderOptions: provider.ProviderOptions{"openai": {"itemId": "msg_9"}}}}},
				userText("Bye"),
			}},
			want: `{"input":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"input_text","text":"Hi"}]},
				{"role":"assistant","content":"Hello"},
				{"type":"item_reference","id":"msg_9"},
				{"role":"user","content":[{"type":"input_text","text":"Bye"}]}]}`,
		},
		{
			name:  "assistant text without store keeps its phase",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{provider.AssistantMessage{Content: []provider.AssistantPart{
				provider.TextPart{Text: "Hello", ProviderOptions: provider.ProviderOptions{"openai": {"itemId": "msg_9", "phase": "final_answer"}}}}}},
				ProviderOptions: provider.ProviderOptions{"openai": {"store": false}}},
			want: `{"store":false,"input":[{"role":"assistant","phase":"final_answer","content":"Hello"}]}`,
		},
		{
			name:  "reasoning models: developer role, unsupported settings",
			model: "gpt-5",
			opts: &provider.CallOptions{Prompt: []provider.Message{provider.SystemMessage{Content: "sys"}, userText("Hi")},
				Temperature: new(0.3), TopP: new(0.5), TopK: new(4), Seed: new(1), PresencePenalty: new(0.1), FrequencyPenalty: new(0.1),
				StopSequences: []string{"x"}, MaxOutputTokens: new(200)},
			want:   `{"input":[{"role":"developer","content":"sys"},{"role":"user","content":[{"type":"input_text","text":"Hi"}]}],"max_output_tokens":200}`,
			absent: []string{"temperature", "top_p", "seed", "stop", "top_k"},
			warnings: []provider.Warning{
				{Type: "unsupported", Feature: "topK"}, {Type: "unsupported", Feature: "seed"},
				{Type: "unsupported", Feature: "presencePenalty"}, {Type: "unsupported", Feature: "frequencyPenalty"},
				{Type: "unsupported", Feature: "stopSequences"},
				{Type: "unsupported", Feature: "temperature", Details: "temperature is not supported for reasoning models"},
				{Type: "unsupported", Feature: "topP", Details: "topP is not supported for reasoning models"},
			},
		},
		{
			name:  "sampling on other models",
			model: "gpt-4.1",
			opts:  &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, Temperature: new(0.3), TopP: new(0.5)},
			want:  `{"temperature":0.3,"top_p":0.5}`,
		},
		{
			name:  "reasoning effort from the call",
			model: "o4-mini",
			opts:  &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, Reasoning: provider.ReasoningMinimal},
			want:  `{"reasoning":{"effort":"minimal"}}`,
		},
		{
			name:     "reasoning options on other models",
			model:    "gpt-4o",
			opts:     withOpts(map[string]any{"reasoningEffort": "high", "reasoningSummary": "auto"}),
			absent:   []string{"reasoning"},
			warnings: []provider.Warning{{Type: "unsupported", Feature: "reasoningEffort", Details: "reasoningEffort is not supported for non-reasoning models"}, {Type: "unsupported", Feature: "reasoningSummary", Details: "reasoningSummary is not supported for non-reasoning models"}},
		},
		{
			name:  "function tools: strict, deferred, namespaced",
			model: "gpt-5.4",
			opts: callWith([]provider.Tool{weather,
				&provider.FunctionTool{Name: "send", InputSchema: json.RawMessage(`{"type":"object"}`), ProviderOptions: provider.ProviderOptions{"openai": {"deferLoading": true}}},
				&provider.FunctionTool{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`), ProviderOptions: provider.ProviderOptions{"openai": {"namespace": map[string]any{"name": "crm", "description": "CRM tools"}}}},
				&provider.FunctionTool{Name: "b", InputSchema: json.RawMessage(`{"type":"object"}`), ProviderOptions: provider.ProviderOptions{"openai": {"namespace": map[string]any{"name": "crm", "description": "CRM tools"}, "deferLoading": true}}},
				&provider.ProviderTool{ID: "openai.tool_search", Name: "toolSearch"},
			}, provider.ToolChoice{}),
			want: `{"tools":[
				{"type":"function","name":"weather","description":"Get the weather.","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":true},
				{"type":"function","name":"send","parameters":{"type":"object"},"strict":false,"defer_loading":true},
				{"type":"namespace","name":"crm","description":"CRM tools","tools":[
					{"type":"function","name":"a","parameters":{"type":"object"},"strict":false},
					{"type":"function","name":"b","parameters":{"type":"object"},"strict":false,"defer_loading":true}]},
				{"type":"tool_search"}],"tool_choice":"auto"}`,
		},
		{
			name:  "provider tools",
			model: "gpt-4o",
			opts: callWith([]provider.Tool{
				&provider.ProviderTool{ID: "openai.web_search", Name: "search", Args: map[string]any{"externalWebAccess": false,
					"filters": map[string]any{"allowedDomains": []string{"example.com"}}, "searchContextSize": "low",
					"userLocation": map[string]any{"type": "approximate", "city": "Paris"}}},
				&provider.ProviderTool{ID: "openai.file_search", Name: "files", Args: map[string]any{"vectorStoreIds": []string{"vs_1"}, "maxNumResults": 5,
					"ranking": map[string]any{"ranker": "auto", "scoreThreshold": 0.5}}},
				&provider.ProviderTool{ID: "openai.code_interpreter", Name: "python", Args: map[string]any{"container": map[string]any{"fileIds": []string{"file-1"}}}},
				&provider.ProviderTool{ID: "openai.image_generation", Name: "draw", Args: map[string]any{"outputFormat": "webp", "partialImages": 2}},
				&provider.ProviderTool{ID: "openai.mcp", Name: "docs", Args: map[string]any{"serverLabel": "docs", "serverUrl": "https://mcp.example.com", "allowedTools": []string{"read"}}},
				grammar,
				&provider.ProviderTool{ID: "openai.local_shell", Name: "shell"},
			}, provider.ToolChoice{}),
			want: `{"tools":[
				{"type":"web_search","external_web_access":false,"filters":{"allowed_domains":["example.com"]},"search_context_size":"low","user_location":{"type":"approximate","city":"Paris"}},
				{"type":"file_search","vector_store_ids":["vs_1"],"max_num_results":5,"ranking_options":{"ranker":"auto","score_threshold":0.5}},
				{"type":"code_interpreter","container":{"type":"auto","file_ids":["file-1"]}},
				{"type":"image_generation","output_format":"webp","partial_images":2},
				{"type":"mcp","server_label":"docs","server_url":"https://mcp.example.com","allowed_tools":["read"],"require_approval":"never"},
				{"type":"custom","name":"sql_query","description":"Write SQL.","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}}],
				"include":["web_search_call.action.sources","code_interpreter_call.outputs"]}`,
			warnings: []provider.Warning{{Type: "unsupported", Feature: "provider-defined tool openai.local_shell"}},
		},
		{
			name:  "code interpreter defaults to an automatic container",
			model: "gpt-4o",
			opts:  callWith([]provider.Tool{&provider.ProviderTool{ID: "openai.code_interpreter", Name: "python"}}, provider.ToolChoice{}),
			want:  `{"tools":[{"type":"code_interpreter","container":{"type":"auto"}}]}`,
		},
		{name: "tool choice none", model: "gpt-4o", opts: callWith([]provider.Tool{weather}, provider.ToolChoice{Type: provider.ToolChoiceNone}), want: `{"tool_choice":"none"}`},
		{name: "tool choice required", model: "gpt-4o", opts: callWith([]provider.Tool{weather}, provider.ToolChoice{Type: provider.ToolChoiceRequired}), want: `{"tool_choice":"required"}`},
		{name: "tool choice auto", model: "gpt-4o", opts: callWith([]provider.Tool{weather}, provider.ToolChoice{Type: provider.ToolChoiceAuto}), want: `{"tool_choice":"auto"}`},
		{name: "tool choice function", model: "gpt-4o", opts: callWith([]provider.Tool{weather}, provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "weather"}),
			want: `{"tool_choice":{"type":"function","name":"weather"}}`},
		{name: "tool choice built-in tool", model: "gpt-4o", opts: callWith([]provider.Tool{weather, search}, provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "search"}),
			want: `{"tool_choice":{"type":"web_search"}}`},
		{name: "tool choice custom tool", model: "gpt-4o", opts: callWith([]provider.Tool{grammar}, provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "sql"}),
			want: `{"tool_choice":{"type":"custom","name":"sql_query"}}`},
		{
			name:  "allowed tools",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, Tools: []provider.Tool{weather, search,
				&provider.FunctionTool{Name: "later", InputSchema: json.RawMessage(`{}`), ProviderOptions: provider.ProviderOptions{"openai": {"deferLoading": true}}}},
				ProviderOptions: provider.ProviderOptions{"openai": {"allowedTools": map[string]any{"toolNames": []string{"weather", "search", "later"}, "mode": "required"}}}},
			want: `{"tool_choice":{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"weather"},{"type":"web_search"}]}}`,
			warnings: []provider.Warning{{Type: "unsupported", Feature: `allowedTools entry "later"`,
				Details: "deferred tools cannot be listed in allowed tools; it was removed from the allowed tools"}},
		},
		{name: "text tool result", model: "gpt-4o", opts: toolResult(provider.TextOutput{Value: "sunny"}),
			want: `{"input":[{"role":"user","content":[{"type":"input_text","text":"go"}]},
				{"type":"function_call","call_id":"c1","name":"weather","arguments":"{\"city\":\"Paris\"}"},
				{"type":"function_call_output","call_id":"c1","output":"sunny"}]}`},
		{name: "json tool result", model: "gpt-4o", opts: toolResult(provider.JSONOutput{Value: json.RawMessage(`{"temp":21}`)}),
			want: `{"input":[{},{},{"type":"function_call_output","call_id":"c1","output":"{\"temp\":21}"}]}`},
		{name: "denied tool result", model: "gpt-4o", opts: toolResult(provider.ExecutionDeniedOutput{Reason: "no"}),
			want: `{"input":[{},{},{"type":"function_call_output","call_id":"c1","output":"no"}]}`},
		{name: "error text tool result", model: "gpt-4o", opts: toolResult(provider.ErrorTextOutput{Value: "boom"}),
			want: `{"input":[{},{},{"type":"function_call_output","call_id":"c1","output":"{\"error\":\"boom\"}"}]}`},
		{name: "error json tool result", model: "gpt-4o", opts: toolResult(provider.ErrorJSONOutput{Value: json.RawMessage(`{"e":1}`)}),
			want: `{"input":[{},{},{"type":"function_call_output","call_id":"c1","output":"{\"error\":{\"e\":1}}"}]}`},
		{
			name: "content tool result", model: "gpt-4o",
			opts: toolResult(provider.ContentOutput{Value: []provider.ContentOutputPart{
				provider.TextPart{Text: "chart:"},
				provider.FilePart{MediaType: "image/png", Data: provider.FileBytes{Data: []byte("png")}, ProviderOptions: provider.ProviderOptions{"openai": {"imageDetail": "high"}}},
				provider.FilePart{MediaType: "image/png", Data: provider.FileURL{URL: "https://example.com/c.png"}},
				provider.FilePart{MediaType: "application/pdf", Filename: "r.pdf", Data: provider.FileBytes{Data: []byte("pdf")}},
				provider.FilePart{MediaType: "application/pdf", Data: provider.FileReference{Reference: map[string]string{"openai": "file-9"}}},
			}}),
			want: `{"input":[{},{},{"type":"function_call_output","call_id":"c1","output":[
				{"type":"input_text","text":"chart:"},
				{"type":"input_image","image_url":"data:image/png;base64,cG5n","detail":"high"},
				{"type":"input_image","image_url":"https://example.com/c.png"},
				{"type":"input_file","filename":"r.pdf","file_data":"data:application/pdf;base64,cGRm"},
				{"type":"input_file","file_id":"file-9"}]}]}`,
		},
		{
			name:  "custom tool calls and results",
			model: "gpt-4o",
			opts: &provider.CallOptions{Tools: []provider.Tool{grammar}, Prompt: []provider.Message{
				provider.AssistantMessage{Content: []provider.AssistantPart{provider.ToolCallPart{ToolCallID: "c2", ToolName: "sql", Input: json.RawMessage(`"SELECT 1"`)}}},
				provider.ToolMessage{Content: []provider.ToolPart{provider.ToolResultPart{ToolCallID: "c2", ToolName: "sql", Output: provider.TextOutput{Value: "1"}}}},
			}},
			want: `{"input":[{"type":"custom_tool_call","call_id":"c2","name":"sql_query","input":"SELECT 1"},
				{"type":"custom_tool_call_output","call_id":"c2","output":"1"}]}`,
		},
		{
			name:  "images and files",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{user(
				provider.FilePart{MediaType: "image/png", Data: provider.FileURL{URL: "https://example.com/a.png"}},
				provider.FilePart{MediaType: "image", Data: provider.FileBytes{Data: []byte("img")}, ProviderOptions: provider.ProviderOptions{"openai": {"imageDetail": "auto"}}},
				provider.FilePart{MediaType: "image/png", Data: provider.FileReference{Reference: map[string]string{"openai": "file-img"}}},
				provider.FilePart{MediaType: "application/pdf", Data: provider.FileBytes{Data: []byte("pdf")}},
				provider.FilePart{MediaType: "application/pdf", Data: provider.FileURL{URL: "https://example.com/a.pdf"}},
				provider.FilePart{MediaType: "application/pdf", Filename: "x.pdf", Data: provider.FileReference{Reference: map[string]string{"openai": "file-pdf"}}},
			)}},
			want: `{"input":[{"role":"user","content":[
				{"type":"input_image","image_url":"https://example.com/a.png"},
				{"type":"input_image","image_url":"data:image/jpeg;base64,aW1n","detail":"auto"},
				{"type":"input_image","file_id":"file-img"},
				{"type":"input_file","filename":"part-3.pdf","file_data":"data:application/pdf;base64,cGRm"},
				{"type":"input_file","file_url":"https://example.com/a.pdf"},
				{"type":"input_file","file_id":"file-pdf"}]}]}`,
		},
		{
			name:  "other files with pass-through",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{user(provider.FilePart{MediaType: "text/csv", Data: provider.FileText{Text: "a,b"}})},
				ProviderOptions: provider.ProviderOptions{"openai": {"passThroughUnsupportedFiles": true}}},
			want: `{"input":[{"role":"user","content":[{"type":"input_file","filename":"part-0","file_data":"data:text/csv;base64,YSxi"}]}]}`,
		},
		{
			name:  "provider options",
			model: "gpt-5",
			opts: withOpts(map[string]any{
				"conversation": "conv_1", "maxToolCalls": 3, "metadata": map[string]any{"k": "v"}, "parallelToolCalls": false,
				"store": false, "user": "u1", "instructions": "Be nice.", "serviceTier": "flex", "include": []string{"file_search_call.results"},
				"promptCacheKey": "pk", "promptCacheRetention": "24h", "promptCacheOptions": map[string]any{"mode": "explicit", "ttl": "12h", "prewarm": true, "comparisonResponseId": "resp_0"},
				"safetyIdentifier": "sid", "truncation": "auto", "reasoningEffort": "high", "reasoningSummary": "detailed", "reasoningMode": "pro", "reasoningContext": "all_turns",
				"textVerbosity": "high", "contextManagement": []any{map[string]any{"type": "compaction", "compactThreshold": 1000}},
			}),
			want: `{"conversation":"conv_1","max_tool_calls":3,"metadata":{"k":"v"},"parallel_tool_calls":false,"store":false,"user":"u1",
				"instructions":"Be nice.","service_tier":"flex","include":["file_search_call.results","reasoning.encrypted_content"],
				"prompt_cache_key":"pk","prompt_cache_retention":"24h","prompt_cache_options":{"mode":"explicit","ttl":"12h","prewarm":true,"comparison_response_id":"resp_0"},
				"safety_identifier":"sid","truncation":"auto","reasoning":{"effort":"high","summary":"detailed","mode":"pro","context":"all_turns"},
				"text":{"verbosity":"high"},"context_management":[{"type":"compaction","compact_threshold":1000}]}`,
		},
		{
			name:  "logprobs",
			model: "gpt-4o",
			opts:  withOpts(map[string]any{"logprobs": true}),
			want:  `{"top_logprobs":20,"include":["message.output_text.logprobs"]}`,
		},
		{
			name:   "json response format with schema",
			model:  "gpt-4o",
			opts:   &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: schema, Name: "num", Description: "A number."}},
			want:   `{"text":{"format":{"type":"json_schema","strict":true,"name":"num","description":"A number.","schema":{"type":"object","properties":{"n":{"type":["number","null"]}},"required":["n"],"additionalProperties":false}}}}`,
			absent: []string{"response_format"},
		},
		{
			name:  "json response format without schema, with verbosity",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ResponseFormat: &provider.ResponseFormat{Type: "json"},
				ProviderOptions: provider.ProviderOptions{"openai": {"textVerbosity": "low", "strictJsonSchema": false}}},
			want: `{"text":{"format":{"type":"json_object"},"verbosity":"low"}}`,
		},
		{
			name:  "json response format beside tools, default name",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: schema},
				Tools:      []provider.Tool{&provider.FunctionTool{Name: "lookup", InputSchema: json.RawMessage(`{"type":"object"}`)}},
				ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto}},
			want: `{"text":{"format":{"type":"json_schema","strict":true,"name":"response","schema":{"type":"object","properties":{"n":{"type":["number","null"]}},"required":["n"],"additionalProperties":false}}},
				"tools":[{"type":"function","name":"lookup","parameters":{"type":"object"},"strict":false}],"tool_choice":"auto"}`,
		},
		{
			name:  "json response format schema without look-arounds",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ResponseFormat: &provider.ResponseFormat{Type: "json",
				Schema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","pattern":"^(?<!a)b"}}}`)}},
			want: `{"text":{"format":{"type":"json_schema","strict":true,"name":"response","schema":{"type":"object","properties":{"id":{"type":["string","null"]}},"required":["id"],"additionalProperties":false}}}}`,
			warnings: []provider.Warning{{Type: "compatibility", Feature: "JSON Schema pattern with regex lookaround",
				Details: "OpenAI does not accept regex look-arounds in JSON Schema patterns; the pattern was removed, so it is not enforced."}},
		},
		{
			name:   "text response format sends no text format",
			model:  "gpt-4o",
			opts:   &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ResponseFormat: &provider.ResponseFormat{Type: "text"}},
			absent: []string{"text"},
		},
		{
			name:  "prompt cache breakpoints",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{
				provider.SystemMessage{Content: "sys", ProviderOptions: provider.ProviderOptions{"openai": {"promptCacheBreakpoint": map[string]any{"mode": "explicit"}}}},
				user(provider.TextPart{Text: "u", ProviderOptions: provider.ProviderOptions{"openai": {"promptCacheBreakpoint": map[string]any{"mode": "explicit"}}}}),
			}},
			want: `{"input":[{"role":"system","content":[{"type":"input_text","text":"sys","prompt_cache_breakpoint":{"mode":"explicit"}}]},
				{"role":"user","content":[{"type":"input_text","text":"u","prompt_cache_breakpoint":{"mode":"explicit"}}]}]}`,
		},
		{
			name:  "reasoning with store is sent as one reference per item",
			model: "gpt-5",
			opts: &provider.CallOptions{Prompt: []provider.Message{provider.AssistantMessage{Content: []provider.AssistantPart{
				provider.ReasoningPart{Text: "a", ProviderOptions: provider.ProviderOptions{"openai": {"itemId": "rs_1"}}},
				provider.ReasoningPart{Text: "b", ProviderOptions: provider.ProviderOptions{"openai": {"itemId": "rs_1"}}},
				provider.TextPart{Text: "answer", ProviderOptions: provider.ProviderOptions{"openai": {"itemId": "msg_1"}}},
			}}}},
			want: `{"input":[{"type":"item_reference","id":"rs_1"},{"type":"item_reference","id":"msg_1"}]}`,
		},
		{
			name:  "reasoning without store merges summaries and keeps encrypted content",
			model: "gpt-5",
			opts: &provider.CallOptions{ProviderOptions: provider.ProviderOptions{"openai": {"store": false}}, Prompt: []provider.Message{provider.AssistantMessage{Content: []provider.AssistantPart{
				provider.ReasoningPart{Text: "a", ProviderOptions: provider.ProviderOptions{"openai": {"itemId": "rs_1", "reasoningEncryptedContent": nil}}},
				provider.ReasoningPart{Text: "b", ProviderOptions: provider.ProviderOptions{"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "ENC"}}},
				provider.ReasoningPart{Text: "lost", ProviderOptions: provider.ProviderOptions{"openai": {"itemId": "rs_2"}}},
				provider.ReasoningPart{Text: "other"},
			}}}},
			want: `{"input":[{"type":"reasoning","id":"rs_1","encrypted_content":"ENC","summary":[{"type":"summary_text","text":"a"},{"type":"summary_text","text":"b"}]}]}`,
			warnings: []provider.Warning{
				{Type: "other", Message: "reasoning from other providers cannot be sent to OpenAI and was skipped"},
				{Type: "other", Message: "reasoning without encrypted content cannot be sent when store is false and was skipped"},
			},
		},
		{
			name:  "web search results without store are rebuilt",
			model: "gpt-4o",
			opts: &provider.CallOptions{Tools: []provider.Tool{search}, ProviderOptions: provider.ProviderOptions{"openai": {"store": false}}, Prompt: []provider.Message{
				provider.AssistantMessage{Content: []provider.AssistantPart{
					provider.ToolCallPart{ToolCallID: "ws_1", ToolName: "search", Input: json.RawMessage(`{}`), ProviderExecuted: true},
					provider.ToolResultPart{ToolCallID: "ws_1", ToolName: "search", Output: provider.JSONOutput{Value: json.RawMessage(
						`{"action":{"type":"search","query":"go"},"sources":[{"type":"url","url":"https://go.dev"}]}`)}},
					provider.ToolResultPart{ToolCallID: "ws_2", ToolName: "search", Output: provider.JSONOutput{Value: json.RawMessage(
						`{"action":{"type":"openPage","url":"https://go.dev"}}`)}},
				}}}},
			want: `{"input":[
				{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"go","sources":[{"type":"url","url":"https://go.dev"}]}},
				{"type":"web_search_call","id":"ws_2","status":"completed","action":{"type":"open_page","url":"https://go.dev"}}]}`,
		},
		{
			name:  "MCP approval responses",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{provider.ToolMessage{Content: []provider.ToolPart{
				provider.ToolApprovalResponsePart{ApprovalID: "mcpr_1", Approved: true, ProviderExecuted: true},
				provider.ToolApprovalResponsePart{ApprovalID: "mcpr_1", Approved: true, ProviderExecuted: true},
				provider.ToolResultPart{ToolCallID: "x", ToolName: "mcp.read", Output: provider.ExecutionDeniedOutput{
					ProviderOptions: provider.ProviderOptions{"openai": {"approvalId": "mcpr_2"}}}},
			}}}},
			want: `{"input":[{"type":"item_reference","id":"mcpr_1"},{"type":"mcp_approval_response","approval_request_id":"mcpr_1","approve":true}]}`,
		},
		{
			name:  "items already in a conversation are not sent",
			model: "gpt-4o",
			opts: &provider.CallOptions{ProviderOptions: provider.ProviderOptions{"openai": {"conversation": "conv_1"}}, Prompt: []provider.Message{
				userText("Hi"),
				provider.AssistantMessage{Content: []provider.AssistantPart{provider.TextPart{Text: "old", ProviderOptions: provider.ProviderOptions{"openai": {"itemId": "msg_1"}}}}},
				userText("Again"),
			}},
			want: `{"conversation":"conv_1","input":[{"role":"user","content":[{"type":"input_text","text":"Hi"}]},{"role":"user","content":[{"type":"input_text","text":"Again"}]}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, warnings := responsesBody(t, tt.model, tt.opts)
			var w map[string]any
			if tt.want != "" {
				require.NoError(t, json.Unmarshal([]byte(tt.want), &w))
			}
			for k, v := range w {
				if list, ok := v.([]any); ok && k == "input" {
					assertMessages(t, list, body[k])
					continue
				}
				got, _ := json.Marshal(body[k])
				exp, _ := json.Marshal(v)
				assert.JSONEq(t, string(exp), string(got), "field %q", k)
			}
			for _, k := range tt.absent {
				assert.NotContains(t, body, k)
			}
			assert.Equal(t, tt.warnings, warnings)
		})
	}
}

func TestResponsesUnsupportedFiles(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON([]byte(responsesOK)))
	_, err := newProvider(srv).Responses("gpt-4o").Generate(context.Background(), &provider.CallOptions{
		Prompt: []provider.Message{user(provider.FilePart{MediaType: "text/csv", Data: provider.FileBytes{Data: []byte("a")}})}})
	var unsupported *provider.UnsupportedFunctionalityError
	require.ErrorAs(t, err, &unsupported)
	assert.Equal(t, "file part media type text/csv", unsupported.Functionality)
	assert.Empty(t, srv.Requests())
}

func TestResponsesAllowedToolsNothingAllowed(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON([]byte(responsesOK)))
	opts := callWith([]provider.Tool{&provider.FunctionTool{Name: "d", InputSchema: json.RawMessage(`{}`),
		ProviderOptions: provider.ProviderOptions{"openai": {"deferLoading": true}}}}, provider.ToolChoice{})
	opts.ProviderOptions = provider.ProviderOptions{"openai": {"allowedTools": map[string]any{"toolNames": []string{"d"}}}}
	_, err := newProvider(srv).Responses("gpt-4o").Generate(context.Background(), opts)
	var unsupported *provider.UnsupportedFunctionalityError
	require.ErrorAs(t, err, &unsupported)
}
