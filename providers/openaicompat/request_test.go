package openaicompat_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openaicompat"
)

const okBody = `{"id":"x","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`

func call(t *testing.T, opts *provider.CallOptions, popts ...openaicompat.Option) (map[string]any, *provider.GenerateResult, replay.Request) {
	t.Helper()
	srv := replay.NewServer(t, replay.JSON([]byte(okBody)))
	res, err := model(srv, "my-server", "llama", popts...).Generate(context.Background(), opts)
	require.NoError(t, err)
	req := srv.Last(t)
	return req.JSON(t), res, req
}

func TestProviderOptions(t *testing.T) {
	opts := prompt("hi")
	opts.ProviderOptions = provider.ProviderOptions{
		"openaiCompatible": {"user": "u-1", "textVerbosity": "low"},
		"my-server":        {"reasoningEffort": "high", "chat_template_kwargs": map[string]any{"enable_thinking": true}},
		"myServer":         {"top_k": 20, "user": "u-2"},
		"other":            {"ignored": true},
	}
	body, res, _ := call(t, opts)
	assert.Equal(t, "u-2", body["user"], "the camelCase key has the highest precedence")
	assert.Equal(t, "low", body["verbosity"])
	assert.Equal(t, "high", body["reasoning_effort"])
	assert.Equal(t, map[string]any{"enable_thinking": true}, body["chat_template_kwargs"])
	assert.Equal(t, float64(20), body["top_k"])
	assert.NotContains(t, body, "ignored")
	assert.NotContains(t, body, "textVerbosity", "known options are not copied verbatim")
	assert.Contains(t, res.ProviderMetadata, "myServer", "metadata uses the camelCase key when the call used it")
	assert.Empty(t, res.Warnings)
}

func TestReasoningEffort(t *testing.T) {
	t.Run("explicit null is kept", func(t *testing.T) {
		opts := prompt("hi")
		opts.ProviderOptions = provider.ProviderOptions{"my-server": {"reasoningEffort": nil}}
		body, _, _ := call(t, opts)
		v, ok := body["reasoning_effort"]
		assert.True(t, ok)
		assert.Nil(t, v)
	})
	t.Run("call setting", func(t *testing.T) {
		opts := prompt("hi")
		opts.Reasoning = provider.ReasoningLow
		body, _, _ := call(t, opts)
		assert.Equal(t, "low", body["reasoning_effort"])
	})
	t.Run("absent", func(t *testing.T) {
		body, _, _ := call(t, prompt("hi"))
		assert.NotContains(t, body, "reasoning_effort")
	})
}

func TestDeprecatedOptionKey(t *testing.T) {
	opts := prompt("hi")
	opts.ProviderOptions = provider.ProviderOptions{"openai-compatible": {"user": "old"}}
	body, res, _ := call(t, opts)
	assert.Equal(t, "old", body["user"])
	require.Len(t, res.Warnings, 1)
	assert.Equal(t, "other", res.Warnings[0].Type)
	assert.Contains(t, res.Warnings[0].Message, "deprecated")
}

