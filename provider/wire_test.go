package provider_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/aisdkgo/ai/internal/golden"
	"github.com/aisdkgo/ai/provider"
)

// wireValues holds every value with a JSON form of its own, once bare and
// once with every field set (strings with characters JSON escapes).
func wireValues() []any {
	po := provider.ProviderOptions{"p": {"k": "v<&>"}}
	in := json.RawMessage(`{ "city": "Paris" }`)
	src := provider.Source{SourceType: provider.SourceURL, ID: "s", URL: "https://x/?a=1&b=<2>", Title: "T", ProviderMetadata: po}
	cit := []provider.Citation{{Source: src, StartIndex: new(int), CitedText: "c"}}
	strict := true
	return []any{
		provider.SystemMessage{}, provider.SystemMessage{Content: "sys\n\"<>\"", ProviderOptions: po},
		provider.UserMessage{}, provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "hi"}}, ProviderOptions: po},
		provider.AssistantMessage{}, provider.AssistantMessage{Content: []provider.AssistantPart{provider.ReasoningPart{Text: "r"}}, ProviderOptions: po},
		provider.ToolMessage{}, provider.ToolMessage{Content: []provider.ToolPart{provider.ToolResultPart{ToolCallID: "c"}}, ProviderOptions: po},
		provider.TextPart{}, provider.TextPart{Text: "a<b", ProviderOptions: po},
		provider.FilePart{}, provider.FilePart{Data: provider.FileBytes{Data: []byte{0, 1, 255}}, MediaType: "image/png", Filename: "f.png", ProviderOptions: po},
		provider.ReasoningPart{}, provider.ReasoningPart{Text: "t", ProviderOptions: po},
		provider.ReasoningFilePart{}, provider.ReasoningFilePart{Data: provider.FileURL{URL: "https://f"}, MediaType: "text/plain", ProviderOptions: po},
		provider.CustomPart{}, provider.CustomPart{Kind: "p.k", ProviderOptions: po},
		provider.ToolCallPart{}, provider.ToolCallPart{ToolCallID: "c", ToolName: "n", Input: in, ProviderExecuted: true, ProviderOptions: po},
		provider.ToolResultPart{}, provider.ToolResultPart{ToolCallID: "c", ToolName: "n", Output: provider.JSONOutput{Value: in}, ProviderOptions: po},
		provider.ToolApprovalRequestPart{}, provider.ToolApprovalRequestPart{ApprovalID: "a", ToolCallID: "c", Reason: "r", IsAutomatic: true, Signature: "s", InputSchemaInput: in, ProviderOptions: po},
		provider.ToolApprovalResponsePart{}, provider.ToolApprovalResponsePart{ApprovalID: "a", Approved: true, Reason: "r", ProviderExecuted: true, ProviderOptions: po},
		provider.TextOutput{}, provider.TextOutput{Value: "v", ProviderOptions: po},
		provider.JSONOutput{}, provider.JSONOutput{Value: in, ProviderOptions: po},
		provider.ExecutionDeniedOutput{}, provider.ExecutionDeniedOutput{Reason: "no", ProviderOptions: po},
		provider.ErrorTextOutput{}, provider.ErrorTextOutput{Value: "e", ProviderOptions: po},
		provider.ErrorJSONOutput{}, provider.ErrorJSONOutput{Value: in, ProviderOptions: po},
		provider.ContentOutput{}, provider.ContentOutput{Value: []provider.ContentOutputPart{provider.TextPart{Text: "x"}}, ProviderOptions: po},
		provider.FileBytes{}, provider.FileBytes{Data: []byte("abc")},
		provider.FileURL{}, provider.FileURL{URL: "u"},
		provider.FileReference{}, provider.FileReference{Reference: map[string]string{"p": "id"}},
		provider.FileText{}, provider.FileText{Text: "t"},
		provider.FunctionTool{}, provider.FunctionTool{Name: "n", Description: "d", InputSchema: in, InputExamples: []json.RawMessage{in, nil}, Strict: &strict, ProviderOptions: po},
		provider.ProviderTool{}, provider.ProviderTool{ID: "p.t", Name: "t", Args: map[string]any{"a": 1}},
		provider.Text{}, provider.Text{Text: "t", Citations: cit, ProviderMetadata: po},
		provider.Reasoning{}, provider.Reasoning{Text: "r", ProviderMetadata: po},
		provider.Custom{}, provider.Custom{Kind: "k", ProviderMetadata: po},
		provider.File{}, provider.File{MediaType: "m", Data: provider.FileBytes{Data: []byte{1}}, ProviderMetadata: po},
		provider.ReasoningFile{}, provider.ReasoningFile{MediaType: "m", Data: provider.FileText{Text: "x"}, ProviderMetadata: po},
		provider.Source{}, src, provider.Source{SourceType: provider.SourceDocument, ID: "d", MediaType: "m", Title: "t", Filename: "f"},
		provider.ToolCall{}, provider.ToolCall{ToolCallID: "c", ToolName: "n", Input: `{"a":`, ProviderExecuted: true, Dynamic: true, ProviderMetadata: po},
		provider.ToolResult{}, provider.ToolResult{ToolCallID: "c", ToolName: "n", Result: in, IsError: true, Preliminary: true, Dynamic: true, ProviderMetadata: po},
		provider.ToolApprovalRequest{}, provider.ToolApprovalRequest{ApprovalID: "a", ToolCallID: "c", ProviderMetadata: po},
		provider.StreamStart{}, provider.StreamStart{Warnings: []provider.Warning{{Type: "other", Message: "m"}}},
		provider.ResponseMetadata{}, provider.ResponseMetadata{ID: "r", Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), ModelID: "m"},
		provider.TextStart{}, provider.TextStart{ID: "i", ProviderMetadata: po},
		provider.TextDelta{}, provider.TextDelta{ID: "i", Delta: "d", ProviderMetadata: po},
		provider.TextEnd{}, provider.TextEnd{ID: "i", Citations: cit, ProviderMetadata: po},
		provider.ReasoningStart{}, provider.ReasoningStart{ID: "i", ProviderMetadata: po},
		provider.ReasoningDelta{}, provider.ReasoningDelta{ID: "i", Delta: "d", ProviderMetadata: po},
		provider.ReasoningEnd{}, provider.ReasoningEnd{ID: "i", ProviderMetadata: po},
		provider.ToolInputStart{}, provider.ToolInputStart{ID: "i", ToolName: "n", InputEncoding: "text", ProviderExecuted: true, Dynamic: true, Title: "t", ProviderMetadata: po},
		provider.ToolInputDelta{}, provider.ToolInputDelta{ID: "i", Delta: "d", ProviderMetadata: po},
		provider.ToolInputEnd{}, provider.ToolInputEnd{ID: "i", ProviderMetadata: po},
		provider.Finish{}, provider.Finish{FinishReason: provider.FinishReason{Unified: provider.FinishStop, Raw: "end"}, Usage: provider.Usage{InputTokens: provider.InputTokens{Total: new(int)}}, ProviderMetadata: po},
		provider.Ping{},
		provider.Raw{}, provider.Raw{RawValue: in},
		provider.ErrorPart{}, provider.ErrorPart{Err: errors.New("boom <x>")},
	}
}

// The JSON of every value stays byte for byte what testdata/wire.golden
// records.
func TestWireGolden(t *testing.T) {
	golden.CheckJSON(t, filepath.Join("testdata", "wire.golden"), wireValues())
}
