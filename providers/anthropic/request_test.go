package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

// sent runs one Generate call against a server answering with a recorded
// text response and returns the JSON body that was sent, the warnings and
// the recorded request.
func sent(t *testing.T, modelID string, opts *provider.CallOptions, popts ...Option) (map[string]any, []provider.Warning, recorded) {
	t.Helper()
	f := newFakeAPI(t, reply{body: readFixture(t, "anthropic-text.json")})
	if opts.Prompt == nil {
		opts.Prompt = userPrompt("Hello")
	}
	res, err := testModel(t, f, modelID, popts...).Generate(context.Background(), opts)
	require.NoError(t, err)
	body := f.bodyMap(t, 0)
	// The recorded request body is what was sent.
	var echoed map[string]any
	require.NoError(t, json.Unmarshal(res.Request.Body, &echoed))
	require.Equal(t, body, echoed)
	return body, res.Warnings, f.request(t, 0)
}

// field returns the JSON of a top-level body field.
func field(t *testing.T, body map[string]any, key string) string {
	t.Helper()
	b, err := json.Marshal(body[key])
	require.NoError(t, err)
	return string(b)
}

func hasWarning(ws []provider.Warning, typ, feature string) bool {
	for _, w := range ws {
		if w.Type == typ && w.Feature == feature {
			return true
		}
	}
	return false
}

func TestRequestPlainText(t *testing.T) {
	body, warnings, req := sent(t, "claude-sonnet-4-5", &provider.CallOptions{})
	assert.JSONEq(t, `{
		"model": "claude-sonnet-4-5",
		"max_tokens": 64000,
		"messages": [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}]
	}`, string(req.body))
	assert.NotContains(t, body, "stream")
	assert.NotContains(t, body, "tools")
	assert.NotContains(t, body, "tool_choice")
	assert.Empty(t, warnings)

	assert.Equal(t, "/messages", req.path)
	assert.Equal(t, "test-key", req.headers.Get("x-api-key"))
	assert.Equal(t, "2023-06-01", req.headers.Get("anthropic-version"))
	assert.Equal(t, "application/json", req.headers.Get("Content-Type"))
	assert.Empty(t, req.headers.Get("anthropic-beta"))
	assert.Contains(t, req.headers.Get("User-Agent"), "aisdkgo-anthropic")
}

func TestRequestSamplingSettings(t *testing.T) {
	body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{
		MaxOutputTokens:  ptr(1000),
		Temperature:      ptr(0.5),
		TopK:             ptr(40),
		StopSequences:    []string{"END"},
		FrequencyPenalty: ptr(0.1),
		PresencePenalty:  ptr(0.2),
		Seed:             ptr(7),
	})
	assert.Equal(t, float64(1000), body["max_tokens"])
	assert.Equal(t, 0.5, body["temperature"])
	assert.Equal(t, float64(40), body["top_k"])
	assert.Equal(t, []any{"END"}, body["stop_sequences"])
	for _, f := range []string{"frequencyPenalty", "presencePenalty", "seed"} {
		assert.True(t, hasWarning(warnings, "unsupported", f), f)
	}

	// Temperature is clamped to [0, 1]; top_p goes when temperature is set.
	body, warnings, _ = sent(t, "claude-sonnet-4-5", &provider.CallOptions{Temperature: ptr(1.7), TopP: ptr(0.9)})
	assert.Equal(t, float64(1), body["temperature"])
	assert.NotContains(t, body, "top_p")
	assert.True(t, hasWarning(warnings, "unsupported", "temperature"))
	assert.True(t, hasWarning(warnings, "unsupported", "topP"))

	body, _, _ = sent(t, "claude-sonnet-4-5", &provider.CallOptions{TopP: ptr(0.9)})
	assert.Equal(t, 0.9, body["top_p"])

	// Models that reject sampling parameters lose them.
	body, warnings, _ = sent(t, "claude-opus-4-7", &provider.CallOptions{Temperature: ptr(0.2), TopK: ptr(3)})
	assert.NotContains(t, body, "temperature")
	assert.NotContains(t, body, "top_k")
	assert.True(t, hasWarning(warnings, "unsupported", "temperature"))
}

func TestRequestMaxTokens(t *testing.T) {
	tests := []struct {
		model   string
		max     *int
		want    float64
		warning string
	}{
		{"claude-sonnet-4-5-20250929", nil, 64000, ""},
		{"claude-opus-4-1", nil, 32000, ""},
		{"claude-sonnet-4-6", nil, 128000, ""},
		{"claude-3-haiku-20240307", nil, 4096, ""},
		{"some-other-model", nil, 4096, "compatibility"},
		{"claude-sonnet-4-5", ptr(100000), 64000, "unsupported"},
		{"some-other-model", ptr(100000), 100000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			body, warnings, _ := sent(t, tt.model, &provider.CallOptions{MaxOutputTokens: tt.max})
			assert.Equal(t, tt.want, body["max_tokens"])
			if tt.warning == "" {
				assert.Empty(t, warnings)
			} else {
				assert.True(t, hasWarning(warnings, tt.warning, "maxOutputTokens"), "%v", warnings)
			}
		})
	}
}

func TestRequestSystemAndMultiTurn(t *testing.T) {
	prompt := []provider.Message{
		provider.SystemMessage{Content: "You are terse."},
		provider.SystemMessage{Content: "Answer in English."},
		provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "What is 2+2?"}}},
		provider.AssistantMessage{Content: []provider.AssistantPart{provider.TextPart{Text: "4 "}}},
		provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.ToolCallPart{ToolCallID: "call_1", ToolName: "calc", Input: json.RawMessage(`{"expr":"2+2"}`)},
		}},
		provider.ToolMessage{Content: []provider.ToolPart{
			provider.ToolResultPart{ToolCallID: "call_1", ToolName: "calc", Output: provider.TextOutput{Value: "4"}},
		}},
		provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "And 3+3?"}}},
		provider.SystemMessage{Content: "Be brief."},
		provider.AssistantMessage{Content: []provider.AssistantPart{provider.TextPart{Text: "The answer is  \n"}}},
	}
	body, _, req := sent(t, "claude-sonnet-4-5", &provider.CallOptions{Prompt: prompt})
	assert.JSONEq(t, `[{"type":"text","text":"You are terse."},{"type":"text","text":"Answer in English."}]`, field(t, body, "system"))
	assert.JSONEq(t, `[
		{"role":"user","content":[{"type":"text","text":"What is 2+2?"}]},
		{"role":"assistant","content":[
			{"type":"text","text":"4 "},
			{"type":"tool_use","id":"call_1","name":"calc","input":{"expr":"2+2"}}
		]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"call_1","content":"4"},
			{"type":"text","text":"And 3+3?"}
		]},
		{"role":"system","content":[{"type":"text","text":"Be brief."}]},
		{"role":"assistant","content":[{"type":"text","text":"The answer is"}]}
	]`, field(t, body, "messages"))
	assert.Equal(t, "mid-conversation-system-2026-04-07", req.headers.Get("anthropic-beta"))
}

