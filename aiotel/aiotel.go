// Package aiotel traces generations with OpenTelemetry. [NewObserver]
// returns an [ai.Observer] that records a span for each generation, step,
// model call and tool call, named and attributed after the OpenTelemetry
// semantic conventions for generative AI (gen_ai.*), the way the TypeScript
// AI SDK's OpenTelemetry integration names them:
//
//	invoke_agent <model>        a GenerateText or StreamText call
//	  step <n>                  one step, counted from 0 like ai.step.number
//	    chat <model>            the model call (retries are "ai.retry" events,
//	                            rate-limit waits "ai.wait" events)
//	    execute_tool <tool>     a tool call; code mode's nested calls are its children
//
// The observer also records the metrics of the semantic conventions for
// generative AI clients with the meter provider of [Options.MeterProvider]:
// gen_ai.client.token.usage (the input and output tokens of each model
// call), gen_ai.client.operation.duration (the duration of each model call,
// tool execution and generation, told apart by gen_ai.operation.name) and,
// for streams, gen_ai.client.operation.time_to_first_chunk. Metrics do not
// depend on sampling: a generation whose spans are not recorded is still
// measured.
//
// A generation's [ai.TelemetrySettings] are on all its spans and
// measurements: ai.telemetry.functionId and one
// ai.telemetry.metadata.<key> attribute per metadata entry.
//
// Spans are parented through context.Context: the generation's span is a
// child of the span in the caller's context, and a tool's own spans (started
// from the context its Execute receives) are children of its tool span.
//
// Prompts, outputs, tool inputs and tool results may hold personal data;
// they are recorded only when [Options.RecordInputs] or
// [Options.RecordOutputs] ask for them.
package aiotel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// ScopeName is the instrumentation scope of the tracer and the meter the
// observer uses.
const ScopeName = "github.com/aisdkgo/ai/aiotel"

// Options configure [NewObserver]. The zero value traces and measures with
// the global tracer and meter providers and records no prompts or outputs.
type Options struct {
	// TracerProvider makes the tracer; nil means otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the meter of the metrics; nil means
	// otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// RecordInputs records prompts, instructions, tool definitions and tool
	// inputs (gen_ai.input.messages, gen_ai.system_instructions,
	// gen_ai.tool.definitions, gen_ai.tool.call.arguments).
	RecordInputs bool
	// RecordOutputs records model outputs and tool results
	// (gen_ai.output.messages, gen_ai.tool.call.result).
	RecordOutputs bool
	// AgentName, when set, is recorded as gen_ai.agent.name on generation
	// spans and their duration; when it is empty, the generation's
	// [ai.TelemetrySettings.FunctionID] is.
	AgentName string
}

// NewObserver returns an observer that traces generations; set it on
// [ai.GenerateTextOptions.Observer] (or an agent's settings) or
// [ai.RunCodeModeOptions.Observer]. It is safe for concurrent use by any
// number of generations. opts may be nil.
func NewObserver(opts *Options) ai.Observer {
	o := &observer{}
	if opts != nil {
		o.opts = *opts
	}
	tp := o.opts.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	o.tracer = tp.Tracer(ScopeName)
	mp := o.opts.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	o.metrics = newInstruments(mp)
	return o
}

type observer struct {
	tracer  trace.Tracer
	metrics instruments
	opts    Options
}

// Attribute keys beyond the semantic conventions.
const (
	keyOperationID = attribute.Key("ai.operationId")
	keyStepNumber  = attribute.Key("ai.step.number")
	keyStepTools   = attribute.Key("ai.step.tools")
	keyDiscovered  = attribute.Key("ai.step.discovered_tools")
	keyToolChoice  = attribute.Key("ai.prompt.toolChoice")
	keyRetryEvent  = "ai.retry"
	keyWaitEvent   = "ai.wait"
	keyWaitReason  = attribute.Key("ai.wait.reason")
	keyWaitTime    = attribute.Key("ai.wait.duration")
	keyWaitTokens  = attribute.Key("ai.wait.tokens")
	keySearchEvent = "ai.tool_search"
	keySearchPref  = "ai.tool_search."
	keyAttempt     = attribute.Key("ai.retry.attempt")
	keyDelay       = attribute.Key("ai.retry.delay")
)

