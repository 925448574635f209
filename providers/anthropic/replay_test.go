package anthropic

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

// Tool declarations used by the tool search recordings: the search tool
// under an application name and deferred function tools.
func searchTools(searchID string, deferred ...string) []provider.Tool {
	tools := []provider.Tool{&provider.ProviderTool{ID: searchID, Name: "tool_search"}}
	for _, name := range deferred {
		tools = append(tools, &provider.FunctionTool{
			Name:            name,
			InputSchema:     json.RawMessage(`{"type":"object","properties":{}}`),
			ProviderOptions: DeferLoading(),
		})
	}
	return tools
}

const (
	regexID = "anthropic.tool_search_regex_20251119"
	bm25ID  = "anthropic.tool_search_bm25_20251119"
)

func TestGenerateReplayText(t *testing.T) {
	f := newFakeAPI(t, reply{body: readFixture(t, "anthropic-text.json")})
	res := generate(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{})

	require.Len(t, res.Content, 1)
	assert.Equal(t, provider.Text{Text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?"}, res.Content[0])
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "end_turn"}, res.FinishReason)
	assert.Equal(t, 12, *res.Usage.InputTokens.Total)
	assert.Equal(t, 12, *res.Usage.InputTokens.NoCache)
	assert.Equal(t, 0, *res.Usage.InputTokens.CacheRead)
	assert.Equal(t, 0, *res.Usage.InputTokens.CacheWrite)
	assert.Equal(t, 29, *res.Usage.OutputTokens.Total)
	assert.Nil(t, res.Usage.OutputTokens.Reasoning)
	assert.Nil(t, res.Usage.OutputTokens.Text)
	assert.Contains(t, string(res.Usage.Raw), `"service_tier": "standard"`)

	assert.Equal(t, "msg_01VdEjxAP5ahtHKrrRdNBteQ", res.Response.ID)
	assert.Equal(t, "claude-sonnet-4-5-20250929", res.Response.ModelID)
	assert.Equal(t, "application/json", res.Response.Headers.Get("Content-Type"))
	assert.JSONEq(t, readFixture(t, "anthropic-text.json"), string(res.Response.Body))
	assert.Equal(t, f.URL+"/messages", res.Request.URL)
	assert.Empty(t, res.Warnings)

	meta := res.ProviderMetadata["anthropic"]
	assert.Equal(t, 0, meta["cacheCreationInputTokens"])
	assert.Nil(t, meta["stopSequence"])
	assert.Nil(t, meta["iterations"])
	assert.Nil(t, meta["container"])
	assert.Equal(t, float64(12), meta["usage"].(map[string]any)["input_tokens"])
}

func TestStreamReplayText(t *testing.T) {
	f := newFakeAPI(t, reply{sse: true, body: sseBody(t, chunkResponses(t, "anthropic-text.chunks.txt")[0])})
	parts := streamAll(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{})

	assert.Equal(t, []string{
		"stream-start", "response-metadata", "text-start",
		"text-delta", "text-delta", "text-delta", "text-delta", "text-delta", "text-delta",
		"text-end", "finish",
	}, partTypes(parts))
	assert.Equal(t, provider.ResponseMetadata{ID: "msg_01QC4g3HwBThD4BaNtBckFDJ", ModelID: "claude-sonnet-4-5-20250929"}, parts[1])
	assert.Equal(t, provider.TextStart{ID: "0"}, parts[2])
	assert.Equal(t, "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?", streamText(parts))
	assert.Equal(t, provider.TextEnd{ID: "0"}, parts[9])

	fin := parts[len(parts)-1].(provider.Finish)
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "end_turn"}, fin.FinishReason)
	assert.Equal(t, 12, *fin.Usage.InputTokens.Total)
	assert.Equal(t, 30, *fin.Usage.OutputTokens.Total)
	assert.Equal(t, 0, fin.ProviderMetadata["anthropic"]["cacheCreationInputTokens"])

	body := f.bodyMap(t, 0)
	assert.Equal(t, true, body["stream"])
}