func TestMessagesAndParts(t *testing.T) {
	opts := &provider.CallOptions{Prompt: []provider.Message{
		provider.SystemMessage{Content: "Be brief."},
		provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "hi"}},
			ProviderOptions: provider.ProviderOptions{"openaiCompatible": {"cache_control": map[string]any{"type": "ephemeral"}}}},
		provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.ReasoningPart{Text: "think "},
			provider.ReasoningPart{Text: "more"},
			provider.TextPart{Text: "Hello"},
			provider.ToolCallPart{ToolCallID: "c1", ToolName: "get", Input: json.RawMessage(`{"a":1}`),
				ProviderOptions: provider.ProviderOptions{"google": {"thoughtSignature": "sig"}}},
		}},
		provider.ToolMessage{Content: []provider.ToolPart{
			provider.ToolResultPart{ToolCallID: "c1", ToolName: "get", Output: provider.JSONOutput{Value: json.RawMessage(`{"b":2}`)}},
		}},
		provider.UserMessage{Content: []provider.UserPart{
			provider.TextPart{Text: "look", ProviderOptions: provider.ProviderOptions{"openaiCompatible": {"x": 1}}},
			provider.FilePart{MediaType: "image/png", Data: provider.FileBytes{Data: []byte{1, 2}}},
			provider.FilePart{MediaType: "text/plain", Data: provider.FileText{Text: "notes"}},
		}},
	}}
	body, _, _ := call(t, opts)
	want := `[
		{"role":"system","content":"Be brief."},
		{"role":"user","content":"hi","cache_control":{"type":"ephemeral"}},
		{"role":"assistant","content":"Hello","reasoning_content":"think more",
		 "tool_calls":[{"id":"c1","type":"function","function":{"name":"get","arguments":"{\"a\":1}"},
		   "extra_content":{"google":{"thought_signature":"sig"}}}]},
		{"role":"tool","tool_call_id":"c1","content":"{\"b\":2}"},
		{"role":"user","content":[
			{"type":"text","text":"look","x":1},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,AQI="}},
			{"type":"text","text":"notes"}]}
	]`
	got, _ := json.Marshal(body["messages"])
	assert.JSONEq(t, want, string(got))
}

func TestResponseFormat(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	opts := prompt("hi")
	opts.ResponseFormat = &provider.ResponseFormat{Type: "json", Schema: schema, Name: "out"}
	t.Run("without structured outputs", func(t *testing.T) {
		body, res, _ := call(t, opts)
		assert.Equal(t, map[string]any{"type": "json_object"}, body["response_format"])
		require.Len(t, res.Warnings, 1)
		assert.Equal(t, provider.Warning{Type: "unsupported", Feature: "responseFormat",
			Details: "JSON response format schema is only supported with structured outputs"}, res.Warnings[0])
	})
	t.Run("with structured outputs", func(t *testing.T) {
		body, res, _ := call(t, opts, openaicompat.WithStructuredOutputs(true))
		rf, _ := json.Marshal(body["response_format"])
		assert.JSONEq(t, `{"type":"json_schema","json_schema":{"name":"out","strict":true,"schema":{"type":"object","properties":{"a":{"type":"string"}}}}}`, string(rf))
		assert.Empty(t, res.Warnings)
	})
	t.Run("the schema is sent as given", func(t *testing.T) {
		// OpenAI's own schema preparation (inlining a lone allOf reference,
		// dropping look-arounds) is not applied to other servers.
		raw := json.RawMessage(`{"allOf":[{"$ref":"#/$defs/A"}],"$defs":{"A":{"type":"object","propertyNames":{"pattern":"^a"},"properties":{"a":{"type":"string","pattern":"^(?!b)"}}}}}`)
		o := prompt("hi")
		o.ResponseFormat = &provider.ResponseFormat{Type: "json", Schema: raw, Description: "An A."}
		o.ProviderOptions = provider.ProviderOptions{"openaiCompatible": {"strictJsonSchema": false}}
		body, res, _ := call(t, o, openaicompat.WithStructuredOutputs(true))
		rf, _ := json.Marshal(body["response_format"])
		assert.JSONEq(t, `{"type":"json_schema","json_schema":{"name":"response","description":"An A.","strict":false,"schema":`+string(raw)+`}}`, string(rf))
		assert.Empty(t, res.Warnings)
	})
	t.Run("json without a schema", func(t *testing.T) {
		o := prompt("hi")
		o.ResponseFormat = &provider.ResponseFormat{Type: "json"}
		body, res, _ := call(t, o, openaicompat.WithStructuredOutputs(true))
		assert.Equal(t, map[string]any{"type": "json_object"}, body["response_format"])
		assert.Empty(t, res.Warnings)
	})
	t.Run("text sends no response format", func(t *testing.T) {
		o := prompt("hi")
		o.ResponseFormat = &provider.ResponseFormat{Type: "text"}
		body, _, _ := call(t, o)
		assert.NotContains(t, body, "response_format")
	})
}

