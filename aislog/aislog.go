// Package aislog logs generations with log/slog. [NewObserver] returns an
// [ai.Observer] that writes one record when each generation, step, model
// call, tool call and tool search ends, one for each retry of a model call
// and one for each wait a model call reports (a rate limiter's queue, see
// [ai.WaitObserver]):
//
//	obs := aislog.NewObserver(slog.Default(), nil)
//	res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{Model: m, Prompt: p, Observer: obs})
//
// Records carry the step number, model, tool names and call ids, durations,
// token counts and errors; never prompts, outputs or tool inputs. The
// records of a generation with [ai.TelemetrySettings] also carry its
// function id ("function_id") and metadata (a "metadata" group). Failures
// are logged at [slog.LevelError] (retries at [slog.LevelWarn]), the rest at
// Options.Level. Records are written with the operation's context, so a
// handler that reads trace ids from the context can correlate them.
package aislog

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/aisdkgo/ai"
)

// Options configure [NewObserver]. The zero value logs at [slog.LevelInfo].
type Options struct {
	// Level is the level of the records of operations that succeeded.
	Level slog.Level
	// LogQueries adds the query of each tool search to its record. Queries
	// are written by the model and may repeat what the user said.
	LogQueries bool
}

// NewObserver returns an observer that logs to logger (slog.Default() when
// nil). opts may be nil.
func NewObserver(logger *slog.Logger, opts *Options) ai.Observer {
	if logger == nil {
		logger = slog.Default()
	}
	o := &observer{log: logger}
	if opts != nil {
		o.level, o.queries = opts.Level, opts.LogQueries
	}
	return o
}

type observer struct {
	log     *slog.Logger
	level   slog.Level
	queries bool
}

