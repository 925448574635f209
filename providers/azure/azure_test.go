package azure_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/azure"
)

// tsCase is one request recorded from the TypeScript package @ai-sdk/azure
// 4.0.85, with the answer it was given and what it made of it.
type tsCase struct {
	Name     string `json:"name"`
	Settings struct {
		ResourceName           string `json:"resourceName"`
		BaseURL                string `json:"baseURL"`
		APIVersion             string `json:"apiVersion"`
		UseDeploymentBasedURLs bool   `json:"useDeploymentBasedUrls"`
	} `json:"settings"`
	Request struct {
		URL     string            `json:"url"`
		Method  string            `json:"method"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"request"`
	Response json.RawMessage   `json:"response"`
	Chunks   []json.RawMessage `json:"chunks"`
	Result   struct {
		Text    string `json:"text"`
		Content []struct {
			Type       string `json:"type"`
			Text       string `json:"text"`
			ToolCallID string `json:"toolCallId"`
			ToolName   string `json:"toolName"`
			Input      string `json:"input"`
		} `json:"content"`
		FinishReason struct {
			Unified string `json:"unified"`
		} `json:"finishReason"`
		Usage      *provider.Usage `json:"usage"`
		Embeddings [][]float64     `json:"embeddings"`
	} `json:"result"`
}

// redirect sends every request to srv, keeping the URL the provider built.
type redirect struct {
	srv  *replay.Server
	mu   sync.Mutex
	urls []string
}

func (r *redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.URL.String())
	r.mu.Unlock()
	target, _ := url.Parse(r.srv.URL)
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = target.Scheme, target.Host, target.Host
	return http.DefaultTransport.RoundTrip(req)
}

var weather = &provider.FunctionTool{Name: "weather", Description: "Get the weather of a city.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)}

var terse = []provider.Message{
	provider.SystemMessage{Content: "You are terse."},
	provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "Weather in Paris?"}}},
}

// calls are the Go calls that correspond to the recorded TypeScript calls.
var calls = map[string]struct {
	kind   string // responses, chat or embedding
	stream bool
	opts   *provider.CallOptions
	embed  *provider.EmbedCallOptions
	model  string
}{
	"responses-generate": {kind: "responses", model: "gpt-4.1-mini", opts: &provider.CallOptions{Prompt: terse,
		Temperature: new(0.3), MaxOutputTokens: new(200), Tools: []provider.Tool{weather},
		ToolChoice:      provider.ToolChoice{Type: provider.ToolChoiceAuto},
		ProviderOptions: provider.ProviderOptions{"azure": {"parallelToolCalls": false, "user": "u-1"}}}},
	"responses-stream-versioned": {kind: "responses", stream: true, model: "gpt-4.1-mini", opts: &provider.CallOptions{Prompt: terse,
		ProviderOptions: provider.ProviderOptions{"openai": {"store": false}}}},
	"chat-generate-deployment-urls": {kind: "chat", model: "gpt-4o-mini", opts: &provider.CallOptions{Prompt: terse,
		Tools: []provider.Tool{weather}, ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "weather"}, Seed: new(7)}},
	"chat-stream-proxy": {kind: "chat", stream: true, model: "gpt-4o-mini", opts: &provider.CallOptions{Prompt: []provider.Message{
		provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "Say bonjour."}}}}}},
	"embedding": {kind: "embedding", model: "text-embedding-3-small", embed: &provider.EmbedCallOptions{Values: []string{"hello world"},
		ProviderOptions: provider.ProviderOptions{"openai": {"dimensions": 3}}}},
}