func TestRequestToolUseMovedAfterText(t *testing.T) {
	prompt := []provider.Message{
		provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "go"}}},
		provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.ReasoningPart{Text: "think", ProviderOptions: provider.ProviderOptions{"anthropic": {"signature": "sig1"}}},
			provider.ToolCallPart{ToolCallID: "a", ToolName: "t", Input: json.RawMessage(`"{\"x\":1}"`)},
			provider.TextPart{Text: "calling"},
			provider.ReasoningPart{ProviderOptions: provider.ProviderOptions{"anthropic": {"redactedData": "opaque"}}},
			provider.ToolCallPart{ToolCallID: "b", ToolName: "t"},
		}},
		provider.ToolMessage{Content: []provider.ToolPart{
			provider.ToolResultPart{ToolCallID: "a", ToolName: "t", Output: provider.TextOutput{Value: "1"}},
			provider.ToolApprovalResponsePart{ApprovalID: "x", Approved: true},
			provider.ToolResultPart{ToolCallID: "b", ToolName: "t", Output: provider.TextOutput{Value: "2"}},
		}},
	}
	body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{Prompt: prompt})
	assert.Empty(t, warnings)
	assert.JSONEq(t, `[
		{"type":"thinking","thinking":"think","signature":"sig1"},
		{"type":"text","text":"calling"},
		{"type":"tool_use","id":"a","name":"t","input":{"x":1}},
		{"type":"redacted_thinking","data":"opaque"},
		{"type":"tool_use","id":"b","name":"t","input":{}}
	]`, field(t, body["messages"].([]any)[1].(map[string]any), "content"))
	assert.Len(t, body["messages"].([]any)[2].(map[string]any)["content"], 2)
}

func TestRequestTools(t *testing.T) {
	weather := &provider.FunctionTool{
		Name:          "weather",
		Description:   "Get the weather",
		InputSchema:   json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		InputExamples: []json.RawMessage{json.RawMessage(`{"city":"Paris"}`)},
		Strict:        ptr(true),
	}
	noDesc := &provider.FunctionTool{Name: "ping", ProviderOptions: ToolOptions{AllowedCallers: []string{"code_execution_20250825"}}.ProviderOptions()}
	search := &provider.ProviderTool{ID: "anthropic.web_search_20250305", Name: "search", Args: map[string]any{
		"maxUses": 2, "allowedDomains": []string{"example.com"},
		"userLocation": map[string]any{"type": "approximate", "city": "Berlin"},
	}}
	regex := &provider.ProviderTool{ID: regexID, Name: "find_tools"}
	bash := &provider.ProviderTool{ID: "anthropic.bash_20250124", Name: "shell"}
	unknown := &provider.ProviderTool{ID: "other.tool", Name: "other"}

	t.Run("structured outputs model", func(t *testing.T) {
		body, warnings, req := sent(t, "claude-sonnet-4-5", &provider.CallOptions{
			Tools: []provider.Tool{weather, noDesc, search, regex, bash, unknown},
		})
		assert.JSONEq(t, `[
			{"name":"weather","description":"Get the weather",
			 "input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},
			 "strict":true,"input_examples":[{"city":"Paris"}]},
			{"name":"ping","input_schema":{"type":"object","properties":{}},"allowed_callers":["code_execution_20250825"]},
			{"type":"web_search_20250305","name":"web_search","max_uses":2,"allowed_domains":["example.com"],
			 "user_location":{"type":"approximate","city":"Berlin"}},
			{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"},
			{"type":"bash_20250124","name":"bash"}
		]`, field(t, body, "tools"))
		assert.JSONEq(t, `{"type":"auto"}`, field(t, body, "tool_choice"))
		assert.Equal(t, []provider.Warning{{Type: "unsupported", Feature: "provider-defined tool other.tool"}}, warnings)
		assert.Equal(t, "structured-outputs-2025-11-13,advanced-tool-use-2025-11-20,computer-use-2025-01-24", req.headers.Get("anthropic-beta"))
	})

	t.Run("strict dropped on older model", func(t *testing.T) {
		body, warnings, req := sent(t, "claude-sonnet-4-20250514", &provider.CallOptions{Tools: []provider.Tool{weather}})
		tool := body["tools"].([]any)[0].(map[string]any)
		assert.NotContains(t, tool, "strict")
		assert.True(t, hasWarning(warnings, "unsupported", "strict"))
		assert.Equal(t, "advanced-tool-use-2025-11-20", req.headers.Get("anthropic-beta"))
	})

	t.Run("streaming marks eager input streaming", func(t *testing.T) {
		f := newFakeAPI(t, reply{sse: true, body: sseBody(t, chunkResponses(t, "anthropic-text.chunks.txt")[0])},
			reply{sse: true, body: sseBody(t, chunkResponses(t, "anthropic-text.chunks.txt")[0])})
		m := testModel(t, f, "claude-sonnet-4-5")
		streamAll(t, m, &provider.CallOptions{Tools: []provider.Tool{noDesc, search}})
		tools := f.bodyMap(t, 0)["tools"].([]any)
		assert.Equal(t, true, tools[0].(map[string]any)["eager_input_streaming"])
		assert.NotContains(t, tools[1].(map[string]any), "eager_input_streaming")

		streamAll(t, m, &provider.CallOptions{
			Tools:           []provider.Tool{noDesc},
			ProviderOptions: MessagesOptions{ToolStreaming: ptr(false)}.ProviderOptions(),
		})
		assert.NotContains(t, f.bodyMap(t, 1)["tools"].([]any)[0].(map[string]any), "eager_input_streaming")
	})
}