func TestToolsAndChoice(t *testing.T) {
	opts := prompt("hi")
	opts.Tools = []provider.Tool{
		&provider.FunctionTool{Name: "get", Description: "Get it.", InputSchema: json.RawMessage(`{"type":"object"}`), Strict: new(true)},
		&provider.ProviderTool{ID: "openai.web_search", Name: "search"},
	}
	opts.ToolChoice = provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "get"}
	body, res, _ := call(t, opts)
	tools, _ := json.Marshal(body["tools"])
	assert.JSONEq(t, `[{"type":"function","function":{"name":"get","description":"Get it.","parameters":{"type":"object"},"strict":true}}]`, string(tools))
	assert.Equal(t, map[string]any{"type": "function", "function": map[string]any{"name": "get"}}, body["tool_choice"])
	assert.Equal(t, []provider.Warning{{Type: "unsupported", Feature: "provider-defined tool openai.web_search"}}, res.Warnings)
}

func TestAuthHeadersAndQuery(t *testing.T) {
	_, _, req := call(t, prompt("hi"),
		openaicompat.WithAPIKey("sk-test"),
		openaicompat.WithHeaders(http.Header{"X-Extra": {"1"}}),
		openaicompat.WithQueryParams(url.Values{"api-version": {"2025-01-01"}}))
	assert.Equal(t, "Bearer sk-test", req.Header.Get("Authorization"))
	assert.Equal(t, "1", req.Header.Get("X-Extra"))
	assert.Equal(t, "api-version=2025-01-01", req.Query)
	assert.Equal(t, "application/json", req.Header.Get("Content-Type"))
}

func TestProviderName(t *testing.T) {
	m := openaicompat.New(openaicompat.WithBaseURL("http://localhost:11434/v1/"), openaicompat.WithName("ollama")).Model("llama3.2")
	assert.Equal(t, "ollama.chat", m.Provider())
	assert.Equal(t, "llama3.2", m.ModelID())
	assert.Equal(t, "openaiCompatible.chat", openaicompat.New(openaicompat.WithBaseURL("http://x")).Model("m").Provider())
}

func TestMissingBaseURL(t *testing.T) {
	m := openaicompat.New().Model("m")
	_, err := m.Generate(context.Background(), prompt("hi"))
	assert.ErrorIs(t, err, openaicompat.ErrNoBaseURL)
	_, err = m.Stream(context.Background(), prompt("hi"))
	assert.ErrorIs(t, err, openaicompat.ErrNoBaseURL)
}

func TestUsageConverter(t *testing.T) {
	var got json.RawMessage
	_, res, _ := call(t, prompt("hi"), openaicompat.WithUsageConverter(func(raw json.RawMessage) provider.Usage {
		got = raw
		return provider.Usage{OutputTokens: provider.OutputTokens{Total: new(42)}}
	}))
	assert.JSONEq(t, `{"prompt_tokens":3,"completion_tokens":1}`, string(got))
	assert.Equal(t, 42, *res.Usage.OutputTokens.Total)
}

