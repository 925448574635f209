package ai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

func echoTool() *ai.FunctionTool {
	return ai.NewTool(ai.ToolDef[map[string]any, map[string]any]{
		Execute: func(_ context.Context, in map[string]any, _ ai.ToolExecutionOptions) (map[string]any, error) {
			return in, nil
		},
	})
}

func TestDefaultIsOneStep(t *testing.T) {
	model := aitest.NewModel(toolStep(tc("c1", "echo", `{}`)), textStep("never"))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "echo", Tool: echoTool()}}, Prompt: "go",
	})
	require.NoError(t, err)
	assert.Len(t, res.Steps, 1)
	assert.Equal(t, ai.FinishToolCalls, res.FinishReason)
	assert.Equal(t, "", res.Text)
	assert.Len(t, res.ToolResults(), 1, "the tool still ran")
	assert.Equal(t, 1, model.Remaining())
}

func TestStopConditions(t *testing.T) {
	steps := func() *aitest.Model {
		return aitest.NewModel(
			toolStep(tc("c1", "a", `{}`)), toolStep(tc("c2", "b", `{}`)),
			toolStep(tc("c3", "a", `{}`)), textStep("end"))
	}
	tools := ai.Tools{{Name: "a", Tool: echoTool()}, {Name: "b", Tool: echoTool()}}
	cases := []struct {
		name string
		stop ai.StopCondition
		want int
	}{
		{"count", ai.StepCountIs(2), 2},
		{"hasToolCall", ai.HasToolCall("b"), 2},
		{"any", ai.StopWhenAny(ai.StepCountIs(10), func(_ context.Context, s []*ai.StepResult) (bool, error) { return len(s) == 3, nil }), 3},
		{"text ends", ai.StepCountIs(10), 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: steps(), Tools: tools, StopWhen: c.stop, Prompt: "go"})
			require.NoError(t, err)
			assert.Len(t, res.Steps, c.want)
		})
	}
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: steps(), Tools: tools, Prompt: "go",
		StopWhen: func(context.Context, []*ai.StepResult) (bool, error) { return false, errors.New("bad condition") },
	})
	assert.EqualError(t, err, "bad condition")
}

func TestNoExecutionOnLengthOrWithoutExecute(t *testing.T) {
	ran := 0
	tool := ai.NewTool(ai.ToolDef[struct{}, int]{Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (int, error) {
		ran++
		return 1, nil
	}})
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{tc("c1", "t", `{}`)}, FinishReason: aitest.Length})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "t", Tool: tool}}, StopWhen: ai.StepCountIs(5), Prompt: "go",
	})
	require.NoError(t, err)
	assert.Equal(t, 0, ran)
	assert.Len(t, res.Steps, 1)

	// A tool without Execute stops the loop after the step; the others run.
	noExec := ai.NewTool(ai.ToolDef[struct{}, int]{})
	model = aitest.NewModel(toolStep(tc("c1", "t", `{}`), tc("c2", "manual", `{}`)), textStep("x"))
	res, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "t", Tool: tool}, {Name: "manual", Tool: noExec}}, StopWhen: ai.StepCountIs(5), Prompt: "go",
	})
	require.NoError(t, err)
	assert.Equal(t, 1, ran)
	assert.Len(t, res.Steps, 1)
	assert.Len(t, res.ResponseMessages, 2)
}

func TestToolCallsRunConcurrentlyInCallOrder(t *testing.T) {
	var running, peak atomic.Int32
	release := make(chan struct{})
	slow := ai.NewTool(ai.ToolDef[struct {
		D int `json:"d"`
	}, int]{
		Execute: func(ctx context.Context, in struct {
			D int `json:"d"`
		}, _ ai.ToolExecutionOptions) (int, error) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			if n == 3 {
				close(release)
			}
			select {
			case <-release:
			case <-time.After(5 * time.Second):
				return 0, errors.New("tools did not run concurrently")
			}
			time.Sleep(time.Duration(in.D) * time.Millisecond)
			running.Add(-1)
			return in.D, nil
		},
	})
	model := aitest.NewModel(toolStep(tc("a", "slow", `{"d":30}`), tc("b", "slow", `{"d":1}`), tc("c", "slow", `{"d":15}`)))
	var starts []string
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "slow", Tool: slow}}, Prompt: "go",
		OnToolExecutionStart: func(e ai.ToolExecutionStartEvent) { starts = append(starts, e.ToolCall.ToolCallID) },
	})
	require.NoError(t, err)
	assert.Equal(t, int32(3), peak.Load())
	assert.Equal(t, []string{"a", "b", "c"}, starts)
	var ids []string
	for _, r := range res.ToolResults() {
		ids = append(ids, r.ToolCallID)
	}
	assert.Equal(t, []string{"a", "b", "c"}, ids, "results in call order")

	// With a bound of 1 the calls run one after the other.
	var active, maxActive atomic.Int32
	seq := ai.NewTool(ai.ToolDef[struct{}, int]{Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (int, error) {
		n := active.Add(1)
		if n > maxActive.Load() {
			maxActive.Store(n)
		}
		time.Sleep(5 * time.Millisecond)
		active.Add(-1)
		return 0, nil
	}})
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:               aitest.NewModel(toolStep(tc("a", "s", `{}`), tc("b", "s", `{}`), tc("c", "s", `{}`))),
		Tools:               ai.Tools{{Name: "s", Tool: seq}},
		ToolCallConcurrency: 1,
		Prompt:              "go",
	})
	require.NoError(t, err)
	assert.Equal(t, int32(1), maxActive.Load())
}

