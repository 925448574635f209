package openai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openai"
)

func newProvider(srv *replay.Server, opts ...openai.Option) *openai.Provider {
	return openai.New(append([]openai.Option{openai.WithAPIKey("sk-test"), openai.WithBaseURL(srv.URL + "/v1")}, opts...)...)
}

func userText(text string) provider.Message {
	return provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: text}}}
}

func prompt(text string) *provider.CallOptions {
	return &provider.CallOptions{Prompt: []provider.Message{userText(text)}}
}

func TestChatTextGenerate(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/openai-text.json")))
	res, err := newProvider(srv).Chat("gpt-4.1-nano").Generate(context.Background(), prompt("Invent a holiday."))
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	text := res.Content[0].(provider.Text).Text
	assert.True(t, strings.HasPrefix(text, "**Holiday Name:** Galaxy Day"))
	assert.Equal(t, 1842, utf8.RuneCountInString(text))
	assert.True(t, strings.HasSuffix(text, "dream beyond our world."))
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "stop"}, res.FinishReason)
	assert.Equal(t, 16, *res.Usage.InputTokens.Total)
	assert.Equal(t, 0, *res.Usage.InputTokens.CacheRead)
	assert.Equal(t, 363, *res.Usage.OutputTokens.Total)
	assert.Equal(t, 363, *res.Usage.OutputTokens.Text)
	assert.Equal(t, 0, *res.Usage.OutputTokens.Reasoning)
	assert.Equal(t, "chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU", res.Response.ID)
	assert.Equal(t, "gpt-4.1-nano-2025-04-14", res.Response.ModelID)
	assert.Equal(t, int64(1770933883), res.Response.Timestamp.Unix())
	assert.Equal(t, map[string]any{"acceptedPredictionTokens": 0, "rejectedPredictionTokens": 0}, res.ProviderMetadata["openai"])
	assert.NotEmpty(t, res.Response.Body)
	assert.Equal(t, srv.URL+"/v1/chat/completions", res.Request.URL)

	req := srv.Last(t)
	assert.Equal(t, "/v1/chat/completions", req.Path)
	assert.Equal(t, "Bearer sk-test", req.Header.Get("Authorization"))
	body := req.JSON(t)
	assert.Equal(t, "gpt-4.1-nano", body["model"])
	assert.Equal(t, []any{map[string]any{"role": "user", "content": "Invent a holiday."}}, body["messages"])
	assert.NotContains(t, body, "stream")
}

func TestChatTextStream(t *testing.T) {
	srv := replay.NewServer(t, replay.Stream(replay.SSE(replay.Lines(t, "testdata/openai-text.chunks.txt")...)))
	res, err := newProvider(srv).Chat("gpt-4.1-nano").Stream(context.Background(), prompt("Invent a holiday."))
	require.NoError(t, err)
	parts := replay.Collect(t, res)
	assert.Equal(t, []string{"stream-start", "response-metadata", "text-start", "text-delta", "text-end", "finish"}, replay.Types(parts))
	text := replay.Text(parts)
	assert.True(t, strings.HasPrefix(text, "**Holiday Name:** Harmony Day"))
	assert.Equal(t, 1724, utf8.RuneCountInString(text))
	assert.True(t, strings.HasSuffix(text, "shared human experiences and mutual respect."))
	md := replay.Of[provider.ResponseMetadata](parts)[0]
	assert.Equal(t, "chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0", md.ID)
	fin := replay.Of[provider.Finish](parts)[0]
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "stop"}, fin.FinishReason)
	assert.Equal(t, 16, *fin.Usage.InputTokens.Total)
	assert.Equal(t, 300, *fin.Usage.OutputTokens.Total)

	body := srv.Last(t).JSON(t)
	assert.Equal(t, true, body["stream"])
	assert.Equal(t, map[string]any{"include_usage": true}, body["stream_options"])
}

