package google

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

func generateBody(t *testing.T, modelID, body string, opts *provider.CallOptions) *provider.GenerateResult {
	t.Helper()
	f := newFakeAPI(t, reply{body: body})
	if opts == nil {
		opts = &provider.CallOptions{}
	}
	if opts.Prompt == nil {
		opts.Prompt = userPrompt("Hi")
	}
	res, err := testProvider(f).Model(modelID).Generate(context.Background(), opts)
	require.NoError(t, err)
	return res
}

func streamChunks(t *testing.T, modelID string, opts *provider.CallOptions, chunks ...string) []provider.StreamPart {
	t.Helper()
	f := newFakeAPI(t, reply{body: sseOf(chunks...), sse: true})
	if opts == nil {
		opts = &provider.CallOptions{}
	}
	if opts.Prompt == nil {
		opts.Prompt = userPrompt("Hi")
	}
	res, err := testProvider(f).Model(modelID).Stream(context.Background(), opts)
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.NoError(t, err)
	return parts
}

func finishOf(t *testing.T, parts []provider.StreamPart) provider.Finish {
	t.Helper()
	f, ok := parts[len(parts)-1].(provider.Finish)
	require.True(t, ok, "the stream ends with a finish part")
	return f
}

func TestUsageWithCachedAndToolTokens(t *testing.T) {
	res := generateBody(t, "gemini-2.5-flash", `{"candidates":[{"content":{"parts":[{"text":"ok"}]},"finishReason":"STOP"}],
		"usageMetadata":{"promptTokenCount":100,"toolUsePromptTokenCount":20,"cachedContentTokenCount":60,"candidatesTokenCount":7,"thoughtsTokenCount":30,"totalTokenCount":157,"serviceTier":"flex"}}`, nil)
	u := res.Usage
	assert.Equal(t, 120, *u.InputTokens.Total, "prompt plus tool-use prompt")
	assert.Equal(t, 60, *u.InputTokens.CacheRead)
	assert.Equal(t, 60, *u.InputTokens.NoCache)
	assert.Nil(t, u.InputTokens.CacheWrite)
	assert.Equal(t, 37, *u.OutputTokens.Total)
	assert.Equal(t, 7, *u.OutputTokens.Text)
	assert.Equal(t, 30, *u.OutputTokens.Reasoning)
	assert.Equal(t, "flex", res.ProviderMetadata["google"]["serviceTier"])

	res = generateBody(t, "gemini-2.5-flash", `{"candidates":[{"content":{"parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`, nil)
	assert.Equal(t, provider.Usage{}, res.Usage, "no usage reported")
}

func TestFinishReasons(t *testing.T) {
	for reason, want := range map[string]provider.FinishReasonKind{
		"STOP": provider.FinishStop, "MAX_TOKENS": provider.FinishLength, "SAFETY": provider.FinishContentFilter,
		"RECITATION": provider.FinishContentFilter, "PROHIBITED_CONTENT": provider.FinishContentFilter, "SPII": provider.FinishContentFilter,
		"BLOCKLIST": provider.FinishContentFilter, "IMAGE_SAFETY": provider.FinishContentFilter,
		"MALFORMED_FUNCTION_CALL": provider.FinishError, "OTHER": provider.FinishOther, "SOMETHING_NEW": provider.FinishOther,
	} {
		body := `{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"` + reason + `","safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH","blocked":true}]}]}`
		res := generateBody(t, "gemini-2.5-flash", body, nil)
		assert.Equal(t, provider.FinishReason{Unified: want, Raw: reason}, res.FinishReason, reason)
		assert.NotNil(t, res.ProviderMetadata["google"]["safetyRatings"])

		parts := streamChunks(t, "gemini-2.5-flash", nil, body)
		assert.Equal(t, provider.FinishReason{Unified: want, Raw: reason}, finishOf(t, parts).FinishReason, reason)
	}
}