func TestRequestToolChoice(t *testing.T) {
	tools := []provider.Tool{
		&provider.FunctionTool{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`)},
		&provider.FunctionTool{Name: "b", InputSchema: json.RawMessage(`{"type":"object"}`)},
		&provider.ProviderTool{ID: regexID, Name: "search"},
	}
	enabled := MessagesOptions{Thinking: &Thinking{Type: "enabled", BudgetTokens: ptr(2000)}}.ProviderOptions()
	tests := []struct {
		name      string
		model     string
		choice    provider.ToolChoice
		opts      provider.ProviderOptions
		want      string
		toolNames []string
		warn      bool
	}{
		{"zero value is auto", "claude-sonnet-4-5", provider.ToolChoice{}, nil, `{"type":"auto"}`, []string{"a", "b", "tool_search_tool_regex"}, false},
		{"auto", "claude-sonnet-4-5", provider.ToolChoice{Type: provider.ToolChoiceAuto}, nil, `{"type":"auto"}`, nil, false},
		{"none keeps tools", "claude-sonnet-4-5", provider.ToolChoice{Type: provider.ToolChoiceNone}, nil, `{"type":"none"}`, []string{"a", "b", "tool_search_tool_regex"}, false},
		{"required", "claude-sonnet-4-5", provider.ToolChoice{Type: provider.ToolChoiceRequired}, nil, `{"type":"any"}`, nil, false},
		{"tool", "claude-sonnet-4-5", provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "b"}, nil, `{"type":"tool","name":"b"}`, nil, false},
		{"provider tool by its name", "claude-sonnet-4-5", provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "search"}, nil, `{"type":"tool","name":"tool_search_tool_regex"}`, nil, false},
		{"auto without parallel calls", "claude-sonnet-4-5", provider.ToolChoice{}, MessagesOptions{DisableParallelToolUse: ptr(true)}.ProviderOptions(),
			`{"type":"auto","disable_parallel_tool_use":true}`, nil, false},
		{"required without parallel calls", "claude-sonnet-4-5", provider.ToolChoice{Type: provider.ToolChoiceRequired}, MessagesOptions{DisableParallelToolUse: ptr(true)}.ProviderOptions(),
			`{"type":"any","disable_parallel_tool_use":true}`, nil, false},
		{"tool with parallel calls allowed", "claude-sonnet-4-5", provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "a"}, MessagesOptions{DisableParallelToolUse: ptr(false)}.ProviderOptions(),
			`{"type":"tool","name":"a","disable_parallel_tool_use":false}`, nil, false},
		{"none ignores parallel setting", "claude-sonnet-4-5", provider.ToolChoice{Type: provider.ToolChoiceNone}, MessagesOptions{DisableParallelToolUse: ptr(true)}.ProviderOptions(),
			`{"type":"none"}`, nil, false},
		{"required downgraded with budget thinking", "claude-sonnet-4-5", provider.ToolChoice{Type: provider.ToolChoiceRequired}, enabled,
			`{"type":"auto"}`, []string{"a", "b", "tool_search_tool_regex"}, true},
		{"tool downgraded with budget thinking", "claude-sonnet-4-5", provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "b"}, enabled,
			`{"type":"auto"}`, []string{"b"}, true},
		{"required downgraded on model rejecting forced use", "claude-opus-5-5", provider.ToolChoice{Type: provider.ToolChoiceRequired}, nil,
			`{"type":"auto"}`, nil, true},
		{"adaptive thinking keeps forced use", "claude-sonnet-4-6", provider.ToolChoice{Type: provider.ToolChoiceRequired},
			MessagesOptions{Thinking: &Thinking{Type: "adaptive"}}.ProviderOptions(), `{"type":"any"}`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, warnings, _ := sent(t, tt.model, &provider.CallOptions{Tools: tools, ToolChoice: tt.choice, ProviderOptions: tt.opts})
			assert.JSONEq(t, tt.want, field(t, body, "tool_choice"))
			if tt.toolNames != nil {
				var names []string
				for _, tool := range body["tools"].([]any) {
					names = append(names, tool.(map[string]any)["name"].(string))
				}
				assert.Equal(t, tt.toolNames, names)
			}
			assert.Equal(t, tt.warn, hasWarning(warnings, "unsupported", "toolChoice"), "%v", warnings)
		})
	}

	// Without tools there is no tool choice.
	body, _, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceRequired}})
	assert.NotContains(t, body, "tool_choice")
}

func TestRequestToolResultOutputs(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n0000")
	results := []provider.ToolPart{
		provider.ToolResultPart{ToolCallID: "c1", ToolName: "t", Output: provider.TextOutput{Value: "plain"}},
		provider.ToolResultPart{ToolCallID: "c2", ToolName: "t", Output: provider.JSONOutput{Value: json.RawMessage(`{"a": [1, 2]}`)}},
		provider.ToolResultPart{ToolCallID: "c3", ToolName: "t", Output: provider.ErrorTextOutput{Value: "boom"}},
		provider.ToolResultPart{ToolCallID: "c4", ToolName: "t", Output: provider.ErrorJSONOutput{Value: json.RawMessage(`{"code":42}`)}},
		provider.ToolResultPart{ToolCallID: "c5", ToolName: "t", Output: provider.ExecutionDeniedOutput{Reason: "not allowed"}},
		provider.ToolResultPart{ToolCallID: "c6", ToolName: "t", Output: provider.ExecutionDeniedOutput{}},
		provider.ToolResultPart{ToolCallID: "c7", ToolName: "t", Output: provider.ContentOutput{Value: []provider.ContentOutputPart{
			provider.TextPart{Text: "see image"},
			provider.FilePart{MediaType: "image/png", Data: provider.FileBytes{Data: png}},
			provider.FilePart{MediaType: "image/jpeg", Data: provider.FileURL{URL: "https://example.com/a.jpg"}},
			provider.FilePart{MediaType: "application/pdf", Data: provider.FileBytes{Data: []byte("%PDF")}},
			provider.CustomPart{Kind: "anthropic.tool-reference", ProviderOptions: provider.ProviderOptions{"anthropic": {"type": "tool-reference", "toolName": "lookup"}}},
		}}},
		provider.ToolResultPart{ToolCallID: "c8", ToolName: "t", Output: provider.JSONOutput{}},
	}
	var calls []provider.AssistantPart
	for i := 1; i <= 8; i++ {
		calls = append(calls, provider.ToolCallPart{ToolCallID: "c" + string(rune('0'+i)), ToolName: "t", Input: json.RawMessage(`{}`)})
	}
	body, warnings, req := sent(t, "claude-sonnet-4-5", &provider.CallOptions{Prompt: []provider.Message{
		provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "go"}}},
		provider.AssistantMessage{Content: calls},
		provider.ToolMessage{Content: results},
	}})
	assert.Empty(t, warnings)
	assert.JSONEq(t, `[
		{"type":"tool_result","tool_use_id":"c1","content":"plain"},
		{"type":"tool_result","tool_use_id":"c2","content":"{\"a\":[1,2]}"},
		{"type":"tool_result","tool_use_id":"c3","content":"boom","is_error":true},
		{"type":"tool_result","tool_use_id":"c4","content":"{\"code\":42}","is_error":true},
		{"type":"tool_result","tool_use_id":"c5","content":"not allowed"},
		{"type":"tool_result","tool_use_id":"c6","content":"Tool call execution denied."},
		{"type":"tool_result","tool_use_id":"c7","content":[
			{"type":"text","text":"see image"},
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgowMDAw"}},
			{"type":"image","source":{"type":"url","url":"https://example.com/a.jpg"}},
			{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERg=="}},
			{"type":"tool_reference","tool_name":"lookup"}
		]},
		{"type":"tool_result","tool_use_id":"c8","content":"null"}
	]`, field(t, body["messages"].([]any)[2].(map[string]any), "content"))
	assert.Equal(t, "pdfs-2024-09-25", req.headers.Get("anthropic-beta"))
}

func TestRequestFiles(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n0000")
	tests := []struct {
		name string
		part provider.FilePart
		want string
		beta string
	}{
		{"image bytes", provider.FilePart{MediaType: "image/png", Data: provider.FileBytes{Data: png}},
			`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgowMDAw"}}`, ""},
		{"image of unknown type is sniffed", provider.FilePart{MediaType: "image", Data: provider.FileBytes{Data: png}},
			`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgowMDAw"}}`, ""},
		{"image wildcard defaults to jpeg", provider.FilePart{MediaType: "image/*", Data: provider.FileBytes{Data: []byte("xyz")}},
			`{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"eHl6"}}`, ""},
		{"image url", provider.FilePart{MediaType: "image/jpeg", Data: provider.FileURL{URL: "https://example.com/cat.jpg"}},
			`{"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}`, ""},
		{"image data url", provider.FilePart{MediaType: "image", Data: provider.FileURL{URL: "data:image/gif;base64,R0lG"}},
			`{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lG"}}`, ""},
		{"image file id", provider.FilePart{MediaType: "image/png", Data: provider.FileReference{Reference: map[string]string{"anthropic": "file_123"}}},
			`{"type":"image","source":{"type":"file","file_id":"file_123"}}`, "files-api-2025-04-14"},
		{"pdf", provider.FilePart{MediaType: "application/pdf", Filename: "report.pdf", Data: provider.FileBytes{Data: []byte("%PDF")}},
			`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERg=="},"title":"report.pdf"}`, "pdfs-2024-09-25"},
		{"pdf with options", provider.FilePart{MediaType: "application/pdf", Filename: "r.pdf", Data: provider.FileURL{URL: "https://example.com/r.pdf"},
			ProviderOptions: provider.ProviderOptions{"anthropic": {"title": "Report", "context": "Q3", "citations": map[string]any{"enabled": true}}}},
			`{"type":"document","source":{"type":"url","url":"https://example.com/r.pdf"},"title":"Report","context":"Q3","citations":{"enabled":true}}`, "pdfs-2024-09-25"},
		{"text document", provider.FilePart{MediaType: "text/plain", Data: provider.FileText{Text: "hello"}},
			`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"hello"}}`, ""},
		{"text document bytes", provider.FilePart{MediaType: "text/plain", Filename: "a.txt", Data: provider.FileBytes{Data: []byte("bytes")}},
			`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"bytes"},"title":"a.txt"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _, req := sent(t, "claude-sonnet-4-5", &provider.CallOptions{Prompt: []provider.Message{
				provider.UserMessage{Content: []provider.UserPart{tt.part, provider.TextPart{Text: "describe"}}},
			}})
			content := body["messages"].([]any)[0].(map[string]any)["content"].([]any)
			jsonEq(t, tt.want, content[0])
			assert.Equal(t, tt.beta, req.headers.Get("anthropic-beta"))
		})
	}

	t.Run("unsupported media type", func(t *testing.T) {
		f := newFakeAPI(t)
		_, err := testModel(t, f, "claude-sonnet-4-5").Generate(context.Background(), &provider.CallOptions{Prompt: []provider.Message{
			provider.UserMessage{Content: []provider.UserPart{provider.FilePart{MediaType: "audio/mpeg", Data: provider.FileBytes{Data: []byte{1}}}}},
		}})
		var unsupported *provider.UnsupportedFunctionalityError
		require.ErrorAs(t, err, &unsupported)
		assert.Equal(t, "media type: audio/mpeg", unsupported.Functionality)
		assert.Empty(t, f.requests)
	})
}

// A tool search conversation sent back: the provider-executed call and its
// result are replayed as server_tool_use and tool_search_tool_result, also
// when the result arrived in a later response, and error results keep their
// error code.
func TestRequestToolSearchHistory(t *testing.T) {
	caller := provider.ProviderOptions{"anthropic": {"caller": map[string]any{"type": "direct"}}}
	prompt := []provider.Message{
		provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "Add a bullet"}}},
		// Step 1: a client call and a search call; the result is deferred.
		provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.TextPart{Text: "Let me look."},
			provider.ToolCallPart{ToolCallID: "toolu_1", ToolName: "readNoteTree", Input: json.RawMessage(`{"noteId":"n1"}`), ProviderOptions: caller},
			provider.ToolCallPart{ToolCallID: "srvtoolu_1", ToolName: "tool_search", Input: json.RawMessage(`{"pattern":"add|insert","limit":10}`), ProviderExecuted: true, ProviderOptions: caller},
		}},
		provider.ToolMessage{Content: []provider.ToolPart{
			provider.ToolResultPart{ToolCallID: "toolu_1", ToolName: "readNoteTree", Output: provider.JSONOutput{Value: json.RawMessage(`{"items":["hi"]}`)}},
		}},
		// Step 2: the deferred result opens the response.
		provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.ToolResultPart{ToolCallID: "srvtoolu_1", ToolName: "tool_search", Output: provider.JSONOutput{
				Value: json.RawMessage(`[{"type":"tool_reference","toolName":"executeEditorOperation"}]`)}},
			provider.TextPart{Text: "Found it."},
			provider.ToolCallPart{ToolCallID: "toolu_2", ToolName: "executeEditorOperation", Input: json.RawMessage(`{"op":"insert"}`)},
			provider.ToolCallPart{ToolCallID: "srvtoolu_2", ToolName: "tool_search", Input: json.RawMessage(`{"pattern":"["}`), ProviderExecuted: true},
			provider.ToolResultPart{ToolCallID: "srvtoolu_2", ToolName: "tool_search", Output: provider.ErrorJSONOutput{
				Value: json.RawMessage(`{"type":"tool_search_tool_result_error","errorCode":"invalid_tool_input"}`)}},
		}},
		provider.ToolMessage{Content: []provider.ToolPart{
			provider.ToolResultPart{ToolCallID: "toolu_2", ToolName: "executeEditorOperation", Output: provider.TextOutput{Value: "done"}},
		}},
	}
	tools := searchTools(regexID, "readNoteTree", "executeEditorOperation")
	body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{Prompt: prompt, Tools: tools, ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceNone}})
	assert.Empty(t, warnings)
	assert.JSONEq(t, `[
		{"role":"user","content":[{"type":"text","text":"Add a bullet"}]},
		{"role":"assistant","content":[
			{"type":"text","text":"Let me look."},
			{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{"pattern":"add|insert","limit":10},"caller":{"type":"direct"}},
			{"type":"tool_use","id":"toolu_1","name":"readNoteTree","input":{"noteId":"n1"},"caller":{"type":"direct"}}
		]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"{\"items\":[\"hi\"]}"}]},
		{"role":"assistant","content":[
			{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{
				"type":"tool_search_tool_search_result",
				"tool_references":[{"type":"tool_reference","tool_name":"executeEditorOperation"}]}},
			{"type":"text","text":"Found it."},
			{"type":"server_tool_use","id":"srvtoolu_2","name":"tool_search_tool_regex","input":{"pattern":"["}},
			{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_2","content":{
				"type":"tool_search_tool_result_error","error_code":"invalid_tool_input"}},
			{"type":"tool_use","id":"toolu_2","name":"executeEditorOperation","input":{"op":"insert"}}
		]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"done"}]}
	]`, field(t, body, "messages"))
	// The deferred tools stay declared, also with tool choice none.
	assert.JSONEq(t, `[
		{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"},
		{"name":"readNoteTree","input_schema":{"type":"object","properties":{}},"defer_loading":true},
		{"name":"executeEditorOperation","input_schema":{"type":"object","properties":{}},"defer_loading":true}
	]`, field(t, body, "tools"))
	assert.JSONEq(t, `{"type":"none"}`, field(t, body, "tool_choice"))
}

// Provider-executed calls of a tool this request does not declare cannot be
// mapped back to a wire name and are dropped with a warning.
func TestRequestProviderCallOfUndeclaredTool(t *testing.T) {
	body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{Prompt: []provider.Message{
		provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "hi"}}},
		provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.ToolCallPart{ToolCallID: "s1", ToolName: "tool_search", Input: json.RawMessage(`{}`), ProviderExecuted: true},
			provider.TextPart{Text: "ok"},
		}},
	}})
	assert.JSONEq(t, `[{"type":"text","text":"ok"}]`, field(t, body["messages"].([]any)[1].(map[string]any), "content"))
	require.Len(t, warnings, 1)
	assert.Equal(t, "other", warnings[0].Type)
}

func TestRequestWebToolHistory(t *testing.T) {
	tools := []provider.Tool{
		&provider.ProviderTool{ID: "anthropic.web_search_20250305", Name: "search"},
		&provider.ProviderTool{ID: "anthropic.web_fetch_20250910", Name: "fetch"},
	}
	body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{Tools: tools, Prompt: []provider.Message{
		provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "news?"}}},
		provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.ToolCallPart{ToolCallID: "s1", ToolName: "search", Input: json.RawMessage(`{"query":"news"}`), ProviderExecuted: true},
			provider.ToolResultPart{ToolCallID: "s1", ToolName: "search", Output: provider.JSONOutput{Value: json.RawMessage(
				`[{"url":"https://a.example","title":"A","pageAge":null,"encryptedContent":"enc","type":"web_search_result"}]`)}},
			provider.ToolCallPart{ToolCallID: "f1", ToolName: "fetch", Input: json.RawMessage(`{"url":"https://b.example"}`), ProviderExecuted: true},
			provider.ToolResultPart{ToolCallID: "f1", ToolName: "fetch", Output: provider.ErrorJSONOutput{Value: json.RawMessage(`{"type":"web_fetch_tool_result_error","errorCode":"unavailable"}`)}},
			provider.TextPart{Text: "Done."},
		}},
	}})
	assert.Empty(t, warnings)
	assert.JSONEq(t, `[
		{"type":"server_tool_use","id":"s1","name":"web_search","input":{"query":"news"}},
		{"type":"web_search_tool_result","tool_use_id":"s1","content":[
			{"url":"https://a.example","title":"A","page_age":null,"encrypted_content":"enc","type":"web_search_result"}]},
		{"type":"server_tool_use","id":"f1","name":"web_fetch","input":{"url":"https://b.example"}},
		{"type":"web_fetch_tool_result","tool_use_id":"f1","content":{"type":"web_fetch_tool_result_error","error_code":"unavailable"}},
		{"type":"text","text":"Done."}
	]`, field(t, body["messages"].([]any)[1].(map[string]any), "content"))
}

func TestRequestCacheControl(t *testing.T) {
	bp := CacheBreakpoint("")
	prompt := []provider.Message{
		provider.SystemMessage{Content: "sys", ProviderOptions: CacheBreakpoint("1h")},
		provider.UserMessage{Content: []provider.UserPart{
			provider.TextPart{Text: "a"},
			provider.TextPart{Text: "b"},
		}, ProviderOptions: bp},
		provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.ReasoningPart{Text: "r", ProviderOptions: provider.ProviderOptions{"anthropic": {"signature": "s", "cacheControl": map[string]any{"type": "ephemeral"}}}},
			provider.ToolCallPart{ToolCallID: "c", ToolName: "t", Input: json.RawMessage(`{}`)},
		}},
		provider.ToolMessage{Content: []provider.ToolPart{
			provider.ToolResultPart{ToolCallID: "c", ToolName: "t", Output: provider.TextOutput{Value: "x", ProviderOptions: provider.ProviderOptions{"anthropic": {"cache_control": map[string]any{"type": "ephemeral"}}}}},
		}},
		provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "c", ProviderOptions: bp}}},
	}
	tool := &provider.FunctionTool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`), ProviderOptions: bp}
	body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{
		Prompt: prompt, Tools: []provider.Tool{tool},
		ProviderOptions: MessagesOptions{CacheControl: &CacheControl{Type: "ephemeral"}}.ProviderOptions(),
	})
	assert.JSONEq(t, `{"type":"ephemeral"}`, field(t, body, "cache_control"))
	assert.JSONEq(t, `[{"type":"text","text":"sys","cache_control":{"type":"ephemeral","ttl":"1h"}}]`, field(t, body, "system"))
	assert.JSONEq(t, `[
		{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}]},
		{"role":"assistant","content":[
			{"type":"thinking","thinking":"r","signature":"s"},
			{"type":"tool_use","id":"c","name":"t","input":{}}
		]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"c","content":"x","cache_control":{"type":"ephemeral"}},
			{"type":"text","text":"c","cache_control":{"type":"ephemeral"}}
		]}
	]`, field(t, body, "messages"))
	// Four breakpoints were used by the prompt; the tool loses its own.
	assert.NotContains(t, body["tools"].([]any)[0].(map[string]any), "cache_control")
	assert.True(t, hasWarning(warnings, "unsupported", "cache_control on non-cacheable context"))
	assert.True(t, hasWarning(warnings, "unsupported", "cacheControl breakpoint limit"))

	body, warnings, _ = sent(t, "claude-sonnet-4-5", &provider.CallOptions{Tools: []provider.Tool{tool}})
	assert.JSONEq(t, `{"type":"ephemeral"}`, field(t, body["tools"].([]any)[0].(map[string]any), "cache_control"))
	assert.Empty(t, warnings)
}