// StartGeneration implements [ai.Observer].
func (o *observer) StartGeneration(ctx context.Context, g ai.GenerationInfo) (context.Context, func(ai.GenerationOutcome)) {
	opts := g.Options
	began := time.Now()
	metered := o.metrics.enabled(ctx)
	sc := noScope
	if tel := telemetryAttrs(opts.Telemetry); metered || tel != nil {
		sc = &scope{model: opts.Model, telemetry: tel}
		ctx = context.WithValue(ctx, scopeKey{}, sc)
	}
	ctx, span := o.tracer.Start(ctx, "invoke_agent "+modelID(opts.Model), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(semconvOperation.String("invoke_agent")))
	if !span.IsRecording() {
		return ctx, func(out ai.GenerationOutcome) {
			if metered {
				o.measureGeneration(ctx, sc, began, opts, out.Err)
			}
			span.End()
		}
	}
	op := "ai.generateText"
	if g.Stream {
		op = "ai.streamText"
	}
	attrs := []attribute.KeyValue{keyOperationID.String(op)}
	attrs = append(attrs, modelAttrs(opts.Model)...)
	if name := o.agentName(opts); name != "" {
		attrs = append(attrs, attribute.String("gen_ai.agent.name", name))
	}
	attrs = append(attrs, sc.telemetry...)
	attrs = settingsAttrs(attrs, &provider.CallOptions{
		MaxOutputTokens: opts.MaxOutputTokens, Temperature: opts.Temperature, TopP: opts.TopP, TopK: opts.TopK,
		PresencePenalty: opts.PresencePenalty, FrequencyPenalty: opts.FrequencyPenalty, Seed: opts.Seed,
		StopSequences: opts.StopSequences,
	})
	if o.opts.RecordInputs {
		var system []provider.Message
		if opts.Instructions != "" {
			system = append(system, provider.SystemMessage{Content: opts.Instructions})
		}
		for _, m := range opts.InstructionMessages {
			system = append(system, m)
		}
		if len(system) > 0 {
			attrs = append(attrs, attribute.String("gen_ai.system_instructions", systemJSON(system)))
		}
		msgs := opts.Messages
		if opts.Prompt != "" {
			msgs = []ai.Message{ai.UserText(opts.Prompt)}
		}
		if len(msgs) > 0 {
			attrs = append(attrs, attribute.String("gen_ai.input.messages", messagesJSON(msgs)))
		}
	}
	span.SetAttributes(attrs...)
	return ctx, func(out ai.GenerationOutcome) {
		if res := out.Result; res != nil {
			span.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(res.FinishReason)}))
			span.SetAttributes(usageAttrs(res.Usage)...)
			if sum := res.ToolSearch; sum != nil {
				span.SetAttributes(searchSummaryAttrs(sum)...)
			}
			if o.opts.RecordOutputs {
				if last := res.FinalStep(); last != nil {
					span.SetAttributes(attribute.String("gen_ai.output.messages", stepOutputJSON(last)))
				}
			}
		}
		recordError(span, out.Err)
		if metered {
			o.measureGeneration(ctx, sc, began, opts, out.Err)
		}
		span.End()
	}
}

// StartStep implements [ai.Observer].
func (o *observer) StartStep(ctx context.Context, s ai.StepInfo) (context.Context, func(ai.StepOutcome)) {
	sc := scopeFrom(ctx)
	if o.metrics.enabled(ctx) {
		// The step's model is the one of its tool calls' measurements.
		ctx = context.WithValue(ctx, scopeKey{}, &scope{telemetry: sc.telemetry, model: s.Model})
	}
	ctx, span := o.tracer.Start(ctx, "step "+strconv.Itoa(s.StepNumber), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(semconvOperation.String("agent_step")))
	if !span.IsRecording() {
		return ctx, func(ai.StepOutcome) { span.End() }
	}
	attrs := []attribute.KeyValue{
		keyStepNumber.Int(s.StepNumber),
		keyStepTools.StringSlice(nonNil(s.Tools)),
	}
	attrs = append(attrs, sc.telemetry...)
	if len(s.Discovered) > 0 {
		attrs = append(attrs, keyDiscovered.StringSlice(s.Discovered))
	}
	if b, err := json.Marshal(s.ToolChoice); err == nil {
		attrs = append(attrs, keyToolChoice.String(string(b)))
	}
	span.SetAttributes(attrs...)
	return ctx, func(out ai.StepOutcome) {
		if st := out.Step; st != nil {
			span.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(st.FinishReason)}))
			span.SetAttributes(usageAttrs(st.Usage)...)
		}
		recordError(span, out.Err)
		span.End()
	}
}

