package aiotel_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aiotel"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	_ "github.com/aisdkgo/ai/quickjs"
)

// recorder is a tracer provider whose spans are kept in memory.
type recorder struct {
	tp *sdktrace.TracerProvider
	sr *tracetest.SpanRecorder
}

func newRecorder(t *testing.T) *recorder {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return &recorder{tp: tp, sr: sr}
}

func (r *recorder) observer(o aiotel.Options) ai.Observer {
	o.TracerProvider = r.tp
	return aiotel.NewObserver(&o)
}

// tree renders the ended spans as an indented tree, children in start
// order, with the status of failed spans.
func (r *recorder) tree() string {
	spans := r.sr.Ended()
	slices.SortStableFunc(spans, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	ids := map[trace.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID()] = true
	}
	var b strings.Builder
	var walk func(parent trace.SpanID, root bool, depth int)
	walk = func(parent trace.SpanID, root bool, depth int) {
		for _, s := range spans {
			p := s.Parent().SpanID()
			if root && ids[p] || !root && p != parent {
				continue
			}
			b.WriteString(strings.Repeat("  ", depth) + s.Name())
			if s.Status().Code == codes.Error {
				b.WriteString(" [error]")
			}
			b.WriteString("\n")
			walk(s.SpanContext().SpanID(), false, depth+1)
		}
	}
	walk(trace.SpanID{}, true, 0)
	return b.String()
}

// spans returns the ended spans with a name, in start order.
func (r *recorder) spans(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range r.sr.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	return out
}

func (r *recorder) span(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	s := r.spans(name)
	require.Len(t, s, 1, "spans named %q", name)
	return s[0]
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

func attr(t *testing.T, s sdktrace.ReadOnlySpan, key string) attribute.Value {
	t.Helper()
	v, ok := attrs(s)[attribute.Key(key)]
	require.True(t, ok, "span %q has no attribute %s", s.Name(), key)
	return v
}

var usage = provider.Usage{
	InputTokens:  provider.InputTokens{Total: new(10), CacheRead: new(4)},
	OutputTokens: provider.OutputTokens{Total: new(5)},
}

type cityIn struct {
	City string `json:"city"`
}

// searchRun is a three-step tool search run: the model searches, calls the
// tool it found, and answers. The found tool starts a span of its own.
func searchRun(tp trace.TracerProvider) (*aitest.Model, ai.Tools) {
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "search", `{"query":"weather forecast"}`)}, FinishReason: aitest.ToolCalls, Usage: usage,
			Response: &provider.ResponseInfo{ID: "resp-1", ModelID: "scripted-2026"}},
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c2", "getForecast", `{"city":"Paris"}`)}, FinishReason: aitest.ToolCalls, Usage: usage},
		aitest.Response{Content: []provider.Content{aitest.Text("Rain in Paris.")}, Usage: usage},
	)
	tools := ai.Tools{
		{Name: "search", Tool: ai.ToolSearch()},
		{Name: "getForecast", Tool: ai.NewTool(ai.ToolDef[cityIn, string]{
			Description:  "Get the weather forecast for a city.",
			DeferLoading: true,
			Execute: func(ctx context.Context, in cityIn, _ ai.ToolExecutionOptions) (string, error) {
				_, span := tp.Tracer("test").Start(ctx, "forecast.lookup")
				defer span.End()
				return "rain in " + in.City, nil
			},
		})},
		{Name: "sendEmail", Tool: ai.NewTool(ai.ToolDef[cityIn, string]{
			Description:  "Send an email.",
			DeferLoading: true,
			Execute:      func(context.Context, cityIn, ai.ToolExecutionOptions) (string, error) { return "sent", nil },
		})},
	}
	return model, tools
}

// generate runs opts with GenerateText, or with StreamText and reads the
// whole stream.
func generate(ctx context.Context, stream bool, opts ai.GenerateTextOptions) (*ai.GenerateTextResult, error) {
	if !stream {
		return ai.GenerateText(ctx, opts)
	}
	res, err := ai.StreamText(ctx, opts)
	if err != nil {
		return nil, err
	}
	for _, err := range res.Parts() {
		if err != nil {
			break
		}
	}
	return res.Wait()
}

