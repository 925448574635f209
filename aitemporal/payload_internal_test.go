package aitemporal

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai/provider"
)

func ptr[T any](v T) *T { return &v }

// A model call's options survive the trip to the activity.
func TestGenerateInputRoundTrip(t *testing.T) {
	opts := &provider.CallOptions{
		Prompt: []provider.Message{
			provider.SystemMessage{Content: "Be brief."},
			provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "hi"}, provider.FilePart{Data: provider.FileURL{URL: "https://example.com/a.png"}, MediaType: "image/png"}}},
			provider.AssistantMessage{Content: []provider.AssistantPart{
				provider.ReasoningPart{Text: "hm"},
				provider.ToolCallPart{ToolCallID: "c1", ToolName: "w", Input: json.RawMessage(`{"city":"Oslo"}`)},
			}},
			provider.ToolMessage{Content: []provider.ToolPart{provider.ToolResultPart{ToolCallID: "c1", ToolName: "w", Output: provider.JSONOutput{Value: json.RawMessage(`{"temp":21}`)}}}},
		},
		MaxOutputTokens: ptr(100), Temperature: ptr(0.0), TopP: ptr(0.9), TopK: ptr(3), PresencePenalty: ptr(0.1),
		FrequencyPenalty: ptr(0.2), Seed: ptr(7), StopSequences: []string{"END"},
		ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: json.RawMessage(`{"type":"object"}`)},
		Tools: []provider.Tool{
			&provider.FunctionTool{Name: "w", Description: "Weather.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			&provider.ProviderTool{ID: "openai.web_search", Name: "web", Args: map[string]any{"size": "low"}},
		},
		ToolChoice:      provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "w"},
		Headers:         provider.Header{"X-Test": {"1"}},
		Reasoning:       provider.ReasoningLow,
		ProviderOptions: provider.ProviderOptions{"openai": {"store": false}},
	}
	data, err := json.Marshal(generateInput{Model: "m", Options: opts})
	require.NoError(t, err)
	var got generateInput
	require.NoError(t, json.Unmarshal(data, &got))
	assert.Equal(t, "m", got.Model)
	assert.Equal(t, opts, got.Options)
}

// A model call's result survives the trip back, without the HTTP bodies.
func TestGenerateOutputRoundTrip(t *testing.T) {
	res := &provider.GenerateResult{
		Content: []provider.Content{
			provider.Text{Text: "hi"},
			provider.ToolCall{ToolCallID: "c1", ToolName: "w", Input: `{"city":"Oslo"}`},
		},
		FinishReason:     provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_use"},
		Usage:            provider.Usage{InputTokens: provider.InputTokens{Total: ptr(10)}, OutputTokens: provider.OutputTokens{Total: ptr(5)}},
		Warnings:         []provider.Warning{{Type: "unsupported", Feature: "topK"}},
		ProviderMetadata: provider.ProviderMetadata{"p": {"k": "v"}},
		Request:          &provider.RequestInfo{URL: "https://api.example.com", Body: json.RawMessage(`{"big":true}`)},
		Response:         &provider.ResponseInfo{ID: "r1", Timestamp: time.Unix(100, 0).UTC(), ModelID: "m1", Body: json.RawMessage(`{"big":true}`)},
	}
	data, err := json.Marshal(generateOutput{Result: res})
	require.NoError(t, err)
	var got generateOutput
	require.NoError(t, json.Unmarshal(data, &got))
	want := *res
	want.Request = &provider.RequestInfo{URL: "https://api.example.com"}
	want.Response = &provider.ResponseInfo{ID: "r1", Timestamp: time.Unix(100, 0).UTC(), ModelID: "m1"}
	assert.Equal(t, &want, got.Result)
}

// A tool whose last attempt lost its heartbeat is reported as a lost
// worker, not as a tool that took too long.
func TestToolFailureOfALostWorker(t *testing.T) {
	ao := workflow.ActivityOptions{StartToCloseTimeout: time.Minute, HeartbeatTimeout: DefaultHeartbeatTimeout}
	err := toolFailure("b", ao, temporal.NewTimeoutError(enums.TIMEOUT_TYPE_HEARTBEAT, nil))
	var tf *ToolFailure
	if !errors.As(err, &tf) || tf.Type != WorkerLost || !strings.Contains(tf.Message, "worker running it was lost") {
		t.Fatalf("got %#v", err)
	}
	err = toolFailure("b", ao, temporal.NewTimeoutError(enums.TIMEOUT_TYPE_START_TO_CLOSE, nil))
	if !errors.As(err, &tf) || tf.Type != "TimeoutError" || !strings.Contains(tf.Message, "1m0s") {
		t.Fatalf("a tool that ran too long: got %#v", err)
	}
}