func TestGenerateReplayToolNoArgs(t *testing.T) {
	f := newFakeAPI(t, reply{body: readFixture(t, "anthropic-tool-no-args.json")})
	res := generate(t, testModel(t, f, "claude-3-opus-20240229"), &provider.CallOptions{
		Tools: []provider.Tool{&provider.FunctionTool{Name: "updateIssueList", InputSchema: json.RawMessage(`{"type":"object"}`)}},
	})
	require.Len(t, res.Content, 2)
	assert.True(t, strings.HasPrefix(res.Content[0].(provider.Text).Text, "<thinking>\nThe updateIssueList tool"))
	assert.Equal(t, provider.ToolCall{ToolCallID: "toolu_01LRmxn9vGM1d2DZSDBowdZ1", ToolName: "updateIssueList", Input: "{}"}, res.Content[1])
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_use"}, res.FinishReason)
	assert.Equal(t, 602, *res.Usage.InputTokens.Total)
	assert.Equal(t, 93, *res.Usage.OutputTokens.Total)
}

func TestStreamReplayToolNoArgs(t *testing.T) {
	f := newFakeAPI(t, reply{sse: true, body: sseBody(t, chunkResponses(t, "anthropic-tool-no-args.chunks.txt")[0])})
	parts := streamAll(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{})
	assert.Equal(t, []string{
		"stream-start", "response-metadata", "text-start", "text-delta", "text-delta", "text-end",
		"tool-input-start", "tool-input-end", "tool-call", "finish",
	}, partTypes(parts))
	assert.Equal(t, "I'll update the issue list for you.", streamText(parts))
	assert.Equal(t, provider.ToolInputStart{ID: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", ToolName: "updateIssueList"}, parts[6])
	assert.Equal(t, provider.ToolCall{ToolCallID: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", ToolName: "updateIssueList", Input: "{}"}, parts[8])
	fin := parts[9].(provider.Finish)
	assert.Equal(t, provider.FinishToolCalls, fin.FinishReason.Unified)
	assert.Equal(t, 565, *fin.Usage.InputTokens.Total)
	assert.Equal(t, 48, *fin.Usage.OutputTokens.Total)
}

func TestStreamReplayParallelToolCalls(t *testing.T) {
	f := newFakeAPI(t, reply{sse: true, body: sseBody(t, chunkResponses(t, "anthropic-issue-15652-false.chunks.txt")[0])})
	parts := streamAll(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{})
	calls := partsOf[provider.ToolCall](parts)
	require.Len(t, calls, 3)
	for i, q := range []string{"alpha", "beta", "gamma"} {
		assert.Equal(t, "searchDocs", calls[i].ToolName)
		assert.JSONEq(t, `{"query":"`+q+`"}`, calls[i].Input)
		assert.Equal(t, map[string]any{"caller": map[string]any{"type": "direct"}}, calls[i].ProviderMetadata["anthropic"])
	}
	assert.Equal(t, []string{"toolu_01LtEf4h1QW7KCKLsYMuhTNB", "toolu_016tfZE7otAFSBjhc67wu189", "toolu_01XkU35z8BVWqqc9tijDuLrA"},
		[]string{calls[0].ToolCallID, calls[1].ToolCallID, calls[2].ToolCallID})
	// Deltas are correlated with their call by block index.
	var alpha strings.Builder
	for _, d := range partsOf[provider.ToolInputDelta](parts) {
		if d.ID == "toolu_01LtEf4h1QW7KCKLsYMuhTNB" {
			alpha.WriteString(d.Delta)
		}
	}
	assert.Equal(t, `{"query": "alpha"}`, alpha.String())
	fin := parts[len(parts)-1].(provider.Finish)
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_use"}, fin.FinishReason)
	assert.Equal(t, 798, *fin.Usage.InputTokens.Total)
	assert.Equal(t, 110, *fin.Usage.OutputTokens.Total)
}

func TestGenerateReplayThinking(t *testing.T) {
	f := newFakeAPI(t, reply{body: readFixture(t, "anthropic-clear-thinking.1.json")})
	res := generate(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{})
	require.Len(t, res.Content, 2)
	r := res.Content[0].(provider.Reasoning)
	assert.Equal(t, "925 divided by 5 = 185", r.Text)
	assert.True(t, strings.HasPrefix(r.ProviderMetadata["anthropic"]["signature"].(string), "Er4BCkYICxgCKkCoxqLHLrx4"))
	assert.Equal(t, provider.Text{Text: "925 ÷ 5 = 185"}, res.Content[1])
	assert.Equal(t, map[string]any{"appliedEdits": []map[string]any{}}, res.ProviderMetadata["anthropic"]["contextManagement"])
}

func TestStreamReplayThinking(t *testing.T) {
	f := newFakeAPI(t, reply{sse: true, body: sseBody(t, chunkResponses(t, "anthropic-clear-thinking.1.chunks.txt")[0])})
	parts := streamAll(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{})

	var reasoning strings.Builder
	var signature string
	for _, d := range partsOf[provider.ReasoningDelta](parts) {
		assert.Equal(t, "0", d.ID)
		reasoning.WriteString(d.Delta)
		if s, ok := d.ProviderMetadata["anthropic"]["signature"]; ok {
			signature = s.(string)
		}
	}
	assert.Equal(t, "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185", reasoning.String())
	assert.True(t, strings.HasPrefix(signature, "EvQBCkYICxgCKkAxhD4NUKFz"))
	assert.Equal(t, []provider.ReasoningStart{{ID: "0"}}, partsOf[provider.ReasoningStart](parts))
	assert.Equal(t, []provider.ReasoningEnd{{ID: "0"}}, partsOf[provider.ReasoningEnd](parts))
	assert.Equal(t, "925 ÷ 5 = 185", streamText(parts))
	assert.Equal(t, []provider.TextStart{{ID: "1"}}, partsOf[provider.TextStart](parts))
	fin := parts[len(parts)-1].(provider.Finish)
	assert.Equal(t, 53, *fin.Usage.OutputTokens.Total)
	assert.Equal(t, map[string]any{"appliedEdits": []map[string]any{}}, fin.ProviderMetadata["anthropic"]["contextManagement"])
}

func TestStreamReplayThinkingTokens(t *testing.T) {
	f := newFakeAPI(t, reply{sse: true, body: sseBody(t, chunkResponses(t, "anthropic-claude-sonnet-5-reasoning-summarized.chunks.txt")[0])})
	parts := streamAll(t, testModel(t, f, "claude-sonnet-5"), &provider.CallOptions{})
	fin := parts[len(parts)-1].(provider.Finish)
	assert.Equal(t, 47, *fin.Usage.InputTokens.Total)
	assert.Equal(t, 373, *fin.Usage.OutputTokens.Total)
	assert.Equal(t, 62, *fin.Usage.OutputTokens.Reasoning)
	assert.Equal(t, 311, *fin.Usage.OutputTokens.Text)
	assert.Contains(t, streamText(parts), "gcd(1071, 462")
	assert.NotEmpty(t, partsOf[provider.ReasoningDelta](parts))
}

func TestStreamReplayPromptCaching(t *testing.T) {
	tests := []struct {
		file              string
		cacheRead, create int
	}{
		{"anthropic-issue-5942-cache-write.chunks.txt", 0, 18639},
		{"anthropic-issue-5942-cache-read.chunks.txt", 18639, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := newFakeAPI(t, reply{sse: true, body: sseBody(t, chunkResponses(t, tt.file)[0])})
			parts := streamAll(t, testModel(t, f, "claude-sonnet-4-6"), &provider.CallOptions{})
			fin := parts[len(parts)-1].(provider.Finish)
			assert.Equal(t, provider.FinishReason{Unified: provider.FinishLength, Raw: "max_tokens"}, fin.FinishReason)
			in := fin.Usage.InputTokens
			assert.Equal(t, 18642, *in.Total)
			assert.Equal(t, 3, *in.NoCache)
			assert.Equal(t, tt.cacheRead, *in.CacheRead)
			assert.Equal(t, tt.create, *in.CacheWrite)
			assert.Equal(t, 1, *fin.Usage.OutputTokens.Total)
			assert.Equal(t, tt.create, fin.ProviderMetadata["anthropic"]["cacheCreationInputTokens"])
			assert.Equal(t, "OK", streamText(parts))
		})
	}
}

func TestStreamReplayMessageDeltaInputTokens(t *testing.T) {
	f := newFakeAPI(t, reply{sse: true, body: sseBody(t, chunkResponses(t, "anthropic-message-delta-input-tokens.chunks.txt")[0])})
	parts := streamAll(t, testModel(t, f, "claude-opus-4-5"), &provider.CallOptions{})
	fin := parts[len(parts)-1].(provider.Finish)
	assert.Equal(t, 61, *fin.Usage.InputTokens.Total)
	assert.Equal(t, 61, *fin.Usage.InputTokens.NoCache)
	assert.Equal(t, 2, *fin.Usage.OutputTokens.Total)
	assert.Equal(t, "pong", streamText(parts))
}

func TestGenerateReplayToolSearch(t *testing.T) {
	tests := []struct {
		file, searchID, wire, callID, input, found string
	}{
		{"anthropic-tool-search-regex.1.json", regexID, "tool_search_tool_regex", "srvtoolu_01SACvPAnp6ucMJsstB5qb3f",
			`{"pattern":"weather|SF|San Francisco|forecast|temperature|climate","limit":10}`, "get_temp_data"},
		{"anthropic-tool-search-bm25.1.json", bm25ID, "tool_search_tool_bm25", "srvtoolu_011Jcb838xqvZyWwDt7bWqAz",
			`{"query":"weather current conditions San Francisco"}`, "get_weather"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := newFakeAPI(t, reply{body: readFixture(t, tt.file)})
			res := generate(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{Tools: searchTools(tt.searchID, tt.found)})

			calls := contentOf[provider.ToolCall](res.Content)
			require.Len(t, calls, 2)
			assert.Equal(t, provider.ToolCall{
				ToolCallID: tt.callID, ToolName: "tool_search", Input: tt.input, ProviderExecuted: true,
				ProviderMetadata: provider.ProviderMetadata{"anthropic": {"caller": map[string]any{"type": "direct"}}},
			}, calls[0])
			assert.Equal(t, tt.found, calls[1].ToolName)
			assert.False(t, calls[1].ProviderExecuted)

			results := contentOf[provider.ToolResult](res.Content)
			require.Len(t, results, 1)
			assert.Equal(t, tt.callID, results[0].ToolCallID)
			assert.Equal(t, "tool_search", results[0].ToolName)
			assert.False(t, results[0].IsError)
			assert.JSONEq(t, `[{"type":"tool_reference","toolName":"`+tt.found+`"}]`, string(results[0].Result))
			assert.Equal(t, provider.FinishToolCalls, res.FinishReason.Unified)

			// The search tool is declared under its wire name, the found tool deferred.
			body := f.bodyMap(t, 0)
			tools := body["tools"].([]any)
			assert.Equal(t, tt.wire, tools[0].(map[string]any)["name"])
			assert.Equal(t, true, tools[1].(map[string]any)["defer_loading"])
		})
	}
}

func TestStreamReplayToolSearch(t *testing.T) {
	tests := []struct {
		file, searchID, input, found string
	}{
		{"anthropic-tool-search-regex.1.chunks.txt", regexID, `{"pattern": "weather|SF|San Francisco|forecast|temperature|climate", "limit": 10}`, "get_temp_data"},
		{"anthropic-tool-search-bm25.1.chunks.txt", bm25ID, "", "get_weather"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			responses := chunkResponses(t, tt.file)
			require.Len(t, responses, 2)
			f := newFakeAPI(t, reply{sse: true, body: sseBody(t, responses[0])}, reply{sse: true, body: sseBody(t, responses[1])})
			m := testModel(t, f, "claude-sonnet-4-5")
			parts := streamAll(t, m, &provider.CallOptions{Tools: searchTools(tt.searchID, tt.found)})

			starts := partsOf[provider.ToolInputStart](parts)
			require.Len(t, starts, 2)
			assert.Equal(t, "tool_search", starts[0].ToolName)
			assert.True(t, starts[0].ProviderExecuted)

			calls := partsOf[provider.ToolCall](parts)
			require.Len(t, calls, 2)
			assert.Equal(t, "tool_search", calls[0].ToolName)
			assert.True(t, calls[0].ProviderExecuted)
			if tt.input != "" {
				assert.Equal(t, tt.input, calls[0].Input)
			}
			assert.True(t, json.Valid([]byte(calls[0].Input)))
			assert.Equal(t, tt.found, calls[1].ToolName)

			results := partsOf[provider.ToolResult](parts)
			require.Len(t, results, 1)
			assert.Equal(t, calls[0].ToolCallID, results[0].ToolCallID)
			assert.Equal(t, "tool_search", results[0].ToolName)
			assert.JSONEq(t, `[{"type":"tool_reference","toolName":"`+tt.found+`"}]`, string(results[0].Result))

			// The result follows the call's input block.
			types := partTypes(parts)
			assert.Less(t, indexOf(types, "tool-call"), indexOf(types, "tool-result"))
			assert.Equal(t, provider.FinishToolCalls, parts[len(parts)-1].(provider.Finish).FinishReason.Unified)

			// Second response: the final answer.
			parts = streamAll(t, m, &provider.CallOptions{Tools: searchTools(tt.searchID, tt.found)})
			assert.NotEmpty(t, streamText(parts))
			assert.Equal(t, provider.FinishStop, parts[len(parts)-1].(provider.Finish).FinishReason.Unified)
		})
	}
}

func indexOf(list []string, v string) int {
	for i, s := range list {
		if s == v {
			return i
		}
	}
	return -1
}

// The deferred recordings: the model calls a client tool and the search
// tool in one turn; the search result opens the next response.
func TestStreamReplayDeferredToolSearch(t *testing.T) {
	tests := []struct {
		file, searchID, firstCall string
		found                     []string
	}{
		{"anthropic-tool-search-deferred-regex.chunks.txt", regexID, "srvtoolu_01H4HgrFsi9xizPtvnx1Tm7D", []string{"readNoteTree", "executeEditorOperation"}},
		{"anthropic-tool-search-deferred-bm25.chunks.txt", bm25ID, "srvtoolu_01FjZe9o4YXXJjGxLmfj44Rf", []string{"executeEditorOperation"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			responses := chunkResponses(t, tt.file)
			require.Len(t, responses, 3)
			var replies []reply
			for _, r := range responses {
				replies = append(replies, reply{sse: true, body: sseBody(t, r)})
			}
			f := newFakeAPI(t, replies...)
			m := testModel(t, f, "claude-sonnet-4-5")
			opts := func() *provider.CallOptions {
				return &provider.CallOptions{Tools: searchTools(tt.searchID, "readNoteTree", "executeEditorOperation")}
			}

			// Turn 1: a client call and a search call, no result yet.
			parts := streamAll(t, m, opts())
			calls := partsOf[provider.ToolCall](parts)
			require.Len(t, calls, 2)
			assert.Equal(t, "readNoteTree", calls[0].ToolName)
			assert.False(t, calls[0].ProviderExecuted)
			assert.Equal(t, "tool_search", calls[1].ToolName)
			assert.Equal(t, tt.firstCall, calls[1].ToolCallID)
			assert.True(t, calls[1].ProviderExecuted)
			assert.Empty(t, partsOf[provider.ToolResult](parts))
			assert.Equal(t, provider.FinishToolCalls, parts[len(parts)-1].(provider.Finish).FinishReason.Unified)

			// Turn 2: the deferred result is the first content.
			parts = streamAll(t, m, opts())
			assert.Equal(t, "tool-result", parts[2].PartType(), "types %v", partTypes(parts))
			res := parts[2].(provider.ToolResult)
			assert.Equal(t, tt.firstCall, res.ToolCallID)
			assert.Equal(t, "tool_search", res.ToolName)
			var refs []string
			for _, name := range tt.found {
				refs = append(refs, `{"type":"tool_reference","toolName":"`+name+`"}`)
			}
			assert.JSONEq(t, "["+strings.Join(refs, ",")+"]", string(res.Result))
			calls = partsOf[provider.ToolCall](parts)
			require.Len(t, calls, 1)
			assert.Equal(t, "executeEditorOperation", calls[0].ToolName)
			var input map[string]any
			require.NoError(t, json.Unmarshal([]byte(calls[0].Input), &input))
			assert.Equal(t, "d10aa585-982b-4bd9-984e-420f9b3717f7", input["noteId"])

			// Turn 3: the final text.
			parts = streamAll(t, m, opts())
			assert.Contains(t, streamText(parts), "bye")
			assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "end_turn"}, parts[len(parts)-1].(provider.Finish).FinishReason)
		})
	}
}

