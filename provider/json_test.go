package provider_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

func ptr[T any](v T) *T { return &v }

// Every kind of model output survives a round trip through its JSON.
func TestContentRoundTrip(t *testing.T) {
	pm := provider.ProviderMetadata{"p": {"k": "v"}}
	src := provider.Source{SourceType: provider.SourceURL, ID: "s1", URL: "https://example.com", Title: "Example", ProviderMetadata: pm}
	content := []provider.Content{
		provider.Text{Text: "hi", Citations: []provider.Citation{{Source: src, StartIndex: ptr(1), EndIndex: ptr(3), CitedText: "i"}}, ProviderMetadata: pm},
		provider.Reasoning{Text: "think", ProviderMetadata: pm},
		provider.Custom{Kind: "p.kind", ProviderMetadata: pm},
		provider.File{MediaType: "image/png", Data: provider.FileBytes{Data: []byte{1, 2, 3}}},
		provider.ReasoningFile{MediaType: "text/plain", Data: provider.FileURL{URL: "https://example.com/f"}},
		src,
		provider.Source{SourceType: provider.SourceDocument, ID: "d1", MediaType: "application/pdf", Filename: "a.pdf", Title: "A"},
		provider.ToolCall{ToolCallID: "c1", ToolName: "weather", Input: `{"city":`, ProviderExecuted: true, Dynamic: true, ProviderMetadata: pm},
		provider.ToolCall{ToolCallID: "c2", ToolName: "noInput", Input: ""},
		provider.ToolResult{ToolCallID: "c1", ToolName: "weather", Result: json.RawMessage(`{"temp":21}`), IsError: true, Preliminary: true, Dynamic: true, ProviderMetadata: pm},
		provider.ToolApprovalRequest{ApprovalID: "a1", ToolCallID: "c1", ProviderMetadata: pm},
	}
	data, err := json.Marshal(content)
	require.NoError(t, err)
	got, err := provider.UnmarshalContents(data)
	require.NoError(t, err)
	assert.Equal(t, content, got)

	again, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(data), string(again))
}

func TestUnmarshalContentErrors(t *testing.T) {
	for _, in := range []string{
		`{"type":"nope"}`,
		`{"type":"tool-call","toolCallId":"c1","toolName":"x"}`,
		`{"type":"file","mediaType":"image/png"}`,
		`[1]`,
	} {
		_, err := provider.UnmarshalContent([]byte(in))
		assert.Error(t, err, in)
	}
	_, err := provider.UnmarshalContents([]byte(`[{"type":"text","text":"a"},{"type":"nope"}]`))
	assert.ErrorContains(t, err, "content 1")
	got, err := provider.UnmarshalContents([]byte(`null`))
	require.NoError(t, err)
	assert.Nil(t, got)
}

// Function and provider tool definitions survive a round trip through their
// JSON.
func TestToolRoundTrip(t *testing.T) {
	tools := []provider.Tool{
		&provider.FunctionTool{
			Name: "weather", Description: "Weather.", InputSchema: json.RawMessage(`{"type":"object"}`),
			InputExamples: []json.RawMessage{json.RawMessage(`{"city":"Oslo"}`)}, Strict: ptr(true),
			ProviderOptions: provider.ProviderOptions{"openai": {"x": true}},
		},
		&provider.FunctionTool{Name: "bare"},
		&provider.ProviderTool{ID: "openai.web_search", Name: "search", Args: map[string]any{"size": "low"}},
	}
	data, err := json.Marshal(tools)
	require.NoError(t, err)
	got, err := provider.UnmarshalTools(data)
	require.NoError(t, err)
	want := []provider.Tool{tools[0], tools[1], &provider.ProviderTool{ID: "openai.web_search", Name: "search", Args: map[string]any{"size": "low"}}}
	assert.Equal(t, want, got)

	_, err = provider.UnmarshalTool([]byte(`{"type":"other"}`))
	assert.Error(t, err)
	_, err = provider.UnmarshalTools([]byte(`[{"type":"function","name":"a"},{"type":"x"}]`))
	assert.ErrorContains(t, err, "tool 1")
}

// TestToolEmptyValues checks that empty (not nil) input examples and
// provider options are written as [] and {}, as the reference keeps them in
// the tools a model receives, and read back as empty, not nil.
func TestToolEmptyValues(t *testing.T) {
	tool := &provider.FunctionTool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`),
		InputExamples: []json.RawMessage{}, ProviderOptions: provider.ProviderOptions{}}
	data, err := json.Marshal(tool)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"function","name":"t","inputSchema":{"type":"object"},"inputExamples":[],"providerOptions":{}}`, string(data))
	got, err := provider.UnmarshalTool(data)
	require.NoError(t, err)
	assert.Equal(t, tool, got)
	ft := got.(*provider.FunctionTool)
	assert.NotNil(t, ft.InputExamples)
	assert.NotNil(t, ft.ProviderOptions)

	bare, err := json.Marshal(&provider.FunctionTool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"function","name":"t","inputSchema":{"type":"object"}}`, string(bare))
}
