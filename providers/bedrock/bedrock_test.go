package bedrock_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/bedrock"
)

// tsCase is one call recorded from the TypeScript package
// @ai-sdk/amazon-bedrock 5.0.101: the request it sent, the answer it was
// given (a JSON body or an event stream, base64) and what it made of it.
type tsCase struct {
	Name     string `json:"name"`
	Settings struct {
		APIKey string `json:"apiKey"`
	} `json:"settings"`
	Request struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"request"`
	Response json.RawMessage `json:"response"`
	Status   int             `json:"status"`
	Stream   string          `json:"stream"`
	Result   json.RawMessage `json:"result"`
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

var (
	png, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	pdf    = []byte("%PDF-1.4\n%test\n")
)

func user(text string) provider.Message {
	return provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: text}}}
}

const claude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

var answerSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","minLength":2,"description":"The name."},"tags":{"type":"array","items":{"type":"string"},"maxItems":3}},"required":["name","tags"]}`)

// calls are the Go calls that correspond to the recorded ones.
var calls = map[string]struct {
	model  string
	stream bool
	opts   *provider.CallOptions
}{
	"generate-claude-prompt": {model: claude, opts: &provider.CallOptions{
		Prompt: []provider.Message{
			provider.SystemMessage{Content: "You are terse.", ProviderOptions: provider.ProviderOptions{"bedrock": {"cachePoint": map[string]any{"type": "default"}}}},
			provider.UserMessage{Content: []provider.UserPart{
				provider.TextPart{Text: "Look at these."},
				provider.FilePart{MediaType: "image/png", Data: provider.FileBytes{Data: png}},
				provider.FilePart{MediaType: "application/pdf", Filename: "report final.pdf", Data: provider.FileBytes{Data: pdf},
					ProviderOptions: provider.ProviderOptions{"bedrock": {"citations": map[string]any{"enabled": true}}}},
			}},
			provider.AssistantMessage{Content: []provider.AssistantPart{
				provider.ReasoningPart{Text: "Earlier thought.", ProviderOptions: provider.ProviderOptions{"bedrock": {"signature": "sig-0"}}},
				provider.TextPart{Text: "Checking Paris."},
				provider.ToolCallPart{ToolCallID: "tooluse_1", ToolName: "weather", Input: json.RawMessage(`{"city":"Paris"}`)},
			}},
			provider.ToolMessage{Content: []provider.ToolPart{provider.ToolResultPart{ToolCallID: "tooluse_1", ToolName: "weather",
				Output: provider.JSONOutput{Value: json.RawMessage(`{"temp":21,"sky":"clear"}`)}}}},
			provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "And Lyon?"}},
				ProviderOptions: provider.ProviderOptions{"amazonBedrock": {"cachePoint": map[string]any{"type": "default"}}}},
		},
		Tools: []provider.Tool{weather}, ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto},
		Temperature: new(0.5), MaxOutputTokens: new(500), StopSequences: []string{"END"},
		ProviderOptions: provider.ProviderOptions{"bedrock": {
			"reasoningConfig": map[string]any{"type": "enabled", "budgetTokens": 2048},
			"guardrailConfig": map[string]any{"guardrailIdentifier": "g1", "guardrailVersion": "1"},
		}},
	}},
	"stream-nova-text": {model: "amazon.nova-pro-v1:0", stream: true, opts: &provider.CallOptions{
		Prompt: []provider.Message{user("Say hello.")}, TopK: new(20), TopP: new(0.9), Reasoning: provider.ReasoningMedium, FrequencyPenalty: new(0.5),
	}},
	"stream-claude-reasoning-tool": {model: claude, stream: true, opts: &provider.CallOptions{
		Prompt: []provider.Message{user("Weather in Oslo?")}, Tools: []provider.Tool{weather},
		ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceRequired}, Reasoning: provider.ReasoningMedium, MaxOutputTokens: new(1000),
		ProviderOptions: provider.ProviderOptions{"anthropic": {"disableParallelToolUse": true}},
	}},
	"generate-json-tool": {model: "anthropic.claude-3-5-haiku-20241022-v1:0", opts: &provider.CallOptions{
		Prompt: []provider.Message{user("Answer as JSON.")},
		ResponseFormat: &provider.ResponseFormat{Type: "json",
			Schema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"number"}},"required":["answer"],"additionalProperties":false}`)},
	}},
	"generate-mistral-oss": {model: "mistral.mistral-large-2407-v1:0", opts: &provider.CallOptions{
		Prompt: []provider.Message{
			user("Use the tool."),
			provider.AssistantMessage{Content: []provider.AssistantPart{provider.ToolCallPart{ToolCallID: "call_abc123xyz", ToolName: "weather", Input: json.RawMessage(`{"city":"Rome"}`)}}},
			provider.ToolMessage{Content: []provider.ToolPart{provider.ToolResultPart{ToolCallID: "call_abc123xyz", ToolName: "weather", Output: provider.TextOutput{Value: "sunny"}}}},
		},
		Tools: []provider.Tool{weather}, ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "weather"},
		Temperature: new(1.5), Seed: new(3),
	}},
	"generate-gpt-oss": {model: "openai.gpt-oss-120b-1:0", opts: &provider.CallOptions{
		Prompt: []provider.Message{user("Think.")}, Reasoning: provider.ReasoningHigh, Temperature: new(0.7),
		StopSequences: []string{"x"}, MaxOutputTokens: new(64),
		ProviderOptions: provider.ProviderOptions{"amazonBedrock": {"serviceTier": "flex"}},
	}},
	"generate-claude-native-output": {model: claude, opts: &provider.CallOptions{
		Prompt: []provider.Message{user("Describe Ada.")}, ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: answerSchema},
	}},
	"stream-claude-json-instruction": {model: "us.anthropic.claude-opus-4-7", stream: true, opts: &provider.CallOptions{
		Prompt:         []provider.Message{provider.SystemMessage{Content: "Be precise."}, user("Describe Ada.")},
		ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: answerSchema},
		Tools:          []provider.Tool{weather}, ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto},
	}},
	"generate-error":   {model: claude, opts: &provider.CallOptions{Prompt: []provider.Message{user("x")}}},
	"stream-throttled": {model: claude, stream: true, opts: &provider.CallOptions{Prompt: []provider.Message{user("x")}}},
}

// TestBedrockRequestBodies sends the recorded calls through the Go
// provider: URL, authentication and body must match what the TypeScript
// package sent, and the recorded answers (JSON bodies, and event streams
// encoded by the AWS SDK's codec) must come out as they did there.
func TestBedrockRequestBodies(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	var cases []tsCase
	require.NoError(t, json.Unmarshal(replay.Read(t, "testdata/ts-requests.json"), &cases))
	require.Len(t, cases, len(calls))
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			call, ok := calls[c.Name]
			require.True(t, ok)
			h := http.Header{"X-Amzn-Requestid": {"req-" + c.Name}, "Date": {"Fri, 04 Dec 2026 10:00:00 GMT"}}
			var resp replay.Response
			if c.Stream != "" {
				body, err := base64.StdEncoding.DecodeString(c.Stream)
				require.NoError(t, err)
				h.Set("Content-Type", "application/vnd.amazon.eventstream")
				resp = replay.Response{Status: 200, Header: h, Body: body}
			} else {
				h.Set("Content-Type", "application/json")
				resp = replay.Response{Status: c.Status, Header: h, Body: c.Response}
			}
			srv := replay.NewServer(t, resp)
			rt := &redirect{srv: srv}
			opts := []bedrock.Option{bedrock.WithRegion("us-east-1"), bedrock.WithHTTPClient(&http.Client{Transport: rt})}
			if c.Settings.APIKey != "" {
				opts = append(opts, bedrock.WithAPIKey(c.Settings.APIKey))
			} else {
				opts = append(opts, bedrock.WithCredentials(credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secretexample", "")))
			}
			model := bedrock.New(opts...).Model(call.model)
			ctx := context.Background()

			var got map[string]any
			if call.stream {
				res, err := model.Stream(ctx, call.opts)
				if err != nil {
					got = errorResult(err)
					// An exception before any output fails the call, so
					// that it can be retried; TypeScript streams it as an
					// error part after the stream's start.
					var want struct {
						Parts []map[string]any `json:"parts"`
					}
					require.NoError(t, json.Unmarshal(c.Result, &want))
					require.GreaterOrEqual(t, len(want.Parts), 3)
					errPart := want.Parts[2]
					assert.Equal(t, "error", errPart["type"])
					assert.Equal(t, errPart["message"], got["error"])
					assert.Equal(t, errPart["statusCode"], got["statusCode"])
					assert.Equal(t, errPart["isRetryable"], got["isRetryable"])
				} else {
					got = map[string]any{"parts": streamParts(replay.Collect(t, res))}
					assert.JSONEq(t, string(c.Result), mustJSON(t, got))
				}
			} else {
				res, err := model.Generate(ctx, call.opts)
				if err != nil {
					got = errorResult(err)
				} else {
					got = generateResult(res)
				}
				assert.JSONEq(t, string(c.Result), mustJSON(t, got))
			}

			require.Len(t, rt.urls, 1)
			assert.Equal(t, c.Request.URL, rt.urls[0], "URL")
			req := srv.Last(t)
			assert.Equal(t, c.Request.Headers["content-type"], req.Header.Get("Content-Type"))
			if c.Settings.APIKey != "" {
				assert.Equal(t, c.Request.Headers["authorization"], req.Header.Get("Authorization"))
			} else {
				assert.True(t, strings.HasPrefix(req.Header.Get("Authorization"), c.Request.Headers["authorization"]+" Credential=AKIDEXAMPLE/"),
					"authorization %q", req.Header.Get("Authorization"))
				assert.NotEmpty(t, req.Header.Get("X-Amz-Date"))
			}
			assert.JSONEq(t, string(c.Request.Body), string(req.Body), "request body")
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func errorResult(err error) map[string]any {
	var api *provider.APICallError
	if !errors.As(err, &api) {
		return map[string]any{"error": err.Error()}
	}
	return map[string]any{"error": api.Message, "statusCode": float64(api.StatusCode), "isRetryable": api.Retryable}
}

func usageJSON(u provider.Usage) map[string]any {
	m := map[string]any{"inputTokens": u.InputTokens, "outputTokens": u.OutputTokens}
	if u.Raw != nil {
		m["raw"] = u.Raw
	}
	return m
}

func finishJSON(f provider.FinishReason) map[string]any {
	m := map[string]any{"unified": f.Unified}
	if f.Raw != "" {
		m["raw"] = f.Raw
	}
	return m
}

func withMetadata(m map[string]any, md provider.ProviderMetadata) map[string]any {
	if md != nil {
		m["providerMetadata"] = md
	}
	return m
}

// generateResult renders a result as the recording summarised TypeScript's.
func generateResult(r *provider.GenerateResult) map[string]any {
	content := []any{}
	for _, c := range r.Content {
		switch c := c.(type) {
		case provider.Text:
			content = append(content, withMetadata(map[string]any{"type": "text", "text": c.Text}, c.ProviderMetadata))
		case provider.Reasoning:
			content = append(content, withMetadata(map[string]any{"type": "reasoning", "text": c.Text}, c.ProviderMetadata))
		case provider.ToolCall:
			content = append(content, withMetadata(map[string]any{"type": "tool-call", "toolCallId": c.ToolCallID, "toolName": c.ToolName, "input": c.Input}, c.ProviderMetadata))
		}
	}
	warnings := []provider.Warning{}
	warnings = append(warnings, r.Warnings...)
	out := map[string]any{"content": content, "finishReason": finishJSON(r.FinishReason), "usage": usageJSON(r.Usage),
		"warnings": warnings, "responseId": r.Response.ID}
	return withMetadata(out, r.ProviderMetadata)
}

// streamParts renders stream parts as the recording summarised
// TypeScript's.
func streamParts(parts []provider.StreamPart) []any {
	out := []any{}
	for _, p := range parts {
		switch p := p.(type) {
		case provider.StreamStart:
			w := []provider.Warning{}
			out = append(out, map[string]any{"type": "stream-start", "warnings": append(w, p.Warnings...)})
		case provider.ResponseMetadata:
			out = append(out, map[string]any{"type": "response-metadata", "id": p.ID, "timestamp": p.Timestamp.Format("2006-01-02T15:04:05.000Z"), "modelId": p.ModelID})
		case provider.TextStart:
			out = append(out, withMetadata(map[string]any{"type": "text-start", "id": p.ID}, p.ProviderMetadata))
		case provider.TextDelta:
			out = append(out, withMetadata(map[string]any{"type": "text-delta", "id": p.ID, "delta": p.Delta}, p.ProviderMetadata))
		case provider.TextEnd:
			out = append(out, withMetadata(map[string]any{"type": "text-end", "id": p.ID}, p.ProviderMetadata))
		case provider.ReasoningStart:
			out = append(out, withMetadata(map[string]any{"type": "reasoning-start", "id": p.ID}, p.ProviderMetadata))
		case provider.ReasoningDelta:
			out = append(out, withMetadata(map[string]any{"type": "reasoning-delta", "id": p.ID, "delta": p.Delta}, p.ProviderMetadata))
		case provider.ReasoningEnd:
			out = append(out, withMetadata(map[string]any{"type": "reasoning-end", "id": p.ID}, p.ProviderMetadata))
		case provider.ToolInputStart:
			out = append(out, map[string]any{"type": "tool-input-start", "id": p.ID, "toolName": p.ToolName})
		case provider.ToolInputDelta:
			out = append(out, map[string]any{"type": "tool-input-delta", "id": p.ID, "delta": p.Delta})
		case provider.ToolInputEnd:
			out = append(out, map[string]any{"type": "tool-input-end", "id": p.ID})
		case provider.ToolCall:
			out = append(out, map[string]any{"type": "tool-call", "toolCallId": p.ToolCallID, "toolName": p.ToolName, "input": p.Input})
		case provider.Finish:
			out = append(out, withMetadata(map[string]any{"type": "finish", "finishReason": finishJSON(p.FinishReason), "usage": usageJSON(p.Usage)}, p.ProviderMetadata))
		default:
			out = append(out, map[string]any{"type": p.PartType()})
		}
	}
	return out
}