func TestToolSearchRun(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			rec := newRecorder(t)
			model, tools := searchRun(rec.tp)
			ctx, parent := rec.tp.Tracer("test").Start(context.Background(), "request")
			res, err := generate(ctx, stream, ai.GenerateTextOptions{
				Model: model, Tools: tools, Prompt: "Will it rain in Paris?", StopWhen: ai.StepCountIs(5),
				Temperature: new(0.2), Observer: rec.observer(aiotel.Options{AgentName: "weather"}),
			})
			parent.End()
			require.NoError(t, err)
			require.Equal(t, "Rain in Paris.", res.Text)

			assert.Equal(t, `request
  invoke_agent scripted
    step 0
      chat scripted
      execute_tool search
    step 1
      chat scripted
      execute_tool getForecast
        forecast.lookup
    step 2
      chat scripted
`, rec.tree())
			for _, s := range rec.sr.Ended() {
				assert.Equal(t, parent.SpanContext().TraceID(), s.SpanContext().TraceID(), s.Name())
				assert.NotEqual(t, codes.Error, s.Status().Code, s.Name())
			}

			root := rec.span(t, "invoke_agent scripted")
			assert.Equal(t, trace.SpanKindInternal, root.SpanKind())
			assert.Equal(t, "invoke_agent", attr(t, root, "gen_ai.operation.name").AsString())
			op := "ai.generateText"
			if stream {
				op = "ai.streamText"
			}
			assert.Equal(t, op, attr(t, root, "ai.operationId").AsString())
			assert.Equal(t, "aitest", attr(t, root, "gen_ai.provider.name").AsString())
			assert.Equal(t, "scripted", attr(t, root, "gen_ai.request.model").AsString())
			assert.Equal(t, "weather", attr(t, root, "gen_ai.agent.name").AsString())
			assert.Equal(t, 0.2, attr(t, root, "gen_ai.request.temperature").AsFloat64())
			assert.Equal(t, int64(30), attr(t, root, "gen_ai.usage.input_tokens").AsInt64())
			assert.Equal(t, int64(15), attr(t, root, "gen_ai.usage.output_tokens").AsInt64())
			assert.Equal(t, int64(12), attr(t, root, "gen_ai.usage.cache_read.input_tokens").AsInt64())
			assert.Equal(t, []string{"stop"}, attr(t, root, "gen_ai.response.finish_reasons").AsStringSlice())

			steps := []sdktrace.ReadOnlySpan{rec.span(t, "step 0"), rec.span(t, "step 1"), rec.span(t, "step 2")}
			for i, s := range steps {
				assert.Equal(t, "agent_step", attr(t, s, "gen_ai.operation.name").AsString())
				assert.Equal(t, int64(i), attr(t, s, "ai.step.number").AsInt64())
			}
			assert.Equal(t, []string{"search"}, attr(t, steps[0], "ai.step.tools").AsStringSlice())
			assert.NotContains(t, attrs(steps[0]), attribute.Key("ai.step.discovered_tools"))
			assert.Equal(t, []string{"search", "getForecast"}, attr(t, steps[1], "ai.step.tools").AsStringSlice())
			assert.Equal(t, []string{"getForecast"}, attr(t, steps[1], "ai.step.discovered_tools").AsStringSlice())
			assert.Equal(t, []string{"tool-calls"}, attr(t, steps[0], "gen_ai.response.finish_reasons").AsStringSlice())

			chats := rec.spans("chat scripted")
			require.Len(t, chats, 3)
			for _, c := range chats {
				assert.Equal(t, trace.SpanKindClient, c.SpanKind())
				assert.Equal(t, "chat", attr(t, c, "gen_ai.operation.name").AsString())
				assert.Equal(t, int64(10), attr(t, c, "gen_ai.usage.input_tokens").AsInt64())
				assert.Equal(t, int64(4), attr(t, c, "gen_ai.usage.cache_read.input_tokens").AsInt64())
				assert.Greater(t, attr(t, c, "gen_ai.client.operation.duration").AsFloat64(), 0.0)
				_, ttfc := attrs(c)["gen_ai.client.operation.time_to_first_chunk"]
				assert.Equal(t, stream, ttfc, "time to first chunk only for streams")
			}
			if !stream { // the scripted stream sends no response metadata
				assert.Equal(t, "resp-1", attr(t, chats[0], "gen_ai.response.id").AsString())
				assert.Equal(t, "scripted-2026", attr(t, chats[0], "gen_ai.response.model").AsString())
			}
			assert.Equal(t, []string{"tool-calls"}, attr(t, chats[0], "gen_ai.response.finish_reasons").AsStringSlice())

			// The search is an event of its tool span; the generation
			// span sums the searches up.
			search := rec.span(t, "execute_tool search")
			require.Len(t, search.Events(), 1)
			ev := search.Events()[0]
			assert.Equal(t, "ai.tool_search", ev.Name)
			evAttrs := map[attribute.Key]attribute.Value{}
			for _, kv := range ev.Attributes {
				evAttrs[kv.Key] = kv.Value
			}
			assert.Equal(t, []string{"getForecast"}, evAttrs["ai.tool_search.results"].AsStringSlice())
			assert.NotContains(t, evAttrs, attribute.Key("ai.tool_search.query"), "queries only with RecordInputs")
			assert.Equal(t, int64(1), attr(t, root, "ai.tool_search.count").AsInt64())
			assert.Equal(t, int64(0), attr(t, root, "ai.tool_search.no_result").AsInt64())
			assert.Equal(t, int64(1), attr(t, root, "ai.tool_search.found_and_called").AsInt64())
			assert.Equal(t, []int64{1}, attr(t, root, "ai.tool_search.found_ranks").AsInt64Slice())

			tool := rec.span(t, "execute_tool getForecast")
			assert.Equal(t, "execute_tool", attr(t, tool, "gen_ai.operation.name").AsString())
			assert.Equal(t, "getForecast", attr(t, tool, "gen_ai.tool.name").AsString())
			assert.Equal(t, "c2", attr(t, tool, "gen_ai.tool.call.id").AsString())
			assert.Equal(t, "function", attr(t, tool, "gen_ai.tool.type").AsString())
		})
	}
}

