package aiotel_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aiotel"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// meters is a meter provider whose measurements are read on demand.
type meters struct {
	mp     *sdkmetric.MeterProvider
	reader *sdkmetric.ManualReader
}

func newMeters(t *testing.T) *meters {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	return &meters{mp: mp, reader: reader}
}

// metric collects the metric with a name from aiotel's scope.
func (m *meters) metric(t *testing.T, name string) metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, m.reader.Collect(context.Background(), &rm))
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != aiotel.ScopeName {
			continue
		}
		for _, mt := range sm.Metrics {
			if mt.Name == name {
				return mt
			}
		}
	}
	t.Fatalf("no metric %q", name)
	return metricdata.Metrics{}
}

// point finds the data point whose attributes include all of want.
func point[N int64 | float64](t *testing.T, pts []metricdata.HistogramDataPoint[N], want ...attribute.KeyValue) metricdata.HistogramDataPoint[N] {
	t.Helper()
	var found []metricdata.HistogramDataPoint[N]
	for _, p := range pts {
		ok := true
		for _, kv := range want {
			if v, has := p.Attributes.Value(kv.Key); !has || v != kv.Value {
				ok = false
				break
			}
		}
		if ok {
			found = append(found, p)
		}
	}
	require.Len(t, found, 1, "data points with %v among %d", want, len(pts))
	return found[0]
}

func hasKey(s attribute.Set, key string) bool {
	_, ok := s.Value(attribute.Key(key))
	return ok
}

// The scripted run makes two model calls (a tool call, then the answer)
// and two tool calls, one of them failing; a second generation fails in
// its model call. Every model call counts its input and output tokens and
// its duration, every tool call its duration, every generation its
// duration, with the attributes of the semantic conventions.
func TestGenAIMetrics(t *testing.T) {
	m := newMeters(t)
	rec := newRecorder(t)
	obs := aiotel.NewObserver(&aiotel.Options{TracerProvider: rec.tp, MeterProvider: m.mp})

	first := provider.Usage{InputTokens: provider.InputTokens{Total: new(10)}, OutputTokens: provider.OutputTokens{Total: new(5)}}
	second := provider.Usage{InputTokens: provider.InputTokens{Total: new(30)}, OutputTokens: provider.OutputTokens{Total: new(7)}}
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{
			aitest.ToolCall("c1", "weather", `{"city":"Paris"}`),
			aitest.ToolCall("c2", "broken", `{"city":"Paris"}`),
		}, FinishReason: aitest.ToolCalls, Usage: first, Response: &provider.ResponseInfo{ModelID: "scripted-2026"}},
		aitest.Response{Content: []provider.Content{aitest.Text("Rain.")}, Usage: second, Response: &provider.ResponseInfo{ModelID: "scripted-2026"}},
	)
	model.ProviderName = "openai.chat"
	tools := ai.Tools{
		{Name: "weather", Tool: ai.NewTool(ai.ToolDef[cityIn, string]{
			Description: "Weather of a city.",
			Execute: func(_ context.Context, in cityIn, _ ai.ToolExecutionOptions) (string, error) {
				return "rain in " + in.City, nil
			},
		})},
		{Name: "broken", Tool: ai.NewTool(ai.ToolDef[cityIn, string]{
			Description: "Always fails.",
			Execute:     func(context.Context, cityIn, ai.ToolExecutionOptions) (string, error) { return "", errors.New("down") },
		})},
	}
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "Weather in Paris?", Tools: tools, StopWhen: ai.StepCountIs(3), Observer: obs,
	})
	require.NoError(t, err)

	failing := aitest.NewModel(aitest.Response{Err: &provider.APICallError{Message: "overloaded", StatusCode: 500}})
	failing.ProviderName = "openai.chat"
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: failing, Prompt: "Hi", MaxRetries: new(0), Observer: obs,
	})
	require.Error(t, err)

	chat := attribute.String("gen_ai.operation.name", "chat")
	prov := attribute.String("gen_ai.provider.name", "openai")
	reqModel := attribute.String("gen_ai.request.model", "scripted")

	t.Run("token usage", func(t *testing.T) {
		mt := m.metric(t, "gen_ai.client.token.usage")
		assert.Equal(t, "{token}", mt.Unit)
		h, ok := mt.Data.(metricdata.Histogram[int64])
		require.True(t, ok, "token usage is an int64 histogram, not %T", mt.Data)
		require.Len(t, h.DataPoints, 2, "input and output of the successful calls; the failed call reported no usage")
		in := point(t, h.DataPoints, attribute.String("gen_ai.token.type", "input"))
		out := point(t, h.DataPoints, attribute.String("gen_ai.token.type", "output"))
		assert.Equal(t, uint64(2), in.Count)
		assert.Equal(t, int64(40), in.Sum)
		assert.Equal(t, uint64(2), out.Count)
		assert.Equal(t, int64(12), out.Sum)
		for _, p := range []metricdata.HistogramDataPoint[int64]{in, out} {
			for _, kv := range []attribute.KeyValue{chat, prov, reqModel, attribute.String("gen_ai.response.model", "scripted-2026")} {
				v, ok := p.Attributes.Value(kv.Key)
				assert.True(t, ok && v == kv.Value, "%s: %v", kv.Key, v.String())
			}
			assert.False(t, hasKey(p.Attributes, "error.type"))
		}
	})

	t.Run("operation duration", func(t *testing.T) {
		mt := m.metric(t, "gen_ai.client.operation.duration")
		assert.Equal(t, "s", mt.Unit)
		h, ok := mt.Data.(metricdata.Histogram[float64])
		require.True(t, ok, "operation duration is a float64 histogram, not %T", mt.Data)

		ok2 := point(t, h.DataPoints, chat, attribute.String("gen_ai.response.model", "scripted-2026"))
		assert.Equal(t, uint64(2), ok2.Count, "two successful model calls")
		assert.False(t, hasKey(ok2.Attributes, "error.type"))
		failed := point(t, h.DataPoints, chat, attribute.String("error.type", "*provider.APICallError"))
		assert.Equal(t, uint64(1), failed.Count)
		assert.Equal(t, "scripted", mustValue(t, failed.Attributes, "gen_ai.request.model"))
		assert.Equal(t, "openai", mustValue(t, failed.Attributes, "gen_ai.provider.name"))

		tool := attribute.String("gen_ai.operation.name", "execute_tool")
		weather := point(t, h.DataPoints, tool, attribute.String("gen_ai.tool.name", "weather"))
		assert.Equal(t, uint64(1), weather.Count)
		assert.False(t, hasKey(weather.Attributes, "error.type"))
		assert.Equal(t, "openai", mustValue(t, weather.Attributes, "gen_ai.provider.name"))
		assert.Equal(t, "scripted", mustValue(t, weather.Attributes, "gen_ai.request.model"))
		broken := point(t, h.DataPoints, tool, attribute.String("gen_ai.tool.name", "broken"))
		assert.Equal(t, uint64(1), broken.Count)
		assert.Equal(t, "*errors.errorString", mustValue(t, broken.Attributes, "error.type"))

		agent := attribute.String("gen_ai.operation.name", "invoke_agent")
		genFailed := point(t, h.DataPoints, agent, attribute.String("error.type", "*provider.APICallError"))
		assert.Equal(t, uint64(1), genFailed.Count)
		var gen *metricdata.HistogramDataPoint[float64]
		for i, p := range h.DataPoints {
			if v, _ := p.Attributes.Value("gen_ai.operation.name"); v.AsString() == "invoke_agent" && !hasKey(p.Attributes, "error.type") {
				require.Nil(t, gen, "one data point for the successful generation")
				gen = &h.DataPoints[i]
			}
		}
		require.NotNil(t, gen)
		assert.Equal(t, uint64(1), gen.Count)
		assert.Equal(t, "openai", mustValue(t, gen.Attributes, "gen_ai.provider.name"))
		assert.Equal(t, "scripted", mustValue(t, gen.Attributes, "gen_ai.request.model"))
		// A duration covers what it measures: the generation lasts at
		// least as long as its model calls.
		assert.GreaterOrEqual(t, gen.Sum, ok2.Sum)
	})
}

