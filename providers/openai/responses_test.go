package openai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
)

func streamOf(t *testing.T, lines []string) replay.Response {
	return replay.Stream(replay.SSE(lines...))
}

func weatherTool() *provider.FunctionTool {
	return &provider.FunctionTool{Name: "get_weather", Description: "Get the current weather at a specific location",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}}}`)}
}

func TestResponsesPhaseGenerate(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/openai-phase.1.json")))
	res, err := newProvider(srv).Model("gpt-5.3-codex").Generate(context.Background(), prompt("AI news today?"))
	require.NoError(t, err)
	require.Len(t, res.Content, 2)
	first, second := res.Content[0].(provider.Text), res.Content[1].(provider.Text)
	assert.True(t, strings.HasPrefix(first.Text, "I\u2019ll quickly check reliable"))
	assert.Equal(t, map[string]any{"itemId": "msg_0465b6d1ae1f97c500699f883243a481a3b50b985223592984", "phase": "commentary"}, first.ProviderMetadata["openai"])
	assert.True(t, strings.HasPrefix(second.Text, "Here are some **latest AI updates"))
	assert.Equal(t, "final_answer", second.ProviderMetadata["openai"]["phase"])
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop}, res.FinishReason)
	assert.Equal(t, 7243, *res.Usage.InputTokens.Total)
	assert.Equal(t, 3072, *res.Usage.InputTokens.CacheRead)
	assert.Equal(t, 4171, *res.Usage.InputTokens.NoCache)
	assert.Equal(t, 423, *res.Usage.OutputTokens.Total)
	assert.Equal(t, 58, *res.Usage.OutputTokens.Reasoning)
	assert.Equal(t, 365, *res.Usage.OutputTokens.Text)
	assert.Equal(t, "resp_0465b6d1ae1f97c500699f88318ee481a3b627f7fcb4875152", res.Response.ID)
	assert.Equal(t, "gpt-5.3-codex", res.Response.ModelID)
	assert.Equal(t, int64(1772062769), res.Response.Timestamp.Unix())
	assert.Equal(t, map[string]any{"responseId": "resp_0465b6d1ae1f97c500699f88318ee481a3b627f7fcb4875152", "serviceTier": "default"}, res.ProviderMetadata["openai"])

	req := srv.Last(t)
	assert.Equal(t, "/v1/responses", req.Path)
	body := req.JSON(t)
	assert.Equal(t, "gpt-5.3-codex", body["model"])
	assert.Equal(t, []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": "AI news today?"}}}}, body["input"])
}

// TestResponsesPhaseStructuredOutputText checks that with a JSON response
// format the final answer alone is the text to parse, and that without
// one nothing is chosen.
func TestResponsesPhaseStructuredOutputText(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/openai-phase.1.json")), replay.JSON(replay.Read(t, "testdata/openai-phase.1.json")))
	opts := prompt("AI news today?")
	opts.ResponseFormat = &provider.ResponseFormat{Type: "json"}
	res, err := newProvider(srv).Model("gpt-5.3-codex").Generate(context.Background(), opts)
	require.NoError(t, err)
	require.NotNil(t, res.StructuredOutputText)
	assert.Equal(t, res.Content[1].(provider.Text).Text, *res.StructuredOutputText)

	res, err = newProvider(srv).Model("gpt-5.3-codex").Generate(context.Background(), prompt("AI news today?"))
	require.NoError(t, err)
	assert.Nil(t, res.StructuredOutputText)
}

func TestResponsesPhaseStream(t *testing.T) {
	srv := replay.NewServer(t, streamOf(t, replay.Lines(t, "testdata/openai-phase.1.chunks.txt")))
	res, err := newProvider(srv).Model("gpt-5.3-codex").Stream(context.Background(), prompt("AI news today?"))
	require.NoError(t, err)
	parts := replay.Collect(t, res)
	assert.Equal(t, []string{"stream-start", "response-metadata", "text-start", "text-delta", "text-end",
		"text-start", "text-delta", "text-end", "finish"}, replay.Types(parts))
	starts := replay.Of[provider.TextStart](parts)
	require.Len(t, starts, 2)
	assert.Equal(t, "msg_0a63f40a2632b74300699f8819a5e08196ac270722d369af5a", starts[0].ID)
	assert.Equal(t, "commentary", starts[0].ProviderMetadata["openai"]["phase"])
	ends := replay.Of[provider.TextEnd](parts)
	assert.Equal(t, "final_answer", ends[1].ProviderMetadata["openai"]["phase"])
	assert.True(t, strings.HasPrefix(replay.Text(parts), "Got it"))
	md := replay.Of[provider.ResponseMetadata](parts)[0]
	assert.Equal(t, "resp_0a63f40a2632b74300699f8818e5648196a8fa657ae8091421", md.ID)
	assert.Equal(t, int64(1772062745), md.Timestamp.Unix())
	fin := replay.Of[provider.Finish](parts)[0]
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop}, fin.FinishReason)
	assert.Equal(t, 7112, *fin.Usage.InputTokens.Total)
	assert.Equal(t, 3072, *fin.Usage.InputTokens.CacheRead)
	assert.Equal(t, 64, *fin.Usage.OutputTokens.Reasoning)
	assert.Equal(t, "default", fin.ProviderMetadata["openai"]["serviceTier"])
	assert.Equal(t, "resp_0a63f40a2632b74300699f8818e5648196a8fa657ae8091421", fin.ProviderMetadata["openai"]["responseId"])
	assert.Equal(t, true, srv.Last(t).JSON(t)["stream"])
}

func TestResponsesEncryptedReasoningGenerate(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/openai-reasoning-encrypted-content.1.json")))
	opts := prompt("compute")
	opts.ProviderOptions = provider.ProviderOptions{"openai": {"store": false}}
	res, err := newProvider(srv).Model("gpt-5-mini").Generate(context.Background(), opts)
	require.NoError(t, err)
	require.Len(t, res.Content, 2)
	r := res.Content[0].(provider.Reasoning)
	assert.True(t, strings.HasPrefix(r.Text, "**Reporting final result**"))
	assert.Equal(t, "rs_0f35ed53160b395301693cc95817ac8190b978637daea4987e", r.ProviderMetadata["openai"]["itemId"])
	enc := r.ProviderMetadata["openai"]["reasoningEncryptedContent"].(string)
	assert.True(t, strings.HasPrefix(enc, "gAAAAABpPMlc"))
	assert.Equal(t, "12 + 7 = 19\n19 \u00d7 3 = 57\n57 \u00d7 10 = 570\n\nFinal result: 570", res.Content[1].(provider.Text).Text)
	assert.Equal(t, 128, *res.Usage.OutputTokens.Reasoning)

	body := srv.Last(t).JSON(t)
	assert.Equal(t, false, body["store"])
	assert.Equal(t, []any{"reasoning.encrypted_content"}, body["include"])
}

func TestResponsesEncryptedReasoningStream(t *testing.T) {
	responses := replay.Split(replay.Lines(t, "testdata/openai-reasoning-encrypted-content.1.chunks.txt"), "response.created")
	require.Len(t, responses, 4)
	var served []replay.Response
	for _, r := range responses {
		served = append(served, streamOf(t, r))
	}
	srv := replay.NewServer(t, served...)
	m := newProvider(srv).Model("gpt-5.1-codex-max")
	calc := &provider.FunctionTool{Name: "calculator", InputSchema: json.RawMessage(`{"type":"object"}`)}
	opts := &provider.CallOptions{Prompt: []provider.Message{userText("(12+7)*3*10")}, Tools: []provider.Tool{calc},
		ProviderOptions: provider.ProviderOptions{"openai": {"store": false, "reasoningSummary": "auto"}}}

	// First response: summarised, encrypted reasoning, then a tool call.
	res, err := m.Stream(context.Background(), opts)
	require.NoError(t, err)
	parts := replay.Collect(t, res)
	assert.Equal(t, []string{"stream-start", "response-metadata", "reasoning-start", "reasoning-delta", "reasoning-end",
		"tool-input-start", "tool-input-delta", "tool-input-end", "tool-call", "finish"}, replay.Types(parts))
	rs := replay.Of[provider.ReasoningStart](parts)[0]
	assert.Equal(t, "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9:0", rs.ID)
	re := replay.Of[provider.ReasoningEnd](parts)[0]
	enc := re.ProviderMetadata["openai"]["reasoningEncryptedContent"].(string)
	assert.True(t, strings.HasPrefix(enc, "gAAAAABpPDIVOKrs"), "the end carries the final encrypted content")
	assert.True(t, strings.HasPrefix(replay.Reasoning(parts), "**Calculating step-by-step using calculator**"))
	call := replay.Of[provider.ToolCall](parts)[0]
	assert.Equal(t, "call_AB6AaRZ1FYZB2RwS6A5vbdqn", call.ToolCallID)
	assert.Equal(t, "calculator", call.ToolName)
	assert.Equal(t, `{"a":12,"b":7,"op":"add"}`, call.Input)
	assert.Equal(t, "fc_01830d662ab3856501693c32151234819091cfca267e98cc5f", call.ProviderMetadata["openai"]["itemId"])
	fin := replay.Of[provider.Finish](parts)[0]
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishToolCalls}, fin.FinishReason)
	assert.Equal(t, 134, *fin.Usage.InputTokens.Total)

	body := srv.Last(t).JSON(t)
	assert.Equal(t, map[string]any{"summary": "auto"}, body["reasoning"])
	assert.Equal(t, []any{"reasoning.encrypted_content"}, body["include"])

	// The reasoning goes back with its encrypted content (store is false).
	reasoningPart := provider.ReasoningPart{Text: replay.Reasoning(parts), ProviderOptions: re.ProviderMetadata}
	opts.Prompt = append(opts.Prompt,
		provider.AssistantMessage{Content: []provider.AssistantPart{reasoningPart,
			provider.ToolCallPart{ToolCallID: call.ToolCallID, ToolName: call.ToolName, Input: json.RawMessage(call.Input), ProviderOptions: call.ProviderMetadata}}},
		provider.ToolMessage{Content: []provider.ToolPart{provider.ToolResultPart{ToolCallID: call.ToolCallID, ToolName: call.ToolName, Output: provider.JSONOutput{Value: json.RawMessage(`19`)}}}})
	res, err = m.Stream(context.Background(), opts)
	require.NoError(t, err)
	parts = replay.Collect(t, res)
	assert.Equal(t, `{"a":19,"b":3,"op":"multiply"}`, replay.Of[provider.ToolCall](parts)[0].Input)
	input, _ := json.Marshal(srv.Last(t).JSON(t)["input"])
	assert.JSONEq(t, `[
		{"role":"user","content":[{"type":"input_text","text":"(12+7)*3*10"}]},
		{"type":"reasoning","id":"rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9","encrypted_content":"`+enc+`",
		 "summary":[{"type":"summary_text","text":`+jsonString(reasoningPart.Text)+`}]},
		{"type":"function_call","call_id":"call_AB6AaRZ1FYZB2RwS6A5vbdqn","name":"calculator","arguments":"{\"a\":12,\"b\":7,\"op\":\"add\"}"},
		{"type":"function_call_output","call_id":"call_AB6AaRZ1FYZB2RwS6A5vbdqn","output":"19"}
	]`, string(input))

	// Third and fourth responses: another call, then the answer.
	res, err = m.Stream(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, `{"a":57,"b":10,"op":"multiply"}`, replay.Of[provider.ToolCall](replay.Collect(t, res))[0].Input)
	res, err = m.Stream(context.Background(), opts)
	require.NoError(t, err)
	parts = replay.Collect(t, res)
	assert.Equal(t, "The final result is **570**.", replay.Text(parts))
	assert.Equal(t, provider.FinishStop, replay.Of[provider.Finish](parts)[0].FinishReason.Unified)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestResponsesReasoningSplitSummaries(t *testing.T) {
	srv := replay.NewServer(t, streamOf(t, replay.Lines(t, "testdata/openai-reasoning-encrypted-content-gpt-5-4-split.1.chunks.txt")))
	opts := prompt("think hard")
	opts.ProviderOptions = provider.ProviderOptions{"openai": {"store": false, "reasoningEffort": "xhigh", "reasoningSummary": "detailed"}}
	res, err := newProvider(srv).Model("gpt-5.4").Stream(context.Background(), opts)
	require.NoError(t, err)
	parts := replay.Collect(t, res)
	starts := replay.Of[provider.ReasoningStart](parts)
	ends := replay.Of[provider.ReasoningEnd](parts)
	require.Len(t, starts, 12, "one reasoning block per summary part")
	require.Len(t, ends, 12)
	const item = "rs_0842a5a14f2f9e5c0169ad5f6e6cd08197b2d264053c22098a"
	for i, s := range starts {
		assert.Equal(t, item+":"+itoa(i), s.ID)
	}
	// With store false, every part but the last ends when the next one
	// starts, and the last one ends with the item, carrying the encrypted
	// content.
	last := ends[len(ends)-1]
	assert.Equal(t, item+":11", last.ID)
	enc := last.ProviderMetadata["openai"]["reasoningEncryptedContent"].(string)
	assert.Len(t, enc, 17060)
	// Blocks never overlap: each end precedes the next start.
	open := map[string]bool{}
	for _, p := range parts {
		switch p := p.(type) {
		case provider.ReasoningStart:
			assert.Empty(t, open, "a reasoning block starts while another is open")
			open[p.ID] = true
		case provider.ReasoningEnd:
			assert.True(t, open[p.ID])
			delete(open, p.ID)
		case provider.ReasoningDelta:
			assert.True(t, open[p.ID], "delta outside its block")
		}
	}
	fin := replay.Of[provider.Finish](parts)[0]
	assert.Equal(t, 2539, *fin.Usage.OutputTokens.Reasoning)
	assert.Equal(t, 116, *fin.Usage.OutputTokens.Text)
	body := srv.Last(t).JSON(t)
	assert.Equal(t, map[string]any{"effort": "xhigh", "summary": "detailed"}, body["reasoning"])
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestResponsesHostedToolSearch(t *testing.T) {
	deferred := weatherTool()
	deferred.ProviderOptions = provider.ProviderOptions{"openai": {"deferLoading": true}}
	opts := &provider.CallOptions{Prompt: []provider.Message{userText("Weather in SF?")},
		Tools: []provider.Tool{deferred, &provider.ProviderTool{ID: "openai.tool_search", Name: "toolSearch"}}}

	check := func(t *testing.T, calls []provider.ToolCall, results []provider.ToolResult, wantSearchID, wantCallID string) {
		require.Len(t, calls, 2)
		search := calls[0]
		assert.Equal(t, wantSearchID, search.ToolCallID)
		assert.Equal(t, "toolSearch", search.ToolName, "reported under the application's name")
		assert.True(t, search.ProviderExecuted)
		assert.JSONEq(t, `{"arguments":{"paths":["get_weather"]},"call_id":null}`, search.Input)
		require.Len(t, results, 1)
		assert.Equal(t, wantSearchID, results[0].ToolCallID, "the hosted output pairs with the pending hosted call")
		assert.Equal(t, "toolSearch", results[0].ToolName)
		var out struct {
			Tools []map[string]any `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(results[0].Result, &out))
		require.Len(t, out.Tools, 1)
		assert.Equal(t, "get_weather", out.Tools[0]["name"])
		assert.Equal(t, true, out.Tools[0]["defer_loading"])
		fc := calls[1]
		assert.Equal(t, wantCallID, fc.ToolCallID)
		assert.Equal(t, "get_weather", fc.ToolName)
		assert.Equal(t, `{"location":"San Francisco, CA","unit":"fahrenheit"}`, fc.Input)
		assert.Equal(t, "get_weather", fc.ProviderMetadata["openai"]["namespace"])
	}

	t.Run("generate", func(t *testing.T) {
		srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/openai-tool-search.1.json")))
		res, err := newProvider(srv).Model("gpt-5.4").Generate(context.Background(), opts)
		require.NoError(t, err)
		check(t, replay.ContentOf[provider.ToolCall](res.Content), replay.ContentOf[provider.ToolResult](res.Content),
			"tsc_04bd69550b37ba260069aa689605cc8190bd2d9bf1199fa630", "call_ytqozXvUXG8NN1b0IODxzUaE")
		assert.Equal(t, provider.FinishToolCalls, res.FinishReason.Unified)
		body := srv.Last(t).JSON(t)
		tools, _ := json.Marshal(body["tools"])
		assert.JSONEq(t, `[{"type":"function","name":"get_weather","description":"Get the current weather at a specific location",
			"parameters":{"type":"object","properties":{"location":{"type":"string"}}},"strict":false,"defer_loading":true},{"type":"tool_search"}]`, string(tools))
	})
	t.Run("stream", func(t *testing.T) {
		srv := replay.NewServer(t, streamOf(t, replay.Lines(t, "testdata/openai-tool-search.1.chunks.txt")))
		res, err := newProvider(srv).Model("gpt-5.4").Stream(context.Background(), opts)
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		check(t, replay.Of[provider.ToolCall](parts), replay.Of[provider.ToolResult](parts),
			"tsc_08a14073c7135dc10069aa686296c88190bff77ad137e79d59", "call_pddfxhfOx4gY56zn4vIIEbFp")
		assert.Equal(t, []string{"stream-start", "response-metadata", "tool-input-start", "tool-input-end", "tool-call", "tool-result",
			"tool-input-start", "tool-input-delta", "tool-input-end", "tool-call", "finish"}, replay.Types(parts))
		end := replay.Of[provider.ToolInputEnd](parts)[1]
		assert.Equal(t, "get_weather", end.ProviderMetadata["openai"]["namespace"])
		fin := replay.Of[provider.Finish](parts)[0]
		assert.Equal(t, provider.FinishToolCalls, fin.FinishReason.Unified)
		assert.Equal(t, 640, *fin.Usage.InputTokens.Total)
	})
	t.Run("round trip", func(t *testing.T) {
		srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/openai-tool-search.1.json")))
		m := newProvider(srv).Model("gpt-5.4")
		res, err := m.Generate(context.Background(), opts)
		require.NoError(t, err)
		next := *opts
		next.ProviderOptions = provider.ProviderOptions{"openai": {"store": false}}
		next.Prompt = append(append([]provider.Message{}, opts.Prompt...), assistantFrom(res.Content),
			provider.ToolMessage{Content: []provider.ToolPart{provider.ToolResultPart{ToolCallID: "call_ytqozXvUXG8NN1b0IODxzUaE", ToolName: "get_weather",
				Output: provider.TextOutput{Value: "60F"}}}})
		_, err = m.Generate(context.Background(), &next)
		require.NoError(t, err)
		input, _ := json.Marshal(srv.Last(t).JSON(t)["input"])
		var items []map[string]any
		require.NoError(t, json.Unmarshal(input, &items))
		require.Len(t, items, 5)
		assert.Equal(t, map[string]any{"type": "tool_search_call", "id": "tsc_04bd69550b37ba260069aa689605cc8190bd2d9bf1199fa630",
			"execution": "server", "call_id": nil, "status": "completed", "arguments": map[string]any{"paths": []any{"get_weather"}}}, items[1])
		assert.Equal(t, "tool_search_output", items[2]["type"])
		assert.Equal(t, "server", items[2]["execution"])
		assert.Len(t, items[2]["tools"], 1)
		assert.Equal(t, map[string]any{"type": "function_call", "call_id": "call_ytqozXvUXG8NN1b0IODxzUaE", "name": "get_weather",
			"arguments": `{"location":"San Francisco, CA","unit":"fahrenheit"}`, "namespace": "get_weather"}, items[3])
		assert.Equal(t, map[string]any{"type": "function_call_output", "call_id": "call_ytqozXvUXG8NN1b0IODxzUaE", "output": "60F"}, items[4])

		// With store (the default) the provider-executed items are references.
		next.ProviderOptions = nil
		_, err = m.Generate(context.Background(), &next)
		require.NoError(t, err)
		input, _ = json.Marshal(srv.Last(t).JSON(t)["input"])
		items = nil
		require.NoError(t, json.Unmarshal(input, &items))
		assert.Equal(t, map[string]any{"type": "item_reference", "id": "tsc_04bd69550b37ba260069aa689605cc8190bd2d9bf1199fa630"}, items[1])
		assert.Equal(t, map[string]any{"type": "item_reference", "id": "tso_04bd69550b37ba260069aa68965b508190949d19c05f1b6df9"}, items[2])
		assert.Equal(t, "function_call", items[3]["type"], "function calls are never references")
	})
}