func TestGenerateReplayDeferredToolSearch(t *testing.T) {
	tests := []struct {
		file, searchID, callID string
		found                  []string
	}{
		{"anthropic-tool-search-deferred-regex.2.json", regexID, "srvtoolu_01WD1PoedV47LMZdJrsVNZtM", []string{"readNoteTree", "executeEditorOperation"}},
		{"anthropic-tool-search-deferred-bm25.2.json", bm25ID, "srvtoolu_01Daym2FbLXTL2hg6bVwCcoj", []string{"executeEditorOperation"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := newFakeAPI(t, reply{body: readFixture(t, tt.file)})
			res := generate(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{
				Tools: searchTools(tt.searchID, "readNoteTree", "executeEditorOperation"),
			})
			require.Len(t, res.Content, 3)
			r := res.Content[0].(provider.ToolResult)
			assert.Equal(t, tt.callID, r.ToolCallID)
			assert.Equal(t, "tool_search", r.ToolName)
			var refs []map[string]string
			require.NoError(t, json.Unmarshal(r.Result, &refs))
			require.Len(t, refs, len(tt.found))
			for i, name := range tt.found {
				assert.Equal(t, map[string]string{"type": "tool_reference", "toolName": name}, refs[i])
			}
			assert.IsType(t, provider.Text{}, res.Content[1])
			call := res.Content[2].(provider.ToolCall)
			assert.Equal(t, "executeEditorOperation", call.ToolName)
			assert.JSONEq(t, `{"noteId":"d10aa585-982b-4bd9-984e-420f9b3717f7","operations":[{"op":"insert_node","at":{"type":"path","path":[1]},"type":"bulletedListItem","text":"bye"}]}`, call.Input)
		})
	}
}

