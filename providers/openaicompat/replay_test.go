package openaicompat_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openaicompat"
)

func model(srv *replay.Server, name, id string, opts ...openaicompat.Option) provider.LanguageModel {
	opts = append([]openaicompat.Option{openaicompat.WithBaseURL(srv.URL + "/v1"), openaicompat.WithName(name)}, opts...)
	return openaicompat.New(opts...).Model(id)
}

func prompt(text string) *provider.CallOptions {
	return &provider.CallOptions{Prompt: []provider.Message{provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: text}}}}}
}

func TestXAITextGenerate(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/xai-text.json")))
	res, err := model(srv, "xai", "grok-3-mini").Generate(context.Background(), prompt("Say a single word."))
	require.NoError(t, err)

	require.Len(t, res.Content, 2)
	r := res.Content[0].(provider.Reasoning)
	assert.Contains(t, r.Text, `First, the user said: "Say a single word."`)
	assert.Equal(t, provider.Text{Text: "Grok"}, res.Content[1])
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "stop"}, res.FinishReason)
	assert.Equal(t, 12, *res.Usage.InputTokens.Total)
	assert.Equal(t, 2, *res.Usage.InputTokens.CacheRead)
	assert.Equal(t, 10, *res.Usage.InputTokens.NoCache)
	assert.Nil(t, res.Usage.InputTokens.CacheWrite)
	assert.Equal(t, 2, *res.Usage.OutputTokens.Total)
	assert.Equal(t, 320, *res.Usage.OutputTokens.Reasoning)
	assert.Equal(t, 0, *res.Usage.OutputTokens.Text, "xAI does not count reasoning in completion tokens; text is clamped at 0")
	assert.Equal(t, "edea4703-19aa-6d74-fedb-dc1c213543e0", res.Response.ID)
	assert.Equal(t, "grok-3-mini", res.Response.ModelID)
	assert.Equal(t, int64(1770772090), res.Response.Timestamp.Unix())
	assert.Contains(t, res.ProviderMetadata, "xai")

	req := srv.Last(t)
	assert.Equal(t, "/v1/chat/completions", req.Path)
	assert.Empty(t, req.Header.Get("Authorization"), "no key, no Authorization header")
}

func TestXAITextStream(t *testing.T) {
	srv := replay.NewServer(t, replay.Stream(replay.SSE(replay.Lines(t, "testdata/xai-text.chunks.txt")...)))
	res, err := model(srv, "xai", "grok-3-mini", openaicompat.WithIncludeUsage(true)).Stream(context.Background(), prompt("Say a single word."))
	require.NoError(t, err)
	parts := replay.Collect(t, res)

	assert.Equal(t, []string{"stream-start", "response-metadata", "reasoning-start", "reasoning-delta", "reasoning-end",
		"text-start", "text-delta", "text-end", "finish"}, replay.Types(parts))
	assert.Equal(t, "Grok", replay.Text(parts))
	assert.Contains(t, replay.Reasoning(parts), "First, the user said")
	md := replay.Of[provider.ResponseMetadata](parts)[0]
	assert.Equal(t, "f0f0f217-c24d-1fee-5fe3-28fa1d3c8c94", md.ID)
	assert.Equal(t, "grok-3-mini", md.ModelID)
	fin := replay.Of[provider.Finish](parts)[0]
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "stop"}, fin.FinishReason)
	assert.Equal(t, 12, *fin.Usage.InputTokens.Total)
	assert.Equal(t, 11, *fin.Usage.InputTokens.CacheRead)
	assert.Equal(t, 340, *fin.Usage.OutputTokens.Reasoning)

	body := srv.Last(t).JSON(t)
	assert.Equal(t, true, body["stream"])
	assert.Equal(t, map[string]any{"include_usage": true}, body["stream_options"])
}

func TestXAIToolCall(t *testing.T) {
	t.Run("generate", func(t *testing.T) {
		srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/xai-tool-call.json")))
		res, err := model(srv, "xai", "grok-3-mini").Generate(context.Background(), prompt("weather?"))
		require.NoError(t, err)
		calls := replay.ContentOf[provider.ToolCall](res.Content)
		require.Len(t, calls, 1)
		assert.Equal(t, provider.ToolCall{ToolCallID: "call_46427107", ToolName: "weather", Input: `{"location":"San Francisco"}`}, calls[0])
		assert.Len(t, replay.ContentOf[provider.Reasoning](res.Content), 1)
		assert.Equal(t, provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_calls"}, res.FinishReason)
		assert.Equal(t, 244, *res.Usage.InputTokens.CacheRead)
	})
	t.Run("stream", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Stream(replay.SSE(replay.Lines(t, "testdata/xai-tool-call.chunks.txt")...)))
		res, err := model(srv, "xai", "grok-3-mini").Stream(context.Background(), prompt("weather?"))
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		assert.Equal(t, []string{"stream-start", "response-metadata", "reasoning-start", "reasoning-delta", "reasoning-end",
			"tool-input-start", "tool-input-delta", "tool-input-end", "tool-call", "finish"}, replay.Types(parts))
		calls := replay.Of[provider.ToolCall](parts)
		require.Len(t, calls, 1)
		assert.Equal(t, "call_79382389", calls[0].ToolCallID)
		assert.Equal(t, `{"location":"San Francisco"}`, calls[0].Input)
		fin := replay.Of[provider.Finish](parts)[0]
		assert.Equal(t, provider.FinishToolCalls, fin.FinishReason.Unified)
		assert.Equal(t, 307, *fin.Usage.InputTokens.Total)
	})
}

