package aiotel_test

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aiotel"
	"github.com/aisdkgo/ai/provider"
)

// benchModel answers step n with responses[n].
type benchModel struct {
	responses []*provider.GenerateResult
	step      int
}

func (m *benchModel) Provider() string { return "bench" }
func (m *benchModel) ModelID() string  { return "bench" }
func (m *benchModel) Generate(context.Context, *provider.CallOptions) (*provider.GenerateResult, error) {
	r := m.responses[m.step]
	m.step++
	return r, nil
}
func (m *benchModel) Stream(context.Context, *provider.CallOptions) (*provider.StreamResult, error) {
	panic("not used")
}

type loopIn struct {
	X float64 `json:"x,omitempty"`
}

type loopOut struct {
	Y float64 `json:"y"`
}

// benchLoop3 is the generation of the root package's
// BenchmarkGenerateTextLoop3 (three steps, two tool calls) with an
// observer.
func benchLoop3(b *testing.B, obs ai.Observer) {
	tool := ai.NewTool(ai.ToolDef[loopIn, loopOut]{
		Description: "a",
		Execute: func(_ context.Context, in loopIn, _ ai.ToolExecutionOptions) (loopOut, error) {
			return loopOut{Y: in.X}, nil
		},
	})
	tools := ai.Tools{{Name: "a", Tool: tool}}
	usage := provider.Usage{InputTokens: provider.InputTokens{Total: new(1)}, OutputTokens: provider.OutputTokens{Total: new(1)}}
	responses := []*provider.GenerateResult{
		{Content: []provider.Content{provider.ToolCall{ToolCallID: "c1", ToolName: "a", Input: `{"x":1}`}},
			FinishReason: provider.FinishReason{Unified: provider.FinishToolCalls}, Usage: usage},
		{Content: []provider.Content{provider.ToolCall{ToolCallID: "c2", ToolName: "a", Input: `{"x":1}`}},
			FinishReason: provider.FinishReason{Unified: provider.FinishToolCalls}, Usage: usage},
		{Content: []provider.Content{provider.Text{Text: "done"}},
			FinishReason: provider.FinishReason{Unified: provider.FinishStop}, Usage: usage},
	}
	ctx := context.Background()
	stop := ai.StepCountIs(5)
	b.ReportAllocs()
	for b.Loop() {
		res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
			Model: &benchModel{responses: responses}, Tools: tools, StopWhen: stop, Prompt: "x", Observer: obs,
		})
		if err != nil || res.Text != "done" {
			b.Fatalf("unexpected result: %v %+v", err, res)
		}
	}
}

// BenchmarkGenerateTextLoop3Traced measures the cost of tracing a
// generation: with no observer, with spans that are not sampled, with
// sampled spans, with sampled spans and metrics, and with prompts and
// outputs recorded as well.
func BenchmarkGenerateTextLoop3Traced(b *testing.B) {
	b.Run("no observer", func(b *testing.B) { benchLoop3(b, nil) })
	b.Run("not sampled", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
		benchLoop3(b, aiotel.NewObserver(&aiotel.Options{TracerProvider: tp}))
	})
	b.Run("sampled", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
		benchLoop3(b, aiotel.NewObserver(&aiotel.Options{TracerProvider: tp}))
	})
	b.Run("sampled and metered", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		benchLoop3(b, aiotel.NewObserver(&aiotel.Options{TracerProvider: tp, MeterProvider: mp}))
	})
	b.Run("sampled with prompts", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
		benchLoop3(b, aiotel.NewObserver(&aiotel.Options{TracerProvider: tp, RecordInputs: true, RecordOutputs: true}))
	})
}
