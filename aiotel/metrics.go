package aiotel

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// The metrics of the semantic conventions for generative AI clients.
const (
	// MetricTokenUsage is the histogram of the tokens of each model call,
	// one measurement for the input and one for the output
	// (gen_ai.token.type).
	MetricTokenUsage = "gen_ai.client.token.usage"
	// MetricOperationDuration is the histogram of the durations, in
	// seconds, of model calls (gen_ai.operation.name "chat"), tool
	// executions ("execute_tool", with gen_ai.tool.name) and whole
	// generations ("invoke_agent").
	MetricOperationDuration = "gen_ai.client.operation.duration"
	// MetricTimeToFirstChunk is the histogram of the time, in seconds,
	// from the start of a streaming model call to its first chunk.
	MetricTimeToFirstChunk = "gen_ai.client.operation.time_to_first_chunk"
)

// Bucket boundaries advised by the semantic conventions.
var (
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
)

// instruments are the observer's histograms.
type instruments struct {
	tokens     metric.Int64Histogram
	duration   metric.Float64Histogram
	firstChunk metric.Float64Histogram
}

func newInstruments(mp metric.MeterProvider) instruments {
	meter := mp.Meter(ScopeName)
	var in instruments
	var err error
	if in.tokens, err = meter.Int64Histogram(MetricTokenUsage, metric.WithUnit("{token}"),
		metric.WithDescription("Number of input and output tokens used."),
		metric.WithExplicitBucketBoundaries(tokenBuckets...)); err != nil {
		in.tokens = noop.Int64Histogram{}
	}
	if in.duration, err = meter.Float64Histogram(MetricOperationDuration, metric.WithUnit("s"),
		metric.WithDescription("GenAI operation duration."),
		metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		in.duration = noop.Float64Histogram{}
	}
	if in.firstChunk, err = meter.Float64Histogram(MetricTimeToFirstChunk, metric.WithUnit("s"),
		metric.WithDescription("Time to receive the first chunk of a streaming response."),
		metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		in.firstChunk = noop.Float64Histogram{}
	}
	return in
}

// scope is what the operations inside a generation share: the
// generation's telemetry attributes and the model of the current step.
// It travels in the context.
type scope struct {
	// telemetry are the attributes of the generation's
	// [ai.TelemetrySettings].
	telemetry []attribute.KeyValue
	model     provider.LanguageModel
}

type scopeKey struct{}

// noScope is the scope of operations outside a measured generation
// without telemetry settings.
var noScope = &scope{}

func scopeFrom(ctx context.Context) *scope {
	if s, _ := ctx.Value(scopeKey{}).(*scope); s != nil {
		return s
	}
	return noScope
}

// enabled reports whether any instrument records measurements.
func (in *instruments) enabled(ctx context.Context) bool {
	return in.duration.Enabled(ctx) || in.tokens.Enabled(ctx) || in.firstChunk.Enabled(ctx)
}

// recordDuration adds a measurement of the operation that began then to
// the duration histogram, with attrs, the generation's telemetry
// attributes and, when err is set, error.type.
func (in *instruments) recordDuration(ctx context.Context, sc *scope, began time.Time, attrs []attribute.KeyValue, err error) {
	if !in.duration.Enabled(ctx) {
		return
	}
	attrs = append(attrs, sc.telemetry...)
	if err != nil {
		attrs = append(attrs, attribute.String("error.type", errorType(err)))
	}
	in.duration.Record(ctx, time.Since(began).Seconds(), metric.WithAttributeSet(attribute.NewSet(attrs...)))
}