// assistantFrom turns generated content into the assistant message a caller
// would send back, metadata becoming provider options.
func assistantFrom(content []provider.Content) provider.AssistantMessage {
	var parts []provider.AssistantPart
	for _, c := range content {
		switch c := c.(type) {
		case provider.Text:
			parts = append(parts, provider.TextPart{Text: c.Text, ProviderOptions: c.ProviderMetadata})
		case provider.Reasoning:
			parts = append(parts, provider.ReasoningPart{Text: c.Text, ProviderOptions: c.ProviderMetadata})
		case provider.ToolCall:
			parts = append(parts, provider.ToolCallPart{ToolCallID: c.ToolCallID, ToolName: c.ToolName, Input: json.RawMessage(c.Input),
				ProviderExecuted: c.ProviderExecuted, ProviderOptions: c.ProviderMetadata})
		case provider.ToolResult:
			parts = append(parts, provider.ToolResultPart{ToolCallID: c.ToolCallID, ToolName: c.ToolName,
				Output: provider.JSONOutput{Value: c.Result}, ProviderOptions: c.ProviderMetadata})
		}
	}
	return provider.AssistantMessage{Content: parts}
}

func TestResponsesClientToolSearch(t *testing.T) {
	search := &provider.ProviderTool{ID: "openai.tool_search", Name: "findTools", Args: map[string]any{
		"execution": "client", "description": "Search for available tools based on what the user needs.",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"goal": map[string]any{"type": "string"}}, "required": []any{"goal"}},
	}}
	deferred := weatherTool()
	deferred.ProviderOptions = provider.ProviderOptions{"openai": {"deferLoading": true}}
	opts := &provider.CallOptions{Prompt: []provider.Message{userText("Weather in SF?")}, Tools: []provider.Tool{deferred, search}}

	t.Run("generate", func(t *testing.T) {
		srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/openai-client-tool-search.1.json")),
			replay.JSON(replay.Read(t, "testdata/openai-client-tool-search.2.json")))
		m := newProvider(srv).Model("gpt-5.4")
		res, err := m.Generate(context.Background(), opts)
		require.NoError(t, err)
		calls := replay.ContentOf[provider.ToolCall](res.Content)
		require.Len(t, calls, 1)
		c := calls[0]
		assert.Equal(t, "call_AEvXZ1rvYpxHh8QZb7wGlTGH", c.ToolCallID)
		assert.Equal(t, "findTools", c.ToolName)
		assert.False(t, c.ProviderExecuted, "the client runs this search")
		assert.JSONEq(t, `{"arguments":{"goal":"Find a tool to get current weather for San Francisco"},"call_id":"call_AEvXZ1rvYpxHh8QZb7wGlTGH"}`, c.Input)
		assert.Equal(t, provider.FinishToolCalls, res.FinishReason.Unified)
		tools, _ := json.Marshal(srv.Last(t).JSON(t)["tools"])
		assert.Contains(t, string(tools), `{"description":"Search for available tools based on what the user needs.","execution":"client","parameters":{"properties":{"goal":{"type":"string"}},"required":["goal"],"type":"object"},"type":"tool_search"}`)

		// The application answers with the tools to load.
		loaded := json.RawMessage(`{"tools":[{"type":"function","name":"get_weather","description":"Get the weather","parameters":{"type":"object"}}]}`)
		next := *opts
		next.Prompt = append(append([]provider.Message{}, opts.Prompt...), assistantFrom(res.Content),
			provider.ToolMessage{Content: []provider.ToolPart{provider.ToolResultPart{ToolCallID: c.ToolCallID, ToolName: "findTools", Output: provider.JSONOutput{Value: loaded}}}})
		res, err = m.Generate(context.Background(), &next)
		require.NoError(t, err)
		fc := replay.ContentOf[provider.ToolCall](res.Content)
		require.Len(t, fc, 1)
		assert.Equal(t, provider.ToolCall{ToolCallID: "call_heVrRaKZEJbsRvHvaEf5BLUI", ToolName: "get_weather",
			Input:            `{"location":"San Francisco, CA","unit":"fahrenheit"}`,
			ProviderMetadata: provider.ProviderMetadata{"openai": {"itemId": "fc_01166e06cf473fc80169ab66eb3e9c8196a9a7eb80fc0f6cdf"}}}, fc[0])
		input, _ := json.Marshal(srv.Last(t).JSON(t)["input"])
		var items []map[string]any
		require.NoError(t, json.Unmarshal(input, &items))
		require.Len(t, items, 3)
		assert.Equal(t, map[string]any{"type": "item_reference", "id": "tsc_01166e06cf473fc80169ab66ea404881968795bb327c429d35"}, items[1])
		assert.Equal(t, "tool_search_output", items[2]["type"])
		assert.Equal(t, "client", items[2]["execution"])
		assert.Equal(t, "call_AEvXZ1rvYpxHh8QZb7wGlTGH", items[2]["call_id"])
		assert.Equal(t, "completed", items[2]["status"])
		assert.Len(t, items[2]["tools"], 1)
	})
	t.Run("stream", func(t *testing.T) {
		srv := replay.NewServer(t, streamOf(t, replay.Lines(t, "testdata/openai-client-tool-search.1.chunks.txt")),
			streamOf(t, replay.Lines(t, "testdata/openai-client-tool-search.2.chunks.txt")))
		m := newProvider(srv).Model("gpt-5.4")
		res, err := m.Stream(context.Background(), opts)
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		assert.Equal(t, []string{"stream-start", "response-metadata", "tool-input-start", "tool-input-end", "tool-call", "finish"}, replay.Types(parts))
		c := replay.Of[provider.ToolCall](parts)[0]
		assert.Equal(t, "call_RWTIIVfxsJW9fecsg6fy23Dy", c.ToolCallID, "the call id of the finished item wins")
		assert.JSONEq(t, `{"arguments":{"goal":"Find a tool that can provide current weather information for San Francisco."},"call_id":"call_RWTIIVfxsJW9fecsg6fy23Dy"}`, c.Input)
		assert.Equal(t, "findTools", c.ToolName)
		assert.False(t, c.ProviderExecuted)
		assert.Equal(t, provider.FinishToolCalls, replay.Of[provider.Finish](parts)[0].FinishReason.Unified)

		res, err = m.Stream(context.Background(), opts)
		require.NoError(t, err)
		parts = replay.Collect(t, res)
		fc := replay.Of[provider.ToolCall](parts)[0]
		assert.Equal(t, "call_Q7pq6EfVGRnauPLWSSYBGJ1l", fc.ToolCallID)
		assert.Equal(t, "get_weather", fc.ToolName)
		assert.Equal(t, 467, *replay.Of[provider.Finish](parts)[0].Usage.InputTokens.Total)
	})
}