// StartModelCall implements [ai.Observer].
func (o *observer) StartModelCall(ctx context.Context, m ai.ModelCallInfo) (context.Context, func(ai.ModelCallOutcome)) {
	began := time.Now()
	sc := scopeFrom(ctx)
	ctx, span := o.tracer.Start(ctx, "chat "+modelID(m.Model), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(semconvOperation.String("chat")))
	metered := o.metrics.enabled(ctx)
	if !span.IsRecording() {
		return ctx, func(out ai.ModelCallOutcome) {
			if metered {
				o.measureModelCall(ctx, sc, began, m.Model, m.Stream, out)
			}
			span.End()
		}
	}
	attrs := append(modelAttrs(m.Model), sc.telemetry...)
	attrs = settingsAttrs(attrs, m.Options)
	if o.opts.RecordInputs {
		var system, rest []provider.Message
		for _, msg := range m.Options.Prompt {
			if _, ok := msg.(provider.SystemMessage); ok {
				system = append(system, msg)
			} else {
				rest = append(rest, msg)
			}
		}
		if len(system) > 0 {
			attrs = append(attrs, attribute.String("gen_ai.system_instructions", systemJSON(system)))
		}
		if len(rest) > 0 {
			attrs = append(attrs, attribute.String("gen_ai.input.messages", messagesJSON(rest)))
		}
		if len(m.Options.Tools) > 0 {
			attrs = append(attrs, attribute.String("gen_ai.tool.definitions", toolsJSON(m.Options.Tools)))
		}
	}
	span.SetAttributes(attrs...)
	return ctx, func(out ai.ModelCallOutcome) {
		span.SetAttributes(attribute.Float64("gen_ai.client.operation.duration", time.Since(began).Seconds()))
		if m.Stream && out.TimeToFirstChunk > 0 {
			span.SetAttributes(attribute.Float64("gen_ai.client.operation.time_to_first_chunk", out.TimeToFirstChunk.Seconds()))
		}
		if res := out.Result; res != nil {
			if res.Request != nil {
				span.SetAttributes(serverAttrs(res.Request.URL)...)
			}
			if res.Response != nil {
				if res.Response.ID != "" {
					span.SetAttributes(attribute.String("gen_ai.response.id", res.Response.ID))
				}
				if res.Response.ModelID != "" {
					span.SetAttributes(attribute.String("gen_ai.response.model", res.Response.ModelID))
				}
			}
			if res.FinishReason.Unified != "" {
				span.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(res.FinishReason.Unified)}))
			}
			span.SetAttributes(providerUsageAttrs(res.Usage)...)
			if o.opts.RecordOutputs {
				span.SetAttributes(attribute.String("gen_ai.output.messages", contentOutputJSON(res.Content, string(res.FinishReason.Unified))))
			}
		}
		recordError(span, out.Err)
		if metered {
			o.measureModelCall(ctx, sc, began, m.Model, m.Stream, out)
		}
		span.End()
	}
}

// Retry implements [ai.Observer]: the failed attempt becomes an "ai.retry"
// event of the model call's span.
func (o *observer) Retry(ctx context.Context, r ai.RetryInfo) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{
		keyAttempt.Int(r.Attempt),
		keyDelay.Float64(r.Delay.Seconds()),
	}
	if r.Err != nil {
		attrs = append(attrs, attribute.String("exception.type", errorType(r.Err)), attribute.String("exception.message", r.Err.Error()))
		var api *provider.APICallError
		if errors.As(r.Err, &api) && api.StatusCode != 0 {
			attrs = append(attrs, attribute.Int("http.response.status_code", api.StatusCode))
		}
	}
	span.AddEvent(keyRetryEvent, trace.WithAttributes(attrs...))
}