func TestFailedTool(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			rec := newRecorder(t)
			model := aitest.NewModel(
				aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "lookup", `{"city":"Oslo"}`)}, FinishReason: aitest.ToolCalls},
				aitest.Response{Content: []provider.Content{aitest.Text("Sorry.")}},
			)
			lookup := ai.NewTool(ai.ToolDef[cityIn, string]{
				Description: "Look up a city.",
				Execute: func(context.Context, cityIn, ai.ToolExecutionOptions) (string, error) {
					return "", errors.New("the city database is down")
				},
			})
			_, err := generate(context.Background(), stream, ai.GenerateTextOptions{
				Model: model, Tools: ai.Tools{{Name: "lookup", Tool: lookup}}, Prompt: "Oslo?", StopWhen: ai.StepCountIs(3),
				Observer: rec.observer(aiotel.Options{}),
			})
			require.NoError(t, err)
			assert.Equal(t, `invoke_agent scripted
  step 0
    chat scripted
    execute_tool lookup [error]
  step 1
    chat scripted
`, rec.tree())
			tool := rec.span(t, "execute_tool lookup")
			assert.Equal(t, "the city database is down", tool.Status().Description)
			assert.Equal(t, "*errors.errorString", attr(t, tool, "error.type").AsString())
			require.Len(t, tool.Events(), 1)
			ev := tool.Events()[0]
			assert.Equal(t, "exception", ev.Name)
			assert.Contains(t, ev.Attributes, attribute.String("exception.message", "the city database is down"))
		})
	}
}