func TestDeepSeekToolCall(t *testing.T) {
	t.Run("generate", func(t *testing.T) {
		srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/deepseek-tool-call.json")))
		res, err := model(srv, "deepseek", "deepseek-reasoner").Generate(context.Background(), prompt("weather?"))
		require.NoError(t, err)
		require.Len(t, res.Content, 2)
		assert.Contains(t, res.Content[0].(provider.Reasoning).Text, "weather tool available")
		assert.Equal(t, provider.ToolCall{ToolCallID: "call_00_9V0vrf86Pc9aelHCJMZqnJBo", ToolName: "weather", Input: `{"location": "San Francisco"}`}, res.Content[1])
		assert.Equal(t, 339, *res.Usage.InputTokens.Total)
		assert.Equal(t, 320, *res.Usage.InputTokens.CacheRead)
		assert.Equal(t, 19, *res.Usage.InputTokens.NoCache)
		assert.Equal(t, 92, *res.Usage.OutputTokens.Total)
		assert.Equal(t, 48, *res.Usage.OutputTokens.Reasoning)
		assert.Equal(t, 44, *res.Usage.OutputTokens.Text)
	})
	t.Run("stream", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Stream(replay.SSE(replay.Lines(t, "testdata/deepseek-tool-call.chunks.txt")...)))
		res, err := model(srv, "deepseek", "deepseek-reasoner").Stream(context.Background(), prompt("weather?"))
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		calls := replay.Of[provider.ToolCall](parts)
		require.Len(t, calls, 1)
		assert.Equal(t, "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", calls[0].ToolCallID)
		assert.Equal(t, "weather", calls[0].ToolName)
		assert.JSONEq(t, `{"location":"San Francisco"}`, calls[0].Input)
		var joined string
		for _, d := range replay.Of[provider.ToolInputDelta](parts) {
			joined += d.Delta
		}
		assert.Equal(t, calls[0].Input, joined, "the deltas add up to the input")
		assert.Greater(t, len(replay.Of[provider.ToolInputDelta](parts)), 5, "arguments arrive in many fragments")
		// The reasoning block is closed before the tool input starts.
		types := replay.Types(parts)
		assert.Less(t, indexOf(types, "reasoning-end"), indexOf(types, "tool-input-start"))
		fin := replay.Of[provider.Finish](parts)[0]
		assert.Equal(t, provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_calls"}, fin.FinishReason)
		assert.Equal(t, 83, *fin.Usage.OutputTokens.Total)
		assert.Equal(t, 39, *fin.Usage.OutputTokens.Reasoning)
		assert.Equal(t, 44, *fin.Usage.OutputTokens.Text)
	})
}

func indexOf(ss []string, s string) int {
	for i, v := range ss {
		if v == s {
			return i
		}
	}
	return -1
}

func TestMistralThinking(t *testing.T) {
	t.Run("generate", func(t *testing.T) {
		srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/issue-13703-mistral-thinking.json")))
		res, err := model(srv, "mistral", "mistral-small-latest").Generate(context.Background(), prompt("17*23?"))
		require.NoError(t, err)
		require.Len(t, res.Content, 2)
		assert.Contains(t, res.Content[0].(provider.Reasoning).Text, "17 multiplied by 23 equals 391")
		assert.Equal(t, provider.Text{Text: "391"}, res.Content[1])
		assert.Equal(t, provider.FinishStop, res.FinishReason.Unified)
		assert.Equal(t, 94, *res.Usage.OutputTokens.Total)
		assert.Equal(t, 0, *res.Usage.OutputTokens.Reasoning)
	})
	t.Run("stream", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Stream(replay.SSE(replay.Lines(t, "testdata/issue-13703-mistral-thinking.chunks.txt")...)))
		res, err := model(srv, "mistral", "mistral-small-latest").Stream(context.Background(), prompt("17*23?"))
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		assert.Equal(t, "391", replay.Text(parts))
		assert.Contains(t, replay.Reasoning(parts), "Okay, the")
		assert.Equal(t, []string{"stream-start", "response-metadata", "reasoning-start", "reasoning-delta", "reasoning-end",
			"text-start", "text-delta", "text-end", "finish"}, replay.Types(parts))
		fin := replay.Of[provider.Finish](parts)[0]
		assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "stop"}, fin.FinishReason)
		assert.Equal(t, 139, *fin.Usage.OutputTokens.Total, "usage arrives with the finish chunk")
	})
}

func TestToolCallIndexStartingAtOne(t *testing.T) {
	srv := replay.NewServer(t, replay.Stream(replay.Read(t, "testdata/anthropic-fallback-tool-call.sse")))
	res, err := model(srv, "gateway", "claude-haiku-4-5-20251001").Stream(context.Background(), prompt("read a.txt"))
	require.NoError(t, err)
	parts := replay.Collect(t, res)
	assert.Equal(t, "Reading it.", replay.Text(parts))
	calls := replay.Of[provider.ToolCall](parts)
	require.Len(t, calls, 1)
	assert.Equal(t, provider.ToolCall{ToolCallID: "toolu_sanitized", ToolName: "read_file", Input: `{"path": "a.txt"}`}, calls[0])
	// The text block stays open until the stream ends; tool calls are
	// completed at the end too.
	assert.Equal(t, []string{"stream-start", "response-metadata", "text-start", "text-delta",
		"tool-input-start", "tool-input-delta", "text-end", "tool-input-end", "tool-call", "finish"}, replay.Types(parts))
	fin := replay.Of[provider.Finish](parts)[0]
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_calls"}, fin.FinishReason)
	assert.Nil(t, fin.Usage.InputTokens.Total, "no usage without include_usage")
	md := replay.Of[provider.ResponseMetadata](parts)[0]
	assert.True(t, md.Timestamp.IsZero(), "created 0 is no timestamp")
	assert.NotContains(t, srv.Last(t).JSON(t), "stream_options")
}