// recordModelCall adds the measurements of a model call that ended:
// its duration, its time to first chunk (a stream's) and the tokens it
// reported.
func (in *instruments) recordModelCall(ctx context.Context, sc *scope, began time.Time, m provider.LanguageModel, out *modelCallEnd) {
	attrs := append(make([]attribute.KeyValue, 0, 8+len(sc.telemetry)), attribute.String("gen_ai.operation.name", "chat"))
	attrs = append(attrs, modelAttrs(m)...)
	if res := out.res; res != nil {
		if res.Response != nil && res.Response.ModelID != "" {
			attrs = append(attrs, attribute.String("gen_ai.response.model", res.Response.ModelID))
		}
		if res.Request != nil {
			attrs = append(attrs, serverAttrs(res.Request.URL)...)
		}
	}
	attrs = append(attrs, sc.telemetry...)
	if out.err != nil {
		attrs = append(attrs, attribute.String("error.type", errorType(out.err)))
	}
	set := metric.WithAttributeSet(attribute.NewSet(attrs...))
	in.duration.Record(ctx, time.Since(began).Seconds(), set)
	if out.firstChunk > 0 {
		in.firstChunk.Record(ctx, out.firstChunk.Seconds(), set)
	}
	if res := out.res; res != nil {
		if n := res.Usage.InputTokens.Total; n != nil {
			in.tokens.Record(ctx, int64(*n), metric.WithAttributeSet(attribute.NewSet(append(attrs, tokenInput)...)))
		}
		if n := res.Usage.OutputTokens.Total; n != nil {
			in.tokens.Record(ctx, int64(*n), metric.WithAttributeSet(attribute.NewSet(append(attrs, tokenOutput)...)))
		}
	}
}

var (
	tokenInput  = attribute.String("gen_ai.token.type", "input")
	tokenOutput = attribute.String("gen_ai.token.type", "output")
)

// modelCallEnd is what the measurements of a model call need of its end.
type modelCallEnd struct {
	res        *provider.GenerateResult
	firstChunk time.Duration
	err        error
}

// Attribute keys of a generation's [ai.TelemetrySettings], as the
// reference names them.
const (
	keyFunctionID     = "ai.telemetry.functionId"
	keyMetadataPrefix = "ai.telemetry.metadata."
)

// telemetryAttrs are the attributes of a generation's telemetry settings:
// the function id and one attribute per metadata entry, in key order.
func telemetryAttrs(t ai.TelemetrySettings) []attribute.KeyValue {
	if t.FunctionID == "" && len(t.Metadata) == 0 {
		return nil
	}
	attrs := make([]attribute.KeyValue, 0, 1+len(t.Metadata))
	if t.FunctionID != "" {
		attrs = append(attrs, attribute.String(keyFunctionID, t.FunctionID))
	}
	for _, k := range slices.Sorted(maps.Keys(t.Metadata)) {
		if v, ok := metadataValue(t.Metadata[k]); ok {
			attrs = append(attrs, attribute.KeyValue{Key: attribute.Key(keyMetadataPrefix + k), Value: v})
		}
	}
	return attrs
}

// metadataValue converts a metadata value to an attribute value: the
// types attributes have as they are, other numbers as int64 or float64,
// anything else as its JSON text (fmt's when it has none). Nil is not
// recorded.
func metadataValue(v any) (attribute.Value, bool) {
	switch v := v.(type) {
	case nil:
		return attribute.Value{}, false
	case string:
		return attribute.StringValue(v), true
	case bool:
		return attribute.BoolValue(v), true
	case int:
		return attribute.IntValue(v), true
	case int8:
		return attribute.Int64Value(int64(v)), true
	case int16:
		return attribute.Int64Value(int64(v)), true
	case int32:
		return attribute.Int64Value(int64(v)), true
	case int64:
		return attribute.Int64Value(v), true
	case uint8:
		return attribute.Int64Value(int64(v)), true
	case uint16:
		return attribute.Int64Value(int64(v)), true
	case uint32:
		return attribute.Int64Value(int64(v)), true
	case float32:
		return attribute.Float64Value(float64(v)), true
	case float64:
		return attribute.Float64Value(v), true
	case []string:
		return attribute.StringSliceValue(v), true
	case []bool:
		return attribute.BoolSliceValue(v), true
	case []int:
		return attribute.IntSliceValue(v), true
	case []int64:
		return attribute.Int64SliceValue(v), true
	case []float64:
		return attribute.Float64SliceValue(v), true
	case fmt.Stringer:
		return attribute.StringValue(v.String()), true
	}
	if b, err := json.Marshal(v); err == nil {
		return attribute.StringValue(string(b)), true
	}
	return attribute.StringValue(fmt.Sprint(v)), true
}
