package ai_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/golden"
	"github.com/aisdkgo/ai/provider"
)

// wireValues holds every part and content value, once bare and once with
// every field set (strings with characters JSON escapes).
func wireValues() []any {
	pm := ai.ProviderMetadata{"p": {"k": "v<&>"}}
	in := json.RawMessage(`{ "city": "Paris" }`)
	src := ai.Source{SourceType: ai.SourceURL, ID: "s", URL: "https://x/?a=1&b=<2>", Title: "T", ProviderMetadata: pm}
	cit := []ai.Citation{{Source: provider.Source{ID: "s"}, CitedText: "c"}}
	call := ai.ToolCall{ToolCallID: "c", ToolName: "n", Input: in, ProviderExecuted: true, Dynamic: true, Invalid: true,
		ProviderMetadata: pm, Error: errors.New("bad <input>"), Title: "t", ToolMetadata: map[string]any{"m": 1}}
	n := 3
	usage := ai.Usage{InputTokens: &n, OutputTokenDetails: ai.OutputTokenDetails{TextTokens: &n}, Raw: in}
	return []any{
		ai.Start{}, ai.StartStep{}, ai.StartStep{Warnings: []ai.Warning{{Type: "other", Message: "m"}}},
		ai.TextStart{}, ai.TextStart{ID: "i", ProviderMetadata: pm},
		ai.TextDelta{}, ai.TextDelta{ID: "i", Delta: "a<b", ProviderMetadata: pm},
		ai.TextEnd{}, ai.TextEnd{ID: "i", Citations: cit, ProviderMetadata: pm},
		ai.ReasoningStart{}, ai.ReasoningStart{ID: "i", ProviderMetadata: pm},
		ai.ReasoningDelta{}, ai.ReasoningDelta{ID: "i", Delta: "t", ProviderMetadata: pm},
		ai.ReasoningEnd{}, ai.ReasoningEnd{ID: "i", ProviderMetadata: pm},
		ai.ToolInputStart{}, ai.ToolInputStart{ID: "i", ToolName: "n", InputEncoding: "text", ProviderExecuted: true, Dynamic: true, Title: "t", ToolMetadata: map[string]any{"m": 1}, ProviderMetadata: pm},
		ai.ToolInputDelta{}, ai.ToolInputDelta{ID: "i", Delta: "d", ProviderMetadata: pm},
		ai.ToolInputEnd{}, ai.ToolInputEnd{ID: "i", ProviderMetadata: pm},
		ai.ToolOutputDenied{}, ai.ToolOutputDenied{ToolCallID: "c", ToolName: "n"},
		ai.FinishStep{}, ai.FinishStep{FinishReason: ai.FinishStop, RawFinishReason: "end", Usage: usage, ProviderMetadata: pm},
		ai.Finish{}, ai.Finish{FinishReason: ai.FinishLength, RawFinishReason: "max", TotalUsage: usage},
		ai.Abort{}, ai.Abort{Reason: "gone"},
		ai.ErrorPart{}, ai.ErrorPart{Err: errors.New("boom <x>")},
		ai.Raw{}, ai.Raw{RawValue: in},
		ai.Ping{},
		ai.Text{}, ai.Text{Text: "t", Citations: cit, ProviderMetadata: pm},
		ai.Reasoning{}, ai.Reasoning{Text: "r", ProviderMetadata: pm},
		ai.File{}, ai.File{MediaType: "m", Data: ai.FileBytes{Data: []byte{1}}, ProviderMetadata: pm},
		ai.ReasoningFile{}, ai.ReasoningFile{MediaType: "m", Data: ai.FileURL{URL: "u"}, ProviderMetadata: pm},
		ai.Source{}, src,
		ai.Custom{}, ai.Custom{Kind: "k", ProviderMetadata: pm},
		ai.ToolCall{}, call,
		ai.ToolResult{}, ai.ToolResult{ToolCallID: "c", ToolName: "n", Input: in, Output: map[string]any{"a": "<b>"}, ProviderExecuted: true, Dynamic: true, Preliminary: true, ToolMetadata: map[string]any{"m": 1}, ProviderMetadata: pm},
		ai.ToolError{}, ai.ToolError{ToolCallID: "c", ToolName: "n", Input: in, Error: errors.New("e"), ProviderExecuted: true, Dynamic: true, ToolMetadata: map[string]any{"m": 1}, ProviderMetadata: pm},
		ai.ToolApprovalRequest{}, ai.ToolApprovalRequest{ApprovalID: "a", ToolCall: call, Reason: "r", IsAutomatic: true, Signature: "s"},
		ai.ToolApprovalResponse{}, ai.ToolApprovalResponse{ApprovalID: "a", ToolCall: call, Approved: true, Reason: "r", ProviderExecuted: true},
		ai.Usage{}, usage,
	}
}

// The JSON of every part and content value stays byte for byte what
// testdata/wire.golden records.
func TestWireGolden(t *testing.T) {
	golden.CheckJSON(t, filepath.Join("testdata", "wire.golden"), wireValues())
}
