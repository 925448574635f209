package ai_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

type depthKey struct{}

// eventLog is an Observer that logs every event, indented by nesting depth,
// which it carries in the context.
type eventLog struct {
	mu     sync.Mutex
	lines  []string
	panics bool
}

func (l *eventLog) add(ctx context.Context, format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, _ := ctx.Value(depthKey{}).(int)
	l.lines = append(l.lines, strings.Repeat("  ", d)+fmt.Sprintf(format, args...))
}

func (l *eventLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n") + "\n"
}

func deeper(ctx context.Context) context.Context {
	d, _ := ctx.Value(depthKey{}).(int)
	return context.WithValue(ctx, depthKey{}, d+1)
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return "error: " + err.Error()
}

func (l *eventLog) StartGeneration(ctx context.Context, g ai.GenerationInfo) (context.Context, func(ai.GenerationOutcome)) {
	if l.panics {
		panic("observer panic")
	}
	l.add(ctx, "generation stream=%v", g.Stream)
	inner := deeper(ctx)
	return inner, func(o ai.GenerationOutcome) {
		steps := 0
		if o.Result != nil {
			steps = len(o.Result.Steps)
		}
		l.add(ctx, "generation end: %d steps, %s", steps, errText(o.Err))
	}
}

func (l *eventLog) StartStep(ctx context.Context, s ai.StepInfo) (context.Context, func(ai.StepOutcome)) {
	if l.panics {
		panic("observer panic")
	}
	l.add(ctx, "step %d tools=%v discovered=%v", s.StepNumber, s.Tools, s.Discovered)
	return deeper(ctx), func(o ai.StepOutcome) {
		l.add(ctx, "step %d end: recorded=%v, %s", s.StepNumber, o.Step != nil, errText(o.Err))
	}
}

func (l *eventLog) StartModelCall(ctx context.Context, m ai.ModelCallInfo) (context.Context, func(ai.ModelCallOutcome)) {
	l.add(ctx, "model stream=%v retries=%d", m.Stream, m.MaxRetries)
	return deeper(ctx), func(o ai.ModelCallOutcome) {
		finish := ""
		if o.Result != nil {
			finish = string(o.Result.FinishReason.Unified)
		}
		l.add(ctx, "model end: %s %s first-chunk=%v", finish, errText(o.Err), o.TimeToFirstChunk > 0)
	}
}

func (l *eventLog) StartToolCall(ctx context.Context, t ai.ToolCallInfo) (context.Context, func(ai.ToolCallOutcome)) {
	l.add(ctx, "tool %s %s", t.ToolCall.ToolName, t.ToolCall.ToolCallID)
	return deeper(ctx), func(o ai.ToolCallOutcome) {
		l.add(ctx, "tool %s end: %v %s", t.ToolCall.ToolName, o.Output, errText(o.Err))
	}
}

func (l *eventLog) Retry(ctx context.Context, r ai.RetryInfo) {
	l.add(ctx, "retry attempt=%d delay=%v %s", r.Attempt, r.Delay, errText(r.Err))
}

type noIn struct{}

// depthTool reports the observer's nesting depth of its context.
var depthTool = ai.NewTool(ai.ToolDef[noIn, string]{
	Description: "Reports its depth.",
	Execute: func(ctx context.Context, _ noIn, _ ai.ToolExecutionOptions) (string, error) {
		d, _ := ctx.Value(depthKey{}).(int)
		return fmt.Sprintf("depth %d", d), nil
	},
})

func runBoth(t *testing.T, f func(t *testing.T, stream bool)) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) { f(t, stream) })
	}
}

func observedRun(ctx context.Context, stream bool, opts ai.GenerateTextOptions) (*ai.GenerateTextResult, error) {
	if !stream {
		return ai.GenerateText(ctx, opts)
	}
	res, err := ai.StreamText(ctx, opts)
	if err != nil {
		return nil, err
	}
	return res.Wait()
}

