package ai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// The workload every Go peer library runs: one typed tool weather{city}
// returning a string, and a stateless fake model that counts the tool
// results in its prompt (0 and 1: a tool call for Paris, then Berlin; 2:
// the answer). Each generation is 3 model calls and 2 tool executions.

type peerWeatherIn struct {
	City string `json:"city" jsonschema:"City name"`
}

var peerCities = []string{"Paris", "Berlin"}

type peerModel struct{}

func (peerModel) Provider() string { return "fake" }
func (peerModel) ModelID() string  { return "fake" }

func peerToolResults(p []provider.Message) int {
	n := 0
	for _, m := range p {
		if tm, ok := m.(provider.ToolMessage); ok {
			n += len(tm.Content)
		}
	}
	return n
}

var peerUsage = provider.Usage{
	InputTokens:  provider.InputTokens{Total: new(10)},
	OutputTokens: provider.OutputTokens{Total: new(5)},
}

func (peerModel) Generate(_ context.Context, call *provider.CallOptions) (*provider.GenerateResult, error) {
	n := peerToolResults(call.Prompt)
	if n < len(peerCities) {
		in, _ := json.Marshal(peerWeatherIn{City: peerCities[n]})
		return &provider.GenerateResult{
			Content:      []provider.Content{provider.ToolCall{ToolCallID: fmt.Sprintf("call_%d", n), ToolName: "weather", Input: string(in)}},
			FinishReason: provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_calls"},
			Usage:        peerUsage,
		}, nil
	}
	return &provider.GenerateResult{
		Content:      []provider.Content{provider.Text{Text: "Sunny in Paris and Berlin."}},
		FinishReason: provider.FinishReason{Unified: provider.FinishStop, Raw: "stop"},
		Usage:        peerUsage,
	}, nil
}

func (peerModel) Stream(_ context.Context, call *provider.CallOptions) (*provider.StreamResult, error) {
	n := peerToolResults(call.Prompt)
	return &provider.StreamResult{Stream: func(yield func(provider.StreamPart, error) bool) {
		if n < len(peerCities) {
			id := fmt.Sprintf("call_%d", n)
			in, _ := json.Marshal(peerWeatherIn{City: peerCities[n]})
			_ = yield(provider.ToolInputStart{ID: id, ToolName: "weather"}, nil) &&
				yield(provider.ToolInputDelta{ID: id, Delta: string(in)}, nil) &&
				yield(provider.ToolInputEnd{ID: id}, nil) &&
				yield(provider.ToolCall{ToolCallID: id, ToolName: "weather", Input: string(in)}, nil) &&
				yield(provider.Finish{FinishReason: provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_calls"}, Usage: peerUsage}, nil)
			return
		}
		_ = yield(provider.TextStart{ID: "t"}, nil) &&
			yield(provider.TextDelta{ID: "t", Delta: "Sunny in Paris and Berlin."}, nil) &&
			yield(provider.TextEnd{ID: "t"}, nil) &&
			yield(provider.Finish{FinishReason: provider.FinishReason{Unified: provider.FinishStop, Raw: "stop"}, Usage: peerUsage}, nil)
	}}, nil
}

var peerWeather = ai.NewTool(ai.ToolDef[peerWeatherIn, string]{
	Description: "Get the weather for a city.",
	Execute: func(_ context.Context, in peerWeatherIn, _ ai.ToolExecutionOptions) (string, error) {
		return "sunny in " + in.City, nil
	},
})

func peerOptions() ai.GenerateTextOptions {
	return ai.GenerateTextOptions{
		Model:    peerModel{},
		Tools:    ai.Tools{{Name: "weather", Tool: peerWeather}},
		StopWhen: ai.StepCountIs(5),
		Prompt:   "Weather in Paris, then Berlin?",
	}
}

func TestPeerLoop(t *testing.T) {
	res, err := ai.GenerateText(context.Background(), peerOptions())
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, s := range res.Steps {
		calls += len(s.ToolResults())
	}
	if len(res.Steps) != 3 || calls != 2 || res.Text != "Sunny in Paris and Berlin." {
		t.Fatalf("steps=%d calls=%d text=%q", len(res.Steps), calls, res.Text)
	}
	st, err := ai.StreamText(context.Background(), peerOptions())
	if err != nil {
		t.Fatal(err)
	}
	text, err := st.Text()
	if err != nil || text != "Sunny in Paris and Berlin." {
		t.Fatalf("stream text=%q err=%v", text, err)
	}
	if steps, _ := st.Steps(); len(steps) != 3 {
		t.Fatalf("stream steps=%d", len(steps))
	}
}

// BenchmarkPeerLoopGenerate is the Go peers' shared workload through
// GenerateText.
func BenchmarkPeerLoopGenerate(b *testing.B) {
	ctx := context.Background()
	o := peerOptions()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ai.GenerateText(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPeerLoopStream is the same workload through StreamText, the
// stream read to the end.
func BenchmarkPeerLoopStream(b *testing.B) {
	ctx := context.Background()
	o := peerOptions()
	b.ReportAllocs()
	for b.Loop() {
		st, err := ai.StreamText(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range st.Parts() {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
