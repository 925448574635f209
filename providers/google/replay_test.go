package google

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

// replayExpected holds, for every recorded response, what @ai-sdk/google
// 4.0.121 made of it: the content, finish reason, usage and metadata of a
// generateContent answer, or the parts of a stream.
type replayExpected struct {
	Content          json.RawMessage `json:"content"`
	FinishReason     json.RawMessage `json:"finishReason"`
	Usage            json.RawMessage `json:"usage"`
	ProviderMetadata json.RawMessage `json:"providerMetadata"`
	Response         struct {
		ID string `json:"id"`
	} `json:"response"`
	Parts []json.RawMessage `json:"parts"`
}

func loadReplay(t *testing.T) map[string]replayExpected {
	t.Helper()
	var m map[string]replayExpected
	require.NoError(t, json.Unmarshal([]byte(readFixture(t, "replay-expected.json")), &m))
	return m
}

// replayOptions are the call options every replay uses.
func replayOptions() *provider.CallOptions {
	return &provider.CallOptions{
		Prompt: userPrompt("Hi"),
		Tools:  []provider.Tool{&provider.FunctionTool{Name: "weather", InputSchema: json.RawMessage(`{"type":"object"}`)}},
	}
}

func replayProvider(f *fakeAPI, name string) *Provider {
	if strings.Contains(name, "vertex") {
		return testProvider(f, WithVertex("", ""), WithBaseURL(f.URL+"/v"))
	}
	return testProvider(f)
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestReplayFixtures runs every recorded response through Generate or
// Stream and compares the result with the TypeScript SDK's.
func TestReplayFixtures(t *testing.T) {
	expected := loadReplay(t)
	files, err := filepath.Glob("testdata/google-*")
	require.NoError(t, err)
	replayed := 0
	for _, file := range files {
		name := filepath.Base(file)
		if strings.Contains(name, "429") || strings.Contains(name, "embedding") {
			continue // errors and embeddings have their own tests
		}
		want, ok := expected[name]
		require.True(t, ok, "no expectation for %s", name)
		replayed++
		t.Run(name, func(t *testing.T) {
			if strings.HasSuffix(name, ".chunks.txt") {
				f := newFakeAPI(t, reply{body: sseBody(t, name), sse: true})
				res, err := replayProvider(f, name).Model("gemini-3-pro-preview").Stream(context.Background(), replayOptions())
				require.NoError(t, err)
				parts, err := collect(t, res)
				require.NoError(t, err)
				require.Len(t, parts, len(want.Parts), "parts")
				for i, p := range parts {
					got := marshal(t, p)
					if rm, ok := p.(provider.ResponseMetadata); ok {
						// The model version is reported as well.
						assert.NotEmpty(t, rm.ModelID)
						rm.ModelID = ""
						got = marshal(t, rm)
					}
					assert.JSONEq(t, string(want.Parts[i]), got, "part %d", i)
				}
				return
			}
			f := newFakeAPI(t, reply{body: readFixture(t, name)})
			res, err := replayProvider(f, name).Model("gemini-3-pro-preview").Generate(context.Background(), replayOptions())
			require.NoError(t, err)
			assert.JSONEq(t, string(want.Content), marshal(t, res.Content), "content")
			assert.JSONEq(t, string(want.FinishReason), marshal(t, res.FinishReason), "finish reason")
			assert.JSONEq(t, string(want.Usage), marshal(t, res.Usage), "usage")
			assert.JSONEq(t, string(want.ProviderMetadata), marshal(t, res.ProviderMetadata), "provider metadata")
			assert.Equal(t, want.Response.ID, res.Response.ID)
			assert.NotEmpty(t, res.Response.ModelID)
			assert.JSONEq(t, readFixture(t, name), string(res.Response.Body))
		})
	}
	assert.Equal(t, len(expected), replayed, "every expectation was replayed")
}

// The replays above compare with the TypeScript SDK; these tests spell out
// what matters in a few of them.

func TestReplayTextGenerate(t *testing.T) {
	f := newFakeAPI(t, reply{body: readFixture(t, "google-text.json")})
	res, err := testProvider(f).Model("gemini-3-pro-preview").Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("Hi")})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	text := res.Content[0].(provider.Text)
	assert.Equal(t, "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.", text.Text)
	assert.NotEmpty(t, text.ProviderMetadata["google"]["thoughtSignature"])
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "STOP"}, res.FinishReason)
	assert.Equal(t, 9, *res.Usage.InputTokens.Total)
	assert.Equal(t, 28, *res.Usage.OutputTokens.Text)
	assert.Equal(t, 244, *res.Usage.OutputTokens.Reasoning, "thoughtsTokenCount")
	assert.Equal(t, 272, *res.Usage.OutputTokens.Total)
	assert.Equal(t, "Un6LacrVMcjUxs0PmJfWoQc", res.Response.ID)
	assert.Equal(t, "gemini-3-pro-preview", res.Response.ModelID)
}

