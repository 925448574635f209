// Command telemetry traces a tool search run with OpenTelemetry and prints
// its span tree: the generation, each step, each model call and each tool
// call, with the main gen_ai.* attributes.
//
// It runs on a scripted model (no key, no network):
//
//	go run ./examples/telemetry            # the span tree
//	go run ./examples/telemetry -stream    # the same run with StreamText
//	go run ./examples/telemetry -json      # the spans as the stdout exporter writes them
//	go run ./examples/telemetry -record    # also record prompts and outputs
//
// To send the spans to a collector instead, point -otlp at its OTLP/HTTP
// traces endpoint (for example http://localhost:4318/v1/traces).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aiotel"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

type cityIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type noteIn struct {
	Text string `json:"text"`
}

// tools returns a search tool and deferred tools; the forecast tool starts
// a span of its own, which nests under its tool call's span.
func tools(tp trace.TracerProvider) ai.Tools {
	return ai.Tools{
		{Name: "search", Tool: ai.ToolSearch()},
		{Name: "getForecast", Tool: ai.NewTool(ai.ToolDef[cityIn, string]{
			Description:  "Get the weather forecast for a city for tomorrow.",
			DeferLoading: true,
			Execute: func(ctx context.Context, in cityIn, _ ai.ToolExecutionOptions) (string, error) {
				_, span := tp.Tracer("weather-service").Start(ctx, "GET /forecast")
				defer span.End()
				span.SetAttributes(attribute.String("city", in.City))
				return "heavy rain in the afternoon, 24°C", nil
			},
		})},
		{Name: "saveNote", Tool: ai.NewTool(ai.ToolDef[noteIn, string]{
			Description:  "Save a note for the user.",
			DeferLoading: true,
			Execute: func(context.Context, noteIn, ai.ToolExecutionOptions) (string, error) {
				return "saved", nil
			},
		})},
	}
}

// scriptedModel answers like a model would: it searches, calls what it
// found, and answers.
func scriptedModel() provider.LanguageModel {
	usage := provider.Usage{InputTokens: provider.InputTokens{Total: new(120)}, OutputTokens: provider.OutputTokens{Total: new(18)}}
	return &aitest.Model{ModelName: "scripted", Respond: func(_ context.Context, call int, _ *provider.CallOptions) (aitest.Response, error) {
		call1 := func(id, name, input string) aitest.Response {
			return aitest.Response{Content: []provider.Content{aitest.ToolCall(id, name, input)}, FinishReason: aitest.ToolCalls, Usage: usage}
		}
		switch call {
		case 0:
			return call1("call-1", "search", `{"query":"weather forecast"}`), nil
		case 1:
			return call1("call-2", "getForecast", `{"city":"Lisbon"}`), nil
		}
		return aitest.Response{Content: []provider.Content{aitest.Text("Yes: heavy rain tomorrow afternoon in Lisbon.")}, Usage: usage}, nil
	}}
}

func main() {
	stream := flag.Bool("stream", false, "run with StreamText")
	asJSON := flag.Bool("json", false, "print the spans with the OpenTelemetry stdout exporter")
	record := flag.Bool("record", false, "record prompts and outputs in the spans")
	otlp := flag.String("otlp", "", "an OTLP/HTTP traces endpoint to export to")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *stream, *asJSON, *record, *otlp); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer, stream, asJSON, record bool, otlp string) error {
	var exp sdktrace.SpanExporter
	tree := &treeExporter{out: out}
	switch {
	case otlp != "":
		e, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(otlp))
		if err != nil {
			return err
		}
		exp = e
	case asJSON:
		e, err := stdouttrace.New(stdouttrace.WithWriter(out), stdouttrace.WithPrettyPrint())
		if err != nil {
			return err
		}
		exp = e
	default:
		exp = tree
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))

	opts := ai.GenerateTextOptions{
		Model:        scriptedModel(),
		Instructions: "You help with the weather. Find the tools you need with the search tool.",
		Tools:        tools(tp),
		StopWhen:     ai.StepCountIs(5),
		Prompt:       "Will it rain in Lisbon tomorrow?",
		Observer:     aiotel.NewObserver(&aiotel.Options{TracerProvider: tp, RecordInputs: record, RecordOutputs: record}),
	}
	var text string
	if stream {
		res, err := ai.StreamText(ctx, opts)
		if err != nil {
			return err
		}
		if text, err = res.Text(); err != nil {
			return err
		}
	} else {
		res, err := ai.GenerateText(ctx, opts)
		if err != nil {
			return err
		}
		text = res.Text
	}
	if err := tp.Shutdown(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nanswer: %s\n", text)
	return nil
}

// treeExporter keeps the spans and prints them as a tree when it shuts
// down.
type treeExporter struct {
	out   io.Writer
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

func (e *treeExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.spans = append(e.spans, spans...)
	return nil
}

// shown are the attributes printed beside each span.
var shown = []attribute.Key{
	"gen_ai.operation.name", "gen_ai.request.model", "gen_ai.provider.name", "gen_ai.tool.name", "gen_ai.tool.call.id",
	"ai.step.tools", "ai.step.discovered_tools", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
	"gen_ai.response.finish_reasons", "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments",
	"gen_ai.tool.call.result", "city",
}

func (e *treeExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	spans := slices.Clone(e.spans)
	slices.SortStableFunc(spans, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	var print func(parent trace.SpanID, depth int)
	print = func(parent trace.SpanID, depth int) {
		for _, s := range spans {
			if s.Parent().SpanID() != parent {
				continue
			}
			indent := strings.Repeat("  ", depth)
			status := ""
			if s.Status().Code == codes.Error {
				status = " [error: " + s.Status().Description + "]"
			}
			fmt.Fprintf(e.out, "%s%s (%s)%s\n", indent, s.Name(), s.EndTime().Sub(s.StartTime()).Round(time.Microsecond), status)
			attrs := map[attribute.Key]attribute.Value{}
			for _, kv := range s.Attributes() {
				attrs[kv.Key] = kv.Value
			}
			for _, k := range shown {
				if v, ok := attrs[k]; ok {
					fmt.Fprintf(e.out, "%s    %s = %s\n", indent, k, v.String())
				}
			}
			print(s.SpanContext().SpanID(), depth+1)
		}
	}
	print(trace.SpanID{}, 0)
	return nil
}