func TestRequestThinking(t *testing.T) {
	t.Run("budget is added to max tokens", func(t *testing.T) {
		body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{
			MaxOutputTokens: ptr(1000), Temperature: ptr(0.3), TopK: ptr(5), TopP: ptr(0.9),
			ProviderOptions: MessagesOptions{Thinking: &Thinking{Type: "enabled", BudgetTokens: ptr(2048)}}.ProviderOptions(),
		})
		assert.JSONEq(t, `{"type":"enabled","budget_tokens":2048}`, field(t, body, "thinking"))
		assert.Equal(t, float64(3048), body["max_tokens"])
		for _, k := range []string{"temperature", "top_k", "top_p"} {
			assert.NotContains(t, body, k)
		}
		for _, f := range []string{"temperature", "topK", "topP"} {
			assert.True(t, hasWarning(warnings, "unsupported", f), f)
		}
	})
	t.Run("missing budget defaults to 1024", func(t *testing.T) {
		body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{
			MaxOutputTokens: ptr(1000),
			ProviderOptions: provider.ProviderOptions{"anthropic": {"thinking": map[string]any{"type": "enabled"}}},
		})
		assert.JSONEq(t, `{"type":"enabled","budget_tokens":1024}`, field(t, body, "thinking"))
		assert.Equal(t, float64(2024), body["max_tokens"])
		assert.True(t, hasWarning(warnings, "compatibility", "extended thinking"))
	})
	t.Run("budget capped at the model limit", func(t *testing.T) {
		body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{
			MaxOutputTokens: ptr(60000),
			ProviderOptions: MessagesOptions{Thinking: &Thinking{Type: "enabled", BudgetTokens: ptr(10000)}}.ProviderOptions(),
		})
		assert.Equal(t, float64(64000), body["max_tokens"])
		assert.True(t, hasWarning(warnings, "unsupported", "maxOutputTokens"))
	})
	t.Run("adaptive with display and effort", func(t *testing.T) {
		body, _, req := sent(t, "claude-opus-4-7", &provider.CallOptions{
			ProviderOptions: MessagesOptions{Thinking: &Thinking{Type: "adaptive", Display: "summarized"}, Effort: "high"}.ProviderOptions(),
		})
		assert.JSONEq(t, `{"type":"adaptive","display":"summarized"}`, field(t, body, "thinking"))
		assert.JSONEq(t, `{"effort":"high"}`, field(t, body, "output_config"))
		assert.Equal(t, float64(128000), body["max_tokens"])
		assert.Empty(t, req.headers.Get("anthropic-beta"))
	})
	t.Run("disabled is sent", func(t *testing.T) {
		body, _, _ := sent(t, "claude-sonnet-5", &provider.CallOptions{
			ProviderOptions: MessagesOptions{Thinking: &Thinking{Type: "disabled"}}.ProviderOptions(),
		})
		assert.JSONEq(t, `{"type":"disabled"}`, field(t, body, "thinking"))
	})
	t.Run("budget thinking becomes adaptive where rejected", func(t *testing.T) {
		body, warnings, _ := sent(t, "claude-opus-5-5", &provider.CallOptions{
			ProviderOptions: MessagesOptions{Thinking: &Thinking{Type: "enabled", BudgetTokens: ptr(5000)}}.ProviderOptions(),
		})
		assert.JSONEq(t, `{"type":"adaptive"}`, field(t, body, "thinking"))
		assert.True(t, hasWarning(warnings, "unsupported", "providerOptions.anthropic.thinking"))
	})
	t.Run("reasoning sent back needs a signature", func(t *testing.T) {
		body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{Prompt: []provider.Message{
			provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "q"}}},
			provider.AssistantMessage{Content: []provider.AssistantPart{
				provider.ReasoningPart{Text: "no metadata"},
				provider.TextPart{Text: "a"},
			}},
			provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "q2"}}},
		}})
		assert.JSONEq(t, `[{"type":"text","text":"a"}]`, field(t, body["messages"].([]any)[1].(map[string]any), "content"))
		assert.Equal(t, []provider.Warning{{Type: "other", Message: "unsupported reasoning metadata"}}, warnings)
	})
	t.Run("sendReasoning false drops reasoning", func(t *testing.T) {
		body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{
			ProviderOptions: MessagesOptions{SendReasoning: ptr(false)}.ProviderOptions(),
			Prompt: []provider.Message{
				provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "q"}}},
				provider.AssistantMessage{Content: []provider.AssistantPart{
					provider.ReasoningPart{Text: "r", ProviderOptions: provider.ProviderOptions{"anthropic": {"signature": "s"}}},
					provider.TextPart{Text: "a"},
				}},
			}})
		assert.JSONEq(t, `[{"type":"text","text":"a"}]`, field(t, body["messages"].([]any)[1].(map[string]any), "content"))
		require.Len(t, warnings, 1)
	})
}