// ModelCallWait implements [ai.WaitObserver]: a wait of a model call
// before it was sent (in a rate limiter's queue, for example) becomes an
// "ai.wait" event of the model call's span with ai.wait.reason,
// ai.wait.duration (seconds) and, when known, ai.wait.tokens.
func (o *observer) ModelCallWait(ctx context.Context, w ai.WaitInfo) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{keyWaitReason.String(w.Reason), keyWaitTime.Float64(w.Duration.Seconds())}
	if w.Tokens > 0 {
		attrs = append(attrs, keyWaitTokens.Int(w.Tokens))
	}
	span.AddEvent(keyWaitEvent, trace.WithAttributes(attrs...))
}

// ObserveSearch implements [ai.SearchObserver]: a search becomes an
// "ai.tool_search" event of its tool call's span, with the names of the
// tools it returned and, with RecordInputs, its query.
func (o *observer) ObserveSearch(ctx context.Context, rec ai.SearchRecord) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{
		attribute.StringSlice(keySearchPref+"results", rec.Results),
		attribute.Int(keySearchPref+"result_count", len(rec.Results)),
	}
	if rec.Group != "" {
		attrs = append(attrs, attribute.String(keySearchPref+"group", rec.Group))
	}
	if o.opts.RecordInputs {
		attrs = append(attrs, attribute.String(keySearchPref+"query", rec.Query))
	}
	if rec.Err != nil {
		attrs = append(attrs, attribute.String("exception.type", errorType(rec.Err)), attribute.String("exception.message", rec.Err.Error()))
	}
	span.AddEvent(keySearchEvent, trace.WithAttributes(attrs...))
}

// searchSummaryAttrs are the generation span's attributes of its searches:
// how many there were, how many found nothing or failed, how many calls of
// deferred tools used a tool found and at which rank, and how many called
// a tool no search had found.
func searchSummaryAttrs(sum *ai.SearchSummary) []attribute.KeyValue {
	var ranks []int64
	for _, c := range sum.Calls {
		if c.Found {
			ranks = append(ranks, int64(c.Rank))
		}
	}
	attrs := []attribute.KeyValue{
		attribute.Int(keySearchPref+"count", len(sum.Searches)),
		attribute.Int(keySearchPref+"no_result", sum.NoResult),
		attribute.Int(keySearchPref+"failed", sum.Failed),
		attribute.Int(keySearchPref+"found_and_called", sum.FoundAndCalled),
		attribute.Int(keySearchPref+"called_not_found", sum.CalledNotFound),
	}
	if len(ranks) > 0 {
		attrs = append(attrs, attribute.Int64Slice(keySearchPref+"found_ranks", ranks))
	}
	return attrs
}

// StartToolCall implements [ai.Observer].
func (o *observer) StartToolCall(ctx context.Context, t ai.ToolCallInfo) (context.Context, func(ai.ToolCallOutcome)) {
	call := t.ToolCall
	began := time.Now()
	sc := scopeFrom(ctx)
	ctx, span := o.tracer.Start(ctx, "execute_tool "+call.ToolName, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(semconvOperation.String("execute_tool")))
	metered, toolName := o.metrics.enabled(ctx), call.ToolName
	if !span.IsRecording() {
		return ctx, func(out ai.ToolCallOutcome) {
			if metered {
				o.measureToolCall(ctx, sc, began, toolName, out.Err)
			}
			span.End()
		}
	}
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.tool.name", call.ToolName),
		attribute.String("gen_ai.tool.call.id", call.ToolCallID),
		attribute.String("gen_ai.tool.type", "function"),
	}
	attrs = append(attrs, sc.telemetry...)
	if o.opts.RecordInputs && call.Input != nil {
		attrs = append(attrs, attribute.String("gen_ai.tool.call.arguments", string(call.Input)))
	}
	span.SetAttributes(attrs...)
	return ctx, func(out ai.ToolCallOutcome) {
		span.SetAttributes(attribute.Float64("gen_ai.execute_tool.duration", time.Since(began).Seconds()))
		if out.Err == nil && o.opts.RecordOutputs {
			span.SetAttributes(attribute.String("gen_ai.tool.call.result", outputJSON(out.Output)))
		}
		recordError(span, out.Err)
		if metered {
			o.measureToolCall(ctx, sc, began, toolName, out.Err)
		}
		span.End()
	}
}