func TestRetriedModelCall(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			rec := newRecorder(t)
			overloaded := &provider.APICallError{Message: "overloaded", StatusCode: 529, Retryable: true,
				ResponseHeaders: provider.Header{"Retry-After-Ms": {"1"}}}
			model := &aitest.Model{Respond: func(_ context.Context, call int, _ *provider.CallOptions) (aitest.Response, error) {
				if call == 0 {
					return aitest.Response{Err: overloaded}, nil
				}
				return aitest.Response{Content: []provider.Content{aitest.Text("Hello.")}}, nil
			}}
			res, err := generate(context.Background(), stream, ai.GenerateTextOptions{Model: model, Prompt: "hi", Observer: rec.observer(aiotel.Options{})})
			require.NoError(t, err)
			assert.Equal(t, "Hello.", res.Text)
			assert.Equal(t, "invoke_agent scripted\n  step 0\n    chat scripted\n", rec.tree())
			chat := rec.span(t, "chat scripted")
			require.Len(t, chat.Events(), 1)
			ev := chat.Events()[0]
			assert.Equal(t, "ai.retry", ev.Name)
			assert.Contains(t, ev.Attributes, attribute.Int("ai.retry.attempt", 1))
			assert.Contains(t, ev.Attributes, attribute.Float64("ai.retry.delay", 0.001))
			assert.Contains(t, ev.Attributes, attribute.Int("http.response.status_code", 529))
			assert.Contains(t, ev.Attributes, attribute.String("exception.type", "*provider.APICallError"))
			assert.Contains(t, ev.Attributes, attribute.String("exception.message", overloaded.Error()))
		})
	}
}

// A model call that fails for good marks the model call, the step and the
// generation.
func TestFailedModelCall(t *testing.T) {
	rec := newRecorder(t)
	denied := &provider.APICallError{Message: "bad key", StatusCode: 401}
	model := aitest.NewModel(aitest.Response{Err: denied})
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "hi", Observer: rec.observer(aiotel.Options{})})
	require.Error(t, err)
	assert.Equal(t, "invoke_agent scripted [error]\n  step 0 [error]\n    chat scripted [error]\n", rec.tree())
	chat := rec.span(t, "chat scripted")
	assert.Equal(t, int64(401), attr(t, chat, "http.response.status_code").AsInt64())
	assert.Equal(t, denied.Error(), chat.Status().Description)
}

type emptyIn struct{}

func TestCodeModeNestedCalls(t *testing.T) {
	const js = `const a = await tools.first({}); const b = await tools.second({}); return a + b;`
	routed := func(out string) ai.Tool {
		return ai.NewTool(ai.ToolDef[emptyIn, string]{
			Description: "Returns " + out + ".",
			Execute:     func(context.Context, emptyIn, ai.ToolExecutionOptions) (string, error) { return out, nil },
		})
	}
	tools := ai.Tools{{Name: "code", Tool: ai.CodeMode(nil)}, {Name: "first", Tool: routed("a")}, {Name: "second", Tool: routed("b")}}

	t.Run("generation", func(t *testing.T) {
		rec := newRecorder(t)
		model := aitest.NewModel(
			aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "code", map[string]string{"js": js})}, FinishReason: aitest.ToolCalls},
			aitest.Response{Content: []provider.Content{aitest.Text("ab")}},
		)
		res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
			Model: model, Tools: tools, Prompt: "go", StopWhen: ai.StepCountIs(3),
			ToolCallers: []ai.CallerRoute{{Tool: "first", Callers: []string{"code"}}, {Tool: "second", Callers: []string{"code"}}},
			Observer:    rec.observer(aiotel.Options{RecordOutputs: true}),
		})
		require.NoError(t, err)
		require.Len(t, res.Steps, 2)
		assert.Equal(t, `invoke_agent scripted
  step 0
    chat scripted
    execute_tool code
      execute_tool first
      execute_tool second
  step 1
    chat scripted
`, rec.tree())
		assert.Equal(t, "c1:tool-1", attr(t, rec.span(t, "execute_tool first"), "gen_ai.tool.call.id").AsString())
		assert.Equal(t, "c1:tool-2", attr(t, rec.span(t, "execute_tool second"), "gen_ai.tool.call.id").AsString())
		assert.Equal(t, `"ab"`, attr(t, rec.span(t, "execute_tool code"), "gen_ai.tool.call.result").AsString())
	})

	t.Run("RunCodeMode", func(t *testing.T) {
		rec := newRecorder(t)
		res, err := ai.RunCodeMode(context.Background(), ai.RunCodeModeOptions{
			JS: js, Tools: tools[1:], ToolCallID: "run-1", Observer: rec.observer(aiotel.Options{RecordInputs: true}),
		})
		require.NoError(t, err)
		assert.JSONEq(t, `"ab"`, string(res.Value))
		assert.Equal(t, "execute_tool code\n  execute_tool first\n  execute_tool second\n", rec.tree())
		code := rec.span(t, "execute_tool code")
		assert.JSONEq(t, fmt.Sprintf(`{"js":%q}`, js), attr(t, code, "gen_ai.tool.call.arguments").AsString())
		assert.Equal(t, "run-1:tool-1", attr(t, rec.span(t, "execute_tool first"), "gen_ai.tool.call.id").AsString())
	})
}