func TestObserverEvents(t *testing.T) {
	runBoth(t, func(t *testing.T, stream bool) {
		log := &eventLog{}
		model := aitest.NewModel(
			aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "search", `{"query":"depth"}`)}, FinishReason: aitest.ToolCalls},
			aitest.Response{Content: []provider.Content{aitest.ToolCall("c2", "depth", `{}`)}, FinishReason: aitest.ToolCalls},
			aitest.Response{Content: []provider.Content{aitest.Text("done")}},
		)
		deferred := ai.NewTool(ai.ToolDef[noIn, string]{
			Description: "Reports its depth.", DeferLoading: true,
			Execute: func(ctx context.Context, _ noIn, o ai.ToolExecutionOptions) (string, error) {
				d, _ := ctx.Value(depthKey{}).(int)
				return fmt.Sprintf("depth %d", d), nil
			},
		})
		res, err := observedRun(context.Background(), stream, ai.GenerateTextOptions{
			Model: model, Prompt: "go", StopWhen: ai.StepCountIs(5), Observer: log,
			Tools: ai.Tools{{Name: "search", Tool: ai.ToolSearch()}, {Name: "depth", Tool: deferred}},
		})
		require.NoError(t, err)
		require.Len(t, res.Steps, 3)
		// The tool's context descends from the one StartToolCall returned.
		assert.Equal(t, "depth 3", res.Steps[1].ToolResults()[0].Output)
		assert.Equal(t, fmt.Sprintf(`generation stream=%[1]v
  step 0 tools=[search] discovered=[]
    model stream=%[1]v retries=2
    model end: tool-calls ok first-chunk=%[1]v
    tool search c1
    tool search end: {[{depth Reports its depth.  }]} ok
  step 0 end: recorded=true, ok
  step 1 tools=[search depth] discovered=[depth]
    model stream=%[1]v retries=2
    model end: tool-calls ok first-chunk=%[1]v
    tool depth c2
    tool depth end: depth 3 ok
  step 1 end: recorded=true, ok
  step 2 tools=[search depth] discovered=[depth]
    model stream=%[1]v retries=2
    model end: stop ok first-chunk=%[1]v
  step 2 end: recorded=true, ok
generation end: 3 steps, ok
`, stream), log.String())
	})
}

func TestObserverRetries(t *testing.T) {
	runBoth(t, func(t *testing.T, stream bool) {
		log := &eventLog{}
		busy := &provider.APICallError{Message: "busy", StatusCode: 503, Retryable: true, ResponseHeaders: provider.Header{"Retry-After-Ms": {"2"}}}
		model := &aitest.Model{Respond: func(_ context.Context, call int, _ *provider.CallOptions) (aitest.Response, error) {
			if call < 2 {
				return aitest.Response{Err: busy}, nil
			}
			return aitest.Response{Content: []provider.Content{aitest.Text("ok")}}, nil
		}}
		_, err := observedRun(context.Background(), stream, ai.GenerateTextOptions{Model: model, Prompt: "go", Observer: log})
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf(`generation stream=%[1]v
  step 0 tools=[] discovered=[]
    model stream=%[1]v retries=2
      retry attempt=1 delay=2ms error: %[2]s
      retry attempt=2 delay=2ms error: %[2]s
    model end: stop ok first-chunk=%[1]v
  step 0 end: recorded=true, ok
generation end: 1 steps, ok
`, stream, busy.Error()), log.String())
	})
}

// A stream whose model reports an error in a later step returns its
// finished steps with a *StreamFailedError; the failed step and model call
// are reported as failures, and so is the generation.
func TestObserverStreamModelError(t *testing.T) {
	log := &eventLog{}
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "depth", `{}`)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Err: errors.New("model down")},
	)
	res, err := ai.StreamText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "go", StopWhen: ai.StepCountIs(5), Observer: log,
		Tools: ai.Tools{{Name: "depth", Tool: depthTool}},
	})
	require.NoError(t, err)
	steps, err := res.Steps()
	var failed *ai.StreamFailedError
	require.ErrorAs(t, err, &failed)
	assert.Len(t, steps, 1)
	assert.Contains(t, log.String(), "    model stream=true retries=2\n    model end:  error: model down first-chunk=false\n  step 1 end: recorded=false, error: model down\ngeneration end: 1 steps, error: the stream reported an error: model down\n")
}