func TestRequestNeutralReasoning(t *testing.T) {
	tests := []struct {
		model     string
		reasoning provider.ReasoningEffort
		opts      provider.ProviderOptions
		thinking  string
		effort    string
		maxTokens float64
	}{
		{"claude-sonnet-4-5", provider.ReasoningHigh, nil, `{"type":"enabled","budget_tokens":38400}`, "", 64000},
		{"claude-sonnet-4-5", provider.ReasoningMinimal, nil, `{"type":"enabled","budget_tokens":1280}`, "", 64000},
		{"claude-opus-4-7", provider.ReasoningMedium, nil, `{"type":"adaptive","display":"summarized"}`, "medium", 128000},
		{"claude-sonnet-4-6", provider.ReasoningXHigh, nil, `{"type":"adaptive","display":"summarized"}`, "max", 128000},
		{"claude-sonnet-4-5", provider.ReasoningNone, nil, `{"type":"disabled"}`, "", 64000},
		{"claude-opus-5-5", provider.ReasoningNone, nil, "", "low", 128000},
		// Provider options win.
		{"claude-sonnet-4-5", provider.ReasoningHigh, MessagesOptions{Thinking: &Thinking{Type: "enabled", BudgetTokens: ptr(2000)}}.ProviderOptions(),
			`{"type":"enabled","budget_tokens":2000}`, "", 64000},
		{"claude-opus-4-7", provider.ReasoningHigh, MessagesOptions{Effort: "low"}.ProviderOptions(), "", "low", 128000},
	}
	for _, tt := range tests {
		t.Run(tt.model+"/"+string(tt.reasoning), func(t *testing.T) {
			body, _, _ := sent(t, tt.model, &provider.CallOptions{Reasoning: tt.reasoning, ProviderOptions: tt.opts})
			if tt.thinking == "" {
				assert.NotContains(t, body, "thinking")
			} else {
				assert.JSONEq(t, tt.thinking, field(t, body, "thinking"))
			}
			if tt.effort == "" {
				assert.NotContains(t, body, "output_config")
			} else {
				assert.JSONEq(t, `{"effort":"`+tt.effort+`"}`, field(t, body, "output_config"))
			}
			assert.Equal(t, tt.maxTokens, body["max_tokens"])
		})
	}
}

