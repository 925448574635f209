package aiotel_test

import (
	"context"
	"fmt"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
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

func ExampleNewObserver_metrics() {
	// In a program, the meter provider exports to a collector
	// (otlpmetrichttp with a periodic reader) and is usually the global one.
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))

	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Hello!")},
		Usage: provider.Usage{InputTokens: provider.InputTokens{Total: new(12)}, OutputTokens: provider.OutputTokens{Total: new(3)}}})
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:     model,
		Prompt:    "Say hello.",
		Telemetry: ai.TelemetrySettings{FunctionID: "greet"},
		Observer:  aiotel.NewObserver(&aiotel.Options{MeterProvider: mp}),
	})
	if err != nil {
		panic(err)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[int64]); ok {
				for _, p := range h.DataPoints {
					typ, _ := p.Attributes.Value("gen_ai.token.type")
					fn, _ := p.Attributes.Value("ai.telemetry.functionId")
					fmt.Println(m.Name, typ.AsString(), p.Sum, fn.AsString())
				}
			}
		}
	}
	// Unordered output:
	// gen_ai.client.token.usage input 12 greet
	// gen_ai.client.token.usage output 3 greet
}