const semconvOperation = attribute.Key("gen_ai.operation.name")

// measureGeneration records the duration of a generation.
func (o *observer) measureGeneration(ctx context.Context, sc *scope, began time.Time, opts *ai.GenerateTextOptions, err error) {
	attrs := append([]attribute.KeyValue{semconvOperation.String("invoke_agent")}, modelAttrs(opts.Model)...)
	if name := o.agentName(opts); name != "" {
		attrs = append(attrs, attribute.String("gen_ai.agent.name", name))
	}
	o.metrics.recordDuration(ctx, sc, began, attrs, err)
}

// measureModelCall records the duration, time to first chunk and tokens
// of a model call.
func (o *observer) measureModelCall(ctx context.Context, sc *scope, began time.Time, model provider.LanguageModel, stream bool, out ai.ModelCallOutcome) {
	end := modelCallEnd{res: out.Result, err: out.Err}
	if stream {
		end.firstChunk = out.TimeToFirstChunk
	}
	o.metrics.recordModelCall(ctx, sc, began, model, &end)
}

// measureToolCall records the duration of a tool execution, with the
// model of its step.
func (o *observer) measureToolCall(ctx context.Context, sc *scope, began time.Time, tool string, err error) {
	attrs := append([]attribute.KeyValue{semconvOperation.String("execute_tool"), attribute.String("gen_ai.tool.name", tool)},
		modelAttrs(sc.model)...)
	o.metrics.recordDuration(ctx, sc, began, attrs, err)
}

// agentName is the gen_ai.agent.name of a generation: Options.AgentName,
// or else the generation's function id.
func (o *observer) agentName(opts *ai.GenerateTextOptions) string {
	if o.opts.AgentName != "" {
		return o.opts.AgentName
	}
	return opts.Telemetry.FunctionID
}

func modelID(m provider.LanguageModel) string {
	if m == nil {
		return ""
	}
	return m.ModelID()
}

func modelAttrs(m provider.LanguageModel) []attribute.KeyValue {
	if m == nil {
		return nil
	}
	return []attribute.KeyValue{
		attribute.String("gen_ai.provider.name", ProviderName(m.Provider())),
		attribute.String("gen_ai.request.model", m.ModelID()),
	}
}

func settingsAttrs(attrs []attribute.KeyValue, o *provider.CallOptions) []attribute.KeyValue {
	if o.MaxOutputTokens != nil {
		attrs = append(attrs, attribute.Int("gen_ai.request.max_tokens", *o.MaxOutputTokens))
	}
	if o.Temperature != nil {
		attrs = append(attrs, attribute.Float64("gen_ai.request.temperature", *o.Temperature))
	}
	if o.TopP != nil {
		attrs = append(attrs, attribute.Float64("gen_ai.request.top_p", *o.TopP))
	}
	if o.TopK != nil {
		attrs = append(attrs, attribute.Int("gen_ai.request.top_k", *o.TopK))
	}
	if o.PresencePenalty != nil {
		attrs = append(attrs, attribute.Float64("gen_ai.request.presence_penalty", *o.PresencePenalty))
	}
	if o.FrequencyPenalty != nil {
		attrs = append(attrs, attribute.Float64("gen_ai.request.frequency_penalty", *o.FrequencyPenalty))
	}
	if o.Seed != nil {
		attrs = append(attrs, attribute.Int("gen_ai.request.seed", *o.Seed))
	}
	if len(o.StopSequences) > 0 {
		attrs = append(attrs, attribute.StringSlice("gen_ai.request.stop_sequences", o.StopSequences))
	}
	return attrs
}