// TestAzureRequestBodies sends the recorded calls through the Go provider:
// the URL, the authentication header and the body must match what the
// TypeScript package sent, and the recorded answers must come out as they
// did there.
func TestAzureRequestBodies(t *testing.T) {
	var cases []tsCase
	require.NoError(t, json.Unmarshal(replay.Read(t, "testdata/ts-requests.json"), &cases))
	require.Len(t, cases, len(calls))
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			call, ok := calls[c.Name]
			require.True(t, ok, "no Go call for %s", c.Name)
			var resp replay.Response
			if c.Chunks != nil {
				var payloads []string
				for _, ch := range c.Chunks {
					var b bytes.Buffer
					require.NoError(t, json.Compact(&b, ch))
					payloads = append(payloads, b.String())
				}
				body := replay.SSE(payloads...)
				if call.kind == "chat" {
					body = append(body, "data: [DONE]\n\n"...)
				}
				resp = replay.Stream(body)
			} else {
				resp = replay.JSON(c.Response)
			}
			srv := replay.NewServer(t, resp)
			rt := &redirect{srv: srv}
			opts := []azure.Option{azure.WithAPIKey("test-key"), azure.WithHTTPClient(&http.Client{Transport: rt})}
			s := c.Settings
			if s.ResourceName != "" {
				opts = append(opts, azure.WithResourceName(s.ResourceName))
			}
			if s.BaseURL != "" {
				opts = append(opts, azure.WithBaseURL(s.BaseURL))
			}
			if s.APIVersion != "" {
				opts = append(opts, azure.WithAPIVersion(s.APIVersion))
			}
			opts = append(opts, azure.WithDeploymentBasedURLs(s.UseDeploymentBasedURLs))
			p := azure.New(opts...)
			ctx := context.Background()

			switch call.kind {
			case "embedding":
				res, err := p.Embedding(call.model).Embed(ctx, call.embed)
				require.NoError(t, err)
				assert.Equal(t, c.Result.Embeddings, res.Embeddings)
			default:
				model := p.Responses(call.model)
				if call.kind == "chat" {
					model = p.Chat(call.model)
				}
				if call.stream {
					res, err := model.Stream(ctx, call.opts)
					require.NoError(t, err)
					parts := replay.Collect(t, res)
					assert.Equal(t, c.Result.Text, replay.Text(parts))
					fins := replay.Of[provider.Finish](parts)
					require.Len(t, fins, 1)
					assert.Equal(t, c.Result.FinishReason.Unified, string(fins[0].FinishReason.Unified))
					assertUsage(t, c.Result.Usage, fins[0].Usage)
				} else {
					res, err := model.Generate(ctx, call.opts)
					require.NoError(t, err)
					require.Len(t, res.Content, len(c.Result.Content))
					for i, want := range c.Result.Content {
						switch got := res.Content[i].(type) {
						case provider.Text:
							assert.Equal(t, want.Type, "text")
							assert.Equal(t, want.Text, got.Text)
						case provider.ToolCall:
							assert.Equal(t, want.Type, "tool-call")
							assert.Equal(t, want.ToolCallID, got.ToolCallID)
							assert.Equal(t, want.ToolName, got.ToolName)
							assert.JSONEq(t, want.Input, got.Input)
						default:
							t.Errorf("content %d is %T", i, got)
						}
					}
					assert.Equal(t, c.Result.FinishReason.Unified, string(res.FinishReason.Unified))
					assertUsage(t, c.Result.Usage, res.Usage)
				}
			}

			require.Len(t, rt.urls, 1)
			assert.Equal(t, c.Request.URL, rt.urls[0], "URL")
			got := srv.Last(t)
			assert.Equal(t, c.Request.Method, got.Method)
			for name, v := range c.Request.Headers {
				assert.Equal(t, v, got.Header.Get(name), "header %s", name)
			}
			assert.Empty(t, got.Header.Get("Authorization"), "an API key call sends no bearer token")
			assert.JSONEq(t, string(c.Request.Body), string(got.Body), "request body")
		})
	}
}

func assertUsage(t *testing.T, want *provider.Usage, got provider.Usage) {
	t.Helper()
	require.NotNil(t, want)
	assert.Equal(t, want.InputTokens.Total, got.InputTokens.Total, "input tokens")
	assert.Equal(t, want.InputTokens.CacheRead, got.InputTokens.CacheRead, "cache read tokens")
	assert.Equal(t, want.OutputTokens.Total, got.OutputTokens.Total, "output tokens")
}