func TestCancelledStream(t *testing.T) {
	t.Run("context cancelled while a tool runs", func(t *testing.T) {
		rec := newRecorder(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		started := make(chan struct{})
		slow := ai.NewTool(ai.ToolDef[emptyIn, string]{
			Description: "Waits.",
			Execute: func(ctx context.Context, _ emptyIn, _ ai.ToolExecutionOptions) (string, error) {
				close(started)
				<-ctx.Done()
				return "", ctx.Err()
			},
		})
		model := aitest.NewModel(
			aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "slow", `{}`)}, FinishReason: aitest.ToolCalls},
			aitest.Response{Content: []provider.Content{aitest.Text("never")}},
		)
		res, err := ai.StreamText(ctx, ai.GenerateTextOptions{
			Model: model, Tools: ai.Tools{{Name: "slow", Tool: slow}}, Prompt: "go", StopWhen: ai.StepCountIs(3),
			Observer: rec.observer(aiotel.Options{}),
		})
		require.NoError(t, err)
		go func() {
			<-started
			cancel()
		}()
		_, err = res.Wait()
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, len(rec.sr.Started()), len(rec.sr.Ended()), "every started span ended")
		assert.Equal(t, `invoke_agent scripted [error]
  step 0 [error]
    chat scripted
    execute_tool slow [error]
`, rec.tree())
		assert.Equal(t, "context.Canceled", attr(t, rec.span(t, "invoke_agent scripted"), "error.type").AsString())
	})

	t.Run("reader stops during the model stream", func(t *testing.T) {
		rec := newRecorder(t)
		model := aitest.NewModel(aitest.Response{Chunks: []provider.StreamPart{
			provider.TextStart{ID: "t"}, provider.TextDelta{ID: "t", Delta: "one "}, provider.TextDelta{ID: "t", Delta: "two"},
			provider.TextEnd{ID: "t"}, provider.Finish{FinishReason: aitest.Stop},
		}})
		res, err := ai.StreamText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "go", Observer: rec.observer(aiotel.Options{})})
		require.NoError(t, err)
		for p, err := range res.Parts() {
			require.NoError(t, err)
			if _, ok := p.(ai.TextDelta); ok {
				break
			}
		}
		_, err = res.Wait()
		require.ErrorIs(t, err, ai.ErrStreamStopped)
		assert.Equal(t, len(rec.sr.Started()), len(rec.sr.Ended()), "every started span ended")
		assert.Equal(t, "invoke_agent scripted [error]\n  step 0 [error]\n    chat scripted [error]\n", rec.tree())
	})
}

// sensitive are the attributes that hold prompts, outputs, tool inputs and
// tool results.
var sensitive = []attribute.Key{
	"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions",
	"gen_ai.tool.definitions", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result",
}