func TestResponsesWebSearch(t *testing.T) {
	tools := []provider.Tool{&provider.ProviderTool{ID: "openai.web_search", Name: "webSearch",
		Args: map[string]any{"searchContextSize": "medium", "userLocation": map[string]any{"type": "approximate", "country": "US"}}}}
	checkResults := func(t *testing.T, calls []provider.ToolCall, results []provider.ToolResult) {
		require.Len(t, calls, 6)
		require.Len(t, results, 6)
		for i, c := range calls {
			assert.Equal(t, "webSearch", c.ToolName)
			assert.True(t, c.ProviderExecuted)
			assert.Equal(t, "{}", c.Input)
			assert.Equal(t, c.ToolCallID, results[i].ToolCallID)
			assert.Equal(t, "webSearch", results[i].ToolName)
			assert.False(t, results[i].IsError)
		}
		var first struct {
			Action  map[string]any   `json:"action"`
			Sources []map[string]any `json:"sources"`
		}
		require.NoError(t, json.Unmarshal(results[0].Result, &first))
		assert.Equal(t, "search", first.Action["type"])
		assert.Equal(t, "tech news today December 5 2025", first.Action["query"])
		assert.NotEmpty(t, first.Sources)
		assert.Equal(t, "url", first.Sources[0]["type"])
	}
	t.Run("generate", func(t *testing.T) {
		srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/openai-web-search-tool.1.json")))
		res, err := newProvider(srv).Model("gpt-5-mini").Generate(context.Background(), &provider.CallOptions{Prompt: []provider.Message{userText("tech news?")}, Tools: tools})
		require.NoError(t, err)
		calls, results := replay.ContentOf[provider.ToolCall](res.Content), replay.ContentOf[provider.ToolResult](res.Content)
		require.Len(t, calls, 3)
		assert.JSONEq(t, `{"action":{"type":"openPage","url":"https://www.theverge.com/podcast/838932/openai-chatgpt-code-red-vergecast"}}`, string(results[1].Result))
		assert.JSONEq(t, `{"action":{"type":"findInPage","url":"https://www.theverge.com/podcast/838932/openai-chatgpt-code-red-vergecast","pattern":"Vercel"}}`, string(results[2].Result))
		texts := replay.ContentOf[provider.Text](res.Content)
		require.Len(t, texts, 1)
		assert.True(t, strings.HasPrefix(texts[0].Text, "Short answer first"))
		require.Len(t, texts[0].Citations, 10)
		c0 := texts[0].Citations[0]
		assert.Equal(t, "https://www.theverge.com/podcast/838932/openai-chatgpt-code-red-vergecast", c0.Source.URL)
		assert.Equal(t, 426, *c0.StartIndex)
		assert.Equal(t, 517, *c0.EndIndex)
		sources := replay.ContentOf[provider.Source](res.Content)
		require.Len(t, sources, 10)
		assert.Equal(t, c0.Source.ID, sources[0].ID)
		assert.Len(t, texts[0].ProviderMetadata["openai"]["annotations"], 10)
		reasoning := replay.ContentOf[provider.Reasoning](res.Content)
		assert.Len(t, reasoning, 4, "reasoning items without summary give empty reasoning parts")
		assert.Equal(t, 19681, *res.Usage.InputTokens.Total)
		assert.Equal(t, 3712, *res.Usage.InputTokens.CacheRead)
		assert.Equal(t, 3136, *res.Usage.OutputTokens.Reasoning)
		assert.Equal(t, provider.FinishStop, res.FinishReason.Unified)

		body := srv.Last(t).JSON(t)
		assert.Equal(t, []any{map[string]any{"type": "web_search", "search_context_size": "medium",
			"user_location": map[string]any{"type": "approximate", "country": "US"}}}, body["tools"])
		assert.Equal(t, []any{"web_search_call.action.sources"}, body["include"])
	})
	t.Run("stream", func(t *testing.T) {
		srv := replay.NewServer(t, streamOf(t, replay.Lines(t, "testdata/openai-web-search-tool.1.chunks.txt")))
		res, err := newProvider(srv).Model("gpt-5-mini").Stream(context.Background(), &provider.CallOptions{Prompt: []provider.Message{userText("tech news?")}, Tools: tools})
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		checkResults(t, replay.Of[provider.ToolCall](parts), replay.Of[provider.ToolResult](parts))
		sources := replay.Of[provider.Source](parts)
		assert.NotEmpty(t, sources)
		end := replay.Of[provider.TextEnd](parts)
		require.Len(t, end, 1)
		assert.Len(t, end[0].Citations, len(sources))
		assert.Len(t, end[0].ProviderMetadata["openai"]["annotations"], len(sources))
		fin := replay.Of[provider.Finish](parts)[0]
		assert.Equal(t, provider.FinishStop, fin.FinishReason.Unified)
		assert.Equal(t, 31073, *fin.Usage.InputTokens.Total)
	})
}