func TestToolChoiceViolations(t *testing.T) {
	tools := ai.Tools{{Name: "a", Tool: echoTool()}, {Name: "b", Tool: echoTool()}}
	var v *ai.ToolChoiceViolationError
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(toolStep(tc("c1", "a", `{}`))), Tools: tools, Prompt: "go",
		ToolChoice: ai.ToolChoice{Type: ai.ToolChoiceNone},
	})
	require.ErrorAs(t, err, &v)
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(textStep("no")), Tools: tools, Prompt: "go",
		ToolChoice: ai.ToolChoice{Type: ai.ToolChoiceRequired},
	})
	require.ErrorAs(t, err, &v)
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(toolStep(tc("c1", "a", `{}`))), Tools: tools, Prompt: "go",
		ToolChoice: ai.RequireTool("b"),
	})
	require.ErrorAs(t, err, &v)
	assert.Equal(t, "b", v.ToolChoice.ToolName)
}

func TestPrepareStepScopes(t *testing.T) {
	model := aitest.NewModel(toolStep(tc("c1", "a", `{}`)), toolStep(tc("c2", "a", `{}`)), textStep("done"))
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:        model,
		Tools:        ai.Tools{{Name: "a", Tool: echoTool()}, {Name: "b", Tool: echoTool()}},
		Instructions: "first",
		Temperature:  new(0.5),
		StopWhen:     ai.StepCountIs(5),
		Prompt:       "go",
		PrepareStep: func(_ context.Context, p ai.PrepareStepOptions) (*ai.PrepareStepResult, error) {
			if p.StepNumber != 1 {
				return nil, nil
			}
			return &ai.PrepareStepResult{
				Instructions: []ai.SystemMessage{{Content: "second"}},
				Temperature:  new(0.0),
				ActiveTools:  []string{"a"},
				ToolChoice:   &ai.ToolChoice{Type: ai.ToolChoiceRequired},
			}, nil
		},
	})
	require.NoError(t, err)
	calls := model.Calls()
	require.Len(t, calls, 3)
	sys := func(i int) string { return calls[i].Prompt[0].(provider.SystemMessage).Content }
	assert.Equal(t, []string{"first", "second", "second"}, []string{sys(0), sys(1), sys(2)}, "instructions carry over")
	assert.Equal(t, 0.5, *calls[0].Temperature)
	assert.Equal(t, 0.0, *calls[1].Temperature)
	assert.Equal(t, 0.5, *calls[2].Temperature, "sampling settings apply to one step")
	assert.Len(t, calls[1].Tools, 1)
	assert.Len(t, calls[2].Tools, 2)
	assert.Equal(t, ai.ToolChoiceRequired, calls[1].ToolChoice.Type)
	assert.Equal(t, ai.ToolChoiceAuto, calls[2].ToolChoice.Type)
}

// TestResponseMessagesSurvivePreparedMessages checks that the response
// messages are every step's messages, in order, whether or not PrepareStep
// replaced the conversation in between, and that the steps' messages and
// the prompts each step saw stay as they were.
func TestResponseMessagesSurvivePreparedMessages(t *testing.T) {
	for _, replaceAt := range []int{-1, 1, 2} {
		model := aitest.NewModel(toolStep(tc("c1", "a", `{}`)), toolStep(tc("c2", "a", `{}`)), textStep("done"))
		res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
			Model:    model,
			Tools:    ai.Tools{{Name: "a", Tool: echoTool()}},
			StopWhen: ai.StepCountIs(5),
			Prompt:   "go",
			PrepareStep: func(_ context.Context, p ai.PrepareStepOptions) (*ai.PrepareStepResult, error) {
				if p.StepNumber != replaceAt {
					return nil, nil
				}
				return &ai.PrepareStepResult{Messages: []ai.Message{ai.UserText("summary")}}, nil
			},
		})
		require.NoError(t, err)
		require.Len(t, res.Steps, 3)
		var want []ai.Message
		for _, s := range res.Steps {
			want = append(want, s.Response.Messages...)
		}
		require.Len(t, want, 5, "replace at %d", replaceAt)
		assert.Equal(t, want, res.ResponseMessages, "replace at %d", replaceAt)
		assert.IsType(t, ai.TextPart{}, res.ResponseMessages[4].(ai.AssistantMessage).Content[0])
		calls := model.Calls()
		require.Len(t, calls, 3)
		for i, c := range calls {
			wantLen := 1 + 2*i
			if replaceAt >= 0 && i >= replaceAt {
				wantLen = 1 + 2*(i-replaceAt)
			}
			assert.Len(t, c.Prompt, wantLen, "replace at %d, step %d", replaceAt, i)
		}
	}
}