func TestAzureURLsAndAuth(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON([]byte(`{"object":"list","data":[{"index":0,"embedding":[1]}]}`)))
	rt := &redirect{srv: srv}
	client := &http.Client{Transport: rt}
	embed := &provider.EmbedCallOptions{Values: []string{"x"}}
	ctx := context.Background()

	t.Run("foundry project endpoint has no api-version", func(t *testing.T) {
		p := azure.New(azure.WithAPIKey("k"), azure.WithHTTPClient(client),
			azure.WithBaseURL("https://acct.services.ai.azure.com/api/projects/proj/openai/v1"))
		_, err := p.Embedding("e").Embed(ctx, embed)
		require.NoError(t, err)
		assert.Equal(t, "https://acct.services.ai.azure.com/api/projects/proj/openai/v1/embeddings", rt.urls[len(rt.urls)-1])
	})
	t.Run("unversioned azure base URL gets /v1 and api-version", func(t *testing.T) {
		p := azure.New(azure.WithAPIKey("k"), azure.WithHTTPClient(client),
			azure.WithBaseURL("https://res.cognitiveservices.azure.com/openai/"))
		_, err := p.Embedding("e").Embed(ctx, embed)
		require.NoError(t, err)
		assert.Equal(t, "https://res.cognitiveservices.azure.com/openai/v1/embeddings?api-version=v1", rt.urls[len(rt.urls)-1])
	})
	t.Run("bearer token replaces the api-key", func(t *testing.T) {
		p := azure.New(azure.WithResourceName("res"), azure.WithHTTPClient(client),
			azure.WithTokenProvider(func(context.Context) (string, error) { return "tok-1", nil }))
		_, err := p.Embedding("e").Embed(ctx, embed)
		require.NoError(t, err)
		h := srv.Last(t).Header
		assert.Equal(t, "Bearer tok-1", h.Get("Authorization"))
		assert.Empty(t, h.Get("Api-Key"))
	})
	t.Run("a failing token provider fails the call", func(t *testing.T) {
		boom := errors.New("no token")
		p := azure.New(azure.WithResourceName("res"), azure.WithHTTPClient(client),
			azure.WithTokenProvider(func(context.Context) (string, error) { return "", boom }))
		n := len(srv.Requests())
		_, err := p.Responses("d").Generate(ctx, &provider.CallOptions{Prompt: terse})
		require.ErrorIs(t, err, boom)
		assert.Len(t, srv.Requests(), n, "nothing was sent")
	})
	t.Run("authenticated client sends no key", func(t *testing.T) {
		p := azure.New(azure.WithResourceName("res"), azure.WithAuthenticatedClient(client))
		_, err := p.Embedding("e").Embed(ctx, embed)
		require.NoError(t, err)
		assert.Empty(t, srv.Last(t).Header.Get("Api-Key"))
	})
	t.Run("missing and invalid settings", func(t *testing.T) {
		t.Setenv("AZURE_RESOURCE_NAME", "")
		t.Setenv("AZURE_API_KEY", "")
		var se *azure.SettingError
		_, err := azure.New(azure.WithAPIKey("k")).Responses("d").Generate(ctx, &provider.CallOptions{Prompt: terse})
		require.ErrorAs(t, err, &se)
		assert.Equal(t, "resourceName", se.Setting)
		_, err = azure.New(azure.WithAPIKey("k"), azure.WithResourceName("a.b")).Chat("d").Generate(ctx, &provider.CallOptions{Prompt: terse})
		require.ErrorAs(t, err, &se)
		var ke *provider.LoadAPIKeyError
		_, err = azure.New(azure.WithResourceName("res")).Embedding("d").Embed(ctx, embed)
		require.ErrorAs(t, err, &ke)
	})
}
