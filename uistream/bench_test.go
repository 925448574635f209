package uistream_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/uistream"
)

// benchParts is one step of a typical chat turn: a reasoning block, a text
// block of many small deltas, a tool call whose input streams and its
// result, then the finish.
func benchParts() []ai.Part {
	meta := ai.ProviderMetadata{"p": {"k": "v"}}
	parts := []ai.Part{ai.Start{}, ai.StartStep{}, ai.ReasoningStart{ID: "r"}}
	for i := range 20 {
		parts = append(parts, ai.ReasoningDelta{ID: "r", Delta: fmt.Sprintf("thought %d <&> ", i)})
	}
	parts = append(parts, ai.ReasoningEnd{ID: "r"}, ai.TextStart{ID: "t"})
	for i := range 200 {
		parts = append(parts, ai.TextDelta{ID: "t", Delta: fmt.Sprintf("word%d ", i)})
	}
	parts = append(parts, ai.TextEnd{ID: "t", ProviderMetadata: meta},
		ai.ToolInputStart{ID: "c1", ToolName: "weather"})
	for _, d := range []string{`{"ci`, `ty":`, `"Par`, `is"}`} {
		parts = append(parts, ai.ToolInputDelta{ID: "c1", Delta: d})
	}
	input := json.RawMessage(`{"city":"Paris"}`)
	parts = append(parts, ai.ToolInputEnd{ID: "c1"},
		ai.ToolCall{ToolCallID: "c1", ToolName: "weather", Input: input},
		ai.ToolResult{ToolCallID: "c1", ToolName: "weather", Input: input, Output: map[string]any{"temp": 21, "sky": "clear"}},
		ai.ToolCall{ToolCallID: "c2", ToolName: "weather", Input: input},
		ai.ToolError{ToolCallID: "c2", ToolName: "weather", Input: input, Error: errors.New("no station")},
		ai.FinishStep{FinishReason: ai.FinishToolCalls},
		ai.Finish{FinishReason: ai.FinishStop})
	return parts
}

// discard is a flushable response writer that throws the body away.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}
func (d *discard) Flush()                      {}

// BenchmarkWriteTurn streams one chat turn to a response writer: the
// conversion of parts to chunks, their encoding and the event framing.
func BenchmarkWriteTurn(b *testing.B) {
	parts := benchParts()
	seq := func(yield func(ai.Part, error) bool) {
		for _, p := range parts {
			if !yield(p, nil) {
				return
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := uistream.Write(&discard{h: http.Header{}}, seq, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalChunks encodes the chunks of one chat turn.
func BenchmarkMarshalChunks(b *testing.B) {
	parts := benchParts()
	var chunks []uistream.Chunk
	for c := range uistream.Chunks(func(yield func(ai.Part, error) bool) {
		for _, p := range parts {
			if !yield(p, nil) {
				return
			}
		}
	}, nil) {
		chunks = append(chunks, c)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range chunks {
			data, err := uistream.Marshal(c)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Discard.Write(data)
		}
	}
}