func TestCallbacksCannotBreakTheGeneration(t *testing.T) {
	var steps []int
	var ends []string
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:    aitest.NewModel(toolStep(tc("c1", "a", `{}`)), textStep("fine")),
		Tools:    ai.Tools{{Name: "a", Tool: echoTool()}},
		StopWhen: ai.StepCountIs(3),
		Prompt:   "go",
		OnStepEnd: func(s *ai.StepResult) {
			steps = append(steps, s.StepNumber)
			panic("observer bug")
		},
		OnToolExecutionStart: func(ai.ToolExecutionStartEvent) { panic("observer bug") },
		OnToolExecutionEnd:   func(e ai.ToolExecutionEndEvent) { ends = append(ends, e.ToolCall.ToolCallID) },
	})
	require.NoError(t, err)
	assert.Equal(t, "fine", res.Text)
	assert.Equal(t, []int{0, 1}, steps)
	assert.Equal(t, []string{"c1"}, ends)
}

func TestCancellationStopsToolsAndReturns(t *testing.T) {
	started := make(chan struct{})
	var sawCancel atomic.Bool
	tool := ai.NewTool(ai.ToolDef[struct{}, int]{Execute: func(ctx context.Context, _ struct{}, _ ai.ToolExecutionOptions) (int, error) {
		close(started)
		<-ctx.Done()
		sawCancel.Store(true)
		return 0, ctx.Err()
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
			Model: aitest.NewModel(toolStep(tc("c1", "wait", `{}`)), textStep("never")),
			Tools: ai.Tools{{Name: "wait", Tool: tool}}, StopWhen: ai.StepCountIs(3), Prompt: "go",
		})
		done <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("GenerateText did not return after cancellation")
	}
	assert.True(t, sawCancel.Load())
}

func TestRetries(t *testing.T) {
	limited := &provider.APICallError{Message: "slow down", StatusCode: 429, Retryable: true,
		ResponseHeaders: provider.Header(http.Header{"Retry-After-Ms": {"5"}})}
	model := aitest.NewModel(aitest.Response{Err: limited}, textStep("ok"))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "go"})
	require.NoError(t, err)
	assert.Equal(t, "ok", res.Text)
	assert.Len(t, model.Calls(), 2)

	bad := &provider.APICallError{Message: "bad request", StatusCode: 400}
	model = aitest.NewModel(aitest.Response{Err: bad}, textStep("never"))
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "go"})
	assert.True(t, err == error(bad), "a non-retryable error is returned as it is")
	var api *provider.APICallError
	require.ErrorAs(t, err, &api)
	assert.Equal(t, 400, api.StatusCode)
	assert.Len(t, model.Calls(), 1)

	model = aitest.NewModel(aitest.Response{Err: limited}, aitest.Response{Err: limited})
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "go", MaxRetries: new(1)})
	var re *ai.RetryError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "maxRetriesExceeded", re.Reason)
	assert.Len(t, re.Errors, 2)

	// Cancellation during the backoff ends the wait.
	slow := &provider.APICallError{Message: "busy", StatusCode: 503, Retryable: true,
		ResponseHeaders: provider.Header(http.Header{"Retry-After": {"30"}})}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err = ai.GenerateText(ctx, ai.GenerateTextOptions{Model: aitest.NewModel(aitest.Response{Err: slow}, textStep("x")), Prompt: "go"})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(began), 5*time.Second)
	// The error that caused the wait is kept.
	require.ErrorAs(t, err, &api)
	assert.Equal(t, 503, api.StatusCode)
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "abort", re.Reason)
}

// A provider result for a call that is not in the response is a typed
// error in a non-streaming step.
func TestProviderResultOfUnknownCall(t *testing.T) {
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{
		provider.ToolResult{ToolCallID: "ghost", ToolName: "web", Result: json.RawMessage(`{}`)},
	}})
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "go"})
	var ue *ai.UnknownToolCallResultError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "ghost", ue.ToolCallID)
	assert.Equal(t, "web", ue.ToolName)
}