func TestRequestProviderOptions(t *testing.T) {
	opts := MessagesOptions{
		Metadata:      &Metadata{UserID: "user-1"},
		AnthropicBeta: []string{"my-beta-1"},
		Container:     &Container{ID: "cont_1"},
		MCPServers: []MCPServer{{Type: "url", Name: "docs", URL: "https://mcp.example", AuthorizationToken: ptr("tok"),
			ToolConfiguration: &MCPToolConfiguration{AllowedTools: []string{"search"}}}},
		ContextManagement: &ContextManagement{Edits: []ContextEdit{
			{Type: "clear_tool_uses_20250919", Trigger: &TokenThreshold{Type: "input_tokens", Value: 30000}, ClearToolInputs: ptr(true), ExcludeTools: []string{"keep"}},
			{Type: "clear_thinking_20251015", Keep: "all"},
			{Type: "bogus"},
		}},
		Speed:        "fast",
		InferenceGeo: "us",
		TaskBudget:   &TaskBudget{Type: "tokens", Total: 50000},
	}
	body, warnings, req := sent(t, "claude-opus-4-6", &provider.CallOptions{
		ProviderOptions: opts.ProviderOptions(),
		Headers:         provider.Header(http.Header{"Anthropic-Beta": {"Header-Beta"}}),
	})
	assert.JSONEq(t, `{"user_id":"user-1"}`, field(t, body, "metadata"))
	assert.Equal(t, "cont_1", body["container"])
	assert.JSONEq(t, `[{"type":"url","name":"docs","url":"https://mcp.example","authorization_token":"tok","tool_configuration":{"allowed_tools":["search"]}}]`, field(t, body, "mcp_servers"))
	assert.JSONEq(t, `{"edits":[
		{"type":"clear_tool_uses_20250919","trigger":{"type":"input_tokens","value":30000},"clear_tool_inputs":true,"exclude_tools":["keep"]},
		{"type":"clear_thinking_20251015","keep":"all"}
	]}`, field(t, body, "context_management"))
	assert.Equal(t, "fast", body["speed"])
	assert.Equal(t, "us", body["inference_geo"])
	assert.JSONEq(t, `{"task_budget":{"type":"tokens","total":50000}}`, field(t, body, "output_config"))
	assert.Equal(t, []provider.Warning{{Type: "other", Message: "unknown context management strategy: bogus"}}, warnings)
	assert.Equal(t, "mcp-client-2025-04-04,context-management-2025-06-27,task-budgets-2026-03-13,fast-mode-2026-02-01,header-beta,my-beta-1",
		req.headers.Get("anthropic-beta"))

	// Options that do not have the expected shape fail the call.
	f := newFakeAPI(t)
	_, err := testModel(t, f, "claude-sonnet-4-5").Generate(context.Background(), &provider.CallOptions{
		Prompt:          userPrompt("x"),
		ProviderOptions: provider.ProviderOptions{"anthropic": {"thinking": "yes"}},
	})
	var invalid *InvalidOptionsError
	require.ErrorAs(t, err, &invalid)
	assert.Empty(t, f.requests)
}