func TestPromptBlocked(t *testing.T) {
	body := `{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH"}]},
		"usageMetadata":{"promptTokenCount":12,"totalTokenCount":12}}`
	res := generateBody(t, "gemini-2.5-flash", body, nil)
	assert.Empty(t, res.Content)
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishContentFilter, Raw: "SAFETY"}, res.FinishReason)
	feedback := res.ProviderMetadata["google"]["promptFeedback"].(map[string]any)
	assert.Equal(t, "SAFETY", feedback["blockReason"])

	parts := streamChunks(t, "gemini-2.5-flash", nil, body,
		`{"candidates":[{"content":{"parts":[{"text":"ignored"}]},"finishReason":"STOP"}]}`)
	f := finishOf(t, parts)
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishContentFilter, Raw: "SAFETY"}, f.FinishReason)
	for _, p := range parts {
		_, text := p.(provider.TextDelta)
		assert.False(t, text, "nothing is generated for a blocked prompt")
	}
	assert.Equal(t, 12, *f.Usage.InputTokens.Total)
}

const groundedAnswer = `{"candidates":[{"content":{"parts":[{"text":"Paris is the capital."}]},"finishReason":"STOP",
	"groundingMetadata":{"webSearchQueries":["capital of france"],
	"groundingChunks":[{"web":{"uri":"https://example.com/paris","title":"Paris"}},{"web":{"uri":"https://example.com/france"}},
		{"retrievedContext":{"uri":"gs://bucket/report.pdf","title":"Report"}},{"retrievedContext":{"fileSearchStore":"fileSearchStores/s1"}},
		{"maps":{"uri":"https://maps.example.com/p","title":"Place"}},{"web":{"uri":"https://example.com/paris","title":"Paris"}}]},
	"urlContextMetadata":{"urlMetadata":[{"retrievedUrl":"https://example.com/paris","urlRetrievalStatus":"URL_RETRIEVAL_STATUS_SUCCESS"}]}}]}`

func TestSources(t *testing.T) {
	res := generateBody(t, "gemini-2.5-flash", groundedAnswer, nil)
	require.Len(t, res.Content, 7)
	var sources []provider.Source
	for _, c := range res.Content[1:] {
		sources = append(sources, c.(provider.Source))
	}
	assert.Equal(t, provider.Source{SourceType: provider.SourceURL, ID: "id-1", URL: "https://example.com/paris", Title: "Paris"}, sources[0])
	assert.Equal(t, "https://example.com/france", sources[1].URL)
	assert.Equal(t, provider.Source{SourceType: provider.SourceDocument, ID: "id-3", MediaType: "application/pdf", Title: "Report", Filename: "report.pdf"}, sources[2])
	assert.Equal(t, provider.Source{SourceType: provider.SourceDocument, ID: "id-4", MediaType: "application/octet-stream", Title: "Unknown Document", Filename: "s1"}, sources[3])
	assert.Equal(t, "https://maps.example.com/p", sources[4].URL)
	md := res.ProviderMetadata["google"]
	assert.NotNil(t, md["groundingMetadata"])
	assert.NotNil(t, md["urlContextMetadata"])

	// A stream reports each source once.
	parts := streamChunks(t, "gemini-2.5-flash", nil, groundedAnswer, groundedAnswer)
	n := 0
	for _, p := range parts {
		if _, ok := p.(provider.Source); ok {
			n++
		}
	}
	assert.Equal(t, 5, n)
}

const codeExecutionAnswer = `{"candidates":[{"content":{"parts":[
	{"text":"Let me compute."},
	{"executableCode":{"language":"PYTHON","code":"print(2+2)"}},
	{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"4\n"}},
	{"text":"The answer is 4."}]},"finishReason":"STOP"}]}`