func TestResponsesLMStudio(t *testing.T) {
	tools := []provider.Tool{&provider.FunctionTool{Name: "weather", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	t.Run("generate", func(t *testing.T) {
		srv := replay.NewServer(t, replay.JSON(replay.Read(t, "testdata/lmstudio-tool-call.1.json")))
		res, err := newProvider(srv).Model("mistralai/ministral-3-14b-reasoning").Generate(context.Background(), &provider.CallOptions{Prompt: []provider.Message{userText("weather?")}, Tools: tools})
		require.NoError(t, err)
		require.Len(t, res.Content, 1)
		assert.Equal(t, provider.ToolCall{ToolCallID: "call_2866856768160095", ToolName: "weather", Input: `{"location":"San Francisco"}`,
			ProviderMetadata: provider.ProviderMetadata{"openai": {"itemId": "fc_ru0kcno9erlzp8573yub"}}}, res.Content[0])
		assert.Equal(t, provider.FinishToolCalls, res.FinishReason.Unified)
		assert.Equal(t, 1189, *res.Usage.InputTokens.Total)
		assert.Equal(t, 891, *res.Usage.InputTokens.CacheRead)
	})
	t.Run("stream", func(t *testing.T) {
		srv := replay.NewServer(t, streamOf(t, replay.Lines(t, "testdata/lmstudio-tool-call.1.chunks.txt")))
		res, err := newProvider(srv).Model("zai-org/glm-4.7-flash").Stream(context.Background(), &provider.CallOptions{Prompt: []provider.Message{userText("weather?")}, Tools: tools})
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		assert.Equal(t, []string{"stream-start", "response-metadata", "reasoning-start", "reasoning-delta", "reasoning-end",
			"text-start", "text-delta", "text-end", "tool-input-start", "tool-input-end", "tool-call", "finish"}, replay.Types(parts))
		assert.True(t, strings.HasPrefix(replay.Reasoning(parts), "The user is asking for the weather in San Francisco."))
		assert.Equal(t, "I'll get the current weather information for San Francisco for you.", replay.Text(parts))
		c := replay.Of[provider.ToolCall](parts)[0]
		assert.Equal(t, "call_2025306790300011", c.ToolCallID)
		assert.Equal(t, `{"location":"San Francisco"}`, c.Input)
		fin := replay.Of[provider.Finish](parts)[0]
		assert.Equal(t, provider.FinishToolCalls, fin.FinishReason.Unified)
		assert.Equal(t, 48, *fin.Usage.OutputTokens.Reasoning)
	})
}

func TestResponsesQuotaErrors(t *testing.T) {
	t.Run("429 body", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Error(429, string(replay.Read(t, "testdata/openai-error.1.json")), nil))
		_, err := newProvider(srv).Model("gpt-5-nano").Generate(context.Background(), prompt("hi"))
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 429, apiErr.StatusCode)
		assert.True(t, apiErr.Retryable, "on the HTTP path a 429 is retryable")
		assert.True(t, strings.HasPrefix(apiErr.Message, "You exceeded your current quota"))
	})
	t.Run("error event before any output", func(t *testing.T) {
		srv := replay.NewServer(t, streamOf(t, replay.Lines(t, "testdata/openai-error.1.chunks.txt")))
		res, err := newProvider(srv).Model("gpt-5-nano").Stream(context.Background(), prompt("hi"))
		assert.Nil(t, res)
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 429, apiErr.StatusCode)
		assert.False(t, apiErr.Retryable, "an exhausted quota is not worth retrying")
		assert.True(t, strings.HasPrefix(apiErr.Message, "You exceeded your current quota"))
		assert.Contains(t, string(apiErr.ResponseBody), `"insufficient_quota"`)
		assert.Equal(t, srv.URL+"/v1/responses", apiErr.URL)
	})
	t.Run("temperature error", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Error(400, string(replay.Read(t, "testdata/reasoning-model-temperature-error.json")), nil))
		_, err := newProvider(srv).Model("my-proxy-model").Generate(context.Background(), prompt("hi"))
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 400, apiErr.StatusCode)
		assert.False(t, apiErr.Retryable)
		assert.Equal(t, "Unsupported parameter: 'temperature' is not supported with this model.", apiErr.Message)
	})
}