func TestReplayToolCallStream(t *testing.T) {
	f := newFakeAPI(t, reply{body: sseBody(t, "google-tool-call.chunks.txt"), sse: true})
	res, err := testProvider(f).Model("gemini-3-pro-preview").Stream(context.Background(), replayOptions())
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.NoError(t, err)
	var call provider.ToolCall
	var finish provider.Finish
	for _, p := range parts {
		switch p := p.(type) {
		case provider.ToolCall:
			call = p
		case provider.Finish:
			finish = p
		}
	}
	assert.Equal(t, "weather", call.ToolName)
	assert.JSONEq(t, `{"location":"San Francisco"}`, call.Input)
	assert.NotEmpty(t, call.ProviderMetadata["google"]["thoughtSignature"], "the signature comes with the call")
	assert.Equal(t, provider.FinishToolCalls, finish.FinishReason.Unified)
	assert.Equal(t, 45, *finish.Usage.OutputTokens.Reasoning)
}

func TestReplayStreamedArguments(t *testing.T) {
	f := newFakeAPI(t, reply{body: sseBody(t, "google-vertex-stream-tool-call-arguments-nested.1.chunks.txt"), sse: true})
	res, err := testProvider(f, WithVertex("", ""), WithBaseURL(f.URL+"/v")).Model("gemini-3.1-pro-preview").Stream(context.Background(), replayOptions())
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.NoError(t, err)
	deltas := ""
	var call provider.ToolCall
	for _, p := range parts {
		switch p := p.(type) {
		case provider.ToolInputDelta:
			deltas += p.Delta
		case provider.ToolCall:
			call = p
		}
	}
	assert.Equal(t, call.Input, deltas, "the deltas add up to the input")
	var in struct {
		Recipe struct {
			Name        string `json:"name"`
			Ingredients []struct{ Name, Amount string }
			Steps       []string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(call.Input), &in))
	assert.Equal(t, "Lasagna", in.Recipe.Name)
	assert.Len(t, in.Recipe.Steps, 10)
	assert.Equal(t, "Cook lasagna noodles according to package directions, drain and set aside.", in.Recipe.Steps[1], "string pieces are joined")
	assert.NotEmpty(t, call.ProviderMetadata["vertex"]["thoughtSignature"])
}

func TestReplayCallWithoutTerminalChunk(t *testing.T) {
	// The last piece of the arguments does not continue: the call is
	// complete without the empty terminal chunk.
	name := "google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt"
	f := newFakeAPI(t, reply{body: sseBody(t, name), sse: true})
	res, err := testProvider(f).Model("gemini-3-flash-preview").Stream(context.Background(), replayOptions())
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.NoError(t, err)
	var calls []provider.ToolCall
	for _, p := range parts {
		if c, ok := p.(provider.ToolCall); ok {
			calls = append(calls, c)
		}
	}
	require.Len(t, calls, 1)
	assert.JSONEq(t, `{"operations":[
		{"action":"add","description":"Fresh red apple","itemid":"apple_001","price":0.5},
		{"action":"add","description":"Ripe yellow banana","itemid":"banana_001","price":0.3}]}`, calls[0].Input)
}

func TestStreamCutDuringStreamedArguments(t *testing.T) {
	// The stream ends while a call's arguments are still arriving: the
	// call is not reported, and the stream finishes as interrupted.
	lines := chunkLines(t, "google-stream-tool-call-arguments.chunks.txt")
	f := newFakeAPI(t, reply{body: sseOf(lines[:2]...), sse: true})
	res, err := testProvider(f).Model("gemini-3-pro-preview").Stream(context.Background(), replayOptions())
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.NoError(t, err)
	var types []string
	for _, p := range parts {
		types = append(types, p.PartType())
	}
	assert.Equal(t, []string{"stream-start", "response-metadata", "tool-input-start", "tool-input-delta", "finish"}, types)
	assert.Equal(t, provider.FinishInterrupted, parts[len(parts)-1].(provider.Finish).FinishReason.Unified)
}

