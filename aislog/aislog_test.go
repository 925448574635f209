package aislog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aislog"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

type cityIn struct {
	City string `json:"city"`
}

func records(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		delete(m, "time")
		delete(m, "duration")
		delete(m, "first_chunk")
		out = append(out, m)
	}
	return out
}

func TestObserver(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	busy := &provider.APICallError{Message: "busy", StatusCode: 503, Retryable: true, ResponseHeaders: provider.Header{"Retry-After-Ms": {"1"}}}
	model := &aitest.Model{Respond: func(_ context.Context, call int, _ *provider.CallOptions) (aitest.Response, error) {
		switch call {
		case 0:
			return aitest.Response{Err: busy}, nil
		case 1:
			return aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "lookup", `{"city":"Oslo"}`)}, FinishReason: aitest.ToolCalls,
				Usage: provider.Usage{InputTokens: provider.InputTokens{Total: new(3)}, OutputTokens: provider.OutputTokens{Total: new(2)}}}, nil
		}
		return aitest.Response{Content: []provider.Content{aitest.Text("Sorry.")}}, nil
	}}
	lookup := ai.NewTool(ai.ToolDef[cityIn, string]{
		Description: "Look up a city.",
		Execute: func(context.Context, cityIn, ai.ToolExecutionOptions) (string, error) {
			return "", errors.New("database down")
		},
	})
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "Oslo?", StopWhen: ai.StepCountIs(3), Tools: ai.Tools{{Name: "lookup", Tool: lookup}},
		Observer: aislog.NewObserver(logger, &aislog.Options{Level: slog.LevelDebug}),
	})
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{
		{"level": "WARN", "msg": "ai model call retry", "attempt": 1.0, "delay": 1e6, "error": busy.Error()},
		{"level": "DEBUG", "msg": "ai model call", "step": 0.0, "model": "aitest/scripted", "stream": false, "finish": "tool-calls"},
		{"level": "ERROR", "msg": "ai tool call", "step": 0.0, "tool": "lookup", "call_id": "c1", "error": "database down"},
		{"level": "DEBUG", "msg": "ai step", "step": 0.0, "tools": []any{"lookup"}, "finish": "tool-calls", "tokens": map[string]any{"input": 3.0, "output": 2.0}},
		{"level": "DEBUG", "msg": "ai model call", "step": 1.0, "model": "aitest/scripted", "stream": false, "finish": "stop"},
		{"level": "DEBUG", "msg": "ai step", "step": 1.0, "tools": []any{"lookup"}, "finish": "stop"},
		{"level": "DEBUG", "msg": "ai generation", "model": "aitest/scripted", "stream": false, "steps": 2.0, "finish": "stop", "tokens": map[string]any{"input": 3.0, "output": 2.0}},
	}, records(t, &buf))
	assert.NotContains(t, buf.String(), "Oslo", "no prompts or tool inputs")
}

func TestObserverStreamFailure(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	model := aitest.NewModel(aitest.Response{Err: &provider.APICallError{Message: "bad key", StatusCode: 401}})
	res, err := ai.StreamText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "hi", Observer: aislog.NewObserver(logger, nil)})
	require.NoError(t, err)
	_, err = res.Wait()
	require.Error(t, err)
	recs := records(t, &buf)
	require.Len(t, recs, 3)
	for _, r := range recs {
		assert.Equal(t, "ERROR", r["level"], r["msg"])
	}
	assert.Contains(t, recs[0]["error"], "bad key", "the model call")
	assert.Contains(t, recs[1]["error"], "bad key", "the step")
	assert.Equal(t, "ai generation", recs[2]["msg"])
}

func ExampleNewObserver() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == "time" || a.Key == "duration" {
				return slog.Attr{}
			}
			return a
		},
	}))
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Hello!")}})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "Say hello.", Observer: aislog.NewObserver(logger, nil),
	})
	if err != nil {
		panic(err)
	}
	_ = res
	// Output:
	// level=INFO msg="ai model call" step=0 model=aitest/scripted stream=false finish=stop
	// level=INFO msg="ai step" step=0 tools=[] finish=stop
	// level=INFO msg="ai generation" model=aitest/scripted stream=false steps=1 finish=stop
}

