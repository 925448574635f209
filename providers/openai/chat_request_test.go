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

const chatOK = `{"id":"c","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`

// chatBody sends opts to a Chat model and returns the request body and the
// call's warnings.
func chatBody(t *testing.T, modelID string, opts *provider.CallOptions) (map[string]any, []provider.Warning) {
	t.Helper()
	srv := replay.NewServer(t, replay.JSON([]byte(chatOK)))
	res, err := newProvider(srv).Chat(modelID).Generate(context.Background(), opts)
	require.NoError(t, err)
	return srv.Last(t).JSON(t), res.Warnings
}

func user(parts ...provider.UserPart) provider.Message { return provider.UserMessage{Content: parts} }

// TestChatRequestBodies compares request bodies with the reference's for
// the same calls, except that strict response format schemas are rewritten
// for strict mode (openaichat.StrictSchema), which the reference does not
// do.
func TestChatRequestBodies(t *testing.T) {
	weather := &provider.FunctionTool{Name: "weather", Description: "Get the weather.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`), Strict: new(true)}
	plainTool := &provider.FunctionTool{Name: "noop", InputSchema: json.RawMessage(`{"type":"object"}`)}
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)
	toolResult := func(out provider.ToolResultOutput) *provider.CallOptions {
		return &provider.CallOptions{Prompt: []provider.Message{
			userText("go"),
			provider.AssistantMessage{Content: []provider.AssistantPart{provider.ToolCallPart{ToolCallID: "c1", ToolName: "weather", Input: json.RawMessage(`{"city":"Paris"}`)}}},
			provider.ToolMessage{Content: []provider.ToolPart{provider.ToolResultPart{ToolCallID: "c1", ToolName: "weather", Output: out}}},
		}}
	}

	tests := []struct {
		name     string
		model    string
		opts     *provider.CallOptions
		want     string   // fields that must match
		absent   []string // fields that must not be sent
		warnings []provider.Warning
	}{
		{
			name:   "plain text",
			model:  "gpt-4o",
			opts:   prompt("hi"),
			want:   `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`,
			absent: []string{"tools", "tool_choice", "max_tokens", "temperature", "stream", "response_format"},
		},
		{
			name:  "system and several turns",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{
				provider.SystemMessage{Content: "Be brief."},
				userText("Hi"),
				provider.AssistantMessage{Content: []provider.AssistantPart{provider.TextPart{Text: "Hello"}, provider.TextPart{Text: " there"}, provider.ReasoningPart{Text: "hidden"}}},
				userText("Bye"),
			}},
			want: `{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"},
				{"role":"assistant","content":"Hello there"},{"role":"user","content":"Bye"}]}`,
		},
		{
			name:  "reasoning models take the developer role and drop sampling settings",
			model: "gpt-5",
			opts: &provider.CallOptions{Prompt: []provider.Message{provider.SystemMessage{Content: "Be brief."}, userText("Hi")},
				MaxOutputTokens: new(100), Temperature: new(0.5), TopP: new(0.9), FrequencyPenalty: new(0.1), PresencePenalty: new(0.2)},
			want:   `{"messages":[{"role":"developer","content":"Be brief."},{"role":"user","content":"Hi"}],"max_completion_tokens":100}`,
			absent: []string{"max_tokens", "temperature", "top_p", "frequency_penalty", "presence_penalty"},
			warnings: []provider.Warning{
				{Type: "unsupported", Feature: "temperature", Details: "temperature is not supported for reasoning models"},
				{Type: "unsupported", Feature: "topP", Details: "topP is not supported for reasoning models"},
				{Type: "unsupported", Feature: "frequencyPenalty", Details: "frequencyPenalty is not supported for reasoning models"},
				{Type: "unsupported", Feature: "presencePenalty", Details: "presencePenalty is not supported for reasoning models"},
			},
		},
		{
			name:  "gpt-5.1 with effort none keeps temperature",
			model: "gpt-5.1",
			opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, Temperature: new(0.5),
				ProviderOptions: provider.ProviderOptions{"openai": {"reasoningEffort": "none"}}},
			want: `{"temperature":0.5,"reasoning_effort":"none"}`,
		},
		{
			name:  "sampling settings",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, MaxOutputTokens: new(50), Temperature: new(0.0),
				TopP: new(0.9), FrequencyPenalty: new(0.1), PresencePenalty: new(0.2), Seed: new(7), StopSequences: []string{"END"}, TopK: new(3)},
			want:     `{"max_tokens":50,"temperature":0,"top_p":0.9,"frequency_penalty":0.1,"presence_penalty":0.2,"seed":7,"stop":["END"]}`,
			absent:   []string{"top_k"},
			warnings: []provider.Warning{{Type: "unsupported", Feature: "topK"}},
		},
		{
			name:  "function tools, strict, and a provider tool",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")},
				Tools: []provider.Tool{weather, plainTool, &provider.ProviderTool{ID: "openai.web_search", Name: "search"}}},
			want: `{"tools":[
				{"type":"function","function":{"name":"weather","description":"Get the weather.","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":true}},
				{"type":"function","function":{"name":"noop","parameters":{"type":"object"}}}],
				"tool_choice":"auto"}`,
			warnings: []provider.Warning{{Type: "unsupported", Feature: "provider-defined tool openai.web_search"}},
		},
		{name: "tool choice none", model: "gpt-4o", opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, Tools: []provider.Tool{weather}, ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceNone}},
			want: `{"tool_choice":"none"}`},
		{name: "tool choice required", model: "gpt-4o", opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, Tools: []provider.Tool{weather}, ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceRequired}},
			want: `{"tool_choice":"required"}`},
		{name: "tool choice auto", model: "gpt-4o", opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, Tools: []provider.Tool{weather}, ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto}},
			want: `{"tool_choice":"auto"}`},
		{name: "tool choice of one tool", model: "gpt-4o", opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, Tools: []provider.Tool{weather}, ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "weather"}},
			want: `{"tool_choice":{"type":"function","function":{"name":"weather"}}}`},
		{name: "no tools, no tool choice", model: "gpt-4o", opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceRequired}},
			absent: []string{"tools", "tool_choice"}},
		{name: "text tool result", model: "gpt-4o", opts: toolResult(provider.TextOutput{Value: "sunny"}),
			want: `{"messages":[{"role":"user","content":"go"},
				{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}]},
				{"role":"tool","tool_call_id":"c1","content":"sunny"}]}`},
		{name: "json tool result", model: "gpt-4o", opts: toolResult(provider.JSONOutput{Value: json.RawMessage(`{"temp":21}`)}),
			want: `{"messages":[{},{},{"role":"tool","tool_call_id":"c1","content":"{\"temp\":21}"}]}`},
		{name: "denied tool result", model: "gpt-4o", opts: toolResult(provider.ExecutionDeniedOutput{}),
			want: `{"messages":[{},{},{"role":"tool","tool_call_id":"c1","content":"Tool call execution denied."}]}`},
		{name: "denied tool result with reason", model: "gpt-4o", opts: toolResult(provider.ExecutionDeniedOutput{Reason: "not allowed"}),
			want: `{"messages":[{},{},{"role":"tool","tool_call_id":"c1","content":"not allowed"}]}`},
		{name: "error text tool result", model: "gpt-4o", opts: toolResult(provider.ErrorTextOutput{Value: "failed"}),
			want: `{"messages":[{},{},{"role":"tool","tool_call_id":"c1","content":"{\"error\":\"failed\"}"}]}`},
		{name: "error json tool result", model: "gpt-4o", opts: toolResult(provider.ErrorJSONOutput{Value: json.RawMessage(`{"code":1}`)}),
			want: `{"messages":[{},{},{"role":"tool","tool_call_id":"c1","content":"{\"error\":{\"code\":1}}"}]}`},
		{name: "content tool result", model: "gpt-4o", opts: toolResult(provider.ContentOutput{Value: []provider.ContentOutputPart{provider.TextPart{Text: "a"}}}),
			want: `{"messages":[{},{},{"role":"tool","tool_call_id":"c1","content":"[{\"type\":\"text\",\"text\":\"a\"}]"}]}`},
		{
			name:  "images, PDFs and audio",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{user(
				provider.TextPart{Text: "look"},
				provider.FilePart{MediaType: "image/png", Data: provider.FileURL{URL: "https://example.com/a.png"}},
				provider.FilePart{MediaType: "image/*", Data: provider.FileBytes{Data: []byte("img")},
					ProviderOptions: provider.ProviderOptions{"openai": {"imageDetail": "low"}}},
				provider.FilePart{MediaType: "application/pdf", Data: provider.FileBytes{Data: []byte("pdf")}},
				provider.FilePart{MediaType: "application/pdf", Filename: "r.pdf", Data: provider.FileReference{Reference: map[string]string{"openai": "file-123"}}},
				provider.FilePart{MediaType: "audio/wav", Data: provider.FileBytes{Data: []byte("wav")}},
				provider.FilePart{MediaType: "audio/mpeg", Data: provider.FileBytes{Data: []byte("mp3")}},
			)}},
			want: `{"messages":[{"role":"user","content":[
				{"type":"text","text":"look"},
				{"type":"image_url","image_url":{"url":"https://example.com/a.png"}},
				{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,aW1n","detail":"low"}},
				{"type":"file","file":{"filename":"part-3.pdf","file_data":"data:application/pdf;base64,cGRm"}},
				{"type":"file","file":{"file_id":"file-123"}},
				{"type":"input_audio","input_audio":{"data":"d2F2","format":"wav"}},
				{"type":"input_audio","input_audio":{"data":"bXAz","format":"mp3"}}]}]}`,
		},
		{
			name:  "provider options",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ProviderOptions: provider.ProviderOptions{"openai": {
				"logitBias": map[string]any{"50256": -100}, "logprobs": 3, "parallelToolCalls": false, "user": "u1",
				"maxCompletionTokens": 99, "store": true, "metadata": map[string]any{"k": "v"}, "prediction": map[string]any{"type": "content", "content": "x"},
				"serviceTier": "priority", "textVerbosity": "low", "promptCacheKey": "key-1", "promptCacheRetention": "24h",
				"promptCacheOptions": map[string]any{"mode": "explicit", "ttl": "30m"}, "safetyIdentifier": "sid", "reasoningEffort": "low",
				"unknownKey": 1,
			}}},
			want: `{"logit_bias":{"50256":-100},"logprobs":true,"top_logprobs":3,"parallel_tool_calls":false,"user":"u1",
				"max_completion_tokens":99,"store":true,"metadata":{"k":"v"},"prediction":{"type":"content","content":"x"},
				"service_tier":"priority","verbosity":"low","prompt_cache_key":"key-1","prompt_cache_retention":"24h",
				"prompt_cache_options":{"mode":"explicit","ttl":"30m"},"safety_identifier":"sid","reasoning_effort":"low"}`,
			absent: []string{"unknownKey"},
		},
		{
			name:  "logprobs true",
			model: "gpt-4o",
			opts:  &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ProviderOptions: provider.ProviderOptions{"openai": {"logprobs": true}}},
			want:  `{"logprobs":true,"top_logprobs":0}`,
		},
		{
			name:   "flex service tier on a model without it",
			model:  "gpt-4o",
			opts:   &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ProviderOptions: provider.ProviderOptions{"openai": {"serviceTier": "flex"}}},
			absent: []string{"service_tier"},
			warnings: []provider.Warning{{Type: "unsupported", Feature: "serviceTier",
				Details: "flex processing is only available for o3, o4-mini and gpt-5 models"}},
		},
		{
			name:  "call reasoning effort on a reasoning model",
			model: "o3",
			opts:  &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, Reasoning: provider.ReasoningHigh},
			want:  `{"reasoning_effort":"high"}`,
		},
		{
			name:     "call reasoning effort on another model",
			model:    "gpt-4o",
			opts:     &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, Reasoning: provider.ReasoningHigh},
			absent:   []string{"reasoning_effort"},
			warnings: []provider.Warning{{Type: "unsupported", Feature: "reasoning", Details: "reasoning effort is only supported by reasoning models"}},
		},
		{
			name:  "prompt cache breakpoints",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{
				provider.SystemMessage{Content: "sys", ProviderOptions: provider.ProviderOptions{"openai": {"promptCacheBreakpoint": map[string]any{"mode": "explicit"}}}},
				user(provider.TextPart{Text: "u", ProviderOptions: provider.ProviderOptions{"openai": {"promptCacheBreakpoint": map[string]any{"mode": "explicit"}}}}),
			}},
			want: `{"messages":[
				{"role":"system","content":[{"type":"text","text":"sys","prompt_cache_breakpoint":{"mode":"explicit"}}]},
				{"role":"user","content":[{"type":"text","text":"u","prompt_cache_breakpoint":{"mode":"explicit"}}]}]}`,
		},
		{
			name:  "json response format with schema",
			model: "gpt-4o",
			opts:  &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: schema, Description: "A number."}},
			want:  `{"response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object","properties":{"n":{"type":["number","null"]}},"required":["n"],"additionalProperties":false},"strict":true,"name":"response","description":"A number."}}}`,
		},
		{
			name:  "json response format, not strict",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: schema, Name: "num"},
				ProviderOptions: provider.ProviderOptions{"openai": {"strictJsonSchema": false}}},
			want: `{"response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object","properties":{"n":{"type":"number"}}},"strict":false,"name":"num"}}}`,
		},
		{
			name:  "json response format without schema",
			model: "gpt-4o",
			opts:  &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ResponseFormat: &provider.ResponseFormat{Type: "json"}},
			want:  `{"response_format":{"type":"json_object"}}`,
		},
		{
			name:  "root allOf reference is inlined",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ResponseFormat: &provider.ResponseFormat{Type: "json",
				Schema: json.RawMessage(`{"allOf":[{"$ref":"#/definitions/Node"}],"definitions":{"Node":{"type":"object","properties":{"next":{"allOf":[{"$ref":"#/definitions/Node"}]}}}}}`)}},
			want: `{"response_format":{"type":"json_schema","json_schema":{"strict":true,"name":"response","schema":
				{"type":"object","properties":{"next":{"anyOf":[{"$ref":"#/definitions/Node"},{"type":"null"}]}},"required":["next"],"additionalProperties":false,
				 "definitions":{"Node":{"type":"object","properties":{"next":{"anyOf":[{"$ref":"#/definitions/Node"},{"type":"null"}]}},"required":["next"],"additionalProperties":false}}}}}}`,
		},
		{
			name:  "response format schema without propertyNames and look-arounds",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ResponseFormat: &provider.ResponseFormat{Type: "json",
				Schema: json.RawMessage(`{"type":"object","propertyNames":{"pattern":"^[a-z]+$"},"properties":{"id":{"type":"string","pattern":"^(?!x)\\w+$"},"code":{"type":"string","pattern":"^[(?=]+$"}}}`)}},
			want: `{"response_format":{"type":"json_schema","json_schema":{"strict":true,"name":"response","schema":
				{"type":"object","properties":{"id":{"type":["string","null"]},"code":{"type":["string","null"],"pattern":"^[(?=]+$"}},"required":["code","id"],"additionalProperties":false}}}}`,
			warnings: []provider.Warning{
				{Type: "compatibility", Feature: "JSON Schema propertyNames", Details: "OpenAI does not accept propertyNames in a JSON Schema; it was removed, so property names are not constrained."},
				{Type: "compatibility", Feature: "JSON Schema pattern with regex lookaround", Details: "OpenAI does not accept regex look-arounds in JSON Schema patterns; the pattern was removed, so it is not enforced."},
			},
		},
		{
			name:  "response format beside tools",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: schema, Name: "answer"},
				Tools:      []provider.Tool{&provider.FunctionTool{Name: "lookup", InputSchema: json.RawMessage(`{"type":"object"}`)}},
				ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto}},
			want: `{"response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object","properties":{"n":{"type":["number","null"]}},"required":["n"],"additionalProperties":false},"strict":true,"name":"answer"}},
				"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}],"tool_choice":"auto"}`,
		},
		{
			name:   "text response format sends nothing",
			model:  "gpt-4o",
			opts:   &provider.CallOptions{Prompt: []provider.Message{userText("Hi")}, ResponseFormat: &provider.ResponseFormat{Type: "text"}},
			absent: []string{"response_format"},
		},
		{
			name:  "system messages removed",
			model: "gpt-4o",
			opts: &provider.CallOptions{Prompt: []provider.Message{provider.SystemMessage{Content: "sys"}, userText("Hi")},
				ProviderOptions: provider.ProviderOptions{"openai": {"systemMessageMode": "remove"}}},
			want:     `{"messages":[{"role":"user","content":"Hi"}]}`,
			warnings: []provider.Warning{{Type: "other", Message: "system messages are removed for this model"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, warnings := chatBody(t, tt.model, tt.opts)
			if tt.want != "" {
				var w map[string]any
				require.NoError(t, json.Unmarshal([]byte(tt.want), &w))
				for k, v := range w {
					if msgs, ok := v.([]any); ok && k == "messages" {
						assertMessages(t, msgs, body[k])
						continue
					}
					got, _ := json.Marshal(body[k])
					exp, _ := json.Marshal(v)
					assert.JSONEq(t, string(exp), string(got), "field %q", k)
				}
			}
			for _, k := range tt.absent {
				assert.NotContains(t, body, k)
			}
			assert.Equal(t, tt.warnings, warnings)
		})
	}
}