func usageAttrs(u ai.Usage) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if u.InputTokens != nil {
		attrs = append(attrs, attribute.Int("gen_ai.usage.input_tokens", *u.InputTokens))
	}
	if u.OutputTokens != nil {
		attrs = append(attrs, attribute.Int("gen_ai.usage.output_tokens", *u.OutputTokens))
	}
	if v := u.InputTokenDetails.CacheReadTokens; v != nil {
		attrs = append(attrs, attribute.Int("gen_ai.usage.cache_read.input_tokens", *v))
	}
	if v := u.InputTokenDetails.CacheWriteTokens; v != nil {
		attrs = append(attrs, attribute.Int("gen_ai.usage.cache_creation.input_tokens", *v))
	}
	return attrs
}

func providerUsageAttrs(u provider.Usage) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if u.InputTokens.Total != nil {
		attrs = append(attrs, attribute.Int("gen_ai.usage.input_tokens", *u.InputTokens.Total))
	}
	if u.OutputTokens.Total != nil {
		attrs = append(attrs, attribute.Int("gen_ai.usage.output_tokens", *u.OutputTokens.Total))
	}
	if u.InputTokens.CacheRead != nil {
		attrs = append(attrs, attribute.Int("gen_ai.usage.cache_read.input_tokens", *u.InputTokens.CacheRead))
	}
	if u.InputTokens.CacheWrite != nil {
		attrs = append(attrs, attribute.Int("gen_ai.usage.cache_creation.input_tokens", *u.InputTokens.CacheWrite))
	}
	return attrs
}

// serverAttrs names the endpoint a model call went to.
func serverAttrs(raw string) []attribute.KeyValue {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil
	}
	port := 443
	if u.Scheme == "http" {
		port = 80
	}
	if p, err := strconv.Atoi(u.Port()); err == nil {
		port = p
	}
	return []attribute.KeyValue{attribute.String("server.address", u.Hostname()), attribute.Int("server.port", port)}
}

// recordError marks a span as failed: status, error.type, an exception
// event, and the HTTP status of a failed API call.
func recordError(span trace.Span, err error) {
	if err == nil {
		return
	}
	var api *provider.APICallError
	if errors.As(err, &api) && api.StatusCode != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", api.StatusCode))
	}
	span.SetAttributes(attribute.String("error.type", errorType(err)))
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
}

// errorType names an error for error.type: the cancellation causes by
// their names, other errors by their Go type.
func errorType(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "context.Canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "context.DeadlineExceeded"
	}
	return fmt.Sprintf("%T", err)
}

// ProviderName maps a model's provider name (for example "openai.chat") to
// the gen_ai.provider.name value of the semantic conventions ("openai");
// unknown providers keep their own name.
func ProviderName(p string) string {
	lower := strings.ToLower(p)
	for _, m := range providerNames {
		if lower == m[0] || strings.HasPrefix(lower, m[0]+".") || strings.HasPrefix(lower, m[0]+"-") {
			return m[1]
		}
	}
	return p
}

// providerNames go from a provider name prefix to the semantic
// conventions' value, longest prefixes first.
var providerNames = [][2]string{
	{"google.vertex", "gcp.vertex_ai"},
	{"google.generative-ai", "gcp.gemini"},
	{"google-vertex", "gcp.vertex_ai"},
	{"amazon-bedrock", "aws.bedrock"},
	{"azure-openai", "azure.ai.openai"},
	{"anthropic", "anthropic"},
	{"openai", "openai"},
	{"azure", "azure.ai.inference"},
	{"google", "gcp.gemini"},
	{"mistral", "mistral_ai"},
	{"cohere", "cohere"},
	{"bedrock", "aws.bedrock"},
	{"groq", "groq"},
	{"deepseek", "deepseek"},
	{"perplexity", "perplexity"},
	{"xai", "x_ai"},
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// The observer watches tool searches and waits too.
var (
	_ ai.SearchObserver = (*observer)(nil)
	_ ai.WaitObserver   = (*observer)(nil)
)