func TestPromptsOnlyWhenEnabled(t *testing.T) {
	run := func(t *testing.T, o aiotel.Options, stream bool) *recorder {
		rec := newRecorder(t)
		model, tools := searchRun(rec.tp)
		_, err := generate(context.Background(), stream, ai.GenerateTextOptions{
			Model: model, Tools: tools, Instructions: "Be brief.", Prompt: "Will it rain in Paris?", StopWhen: ai.StepCountIs(5),
			Observer: rec.observer(o),
		})
		require.NoError(t, err)
		return rec
	}
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			rec := run(t, aiotel.Options{}, stream)
			for _, s := range rec.sr.Ended() {
				for _, k := range sensitive {
					assert.NotContains(t, attrs(s), k, s.Name())
				}
				for _, e := range s.Events() {
					for _, kv := range e.Attributes {
						assert.NotContains(t, kv.Value.String(), "Paris", "event %s of %s", e.Name, s.Name())
					}
				}
			}

			rec = run(t, aiotel.Options{RecordInputs: true}, stream)
			root := rec.span(t, "invoke_agent scripted")
			assert.JSONEq(t, `[{"role":"user","parts":[{"type":"text","content":"Will it rain in Paris?"}]}]`, attr(t, root, "gen_ai.input.messages").AsString())
			assert.JSONEq(t, `[{"type":"text","content":"Be brief."}]`, attr(t, root, "gen_ai.system_instructions").AsString())
			assert.NotContains(t, attrs(root), attribute.Key("gen_ai.output.messages"))
			chats := rec.spans("chat scripted")
			assert.Contains(t, attr(t, chats[2], "gen_ai.input.messages").AsString(), `"type":"tool_call_response","id":"c2","response":"rain in Paris"`)
			assert.Contains(t, attr(t, chats[1], "gen_ai.tool.definitions").AsString(), `"name":"getForecast"`)
			assert.JSONEq(t, `{"city":"Paris"}`, attr(t, rec.span(t, "execute_tool getForecast"), "gen_ai.tool.call.arguments").AsString())
			assert.NotContains(t, attrs(rec.span(t, "execute_tool getForecast")), attribute.Key("gen_ai.tool.call.result"))

			rec = run(t, aiotel.Options{RecordOutputs: true}, stream)
			root = rec.span(t, "invoke_agent scripted")
			assert.NotContains(t, attrs(root), attribute.Key("gen_ai.input.messages"))
			assert.JSONEq(t, `[{"role":"assistant","parts":[{"type":"text","content":"Rain in Paris."}],"finish_reason":"stop"}]`, attr(t, root, "gen_ai.output.messages").AsString())
			chats = rec.spans("chat scripted")
			assert.JSONEq(t, `[{"role":"assistant","parts":[{"type":"tool_call","id":"c2","name":"getForecast","arguments":{"city":"Paris"}}],"finish_reason":"tool-calls"}]`,
				attr(t, chats[1], "gen_ai.output.messages").AsString())
			assert.Equal(t, "rain in Paris", attr(t, rec.span(t, "execute_tool getForecast"), "gen_ai.tool.call.result").AsString())
		})
	}
}

// Concurrent generations on one observer keep their trees apart.
func TestConcurrentGenerations(t *testing.T) {
	rec := newRecorder(t)
	obs := rec.observer(aiotel.Options{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			model, tools := searchRun(rec.tp)
			_, err := generate(context.Background(), true, ai.GenerateTextOptions{Model: model, Tools: tools, Prompt: "x", StopWhen: ai.StepCountIs(5), Observer: obs})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	roots := rec.spans("invoke_agent scripted")
	require.Len(t, roots, 8)
	traces := map[trace.TraceID]int{}
	for _, s := range rec.sr.Ended() {
		traces[s.SpanContext().TraceID()]++
	}
	assert.Len(t, traces, 8)
	for _, n := range traces {
		assert.Equal(t, 10, n, "spans per generation")
	}
}

func TestProviderName(t *testing.T) {
	for in, want := range map[string]string{
		"openai.chat": "openai", "openai.responses": "openai", "anthropic.messages": "anthropic",
		"google.vertex.chat": "gcp.vertex_ai", "amazon-bedrock": "aws.bedrock", "aitest": "aitest", "OpenAI": "openai",
	} {
		assert.Equal(t, want, aiotel.ProviderName(in), in)
	}
}
