package aiotel_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aiotel"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

func ExampleNewObserver() {
	// In a program, the tracer provider exports to a collector
	// (otlptracehttp) and is usually the global one.
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))

	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Hello!")}})
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:    model,
		Prompt:   "Say hello.",
		Observer: aiotel.NewObserver(&aiotel.Options{TracerProvider: tp}),
	})
	if err != nil {
		panic(err)
	}
	for _, s := range exporter.GetSpans() {
		fmt.Println(s.Name)
	}
	// Output:
	// chat scripted
	// step 0
	// invoke_agent scripted
}