// assertMessages compares messages; an empty object in want matches any
// message.
func assertMessages(t *testing.T, want []any, got any) {
	t.Helper()
	list, ok := got.([]any)
	require.True(t, ok, "messages is not a list")
	require.Len(t, list, len(want))
	for i := range want {
		if m, ok := want[i].(map[string]any); ok && len(m) == 0 {
			continue
		}
		w, _ := json.Marshal(want[i])
		g, _ := json.Marshal(list[i])
		assert.JSONEq(t, string(w), string(g), "message %d", i)
	}
}

func TestChatUnsupportedFiles(t *testing.T) {
	for name, part := range map[string]provider.FilePart{
		"audio url":   {MediaType: "audio/wav", Data: provider.FileURL{URL: "https://example.com/a.wav"}},
		"pdf url":     {MediaType: "application/pdf", Data: provider.FileURL{URL: "https://example.com/a.pdf"}},
		"audio/ogg":   {MediaType: "audio/ogg", Data: provider.FileBytes{Data: []byte("x")}},
		"application": {MediaType: "application/zip", Data: provider.FileBytes{Data: []byte("x")}},
	} {
		t.Run(name, func(t *testing.T) {
			srv := replay.NewServer(t, replay.JSON([]byte(chatOK)))
			_, err := newProvider(srv).Chat("gpt-4o").Generate(context.Background(), &provider.CallOptions{Prompt: []provider.Message{user(part)}})
			var unsupported *provider.UnsupportedFunctionalityError
			require.ErrorAs(t, err, &unsupported)
			assert.Empty(t, srv.Requests(), "nothing is sent")
		})
	}
}

func TestChatInvalidProviderOptions(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON([]byte(chatOK)))
	opts := prompt("hi")
	opts.ProviderOptions = provider.ProviderOptions{"openai": {"store": "yes"}}
	_, err := newProvider(srv).Chat("gpt-4o").Generate(context.Background(), opts)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "provider options")
	assert.Empty(t, srv.Requests())
}