// A resumed approval's call is observed inside the generation, before the
// first step.
func TestObserverResumedApproval(t *testing.T) {
	log := &eventLog{}
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("done")}})
	msgs := []ai.Message{
		ai.UserText("go"),
		ai.AssistantMessage{Content: []ai.AssistantPart{
			ai.ToolCallPart{ToolCallID: "c1", ToolName: "depth", Input: []byte(`{}`)},
			ai.ToolApprovalRequestPart{ApprovalID: "a1", ToolCallID: "c1"},
		}},
		ai.ToolMessage{Content: []ai.ToolPart{ai.ToolApprovalResponsePart{ApprovalID: "a1", Approved: true}}},
	}
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Messages: msgs, Observer: log, Tools: ai.Tools{{Name: "depth", Tool: depthTool}},
	})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(log.String(), "generation stream=false\n  tool depth c1\n  tool depth end: depth 2 ok\n  step 0 tools=[depth]"), log.String())
}

// A panicking observer leaves the generation unobserved, not broken.
func TestObserverPanics(t *testing.T) {
	runBoth(t, func(t *testing.T, stream bool) {
		log := &eventLog{panics: true}
		model := aitest.NewModel(
			aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "depth", `{}`)}, FinishReason: aitest.ToolCalls},
			aitest.Response{Content: []provider.Content{aitest.Text("done")}},
		)
		res, err := observedRun(context.Background(), stream, ai.GenerateTextOptions{
			Model: model, Prompt: "go", StopWhen: ai.StepCountIs(5), Observer: log,
			Tools: ai.Tools{{Name: "depth", Tool: depthTool}},
		})
		require.NoError(t, err)
		assert.Equal(t, "done", res.Text)
		assert.Contains(t, log.String(), "tool depth c1")
	})
}

type tagKey struct{}

// tagObserver appends its tag to a list in the context and logs its events.
type tagObserver struct {
	tag string
	out *[]string
	mu  *sync.Mutex
}

func (o tagObserver) start(ctx context.Context, what string) (context.Context, func()) {
	tags, _ := ctx.Value(tagKey{}).([]string)
	o.mu.Lock()
	*o.out = append(*o.out, fmt.Sprintf("%s start %s after %v", o.tag, what, tags))
	o.mu.Unlock()
	return context.WithValue(ctx, tagKey{}, append(tags[:len(tags):len(tags)], o.tag)), func() {
		o.mu.Lock()
		*o.out = append(*o.out, o.tag+" end "+what)
		o.mu.Unlock()
	}
}

func (o tagObserver) StartGeneration(ctx context.Context, _ ai.GenerationInfo) (context.Context, func(ai.GenerationOutcome)) {
	ctx, end := o.start(ctx, "generation")
	return ctx, func(ai.GenerationOutcome) { end() }
}
func (o tagObserver) StartStep(ctx context.Context, _ ai.StepInfo) (context.Context, func(ai.StepOutcome)) {
	ctx, end := o.start(ctx, "step")
	return ctx, func(ai.StepOutcome) { end() }
}
func (o tagObserver) StartModelCall(ctx context.Context, _ ai.ModelCallInfo) (context.Context, func(ai.ModelCallOutcome)) {
	ctx, end := o.start(ctx, "model")
	return ctx, func(ai.ModelCallOutcome) { end() }
}
func (o tagObserver) StartToolCall(ctx context.Context, _ ai.ToolCallInfo) (context.Context, func(ai.ToolCallOutcome)) {
	ctx, end := o.start(ctx, "tool")
	return ctx, func(ai.ToolCallOutcome) { end() }
}
func (o tagObserver) Retry(context.Context, ai.RetryInfo) {}

func TestMultiObserver(t *testing.T) {
	var out []string
	var mu sync.Mutex
	a, b := tagObserver{"a", &out, &mu}, tagObserver{"b", &out, &mu}
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("done")}})
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "go", Observer: ai.MultiObserver(a, nil, b)})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"a start generation after []", "b start generation after [a]",
		"a start step after [a b]", "b start step after [a b a]",
		"a start model after [a b a b]", "b start model after [a b a b a]",
		"b end model", "a end model",
		"b end step", "a end step",
		"b end generation", "a end generation",
	}, out)
}