func TestGenerateReplayToolSearchError(t *testing.T) {
	f := newFakeAPI(t,
		reply{body: readFixture(t, "anthropic-tool-search-error-step-1.1.json")},
		reply{body: readFixture(t, "anthropic-tool-search-error-step-2.1.json")})
	m := testModel(t, f, "claude-sonnet-5-5")
	tools := append(searchTools(regexID), &provider.FunctionTool{Name: "continue_tool", InputSchema: json.RawMessage(`{"type":"object"}`)})

	res := generate(t, m, &provider.CallOptions{Tools: tools})
	require.Len(t, res.Content, 2)
	assert.Equal(t, provider.ToolCall{ToolCallID: "srvtoolu_018yKDHFpyBNErTrzqbP8etq", ToolName: "tool_search", Input: `{"pattern":"["}`, ProviderExecuted: true}, res.Content[0])
	assert.Equal(t, "continue_tool", res.Content[1].(provider.ToolCall).ToolName)
	assert.Equal(t, 0, *res.Usage.OutputTokens.Reasoning)
	assert.Equal(t, 81, *res.Usage.OutputTokens.Text)

	res = generate(t, m, &provider.CallOptions{Tools: tools})
	require.Len(t, res.Content, 2)
	r := res.Content[0].(provider.ToolResult)
	assert.Equal(t, "srvtoolu_018yKDHFpyBNErTrzqbP8etq", r.ToolCallID)
	assert.Equal(t, "tool_search", r.ToolName)
	assert.True(t, r.IsError)
	assert.JSONEq(t, `{"type":"tool_search_tool_result_error","errorCode":"invalid_tool_input"}`, string(r.Result))
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishStop, Raw: "end_turn"}, res.FinishReason)
}