func TestErrors(t *testing.T) {
	t.Run("400", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Error(400, `{"error":{"message":"model 'x' not found","type":"invalid_request_error","param":null,"code":null}}`, nil))
		_, err := model(srv, "s", "x").Generate(context.Background(), prompt("hi"))
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 400, apiErr.StatusCode)
		assert.Equal(t, "model 'x' not found", apiErr.Message)
		assert.False(t, apiErr.Retryable)
		assert.Contains(t, string(apiErr.ResponseBody), "not found")
		assert.Equal(t, srv.URL+"/v1/chat/completions", apiErr.URL)
	})
	t.Run("429 keeps retry-after", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Error(429, `{"error":{"message":"slow down"}}`, http.Header{"Retry-After": {"3"}}))
		_, err := model(srv, "s", "x").Stream(context.Background(), prompt("hi"))
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 429, apiErr.StatusCode)
		assert.True(t, apiErr.Retryable)
		assert.Equal(t, "3", apiErr.ResponseHeaders.Get("Retry-After"))
		assert.Equal(t, "slow down", apiErr.Message)
	})
	t.Run("500 with another error shape", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Error(500, `oops`, nil))
		_, err := model(srv, "s", "x").Generate(context.Background(), prompt("hi"))
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 500, apiErr.StatusCode)
		assert.True(t, apiErr.Retryable)
		assert.Equal(t, "Internal Server Error", apiErr.Message)
	})
	t.Run("connection refused", func(t *testing.T) {
		srv := replay.NewServer(t)
		u := srv.URL
		srv.Close()
		m := openaicompat.New(openaicompat.WithBaseURL(u)).Model("x")
		_, err := m.Generate(context.Background(), prompt("hi"))
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.True(t, apiErr.Retryable)
		assert.Zero(t, apiErr.StatusCode)
	})
	t.Run("error frame in a stream", func(t *testing.T) {
		body := replay.SSE(
			`{"id":"a","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
			`{"error":{"message":"backend crashed","type":"server_error","code":null}}`,
		)
		srv := replay.NewServer(t, replay.Stream(body))
		res, err := model(srv, "s", "m").Stream(context.Background(), prompt("hi"))
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		errs := replay.Of[provider.ErrorPart](parts)
		require.Len(t, errs, 1)
		var apiErr *provider.APICallError
		require.ErrorAs(t, errs[0].Err, &apiErr)
		assert.Equal(t, "backend crashed", apiErr.Message)
		assert.Equal(t, 500, apiErr.StatusCode)
		fin := replay.Of[provider.Finish](parts)[0]
		assert.Equal(t, provider.FinishError, fin.FinishReason.Unified)
		assert.Equal(t, "Hel", replay.Text(parts))
	})
	t.Run("error frame first fails the call", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Stream(replay.SSE(`{"error":{"message":"boom","code":503}}`)))
		res, err := model(srv, "s", "m").Stream(context.Background(), prompt("hi"))
		assert.Nil(t, res)
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 503, apiErr.StatusCode)
		assert.True(t, apiErr.Retryable)
		assert.Equal(t, "boom", apiErr.Message)
	})
	t.Run("missing finish reason", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Stream(replay.SSE(`{"id":"a","choices":[{"index":0,"delta":{"content":"partial"}}]}`)))
		res, err := model(srv, "s", "m").Stream(context.Background(), prompt("hi"))
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		fin := replay.Of[provider.Finish](parts)[0]
		assert.Equal(t, provider.FinishReason{Unified: provider.FinishInterrupted}, fin.FinishReason)
	})
}

func TestCancelMidStream(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := replay.NewServer(t, replay.Response{Handler: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(`data: {"id":"a","choices":[{"index":0,"delta":{"content":"one"}}]}` + "\n\n"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}})
	tracker := &replay.CloseTracker{}
	m := openaicompat.New(openaicompat.WithBaseURL(srv.URL), openaicompat.WithHTTPClient(&http.Client{Transport: tracker})).Model("m")
	ctx, cancel := context.WithCancel(context.Background())
	res, err := m.Stream(ctx, prompt("hi"))
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		var last error
		for p, err := range res.Stream {
			if _, ok := p.(provider.TextDelta); ok {
				cancel()
			}
			if err != nil {
				last = err
			}
		}
		done <- last
	}()
	select {
	case err := <-done:
		assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end after cancellation")
	}
	assert.True(t, tracker.AllClosed())
}

func TestBreakClosesBody(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := replay.NewServer(t, replay.Response{Handler: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, s := range []string{"a", "b", "c"} {
			_, _ = w.Write([]byte(`data: {"id":"a","choices":[{"index":0,"delta":{"content":"` + s + `"}}]}` + "\n\n"))
		}
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}})
	tracker := &replay.CloseTracker{}
	m := openaicompat.New(openaicompat.WithBaseURL(srv.URL), openaicompat.WithHTTPClient(&http.Client{Transport: tracker})).Model("m")
	res, err := m.Stream(context.Background(), prompt("hi"))
	require.NoError(t, err)
	var text strings.Builder
	for p, err := range res.Stream {
		require.NoError(t, err)
		if d, ok := p.(provider.TextDelta); ok {
			text.WriteString(d.Delta)
			break
		}
	}
	assert.Equal(t, "a", text.String())
	assert.True(t, tracker.AllClosed(), "breaking out of the loop closes the body")
	// A stream can be ranged over only once.
	for _, err := range res.Stream {
		assert.Error(t, err)
	}
}
