package aiotel_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aiotel"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// The function id and metadata of a generation's telemetry settings are
// on every span of the generation and on every measurement.
func TestTelemetrySettings(t *testing.T) {
	m := newMeters(t)
	rec := newRecorder(t)
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "weather", `{"city":"Paris"}`)}, FinishReason: aitest.ToolCalls, Usage: usage},
		aitest.Response{Content: []provider.Content{aitest.Text("Rain.")}, Usage: usage},
	)
	tools := ai.Tools{{Name: "weather", Tool: ai.NewTool(ai.ToolDef[cityIn, string]{
		Description: "Weather of a city.",
		Execute:     func(_ context.Context, in cityIn, _ ai.ToolExecutionOptions) (string, error) { return "rain", nil },
	})}}
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "Weather in Paris?", Tools: tools, StopWhen: ai.StepCountIs(3),
		Telemetry: ai.TelemetrySettings{FunctionID: "forecast", Metadata: map[string]any{
			"user": "u-1", "plan": []string{"pro", "beta"}, "attempt": 2, "ratio": 0.5, "vip": true,
			"extra": map[string]int{"a": 1}, "none": nil,
		}},
		Observer: aiotel.NewObserver(&aiotel.Options{TracerProvider: rec.tp, MeterProvider: m.mp}),
	})
	require.NoError(t, err)

	want := map[string]attribute.Value{
		"ai.telemetry.functionId":       attribute.StringValue("forecast"),
		"ai.telemetry.metadata.user":    attribute.StringValue("u-1"),
		"ai.telemetry.metadata.plan":    attribute.StringSliceValue([]string{"pro", "beta"}),
		"ai.telemetry.metadata.attempt": attribute.IntValue(2),
		"ai.telemetry.metadata.ratio":   attribute.Float64Value(0.5),
		"ai.telemetry.metadata.vip":     attribute.BoolValue(true),
		"ai.telemetry.metadata.extra":   attribute.StringValue(`{"a":1}`),
	}
	spans := rec.sr.Ended()
	require.Len(t, spans, 6, "generation, two steps, two model calls, one tool call")
	for _, s := range spans {
		a := attrs(s)
		for k, v := range want {
			assert.Equal(t, v, a[attribute.Key(k)], "%s on span %s", k, s.Name())
		}
		assert.NotContains(t, a, attribute.Key("ai.telemetry.metadata.none"), "a nil value is not recorded")
	}
	assert.Equal(t, "forecast", attr(t, rec.span(t, "invoke_agent scripted"), "gen_ai.agent.name").AsString(),
		"the function id names the agent")

	for _, name := range []string{"gen_ai.client.operation.duration", "gen_ai.client.token.usage"} {
		mt := m.metric(t, name)
		var sets []attribute.Set
		switch d := mt.Data.(type) {
		case metricdata.Histogram[float64]:
			for _, p := range d.DataPoints {
				sets = append(sets, p.Attributes)
			}
		case metricdata.Histogram[int64]:
			for _, p := range d.DataPoints {
				sets = append(sets, p.Attributes)
			}
		}
		require.NotEmpty(t, sets, name)
		for _, s := range sets {
			for k, v := range want {
				got, _ := s.Value(attribute.Key(k))
				assert.Equal(t, v, got, "%s on %s", k, name)
			}
		}
	}
}

// An agent name set on the observer wins over the function id.
func TestAgentNameOverFunctionID(t *testing.T) {
	rec := newRecorder(t)
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Hi")}})
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "Hi", Telemetry: ai.TelemetrySettings{FunctionID: "greet"},
		Observer: rec.observer(aiotel.Options{AgentName: "concierge"}),
	})
	require.NoError(t, err)
	root := rec.span(t, "invoke_agent scripted")
	assert.Equal(t, "concierge", attr(t, root, "gen_ai.agent.name").AsString())
	assert.Equal(t, "greet", attr(t, root, "ai.telemetry.functionId").AsString())
}