func TestGenerateReplayWebFetchError(t *testing.T) {
	f := newFakeAPI(t, reply{body: readFixture(t, "anthropic-issue-10819-web-fetch-error.1.json")})
	res := generate(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{
		Tools: []provider.Tool{
			&provider.ProviderTool{ID: "anthropic.web_fetch_20250910", Name: "fetch"},
			&provider.FunctionTool{Name: "display_products", InputSchema: json.RawMessage(`{"type":"object"}`)},
		},
	})
	assert.Equal(t, []string{"text", "tool-call", "tool-result", "text", "tool-call"}, contentTypes(res.Content))
	call := res.Content[1].(provider.ToolCall)
	assert.Equal(t, provider.ToolCall{ToolCallID: "srvtoolu_01LBuJngKXBYNJ628yrPBaix", ToolName: "fetch", Input: `{"url":"https://httpbin.org/status/500"}`, ProviderExecuted: true}, call)
	r := res.Content[2].(provider.ToolResult)
	assert.Equal(t, "fetch", r.ToolName)
	assert.True(t, r.IsError)
	assert.JSONEq(t, `{"type":"web_fetch_tool_result_error","errorCode":"unavailable"}`, string(r.Result))
	assert.Equal(t, map[string]any{"caller": map[string]any{"type": "direct"}}, r.ProviderMetadata["anthropic"])
	assert.Equal(t, "display_products", res.Content[4].(provider.ToolCall).ToolName)

	body := f.bodyMap(t, 0)
	assert.Equal(t, map[string]any{"type": "web_fetch_20250910", "name": "web_fetch"}, body["tools"].([]any)[0])
	assert.Equal(t, "web-fetch-2025-09-10,structured-outputs-2025-11-13", f.request(t, 0).headers.Get("anthropic-beta"))
}