func TestChatToolCallSteps(t *testing.T) {
	srv := replay.NewServer(t,
		replay.Stream(replay.SSE(replay.Lines(t, "testdata/issue-15789-step-1.chunks.txt")...)),
		replay.Stream(replay.SSE(replay.Lines(t, "testdata/issue-15789-step-2.chunks.txt")...)))
	m := newProvider(srv).Chat("gpt-4o")
	opts := prompt("Say PRE_TOOL, call weather, then say POST_TOOL.")
	opts.Tools = []provider.Tool{&provider.FunctionTool{Name: "weather", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}

	res, err := m.Stream(context.Background(), opts)
	require.NoError(t, err)
	parts := replay.Collect(t, res)
	assert.Equal(t, "PRE_TOOL", replay.Text(parts))
	calls := replay.Of[provider.ToolCall](parts)
	require.Len(t, calls, 1)
	assert.Equal(t, provider.ToolCall{ToolCallID: "call_NZa7xqfefoaMI2YYHowVXVlU", ToolName: "weather", Input: "{}"}, calls[0])
	starts := replay.Of[provider.ToolInputStart](parts)
	require.Len(t, starts, 1)
	assert.Equal(t, provider.ToolInputStart{ID: "call_NZa7xqfefoaMI2YYHowVXVlU", ToolName: "weather"}, starts[0])
	fin := replay.Of[provider.Finish](parts)[0]
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_calls"}, fin.FinishReason)
	assert.Equal(t, 58, *fin.Usage.InputTokens.Total)
	assert.Equal(t, 12, *fin.Usage.OutputTokens.Total)

	// Second step: the call and its result go back.
	opts.Prompt = append(opts.Prompt,
		provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.TextPart{Text: "PRE_TOOL"},
			provider.ToolCallPart{ToolCallID: calls[0].ToolCallID, ToolName: "weather", Input: json.RawMessage(calls[0].Input)},
		}},
		provider.ToolMessage{Content: []provider.ToolPart{provider.ToolResultPart{ToolCallID: calls[0].ToolCallID, ToolName: "weather",
			Output: provider.TextOutput{Value: "sunny"}}}})
	res, err = m.Stream(context.Background(), opts)
	require.NoError(t, err)
	parts = replay.Collect(t, res)
	assert.Equal(t, "POST_TOOL", replay.Text(parts))
	fin = replay.Of[provider.Finish](parts)[0]
	assert.Equal(t, provider.FinishStop, fin.FinishReason.Unified)
	assert.Equal(t, 86, *fin.Usage.InputTokens.Total)

	messages, _ := json.Marshal(srv.Last(t).JSON(t)["messages"])
	assert.JSONEq(t, `[
		{"role":"user","content":"Say PRE_TOOL, call weather, then say POST_TOOL."},
		{"role":"assistant","content":"PRE_TOOL","tool_calls":[{"id":"call_NZa7xqfefoaMI2YYHowVXVlU","type":"function","function":{"name":"weather","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"call_NZa7xqfefoaMI2YYHowVXVlU","content":"sunny"}
	]`, string(messages))
}

func TestChatAzureModelRouter(t *testing.T) {
	srv := replay.NewServer(t, replay.Stream(replay.SSE(replay.Lines(t, "testdata/azure-model-router.1.chunks.txt")...)))
	res, err := newProvider(srv).Chat("model-router").Stream(context.Background(), prompt("Capital of France?"))
	require.NoError(t, err)
	parts := replay.Collect(t, res)
	mds := replay.Of[provider.ResponseMetadata](parts)
	require.Len(t, mds, 1, "the leading empty chunk carries no metadata")
	assert.Equal(t, "chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt", mds[0].ID)
	assert.Equal(t, "gpt-5-nano-2025-08-07", mds[0].ModelID)
	assert.True(t, strings.HasPrefix(replay.Text(parts), "Capital"))
	fin := replay.Of[provider.Finish](parts)[0]
	assert.Equal(t, provider.FinishStop, fin.FinishReason.Unified)
	assert.Equal(t, 78, *fin.Usage.OutputTokens.Total)
	assert.Equal(t, 64, *fin.Usage.OutputTokens.Reasoning)
	assert.Equal(t, 14, *fin.Usage.OutputTokens.Text)
	assert.Equal(t, 15, *fin.Usage.InputTokens.Total)
}