func TestPromptErrors(t *testing.T) {
	model := aitest.NewModel(textStep("x"))
	var pe *ai.InvalidPromptError
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model})
	assert.ErrorAs(t, err, &pe)
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "a", Messages: []ai.Message{ai.UserText("b")}})
	assert.ErrorAs(t, err, &pe)
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Messages: []ai.Message{}})
	assert.ErrorAs(t, err, &pe)
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Messages: []ai.Message{ai.SystemMessage{Content: "s"}, ai.UserText("u")}})
	assert.ErrorAs(t, err, &pe)
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Messages: []ai.Message{
		ai.UserText("u"),
		ai.AssistantMessage{Content: []ai.AssistantPart{ai.ToolCallPart{ToolCallID: "x1", ToolName: "t", Input: []byte(`{}`)}}},
		ai.UserText("again"),
	}})
	var missing *ai.MissingToolResultsError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, []string{"x1"}, missing.ToolCallIDs)
	var ia *ai.InvalidArgumentError
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{Prompt: "x"})
	assert.ErrorAs(t, err, &ia)
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "x",
		Tools: ai.Tools{{Name: "a", Tool: echoTool()}, {Name: "a", Tool: echoTool()}}})
	assert.ErrorAs(t, err, &ia)
}

func TestUsageIsSummed(t *testing.T) {
	u := func(in, out int) provider.Usage {
		return provider.Usage{InputTokens: provider.InputTokens{Total: &in}, OutputTokens: provider.OutputTokens{Total: &out}}
	}
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{tc("c1", "a", `{}`)}, FinishReason: aitest.ToolCalls, Usage: u(10, 5)},
		aitest.Response{Content: []provider.Content{aitest.Text("ok")}, Usage: provider.Usage{InputTokens: provider.InputTokens{Total: new(20), CacheRead: new(3)}}},
	)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "a", Tool: echoTool()}}, StopWhen: ai.StepCountIs(3), Prompt: "go",
	})
	require.NoError(t, err)
	assert.Equal(t, 30, *res.Usage.InputTokens)
	assert.Equal(t, 5, *res.Usage.OutputTokens)
	assert.Equal(t, 35, *res.Usage.TotalTokens)
	assert.Equal(t, 3, *res.Usage.InputTokenDetails.CacheReadTokens)
	assert.Nil(t, res.Usage.OutputTokenDetails.TextTokens)
	assert.Equal(t, 20, *res.Steps[1].Usage.TotalTokens)
}

func TestConcurrentGenerationsShareNothing(t *testing.T) {
	tools := ai.Tools{{Name: "search", Tool: ai.ToolSearch()}, {Name: "getForecast", Tool: ai.WithDeferLoading(weatherTool(nil), true)}}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			model := aitest.NewModel(
				toolStep(tc("c1", "search", `{"query":"weather forecast"}`)),
				toolStep(tc("c2", "getForecast", `{"city":"Oslo"}`)),
				textStep("done"))
			res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
				Model: model, Tools: tools, StopWhen: ai.StepCountIs(5), Prompt: "go",
			})
			if !assert.NoError(t, err) {
				return
			}
			calls := model.Calls()
			assert.Len(t, calls[0].Tools, 1, "each generation starts with only the search tool")
			assert.Len(t, calls[1].Tools, 2)
			assert.Equal(t, "done", res.Text)
		}()
	}
	wg.Wait()
}

// A tool set changed in place between generations is seen as changed: the
// index cached for its first form is not used for the second.
func TestToolSetChangedInPlace(t *testing.T) {
	constTool := func(v int) *ai.FunctionTool {
		return ai.NewTool(ai.ToolDef[struct{}, int]{Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (int, error) {
			return v, nil
		}})
	}
	tools := ai.Tools{{Name: "pad", Tool: echoTool()}, {Name: "t", Tool: constTool(1)}}
	run := func() any {
		t.Helper()
		res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
			Model: aitest.NewModel(toolStep(tc("c1", "t", `{}`))), Tools: tools, Prompt: "go",
		})
		require.NoError(t, err)
		require.Len(t, res.Steps, 1)
		if rs := res.ToolResults(); len(rs) == 1 {
			return rs[0].Output
		}
		return res.Steps[0].Content
	}
	assert.Equal(t, 1, run())
	tools[1].Tool = constTool(2)
	assert.Equal(t, 2, run(), "another function tool under the same name")
	pt, err := ai.NewProviderTool(ai.ProviderToolDef{ID: "test.t"})
	require.NoError(t, err)
	tools[1].Tool = pt
	assert.NotEqual(t, 2, run(), "a provider tool under the same name")
	tools[1] = ai.NamedTool{Name: "u", Tool: constTool(3)}
	assert.NotEqual(t, 3, run(), "the old name is gone")
}