func contentTypes(content []provider.Content) []string {
	var out []string
	for _, c := range content {
		out = append(out, c.ContentType())
	}
	return out
}

func TestGenerateReplayWebSearch(t *testing.T) {
	f := newFakeAPI(t, reply{body: readFixture(t, "anthropic-web-search-tool.1.json")})
	res := generate(t, testModel(t, f, "claude-sonnet-4-20250514"), &provider.CallOptions{
		Tools: []provider.Tool{&provider.ProviderTool{ID: "anthropic.web_search_20250305", Name: "search", Args: map[string]any{"maxUses": 3}}},
	})
	calls := contentOf[provider.ToolCall](res.Content)
	require.Len(t, calls, 2)
	assert.Equal(t, provider.ToolCall{ToolCallID: "srvtoolu_01Qxbje4duKBes3Nj42MkZug", ToolName: "search", Input: `{"query":"tech news today September 26 2024"}`, ProviderExecuted: true}, calls[0])

	results := contentOf[provider.ToolResult](res.Content)
	require.Len(t, results, 2)
	assert.Equal(t, "search", results[0].ToolName)
	var first []map[string]any
	require.NoError(t, json.Unmarshal(results[0].Result, &first))
	require.NotEmpty(t, first)
	assert.Equal(t, "web_search_result", first[0]["type"])
	assert.Equal(t, "https://developer.apple.com/news/", first[0]["url"])
	assert.Equal(t, "Latest News - Apple Developer", first[0]["title"])
	assert.Nil(t, first[0]["pageAge"])
	assert.NotEmpty(t, first[0]["encryptedContent"])
	assert.JSONEq(t, `[]`, string(results[1].Result))

	// Every search result is a URL source; every citation is one more.
	sources := contentOf[provider.Source](res.Content)
	assert.Len(t, sources, len(first)+3)
	assert.Equal(t, provider.SourceURL, sources[0].SourceType)
	assert.Equal(t, "https://developer.apple.com/news/", sources[0].URL)
	assert.NotEmpty(t, sources[0].ID)

	var cited []provider.Text
	for _, tx := range contentOf[provider.Text](res.Content) {
		if tx.ProviderMetadata != nil {
			cited = append(cited, tx)
		}
	}
	require.Len(t, cited, 3)
	assert.True(t, strings.HasPrefix(cited[0].Text, "Caroline Ellison"))
	citations := cited[0].ProviderMetadata["anthropic"]["citations"].([]any)
	assert.Equal(t, "https://acecomments.mu.nu/?post=411647", citations[0].(map[string]any)["url"])
	assert.Equal(t, provider.FinishStop, res.FinishReason.Unified)
	assert.Equal(t, 27118, *res.Usage.InputTokens.Total)

	body := f.bodyMap(t, 0)
	assert.Equal(t, map[string]any{"type": "web_search_20250305", "name": "web_search", "max_uses": float64(3)}, body["tools"].([]any)[0])
}

