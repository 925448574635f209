package uistream_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/golden"
	"github.com/aisdkgo/ai/uistream"
)

// wireChunks holds every chunk type, once bare and once with every field
// set (strings with characters JSON escapes).
func wireChunks() []uistream.Chunk {
	pm := ai.ProviderMetadata{"p": {"k": "v<&>"}}
	in := json.RawMessage(`{ "city": "Paris" }`)
	tm := map[string]any{"m": "<1>"}
	yes, no := true, false
	return []uistream.Chunk{
		uistream.Start{}, uistream.Start{MessageID: "m", MessageMetadata: map[string]any{"a": "<b>"}},
		uistream.StartStep{}, uistream.FinishStep{},
		uistream.Finish{}, uistream.Finish{FinishReason: ai.FinishStop, MessageMetadata: 1},
		uistream.Abort{}, uistream.Abort{Reason: "r"},
		uistream.Error{}, uistream.Error{ErrorText: "e <x>"},
		uistream.MessageMetadata{}, uistream.MessageMetadata{MessageMetadata: []int{1}},
		uistream.TextStart{}, uistream.TextStart{ID: "i", ProviderMetadata: pm},
		uistream.TextDelta{}, uistream.TextDelta{ID: "i", Delta: "a<b&c", ProviderMetadata: pm},
		uistream.TextEnd{}, uistream.TextEnd{ID: "i", Citations: []string{"c"}, ProviderMetadata: pm},
		uistream.ReasoningStart{}, uistream.ReasoningStart{ID: "i", ProviderMetadata: pm},
		uistream.ReasoningDelta{}, uistream.ReasoningDelta{ID: "i", Delta: "d", ProviderMetadata: pm},
		uistream.ReasoningEnd{}, uistream.ReasoningEnd{ID: "i", ProviderMetadata: pm},
		uistream.ToolInputStart{}, uistream.ToolInputStart{ToolCallID: "c", ToolName: "n", InputEncoding: "text", ProviderExecuted: true, ProviderMetadata: pm, ToolMetadata: tm, Dynamic: &yes, Title: "t"},
		uistream.ToolInputDelta{}, uistream.ToolInputDelta{ToolCallID: "c", InputTextDelta: "{"},
		uistream.ToolInputAvailable{}, uistream.ToolInputAvailable{ToolCallID: "c", ToolName: "n", Input: in, ProviderExecuted: true, ProviderMetadata: pm, ToolMetadata: tm, Dynamic: &no, Title: "t"},
		uistream.ToolInputError{}, uistream.ToolInputError{ToolCallID: "c", ToolName: "n", Input: in, ProviderExecuted: true, ProviderMetadata: pm, ToolMetadata: tm, Dynamic: &yes, ErrorText: "e", Title: "t"},
		uistream.ToolApprovalRequest{}, uistream.ToolApprovalRequest{ApprovalID: "a", ToolCallID: "c", InputSchemaInput: in, Reason: "r", IsAutomatic: true, Signature: "s"},
		uistream.ToolApprovalResponse{}, uistream.ToolApprovalResponse{ApprovalID: "a", Approved: true, Reason: "r", ProviderExecuted: true},
		uistream.ToolOutputAvailable{}, uistream.ToolOutputAvailable{ToolCallID: "c", Output: map[string]any{"x": "<y>"}, ProviderExecuted: true, ProviderMetadata: pm, ToolMetadata: tm, Preliminary: true, Dynamic: &no},
		uistream.ToolOutputError{}, uistream.ToolOutputError{ToolCallID: "c", ErrorText: "e", ProviderExecuted: true, ProviderMetadata: pm, ToolMetadata: tm, Dynamic: &yes},
		uistream.ToolOutputDenied{}, uistream.ToolOutputDenied{ToolCallID: "c"},
		uistream.SourceURL{}, uistream.SourceURL{SourceID: "s", URL: "https://x/?a&b", Title: "t", ProviderMetadata: pm},
		uistream.SourceDocument{}, uistream.SourceDocument{SourceID: "s", MediaType: "m", Title: "t", Filename: "f", ProviderMetadata: pm},
		uistream.File{}, uistream.File{MediaType: "m", URL: "data:x", ProviderMetadata: pm},
		uistream.ReasoningFile{}, uistream.ReasoningFile{MediaType: "m", URL: "data:x", ProviderMetadata: pm},
		uistream.Custom{}, uistream.Custom{Kind: "k", ProviderMetadata: pm},
		uistream.Data{}, uistream.Data{Name: "n\"<", ID: "i", Data: map[string]any{"a": 1}, Transient: true},
	}
}

// Every chunk's wire form, as Marshal writes it and as encoding/json writes
// it, stays byte for byte what testdata/wire.golden records.
func TestWireGolden(t *testing.T) {
	var got bytes.Buffer
	for _, c := range wireChunks() {
		data, err := uistream.Marshal(c)
		if err != nil {
			t.Fatalf("%T: %v", c, err)
		}
		std, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("%T: %v", c, err)
		}
		fmt.Fprintf(&got, "%T %s\n%T %s\n", c, data, c, std)
	}
	golden.Check(t, filepath.Join("testdata", "wire.golden"), got.Bytes())
}