func TestRequestResponseFormat(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","minLength":2}},"required":["name"]}`)

	t.Run("native structured output", func(t *testing.T) {
		body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: schema}})
		assert.JSONEq(t, `{"format":{"type":"json_schema","schema":{
			"type":"object","properties":{"name":{"type":"string","description":"min length: 2."}},
			"additionalProperties":false,"required":["name"]}}}`, field(t, body, "output_config"))
		assert.NotContains(t, body, "tools")
		assert.Empty(t, warnings)
	})
	t.Run("json tool on older models", func(t *testing.T) {
		body, _, _ := sent(t, "claude-sonnet-4-20250514", &provider.CallOptions{
			ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: schema},
			Tools:          []provider.Tool{&provider.FunctionTool{Name: "other", InputSchema: json.RawMessage(`{"type":"object"}`)}},
			ToolChoice:     provider.ToolChoice{Type: provider.ToolChoiceNone},
		})
		assert.NotContains(t, body, "output_config")
		assert.JSONEq(t, `[{"name":"json","description":"Respond with a JSON object.","input_schema":`+string(schema)+`}]`, field(t, body, "tools"))
		assert.JSONEq(t, `{"type":"any","disable_parallel_tool_use":true}`, field(t, body, "tool_choice"))
	})
	t.Run("json tool after the other tools", func(t *testing.T) {
		body, _, _ := sent(t, "claude-sonnet-4-20250514", &provider.CallOptions{
			ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: schema, Name: "person"},
			Tools:          []provider.Tool{&provider.FunctionTool{Name: "lookup", InputSchema: json.RawMessage(`{"type":"object"}`)}},
			ToolChoice:     provider.ToolChoice{Type: provider.ToolChoiceAuto},
		})
		assert.JSONEq(t, `[{"name":"lookup","input_schema":{"type":"object"}},
			{"name":"json","description":"Respond with a JSON object.","input_schema":`+string(schema)+`}]`, field(t, body, "tools"))
		assert.JSONEq(t, `{"type":"any","disable_parallel_tool_use":true}`, field(t, body, "tool_choice"))
	})
	t.Run("structuredOutputMode jsonTool on a native model", func(t *testing.T) {
		body, _, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{
			ResponseFormat:  &provider.ResponseFormat{Type: "json", Schema: schema},
			ProviderOptions: provider.ProviderOptions{"anthropic": {"structuredOutputMode": "jsonTool"}},
		})
		assert.NotContains(t, body, "output_config")
		assert.JSONEq(t, `[{"name":"json","description":"Respond with a JSON object.","input_schema":`+string(schema)+`}]`, field(t, body, "tools"))
	})
	t.Run("structuredOutputMode outputFormat beside tools", func(t *testing.T) {
		body, _, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{
			ResponseFormat:  &provider.ResponseFormat{Type: "json", Schema: schema},
			Tools:           []provider.Tool{&provider.FunctionTool{Name: "lookup", InputSchema: json.RawMessage(`{"type":"object"}`)}},
			ToolChoice:      provider.ToolChoice{Type: provider.ToolChoiceAuto},
			ProviderOptions: provider.ProviderOptions{"anthropic": {"structuredOutputMode": "outputFormat"}},
		})
		assert.Contains(t, field(t, body, "output_config"), `"json_schema"`)
		assert.JSONEq(t, `[{"name":"lookup","input_schema":{"type":"object"}}]`, field(t, body, "tools"))
		assert.JSONEq(t, `{"type":"auto"}`, field(t, body, "tool_choice"))
	})
	t.Run("text format sends nothing", func(t *testing.T) {
		body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{ResponseFormat: &provider.ResponseFormat{Type: "text"}})
		assert.NotContains(t, body, "output_config")
		assert.NotContains(t, body, "tools")
		assert.Empty(t, warnings)
	})
	t.Run("json without schema is ignored", func(t *testing.T) {
		body, warnings, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{ResponseFormat: &provider.ResponseFormat{Type: "json"}})
		assert.NotContains(t, body, "output_config")
		assert.True(t, hasWarning(warnings, "unsupported", "responseFormat"))
	})
}