func mustValue(t *testing.T, s attribute.Set, key string) string {
	t.Helper()
	v, ok := s.Value(attribute.Key(key))
	require.True(t, ok, "no attribute %s", key)
	return v.String()
}

// A streamed generation whose spans are not sampled is measured all the
// same, its time to first chunk included.
func TestGenAIMetricsUnsampledStream(t *testing.T) {
	m := newMeters(t)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Hello")},
		Usage: provider.Usage{InputTokens: provider.InputTokens{Total: new(3)}, OutputTokens: provider.OutputTokens{Total: new(1)}}})
	_, err := generate(context.Background(), true, ai.GenerateTextOptions{Model: model, Prompt: "Hi",
		Observer: aiotel.NewObserver(&aiotel.Options{TracerProvider: tp, MeterProvider: m.mp})})
	require.NoError(t, err)

	first, ok := m.metric(t, "gen_ai.client.operation.time_to_first_chunk").Data.(metricdata.Histogram[float64])
	require.True(t, ok)
	require.Len(t, first.DataPoints, 1)
	assert.Equal(t, uint64(1), first.DataPoints[0].Count)
	assert.Equal(t, "chat", mustValue(t, first.DataPoints[0].Attributes, "gen_ai.operation.name"))

	tokens, ok := m.metric(t, "gen_ai.client.token.usage").Data.(metricdata.Histogram[int64])
	require.True(t, ok)
	assert.Equal(t, int64(3), point(t, tokens.DataPoints, attribute.String("gen_ai.token.type", "input")).Sum)
	assert.Equal(t, int64(1), point(t, tokens.DataPoints, attribute.String("gen_ai.token.type", "output")).Sum)

	dur, ok := m.metric(t, "gen_ai.client.operation.duration").Data.(metricdata.Histogram[float64])
	require.True(t, ok)
	point(t, dur.DataPoints, attribute.String("gen_ai.operation.name", "chat"))
	point(t, dur.DataPoints, attribute.String("gen_ai.operation.name", "invoke_agent"))
}