func (o *observer) end(ctx context.Context, msg string, err error, attrs ...slog.Attr) {
	level := o.level
	if err != nil {
		level = slog.LevelError
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	o.log.LogAttrs(ctx, level, msg, withTelemetry(ctx, attrs)...)
}

// telemetryKey holds the attributes of a generation's telemetry settings
// in the contexts of its operations.
type telemetryKey struct{}

// telemetryAttrs are the attributes of a generation's telemetry settings;
// nil when it has none.
func telemetryAttrs(t ai.TelemetrySettings) []slog.Attr {
	var attrs []slog.Attr
	if t.FunctionID != "" {
		attrs = append(attrs, slog.String("function_id", t.FunctionID))
	}
	if len(t.Metadata) > 0 {
		meta := make([]any, 0, len(t.Metadata))
		for _, k := range slices.Sorted(maps.Keys(t.Metadata)) {
			meta = append(meta, slog.Any(k, t.Metadata[k]))
		}
		attrs = append(attrs, slog.Group("metadata", meta...))
	}
	return attrs
}

// withTelemetry adds the attributes of the telemetry settings of the
// generation ctx belongs to.
func withTelemetry(ctx context.Context, attrs []slog.Attr) []slog.Attr {
	if t, ok := ctx.Value(telemetryKey{}).([]slog.Attr); ok {
		return append(attrs, t...)
	}
	return attrs
}

// withUsage adds a "tokens" group with the counts that were reported.
func withUsage(attrs []slog.Attr, u ai.Usage) []slog.Attr {
	var counts []any
	if u.InputTokens != nil {
		counts = append(counts, slog.Int("input", *u.InputTokens))
	}
	if u.OutputTokens != nil {
		counts = append(counts, slog.Int("output", *u.OutputTokens))
	}
	if len(counts) == 0 {
		return attrs
	}
	return append(attrs, slog.Group("tokens", counts...))
}

// StartGeneration implements [ai.Observer].
func (o *observer) StartGeneration(ctx context.Context, g ai.GenerationInfo) (context.Context, func(ai.GenerationOutcome)) {
	began := time.Now()
	if t := telemetryAttrs(g.Options.Telemetry); t != nil {
		ctx = context.WithValue(ctx, telemetryKey{}, t)
	}
	var model slog.Attr
	if m := g.Options.Model; m != nil {
		model = slog.String("model", m.Provider()+"/"+m.ModelID())
	}
	return ctx, func(out ai.GenerationOutcome) {
		attrs := []slog.Attr{model, slog.Bool("stream", g.Stream), slog.Duration("duration", time.Since(began))}
		if res := out.Result; res != nil {
			attrs = append(attrs, slog.Int("steps", len(res.Steps)), slog.String("finish", string(res.FinishReason)))
			attrs = withUsage(attrs, res.Usage)
			if sum := res.ToolSearch; sum != nil {
				attrs = append(attrs, slog.Group("tool_search", slog.Int("searches", len(sum.Searches)),
					slog.Int("no_result", sum.NoResult), slog.Int("failed", sum.Failed),
					slog.Int("found_and_called", sum.FoundAndCalled), slog.Int("called_not_found", sum.CalledNotFound)))
			}
		}
		o.end(ctx, "ai generation", out.Err, attrs...)
	}
}

// StartStep implements [ai.Observer].
func (o *observer) StartStep(ctx context.Context, s ai.StepInfo) (context.Context, func(ai.StepOutcome)) {
	began := time.Now()
	return ctx, func(out ai.StepOutcome) {
		attrs := []slog.Attr{slog.Int("step", s.StepNumber), slog.Any("tools", s.Tools), slog.Duration("duration", time.Since(began))}
		if len(s.Discovered) > 0 {
			attrs = append(attrs, slog.Any("discovered", s.Discovered))
		}
		if st := out.Step; st != nil {
			attrs = withUsage(append(attrs, slog.String("finish", string(st.FinishReason))), st.Usage)
		}
		o.end(ctx, "ai step", out.Err, attrs...)
	}
}

// StartModelCall implements [ai.Observer].
func (o *observer) StartModelCall(ctx context.Context, m ai.ModelCallInfo) (context.Context, func(ai.ModelCallOutcome)) {
	began := time.Now()
	ctx = context.WithValue(ctx, stepKey{}, m.StepNumber)
	return ctx, func(out ai.ModelCallOutcome) {
		attrs := []slog.Attr{slog.Int("step", m.StepNumber), slog.String("model", m.Model.Provider()+"/"+m.Model.ModelID()),
			slog.Bool("stream", m.Stream), slog.Duration("duration", time.Since(began))}
		if m.Stream && out.TimeToFirstChunk > 0 {
			attrs = append(attrs, slog.Duration("first_chunk", out.TimeToFirstChunk))
		}
		if res := out.Result; res != nil {
			if res.FinishReason.Unified != "" {
				attrs = append(attrs, slog.String("finish", string(res.FinishReason.Unified)))
			}
			if res.Response != nil && res.Response.ID != "" {
				attrs = append(attrs, slog.String("response_id", res.Response.ID))
			}
		}
		o.end(ctx, "ai model call", out.Err, attrs...)
	}
}

// StartToolCall implements [ai.Observer].
func (o *observer) StartToolCall(ctx context.Context, t ai.ToolCallInfo) (context.Context, func(ai.ToolCallOutcome)) {
	began := time.Now()
	return ctx, func(out ai.ToolCallOutcome) {
		o.end(ctx, "ai tool call", out.Err, slog.Int("step", t.StepNumber), slog.String("tool", t.ToolCall.ToolName),
			slog.String("call_id", t.ToolCall.ToolCallID), slog.Duration("duration", time.Since(began)))
	}
}

// ObserveSearch implements [ai.SearchObserver]: one record per tool
// search, with the tools it returned.
func (o *observer) ObserveSearch(ctx context.Context, rec ai.SearchRecord) {
	attrs := []slog.Attr{slog.Int("step", rec.StepNumber), slog.String("call_id", rec.ToolCallID),
		slog.Any("results", rec.Results)}
	if rec.Group != "" {
		attrs = append(attrs, slog.String("group", rec.Group))
	}
	if o.queries {
		attrs = append(attrs, slog.String("query", rec.Query))
	}
	o.end(ctx, "ai tool search", rec.Err, attrs...)
}

// Retry implements [ai.Observer].
func (o *observer) Retry(ctx context.Context, r ai.RetryInfo) {
	attrs := []slog.Attr{slog.Int("attempt", r.Attempt), slog.Duration("delay", r.Delay)}
	if r.Err != nil {
		attrs = append(attrs, slog.String("error", r.Err.Error()))
	}
	o.log.LogAttrs(ctx, slog.LevelWarn, "ai model call retry", withTelemetry(ctx, attrs)...)
}

// stepKey holds the step number of a model call in its context, for the
// records of its waits.
type stepKey struct{}

// ModelCallWait implements [ai.WaitObserver]: one record per wait, at
// Options.Level, with what the call waited for ("reason"), how long
// ("duration") and its estimated tokens, when known.
func (o *observer) ModelCallWait(ctx context.Context, w ai.WaitInfo) {
	var attrs []slog.Attr
	if step, ok := ctx.Value(stepKey{}).(int); ok {
		attrs = append(attrs, slog.Int("step", step))
	}
	attrs = append(attrs, slog.String("reason", w.Reason), slog.Duration("duration", w.Duration))
	if w.Tokens > 0 {
		attrs = append(attrs, slog.Int("tokens", w.Tokens))
	}
	o.log.LogAttrs(ctx, o.level, "ai model call wait", withTelemetry(ctx, attrs)...)
}

// The observer logs tool searches and waits too.
var (
	_ ai.SearchObserver = (*observer)(nil)
	_ ai.WaitObserver   = (*observer)(nil)
)