// An unused observer allocates nothing: see BenchmarkGenerateTextLoop3.
// This test checks that the cancellation of a generation ends every
// observed operation.
func TestObserverCancellation(t *testing.T) {
	log := &eventLog{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	slow := ai.NewTool(ai.ToolDef[noIn, string]{
		Description: "Waits for its context.",
		Execute: func(ctx context.Context, _ noIn, _ ai.ToolExecutionOptions) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		},
	})
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "slow", `{}`)}, FinishReason: aitest.ToolCalls})
	_, err := ai.GenerateText(ctx, ai.GenerateTextOptions{Model: model, Prompt: "go", StopWhen: ai.StepCountIs(3), Observer: log, Tools: ai.Tools{{Name: "slow", Tool: slow}}})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, `generation stream=false
  step 0 tools=[slow] discovered=[]
    model stream=false retries=2
    model end: tool-calls ok first-chunk=false
    tool slow c1
    tool slow end: <nil> error: context deadline exceeded
  step 0 end: recorded=false, error: context deadline exceeded
generation end: 0 steps, error: context deadline exceeded
`, log.String())
}

// telemetryObserver keeps the telemetry settings of the generations it
// sees.
type telemetryObserver struct {
	*eventLog
	seen []ai.TelemetrySettings
}

func (o *telemetryObserver) StartGeneration(ctx context.Context, g ai.GenerationInfo) (context.Context, func(ai.GenerationOutcome)) {
	o.seen = append(o.seen, g.Options.Telemetry)
	return o.eventLog.StartGeneration(ctx, g)
}

// A generation's telemetry settings reach its observer, an agent's
// included, with what PrepareCall made of them.
func TestTelemetrySettingsReachObserver(t *testing.T) {
	obs := &telemetryObserver{eventLog: &eventLog{}}
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("a")}}, aitest.Response{Content: []provider.Content{aitest.Text("b")}})
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "x", Observer: obs,
		Telemetry: ai.TelemetrySettings{FunctionID: "direct", Metadata: map[string]any{"k": 1}}})
	require.NoError(t, err)
	agent := ai.NewAgent(ai.AgentOptions{
		Settings: ai.GenerateTextOptions{Model: model, Observer: obs, Telemetry: ai.TelemetrySettings{FunctionID: "agent"}},
		PrepareCall: func(_ context.Context, opts *ai.GenerateTextOptions) error {
			opts.Telemetry.Metadata = map[string]any{"tenant": "t-1"}
			return nil
		},
	})
	_, err = agent.Generate(context.Background(), ai.AgentCall{Prompt: "y"})
	require.NoError(t, err)
	assert.Equal(t, []ai.TelemetrySettings{
		{FunctionID: "direct", Metadata: map[string]any{"k": 1}},
		{FunctionID: "agent", Metadata: map[string]any{"tenant": "t-1"}},
	}, obs.seen)
}

// resultObserver keeps the results of the model calls it sees.
type resultObserver struct {
	ai.Observer
	results []*provider.GenerateResult
}

func (o *resultObserver) StartModelCall(ctx context.Context, _ ai.ModelCallInfo) (context.Context, func(ai.ModelCallOutcome)) {
	return ctx, func(out ai.ModelCallOutcome) { o.results = append(o.results, out.Result) }
}

// A streamed model call is reported with the result its parts add up to:
// the same content a non-streaming call reports.
func TestObserverSeesStreamedResult(t *testing.T) {
	content := []provider.Content{
		provider.Reasoning{Text: "thinking"},
		aitest.Text("Sunny"),
		aitest.ToolCall("c1", "depth", `{}`),
	}
	runBoth(t, func(t *testing.T, stream bool) {
		obs := &resultObserver{Observer: &eventLog{}}
		model := aitest.NewModel(aitest.Response{Content: content, FinishReason: aitest.ToolCalls})
		_, err := observedRun(context.Background(), stream, ai.GenerateTextOptions{
			Model: model, Prompt: "go", Observer: obs,
			Tools: ai.Tools{{Name: "depth", Tool: depthTool}},
		})
		require.NoError(t, err)
		require.Len(t, obs.results, 1)
		got := obs.results[0]
		require.NotNil(t, got)
		assert.Equal(t, content, got.Content)
		assert.Equal(t, provider.FinishToolCalls, got.FinishReason.Unified)
	})
}