// TestContinuedAnswer replays an answer that reached the per-request cap
// (CONTINUATION) and was finished by a second request, and compares the
// result and the requests with the TypeScript SDK's.
func TestContinuedAnswer(t *testing.T) {
	var rec struct {
		Generate struct {
			Content, FinishReason, Usage, ProviderMetadata json.RawMessage
		} `json:"generate"`
		Stream    []json.RawMessage `json:"stream"`
		Responses []json.RawMessage `json:"responses"`
		Requests  []json.RawMessage `json:"requests"`
	}
	require.NoError(t, json.Unmarshal([]byte(readFixture(t, "continuation-expected.json")), &rec))
	opts := func() *provider.CallOptions {
		return &provider.CallOptions{Prompt: userPrompt("Write a long story."), MaxOutputTokens: new(100000)}
	}

	f := newFakeAPI(t, reply{body: string(rec.Responses[0])}, reply{body: string(rec.Responses[1])})
	res, err := testProvider(f).Model("gemini-4-argon").Generate(context.Background(), opts())
	require.NoError(t, err)
	assert.JSONEq(t, string(rec.Generate.Content), marshal(t, res.Content))
	assert.JSONEq(t, string(rec.Generate.FinishReason), marshal(t, res.FinishReason))
	assert.JSONEq(t, string(rec.Generate.Usage), marshal(t, res.Usage))
	assert.JSONEq(t, string(rec.Generate.ProviderMetadata), marshal(t, res.ProviderMetadata))
	for i, want := range rec.Requests {
		assert.JSONEq(t, string(want), string(f.request(t, i).body), "request %d", i+1)
	}

	f = newFakeAPI(t, reply{body: sseOf(string(rec.Responses[0])), sse: true}, reply{body: sseOf(string(rec.Responses[1])), sse: true})
	stream, err := testProvider(f).Model("gemini-4-argon").Stream(context.Background(), opts())
	require.NoError(t, err)
	parts, err := collect(t, stream)
	require.NoError(t, err)
	require.Len(t, parts, len(rec.Stream))
	for i, p := range parts {
		if rm, ok := p.(provider.ResponseMetadata); ok {
			rm.ModelID = ""
			p = rm
		}
		assert.JSONEq(t, string(rec.Stream[i]), marshal(t, p), "part %d", i)
	}
	for i, want := range rec.Requests {
		assert.JSONEq(t, string(want), string(f.request(t, i).body), "stream request %d", i+1)
	}
}

func TestContinuationFails(t *testing.T) {
	hop := `{"candidates":[{"content":{"parts":[{"text":"Part one."}]},"finishReason":"CONTINUATION","continuationToken":"tok-1"}]}`
	f := newFakeAPI(t, reply{body: sseOf(hop), sse: true}, reply{status: 503, body: `{"error":{"code":503,"message":"Overloaded.","status":"UNAVAILABLE"}}`})
	stream, err := testProvider(f).Model("gemini-4-argon").Stream(context.Background(), &provider.CallOptions{Prompt: userPrompt("Go on.")})
	require.NoError(t, err)
	parts, err := collect(t, stream)
	require.NoError(t, err)
	var errs []error
	for _, p := range parts {
		if e, ok := p.(provider.ErrorPart); ok {
			errs = append(errs, e.Err)
		}
	}
	require.Len(t, errs, 1)
	var apiErr *provider.APICallError
	require.ErrorAs(t, errs[0], &apiErr)
	assert.Equal(t, 503, apiErr.StatusCode)
	fin := finishOf(t, parts)
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishLength, Raw: "CONTINUATION"}, fin.FinishReason)
	assert.Equal(t, "tok-1", fin.ProviderMetadata["google"]["continuationToken"], "the caller can resume")

	f = newFakeAPI(t, reply{body: hop}, reply{status: 400, body: `{"error":{"code":400,"message":"Bad token.","status":"INVALID_ARGUMENT"}}`})
	_, err = testProvider(f).Model("gemini-4-argon").Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("Go on.")})
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 400, apiErr.StatusCode)
}