func TestChatCachedInputTokens(t *testing.T) {
	var rec struct {
		Attempts []struct {
			RawCachedTokens int             `json:"rawCachedTokens"`
			RawResponseBody json.RawMessage `json:"rawResponseBody"`
		} `json:"attempts"`
	}
	require.NoError(t, json.Unmarshal(replay.Read(t, "testdata/openai-chat-cached-input-tokens-11178.json"), &rec))
	require.Len(t, rec.Attempts, 2)
	for i, a := range rec.Attempts {
		srv := replay.NewServer(t, replay.JSON(a.RawResponseBody))
		res, err := newProvider(srv).Chat("gpt-4o-mini").Generate(context.Background(), prompt("long prompt"))
		require.NoError(t, err)
		assert.Equal(t, provider.Text{Text: "ok"}, res.Content[0])
		assert.Equal(t, 10122, *res.Usage.InputTokens.Total, "attempt %d", i)
		assert.Equal(t, a.RawCachedTokens, *res.Usage.InputTokens.CacheRead, "attempt %d", i)
		assert.Equal(t, 10122-a.RawCachedTokens, *res.Usage.InputTokens.NoCache, "attempt %d", i)
		assert.Nil(t, res.Usage.InputTokens.CacheWrite)
	}
	assert.Equal(t, 9984, rec.Attempts[1].RawCachedTokens)
}

func TestChatLegacyParameterError(t *testing.T) {
	srv := replay.NewServer(t, replay.Error(400, string(replay.Read(t, "testdata/reasoning-model-legacy-parameter-error.json")), nil))
	_, err := newProvider(srv).Chat("custom-reasoner").Generate(context.Background(), prompt("hi"))
	var apiErr *provider.APICallError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 400, apiErr.StatusCode)
	assert.False(t, apiErr.Retryable)
	assert.Equal(t, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", apiErr.Message)
}

func TestChatRefusalAndAnnotations(t *testing.T) {
	body := `{"id":"c","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,
		"refusal":"I can't help with that.","annotations":[{"type":"url_citation","url_citation":{"start_index":0,"end_index":3,"url":"https://example.com","title":"Example"}}]},
		"logprobs":{"content":[{"token":"I","logprob":-0.1,"top_logprobs":[]}]},"finish_reason":"stop"}]}`
	srv := replay.NewServer(t, replay.JSON([]byte(body)))
	res, err := newProvider(srv).Chat("gpt-4o").Generate(context.Background(), prompt("hi"))
	require.NoError(t, err)
	require.Len(t, res.Content, 2)
	assert.Equal(t, provider.Text{Text: "I can't help with that."}, res.Content[0])
	src := res.Content[1].(provider.Source)
	assert.Equal(t, provider.SourceURL, src.SourceType)
	assert.Equal(t, "https://example.com", src.URL)
	assert.Equal(t, "Example", src.Title)
	assert.NotEmpty(t, src.ID)
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishContentFilter, Raw: "stop"}, res.FinishReason)
	assert.Len(t, res.ProviderMetadata["openai"]["logprobs"], 1)
}

func TestChatParallelToolCallsStream(t *testing.T) {
	// Two calls with their own indices, interleaved.
	body := replay.SSE(
		`{"id":"c","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get","arguments":""}}]}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"put","arguments":"{\"x\""}}]}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":2}"}}]}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	)
	srv := replay.NewServer(t, replay.Stream(body))
	res, err := newProvider(srv).Chat("gpt-4o").Stream(context.Background(), prompt("hi"))
	require.NoError(t, err)
	parts := replay.Collect(t, res)
	calls := replay.Of[provider.ToolCall](parts)
	require.Len(t, calls, 2)
	assert.Equal(t, provider.ToolCall{ToolCallID: "call_a", ToolName: "get", Input: `{"a":1}`}, calls[0])
	assert.Equal(t, provider.ToolCall{ToolCallID: "call_b", ToolName: "put", Input: `{"x":2}`}, calls[1])
	assert.Empty(t, replay.Of[provider.TextStart](parts), "null content opens no text block")
	fin := replay.Of[provider.Finish](parts)[0]
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_calls"}, fin.FinishReason)
	assert.Nil(t, fin.Usage.InputTokens.Total)
}