func TestCodeExecution(t *testing.T) {
	opts := &provider.CallOptions{Tools: []provider.Tool{&provider.ProviderTool{ID: "google.code_execution", Name: "runPython"}}}
	res := generateBody(t, "gemini-2.5-flash", codeExecutionAnswer, opts)
	require.Len(t, res.Content, 4)
	call := res.Content[1].(provider.ToolCall)
	assert.Equal(t, provider.ToolCall{ToolCallID: "id-1", ToolName: "runPython", Input: `{"language":"PYTHON","code":"print(2+2)"}`, ProviderExecuted: true}, call)
	result := res.Content[2].(provider.ToolResult)
	assert.Equal(t, "id-1", result.ToolCallID)
	assert.Equal(t, "runPython", result.ToolName)
	assert.JSONEq(t, `{"outcome":"OUTCOME_OK","output":"4\n"}`, string(result.Result))
	assert.Equal(t, provider.FinishStop, res.FinishReason.Unified, "provider-executed calls are not tool calls to run")

	parts := streamChunks(t, "gemini-2.5-flash", opts, codeExecutionAnswer)
	var types []string
	for _, p := range parts {
		types = append(types, p.PartType())
	}
	assert.Equal(t, []string{"stream-start", "text-start", "text-delta", "tool-call", "tool-result", "text-delta", "text-end", "finish"}, types)

	// Sent back in a later prompt, the call and result are code parts again.
	f := newFakeAPI(t, reply{body: readFixture(t, "google-text.json")})
	_, err := testProvider(f).Model("gemini-2.5-flash").Generate(context.Background(), &provider.CallOptions{
		Prompt: []provider.Message{
			provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "Compute"}}},
			provider.AssistantMessage{Content: []provider.AssistantPart{
				provider.ToolCallPart{ToolCallID: "id-1", ToolName: "runPython", Input: json.RawMessage(call.Input), ProviderExecuted: true},
				provider.ToolResultPart{ToolCallID: "id-1", ToolName: "runPython", Output: provider.JSONOutput{Value: result.Result}},
			}},
		},
		Tools: opts.Tools,
	})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"role":"user","parts":[{"text":"Compute"}]},{"role":"model","parts":[
		{"executableCode":{"language":"PYTHON","code":"print(2+2)"}},{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"4\n"}}]}]`,
		marshal(t, bodyMap(t, f.request(t, 0))["contents"]))
}

func TestServerToolCalls(t *testing.T) {
	body := `{"candidates":[{"content":{"parts":[
		{"toolCall":{"toolType":"GOOGLE_SEARCH_WEB","args":{"queries":["weather paris"]},"id":"srv-1"},"thoughtSignature":"sig-1"},
		{"toolResponse":{"toolType":"GOOGLE_SEARCH_WEB","response":{"results":[{"title":"x"}]},"id":"srv-1"}},
		{"functionCall":{"id":"fc-1","name":"getWeather","args":{"city":"Paris"}}}]},"finishReason":"STOP"}]}`
	res := generateBody(t, "gemini-3-pro-preview", body, nil)
	require.Len(t, res.Content, 3)
	call := res.Content[0].(provider.ToolCall)
	assert.Equal(t, "server:GOOGLE_SEARCH_WEB", call.ToolName)
	assert.True(t, call.ProviderExecuted)
	assert.True(t, call.Dynamic)
	assert.Equal(t, map[string]any{"thoughtSignature": "sig-1", "serverToolCallId": "srv-1", "serverToolType": "GOOGLE_SEARCH_WEB"}, call.ProviderMetadata["google"])
	result := res.Content[1].(provider.ToolResult)
	assert.Equal(t, "srv-1", result.ToolCallID)
	assert.JSONEq(t, `{"results":[{"title":"x"}]}`, string(result.Result))
	fc := res.Content[2].(provider.ToolCall)
	assert.Equal(t, "fc-1", fc.ToolCallID, "the API's call id is kept")
	assert.Equal(t, provider.FinishToolCalls, res.FinishReason.Unified)
}

func TestReasoningAndFiles(t *testing.T) {
	body := `{"candidates":[{"content":{"parts":[
		{"text":"Thinking about it.","thought":true},
		{"text":"Here is a picture.","thoughtSignature":"sig-a"},
		{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},
		{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="},"thought":true,"thoughtSignature":"sig-f"}]},"finishReason":"STOP"}]}`
	res := generateBody(t, "gemini-2.5-flash", body, nil)
	require.Len(t, res.Content, 4)
	assert.Equal(t, provider.Reasoning{Text: "Thinking about it."}, res.Content[0])
	assert.Equal(t, "sig-a", res.Content[1].(provider.Text).ProviderMetadata["google"]["thoughtSignature"])
	file := res.Content[2].(provider.File)
	assert.Equal(t, "image/png", file.MediaType)
	assert.Equal(t, []byte("\x89PNG\r\n\x1a\n"), file.Data.(provider.FileBytes).Data)
	rf := res.Content[3].(provider.ReasoningFile)
	assert.Equal(t, "sig-f", rf.ProviderMetadata["google"]["thoughtSignature"])

	parts := streamChunks(t, "gemini-2.5-flash", nil,
		`{"candidates":[{"content":{"parts":[{"text":"Thinking","thought":true}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"text":" more.","thought":true}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"Answer."}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]},"finishReason":"STOP"}]}`)
	var types []string
	for _, p := range parts {
		types = append(types, p.PartType())
	}
	assert.Equal(t, []string{"stream-start", "reasoning-start", "reasoning-delta", "reasoning-delta", "reasoning-end",
		"text-start", "text-delta", "text-end", "file", "finish"}, types)

	_, err := testProvider(newFakeAPI(t, reply{body: `{"candidates":[{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"%%%"}}]}}]}`})).
		Model("gemini-2.5-flash").Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("Hi")})
	var invalid *provider.InvalidResponseDataError
	assert.ErrorAs(t, err, &invalid, "inline data that is not base64")
}

func TestJSONResponseToolOutput(t *testing.T) {
	opts := func() *provider.CallOptions {
		return &provider.CallOptions{
			ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: json.RawMessage(`{"type":"object"}`)},
			Tools:          []provider.Tool{&provider.FunctionTool{Name: "getWeather", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		}
	}
	body := `{"candidates":[{"content":{"parts":[{"text":"Sure, here it is."},{"functionCall":{"name":"json","args":{"city":"Paris"}}}]},"finishReason":"STOP"}]}`
	res := generateBody(t, "gemini-2.5-flash", body, opts())
	require.Len(t, res.Content, 1)
	assert.JSONEq(t, `{"city":"Paris"}`, res.Content[0].(provider.Text).Text)
	assert.Equal(t, provider.FinishStop, res.FinishReason.Unified)

	parts := streamChunks(t, "gemini-2.5-flash", opts(), body)
	var types []string
	text := ""
	for _, p := range parts {
		types = append(types, p.PartType())
		if d, ok := p.(provider.TextDelta); ok {
			text += d.Delta
		}
	}
	assert.Equal(t, []string{"stream-start", "text-start", "text-delta", "text-end", "finish"}, types)
	assert.JSONEq(t, `{"city":"Paris"}`, text)
	assert.Equal(t, provider.FinishStop, finishOf(t, parts).FinishReason.Unified)
}

func TestStreamRawChunks(t *testing.T) {
	chunk := `{"candidates":[{"content":{"parts":[{"text":"Hi"}]},"finishReason":"STOP"}]}`
	parts := streamChunks(t, "gemini-2.5-flash", &provider.CallOptions{IncludeRawChunks: true}, chunk)
	raw, ok := parts[1].(provider.Raw)
	require.True(t, ok)
	assert.JSONEq(t, chunk, string(raw.RawValue))
}

func TestStreamNoArgsCall(t *testing.T) {
	parts := streamChunks(t, "gemini-2.5-flash", nil,
		`{"candidates":[{"content":{"parts":[{"text":"Checking."},{"functionCall":{"name":"listCities"}}]},"finishReason":"STOP"}]}`)
	var types []string
	for _, p := range parts {
		types = append(types, p.PartType())
		if c, ok := p.(provider.ToolCall); ok {
			assert.Equal(t, "{}", c.Input)
		}
	}
	assert.Equal(t, []string{"stream-start", "text-start", "text-delta", "text-end", "tool-input-start", "tool-input-end", "tool-call", "finish"}, types)
}

func TestStreamInvalidChunk(t *testing.T) {
	parts := streamChunks(t, "gemini-2.5-flash", nil,
		`{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}`, `{"candidates":[{`, `{"candidates":[{"content":{"parts":[{"text":" there"}]}}]}`)
	var errs []error
	for _, p := range parts {
		if e, ok := p.(provider.ErrorPart); ok {
			errs = append(errs, e.Err)
		}
	}
	require.Len(t, errs, 1)
	var invalid *provider.InvalidResponseDataError
	assert.ErrorAs(t, errs[0], &invalid)
	assert.Equal(t, provider.FinishError, finishOf(t, parts).FinishReason.Unified)
}

func TestStreamTooLargeArguments(t *testing.T) {
	big := strings.Repeat("x", maxArgsBytes/2+1)
	piece := `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"` + big + `","willContinue":true}],"willContinue":true}}]}}]}`
	parts := streamChunks(t, "gemini-3-pro-preview", nil,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}`, piece, piece, piece)
	var errs int
	for _, p := range parts {
		if e, ok := p.(provider.ErrorPart); ok {
			errs++
			var invalid *provider.InvalidResponseDataError
			assert.ErrorAs(t, e.Err, &invalid)
		}
		_, call := p.(provider.ToolCall)
		assert.False(t, call)
	}
	assert.Positive(t, errs)
	assert.Equal(t, provider.FinishError, finishOf(t, parts).FinishReason.Unified)
}