func TestGenerateJSONToolAnswer(t *testing.T) {
	answer := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-20250514",
		"content":[{"type":"text","text":"Here you go."},{"type":"tool_use","id":"toolu_1","name":"json","input":{"name":"Ada"}}],
		"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":7}}`
	f := newFakeAPI(t, reply{body: answer})
	res := generate(t, testModel(t, f, "claude-sonnet-4-20250514"), &provider.CallOptions{
		ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: json.RawMessage(`{"type":"object"}`)},
	})
	assert.Equal(t, []provider.Content{provider.Text{Text: `{"name":"Ada"}`}}, res.Content)
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "tool_use"}, res.FinishReason)

	events := []string{
		`{"type":"message_start","message":{"id":"msg_2","model":"m","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Preamble"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_2","name":"json","input":{}}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"name\":"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"Ada\"}"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}`,
		`{"type":"message_stop"}`,
	}
	f = newFakeAPI(t, reply{sse: true, body: sseBody(t, events)})
	parts := streamAll(t, testModel(t, f, "claude-sonnet-4-20250514"), &provider.CallOptions{
		ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: json.RawMessage(`{"type":"object"}`)},
	})
	assert.Equal(t, []string{"stream-start", "response-metadata", "text-start", "text-delta", "text-delta", "text-end", "finish"}, partTypes(parts))
	assert.Equal(t, `{"name":"Ada"}`, streamText(parts))
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "tool_use"}, parts[6].(provider.Finish).FinishReason)
}

func TestRequestHeadersAndAuth(t *testing.T) {
	t.Run("configured headers and betas merge", func(t *testing.T) {
		_, _, req := sent(t, "claude-sonnet-4-5", &provider.CallOptions{
			Headers: provider.Header(http.Header{"X-Call": {"c"}}),
			Tools:   []provider.Tool{&provider.ProviderTool{ID: "anthropic.code_execution_20250825", Name: "code"}},
		}, WithHeaders(http.Header{"anthropic-beta": {"config-beta, other-beta"}, "X-Config": {"p"}, "User-Agent": {"app/1"}}))
		assert.Equal(t, "code-execution-2025-08-25,config-beta,other-beta", req.headers.Get("anthropic-beta"))
		assert.Equal(t, "c", req.headers.Get("X-Call"))
		assert.Equal(t, "p", req.headers.Get("X-Config"))
		assert.Equal(t, "app/1 aisdkgo-anthropic", req.headers.Get("User-Agent"))
	})
	t.Run("auth token", func(t *testing.T) {
		f := newFakeAPI(t, reply{body: readFixture(t, "anthropic-text.json")})
		m := New(WithAuthToken("tok"), WithBaseURL(f.URL+"/")).Model("claude-sonnet-4-5")
		generate(t, m, &provider.CallOptions{})
		req := f.request(t, 0)
		assert.Equal(t, "Bearer tok", req.headers.Get("Authorization"))
		assert.Empty(t, req.headers.Get("x-api-key"))
		assert.Equal(t, "/messages", req.path)
	})
	t.Run("api key from the environment", func(t *testing.T) {
		t.Setenv("ANTHROPIC_API_KEY", "env-key")
		f := newFakeAPI(t, reply{body: readFixture(t, "anthropic-text.json")})
		generate(t, New(WithBaseURL(f.URL)).Model("claude-sonnet-4-5"), &provider.CallOptions{})
		assert.Equal(t, "env-key", f.request(t, 0).headers.Get("x-api-key"))
	})
	t.Run("missing key", func(t *testing.T) {
		t.Setenv("ANTHROPIC_API_KEY", "")
		f := newFakeAPI(t)
		m := New(WithBaseURL(f.URL)).Model("claude-sonnet-4-5")
		_, err := m.Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("x")})
		var keyErr *provider.LoadAPIKeyError
		require.ErrorAs(t, err, &keyErr)
		_, err = m.Stream(context.Background(), &provider.CallOptions{Prompt: userPrompt("x")})
		require.ErrorAs(t, err, &keyErr)
		assert.Empty(t, f.requests)
	})
	t.Run("key and token together", func(t *testing.T) {
		_, err := New(WithAPIKey("k"), WithAuthToken("t")).Model("m").Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("x")})
		var invalid *InvalidOptionsError
		require.ErrorAs(t, err, &invalid)
	})
	t.Run("base url", func(t *testing.T) {
		t.Setenv("ANTHROPIC_BASE_URL", "")
		assert.Equal(t, DefaultBaseURL, New().cfg.baseURL)
		assert.Equal(t, "https://api.anthropic.com/v1", New(WithBaseURL("https://api.anthropic.com/")).cfg.baseURL)
		assert.Equal(t, "https://proxy.example/v1", New(WithBaseURL("https://proxy.example/v1/")).cfg.baseURL)
		t.Setenv("ANTHROPIC_BASE_URL", "https://env.example/v1")
		assert.Equal(t, "https://env.example/v1", New().cfg.baseURL)
	})
	t.Run("model identity", func(t *testing.T) {
		m := New().Model("claude-opus-4-5")
		assert.Equal(t, "anthropic.messages", m.Provider())
		assert.Equal(t, "claude-opus-4-5", m.ModelID())
		urls, err := m.(provider.URLSupporter).SupportedURLs(context.Background())
		require.NoError(t, err)
		assert.True(t, urls["image/*"][0].MatchString("https://example.com/a.png"))
		assert.False(t, urls["application/pdf"][0].MatchString("ftp://example.com/a.pdf"))
	})
}

func TestRequestPointerMessages(t *testing.T) {
	body, _, _ := sent(t, "claude-sonnet-4-5", &provider.CallOptions{Prompt: []provider.Message{
		&provider.SystemMessage{Content: "sys"},
		&provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "q"}}},
		&provider.AssistantMessage{Content: []provider.AssistantPart{provider.TextPart{Text: "a"}}},
		(*provider.UserMessage)(nil),
		&provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "q2"}}},
	}})
	assert.JSONEq(t, `[{"type":"text","text":"sys"}]`, field(t, body, "system"))
	assert.JSONEq(t, `[
		{"role":"user","content":[{"type":"text","text":"q"}]},
		{"role":"assistant","content":[{"type":"text","text":"a"}]},
		{"role":"user","content":[{"type":"text","text":"q2"}]}
	]`, field(t, body, "messages"))
}