func TestObserverSearch(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	forecast := ai.NewTool(ai.ToolDef[cityIn, string]{
		Description:  "Weather forecast for a city.",
		DeferLoading: true,
		Execute:      func(context.Context, cityIn, ai.ToolExecutionOptions) (string, error) { return "rain", nil },
	})
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "search", `{"query":"forecast Oslo"}`)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c2", "forecast", `{"city":"Oslo"}`)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text("Rain.")}},
	)
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "Oslo?", StopWhen: ai.StepCountIs(3),
		Tools:    ai.Tools{{Name: "search", Tool: ai.ToolSearch()}, {Name: "forecast", Tool: forecast}},
		Observer: aislog.NewObserver(logger, nil),
	})
	require.NoError(t, err)
	recs := records(t, &buf)
	var search, gen map[string]any
	for _, r := range recs {
		switch r["msg"] {
		case "ai tool search":
			search = r
		case "ai generation":
			gen = r
		}
	}
	assert.Equal(t, map[string]any{"level": "INFO", "msg": "ai tool search", "step": 0.0, "call_id": "c1", "results": []any{"forecast"}}, search)
	assert.Equal(t, map[string]any{"searches": 1.0, "no_result": 0.0, "failed": 0.0, "found_and_called": 1.0, "called_not_found": 0.0}, gen["tool_search"])
	assert.NotContains(t, buf.String(), "Oslo", "no queries unless asked")

	buf.Reset()
	model = aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "search", `{"query":"forecast Oslo"}`)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text("Rain.")}},
	)
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "?", StopWhen: ai.StepCountIs(3),
		Tools:    ai.Tools{{Name: "search", Tool: ai.ToolSearch()}, {Name: "forecast", Tool: forecast}},
		Observer: aislog.NewObserver(logger, &aislog.Options{LogQueries: true}),
	})
	require.NoError(t, err)
	assert.Contains(t, buf.String(), `"query":"forecast Oslo"`)
}

// Every record of a generation carries its function id and metadata.
func TestObserverTelemetrySettings(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	busy := &provider.APICallError{Message: "busy", StatusCode: 503, Retryable: true, ResponseHeaders: provider.Header{"Retry-After-Ms": {"1"}}}
	model := &aitest.Model{Respond: func(_ context.Context, call int, _ *provider.CallOptions) (aitest.Response, error) {
		switch call {
		case 0:
			return aitest.Response{Err: busy}, nil
		case 1:
			return aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "lookup", `{"city":"Oslo"}`)}, FinishReason: aitest.ToolCalls}, nil
		}
		return aitest.Response{Content: []provider.Content{aitest.Text("Sunny.")}}, nil
	}}
	lookup := ai.NewTool(ai.ToolDef[cityIn, string]{
		Description: "Look up a city.",
		Execute:     func(context.Context, cityIn, ai.ToolExecutionOptions) (string, error) { return "sunny", nil },
	})
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "Oslo?", StopWhen: ai.StepCountIs(3), Tools: ai.Tools{{Name: "lookup", Tool: lookup}},
		Telemetry: ai.TelemetrySettings{FunctionID: "city-weather", Metadata: map[string]any{"user": "u-7", "tries": 2}},
		Observer:  aislog.NewObserver(logger, nil),
	})
	require.NoError(t, err)
	recs := records(t, &buf)
	require.Len(t, recs, 7, "a retry, two model calls, a tool call, two steps and the generation")
	for _, r := range recs {
		assert.Equal(t, "city-weather", r["function_id"], r["msg"])
		assert.Equal(t, map[string]any{"user": "u-7", "tries": 2.0}, r["metadata"], r["msg"])
	}

	buf.Reset()
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Hi")}}), Prompt: "Hi",
		Observer: aislog.NewObserver(logger, nil),
	})
	require.NoError(t, err)
	assert.NotContains(t, buf.String(), "function_id", "no settings, no attributes")
	assert.NotContains(t, buf.String(), "metadata")
}

// A wait that a model call reports (a rate limiter's) is a record of its
// own, with the reason, the time waited and the tokens.
func TestObserverModelCallWait(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	model := &aitest.Model{Respond: func(ctx context.Context, _ int, _ *provider.CallOptions) (aitest.Response, error) {
		ai.ReportWait(ctx, ai.WaitInfo{Reason: "requests", Duration: 1500 * time.Millisecond, Tokens: 80})
		return aitest.Response{Content: []provider.Content{aitest.Text("Hi")}}, nil
	}}
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "Hi", Telemetry: ai.TelemetrySettings{FunctionID: "greet"},
		Observer: ai.MultiObserver(aislog.NewObserver(logger, nil)),
	})
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 4, "the wait, the model call, the step and the generation")
	var wait map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &wait))
	delete(wait, "time")
	assert.Equal(t, map[string]any{"level": "INFO", "msg": "ai model call wait", "step": 0.0, "reason": "requests",
		"duration": 1.5e9, "tokens": 80.0, "function_id": "greet"}, wait)
}