// The recorded 400 bodies: the message comes from the error body and the
// error is not retryable.
func TestReplayErrorBodies(t *testing.T) {
	tests := []struct{ file, message string }{
		{"anthropic-issue-17366-error.json", "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks"},
		{"anthropic-parallel-provider-client-tools.error.json", "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after"},
		{"anthropic-tool-choice-none-tool-search-history.error.json", "Tool reference 'lookup_documents' not found in available tools"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body := readFixture(t, tt.file)
			f := newFakeAPI(t, reply{status: 400, body: body}, reply{status: 400, body: body})
			m := testModel(t, f, "claude-sonnet-4-5")
			for _, stream := range []bool{false, true} {
				var err error
				if stream {
					_, err = m.Stream(t.Context(), &provider.CallOptions{Prompt: userPrompt("hi")})
				} else {
					_, err = m.Generate(t.Context(), &provider.CallOptions{Prompt: userPrompt("hi")})
				}
				var apiErr *provider.APICallError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, 400, apiErr.StatusCode)
				assert.False(t, apiErr.Retryable)
				assert.True(t, strings.HasPrefix(apiErr.Message, tt.message), apiErr.Message)
				assert.Equal(t, body, string(apiErr.ResponseBody))
				assert.Equal(t, f.URL+"/messages", apiErr.URL)
				assert.NotEmpty(t, apiErr.RequestBody)
			}
		})
	}
}

// One model value serves concurrent calls.
func TestConcurrentCalls(t *testing.T) {
	text := readFixture(t, "anthropic-text.json")
	events := sseBody(t, chunkResponses(t, "anthropic-text.chunks.txt")[0])
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, events)
			return
		}
		io.WriteString(w, text)
	}))
	defer srv.Close()
	m := New(WithAPIKey("k"), WithBaseURL(srv.URL)).Model("claude-sonnet-4-5")
	done := make(chan error, 16)
	for range 8 {
		go func() {
			res, err := m.Generate(t.Context(), &provider.CallOptions{Prompt: userPrompt("hi")})
			if err == nil && res.Content[0].(provider.Text).Text == "" {
				err = errors.New("no text")
			}
			done <- err
		}()
		go func() {
			res, err := m.Stream(t.Context(), &provider.CallOptions{Prompt: userPrompt("hi")})
			if err == nil {
				for _, e := range res.Stream {
					if e != nil {
						err = e
					}
				}
			}
			done <- err
		}()
	}
	for range 16 {
		require.NoError(t, <-done)
	}
}
